/* The IOMMU units the machine has and which unit covers each PCI device:
 * each backend finds its own (from its ACPI table or its PCI functions,
 * iommu/backend.h) and claims the devices its units cover; this file only
 * runs the backends in registry order and keeps what they found. */
#ifndef IOMMON_UNITS_H
#define IOMMON_UNITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/base/regwin.h"
#include "pci/alias.h"
#include "pci/pci.h"

#define IOMMU_MAX_UNITS 64
#define IOMMU_MAX_BACKENDS 16

struct iommu_backend;

struct iommu_unit {
	char name[16];			     /* dmar0.., amdvi0.., smmu0.. */
	const struct iommu_backend *backend; /* the backend that found it and drives it */
	uint16_t segment;
	uint64_t base;
	bool include_all; /* VT-d INCLUDE_PCI_ALL, or an IVHD select-all entry */
	size_t src;	  /* its entry in its backend's table (dmar.s, ivrs.b, iort.smmu) */
	size_t ndevices;
	uint64_t size;	   /* bytes of its register window */
	char source[40];   /* the table entry that describes it: "DMAR DRHD at 0x30" */
	char refused[256]; /* why its register window may not be opened, or "" */
	/* A unit that is a PCI function whose BAR holds its registers (a
	 * RISC-V IOMMU on PCIe): that BAR's class code, so that its own BAR
	 * is not taken for another device's; 0 for every other unit. */
	uint32_t own_bar_class;
};

#define IOMMU_MAX_MISSING 16

struct iommu_units {
	struct iommu_unit u[IOMMU_MAX_UNITS];
	size_t n;
	/* Requester ids a backend's table sends to a unit it could not make
	 * (units_missing): why, for the devices there that no unit covers */
	struct {
		uint16_t segment, mask, first, last; /* (rid & mask) in [first, last] */
		char why[256];
	} missing[IOMMU_MAX_MISSING];
	size_t nmissing;
	/* what each backend's discovery kept (its parsed table), or NULL */
	size_t nfound;
	struct {
		const struct iommu_backend *backend;
		void *state;
	} found[IOMMU_MAX_BACKENDS];
};

/* Runs the discovery of each of the `n` backends in order, each with its
 * state (taken over: units_free forgets it; NULL: no table): every
 * backend's find, then every backend's claim, so that a device goes to
 * the first backend whose unit covers it. Every device's `iommu` is set. */
void units_adopt(struct iommu_units *u, const struct iommu_backend *const *b, void *const *state, size_t n,
		 struct pci_list *pci);
/* The same from tables given as bytes (tests, fuzzers): each backend's
 * table parsed whatever its errors, or none (table NULL). */
struct units_table {
	const struct iommu_backend *backend;
	const void *table;
	size_t len;
};
void units_build(struct iommu_units *u, const struct units_table *t, size_t n, struct pci_list *pci);
void units_free(struct iommu_units *u);
/* What backend `b`'s discovery kept (its parsed table), or NULL. */
void *units_state(const struct iommu_units *u, const struct iommu_backend *b);
/* True when a backend found its table (whether or not it had units). */
bool units_any_table(const struct iommu_units *u);

/* For a backend's find: adds `unit` (name, segment, base, size, source,
 * src, include_all filled; its backend set) after checking its register
 * window; its index, or -1 when IOMMU_MAX_UNITS are there already (said
 * in `diag`, its table's, when there is one). */
struct diag;
int units_add(struct iommu_units *u, const struct iommu_unit *unit, struct diag *diag);
/* For a backend's claim: function `i` is covered by unit `unit`. */
void units_cover(struct iommu_units *u, struct pci_list *pci, size_t i, size_t unit);
/* For a backend's claim: the requester ids of `segment` whose (rid &
 * mask) lies in [first, last] reach no unit, for the reason given (an
 * entry of its table that leads nowhere, to a disabled unit, ...): what
 * a device there says instead of that no unit covers it. The first
 * IOMMU_MAX_MISSING are kept. */
void units_missing(struct iommu_units *u, uint16_t segment, uint16_t mask, uint16_t first, uint16_t last,
		   const char *fmt, ...) __attribute__((format(printf, 6, 7)));
/* Why no unit covers device `d` (its `iommu` < 0), when a backend said
 * (units_missing); NULL when none did. */
const char *units_why_missing(const struct iommu_units *u, const struct pci_dev *d);
/* How many units of backend `b` there are (its next unit's number). */
size_t units_of(const struct iommu_units *u, const struct iommu_backend *b);
/* The unit backend `b` made from its table's entry `src`, or -1. */
int units_from(const struct iommu_units *u, const struct iommu_backend *b, size_t src);

/* The unit's identity registers, as its backend reads them (VT-d VER,
 * CAP, ECAP; AMD-Vi EFR; SMMUv3 IDR0-5, AIDR), in the order its backend
 * says. False when its window was refused (`refused`), its base is not
 * page-aligned, or they read all ones. */
struct unit_regs {
	uint64_t r[8];
};
bool units_read_regs(const struct iommu_unit *u, struct unit_regs *r);
/* Opens the unit's register window through regwin_open_mmio: NULL, or why
 * not (the same words as `refused`). */
const char *units_open_window(const struct iommu_unit *u, struct regwin *w);
/* `iommu`'s line on what the firmware left a unit doing: "the firmware
 * left: translation, queue on (REGS)", or `off` where nothing. */
void units_print_left_on(const char *const *on, size_t n, const char *off, const char *regs);
/* Prints the decoded registers, indented, for `iommu`. */
void units_describe(const struct iommu_unit *u);

/* Every requester id DMA from function `i` reaches its unit with: the
 * topology's (pci_dma_aliases) and those its unit's backend adds (an
 * IVHD's alias entries for each of them). */
void units_dma_aliases(const struct iommu_units *u, const struct pci_list *pci, size_t i, struct pci_aliases *out);
/* The other DMA-capable functions (bridges are not) that share one of
 * the requester ids in `ids` (their own or an alias of theirs): their
 * indexes in `out`, how many (at most max). `self` is left out. */
size_t units_alias_group(const struct iommu_units *u, const struct pci_list *pci, size_t self,
			 const struct pci_aliases *ids, size_t *out, size_t max);

#endif
