/* Little-endian reads from a firmware table, bounded by its length. A read
 * that would leave the table returns false and touches nothing. */
#ifndef IOMMON_BYTES_H
#define IOMMON_BYTES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

static inline bool fits(size_t len, size_t off, size_t n)
{
	return off <= len && n <= len - off;
}

static inline bool le_read(const uint8_t *buf, size_t len, size_t off, size_t n, uint64_t *out)
{
	if (!fits(len, off, n))
		return false;
	uint64_t v = 0;
	for (size_t i = 0; i < n; i++)
		v |= (uint64_t)buf[off + i] << (8 * i);
	*out = v;
	return true;
}

/* For callers that checked the structure's extent first. */
static inline uint8_t get8(const uint8_t *p)
{
	return p[0];
}
static inline uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}
static inline uint32_t get32(const uint8_t *p)
{
	return (uint32_t)get16(p) | (uint32_t)get16(p + 2) << 16;
}
static inline uint64_t get64(const uint8_t *p)
{
	return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}

#endif
