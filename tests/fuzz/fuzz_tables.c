/* libFuzzer: the small table readers (MCFG, FADT PM timer, HPET, SPCR) on
 * arbitrary bytes, with the header's length made to match the input as
 * acpi_find() guarantees in the monitor. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/tables/acpi.h"
#include "core/tables/mcfg.h"
#include "core/tables/range.h"
#include "fuzz_platform.h" /* acpi.c checks root pointers against it */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mcfg m;
	mcfg_parse(data, size, &m);
	for (size_t i = 0; i < m.n; i++) /* a kept region's ECAM window stays in the address space */
		if (m.r[i].end_bus < m.r[i].start_bus ||
		    (unsigned __int128)m.r[i].base + (((uint64_t)m.r[i].end_bus + 1) << 20) > RANGE_TOP_PAGE)
			__builtin_trap();
	if (size < sizeof(struct acpi_header))
		return 0;
	uint8_t *copy = malloc(size);
	memcpy(copy, data, size);
	struct acpi_header *h = (struct acpi_header *)copy;
	h->length = (uint32_t)size;
	struct acpi_pmtimer pm;
	uint64_t base;
	struct acpi_spcr spcr;
	const char *why;
	acpi_fadt_pmtimer(h, &pm);
	acpi_hpet_base(h, &base);
	acpi_spcr_uart(h, &spcr, &why);
	acpi_checksum_ok(copy, size);
	free(copy);
	return 0;
}
