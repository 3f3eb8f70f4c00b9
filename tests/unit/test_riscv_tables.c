/* What the RISC-V IOMMU driver writes in memory, alone: no model, no
 * registers. The S- and G-stage page tables in every mode, held against a
 * walk written here from the privileged architecture's Sv39/48/57
 * algorithm (not the shared tree's walk); the device directory in each
 * mode and context size, against the spec's DDI slices (2.1) and its walk
 * (2.3.1) with broken entries; a context's configuration checks (2.1.4);
 * the commands' bits (3.1) and fault records in words (3.2). */
#include "unit.h"

#include "iommu/riscv/riscv.h"
#include "tests/host/platform_host.h"

#define K4 (1ull << 12)
#define M2 (1ull << 21)
#define G1 (1ull << 30)
#define G512 (1ull << 39)

#define ALL_MODES                                                                                        \
	(RVI_CAP_SV39 | RVI_CAP_SV48 | RVI_CAP_SV57 | RVI_CAP_SV39X4 | RVI_CAP_SV48X4 | RVI_CAP_SV57X4 | \
	 RVI_CAP_AMO_HWAD | RVI_CAP_MSI_FLAT)

static void no_sync(const void *p, size_t n, void *ctx)
{
	(void)p, (void)n, (void)ctx;
}

static int setup(void **state)
{
	(void)state;
	platform = &host_platform;
	return 0;
}

/* The privileged architecture's walk (Sv39 section, "Virtual Address
 * Translation Process"), for `levels` levels from `root`; `extra`: the
 * root index's extra bits (2 for the G stage's x4 modes). Returns the
 * physical address, or ~0 on a page fault; the leaf's bits and level in
 * *pte and *level. Checks what the unit checks: V, W without R, a
 * pointer at the last level, a misaligned superpage. */
static uint64_t ref_walk(uint64_t root, unsigned levels, unsigned extra, uint64_t va, uint64_t *pte, unsigned *level)
{
	uint64_t a = root;
	for (int i = (int)levels - 1; i >= 0; i--) {
		uint64_t bits = 9 + (i == (int)levels - 1 ? extra : 0);
		uint64_t vpn = (va >> (12 + 9 * i)) & ((1ull << bits) - 1);
		uint64_t e = ((const uint64_t *)(uintptr_t)a)[vpn];
		if (!(e & 1) || ((e & 6) == 4))
			return ~0ull;
		uint64_t ppn = (e >> 10) & ((1ull << 44) - 1);
		if (e & 0xa) { /* R or X: a leaf */
			uint64_t low = (1ull << (9 * i)) - 1;
			if (ppn & low)
				return ~0ull; /* misaligned superpage */
			*pte = e, *level = (unsigned)i + 1;
			return ((ppn & ~low) << 12) | (va & ((1ull << (12 + 9 * i)) - 1));
		}
		a = ppn << 12;
	}
	return ~0ull;
}

static const unsigned modes[] = { RVI_ATP_SV39, RVI_ATP_SV48, RVI_ATP_SV57 };

/* Every mode at both stages, a leaf of every size: the reference walk
 * reaches each at its level, with V, R, W as asked, U, A and D set and X
 * clear; the G stage's root is four pages whose top two index bits the
 * reference takes from the IOVA's top. */
static void each_mode_each_leaf(void **state)
{
	(void)state;
	for (int g = 0; g < 2; g++)
		for (size_t m = 0; m < 3; m++) {
			struct io_pgtable_cfg cfg;
			assert_null(rvi_pgtable_cfg(ALL_MODES, modes[m], g, &cfg));
			cfg.sync = no_sync;
			assert_int_equal(cfg.levels, m + 3);
			assert_int_equal(cfg.addr_bits, g ? 12 + 9 * (m + 3) + 2 : 12 + 9 * (m + 3) - 1);
			struct io_pgtable d = { 0 };
			assert_null(io_pgtable_alloc(&rvi_pte_fmt, &d, &cfg, 1));
			if (g)
				assert_int_equal((uintptr_t)d.top & 0x3fff, 0);
			uint64_t top = 1ull << (cfg.addr_bits - 1); /* the highest index bit the mode has */
			uint64_t sizes[] = { K4, M2, G1, G512 };
			for (unsigned s = 0; s < (m ? 4u : 3u); s++) {
				uint64_t size = sizes[s];
				uint64_t iova = top + 3 * size, phys = 0x40000000000ull + 5 * size;
				unsigned perm = s % 2 ? IOMMU_R : IOMMU_RW;
				assert_null(io_pgtable_map(&rvi_pte_fmt, &d, iova, phys, size, perm, size));
				uint64_t pte = 0;
				unsigned level = 0;
				uint64_t pa =
				    ref_walk((uintptr_t)d.top, cfg.levels, g ? 2 : 0, iova + size - 8, &pte, &level);
				assert_int_equal(pa, phys + size - 8);
				assert_int_equal(level, s + 1);
				assert_true(pte & RVI_PTE_V);
				assert_true(pte & RVI_PTE_R);
				assert_int_equal(!!(pte & RVI_PTE_W), perm == IOMMU_RW);
				assert_int_equal(pte & (RVI_PTE_U | RVI_PTE_A | RVI_PTE_D | RVI_PTE_X),
						 RVI_PTE_U | RVI_PTE_A | RVI_PTE_D);
				assert_int_equal(pte & (RVI_PTE_N | 0x6000000000000000ull), 0);
				/* the shared walk agrees with the reference */
				uint64_t p2;
				unsigned pm2, lv2;
				assert_true(io_pgtable_walk(&rvi_pte_fmt, &d, iova + size - 8, &p2, &pm2, &lv2));
				assert_int_equal(p2, pa);
				assert_int_equal(lv2, level);
				assert_int_equal(pm2, perm);
			}
			/* pointers are V alone: nothing else a unit reads as a leaf */
			uint64_t *t = d.top;
			uint64_t idx = (top >> (12 + 9 * (cfg.levels - 1))) & ((1ull << (9 + (g ? 2 : 0))) - 1);
			assert_int_equal(t[idx] & 0x3ff, RVI_PTE_V);
			io_pgtable_free(&d);
		}
}

/* A mode the unit lacks, or no translating mode, gives no tree; an S-stage
 * IOVA in the upper half (which would need sign extension) and a physical
 * address beyond what a PPN holds are refused at map time. */
static void refusals(void **state)
{
	(void)state;
	struct io_pgtable_cfg cfg;
	assert_non_null(rvi_pgtable_cfg(RVI_CAP_SV39, RVI_ATP_SV48, false, &cfg));
	assert_non_null(rvi_pgtable_cfg(RVI_CAP_SV39, RVI_ATP_SV39, true, &cfg));
	assert_non_null(rvi_pgtable_cfg(ALL_MODES, RVI_ATP_BARE, false, &cfg));
	assert_non_null(rvi_pgtable_cfg(ALL_MODES, 11, false, &cfg));
	assert_null(rvi_pgtable_cfg(RVI_CAP_SV39, RVI_ATP_SV39, false, &cfg));
	cfg.sync = no_sync;
	struct io_pgtable d = { 0 };
	assert_null(io_pgtable_alloc(&rvi_pte_fmt, &d, &cfg, 1));
	assert_non_null(io_pgtable_map(&rvi_pte_fmt, &d, 1ull << 38, 0x1000, K4, IOMMU_RW, K4));
	assert_null(io_pgtable_map(&rvi_pte_fmt, &d, (1ull << 38) - K4, 0x1000, K4, IOMMU_RW, K4));
	assert_non_null(io_pgtable_map(&rvi_pte_fmt, &d, 0x2000, 1ull << 56, K4, IOMMU_RW, K4));
	assert_null(io_pgtable_map(&rvi_pte_fmt, &d, 0x2000, (1ull << 56) - K4, K4, IOMMU_RW, K4));
	uint64_t pte;
	unsigned lv;
	assert_int_equal(ref_walk((uintptr_t)d.top, 3, 0, 0x2000, &pte, &lv), (1ull << 56) - K4);
	io_pgtable_free(&d);
}

/* The format refuses what the architecture reserves: W without R, the
 * N bit (Svnapot) and PBMT, which iommon never writes. */
static void reserved_entries(void **state)
{
	(void)state;
	uint64_t ptr = 0x1000 >> 2 | RVI_PTE_V;
	assert_int_equal(rvi_pte_fmt.next(ptr, 3), 2);
	assert_int_equal(rvi_pte_fmt.next(ptr | RVI_PTE_R, 3), 0);
	assert_int_equal(rvi_pte_fmt.next(ptr | RVI_PTE_W, 3), 3);
	assert_int_equal(rvi_pte_fmt.next(ptr | RVI_PTE_R | RVI_PTE_N, 2), 2);
	assert_int_equal(rvi_pte_fmt.next(ptr | RVI_PTE_R | (1ull << 61), 2), 2);
	assert_int_equal(rvi_pte_fmt.next(ptr, 1), 1); /* a pointer at the last level */
	assert_int_equal(io_pgtable_entry_addr(&rvi_pte_fmt, rvi_pte_fmt.leaf(0x123456789000ull, IOMMU_R, 1)),
			 0x123456789000ull);
}

/* The spec's slices (2.1): base format [23:16][15:7][6:0], extended
 * [23:15][14:6][5:0]. */
static unsigned spec_ddi(uint32_t id, unsigned i, bool ext)
{
	static const unsigned lo[2][3] = { { 0, 7, 16 }, { 0, 6, 15 } }, hi[2][3] = { { 6, 15, 23 }, { 5, 14, 23 } };
	return (id >> lo[ext][i]) & ((1u << (hi[ext][i] - lo[ext][i] + 1)) - 1);
}

static uint64_t spec_locate(uint64_t root, unsigned levels, bool ext, uint32_t id)
{
	uint64_t a = root;
	for (int i = (int)levels - 1; i > 0; i--) {
		uint64_t e = ((const uint64_t *)(uintptr_t)a)[spec_ddi(id, (unsigned)i, ext)];
		assert_true(e & 1);
		a = ((e >> 10) & ((1ull << 44) - 1)) << 12;
	}
	return a + spec_ddi(id, 0, ext) * (ext ? 64u : 32u);
}

/* Every mode and context size: the id width each resolves, contexts made
 * for ids at the edges of every slice found where the spec's slices put
 * them and where rvi_ddt_walk goes, distinct for distinct ids; an id one
 * bit too wide is no context and a transaction the mode disallows. */
static void directory_each_mode(void **state)
{
	(void)state;
	static const unsigned bits[2][3] = { { 7, 16, 24 }, { 6, 15, 24 } };
	for (int ext = 0; ext < 2; ext++)
		for (unsigned mode = RVI_DDT_1LVL; mode <= RVI_DDT_3LVL; mode++) {
			unsigned w = bits[ext][mode - RVI_DDT_1LVL];
			assert_int_equal(rvi_ddt_id_bits(mode, ext), w);
			assert_int_equal(rvi_ddt_mode_for(w, ext), mode);
			struct rvi_ddt t;
			assert_null(rvi_ddt_init(&t, mode, ext, 0));
			uint32_t ids[] = { 0,	 1,	 (1u << w) - 1, 0x3f,	 0x40,	  0x7f,
					   0x80, 0x7fff, 0x8000,	0x10000, 0xabcdef };
			uint64_t where[sizeof(ids) / sizeof(ids[0])];
			for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
				uint32_t id = ids[i] & ((1u << w) - 1);
				struct rvi_dc *dc = rvi_ddt_context(&t, id, true);
				assert_non_null(dc);
				dc->tc =
				    RVI_TC_V | ((uint64_t)id << 32); /* a mark: reserved bits, never handed to a unit */
				where[i] = (uintptr_t)dc;
				assert_int_equal(where[i],
						 spec_locate((uintptr_t)t.root, mode - RVI_DDT_1LVL + 1, ext, id));
				uint64_t got = 0;
				assert_int_equal(rvi_ddt_walk((uintptr_t)t.root, mode, ext, id, &got), 0);
				assert_int_equal(got, where[i]);
				assert_ptr_equal(rvi_ddt_context(&t, id, false), dc);
			}
			for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
				uint32_t id = ids[i] & ((1u << w) - 1);
				assert_int_equal(((struct rvi_dc *)(uintptr_t)where[i])->tc >> 32, id);
			}
			if (w < 24) {
				uint64_t got;
				assert_null(rvi_ddt_context(&t, 1u << w, true));
				assert_int_equal(rvi_ddt_walk((uintptr_t)t.root, mode, ext, 1u << w, &got),
						 RVI_CAUSE_TTYP_BLOCKED);
			}
			rvi_ddt_free(&t);
		}
	assert_int_equal(rvi_ddt_mode_for(8, false), RVI_DDT_2LVL);
	assert_int_equal(rvi_ddt_mode_for(17, true), RVI_DDT_3LVL);
	struct rvi_ddt t;
	assert_non_null(rvi_ddt_init(&t, RVI_DDT_BARE, false, 0));
}

/* The walk's faults: a non-leaf entry not valid (258), one with reserved
 * bits set (259), a context not looked up where no path was made. */
static void directory_broken(void **state)
{
	(void)state;
	struct rvi_ddt t;
	assert_null(rvi_ddt_init(&t, RVI_DDT_3LVL, false, 0));
	uint32_t id = 0x123456;
	assert_null(rvi_ddt_context(&t, id, false));
	uint64_t got;
	assert_int_equal(rvi_ddt_walk((uintptr_t)t.root, RVI_DDT_3LVL, false, id, &got), RVI_CAUSE_DDT_INVALID);
	assert_non_null(rvi_ddt_context(&t, id, true));
	assert_int_equal(rvi_ddt_walk((uintptr_t)t.root, RVI_DDT_3LVL, false, id, &got), 0);
	uint64_t *top = &t.root[spec_ddi(id, 2, false)];
	*top |= 1ull << 5; /* reserved (9:1) */
	assert_int_equal(rvi_ddt_walk((uintptr_t)t.root, RVI_DDT_3LVL, false, id, &got), RVI_CAUSE_DDT_MISCONFIGURED);
	*top &= ~(1ull << 5);
	*top |= 1ull << 60; /* reserved (63:54) */
	assert_int_equal(rvi_ddt_walk((uintptr_t)t.root, RVI_DDT_3LVL, false, id, &got), RVI_CAUSE_DDT_MISCONFIGURED);
	*top &= ~(1ull << 60);
	uint64_t *mid = (uint64_t *)(uintptr_t)(((*top >> 10) & ((1ull << 44) - 1)) << 12);
	mid[spec_ddi(id, 1, false)] &= ~RVI_DDTE_V;
	assert_int_equal(rvi_ddt_walk((uintptr_t)t.root, RVI_DDT_3LVL, false, id, &got), RVI_CAUSE_DDT_INVALID);
	rvi_ddt_free(&t);
}

static void expect_misconfigured(const struct rvi_dc *dc, bool ext, uint64_t caps, uint32_t fctl, const char *what)
{
	const char *why = NULL;
	assert_int_equal(rvi_dc_check(dc, ext, caps, fctl, &why), RVI_CAUSE_DDT_MISCONFIGURED);
	assert_non_null(why);
	if (!strstr(why, what))
		fail_msg("expected '%s' in '%s'", what, why);
}

/* A context as iommon writes one passes; each rule of 2.1.4 broken alone
 * is misconfigured, saying which; tc.V clear is not valid. */
static void context_checks(void **state)
{
	(void)state;
	uint64_t caps = ALL_MODES | RVI_CAP_ATS;
	struct rvi_dc good = { .tc = RVI_TC_V | RVI_TC_DTF,
			       .iohgatp = RVI_ATP(RVI_ATP_SV48, 0x80004000ull) | RVI_IOHGATP_GSCID(7),
			       .ta = RVI_TA_PSCID(0x12345),
			       .fsc = RVI_ATP(RVI_ATP_SV39, 0x80010000ull),
			       .msiptp = ((uint64_t)RVI_MSIPTP_FLAT << 60) | (0x80020000ull >> 12),
			       .msi_addr_mask = 0xff,
			       .msi_addr_pattern = 0x28000 };
	const char *why = "unset";
	assert_int_equal(rvi_dc_check(&good, true, caps, 0, &why), 0);
	assert_null(why);
	assert_int_equal(rvi_dc_check(&good, false, caps & ~RVI_CAP_MSI_FLAT, 0, &why), 0);

	struct rvi_dc dc = good;
	dc.tc &= ~RVI_TC_V;
	assert_int_equal(rvi_dc_check(&dc, true, caps, 0, &why), RVI_CAUSE_DDT_INVALID);

#define BROKEN(field, value, ext, c, fctl, what)               \
	do {                                                   \
		dc = good;                                     \
		dc.field = (value);                            \
		expect_misconfigured(&dc, ext, c, fctl, what); \
	} while (0)
	BROKEN(tc, good.tc | (1ull << 12), true, caps, 0, "tc has reserved");
	BROKEN(tc, good.tc | (1ull << 40), true, caps, 0, "tc has reserved");
	BROKEN(ta, good.ta | 1, true, caps, 0, "ta has reserved");
	BROKEN(fsc, good.fsc | (1ull << 50), true, caps, 0, "iosatp has reserved");
	BROKEN(tc, good.tc | RVI_TC_EN_ATS, true, caps & ~RVI_CAP_ATS, 0, "capabilities.ATS");
	BROKEN(tc, good.tc | RVI_TC_EN_PRI, true, caps, 0, "without EN_ATS");
	BROKEN(tc, good.tc | RVI_TC_EN_ATS | RVI_TC_PRPR, true, caps, 0, "PRPR without EN_PRI");
	BROKEN(tc, good.tc | RVI_TC_EN_ATS | RVI_TC_T2GPA, true, caps, 0, "capabilities.T2GPA");
	BROKEN(tc, good.tc | RVI_TC_DPE, true, caps, 0, "DPE without");
	BROKEN(tc, good.tc | RVI_TC_PDTV, true, caps, 0, "pdtp.MODE is a reserved"); /* fsc's Sv39 read as pdtp */
	dc = good;
	dc.tc |= RVI_TC_PDTV;
	dc.fsc = RVI_ATP(1, 0x80010000ull); /* PD8 */
	expect_misconfigured(&dc, true, caps, 0, "no process directory");
	assert_int_equal(rvi_dc_check(&dc, true, caps | RVI_CAP_PD8, 0, &why), 0);
	BROKEN(tc, good.tc | RVI_TC_SXL, true, caps, 0, "no 32-bit mode");
	BROKEN(fsc, RVI_ATP(11, 0x80010000ull), true, caps, 0, "iosatp.MODE is a reserved");
	BROKEN(fsc, RVI_ATP(RVI_ATP_SV57, 0x80010000ull), true, caps & ~RVI_CAP_SV57, 0, "S-stage mode");
	BROKEN(iohgatp, RVI_ATP(RVI_ATP_SV57, 0x80004000ull), true, caps & ~RVI_CAP_SV57X4, 0, "G-stage mode");
	BROKEN(iohgatp, RVI_ATP(RVI_ATP_SV48, 0x80005000ull), true, caps, 0, "16 KiB");
	BROKEN(tc, good.tc | RVI_TC_SADE, true, caps & ~RVI_CAP_AMO_HWAD, 0, "AMO_HWAD");
	BROKEN(tc, good.tc | RVI_TC_SBE, true, caps, 0, "fctl.BE");
	BROKEN(msiptp, (2ull << 60), true, caps, 0, "neither Off nor Flat");
	BROKEN(msiptp, good.msiptp | (1ull << 50), true, caps, 0, "msiptp has reserved");
	BROKEN(msi_addr_mask, 1ull << 60, true, caps, 0, "mask or pattern");
	BROKEN(iohgatp, 0, true, caps, 0, "Bare G stage");
	BROKEN(reserved, 1, true, caps, 0, "last doubleword");
	BROKEN(tc, good.tc, true, caps & ~RVI_CAP_MSI_FLAT, 0, "without capabilities.MSI_FLAT");
	BROKEN(tc, good.tc, true, caps, RVI_FCTL_GXL, "under fctl.GXL");
#undef BROKEN
	/* what is legal stays legal: SBE matching fctl.BE, SBE apart from it
	 * on a unit of both endiannesses, A/D updates where offered */
	dc = good;
	dc.tc |= RVI_TC_SBE | RVI_TC_SADE | RVI_TC_GADE;
	assert_int_equal(rvi_dc_check(&dc, true, caps, RVI_FCTL_BE, &why), 0);
	assert_int_equal(rvi_dc_check(&dc, true, caps | RVI_CAP_END, 0, &why), 0);
}

/* The commands as the spec lays them out (3.1.1 to 3.1.3), worked by
 * hand: opcode 6:0, function 9:7, then each operand at its bits. */
static void command_bits(void **state)
{
	(void)state;
	struct rvi_cmd c = rvi_cmd_iotinval_vma(5, 0x12345, 0x123456789000ull);
	assert_int_equal(c.dw0, 0x1ull | 1ull << 10 | 0x12345ull << 12 | 1ull << 32 | 1ull << 33 | 5ull << 44);
	assert_int_equal(c.dw1, 0x123456789000ull >> 2);
	assert_string_equal(rvi_cmd_name(&c), "IOTINVAL.VMA");
	c = rvi_cmd_iotinval_vma(-1, -1, ~0ull);
	assert_int_equal(c.dw0, 0x1);
	assert_int_equal(c.dw1, 0);
	c = rvi_cmd_iotinval_gvma(0xffff, 0xfff0000000001000ull);
	assert_int_equal(c.dw0, 0x1ull | 1ull << 7 | 1ull << 10 | 1ull << 33 | 0xffffull << 44);
	assert_int_equal(c.dw1, (0xfff0000000001000ull >> 2) & 0x3ffffffffffffc00ull);
	assert_string_equal(rvi_cmd_name(&c), "IOTINVAL.GVMA");
	c = rvi_cmd_iofence(0x80001004ull, 0xabcd);
	assert_int_equal(c.dw0, 0x2ull | 1ull << 10 | 1ull << 12 | 1ull << 13 | 0xabcdull << 32);
	assert_int_equal(c.dw1, 0x80001004ull >> 2);
	assert_string_equal(rvi_cmd_name(&c), "IOFENCE.C");
	c = rvi_cmd_iofence(0, 0);
	assert_int_equal(c.dw0, 0x2ull | 1ull << 12 | 1ull << 13);
	c = rvi_cmd_iodir_ddt(0xabcdef);
	assert_int_equal(c.dw0, 0x3ull | 1ull << 33 | 0xabcdefull << 40);
	assert_int_equal(c.dw1, 0);
	assert_string_equal(rvi_cmd_name(&c), "IODIR.INVAL_DDT");
	c = rvi_cmd_iodir_ddt(-1);
	assert_int_equal(c.dw0, 0x3);
	c.dw0 = 0x3 | 1 << 7;
	assert_string_equal(rvi_cmd_name(&c), "IODIR.INVAL_PDT");
	c.dw0 = 0x2 | 1 << 7;
	assert_null(rvi_cmd_name(&c));
	c.dw0 = 0x5;
	assert_null(rvi_cmd_name(&c));
}

static void fault_text(void **state)
{
	(void)state;
	char out[200];
	struct rvi_fault f = { .hdr = 15 | (uint64_t)RVI_TTYP_UNTRANSLATED_WRITE << 34 | 0x10ull << 40,
			       .iotval = 0x7ffff000 };
	rvi_fault_describe(&f, out, sizeof(out));
	assert_string_equal(out, "write/AMO page fault (15), device 0x000010, IOVA 0x7ffff000, untranslated write/AMO");
	f = (struct rvi_fault){ .hdr = 21 | 1ull << 32 | 0x42ull << 12 | (uint64_t)RVI_TTYP_UNTRANSLATED_READ << 34 |
				       0x123ull << 40,
				.iotval = 0x1000,
				.iotval2 = 0x80002000 | 1 };
	rvi_fault_describe(&f, out, sizeof(out));
	assert_string_equal(
	    out, "read guest-page fault (21), device 0x000123, IOVA 0x1000, untranslated read, process 0x00042, "
		 "GPA 0x80002000 (the first-stage walk's read)");
	f = (struct rvi_fault){ .hdr = 300 | 4ull << 34 };
	rvi_fault_describe(&f, out, sizeof(out));
	assert_string_equal(out, "reserved cause 300, device 0x000000, IOVA 0x0, reserved TTYP 4");
	char small[16];
	rvi_fault_describe(&f, small, sizeof(small));
	assert_int_equal(strlen(small), sizeof(small) - 1);
	assert_string_equal(rvi_cause_name(RVI_CAUSE_DDT_MISCONFIGURED), "DDT entry misconfigured");
	assert_null(rvi_cause_name(2));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(each_mode_each_leaf), cmocka_unit_test(refusals),
		cmocka_unit_test(reserved_entries),    cmocka_unit_test(directory_each_mode),
		cmocka_unit_test(directory_broken),    cmocka_unit_test(context_checks),
		cmocka_unit_test(command_bits),	       cmocka_unit_test(fault_text),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
