/* The Sv39/48/57 page-table entry (RISC-V privileged architecture, "Sv39"
 * and the sections after it) as the shared tree's format, for both stages
 * of the RISC-V IOMMU (spec 2.1.3, 2.3.2): the G stage's x4 modes differ
 * only in the root's two extra bits, which the tree configuration gives. */
#include "riscv.h"

static bool present(uint64_t e)
{
	return e & RVI_PTE_V;
}

/* R, W or X set: a leaf at any level (a superpage above level 1); none: a
 * pointer to the level below, which level 1 cannot hold. W without R is
 * reserved, and so are the N and PBMT bits this driver never writes. */
static unsigned next(uint64_t e, unsigned level)
{
	if ((e & (RVI_PTE_W | RVI_PTE_R)) == RVI_PTE_W || (e & (RVI_PTE_N | 0x6000000000000000ull)))
		return level;
	if (e & (RVI_PTE_R | RVI_PTE_W | RVI_PTE_X))
		return 0;
	return level > 1 ? level - 1 : level;
}

static uint64_t dir(uint64_t table, unsigned level)
{
	(void)level;
	return rvi_ppn_field(table) | RVI_PTE_V;
}

static uint64_t leaf(uint64_t phys, unsigned perm, unsigned level)
{
	(void)level;
	return rvi_ppn_field(phys) | RVI_PTE_V | RVI_PTE_U | RVI_PTE_A | RVI_PTE_D | (perm & IOMMU_R ? RVI_PTE_R : 0) |
	       (perm & IOMMU_W ? RVI_PTE_W : 0);
}

/* A pointer restricts nothing; a leaf allows what its R and W say. */
static unsigned perm(uint64_t e)
{
	if (!(e & (RVI_PTE_R | RVI_PTE_W | RVI_PTE_X)))
		return IOMMU_RW;
	return (e & RVI_PTE_R ? IOMMU_R : 0) | (e & RVI_PTE_W ? IOMMU_W : 0);
}

const struct io_pgtable_fmt rvi_pte_fmt = {
	.name = "riscv",
	.width = "the mode's address width",
	.sizes = "the mode's levels",
	.addr = RVI_PTE_PPN_MASK,
	.present = present,
	.next = next,
	.dir = dir,
	.leaf = leaf,
	.perm = perm,
	.addr_shift = 2,
};

const char *rvi_pgtable_cfg(uint64_t caps, unsigned mode, bool gstage, struct io_pgtable_cfg *cfg)
{
	static const struct {
		unsigned mode, levels;
		uint64_t s_cap, g_cap;
		const char *s_name, *g_name;
	} modes[] = {
		{ RVI_ATP_SV39, 3, RVI_CAP_SV39, RVI_CAP_SV39X4, "Sv39", "Sv39x4" },
		{ RVI_ATP_SV48, 4, RVI_CAP_SV48, RVI_CAP_SV48X4, "Sv48", "Sv48x4" },
		{ RVI_ATP_SV57, 5, RVI_CAP_SV57, RVI_CAP_SV57X4, "Sv57", "Sv57x4" },
	};
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		if (modes[i].mode != mode)
			continue;
		if (!(caps & (gstage ? modes[i].g_cap : modes[i].s_cap)))
			return gstage ? "the unit has no such G-stage mode (capabilities Sv39x4/48x4/57x4)"
				      : "the unit has no such S-stage mode (capabilities Sv39/48/57)";
		unsigned va = 12 + 9 * modes[i].levels;
		*cfg = (struct io_pgtable_cfg){
			.levels = modes[i].levels,
			/* S: the lower half (bit va - 1 clear, so no sign
			 * extension); G: two bits more, zero-extended */
			.addr_bits = gstage ? va + 2 : va - 1,
			.page_sizes =
			    (1ull << 12) | (1ull << 21) | (1ull << 30) | (modes[i].levels >= 4 ? 1ull << 39 : 0),
			.fmt = &rvi_pte_fmt,
			.top_extra_bits = gstage ? 2 : 0,
		};
		return NULL;
	}
	return "not a translating mode (8 Sv39, 9 Sv48, 10 Sv57)";
}
