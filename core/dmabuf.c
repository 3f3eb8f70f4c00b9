#include "dmabuf.h"

#include <string.h>

#include "platform.h"

#define PAGE 4096u

bool dmabuf_alloc(struct dmabuf *b, size_t len, size_t offset, uint64_t limit)
{
	memset(b, 0, sizeof(*b));
	if (len == 0 || offset >= PAGE || len > (1u << 30))
		return false;
	/* a guard page before when the buffer starts on a page, one after */
	size_t before = offset ? 0 : PAGE;
	size_t pages = (before + offset + len + PAGE - 1) / PAGE + 1;
	uint8_t *r = platform->alloc_pages(pages, limit);
	if (!r)
		return false;
	b->region = r;
	b->pages = pages;
	b->data = r + before + offset;
	b->len = len;
	b->phys = (uint64_t)(uintptr_t)b->data;
	memset(r, DMABUF_GUARD_BYTE, pages * PAGE);
	return true;
}

void dmabuf_free(struct dmabuf *b)
{
	if (b->region)
		platform->free_pages(b->region, b->pages);
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
	size_t bad = 0, total = b->pages * PAGE;
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
