/* The intervals the figures carry (core/base/stats.h): the median's
 * order-statistic interval against the binomial tables and against known
 * distributions (its coverage), the bootstrap interval of a ratio of
 * medians on synthetic A/A and A/B sample sets, and the inconclusive rule.
 * Every draw is from a fixed seed. */
#include "unit.h"

#include <math.h>

#include "core/base/stats.h"

static uint64_t rng = 88172645463325252ull;

static uint64_t next(void)
{
	return unit_xorshift(&rng);
}

/* Ranks from the binomial tables: n = 6 the extremes (coverage 96.9 %),
 * n = 10 the 2nd and 9th (97.9 %), n = 100 the 40th and 61st (96.5 %);
 * under 6 there is none at 95 %. */
static void median_ranks_as_the_tables(void **state)
{
	(void)state;
	size_t l, u;
	assert_false(stats_median_ci_ranks(5, &l, &u));
	assert_true(stats_median_ci_ranks(6, &l, &u));
	assert_int_equal(l, 1), assert_int_equal(u, 6);
	assert_true(stats_median_ci_ranks(10, &l, &u));
	assert_int_equal(l, 2), assert_int_equal(u, 9);
	assert_true(stats_median_ci_ranks(100, &l, &u));
	assert_int_equal(l, 40), assert_int_equal(u, 61);
	/* large n: about n/2 - 0.98 sqrt(n), and no underflow on the way */
	assert_true(stats_median_ci_ranks(100000, &l, &u));
	assert_true(l > 49600 && l < 49720);
	assert_int_equal(u, 100001 - l);
}

/* Over 2000 sets of 31 draws from a skewed distribution (exponential-like:
 * the minimum of three uniforms, scaled), the interval holds the true
 * median at least 95 % of the time, and not always (it is not the range). */
static void median_interval_covers(void **state)
{
	(void)state;
	/* the true median of min(U1, U2, U3) over [0, 1e6): 1 - 0.5^(1/3) */
	const double truth = (1.0 - pow(0.5, 1.0 / 3.0)) * 1e6;
	unsigned covered = 0, trials = 2000;
	uint64_t v[31];
	for (unsigned t = 0; t < trials; t++) {
		for (size_t i = 0; i < 31; i++) {
			uint64_t a = next() % 1000000, b = next() % 1000000, c = next() % 1000000;
			v[i] = a < b ? (a < c ? a : c) : (b < c ? b : c);
		}
		qsort(v, 31, sizeof(v[0]), unit_cmp_u64);
		uint64_t lo, hi;
		assert_true(stats_median_ci(v, 31, &lo, &hi));
		assert_true(lo <= v[15] && v[15] <= hi);
		covered += (double)lo <= truth && truth <= (double)hi;
	}
	double rate = (double)covered / trials;
	assert_true(rate >= 0.94);
	assert_true(rate < 0.995);
}

static void fill(uint64_t *v, size_t n, uint64_t centre, uint64_t spread)
{
	for (size_t i = 0; i < n; i++)
		v[i] = centre + next() % spread;
}

/* A/A: two sets from one distribution are inconclusive (nearly always:
 * at most 10 % of 200 pairs may not be, the nominal rate is 5 %); A/B with
 * B's median 25 % above A's is found higher every time, and the other way
 * round lower. */
static void ratio_aa_and_ab(void **state)
{
	(void)state;
	uint64_t a[50], b[50];
	unsigned alarms = 0;
	for (unsigned t = 0; t < 200; t++) {
		fill(a, 50, 1000, 400);
		fill(b, 50, 1000, 400);
		double r, lo, hi;
		assert_true(stats_ratio_ci(a, 50, b, 50, &r, &lo, &hi));
		assert_true(lo <= r && r <= hi);
		alarms += stats_ratio_verdict(lo, hi) != STATS_INCONCLUSIVE;
	}
	assert_true(alarms <= 20);
	for (unsigned t = 0; t < 50; t++) {
		fill(a, 50, 1000, 400);
		fill(b, 50, 1500, 400);
		double r, lo, hi;
		assert_true(stats_ratio_ci(b, 50, a, 50, &r, &lo, &hi));
		assert_true(r > 1.2 && r < 1.6);
		assert_int_equal(stats_ratio_verdict(lo, hi), STATS_HIGHER);
		assert_true(stats_ratio_ci(a, 50, b, 50, &r, &lo, &hi));
		assert_int_equal(stats_ratio_verdict(lo, hi), STATS_LOWER);
	}
}

/* The ratio is of the nearest-rank medians, the samples stay as they
 * were, the same samples give the same interval, and outliers in a few
 * samples do not move it (a mean would). */
static void ratio_of_medians(void **state)
{
	(void)state;
	uint64_t a[7] = { 9, 1, 8, 2, 7, 3, 5 }, b[6] = { 10, 10, 10, 10, 10, 10 }, keep[7];
	memcpy(keep, a, sizeof(a));
	double r, lo, hi, r2, lo2, hi2;
	assert_true(stats_ratio_ci(a, 7, b, 6, &r, &lo, &hi));
	assert_true(fabs(r - 0.5) < 1e-12); /* median 5 of a, 10 of b */
	assert_memory_equal(a, keep, sizeof(a));
	assert_true(stats_ratio_ci(a, 7, b, 6, &r2, &lo2, &hi2));
	assert_true(r2 == r && lo2 == lo && hi2 == hi);
	uint64_t c[20], d[20];
	fill(c, 20, 1000, 10);
	fill(d, 20, 1000, 10);
	d[0] = d[1] = 5000000; /* two DMAs of a few ms */
	assert_true(stats_ratio_ci(d, 20, c, 20, &r, &lo, &hi));
	assert_true(r < 1.02 && hi < 1.05);
	/* too few samples, or a zero median below, give no interval */
	assert_false(stats_ratio_ci(a, 5, b, 6, &r, &lo, &hi));
	uint64_t z[6] = { 0 };
	assert_false(stats_ratio_ci(a, 7, z, 6, &r, &lo, &hi));
}

/* Inconclusive is exactly "the interval holds 1". */
static void inconclusive_rule(void **state)
{
	(void)state;
	assert_int_equal(stats_ratio_verdict(0.9, 1.1), STATS_INCONCLUSIVE);
	assert_int_equal(stats_ratio_verdict(1.0, 1.3), STATS_INCONCLUSIVE);
	assert_int_equal(stats_ratio_verdict(0.7, 1.0), STATS_INCONCLUSIVE);
	assert_int_equal(stats_ratio_verdict(1.01, 1.3), STATS_HIGHER);
	assert_int_equal(stats_ratio_verdict(0.5, 0.99), STATS_LOWER);
	assert_string_equal(stats_verdict_name(STATS_INCONCLUSIVE), "inconclusive");
	assert_string_equal(stats_verdict_name(STATS_HIGHER), "higher");
	assert_string_equal(stats_verdict_name(STATS_LOWER), "lower");
}

/* The mean's bootstrap interval covers the true mean about 95 % of the
 * time (uniform on [1000, 1400): mean 1199.5), holds the sample mean, and
 * widens when one DMA in 50 stalls (a mean counts it, as a stream does). */
static void mean_interval(void **state)
{
	(void)state;
	uint64_t v[50];
	unsigned covered = 0;
	double width_plain = 0;
	for (unsigned t = 0; t < 200; t++) {
		fill(v, 50, 1000, 400);
		double m, lo, hi;
		assert_true(stats_mean_ci(v, 50, &m, &lo, &hi));
		assert_true(lo <= m && m <= hi);
		covered += lo <= 1199.5 && 1199.5 <= hi;
		width_plain += hi - lo;
	}
	assert_true(covered >= 180 && covered <= 199);
	fill(v, 50, 1000, 400);
	v[7] = 100000;
	double m, lo, hi;
	assert_true(stats_mean_ci(v, 50, &m, &lo, &hi));
	assert_true(m > 3000 && hi - lo > 10 * width_plain / 200);
	assert_false(stats_mean_ci(v, 5, &m, &lo, &hi));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(median_ranks_as_the_tables),
		cmocka_unit_test(median_interval_covers),
		cmocka_unit_test(ratio_aa_and_ab),
		cmocka_unit_test(ratio_of_medians),
		cmocka_unit_test(inconclusive_rule),
		cmocka_unit_test(mean_interval),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
