/* The one way a backend says whether a unit's registers are as the
 * firmware left them (the as_found op, and the note give-back leaves): the
 * registers now beside their values at take-over, compared and put in
 * words for people. */
#ifndef IOMMON_AS_FOUND_H
#define IOMMON_AS_FOUND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct reg_found {
	char name[24];	    /* "PHB0 TAR" */
	uint64_t now, then; /* only the bits the comparison is about */
};

/* True when every register agrees; `out` lists those that differ ("TCR
 * 0x80 (was 0x0), ..."), or says they are all as found. */
static inline bool regs_as_found(const struct reg_found *r, size_t n, char *out, size_t len)
{
	size_t k = 0, differ = 0;
	out[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		if (r[i].now == r[i].then)
			continue;
		differ++;
		if (k < len)
			k += (size_t)snprintf(out + k, len - k, "%s%s 0x%llx (was 0x%llx)", k ? ", " : "", r[i].name,
					      (unsigned long long)r[i].now, (unsigned long long)r[i].then);
	}
	if (!differ)
		snprintf(out, len, "%zu registers as found", n);
	return differ == 0;
}

#endif
