/* libFuzzer: the IVRS parser, coverage queries and printer on arbitrary bytes. */
#include <stdint.h>
#include <stdio.h>

#include "core/tables/ivrs.h"
#include "core/tables/range.h"
#include "fuzz_platform.h" /* acpi.c (the header check) links memmap.c, which asks the platform */

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	return freopen("/dev/null", "w", stdout) ? 0 : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ivrs v;
	ivrs_parse(data, size, &v);
	ivrs_print(&v);
	for (size_t i = 0; i < v.n; i++) {
		if (v.b[i].first_entry + v.b[i].nentries > v.ne)
			__builtin_trap();
		/* an IVMD not refused ends, page-rounded, inside the address space */
		if (ivrs_is_ivmd(v.b[i].type) && !v.b[i].refused &&
		    (!v.b[i].size || (unsigned __int128)v.b[i].start + v.b[i].size > RANGE_TOP_PAGE))
			__builtin_trap();
		ivrs_preferred(&v, i);
		ivrs_covers(&v, &v.b[i], size >= 2 ? (uint16_t)(data[0] | data[1] << 8) : 0);
	}
	ivrs_free(&v);
	return 0;
}
