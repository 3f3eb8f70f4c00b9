/* The IOMMU units the firmware describes (DMAR remapping units, IVRS
 * IVHD blocks, IORT SMMUv3 nodes), and which unit covers each PCI device. */
#ifndef IOMMON_UNITS_H
#define IOMMON_UNITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/tables/dmar.h"
#include "core/tables/iort.h"
#include "core/tables/ivrs.h"
#include "pci/alias.h"
#include "pci/pci.h"

#define IOMMU_MAX_UNITS 64

enum iommu_type { IOMMU_VTD, IOMMU_AMDVI, IOMMU_SMMUV3 };

struct iommu_unit {
	char name[16]; /* dmar0.., amdvi0.., smmu0.. */
	enum iommu_type type;
	uint16_t segment;
	uint64_t base;
	bool include_all; /* VT-d INCLUDE_PCI_ALL, or an IVHD select-all entry */
	size_t src;	  /* index in dmar.s, ivrs.b or iort.smmu */
	size_t ndevices;
	uint64_t size;	   /* bytes of its register window */
	char source[40];   /* the table entry that describes it: "DMAR DRHD at 0x30" */
	char refused[256]; /* why its register window may not be opened, or "" */
};

struct iommu_units {
	struct iommu_unit u[IOMMU_MAX_UNITS];
	size_t n;
	bool have_dmar, have_ivrs, have_iort;
	struct dmar dmar;
	struct ivrs ivrs;
	struct iort iort;
	unsigned parent_walks_cut; /* device-to-bridge walks stopped by the hop bound */
};

static inline const char *iommu_type_name(enum iommu_type t)
{
	return t == IOMMU_VTD ? "vtd" : t == IOMMU_AMDVI ? "amdvi" : "smmuv3";
}

/* Parses the tables given (either may be NULL), lists the units and sets
 * each device's `iommu`. */
void units_build(struct iommu_units *u, const uint8_t *dmar, size_t dmar_len, const uint8_t *ivrs, size_t ivrs_len,
		 struct pci_list *pci);
/* The same from tables already parsed (either may be NULL): they are taken
 * over (units_free frees them), so nothing is parsed twice. */
void units_adopt(struct iommu_units *u, struct dmar *dmar, struct ivrs *ivrs, struct pci_list *pci);
/* Then the SMMUv3s of an IORT already parsed (taken over like the others):
 * units smmu0.. (register pages 0 and 1), and each device not yet covered
 * gets the SMMUv3 its requester id maps to (iort_map_rid); a device whose
 * RID goes to an ITS only stays uncovered. */
void units_adopt_iort(struct iommu_units *u, struct iort *iort, struct pci_list *pci);
void units_free(struct iommu_units *u);

/* The unit's identity registers: VT-d VER, CAP, ECAP (spec 11.4.1-3);
 * AMD-Vi EFR at MMIO 0x30; SMMUv3 IDR0-5 and AIDR (IHI 0070 6.3.1-6).
 * False when its window was refused (`refused`), its base is not
 * page-aligned, or it reads all ones. */
struct unit_regs {
	uint32_t version;
	uint64_t cap, ecap; /* AMD-Vi: cap = EFR */
	uint32_t idr[6];    /* SMMUv3 SMMU_IDR0..5 */
	uint32_t aidr;	    /* SMMUv3 SMMU_AIDR */
};
bool units_read_regs(const struct iommu_unit *u, struct unit_regs *r);
/* Opens the unit's register window through regwin_open_mmio: NULL, or why
 * not (the same words as `refused`). */
const char *units_open_window(const struct iommu_unit *u, struct regwin *w);
/* Prints the decoded registers, indented, for `iommu`. */
void units_describe(const struct iommu_unit *u);

/* The requester id an IVHD's alias entries (types 42h, 43h) say DMA from
 * `devid` appears with, or -1. */
int units_ivrs_alias(const struct ivrs *v, const struct ivrs_block *ivhd, uint16_t devid);
/* Every requester id DMA from function `i` reaches its unit with: the
 * topology's (pci_dma_aliases) and, where an IVHD covers it, the IVHD's
 * alias entries for each of them. */
void units_dma_aliases(const struct iommu_units *u, const struct pci_list *pci, size_t i, struct pci_aliases *out);
/* The other DMA-capable functions (bridges are not) that share one of
 * the requester ids in `ids` (their own or an alias of theirs): their
 * indexes in `out`, how many (at most max). `self` is left out. */
size_t units_alias_group(const struct iommu_units *u, const struct pci_list *pci, size_t self,
			 const struct pci_aliases *ids, size_t *out, size_t max);

/* The device a DMAR device scope names, following its path through the
 * bridges' secondary bus numbers; -1 when a hop is not there. */
int dmar_scope_device(const struct dmar_scope *sc, uint16_t segment, const struct pci_list *pci);

#endif
