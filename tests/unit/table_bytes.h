/* Firmware tables built byte by byte in the unit tests: one buffer `t` of
 * `tl` bytes per test file, little-endian appends and stores, and seal()
 * for the ACPI length and checksum. */
#ifndef IOMMON_TEST_TABLE_BYTES_H
#define IOMMON_TEST_TABLE_BYTES_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint8_t t[8192];
static size_t tl;

static inline void put(const void *p, size_t n)
{
	memcpy(t + tl, p, n);
	tl += n;
}
static inline void put8(uint8_t v)
{
	put(&v, 1);
}
static inline void put16(uint16_t v)
{
	put(&v, 2);
}
static inline void put32(uint32_t v)
{
	put(&v, 4);
}
static inline void put64(uint64_t v)
{
	put(&v, 8);
}
static inline void set32(size_t off, uint32_t v)
{
	memcpy(t + off, &v, 4);
}
static inline void set64(size_t off, uint64_t v)
{
	memcpy(t + off, &v, 8);
}

/* the checksum byte that makes the n bytes of table b sum to 0 */
static inline void fix_checksum(uint8_t *b, size_t n)
{
	b[9] = 0;
	uint8_t sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += b[i];
	b[9] = (uint8_t)-sum;
}

/* length and checksum, as firmware leaves them */
static inline void seal(void)
{
	set32(4, (uint32_t)tl);
	fix_checksum(t, tl);
}

/* The first `cut` bytes of the table, its length field and checksum
 * saying so (when they are there), in a buffer of exactly that size:
 * free() it. */
static inline uint8_t *cut_copy(const uint8_t *whole, size_t cut)
{
	uint8_t *copy = malloc(cut ? cut : 1);
	memcpy(copy, whole, cut);
	if (cut >= 8)
		memcpy(copy + 4, &(uint32_t){ (uint32_t)cut }, 4);
	if (cut >= 10)
		fix_checksum(copy, cut);
	return copy;
}

#endif
