/* The composition root: what the monitor is made of. The subsystems above
 * core/ (in the order they discover), and the catalogue the runner sees:
 * the backends' groups, one a name of the backend list (iommu/backends.h),
 * in its order, between the machine-wide groups and the price of safety. */
#include "catalogue.h"

#include <stddef.h>

#include "iommu/backends.h"
#include "iommu/machine.h"
#include "iommu/models/models.h"
#include "iommu/session.h"
#include "pci/dut.h"

/* Each <name>_group is defined in tests/catalogue/iommu/<name>.c. */
#define DECLARE(name) extern const struct test_group name##_group;
IOMMU_BACKENDS(DECLARE)

const struct subsystem *const subsystems[] = {
	&machine_subsystem, &dut_subsystem, &iommu_subsystem, &model_subsystem, NULL,
};

#define MAX_GROUPS 32

const struct test_group *const *iommon_catalogue(void)
{
	static const struct test_group *groups[MAX_GROUPS + 1];
	if (groups[0])
		return groups;
	size_t n = 0;
	groups[n++] = &timer_group;
	groups[n++] = &acpi_group;
	groups[n++] = &pci_group;
	groups[n++] = &protection_group; /* before anything changes what the firmware left */
	groups[n++] = &dma_group;
#define GROUP(name) groups[n++] = &name##_group;
	IOMMU_BACKENDS(GROUP)
	groups[n++] = &price_group;
	groups[n++] = &selftest_group;
	groups[n] = NULL;
	return groups;
}
