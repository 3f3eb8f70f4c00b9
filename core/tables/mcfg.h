/* ACPI MCFG (PCI Firmware Specification 3.x, 4.1.2): where each PCI
 * segment's ECAM configuration space lives, and which buses it covers. */
#ifndef IOMMON_MCFG_H
#define IOMMON_MCFG_H

#include <stddef.h>
#include <stdint.h>

#include "diag.h"

#define MCFG_MAX 32

struct mcfg_region {
	uint64_t base; /* ECAM address of bus 0, even when start_bus > 0 */
	uint16_t segment;
	uint8_t start_bus, end_bus;
};

struct mcfg {
	size_t n;
	struct mcfg_region r[MCFG_MAX];
	struct diag diag;
	/* where the regions come from, for messages: NULL for the MCFG; a
	 * machine without ACPI fills one from its device tree's ECAM host */
	const char *origin;
};

int mcfg_parse(const uint8_t *buf, size_t len, struct mcfg *m);

#endif
