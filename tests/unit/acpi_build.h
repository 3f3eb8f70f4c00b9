/* ACPI tables for the parser tests (test_dmar.c, test_ivrs.c), on
 * table_bytes.h's buffer: a header of any signature, and the diagnostic
 * that says something. */
#ifndef IOMMON_TEST_ACPI_BUILD_H
#define IOMMON_TEST_ACPI_BUILD_H

#include "core/tables/diag.h"
#include "table_bytes.h"

/* The diagnostic holding `a` (and `b`, when given), or NULL. */
static inline const char *diag_with(const struct diag *d, const char *a, const char *b)
{
	for (size_t i = 0; i < d->n; i++)
		if (strstr(d->msg[i].text, a) && (!b || strstr(d->msg[i].text, b)))
			return d->msg[i].text;
	return NULL;
}

static inline void header(const char *sig, size_t extra)
{
	memset(t, 0, sizeof(t));
	memcpy(t, sig, 4);
	t[8] = 2; /* revision: IVRS knows 1 and 2 */
	tl = 36 + extra;
	if (memcmp(sig, "IVRS", 4) == 0) /* IVinfo: 64-bit VA, 48-bit PA, 48-bit GVA */
		memcpy(t + 36, &(uint32_t){ 0x00203040 }, 4);
}

#endif
