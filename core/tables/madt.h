/* ACPI MADT (ACPI 6.5 5.2.12, signature "APIC"): the I/O APICs (id,
 * register window, first GSI) and the interrupt source overrides (an ISA
 * IRQ delivered on another GSI, with its polarity and trigger). Bounded
 * like the other parsers: nothing is read past the table, and what is
 * wrong is named in `diag` while the parse goes on. */
#ifndef IOMMON_MADT_H
#define IOMMON_MADT_H

#include <stddef.h>
#include <stdint.h>

#include "diag.h"

#define MADT_IOAPIC 1	    /* I/O APIC structure (5.2.12.3), 12 bytes */
#define MADT_ISO 2	    /* interrupt source override (5.2.12.5), 10 bytes */
#define MADT_MAX_IOAPICS 16 /* servers have up to a dozen; more are named in diag */
#define MADT_MAX_ISOS 32

struct madt_ioapic {
	uint32_t offset; /* within the table */
	uint8_t id;
	uint32_t address, gsi_base;
};

struct madt_iso {
	uint8_t bus, source; /* source: the ISA IRQ */
	uint32_t gsi;
	uint16_t flags; /* MPS INTI flags: polarity 1:0, trigger mode 3:2 */
};

struct madt {
	uint32_t lapic_address, flags;
	struct madt_ioapic ioapic[MADT_MAX_IOAPICS];
	size_t nioapics;
	struct madt_iso iso[MADT_MAX_ISOS];
	size_t nisos;
	struct diag diag;
};

/* Parses `len` bytes: 0, or -1 when not even the fixed part could be
 * read. Either way m->diag says what was wrong. */
int madt_parse(const uint8_t *buf, size_t len, struct madt *m);
/* Once each I/O APIC's pin count is known (its version register, which
 * the MADT does not carry): overlapping GSI ranges named in m->diag.
 * `pins[i]` belongs to m->ioapic[i]. Returns how many overlaps. */
unsigned madt_check_ranges(struct madt *m, const unsigned *pins);
/* The I/O APIC whose range holds `gsi`, or -1. */
int madt_ioapic_of(const struct madt *m, const unsigned *pins, uint32_t gsi);

#endif
