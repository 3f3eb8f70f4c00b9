/* libFuzzer: the SMBIOS entry point and structure-table parsers, and the
 * file-name rule, on arbitrary bytes. The first byte chooses: an entry
 * point from the rest, or a table of the rest's length under a 32-bit or
 * 64-bit entry point. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/base/macros.h"
#include "core/tables/smbios.h"
#include "fuzz_platform.h" /* smbios_read is linked, never called: the memory map is not fuzzed here */

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	return freopen("/dev/null", "w", stdout) ? 0 : 0;
}

static void check_strings(const struct smbios *s)
{
	const char *const strs[] = {
		s->bios_vendor,	     s->bios_version, s->bios_date,	     s->manufacturer,  s->product,
		s->serial,	     s->uuid,	      s->board_manufacturer, s->board_product, s->board_serial,
		s->processor_version
	};
	for (size_t i = 0; i < ARRAY_SIZE(strs); i++)
		for (const char *c = strs[i]; *c; c++)
			if (*c < 0x20 || *c > 0x7e)
				__builtin_trap(); /* a raw byte let through */
	char name[SMBIOS_NAME_MAX + 1];
	if (smbios_file_name(s->product, name, sizeof(name)) &&
	    (strspn(name, "abcdefghijklmnopqrstuvwxyz"
			  "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != strlen(name) ||
	     name[0] == '.' || name[0] == '-'))
		__builtin_trap(); /* a file name with a character the rule forbids */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	struct smbios s;
	if (data[0] & 1) {
		smbios_entry_parse(data + 1, size - 1, &s);
	} else {
		memset(&s, 0, sizeof(s));
		s.entry_ok = true;
		s.ep64 = data[0] & 2;
		s.major = s.ep64 ? 3 : 2;
		s.minor = data[0] >> 4;
		s.table_len = (uint32_t)(size - 1);
		smbios_walk(data + 1, size - 1, &s);
	}
	smbios_print(&s);
	check_strings(&s);
	return 0;
}
