#include "unit.h"

#include <math.h>

#include "core/base/stats.h"

static void one_sample(void **state)
{
	(void)state;
	uint64_t v[] = { 42 };
	struct stats s;
	assert_int_equal(stats_compute(v, 1, &s), 0);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.min, 42);
	assert_int_equal(s.p50, 42);
	assert_int_equal(s.p99, 42);
	assert_int_equal(s.max, 42);
	assert_true(s.mean == 42.0);
	assert_true(s.stddev == 0.0);
}

static void no_samples(void **state)
{
	(void)state;
	struct stats s;
	assert_int_equal(stats_compute(NULL, 0, &s), -1);
}

/* 1..100 shuffled: nearest-rank percentiles are the values themselves */
static void one_to_hundred(void **state)
{
	(void)state;
	uint64_t v[100];
	for (int i = 0; i < 100; i++)
		v[i] = (uint64_t)((i * 37) % 100) + 1; /* a permutation of 1..100 */
	struct stats s;
	assert_int_equal(stats_compute(v, 100, &s), 0);
	assert_int_equal(s.min, 1);
	assert_int_equal(s.p50, 50);
	assert_int_equal(s.p90, 90);
	assert_int_equal(s.p99, 99);
	assert_int_equal(s.max, 100);
	assert_true(fabs(s.mean - 50.5) < 1e-9);
	assert_true(fabs(s.stddev - sqrt((100.0 * 100.0 - 1) / 12)) < 1e-9);
	for (int i = 1; i < 100; i++)
		assert_true(v[i - 1] <= v[i]); /* sorted in place, as documented */
}

/* Small n: p99 of 10 samples is the largest, p50 the 5th. */
static void small_n_ranks(void **state)
{
	(void)state;
	uint64_t v[10] = { 10, 9, 8, 7, 6, 5, 4, 3, 2, 1 };
	struct stats s;
	stats_compute(v, 10, &s);
	assert_int_equal(s.p50, 5);
	assert_int_equal(s.p90, 9);
	assert_int_equal(s.p99, 10);
}

/* Cycle counts near 2^63 must not overflow the mean. */
static void huge_values(void **state)
{
	(void)state;
	uint64_t big = 1ull << 50; /* doubles still tell big+2 from big+4 here */
	uint64_t v[4] = { big, big + 2, big + 4, big + 6 };
	struct stats s;
	stats_compute(v, 4, &s);
	assert_true(fabs(s.mean - ((double)big + 3)) / (double)big < 1e-12);
	assert_true(s.stddev < 10.0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(one_sample),	 cmocka_unit_test(no_samples),	cmocka_unit_test(one_to_hundred),
		cmocka_unit_test(small_n_ranks), cmocka_unit_test(huge_values),
	};
	return cmocka_run_group_tests_name("stats", tests, NULL, NULL);
}
