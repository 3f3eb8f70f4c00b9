/* The composition root: what the monitor is made of. The subsystems above
 * core/ (in the order they discover), the backend registry (one name a
 * backend), and the catalogue the runner sees: the backends' groups, in
 * registry order, between the machine-wide groups and the price of
 * safety. */
#include "catalogue.h"

#include <stddef.h>

#include "iommu/backend.h"
#include "iommu/machine.h"
#include "iommu/models/models.h"
#include "iommu/session.h"
#include "pci/dut.h"

/* The backend registry: one name a backend, in the order their groups run.
 * Each <name>_registry is defined in tests/catalogue/iommu/<name>.c. */
#define IOMMU_BACKENDS(X) X(vtd) X(amdvi) X(smmuv3) X(calgary) X(dart) X(apple)

#define DECLARE(name) extern const struct iommu_registry_entry name##_registry;
#define ENTRY(name) &name##_registry,
IOMMU_BACKENDS(DECLARE)
const struct iommu_registry_entry *const iommu_registry[] = { IOMMU_BACKENDS(ENTRY) NULL };

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
	groups[n++] = &dma_group;
	n += iommu_registry_groups(groups + n, MAX_GROUPS - 3 - n);
	groups[n++] = &price_group;
	groups[n++] = &selftest_group;
	groups[n] = NULL;
	return groups;
}
