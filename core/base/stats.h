/* The one statistics routine: every figure the monitor reports goes
 * through it, so every record's percentiles mean the same thing. */
#ifndef IOMMON_STATS_H
#define IOMMON_STATS_H

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

#endif
