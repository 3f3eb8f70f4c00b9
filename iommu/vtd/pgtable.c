/* VT-d second-level paging entries (spec 9.8) as the shared tree's format
 * (../io_pgtable.h): an entry with R or W set is present; above level 1 it
 * is a leaf when PS is set, else it points at the next table, which is
 * reached with both permissions (the leaf decides). */
#include "pgtable.h"

#include "regs.h"

static bool present(uint64_t e)
{
	return e & (VTD_PTE_R | VTD_PTE_W);
}

static unsigned next(uint64_t e, unsigned level)
{
	return level == 1 || (e & VTD_PTE_PS) ? 0 : level - 1;
}

static uint64_t dir(uint64_t table, unsigned level)
{
	(void)level;
	return (table & VTD_PTE_ADDR) | VTD_PTE_R | VTD_PTE_W;
}

static uint64_t leaf(uint64_t phys, unsigned perm, unsigned level)
{
	return (phys & VTD_PTE_ADDR) | (perm & IOMMU_R ? VTD_PTE_R : 0) | (perm & IOMMU_W ? VTD_PTE_W : 0) |
	       (level > 1 ? VTD_PTE_PS : 0);
}

static unsigned perm(uint64_t e)
{
	return (e & VTD_PTE_R ? IOMMU_R : 0) | (e & VTD_PTE_W ? IOMMU_W : 0);
}

const struct io_pgtable_fmt vtd_pte_fmt = { "vtd", "MGAW", "CAP.SLLPS", VTD_PTE_ADDR, present, next, dir, leaf, perm };

/* First-stage entries (9.7) as the tree's format: present with P; above
 * level 1 a leaf when PS is set. Tables are entered with RW and US (the
 * leaf decides; requests without a PASID are user requests, so every level
 * carries US); A and D stay clear for the unit to set, XD clear (it is
 * reserved unless the PASID entry sets NXE). */
static bool fs_present(uint64_t e)
{
	return e & VTD_FS_P;
}

static unsigned fs_next(uint64_t e, unsigned level)
{
	return level == 1 || (e & VTD_FS_PS) ? 0 : level - 1;
}

static uint64_t fs_dir(uint64_t table, unsigned level)
{
	(void)level;
	return (table & VTD_FS_ADDR) | VTD_FS_P | VTD_FS_RW | VTD_FS_US;
}

static uint64_t fs_leaf(uint64_t phys, unsigned perm, unsigned level)
{
	return (phys & VTD_FS_ADDR) | VTD_FS_P | VTD_FS_US | (perm & IOMMU_W ? VTD_FS_RW : 0) |
	       (level > 1 ? VTD_FS_PS : 0);
}

static unsigned fs_perm(uint64_t e)
{
	return IOMMU_R | (e & VTD_FS_RW ? IOMMU_W : 0);
}

const struct io_pgtable_fmt vtd_fs_pte_fmt = {
	"vtd", "the first-stage walk", "CAP.FS1GP", VTD_FS_ADDR, fs_present, fs_next, fs_dir, fs_leaf, fs_perm
};
