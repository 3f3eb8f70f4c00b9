/* The histogram every measure record carries (core/base/stats.h): each
 * value lands in the bin whose edges hold it, no bin above 32 is wider
 * than 1/16 of its lower edge, and the record's encoding (counts, runs of
 * empty bins as negatives) gives back every sample's bin. */
#include "unit.h"

#include "core/base/stats.h"

static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint64_t next(void)
{
	return unit_xorshift(&rng);
}

static void check_value(uint64_t v)
{
	unsigned b = stats_bin(v);
	assert_true(b < STATS_BINS);
	assert_true(stats_bin_low(b) <= v);
	if (b + 1 < STATS_BINS)
		assert_true(v < stats_bin_low(b + 1));
}

static void bins_hold_their_values(void **state)
{
	(void)state;
	for (uint64_t v = 0; v < 5000; v++)
		check_value(v);
	for (unsigned k = 0; k < 64; k++) {
		uint64_t p = 1ull << k;
		check_value(p);
		check_value(p - 1);
		check_value(p + 1);
	}
	for (int i = 0; i < 100000; i++)
		check_value(next() >> (next() % 64));
	check_value(UINT64_MAX);
	assert_int_equal(stats_bin(UINT64_MAX), STATS_BINS - 1);
	assert_int_equal(stats_bin_low(STATS_BINS), UINT64_MAX);
	/* exact below 32, then 16 to an octave */
	assert_int_equal(stats_bin(31), 31);
	assert_int_equal(stats_bin(32), 32);
	assert_int_equal(stats_bin(33), 32);
	assert_int_equal(stats_bin(34), 33);
	assert_int_equal(stats_bin(64), 48);
}

static void bins_are_fine(void **state)
{
	(void)state;
	for (unsigned b = 0; b + 1 < STATS_BINS; b++) {
		uint64_t lo = stats_bin_low(b), hi = stats_bin_low(b + 1);
		assert_true(hi > lo);
		if (b >= 32)
			assert_true((hi - lo) * 16 <= lo);
		else
			assert_int_equal(hi - lo, 1);
	}
}

/* Decodes out[] back to one count per bin. */
static void decode(unsigned first, const int64_t *out, size_t len, uint64_t *counts)
{
	unsigned b = first;
	for (size_t i = 0; i < len; i++) {
		assert_true(out[i] != 0);
		if (out[i] < 0) {
			assert_true(i > 0 && out[i - 1] > 0); /* a run of empty bins is one entry */
			b += (unsigned)-out[i];
		} else {
			counts[b++] = (uint64_t)out[i];
		}
	}
	assert_true(out[len - 1] > 0);
}

static void encoding_gives_back_every_bin(void **state)
{
	(void)state;
	enum { N = 4000 };
	static uint64_t s[N], counts[STATS_BINS], want[STATS_BINS];
	static int64_t out[2 * STATS_BINS];
	for (int shape = 0; shape < 4; shape++) {
		for (size_t i = 0; i < N; i++) {
			uint64_t v = shape == 0 ? 19000 + next() % 2000 /* one mode */
				     : shape == 1
					 ? (i % 10 ? 1400 + next() % 100 : 5000000 + next() % 9) /* a far tail */
				     : shape == 2 ? next() >> (next() % 64)			 /* every scale */
						  : 7;						 /* all equal */
			s[i] = v;
		}
		qsort(s, N, sizeof(*s), unit_cmp_u64);
		memset(counts, 0, sizeof(counts));
		memset(want, 0, sizeof(want));
		for (size_t i = 0; i < N; i++)
			want[stats_bin(s[i])]++;
		unsigned first;
		size_t len = stats_hist(s, N, &first, out, 2 * STATS_BINS);
		assert_true(len > 0);
		assert_int_equal(first, stats_bin(s[0]));
		decode(first, out, len, counts);
		assert_memory_equal(counts, want, sizeof(want));
		if (shape == 3)
			assert_int_equal(len, 1);
	}
	/* what does not fit is refused whole, never cut */
	uint64_t two[2] = { 100, 100000 };
	unsigned first;
	assert_int_equal(stats_hist(two, 2, &first, out, 3), 3);
	assert_int_equal(stats_hist(two, 2, &first, out, 2), 0);
	assert_int_equal(stats_hist(two, 0, &first, out, 3), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(bins_hold_their_values),
		cmocka_unit_test(bins_are_fine),
		cmocka_unit_test(encoding_gives_back_every_bin),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
