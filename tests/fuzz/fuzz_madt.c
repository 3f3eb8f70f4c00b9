/* libFuzzer: the MADT parser (and the range check on what it found) on
 * arbitrary bytes. */
#include <stdint.h>

#include "core/tables/madt.h"
#include "fuzz_platform.h" /* acpi.c (the checksum) links memmap.c, which asks the platform */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct madt m;
	madt_parse(data, size, &m);
	unsigned pins[MADT_MAX_IOAPICS];
	for (size_t i = 0; i < MADT_MAX_IOAPICS; i++)
		pins[i] = size ? data[i % size] : 24; /* any pin count the version register may give */
	madt_check_ranges(&m, pins);
	madt_gicc_of(&m, size ? data[0] : 0);
	madt_free(&m);
	madt_ioapic_of(&m, pins, size ? data[0] : 0);
	return 0;
}
