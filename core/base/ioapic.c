#include "ioapic.h"

#include <string.h>

static uint32_t reg_read(struct ioapic *a, uint8_t reg)
{
	regwin_write32(&a->win, IOAPIC_REGSEL, reg);
	return regwin_read32(&a->win, IOAPIC_IOWIN);
}

static void reg_write(struct ioapic *a, uint8_t reg, uint32_t v)
{
	regwin_write32(&a->win, IOAPIC_REGSEL, reg);
	regwin_write32(&a->win, IOAPIC_IOWIN, v);
}

const char *ioapic_init(struct ioapic *a, const struct regwin *w, uint8_t id, uint32_t gsi_base)
{
	memset(a, 0, sizeof(*a));
	a->win = *w;
	a->id = id;
	a->gsi_base = gsi_base;
	uint32_t v = reg_read(a, IOAPIC_REG_VERSION);
	if (v == 0xffffffffu)
		return "ioapic: the version register reads all ones: no I/O APIC there";
	a->version = (uint8_t)v;
	a->pins = ((v >> 16) & 0xff) + 1;
	return NULL;
}

uint64_t ioapic_read_rte(struct ioapic *a, unsigned pin)
{
	uint8_t r = (uint8_t)(IOAPIC_REG_RTE + 2 * pin);
	uint64_t lo = reg_read(a, r);
	return (uint64_t)reg_read(a, (uint8_t)(r + 1)) << 32 | lo;
}

bool ioapic_claimed(const struct ioapic *a, unsigned pin)
{
	return pin < IOAPIC_MAX_PINS && (a->claimed[pin / 8] >> (pin % 8) & 1);
}

void ioapic_write_rte(struct ioapic *a, unsigned pin, uint64_t rte)
{
	if (!ioapic_claimed(a, pin))
		return; /* never a pin whose entry was not saved first */
	uint8_t r = (uint8_t)(IOAPIC_REG_RTE + 2 * pin);
	/* masked before anything changes, the high dword (destination,
	 * remapping index) before the low one that may unmask it */
	reg_write(a, r, reg_read(a, r) | (uint32_t)IOAPIC_RTE_MASKED);
	reg_write(a, (uint8_t)(r + 1), (uint32_t)(rte >> 32));
	reg_write(a, r, (uint32_t)rte);
}

const char *ioapic_claim(struct ioapic *a, unsigned pin)
{
	if (pin >= a->pins)
		return "ioapic: the pin is past the last redirection entry";
	if (ioapic_claimed(a, pin))
		return NULL;
	uint64_t rte = ioapic_read_rte(a, pin);
	if (!(rte & IOAPIC_RTE_MASKED))
		return "ioapic: the firmware left the pin unmasked: it is in use";
	a->found[pin] = rte;
	a->claimed[pin / 8] |= (uint8_t)(1u << (pin % 8));
	return NULL;
}

unsigned ioapic_restore(struct ioapic *a)
{
	unsigned bad = 0;
	for (unsigned pin = 0; pin < a->pins; pin++) {
		if (!ioapic_claimed(a, pin))
			continue;
		ioapic_write_rte(a, pin, a->found[pin]);
		/* remote IRR and delivery status are the I/O APIC's own */
		uint64_t ro = 1ull << 12 | 1ull << 14;
		bad += (ioapic_read_rte(a, pin) & ~ro) != (a->found[pin] & ~ro);
		a->claimed[pin / 8] &= (uint8_t) ~(1u << (pin % 8));
	}
	return bad;
}

static struct {
	struct ioapic *a;
	size_t n;
} held;

void ioapic_hold(struct ioapic *a, size_t n)
{
	held.a = a;
	held.n = a ? n : 0;
}

unsigned ioapic_restore_held(void)
{
	unsigned bad = 0;
	for (size_t i = 0; i < held.n; i++)
		bad += ioapic_restore(&held.a[i]);
	held.a = NULL, held.n = 0;
	return bad;
}
