/* The IOVA allocators: next fit and its wrap, the cached free list. */
#include "unit.h"

#include "core/base/iova.h"

static void next_fit_wraps(void **state)
{
	(void)state;
	struct iova_bitmap a;
	assert_true(iova_bitmap_init(&a, 0x100000, 8, 4096));
	bool w;
	uint64_t p[8];
	for (int i = 0; i < 8; i++) {
		p[i] = iova_bitmap_alloc(&a, 1, &w);
		assert_int_equal(p[i], 0x100000 + i * 4096ull); /* in address order */
		assert_false(w);
	}
	assert_int_equal(iova_bitmap_alloc(&a, 1, &w), 0); /* full */
	iova_bitmap_free(&a, p[2], 1);
	iova_bitmap_free(&a, p[5], 1);
	/* nothing free after the last one handed out: the search wraps */
	assert_int_equal(iova_bitmap_alloc(&a, 1, &w), p[2]);
	assert_true(w);
	assert_int_equal(iova_bitmap_alloc(&a, 1, &w), p[5]); /* next fit: after p[2], no wrap */
	assert_false(w);
	assert_int_equal(a.wraps, 1);
	/* runs of pages: a run that does not fit before the end wraps too */
	for (int i = 0; i < 8; i++)
		iova_bitmap_free(&a, p[i], 1);
	assert_int_equal(a.used, 0);
	assert_int_equal(iova_bitmap_alloc(&a, 3, &w), p[0]); /* pages 6-7 are too few: from the base */
	assert_true(w);
	assert_int_equal(iova_bitmap_alloc(&a, 3, &w), p[3]);
	assert_int_equal(iova_bitmap_alloc(&a, 3, &w), 0); /* 2 pages left: no run of 3 */
	iova_bitmap_fini(&a);
}

static void cached_reuses_freed(void **state)
{
	(void)state;
	struct iova_cached a;
	iova_cached_init(&a, 0x200000, 64, 4096);
	uint64_t x = iova_cached_alloc(&a, 1), y = iova_cached_alloc(&a, 2), z = iova_cached_alloc(&a, 3);
	assert_int_equal(x, 0x200000);
	assert_int_equal(y, 0x202000); /* aligned to its size */
	assert_int_equal(z, 0x204000); /* 3 rounds to 4 pages */
	iova_cached_free(&a, y, 2);
	assert_int_equal(iova_cached_alloc(&a, 2), y); /* from the list */
	assert_int_equal(a.hits, 1);
	assert_int_equal(a.misses, 3);
	assert_int_equal(iova_cached_alloc(&a, 256), 0); /* larger than the largest list */
	while (iova_cached_alloc(&a, 8))
		;
	assert_int_equal(iova_cached_alloc(&a, 1), 0); /* exhausted */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(next_fit_wraps),
		cmocka_unit_test(cached_reuses_freed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
