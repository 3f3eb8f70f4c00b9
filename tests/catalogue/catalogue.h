/* The test catalogue the monitor runs: one group per file, listed here. */
#ifndef IOMMON_CATALOGUE_H
#define IOMMON_CATALOGUE_H

#include "core/monitor/runner.h"

extern const struct test_group timer_group;
extern const struct test_group acpi_group;
extern const struct test_group pci_group;
extern const struct test_group dma_group;
extern const struct test_group price_group;
extern const struct test_group protection_group;
extern const struct test_group selftest_group; /* hidden: crashes and hangs on purpose */

/* The groups the runner sees (NULL-terminated): the machine-wide ones,
 * each registered backend's, the price of safety. */
const struct test_group *const *iommon_catalogue(void);
/* The subsystems above core/, in the order they discover. */
struct subsystem;
extern const struct subsystem *const subsystems[];

#endif
