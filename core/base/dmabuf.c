#include "dmabuf.h"

#include <string.h>

#include "core/base/macros.h"
#include "platform.h"

/* The regions of the buffers alive, for dmabuf_owns: a fixed table, as no
 * case holds many at once; one that does not fit is simply not known as
 * ours, the safe side for the question it answers. */
static struct {
	uintptr_t lo, hi;
} live[64];

static void live_set(uintptr_t lo, uintptr_t hi, uintptr_t was)
{
	for (size_t i = 0; i < ARRAY_SIZE(live); i++)
		if (live[i].lo == was) {
			live[i].lo = lo;
			live[i].hi = hi;
			return;
		}
}

bool dmabuf_owns(uint64_t phys, uint64_t len)
{
	for (size_t i = 0; i < ARRAY_SIZE(live); i++)
		if (live[i].lo && phys >= live[i].lo && len <= live[i].hi - live[i].lo &&
		    phys - live[i].lo <= live[i].hi - live[i].lo - len)
			return true;
	return false;
}

bool dmabuf_alloc_in(struct dmabuf *b, size_t len, size_t offset, uint64_t limit, size_t frame)
{
	memset(b, 0, sizeof(*b));
	if (len == 0 || frame < PAGE_SIZE || (frame & (frame - 1)) || offset >= frame || len > (1u << 30))
		return false;
	/* a guard page before when the buffer starts on a page, one after;
	 * room to slide the start to `offset` into a `frame`-aligned frame */
	size_t before = offset % PAGE_SIZE ? 0 : PAGE_SIZE;
	size_t pages = (before + frame + offset + len + PAGE_SIZE - 1) / PAGE_SIZE + 1;
	uint8_t *r = platform->alloc_pages(pages, limit);
	if (!r)
		return false;
	uintptr_t start = (uintptr_t)r + before;
	start += (offset - (start & (frame - 1))) & (frame - 1);
	b->region = r;
	b->pages = pages;
	b->data = (uint8_t *)start;
	b->len = len;
	b->phys = (uint64_t)start;
	memset(r, DMABUF_GUARD_BYTE, pages * PAGE_SIZE);
	live_set((uintptr_t)r, (uintptr_t)r + pages * PAGE_SIZE, 0);
	return true;
}

bool dmabuf_alloc(struct dmabuf *b, size_t len, size_t offset, uint64_t limit)
{
	return offset < PAGE_SIZE && dmabuf_alloc_in(b, len, offset, limit, PAGE_SIZE);
}

void dmabuf_free(struct dmabuf *b)
{
	if (b->region) {
		live_set(0, 0, (uintptr_t)b->region);
		platform->free_pages(b->region, b->pages);
	}
	memset(b, 0, sizeof(*b));
}

static uint8_t pattern_byte(uint32_t seed, size_t i)
{
	uint32_t x = seed ^ (uint32_t)(i * 2654435761u);
	x ^= x >> 13;
	x *= 0x5bd1e995u;
	x ^= x >> 15;
	return (uint8_t)x;
}

void dmabuf_pattern(struct dmabuf *b, uint32_t seed)
{
	for (size_t i = 0; i < b->len; i++)
		b->data[i] = pattern_byte(seed, i);
}

long dmabuf_check_pattern(const struct dmabuf *b, uint32_t seed)
{
	for (size_t i = 0; i < b->len; i++)
		if (b->data[i] != pattern_byte(seed, i))
			return (long)i;
	return -1;
}

size_t dmabuf_guards_damaged(struct dmabuf *b)
{
	size_t bad = 0, total = b->pages * PAGE_SIZE;
	size_t start = (size_t)(b->data - b->region), end = start + b->len;
	for (size_t i = 0; i < total; i++) {
		if (i >= start && i < end)
			continue;
		if (b->region[i] != DMABUF_GUARD_BYTE) {
			bad++;
			b->region[i] = DMABUF_GUARD_BYTE;
		}
	}
	return bad;
}

void *pages_alloc_aligned(size_t pages, size_t align, uint64_t limit)
{
	size_t extra = align > PAGE_SIZE ? align / PAGE_SIZE - 1 : 0;
	uint8_t *raw = platform->alloc_pages(pages + extra, limit);
	if (!raw)
		return NULL;
	uintptr_t start = ((uintptr_t)raw + align - 1) & ~(uintptr_t)(align - 1);
	size_t before = (start - (uintptr_t)raw) / PAGE_SIZE;
	/* the pages around it go back at once (UEFI frees parts of an allocation) */
	if (before)
		platform->free_pages(raw, before);
	if (extra - before)
		platform->free_pages((uint8_t *)start + pages * PAGE_SIZE, extra - before);
	memset((void *)start, 0, pages * PAGE_SIZE);
	return (void *)start;
}
