/* The VT-d second-level page tables alone: no model, no registers. Leaves
 * of each size mapped, walked and unmapped; the entries as they sit in
 * memory (spec 9.8); overlaps refused; bad arguments named by code; every
 * table page freed; and every table write handed to the sync callback. */
#include "unit.h"

#include "core/base/macros.h"
#include "iommu/vtd/pgtable.h"
#include "iommu/vtd/regs.h"
#include "tests/host/platform_host.h"

#define K4 (1ull << 12)
#define M2 (1ull << 21)
#define G1 (1ull << 30)

/* the platform's pages, counted, and refused after `budget` when >= 0 */
static struct platform counting;
static long outstanding, budget = -1;

static void *counted_alloc(size_t pages, uint64_t limit)
{
	if (budget == 0)
		return NULL;
	if (budget > 0)
		budget--;
	void *p = host_platform.alloc_pages(pages, limit);
	outstanding += p ? (long)pages : 0;
	return p;
}

static void counted_free(void *p, size_t pages)
{
	outstanding -= (long)pages;
	host_platform.free_pages(p, pages);
}

/* what was handed to sync, in order, with an entry's value when it was */
static struct {
	uintptr_t p;
	size_t n;
	uint64_t value;
} synced[4096];
static size_t nsynced;

static void record_sync(const void *p, size_t n, void *ctx)
{
	(void)ctx;
	if (nsynced < ARRAY_SIZE(synced))
		synced[nsynced++] = (typeof(synced[0])){ (uintptr_t)p, n, n == 8 ? *(const uint64_t *)p : 0 };
}

/* a table page handed over whole */
static bool page_synced(const void *p)
{
	for (size_t i = 0; i < nsynced; i++)
		if (synced[i].p == (uintptr_t)p && synced[i].n == 4096)
			return true;
	return false;
}

/* the entry handed over after it took the value it holds now */
static bool entry_synced(const uint64_t *e)
{
	for (size_t i = nsynced; i-- > 0;)
		if (synced[i].p == (uintptr_t)e && synced[i].n == 8)
			return synced[i].value == *e;
	return false;
}

static struct vtd_pgtable_cfg cfg3 = { 3, 39, K4 | M2 | G1, record_sync, NULL };
static struct vtd_pgtable_cfg cfg4 = { 4, 48, K4 | M2 | G1, record_sync, NULL };
static struct vtd_domain d;

static int setup(void **state)
{
	(void)state;
	counting = host_platform;
	counting.alloc_pages = counted_alloc;
	counting.free_pages = counted_free;
	platform = &counting;
	return 0;
}

static int fresh(void **state)
{
	(void)state;
	memset(&d, 0, sizeof(d));
	budget = -1;
	nsynced = 0;
	assert_null(vtd_domain_alloc(&d, &cfg3, 7));
	return 0;
}

static int release(void **state)
{
	(void)state;
	vtd_domain_free(&d);
	assert_int_equal(outstanding, 0);
	return 0;
}

/* The entry that maps `iova` at `level`, read from memory as the unit would. */
static uint64_t entry(const struct vtd_domain *dom, uint64_t iova, unsigned level)
{
	const uint64_t *t = dom->top;
	for (unsigned l = dom->cfg->levels;; l--) {
		uint64_t e = t[(iova >> (12 + 9 * (l - 1))) & 511];
		if (l == level)
			return e;
		t = (const uint64_t *)(uintptr_t)(e & VTD_PTE_ADDR);
	}
}

static void expect_walk(uint64_t iova, uint64_t phys, unsigned perm, unsigned level)
{
	uint64_t p = 0;
	unsigned pm = 0, lv = 0;
	assert_true(vtd_pgtable_walk(&d, iova, &p, &pm, &lv));
	assert_int_equal(p, phys);
	assert_int_equal(pm, perm);
	assert_int_equal(lv, level);
}

static bool walks(uint64_t iova)
{
	uint64_t p;
	unsigned pm, lv;
	return vtd_pgtable_walk(&d, iova, &p, &pm, &lv);
}

static void maps_and_walks_each_leaf_size(void **state)
{
	(void)state;
	assert_int_equal(d.did, 7);
	assert_null(vtd_pgtable_map(&d, 0x7ffff000, 0x3e091000, K4, IOMMU_RW, K4));
	assert_null(vtd_pgtable_map(&d, 0x40000000 + M2, 0x80000000, 2 * M2, IOMMU_R, M2));
	assert_null(vtd_pgtable_map(&d, 0x4000000000ull, 0xc0000000, G1, IOMMU_W, G1));
	expect_walk(0x7ffff123, 0x3e091123, IOMMU_RW, 1);
	expect_walk(0x40000000 + M2 + 0x1234, 0x80001234, IOMMU_R, 2);
	expect_walk(0x40000000 + 2 * M2 + 0x1fffff, 0x80000000 + M2 + 0x1fffff, IOMMU_R, 2);
	expect_walk(0x4000000000ull + 0x3fffffff, 0xc0000000 + 0x3fffffff, IOMMU_W, 3);
	/* next to each leaf: nothing */
	assert_false(walks(0x7fffe000));
	assert_false(walks(0x80000000));
	assert_false(walks(0x40000000));
	assert_false(walks(0x40000000 + 3 * M2));
	assert_false(walks(0x4000000000ull + G1));
	/* beyond the address width the walk stops before the tables */
	assert_false(walks(1ull << 39));
}

/* The entries as the unit reads them (9.8): R bit 0, W bit 1, PS bit 7 on
 * leaves above level 1, the address in 51:12, nothing else; tables above
 * are reached with R and W and no PS. */
static void entry_bits_in_memory(void **state)
{
	(void)state;
	assert_null(vtd_pgtable_map(&d, 0x5000, 0x123456000ull, K4, IOMMU_RW, K4));
	assert_null(vtd_pgtable_map(&d, 0x600000, 0xfffffe00000ull, M2, IOMMU_R, M2));
	assert_null(vtd_pgtable_map(&d, 0x80000000, 0x40000000, G1, IOMMU_W, G1));
	assert_int_equal(entry(&d, 0x5000, 1), 0x123456000ull | 3);
	assert_int_equal(entry(&d, 0x600000, 2), 0xfffffe00000ull | 1 | 0x80);
	assert_int_equal(entry(&d, 0x80000000, 3), 0x40000000ull | 2 | 0x80);
	uint64_t upper = entry(&d, 0x5000, 3), middle = entry(&d, 0x5000, 2);
	assert_int_equal(upper & 0xfff, 3);
	assert_int_equal(middle & 0xfff, 3);
	assert_int_equal(upper >> 52, 0);
	/* the table pointers lead to pages this domain owns */
	bool own = false;
	for (size_t i = 0; i < d.npages; i++)
		own |= (uintptr_t)d.pages[i] == (upper & VTD_PTE_ADDR);
	assert_true(own);
	/* a 4-level tree: one page a level for one leaf, the top included */
	struct vtd_domain d4 = { 0 };
	assert_null(vtd_domain_alloc(&d4, &cfg4, 9));
	assert_null(vtd_pgtable_map(&d4, 0xfffffffff000ull, 0x5000, K4, IOMMU_R, K4));
	assert_int_equal(d4.npages, 4);
	assert_int_equal(entry(&d4, 0xfffffffff000ull, 1), 0x5000 | 1);
	uint64_t p;
	unsigned pm, lv;
	assert_true(vtd_pgtable_walk(&d4, 0xfffffffff010ull, &p, &pm, &lv));
	assert_int_equal(p, 0x5010);
	assert_false(vtd_pgtable_walk(&d4, 1ull << 48, &p, &pm, &lv));
	vtd_domain_free(&d4);
}

/* Every table page and every entry written is handed to sync before the
 * call returns: a unit that does not snoop sees what the walk sees. */
static void every_write_is_synced(void **state)
{
	(void)state;
	assert_true(page_synced(d.top));
	assert_null(vtd_pgtable_map(&d, 0x5000, 0x9000, 2 * K4, IOMMU_RW, K4));
	const uint64_t *t = d.top;
	for (unsigned l = 3; l >= 1; l--) {
		const uint64_t *e = &t[(0x6000 >> (12 + 9 * (l - 1))) & 511];
		assert_true(entry_synced(e));
		t = (const uint64_t *)(uintptr_t)(*e & VTD_PTE_ADDR);
		if (l > 1)
			assert_true(page_synced(t));
	}
	const uint64_t *leaf = (const uint64_t *)(uintptr_t)(entry(&d, 0x5000, 2) & VTD_PTE_ADDR) + 5;
	assert_null(vtd_pgtable_unmap(&d, 0x5000, K4));
	assert_int_equal(*leaf, 0);
	assert_true(entry_synced(leaf));
}

static void permissions(void **state)
{
	(void)state;
	assert_null(vtd_pgtable_map(&d, 0x1000, 0x1000, K4, IOMMU_R, K4));
	assert_null(vtd_pgtable_map(&d, 0x2000, 0x2000, K4, IOMMU_W, K4));
	assert_null(vtd_pgtable_map(&d, 0x3000, 0x3000, K4, IOMMU_RW, K4));
	expect_walk(0x1000, 0x1000, IOMMU_R, 1);
	expect_walk(0x2000, 0x2000, IOMMU_W, 1);
	expect_walk(0x3000, 0x3000, IOMMU_RW, 1);
	/* neither: not present in VT-d's terms, so refused */
	assert_non_null(vtd_pgtable_map(&d, 0x4000, 0x4000, K4, 0, K4));
	assert_int_equal(d.err, IOMMU_ERR_ARGUMENT);
	assert_false(walks(0x4000));
}

/* A leaf of the same size is replaced; a larger leaf over the range, or a
 * table of smaller ones under it, is refused and left as it was. */
static void overlaps(void **state)
{
	(void)state;
	assert_null(vtd_pgtable_map(&d, 0x200000, 0x400000, M2, IOMMU_RW, M2));
	assert_non_null(vtd_pgtable_map(&d, 0x201000, 0x9000, K4, IOMMU_RW, K4));
	assert_int_equal(d.err, IOMMU_ERR_ARGUMENT);
	expect_walk(0x201000, 0x401000, IOMMU_RW, 2);
	assert_null(vtd_pgtable_map(&d, 0x600000, 0x9000, K4, IOMMU_RW, K4));
	assert_non_null(vtd_pgtable_map(&d, 0x600000, 0x800000, M2, IOMMU_RW, M2));
	assert_int_equal(d.err, IOMMU_ERR_ARGUMENT);
	expect_walk(0x600000, 0x9000, IOMMU_RW, 1);
	assert_null(vtd_pgtable_map(&d, 0x200000, 0xa00000, M2, IOMMU_R, M2));
	expect_walk(0x200010, 0xa00010, IOMMU_R, 2);
	/* a 1 GiB leaf over the 2 MiB ones' table: refused */
	assert_non_null(vtd_pgtable_map(&d, 0, 0, G1, IOMMU_RW, G1));
	assert_int_equal(d.err, IOMMU_ERR_ARGUMENT);
	expect_walk(0x200000, 0xa00000, IOMMU_R, 2);
}

static void unmaps(void **state)
{
	(void)state;
	assert_null(vtd_pgtable_map(&d, 0x1000, 0x1000, 3 * K4, IOMMU_RW, K4));
	assert_null(vtd_pgtable_map(&d, 0x400000, 0x400000, M2, IOMMU_RW, M2));
	assert_null(vtd_pgtable_map(&d, 0x40000000, 0x40000000, G1, IOMMU_RW, G1));
	assert_null(vtd_pgtable_unmap(&d, 0x2000, K4));
	assert_false(walks(0x2000));
	assert_true(walks(0x1000));
	assert_true(walks(0x3000));
	/* inside a larger leaf, or ending inside one: refused, the leaf stays */
	assert_non_null(vtd_pgtable_unmap(&d, 0x401000, K4));
	assert_int_equal(d.err, IOMMU_ERR_ARGUMENT);
	assert_non_null(vtd_pgtable_unmap(&d, 0x400000, K4));
	assert_int_equal(d.err, IOMMU_ERR_ARGUMENT);
	assert_true(walks(0x400000));
	/* nothing there, or an empty range */
	assert_non_null(vtd_pgtable_unmap(&d, 0x2000, K4));
	assert_int_equal(d.err, IOMMU_ERR_ARGUMENT);
	assert_non_null(vtd_pgtable_unmap(&d, 0x1000, 0));
	assert_int_equal(d.err, IOMMU_ERR_ARGUMENT);
	/* whole leaves of each size */
	assert_null(vtd_pgtable_unmap(&d, 0x400000, M2));
	assert_null(vtd_pgtable_unmap(&d, 0x40000000, G1));
	assert_false(walks(0x400000));
	assert_false(walks(0x40000000));
	/* a range over a hole stops at it, the leaves before it cleared */
	assert_non_null(vtd_pgtable_unmap(&d, 0x1000, 3 * K4));
	assert_false(walks(0x1000));
	assert_true(walks(0x3000));
}

static void bad_arguments(void **state)
{
	(void)state;
	struct {
		uint64_t iova, phys, size, page;
		enum iommu_err err;
	} bad[] = {
		{ 0x1800, 0x2000, K4, K4, IOMMU_ERR_ARGUMENT },		   /* IOVA misaligned */
		{ 0x2000, 0x1800, K4, K4, IOMMU_ERR_ARGUMENT },		   /* phys misaligned */
		{ 0x2000, 0x2000, K4 + 1, K4, IOMMU_ERR_ARGUMENT },	   /* size misaligned */
		{ 0x200000, 0x201000, M2, M2, IOMMU_ERR_ARGUMENT },	   /* phys not on 2 MiB */
		{ 0x2000, 0x2000, 0, K4, IOMMU_ERR_ARGUMENT },		   /* empty */
		{ 1ull << 39, 0, K4, K4, IOMMU_ERR_ARGUMENT },		   /* beyond the width */
		{ (1ull << 39) - K4, 0, 2 * K4, K4, IOMMU_ERR_ARGUMENT },  /* running past it */
		{ 0x2000, ~0ull << 12, 2 * K4, K4, IOMMU_ERR_ARGUMENT },   /* phys wrapping */
		{ 0x2000, 1ull << 52, K4, K4, IOMMU_ERR_ARGUMENT },	   /* phys beyond 51:12 */
		{ 0x2000, 0x2000, 2 * K4, 2 * K4, IOMMU_ERR_UNSUPPORTED }, /* not a leaf size */
		{ 0, 0, 512 * G1, 512 * G1, IOMMU_ERR_UNSUPPORTED },	   /* no 512 GiB leaves */
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		d.err = IOMMU_OK;
		assert_non_null(vtd_pgtable_map(&d, bad[i].iova, bad[i].phys, bad[i].size, IOMMU_RW, bad[i].page));
		assert_int_equal(d.err, bad[i].err);
	}
	assert_int_equal(d.npages, 1); /* nothing was built for any of them */
	/* a unit without 1 GiB leaves: refused as unsupported */
	struct vtd_pgtable_cfg small = { 3, 39, K4 | M2, record_sync, NULL };
	struct vtd_domain s = { 0 };
	assert_null(vtd_domain_alloc(&s, &small, 1));
	assert_non_null(vtd_pgtable_map(&s, 0, 0, G1, IOMMU_RW, G1));
	assert_int_equal(s.err, IOMMU_ERR_UNSUPPORTED);
	assert_null(vtd_pgtable_map(&s, 0, 0, M2, IOMMU_RW, M2));
	vtd_domain_free(&s);
}

/* No page for a table: NOMEM, and what was mapped before stays. */
static void out_of_pages(void **state)
{
	(void)state;
	assert_null(vtd_pgtable_map(&d, 0x1000, 0x1000, K4, IOMMU_RW, K4));
	budget = 1; /* one more table, not the two a far IOVA needs */
	assert_non_null(vtd_pgtable_map(&d, 0x7fc0000000ull, 0x2000, K4, IOMMU_RW, K4));
	assert_int_equal(d.err, IOMMU_ERR_NOMEM);
	expect_walk(0x1000, 0x1000, IOMMU_RW, 1);
	budget = 0;
	struct vtd_domain e = { 0 };
	assert_non_null(vtd_domain_alloc(&e, &cfg3, 2));
	assert_int_equal(e.err, IOMMU_ERR_NOMEM);
	vtd_domain_free(&e);
	budget = -1;
}

/* Every table page goes back to the platform; a domain allocated again
 * frees its old tree first. */
static void frees_every_page(void **state)
{
	(void)state;
	for (uint64_t g = 0; g < 4; g++)
		assert_null(vtd_pgtable_map(&d, g * G1 + 0x5000, 0x5000, K4, IOMMU_RW, K4));
	assert_int_equal(d.npages, 1 + 4 * 2);
	assert_int_equal(outstanding, (long)d.npages);
	assert_null(vtd_domain_alloc(&d, &cfg3, 8));
	assert_int_equal(outstanding, 1);
	assert_int_equal(d.did, 8);
	assert_false(walks(0x5000));
	vtd_domain_free(&d);
	assert_int_equal(outstanding, 0);
	assert_null(d.top);
	assert_int_equal(d.did, 8);
}

/* Identity over a range in the largest leaves that fit, keeping what is
 * there already. */
static void identity_in_the_largest_leaves(void **state)
{
	(void)state;
	assert_null(vtd_pgtable_map(&d, G1 + M2, 0x1234000, K4, IOMMU_R, K4));
	assert_null(vtd_pgtable_identity(&d, 0, 2 * G1 + M2 + 0x1800));
	expect_walk(0x5000, 0x5000, IOMMU_RW, 3);
	expect_walk(G1 + 0x5000, G1 + 0x5000, IOMMU_RW, 2);
	expect_walk(G1 + M2, 0x1234000, IOMMU_R, 1); /* kept */
	expect_walk(G1 + M2 + K4, G1 + M2 + K4, IOMMU_RW, 1);
	expect_walk(2 * G1 + 0x10, 2 * G1 + 0x10, IOMMU_RW, 2);
	expect_walk(2 * G1 + M2 + 0x1000, 2 * G1 + M2 + 0x1000, IOMMU_RW, 1);
	assert_false(walks(2 * G1 + M2 + 0x2000));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(maps_and_walks_each_leaf_size, fresh, release),
		cmocka_unit_test_setup_teardown(entry_bits_in_memory, fresh, release),
		cmocka_unit_test_setup_teardown(every_write_is_synced, fresh, release),
		cmocka_unit_test_setup_teardown(permissions, fresh, release),
		cmocka_unit_test_setup_teardown(overlaps, fresh, release),
		cmocka_unit_test_setup_teardown(unmaps, fresh, release),
		cmocka_unit_test_setup_teardown(bad_arguments, fresh, release),
		cmocka_unit_test_setup_teardown(out_of_pages, fresh, release),
		cmocka_unit_test_setup_teardown(frees_every_page, fresh, release),
		cmocka_unit_test_setup_teardown(identity_in_the_largest_leaves, fresh, release),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
