/* VMSAv8-64 stage-1 translation table descriptors (Arm ARM D8.3) as the
 * shared tree's format (../io_pgtable.h), for the tables an SMMUv3 context
 * descriptor's TTB0 names. The shared tree counts levels up from the
 * leaves (1 = VMSA's level 3); here that is only the question of whether
 * descriptor type 0b11 is a table (above the last level) or a page (at
 * it), and 0b01 a block (refused at the last level).
 *
 * A leaf is normal memory, write-back (AttrIndx 0, which the context
 * descriptor's MAIR makes 0xff), inner shareable, non-global (nG: tagged
 * with the ASID, so TLBI by ASID reaches it), open to unprivileged
 * accesses (AP[1]: a PCIe request is unprivileged) and read-only where the
 * mapping has no write permission (AP[2]). AF is set: QEMU never checks
 * it, but an SMMU without hardware access-flag updates faults on AF=0
 * (F_ACCESS). Table descriptors restrict nothing (APTable, XNTable 0).
 *
 * Stage 2 (STE.S2TTB) shares the shape: the same table and page types, the
 * leaf's own fields differ (Arm ARM D8.5.5): MemAttr 0b1111 (normal,
 * write-back, with no MAIR behind it), S2AP bit 6 reads and bit 7 writes
 * (so write-only exists), no nG (stage 2 is tagged by the VMID). */
#include "driver.h"

static bool present(uint64_t e)
{
	return e & PTE_VALID;
}

static unsigned next(uint64_t e, unsigned level)
{
	uint64_t type = e & PTE_TYPE_MASK;
	if (level == 1) /* the last level: 0b11 is a page, 0b01 reserved */
		return type == PTE_TYPE_TABLE ? 0 : level;
	return type == PTE_TYPE_TABLE ? level - 1 : 0;
}

static uint64_t dir(uint64_t table, unsigned level)
{
	(void)level;
	return (table & PTE_ADDR) | PTE_TYPE_TABLE;
}

static uint64_t leaf(uint64_t phys, unsigned perm, unsigned level)
{
	return (phys & PTE_ADDR) | (level == 1 ? PTE_TYPE_TABLE : PTE_TYPE_BLOCK) | PTE_ATTRINDX(0) | PTE_SH_INNER |
	       PTE_AF | PTE_NG | PTE_AP_UNPRIV | (perm & IOMMU_W ? 0 : PTE_AP_RDONLY);
}

/* AP[2] on a leaf; table descriptors never carry it here */
static unsigned perm(uint64_t e)
{
	return IOMMU_R | (e & PTE_AP_RDONLY ? 0 : IOMMU_W);
}

/* Bits 11:2 of a table descriptor are ignored by the walk (Arm ARM D8.3.1):
 * S2AP set there lets the shared walk, which ands every level's
 * permission, see a table that restricts nothing. */
static uint64_t dir_s2(uint64_t table, unsigned level)
{
	return dir(table, level) | PTE_S2AP_R | PTE_S2AP_W;
}

static uint64_t leaf_s2(uint64_t phys, unsigned perm, unsigned level)
{
	return (phys & PTE_ADDR) | (level == 1 ? PTE_TYPE_TABLE : PTE_TYPE_BLOCK) | PTE_S2_MEMATTR_WB | PTE_SH_INNER |
	       PTE_AF | (perm & IOMMU_R ? PTE_S2AP_R : 0) | (perm & IOMMU_W ? PTE_S2AP_W : 0);
}

static unsigned perm_s2(uint64_t e)
{
	return (e & PTE_S2AP_R ? IOMMU_R : 0) | (e & PTE_S2AP_W ? IOMMU_W : 0);
}

const struct io_pgtable_fmt smmuv3_s2_pte_fmt = { "smmuv3", "STE.S2T0SZ", "IDR5's granules", PTE_ADDR, present,
						  next,	    dir_s2,	  leaf_s2,	     perm_s2 };

const struct io_pgtable_fmt smmuv3_pte_fmt = {
	"smmuv3", "the context descriptor's T0SZ", "IDR5's granules", PTE_ADDR, present, next, dir, leaf, perm
};
