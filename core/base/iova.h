/* IOVA allocators, the two the seed paper's strategies need:
 * - a bitmap with next-fit search, as Linux's Calgary driver used: it
 *   hands out pages in address order and says when the search wrapped
 *   around (the moment a deferred-flush scheme invalidates);
 * - a cached free list: freed ranges go on a list per size and are handed
 *   out again first (LIFO), new ones come from a bump pointer.
 * Both manage [base, base + pages * page) in pages of `page` bytes (a
 * power of two: the IOMMU's own page). */
#ifndef IOMMON_IOVA_H
#define IOMMON_IOVA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct iova_bitmap {
	uint64_t base, page;
	size_t pages, next, used;
	uint64_t *bits;
	unsigned wraps;
};

bool iova_bitmap_init(struct iova_bitmap *a, uint64_t base, size_t pages, uint64_t page);
void iova_bitmap_fini(struct iova_bitmap *a);
/* `n` contiguous pages from the next-fit position; 0 when full. *wrapped
 * is set when the search went past the end and started again at the base. */
uint64_t iova_bitmap_alloc(struct iova_bitmap *a, size_t n, bool *wrapped);
void iova_bitmap_free(struct iova_bitmap *a, uint64_t iova, size_t n);

#define IOVA_CACHE_SIZES 8 /* 1, 2, 4 ... 128 pages: one list each */
#define IOVA_CACHE_DEPTH 64

struct iova_cached {
	uint64_t base, end, bump, page;
	struct {
		uint64_t iova[IOVA_CACHE_DEPTH];
		size_t n;
	} list[IOVA_CACHE_SIZES];
	unsigned hits, misses;
};

void iova_cached_init(struct iova_cached *a, uint64_t base, size_t pages, uint64_t page);
/* `n` pages (rounded up to a power of two up to 128); 0 when exhausted. */
uint64_t iova_cached_alloc(struct iova_cached *a, size_t n);
void iova_cached_free(struct iova_cached *a, uint64_t iova, size_t n);

#endif
