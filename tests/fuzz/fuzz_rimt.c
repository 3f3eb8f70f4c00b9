/* libFuzzer: the RIMT parser, its printer and the requester-id lookup on
 * arbitrary bytes. */
#include <stdint.h>
#include <stdio.h>

#include "core/base/macros.h"
#include "core/tables/rimt.h"
#include "fuzz_platform.h" /* acpi.c (the checksum) links against the platform seam */

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	return freopen("/dev/null", "w", stdout) ? 0 : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct rimt t;
	rimt_parse(data, size, &t);
	rimt_print(&t);
	if (t.niommu > RIMT_MAX_IOMMUS || t.nsrc > RIMT_MAX_SOURCES || t.nmap > RIMT_MAX_MAPS)
		__builtin_trap();
	for (size_t i = 0; i < t.nsrc; i++)
		if (t.src[i].first_map + t.src[i].nmaps > t.nmap)
			__builtin_trap(); /* a source pointing past the mapping list */
	for (size_t i = 0; i < t.nmap; i++)
		if (t.map[i].iommu >= (int)t.niommu || t.map[i].source >= t.nsrc)
			__builtin_trap();
	static const uint16_t rids[] = { 0, 0x8, 0xff, 0x100, 0x7fff, 0x8000, 0xffff };
	for (size_t i = 0; i < ARRAY_SIZE(rids); i++) {
		size_t unit;
		uint32_t id;
		if (rimt_map_rid(&t, 0, rids[i], &unit, &id) && unit >= t.niommu)
			__builtin_trap();
	}
	rimt_free(&t);
	return 0;
}
