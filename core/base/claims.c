#include "claims.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define NO_CLASS 0xffffffffu /* not a BAR */

static struct {
	uint64_t base, end; /* end exclusive */
	enum claim_kind kind;
	uint32_t class_code;
	char owner[80];
} claim[CLAIMS_MAX];
static unsigned nclaims;

#define EARLY_MAX 8
static struct {
	char name[16], source[48];
	uint64_t base, size;
	uint32_t mask, cls;
	void (*drop)(const char *why);
} early[EARLY_MAX];
static unsigned nearly;

void claims_reset(void)
{
	nclaims = 0;
}

static void add(enum claim_kind kind, uint64_t base, uint64_t size, uint32_t class_code, const char *fmt, va_list ap)
{
	if (!size || base + size < base || nclaims == CLAIMS_MAX)
		return;
	claim[nclaims].kind = kind;
	claim[nclaims].base = base;
	claim[nclaims].end = base + size;
	claim[nclaims].class_code = class_code;
	vsnprintf(claim[nclaims].owner, sizeof(claim[nclaims].owner), fmt, ap);
	nclaims++;
}

void claims_add(enum claim_kind kind, uint64_t base, uint64_t size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	add(kind, base, size, NO_CLASS, fmt, ap);
	va_end(ap);
}

void claims_add_bar(uint64_t base, uint64_t size, uint32_t class_code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	add(CLAIM_DEVICE, base, size, class_code & 0xffffffu, fmt, ap);
	va_end(ap);
}

/* The first claim [base, base + size) overlaps that `counts` keeps. */
static const char *first_over(uint64_t base, uint64_t size, bool devices_only, uint32_t mask, uint32_t cls)
{
	/* a wrapping range is everything above base */
	uint64_t end = size && base + size > base ? base + size : UINT64_MAX;
	for (unsigned i = 0; i < nclaims; i++) {
		if (!(base < claim[i].end && claim[i].base < end) || (devices_only && claim[i].kind != CLAIM_DEVICE))
			continue;
		if (mask && claim[i].class_code != NO_CLASS && (claim[i].class_code & mask) == cls)
			continue; /* the thing itself */
		return claim[i].owner;
	}
	return NULL;
}

const char *claims_owner(uint64_t base, uint64_t size, bool devices_only)
{
	return first_over(base, size, devices_only, 0, 0);
}

const char *claims_other_owner(uint64_t base, uint64_t size, uint32_t mask, uint32_t cls)
{
	return first_over(base, size, true, mask, cls);
}

void claims_early(const char *name, uint64_t base, uint64_t size, const char *source, uint32_t mask, uint32_t cls,
		  void (*drop)(const char *why))
{
	claims_early_forget(name);
	if (nearly == EARLY_MAX)
		return;
	snprintf(early[nearly].name, sizeof(early[nearly].name), "%s", name);
	snprintf(early[nearly].source, sizeof(early[nearly].source), "%s", source);
	early[nearly].base = base;
	early[nearly].size = size;
	early[nearly].mask = mask;
	early[nearly].cls = cls;
	early[nearly].drop = drop;
	nearly++;
}

void claims_early_forget(const char *name)
{
	for (unsigned i = 0; i < nearly; i++)
		if (strcmp(early[i].name, name) == 0) {
			early[i] = early[--nearly];
			return;
		}
}

unsigned claims_early_audit(void)
{
	unsigned dropped = 0;
	for (unsigned i = 0; i < nearly;) {
		const char *owner = claims_other_owner(early[i].base, early[i].size, early[i].mask, early[i].cls);
		if (!owner) {
			i++;
			continue;
		}
		char why[200];
		snprintf(why, sizeof(why), "%s at 0x%llx (%s) lies inside %s: another device's registers",
			 early[i].name, (unsigned long long)early[i].base, early[i].source, owner);
		void (*drop)(const char *) = early[i].drop;
		early[i] = early[--nearly];
		dropped++;
		if (drop)
			drop(why);
	}
	return dropped;
}
