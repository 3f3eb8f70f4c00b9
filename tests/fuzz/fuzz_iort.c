/* libFuzzer: the IORT parser, its printer and the RID walk on arbitrary
 * bytes; inputs that begin "GTDT" go to the GTDT parser instead (one
 * target for the two Arm tables). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/base/macros.h"
#include "core/tables/gtdt.h"
#include "core/tables/iort.h"
#include "core/tables/range.h"
#include "fuzz_platform.h" /* acpi.c (the checksum) links against the platform seam */

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	return freopen("/dev/null", "w", stdout) ? 0 : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size >= 4 && memcmp(data, "GTDT", 4) == 0) {
		struct gtdt g;
		gtdt_parse(data, size, &g);
		gtdt_print(&g);
		for (size_t i = 0; i < g.nplatform; i++)
			if (g.platform[i].nframes > GTDT_MAX_FRAMES)
				__builtin_trap();
		return 0;
	}
	struct iort t;
	iort_parse(data, size, &t);
	iort_print(&t);
	for (size_t i = 0; i < t.n; i++) {
		if (t.node[i].first_map + t.node[i].nmaps > t.nmap)
			__builtin_trap(); /* a node pointing past the mapping list */
		if (t.node[i].type == IORT_SMMU_V3 && t.node[i].smmu >= t.nsmmu)
			__builtin_trap();
	}
	for (size_t i = 0; i < t.nmap; i++)
		if (t.map[i].target >= (int)t.n)
			__builtin_trap();
	for (size_t i = 0; i < t.nrmr; i++)
		for (size_t k = 0; k < t.rmr[i].nranges; k++) {
			const struct iort_range *g = &t.rmr[i].range[k];
			if (!g->refused && (!g->length || (unsigned __int128)g->base + g->length > RANGE_TOP_PAGE))
				__builtin_trap(); /* the backend's base + length would wrap */
		}
	for (size_t i = 0; i < t.nrmr; i++)
		for (size_t k = 0; k < t.rmr[i].nstreams; k++)
			if (t.rmr[i].stream[k].smmu >= t.nsmmu)
				__builtin_trap();
	static const uint16_t rids[] = { 0, 0x8, 0xff, 0x100, 0x7fff, 0x8000, 0xffff };
	for (size_t i = 0; i < ARRAY_SIZE(rids); i++) {
		size_t smmu;
		uint32_t sid;
		if (iort_map_rid(&t, 0, rids[i], &smmu, &sid) && smmu >= t.nsmmu)
			__builtin_trap();
	}
	iort_free(&t);
	return 0;
}
