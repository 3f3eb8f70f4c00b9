#include <stdio.h>
#include <string.h>

#include "core/base/claims.h"
#include "core/base/cpu.h"
#include "core/base/platform.h"
#include "pci.h"

#define CF8_ENABLE 0x80000000u

void pci_cfg_init(struct pci_cfg *c, const struct mcfg *m, bool legacy_io)
{
	memset(c, 0, sizeof(*c));
	for (size_t i = 0; m && i < m->n; i++) {
		const struct mcfg_region *r = &m->r[i];
		bool dup = false; /* a bus covered twice would be scanned twice */
		for (size_t k = 0; k < c->n; k++)
			dup |= c->ecam[k].segment == r->segment && r->start_bus <= c->ecam[k].end_bus &&
			       c->ecam[k].start_bus <= r->end_bus;
		if (dup)
			continue;
		struct pci_ecam *e = &c->ecam[c->n];
		e->segment = r->segment;
		e->start_bus = r->start_bus;
		e->end_bus = r->end_bus;
		char source[64];
		snprintf(source, sizeof(source), "%s region %zu (segment %u, buses %02x-%02x)",
			 m->origin ? m->origin : "MCFG", i, r->segment, r->start_bus, r->end_bus);
		/* the base is bus 0's, so a region's window starts start_bus MiB above it */
		uint64_t first = r->base + ((uint64_t)r->start_bus << 20);
		static char wrapped[160];
		const char *why = wrapped;
		if (first < r->base)
			snprintf(wrapped, sizeof(wrapped),
				 "%s gives ecam registers at 0x%llx + bus 0x%02x: refused, wraps past 2^64", source,
				 (unsigned long long)r->base, r->start_bus);
		else
			why = regwin_open_mmio(&e->win, "ecam", first, (uint64_t)(r->end_bus - r->start_bus + 1) << 20,
					       false, source);
		if (why) {
			/* its buses are left to CF8/CFC, which reaches segment 0 (on x86) */
			printf("error: %s\n", why);
			if (c->nrefused < PCI_REFUSED_MAX)
				snprintf(c->refused[c->nrefused], sizeof(c->refused[0]), "%s", why);
			c->nrefused++;
			continue;
		}
		claims_add(CLAIM_DEVICE, first, e->win.size, "the ECAM window of segment %u buses %02x-%02x (%s)",
			   r->segment, r->start_bus, r->end_bus, m->origin ? m->origin : "MCFG");
		c->n++;
	}
#if !CPU_PORT_IO
	/* no I/O ports on Arm or RISC-V: configuration space is ECAM only */
	legacy_io = false;
#endif
	c->legacy = legacy_io;
	if (legacy_io)
		regwin_init_port(&c->cf8, "cf8", 0xcf8, 8);
}

static struct pci_ecam *ecam_for(const struct pci_cfg *c, struct pci_addr a)
{
	for (size_t i = 0; i < c->n; i++) {
		const struct pci_ecam *e = &c->ecam[i];
		if (e->segment == a.seg && a.bus >= e->start_bus && a.bus <= e->end_bus)
			return (struct pci_ecam *)e;
	}
	return NULL;
}

bool pci_has_ecam(const struct pci_cfg *c, struct pci_addr a)
{
	return ecam_for(c, a) != NULL;
}

static uint64_t ecam_off(const struct pci_ecam *e, struct pci_addr a, uint16_t off)
{
	return ((uint64_t)(a.bus - e->start_bus) << 20) | (uint64_t)(a.dev & 31) << 15 | (uint64_t)(a.fn & 7) << 12 |
	       (off & 0xfff);
}

/* CF8/CFC reaches the first 256 bytes of segment 0 (PCI Local Bus 3.0, 3.2.2.3.2) */
static bool cf8_select(struct pci_cfg *c, struct pci_addr a, uint16_t off)
{
	if (!c->legacy || a.seg != 0 || off > 0xff)
		return false;
	regwin_write32(&c->cf8, 0,
		       CF8_ENABLE | (uint32_t)a.bus << 16 | (uint32_t)(a.dev & 31) << 11 | (uint32_t)(a.fn & 7) << 8 |
			   (off & 0xfc));
	return true;
}

uint32_t pci_read32(struct pci_cfg *c, struct pci_addr a, uint16_t off)
{
	struct pci_ecam *e = ecam_for(c, a);
	if (e)
		return regwin_read32(&e->win, ecam_off(e, a, off & ~3));
	/* select and data as one: a firmware timer callback in between could
	 * move CF8 under us */
	uint64_t irq = platform->irq_save();
	uint32_t v = cf8_select(c, a, off) ? regwin_read32(&c->cf8, 4) : 0xffffffffu;
	platform->irq_restore(irq);
	return v;
}

uint16_t pci_read16(struct pci_cfg *c, struct pci_addr a, uint16_t off)
{
	return (uint16_t)(pci_read32(c, a, off & ~3) >> (8 * (off & 2)));
}

bool pci_answers(struct pci_cfg *c, struct pci_addr a)
{
	return pci_read16(c, a, PCI_VENDOR_ID) != 0xffff;
}

uint8_t pci_read8(struct pci_cfg *c, struct pci_addr a, uint16_t off)
{
	return (uint8_t)(pci_read32(c, a, off & ~3) >> (8 * (off & 3)));
}

/* Writes of 4 or 2 bytes; a 16-bit write goes out as such: a
 * read-modify-write of the dword could clear write-1-to-clear status bits
 * next to it. */
static void cfg_write(struct pci_cfg *c, struct pci_addr a, uint16_t off, uint32_t v, unsigned width)
{
	struct pci_ecam *e = ecam_for(c, a);
	if (e) {
		uint64_t o = ecam_off(e, a, off & ~(width - 1));
		if (width == 4)
			regwin_write32(&e->win, o, v);
		else
			regwin_write16(&e->win, o, (uint16_t)v);
		return;
	}
	uint64_t irq = platform->irq_save();
	if (cf8_select(c, a, off)) {
		if (width == 4)
			regwin_write32(&c->cf8, 4, v);
		else
			regwin_write16(&c->cf8, 4 + (off & 2), (uint16_t)v);
	}
	platform->irq_restore(irq);
}

void pci_write32(struct pci_cfg *c, struct pci_addr a, uint16_t off, uint32_t v)
{
	cfg_write(c, a, off, v, 4);
}

void pci_write16(struct pci_cfg *c, struct pci_addr a, uint16_t off, uint16_t v)
{
	cfg_write(c, a, off, v, 2);
}

void pci_restore16(struct pci_cfg *c, struct pci_addr a, uint16_t off, uint16_t found)
{
	if (pci_read16(c, a, off) != found)
		pci_write16(c, a, off, found);
}

void pci_restore32(struct pci_cfg *c, struct pci_addr a, uint16_t off, uint32_t found)
{
	if (pci_read32(c, a, off) != found)
		pci_write32(c, a, off, found);
}
