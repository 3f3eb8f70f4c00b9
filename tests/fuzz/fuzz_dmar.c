/* libFuzzer: the DMAR parser and its printer on arbitrary bytes. */
#include <stdint.h>
#include <stdio.h>

#include "core/tables/dmar.h"
#include "core/tables/range.h"
#include "fuzz_platform.h" /* acpi.c (the header check) links memmap.c, which asks the platform */

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	return freopen("/dev/null", "w", stdout) ? 0 : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dmar d;
	dmar_parse(data, size, &d);
	dmar_print(&d);
	for (size_t i = 0; i < d.n; i++)
		if (d.s[i].first_scope + d.s[i].nscopes > d.nscopes)
			__builtin_trap(); /* a structure pointing past the scope list */
		else if (d.s[i].type == DMAR_RMRR && !d.s[i].refused &&
			 (d.s[i].limit < d.s[i].base || d.s[i].limit >= RANGE_TOP_PAGE))
			__builtin_trap(); /* an RMRR a consumer's limit + 1 (page-rounded) would wrap */
	dmar_free(&d);
	return 0;
}
