/* What this machine has: its PCI devices and IOMMU units, found once at
 * boot from ACPI (MCFG, DMAR, IVRS) and configuration space, and the
 * commands that show them (pci, acpi, iommu). */
#ifndef IOMMON_MACHINE_H
#define IOMMON_MACHINE_H

#include "../core/mcfg.h"
#include "../core/monitor.h"
#include "../pci/pci.h"
#include "units.h"

struct machine {
	bool discovered;
	bool have_mcfg;
	struct mcfg mcfg;
	struct pci_cfg cfg;
	struct pci_list pci;
	struct iommu_units units;
	struct dma_engine *engine;
};

extern struct machine machine;

struct dma_engine;
/* The DMA engine of the device under test (`set device`), opened on first
 * use and kept until exit; NULL with *why when there is none. */
struct dma_engine *machine_engine(const char **why);
/* The IOMMU unit that covers `dev`, opened (not taken over) with the
 * backend's settings; NULL with *why when none covers it or there is no
 * driver for its kind. One unit is open at a time; `exit` gives it back. */
struct iommu *machine_iommu(struct pci_addr dev, const char **why);
/* Gives the open unit back, printing what its registers say. NULL or what
 * went wrong. */
const char *machine_iommu_give_back(void);
extern const struct subsystem machine_subsystem;

void machine_discover(void);
/* The settings this layer owns (device, dma.*, nvme.*, vtd.*, price.*,
 * calgary.*), registered by machine_discover; alone for fuzzing. */
void machine_settings(void);

#endif
