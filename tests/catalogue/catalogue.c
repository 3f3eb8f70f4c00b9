#include "catalogue.h"

#include <stddef.h>

#include "../../iommu/machine.h"

const struct test_group *const catalogue[] = {
	&timer_group, &acpi_group,  &pci_group,	  &dma_group,	   &vtd_group, &calgary_group,
	&dart_group,  &apple_group, &price_group, &selftest_group, NULL,
};

const struct subsystem *const subsystems[] = { &machine_subsystem, NULL };
