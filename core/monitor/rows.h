/* What report.c and runner.c share, and nobody else: the session's
 * measure rows (test_measure adds one per record, the runner's table
 * prints them) and the growth of a row table. */
#ifndef IOMMON_ROWS_H
#define IOMMON_ROWS_H

#include <stdlib.h>

#include "core/base/stats.h"

struct measure_row {
	char test[40], path[14], variant[40], unit[8];
	struct stats s;
};

/* Every row since boot, *n of them. */
const struct measure_row *measure_rows(size_t *n);

/* p with room for row n (its capacity *cap doubled, from 32), or NULL
 * when memory ran out (p is then still valid). */
static inline void *rows_grow(void *p, size_t *cap, size_t n, size_t elem)
{
	if (n < *cap)
		return p;
	size_t c = *cap ? *cap * 2 : 32;
	void *q = realloc(p, c * elem);
	if (q)
		*cap = c;
	return q;
}

#endif
