/* The test catalogue the monitor runs: one group per file, listed here. */
#ifndef IOMMON_CATALOGUE_H
#define IOMMON_CATALOGUE_H

#include "../../core/runner.h"

extern const struct test_group timer_group;
extern const struct test_group acpi_group;
extern const struct test_group pci_group;
extern const struct test_group dma_group;
extern const struct test_group vtd_group;
extern const struct test_group calgary_group;
extern const struct test_group dart_group;
extern const struct test_group apple_group;
extern const struct test_group price_group;
extern const struct test_group selftest_group; /* hidden: crashes and hangs on purpose */

extern const struct test_group *const catalogue[];
/* The subsystems above core/, in the order they discover. */
struct subsystem;
extern const struct subsystem *const subsystems[];

#endif
