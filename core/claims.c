#include "claims.h"

#include <stdarg.h>
#include <stdio.h>

static struct {
	uint64_t base, end; /* end exclusive */
	enum claim_kind kind;
	char owner[80];
} claim[CLAIMS_MAX];
static unsigned nclaims;

void claims_reset(void)
{
	nclaims = 0;
}

void claims_add(enum claim_kind kind, uint64_t base, uint64_t size, const char *fmt, ...)
{
	if (!size || base + size < base || nclaims == CLAIMS_MAX)
		return;
	claim[nclaims].kind = kind;
	claim[nclaims].base = base;
	claim[nclaims].end = base + size;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(claim[nclaims].owner, sizeof(claim[nclaims].owner), fmt, ap);
	va_end(ap);
	nclaims++;
}

const char *claims_owner(uint64_t base, uint64_t size, bool devices_only)
{
	/* a wrapping range is everything above base */
	uint64_t end = size && base + size > base ? base + size : UINT64_MAX;
	for (unsigned i = 0; i < nclaims; i++)
		if (base < claim[i].end && claim[i].base < end && (!devices_only || claim[i].kind == CLAIM_DEVICE))
			return claim[i].owner;
	return NULL;
}
