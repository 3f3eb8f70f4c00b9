#include "range.h"

static enum range_fault check(uint64_t first, uint64_t last, struct range *r)
{
	if (first == 0 && last == UINT64_MAX)
		return RANGE_WHOLE;
	if (last >= RANGE_TOP_PAGE)
		return RANGE_TOP;
	*r = (struct range){ first, last };
	return RANGE_OK;
}

enum range_fault range_from_length(uint64_t base, uint64_t length, struct range *r)
{
	if (length == 0)
		return RANGE_EMPTY;
	uint64_t last;
	if (__builtin_add_overflow(base, length - 1, &last))
		return RANGE_WRAPS;
	return check(base, last, r);
}

enum range_fault range_from_limit(uint64_t base, uint64_t limit, struct range *r)
{
	if (limit < base)
		return RANGE_BACKWARDS;
	return check(base, limit, r);
}

const char *range_fault_text(enum range_fault f)
{
	switch (f) {
	case RANGE_OK:
		return "";
	case RANGE_EMPTY:
		return "has length 0";
	case RANGE_BACKWARDS:
		return "ends below its base";
	case RANGE_WRAPS:
		return "runs past the end of the 64-bit address space";
	case RANGE_WHOLE:
		return "covers the whole 64-bit address space";
	case RANGE_TOP:
		return "reaches the top 4 KiB page of the 64-bit address space";
	}
	return "is refused";
}
