#include "stats.h"

#include <math.h>
#include <stdlib.h>

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

static uint64_t nearest_rank(const uint64_t *sorted, size_t n, unsigned pct)
{
	/* rank = ceil(pct/100 * n), 1-based */
	size_t rank = (size_t)((pct * (uint64_t)n + 99) / 100);
	if (rank < 1)
		rank = 1;
	return sorted[rank - 1];
}

int stats_compute(uint64_t *samples, size_t n, struct stats *out)
{
	if (n == 0)
		return -1;
	qsort(samples, n, sizeof(*samples), cmp_u64);
	out->n = n;
	out->min = samples[0];
	out->max = samples[n - 1];
	out->p50 = nearest_rank(samples, n, 50);
	out->p90 = nearest_rank(samples, n, 90);
	out->p99 = nearest_rank(samples, n, 99);

	/* Welford: stable for large cycle counts */
	double mean = 0, m2 = 0;
	for (size_t i = 0; i < n; i++) {
		double x = (double)samples[i], d = x - mean;
		mean += d / (double)(i + 1);
		m2 += d * (x - mean);
	}
	out->mean = mean;
	out->stddev = sqrt(m2 / (double)n);
	return 0;
}
