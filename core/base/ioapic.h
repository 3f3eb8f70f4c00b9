/* The I/O APIC through its register window (Intel 82093AA datasheet 3.0;
 * ICH9 datasheet 13.5): IOREGSEL at 0x00 selects a register, IOWIN at 0x10
 * reads or writes it. Register 0 is the id (27:24), 1 the version (7:0)
 * with the highest redirection entry in 23:16, 0x10 + 2n and 0x11 + 2n the
 * low and high dwords of redirection entry n.
 *
 * The monitor borrows only pins the firmware left masked: each is saved the
 * first time it is claimed and put back exactly as found by ioapic_restore,
 * which every exit path calls. */
#ifndef IOMMON_IOAPIC_H
#define IOMMON_IOAPIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "regwin.h"

#define IOAPIC_WINDOW 0x20 /* IOREGSEL, IOWIN (and the EOI register at 0x40 is not used) */
#define IOAPIC_REGSEL 0x00
#define IOAPIC_IOWIN 0x10
#define IOAPIC_REG_ID 0x00
#define IOAPIC_REG_VERSION 0x01
#define IOAPIC_REG_RTE 0x10
#define IOAPIC_MAX_PINS 256 /* the 8-bit highest-entry field */

/* Redirection entry fields (82093AA 3.2.4) */
#define IOAPIC_RTE_VECTOR 0xffull
#define IOAPIC_RTE_DEST_LOGICAL (1ull << 11)
#define IOAPIC_RTE_LEVEL (1ull << 15)
#define IOAPIC_RTE_MASKED (1ull << 16)
#define IOAPIC_RTE_DEST_SHIFT 56

struct ioapic {
	struct regwin win;
	uint8_t id;	   /* the MADT's */
	uint32_t gsi_base; /* the MADT's */
	uint8_t version;
	unsigned pins; /* highest entry + 1 */
	uint64_t found[IOAPIC_MAX_PINS];
	uint8_t claimed[IOAPIC_MAX_PINS / 8];
};

/* Reads the version register on a window already open: NULL, or why the
 * window holds no I/O APIC (all ones). */
const char *ioapic_init(struct ioapic *a, const struct regwin *w, uint8_t id, uint32_t gsi_base);
uint64_t ioapic_read_rte(struct ioapic *a, unsigned pin);
/* Masks the entry, writes the high dword, then the low one: an entry is
 * never live half old, half new. Only on a claimed pin. */
void ioapic_write_rte(struct ioapic *a, unsigned pin, uint64_t rte);
/* Saves the entry as found so it can be put back; NULL, or why the pin may
 * not be borrowed: past the last entry, or left unmasked by the firmware
 * (someone uses it). */
const char *ioapic_claim(struct ioapic *a, unsigned pin);
bool ioapic_claimed(const struct ioapic *a, unsigned pin);
/* Every claimed entry back exactly as found (masked first, high, low);
 * the count of those that do not read back as found. */
unsigned ioapic_restore(struct ioapic *a);
/* The I/O APICs whose pins are borrowed now (NULL, 0: none), so that the
 * exit and crash paths put them back (ioapic_restore_held) before the
 * remapping table their entries name is freed. */
void ioapic_hold(struct ioapic *a, size_t n);
unsigned ioapic_restore_held(void);

#endif
