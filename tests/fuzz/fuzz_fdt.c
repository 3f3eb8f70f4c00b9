/* libFuzzer: the device-tree parser and what is read from the tree, on
 * arbitrary bytes (the magic and a sane totalsize are supplied half the
 * time, so that the fuzzer reaches the structure block). */
#include <stdint.h>
#include <string.h>

#include "core/tables/fdt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t b[65536];
	if (size > sizeof(b))
		return 0;
	memcpy(b, data, size);
	if (size >= 8 && (data[0] & 1)) {
		b[0] = 0xd0, b[1] = 0x0d, b[2] = 0xfe, b[3] = 0xed;
		b[4] = (uint8_t)(size >> 24), b[5] = (uint8_t)(size >> 16), b[6] = (uint8_t)(size >> 8),
		b[7] = (uint8_t)size;
	}
	struct fdt f;
	fdt_parse(b, size, &f);
	struct fdt_platform p;
	fdt_platform_read(&f, &p);
	fdt_path(&f, "/soc/pci@30000000");
	fdt_phandle(&f, size ? data[0] : 1);
	uint64_t a, s;
	for (size_t i = 0; i < f.nnodes && i < 64; i++)
		fdt_reg(&f, (int)i, 1, &a, &s);
	fdt_free(&f);
	return 0;
}
