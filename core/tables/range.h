/* Address ranges as firmware tables give them (base and length, or base
 * and inclusive limit), checked once for every parser: the last byte is
 * computed without overflow, and a range the check accepts can be used by
 * a page-granular consumer without its end wrapping.
 *
 * Accepted ranges end below the last 4 KiB page of the 64-bit space: there
 * an exclusive end (last + 1) or an end rounded up to a page is 0, and a
 * loop over its pages never stops. No physical address reaches that high
 * (x86 has at most 52 bits, Arm 56), so such a range is refused as absurd. */
#ifndef IOMMON_RANGE_H
#define IOMMON_RANGE_H

#include <stdint.h>

enum range_fault {
	RANGE_OK,
	RANGE_EMPTY,	 /* length 0 */
	RANGE_BACKWARDS, /* limit below base */
	RANGE_WRAPS,	 /* base + length - 1 passes 2^64 */
	RANGE_WHOLE,	 /* the whole 64-bit address space */
	RANGE_TOP,	 /* reaches into the last 4 KiB page of the address space */
};

/* First and last byte (inclusive). */
struct range {
	uint64_t first, last;
};

#define RANGE_TOP_PAGE 0xfffffffffffff000ull

/* `r` is set only when RANGE_OK is returned. */
enum range_fault range_from_length(uint64_t base, uint64_t length, struct range *r);
enum range_fault range_from_limit(uint64_t base, uint64_t limit, struct range *r);
/* What is wrong, for a diagnostic ("has length 0"); "" for RANGE_OK. */
const char *range_fault_text(enum range_fault f);

#endif
