/* The composition root: what the monitor is made of. The subsystems above
 * core/ (in the order they discover), the backend registry (one line a
 * backend: its descriptor and its own catalogue group), and the catalogue
 * the runner sees, the backends' groups in registry order between the
 * machine-wide groups and the price of safety. */
#include "catalogue.h"

#include <stddef.h>

#include "../../iommu/apple_dart.h"
#include "../../iommu/backend.h"
#include "../../iommu/calgary.h"
#include "../../iommu/dart.h"
#include "../../iommu/machine.h"
#include "../../iommu/session.h"
#include "../../iommu/vtd/vtd.h"
#include "../../pci/dut.h"
#include "../models/models.h"

static const struct iommu_registry_entry registry[] = {
	{ &vtd_backend, &vtd_group },
	{ &calgary_backend, &calgary_group },
	{ &dart_backend, &dart_group },
	{ &apple_dart_backend, &apple_group },
	{ NULL, NULL },
};

const struct subsystem *const subsystems[] = {
	&machine_subsystem, &dut_subsystem, &iommu_subsystem, &model_subsystem, NULL,
};

#define MAX_GROUPS 32

const struct test_group *const *iommon_catalogue(void)
{
	static const struct test_group *groups[MAX_GROUPS + 1];
	if (groups[0])
		return groups;
	iommu_registry_set(registry);
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
