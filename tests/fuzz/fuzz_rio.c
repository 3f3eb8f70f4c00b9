/* libFuzzer: the EBDA walker that finds Calgary's register windows in the
 * Rio Grande table, on arbitrary bytes as the EBDA. The chain of blocks
 * must end (offsets strictly increase) and no read may leave the EBDA. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_platform.h"
#include "iommu/calgary/calgary.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* a copy of exactly `size` bytes, so ASan sees any read past the end */
	uint8_t *ebda = malloc(size ? size : 1);
	if (size)
		memcpy(ebda, data, size);
	uint32_t bbar[8];
	const char *why = NULL;
	size_t n = calgary_rio_bbars(ebda, size, bbar, 8, &why);
	if (n > 8)
		abort(); /* more than it was given room for */
	free(ebda);
	return 0;
}
