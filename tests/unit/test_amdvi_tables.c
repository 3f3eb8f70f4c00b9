/* What the AMD-Vi driver writes in memory, alone: no model, no registers.
 * The host page tables at each depth (spec 2.2.3: Next Level 0 a leaf at
 * any level, directories naming the level below, a walk that follows a
 * skipped level only where the skipped index is 0, IR/IW checked at every
 * level); the device table built from an IVHD (2.2.2: sized by its highest
 * device id, every entry passed through with its settings, an alias's
 * requester id following the device) and IVMD unity ranges; the commands'
 * layout (2.4). */
#include "unit.h"

#include "iommu/amdvi/driver.h"
#include "tests/host/platform_host.h"

#define K4 (1ull << 12)
#define M2 (1ull << 21)
#define G1 (1ull << 30)

static void no_sync(const void *p, size_t n, void *ctx)
{
	(void)p, (void)n, (void)ctx;
}

static struct io_pgtable_cfg cfg[7];
static struct io_pgtable d;

static int setup(void **state)
{
	(void)state;
	platform = &host_platform;
	for (unsigned l = 3; l <= 6; l++)
		cfg[l] = (struct io_pgtable_cfg){ l, 12 + 9 * l < 63 ? 12 + 9 * l : 63, K4 | M2 | G1, no_sync, NULL };
	return 0;
}

static void expect_walk(uint64_t iova, uint64_t phys, unsigned perm, unsigned level)
{
	uint64_t p = 0;
	unsigned pm = 0, lv = 0;
	assert_true(io_pgtable_walk(&amdvi_pte_fmt, &d, iova, &p, &pm, &lv));
	assert_int_equal(p, phys);
	assert_int_equal(pm, perm);
	assert_int_equal(lv, level);
}

static bool walks(uint64_t iova)
{
	uint64_t p;
	unsigned pm, lv;
	return io_pgtable_walk(&amdvi_pte_fmt, &d, iova, &p, &pm, &lv);
}

/* The entry at `level` on the way to `iova`, as the unit reads it. */
static uint64_t *entry(uint64_t iova, unsigned level)
{
	uint64_t *t = d.top;
	for (unsigned l = d.cfg->levels;; l--) {
		uint64_t *e = &t[(iova >> (12 + 9 * (l - 1))) & 511];
		if (l == level)
			return e;
		t = (uint64_t *)(uintptr_t)(*e & AMDVI_PTE_ADDR);
	}
}

static void each_depth_each_leaf(void **state)
{
	(void)state;
	for (unsigned l = 3; l <= 6; l++) {
		assert_null(io_pgtable_alloc(&amdvi_pte_fmt, &d, &cfg[l], 2));
		uint64_t top = (1ull << cfg[l].addr_bits) - G1; /* the highest 1 GiB of the space */
		assert_null(io_pgtable_map(&amdvi_pte_fmt, &d, top + G1 - K4, 0x3e091000, K4, IOMMU_RW, K4));
		assert_null(io_pgtable_map(&amdvi_pte_fmt, &d, top, 0x80000000, M2, IOMMU_R, M2));
		assert_null(io_pgtable_map(&amdvi_pte_fmt, &d, top - G1, 0xc0000000, G1, IOMMU_W, G1));
		expect_walk(top + G1 - K4 + 0x123, 0x3e091123, IOMMU_RW, 1);
		expect_walk(top + 0x1234, 0x80001234, IOMMU_R, 2);
		expect_walk(top - G1 + 0x3fffffff, 0xc0000000 + 0x3fffffff, IOMMU_W, 3);
		assert_false(walks(top + M2));
		/* the entries as the unit reads them: directories name the level
		 * below with both permissions; leaves have Next Level 0 */
		for (unsigned k = l; k > 1; k--)
			assert_int_equal(*entry(top + G1 - K4, k) & ~AMDVI_PTE_ADDR,
					 AMDVI_PTE_PR | (uint64_t)(k - 1) << 9 | AMDVI_PTE_IR | AMDVI_PTE_IW);
		assert_int_equal(*entry(top + G1 - K4, 1), 0x3e091000 | AMDVI_PTE_PR | AMDVI_PTE_IR | AMDVI_PTE_IW);
		assert_int_equal(*entry(top, 2), 0x80000000 | AMDVI_PTE_PR | AMDVI_PTE_IR);
		assert_int_equal(*entry(top - G1, 3), 0xc0000000 | AMDVI_PTE_PR | AMDVI_PTE_IW);
		assert_null(io_pgtable_unmap(&amdvi_pte_fmt, &d, top + G1 - K4, K4));
		assert_false(walks(top + G1 - K4));
		io_pgtable_free(&d);
		assert_int_equal(d.npages, 0);
	}
}

/* A directory whose Next Level skips a level: followed where the skipped
 * level's index is 0, not elsewhere (2.2.3). */
static void level_skipping(void **state)
{
	(void)state;
	assert_null(io_pgtable_alloc(&amdvi_pte_fmt, &d, &cfg[4], 2));
	assert_null(io_pgtable_map(&amdvi_pte_fmt, &d, 0, 0x40000000, M2, IOMMU_RW, M2)); /* levels 4, 3, 2 */
	uint64_t *l4 = entry(0, 4), *l3 = entry(0, 3);
	*l4 = (*l3 & AMDVI_PTE_ADDR) | AMDVI_PTE_PR | 2ull << 9 | AMDVI_PTE_IR | AMDVI_PTE_IW; /* straight to level 2 */
	expect_walk(0x1234, 0x40001234, IOMMU_RW, 2);
	assert_false(walks(G1));		      /* level 3 index 1: not 0 where skipped */
	*l4 = (*l4 & ~AMDVI_PTE_NL_MASK) | 4ull << 9; /* not below its own level */
	assert_false(walks(0x1234));
	io_pgtable_free(&d);
}

/* IR/IW: the leaf's, and a directory's taken away at any level. */
static void permissions_at_every_level(void **state)
{
	(void)state;
	assert_null(io_pgtable_alloc(&amdvi_pte_fmt, &d, &cfg[3], 2));
	assert_null(io_pgtable_map(&amdvi_pte_fmt, &d, 0x5000, 0x9000, K4, IOMMU_R, K4));
	expect_walk(0x5000, 0x9000, IOMMU_R, 1);
	assert_null(io_pgtable_map(&amdvi_pte_fmt, &d, 0x5000, 0x9000, K4, IOMMU_RW, K4)); /* replaced */
	*entry(0x5000, 2) &= ~AMDVI_PTE_IW;
	expect_walk(0x5000, 0x9000, IOMMU_R, 1);
	assert_non_null(io_pgtable_map(&amdvi_pte_fmt, &d, 0x6000, 0xa000, K4, 0, K4));
	assert_int_equal(d.err, IOMMU_ERR_ARGUMENT);
	io_pgtable_free(&d);
}

static void refusals(void **state)
{
	(void)state;
	assert_null(io_pgtable_alloc(&amdvi_pte_fmt, &d, &cfg[3], 2));
	assert_non_null(io_pgtable_map(&amdvi_pte_fmt, &d, 0, 0, 1ull << 39, IOMMU_RW, 1ull << 39));
	assert_int_equal(d.err, IOMMU_ERR_UNSUPPORTED);
	assert_non_null(io_pgtable_map(&amdvi_pte_fmt, &d, 0x1000, 0, M2, IOMMU_RW, M2));
	assert_int_equal(d.err, IOMMU_ERR_ARGUMENT);
	assert_non_null(io_pgtable_map(&amdvi_pte_fmt, &d, 1ull << 39, 0, K4, IOMMU_RW, K4));
	assert_int_equal(d.err, IOMMU_ERR_ARGUMENT);
	assert_null(io_pgtable_map(&amdvi_pte_fmt, &d, 0, 0, M2, IOMMU_RW, M2));
	assert_non_null(io_pgtable_map(&amdvi_pte_fmt, &d, 0x3000, 0, K4, IOMMU_RW, K4)); /* inside the 2 MiB leaf */
	assert_int_equal(d.err, IOMMU_ERR_ARGUMENT);
	assert_non_null(io_pgtable_unmap(&amdvi_pte_fmt, &d, 0x1000, K4));
	assert_int_equal(d.err, IOMMU_ERR_ARGUMENT);
	io_pgtable_free(&d);
}

/* ---- the device table ------------------------------------------------------ */

/* An IVHD for the unit at 00:02.0 naming 00:00.0, 00:08.0..00:0f.7 with
 * settings 0x40 (Lint0Pass), and 01:00.0..01:1f.7 behind an alias to
 * 00:1e.0; an IVMD unity range for 00:08.0. */
static struct ivrs_entry ents[] = {
	{ .type = IVHD_SELECT, .devid = 0x0000 },    { .type = IVHD_RANGE_START, .devid = 0x0040, .setting = 0x40 },
	{ .type = IVHD_RANGE_END, .devid = 0x007f }, { .type = IVHD_ALIAS_RANGE, .devid = 0x0100, .source = 0x00f0 },
	{ .type = IVHD_RANGE_END, .devid = 0x01ff },
};
static struct ivrs_block blocks[] = {
	{ .type = 0x10, .devid = 0x0010, .first_entry = 0, .nentries = 5 },
	{ .type = 0x21, .flags = 0x07, .devid = 0x0040, .start = 0xfe000000, .size = 0x3000 },
};
static struct ivrs ivrs = { .b = blocks, .n = 2, .e = ents, .ne = 5 };

static uint64_t *dte_of(struct amdvi *a, uint16_t id)
{
	return a->devtab + (size_t)id * 4;
}

static void device_table_from_ivhd(void **state)
{
	(void)state;
	struct amdvi a = { .ivrs = &ivrs, .ivhd = &blocks[0] };
	a.ndev = amdvi_devtab_entries(&ivrs, &blocks[0]);
	assert_int_equal(a.ndev, 0x200);
	assert_int_equal(amdvi_devtab_entries(NULL, NULL), 0x10000);
	a.devtab_pages = a.ndev * 32 / 4096;
	a.devtab = host_platform.alloc_pages(a.devtab_pages, 0);
	amdvi_devtab_fill(&a);
	uint64_t pt = AMDVI_DTE_V | AMDVI_DTE_TV | AMDVI_DTE_IR | AMDVI_DTE_IW; /* Mode 0 */
	for (unsigned id = 0; id < a.ndev; id++)
		assert_int_equal(dte_of(&a, (uint16_t)id)[0], pt);
	assert_int_equal(dte_of(&a, 0x0041)[2], AMDVI_DTE_LINT0_PASS);
	assert_int_equal(dte_of(&a, 0x0000)[2], 0);
	/* a device behind the alias: its entry and the alias's follow it */
	struct io_pgtable_cfg c = cfg[3];
	a.dut = (struct io_pgtable){ .did = 2 };
	assert_null(io_pgtable_alloc(&amdvi_pte_fmt, &a.dut, &c, 2));
	uint16_t ids[AMDVI_MAX_RIDS];
	assert_int_equal(amdvi_devtab_point(&a, 0x0108, &a.dut, ids), 2);
	assert_int_equal(ids[1], 0x00f0);
	for (int i = 0; i < 2; i++) {
		uint64_t *e = dte_of(&a, ids[i]);
		assert_int_equal(e[0], pt | 3ull << 9 | (uint64_t)(uintptr_t)a.dut.top);
		assert_int_equal(e[1] & 0xffff, 2);
	}
	assert_int_equal(dte_of(&a, 0x0109)[0], pt);
	assert_int_equal(amdvi_devtab_point(&a, 0x0108, NULL, ids), 2);
	assert_int_equal(dte_of(&a, 0x00f0)[0], pt);
	/* interrupts too: the alias's entry names the same table (2.2.5),
	 * IV=1, IntTabLen 4, IntCtl 10b; then back to IV=0 as filled */
	static _Alignas(128) uint32_t irt[16];
	uint64_t q2 = dte_of(&a, 0x00f0)[2];
	assert_int_equal(amdvi_devtab_point_ir(&a, 0x0108, irt, 4, ids), 2);
	for (int i = 0; i < 2; i++)
		assert_int_equal(dte_of(&a, ids[i])[2], q2 | 1ull | 4ull << 1 | (uint64_t)(uintptr_t)irt | 2ull << 60);
	assert_int_equal(amdvi_devtab_point_ir(&a, 0x0108, NULL, 0, ids), 2);
	assert_int_equal(dte_of(&a, 0x00f0)[2], q2);
	assert_int_equal(dte_of(&a, 0x0108)[2], q2);
	/* the IVMD unity range of 00:08.0, identity with IR and IW */
	assert_null(amdvi_unity_map(&a, &a.dut, 0x0040));
	d = a.dut;
	expect_walk(0xfe002abc, 0xfe002abc, IOMMU_RW, 1);
	assert_false(walks(0xfe003000));
	io_pgtable_free(&a.dut);
	host_platform.free_pages(a.devtab, a.devtab_pages);
}

/* ---- commands ---------------------------------------------------------------- */

static void command_layout(void **state)
{
	(void)state;
	struct amdvi_cmd c = amdvi_cmd_completion_wait(0x12345678, 0xabcdef);
	assert_int_equal(c.lo, 0x1ull << 60 | 0x12345678 | AMDVI_CW_S);
	assert_int_equal(c.hi, 0xabcdef);
	c = amdvi_cmd_inv_pages(7, 0x7fff000, true, true);
	assert_int_equal(c.lo, 0x3ull << 60 | 7ull << 32);
	assert_int_equal(c.hi, 0x7fff000 | AMDVI_INV_S | AMDVI_INV_PDE);
	c = amdvi_cmd_inv_devtab(0x0108);
	assert_int_equal(c.lo, 0x2ull << 60 | 0x0108);
	assert_int_equal(amdvi_cmd_inv_all().lo >> 60, 8);
	assert_int_equal(amdvi_cmd_inv_interrupt_table(3).lo, 0x5ull << 60 | 3);
	/* an IO_PAGE_FAULT entry's fields */
	uint64_t lo = 0x2ull << 60 | AMDVI_EVT_PR | AMDVI_EVT_PE | AMDVI_EVT_RW | 5ull << 32 | 0x0018;
	assert_int_equal(amdvi_evt_code(lo), AMDVI_EVT_IO_PAGE_FAULT);
	assert_int_equal(amdvi_evt_devid(lo), 0x0018);
	assert_int_equal(amdvi_evt_domain(lo), 5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(each_depth_each_leaf),	      cmocka_unit_test(level_skipping),
		cmocka_unit_test(permissions_at_every_level), cmocka_unit_test(refusals),
		cmocka_unit_test(device_table_from_ivhd),     cmocka_unit_test(command_layout),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
