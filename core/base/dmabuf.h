/* DMA buffers: whole pages from the platform below an address limit, with
 * the bytes around the buffer filled with a guard pattern, so a DMA that
 * strays outside is seen. The one buffer allocator of the monitor. */
#ifndef IOMMON_DMABUF_H
#define IOMMON_DMABUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DMABUF_GUARD_BYTE 0xa5

struct dmabuf {
	uint8_t *region; /* the pages */
	size_t pages;
	uint8_t *data; /* the buffer inside them */
	size_t len;
	uint64_t phys; /* physical address of data (identity-mapped firmware) */
};

/* `len` bytes starting `offset` bytes into a page, with at least one guard
 * page after and the rest of the pages around it guarded. The region lies
 * wholly below `limit` (0: anywhere). NULL-free on failure. */
bool dmabuf_alloc(struct dmabuf *b, size_t len, size_t offset, uint64_t limit);
/* The same, `offset` bytes into a `frame`-aligned frame (a power of two
 * from 4 KiB): buffers an IOMMU with larger pages maps at one offset. */
bool dmabuf_alloc_in(struct dmabuf *b, size_t len, size_t offset, uint64_t limit, size_t frame);
void dmabuf_free(struct dmabuf *b);
/* Does [phys, phys+len) lie wholly within the pages of a buffer alive (its
 * guards included)? A model engine whose DMA bypasses its unit asks it
 * before writing anywhere. */
bool dmabuf_owns(uint64_t phys, uint64_t len);

/* Zeroed pages aligned to `align` bytes (a power of two), below `limit`:
 * tables an IOMMU wants on their own size. NULL when none could be had.
 * Given back with the platform's free_pages and the same page count. */
void *pages_alloc_aligned(size_t pages, size_t align, uint64_t limit);
/* Fills data with a pattern that depends on seed and position. */
void dmabuf_pattern(struct dmabuf *b, uint32_t seed);
/* First byte that differs from the pattern, or -1. */
long dmabuf_check_pattern(const struct dmabuf *b, uint32_t seed);
/* Resets the guard bytes; returns how many were not intact before. */
size_t dmabuf_guards_damaged(struct dmabuf *b);

#endif
