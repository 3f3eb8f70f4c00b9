#include "iova.h"

#include <stdlib.h>
#include <string.h>

static bool bit(const struct iova_bitmap *a, size_t i)
{
	return a->bits[i / 64] >> (i % 64) & 1;
}

static void set(struct iova_bitmap *a, size_t i, bool on)
{
	if (on)
		a->bits[i / 64] |= 1ull << (i % 64);
	else
		a->bits[i / 64] &= ~(1ull << (i % 64));
}

bool iova_bitmap_init(struct iova_bitmap *a, uint64_t base, size_t pages, uint64_t page)
{
	memset(a, 0, sizeof(*a));
	a->bits = calloc((pages + 63) / 64, sizeof(uint64_t));
	if (!a->bits)
		return false;
	a->base = base;
	a->page = page;
	a->pages = pages;
	return true;
}

void iova_bitmap_fini(struct iova_bitmap *a)
{
	free(a->bits);
	memset(a, 0, sizeof(*a));
}

/* The first run of `n` free pages in [from, to), or (size_t)-1. */
static size_t find(const struct iova_bitmap *a, size_t from, size_t to, size_t n)
{
	size_t run = 0;
	for (size_t i = from; i < to; i++) {
		run = bit(a, i) ? 0 : run + 1;
		if (run == n)
			return i + 1 - n;
	}
	return (size_t)-1;
}

/* Next fit: from where the last allocation ended to the end of the space;
 * only when nothing fits there does the search start over from the base,
 * and that is the wrap (Linux's Calgary flushed the TCE cache then). */
uint64_t iova_bitmap_alloc(struct iova_bitmap *a, size_t n, bool *wrapped)
{
	*wrapped = false;
	if (n == 0 || n > a->pages - a->used)
		return 0;
	size_t at = find(a, a->next, a->pages, n);
	if (at == (size_t)-1) {
		*wrapped = true;
		a->wraps++;
		at = find(a, 0, a->pages, n);
		if (at == (size_t)-1)
			return 0;
	}
	for (size_t k = at; k < at + n; k++)
		set(a, k, true);
	a->used += n;
	a->next = at + n;
	return a->base + at * a->page;
}

void iova_bitmap_free(struct iova_bitmap *a, uint64_t iova, size_t n)
{
	size_t first = (size_t)((iova - a->base) / a->page);
	for (size_t k = first; k < first + n && k < a->pages; k++) {
		if (bit(a, k))
			a->used--;
		set(a, k, false);
	}
}

static unsigned order(size_t n, size_t *rounded)
{
	unsigned o = 0;
	while ((1ull << o) < n)
		o++;
	*rounded = (size_t)1 << o;
	return o;
}

void iova_cached_init(struct iova_cached *a, uint64_t base, size_t pages, uint64_t page)
{
	memset(a, 0, sizeof(*a));
	a->base = a->bump = base;
	a->page = page;
	a->end = base + pages * page;
}

uint64_t iova_cached_alloc(struct iova_cached *a, size_t n)
{
	size_t r;
	unsigned o = order(n ? n : 1, &r);
	if (o >= IOVA_CACHE_SIZES)
		return 0;
	if (a->list[o].n) {
		a->hits++;
		return a->list[o].iova[--a->list[o].n];
	}
	a->misses++;
	/* aligned to its size, so freed ranges are interchangeable */
	uint64_t span = r * a->page;
	uint64_t iova = (a->bump + span - 1) & ~(span - 1);
	if (iova + span > a->end)
		return 0;
	a->bump = iova + span;
	return iova;
}

void iova_cached_free(struct iova_cached *a, uint64_t iova, size_t n)
{
	size_t r;
	unsigned o = order(n ? n : 1, &r);
	if (o < IOVA_CACHE_SIZES && a->list[o].n < IOVA_CACHE_DEPTH)
		a->list[o].iova[a->list[o].n++] = iova;
	/* a full list drops the range: it is not reused (the space is large) */
}
