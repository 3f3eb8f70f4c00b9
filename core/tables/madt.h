/* ACPI MADT (ACPI 6.5 5.2.12, signature "APIC"): the I/O APICs (id,
 * register window, first GSI) and the interrupt source overrides (an ISA
 * IRQ delivered on another GSI, with its polarity and trigger); on Arm the
 * GIC: the distributor (GICD, its version), the redistributor discovery
 * ranges (GICR), each CPU interface (GICC: its MPIDR, its redistributor
 * and GICv2 CPU interface bases) and the ITSs. Bounded
 * like the other parsers: nothing is read past the table, and what is
 * wrong is named in `diag` while the parse goes on. */
#ifndef IOMMON_MADT_H
#define IOMMON_MADT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"

#define MADT_IOAPIC 1	    /* I/O APIC structure (5.2.12.3), 12 bytes */
#define MADT_ISO 2	    /* interrupt source override (5.2.12.5), 10 bytes */
#define MADT_MAX_IOAPICS 16 /* servers have up to a dozen; more are named in diag */
#define MADT_MAX_ISOS 32
#define MADT_GICC 0x0b	  /* GIC CPU interface (5.2.12.14): 76, 80 or 82 bytes by ACPI revision */
#define MADT_GICD 0x0c	  /* GIC distributor (5.2.12.15), 24 bytes */
#define MADT_GICR 0x0e	  /* GIC redistributor discovery range (5.2.12.17), 16 bytes */
#define MADT_ITS 0x0f	  /* GIC ITS (5.2.12.18), 20 bytes */
#define MADT_MAX_GICC 512 /* CPUs kept; more are counted, and named in diag */
#define MADT_MAX_GICR 16
#define MADT_MAX_ITS 16

struct madt_gicc {
	uint32_t uid, flags; /* flags bit 0: enabled */
	uint64_t gicc_base;  /* the GICv2 CPU interface (0 on GICv3 with system registers) */
	uint64_t gicr_base;  /* this CPU's redistributor, where no GICR range is given (else 0) */
	uint64_t mpidr;	     /* Aff3 at 39:32, Aff2-Aff0 at 23:0 */
};

struct madt_gic {
	bool has_gicd;
	uint64_t gicd_base;
	uint8_t version; /* GICD's: 1-4, 0 "from the hardware" */
	struct {
		uint64_t base;
		uint32_t length;
	} gicr[MADT_MAX_GICR];
	size_t ngicr;
	struct madt_gicc *gicc; /* ngicc of them (malloc'd; madt_free) */
	size_t ngicc, gicc_seen;
	struct {
		uint32_t id;
		uint64_t base;
	} its[MADT_MAX_ITS];
	size_t nits;
};

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
	struct madt_gic gic;
	struct diag diag;
};

/* Parses `len` bytes: 0, or -1 when not even the fixed part could be
 * read. Either way m->diag says what was wrong. madt_free gives back what
 * the parse allocated (the GICC list). */
int madt_parse(const uint8_t *buf, size_t len, struct madt *m);
void madt_free(struct madt *m);
/* The GICC entry whose MPIDR affinity is `mpidr`'s (Aff3-Aff0), or NULL. */
const struct madt_gicc *madt_gicc_of(const struct madt *m, uint64_t mpidr);
/* Once each I/O APIC's pin count is known (its version register, which
 * the MADT does not carry): overlapping GSI ranges named in m->diag.
 * `pins[i]` belongs to m->ioapic[i]. Returns how many overlaps. */
unsigned madt_check_ranges(struct madt *m, const unsigned *pins);
/* The I/O APIC whose range holds `gsi`, or -1. */
int madt_ioapic_of(const struct madt *m, const unsigned *pins, uint32_t gsi);

#endif
