/* The one statistics routine: every figure the monitor reports goes
 * through it, so every record's percentiles mean the same thing. */
#ifndef IOMMON_STATS_H
#define IOMMON_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct stats {
	size_t n;
	uint64_t min, p50, p90, p99, max;
	double mean, stddev; /* population standard deviation */
};

/* Sorts `samples` in place. Percentiles are nearest-rank (the smallest
 * sample with at least p% of samples at or below it), so each is a value
 * that was observed. Returns -1 when n == 0. */
int stats_compute(uint64_t *samples, size_t n, struct stats *out);

/* The median's 95 % confidence interval, distribution-free: the order
 * statistics x(l) and x(u) of the sorted samples (1-based ranks, u = n +
 * 1 - l), l the largest rank whose binomial tail P(B <= l - 1), B ~
 * Bin(n, 1/2), is at most 2.5 %; the interval then covers the true median
 * with at least 95 %. False when n < 6, where no such interval exists. */
bool stats_median_ci_ranks(size_t n, size_t *l, size_t *u);
bool stats_median_ci(const uint64_t *sorted, size_t n, uint64_t *lo, uint64_t *hi);

/* The ratio of the medians (nearest-rank, as stats_compute's p50) of `a`
 * and `b`, median(a) / median(b), with its 95 % percentile-bootstrap
 * interval: STATS_BOOTSTRAP resamples of each, drawn with replacement from
 * a fixed seed, so the same samples give the same interval. The samples
 * are not changed. False when either has fewer than 6 samples, a median
 * of `b` is 0, or there is no memory. */
#define STATS_BOOTSTRAP 1000
bool stats_ratio_ci(const uint64_t *a, size_t na, const uint64_t *b, size_t nb, double *ratio, double *lo, double *hi);

/* The mean of `x` with its 95 % percentile-bootstrap interval (the same
 * resamples and seed as stats_ratio_ci): for figures that are totals over
 * time, as a stream's throughput is, where every slow DMA counts. False
 * when n < 6 or there is no memory. */
bool stats_mean_ci(const uint64_t *x, size_t n, double *mean, double *lo, double *hi);

/* What an interval of a ratio says: higher (all of it above 1), lower
 * (all of it below 1), or inconclusive (it holds 1: the method cannot tell
 * the two apart). */
enum stats_verdict { STATS_INCONCLUSIVE, STATS_HIGHER, STATS_LOWER };
enum stats_verdict stats_ratio_verdict(double lo, double hi);
const char *stats_verdict_name(enum stats_verdict v);

/* A fine log-binned histogram, log-linear as HDR histograms are: a value
 * below 32 has a bin of its own; above, each octave [2^k, 2^(k+1)) is cut
 * into 16 equal bins, so no bin is wider than 1/16 (6.25 %) of its lower
 * edge. Bin b holds [stats_bin_low(b), stats_bin_low(b + 1)); the last,
 * STATS_BINS - 1, ends at UINT64_MAX. */
#define STATS_BINS 976
unsigned stats_bin(uint64_t v);
uint64_t stats_bin_low(unsigned b);

/* The histogram of `sorted` as a record carries it (the output contract's
 * `hist`): *first is the first occupied bin, and out[] holds the counts of
 * the bins from there on to the last occupied one, a run of k empty bins
 * written as -k. Returns the number of entries, 0 when n is 0 or they do
 * not fit in cap (2 * STATS_BINS always does). */
size_t stats_hist(const uint64_t *sorted, size_t n, unsigned *first, int64_t *out, size_t cap);

#endif
