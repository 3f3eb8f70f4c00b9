/* The machine inventory: its PCI functions and IOMMU units, found once at
 * boot from ACPI (MCFG, and each backend's table, parsed once by its
 * backend) and configuration space, announced as `info` records. machine_cmd.c holds
 * the commands that show it (pci, acpi). */
#ifndef IOMMON_MACHINE_H
#define IOMMON_MACHINE_H

#include "core/monitor/monitor.h"
#include "core/tables/mcfg.h"
#include "pci/pci.h"
#include "units.h"

struct machine {
	bool discovered;
	bool have_mcfg;
	struct mcfg mcfg;
	struct pci_cfg cfg;
	struct pci_list pci;
	struct iommu_units units;
};

extern struct machine machine;

#define MACHINE_NCOMMANDS 3
extern const struct command machine_commands[MACHINE_NCOMMANDS];
extern const struct subsystem machine_subsystem;

#endif
