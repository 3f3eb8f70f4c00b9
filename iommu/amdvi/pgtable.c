/* AMD-Vi page directory and page table entries (spec 2.2.3) as the shared
 * tree's format (../io_pgtable.h). PR marks an entry present; its Next
 * Level is 0 for a leaf at whatever level it sits, or the level of the
 * table it points at, which may skip levels (the walk follows that where
 * the skipped indexes are 0). Next Level 7, a page size encoded in the
 * address, is never written here, and a walk that meets one stops.
 * Directories carry IR and IW, since the unit checks them at every level;
 * the leaf decides. */
#include "pgtable.h"

#include "regs.h"

static bool present(uint64_t e)
{
	return e & AMDVI_PTE_PR;
}

static unsigned next(uint64_t e, unsigned level)
{
	unsigned nl = amdvi_pte_nl(e);
	return nl == 7 ? level : nl;
}

static uint64_t dir(uint64_t table, unsigned level)
{
	return (table & AMDVI_PTE_ADDR) | (uint64_t)(level - 1) << AMDVI_PTE_NL_SHIFT | AMDVI_PTE_PR | AMDVI_PTE_IR |
	       AMDVI_PTE_IW;
}

static uint64_t leaf(uint64_t phys, unsigned perm, unsigned level)
{
	(void)level; /* Next Level 0 at any level */
	return (phys & AMDVI_PTE_ADDR) | AMDVI_PTE_PR | (perm & IOMMU_R ? AMDVI_PTE_IR : 0) |
	       (perm & IOMMU_W ? AMDVI_PTE_IW : 0);
}

static unsigned perm(uint64_t e)
{
	return (e & AMDVI_PTE_IR ? IOMMU_R : 0) | (e & AMDVI_PTE_IW ? IOMMU_W : 0);
}

const struct io_pgtable_fmt amdvi_pte_fmt = {
	"amdvi", "the walk's levels", "levels of the walk", AMDVI_PTE_ADDR, present, next, dir, leaf, perm
};
