/* The device under test: the PCI function whose DMA engine the IOMMU
 * cases drive (`set device`), opened on first use and kept until exit or
 * until the setting changes. Owns the settings `device` and
 * `nvme.scratch`. */
#ifndef IOMMON_DUT_H
#define IOMMON_DUT_H

#include "dma.h"
#include "pci.h"

struct subsystem;

/* The functions to pick from, set by discovery (NULL before). */
void dut_bind(struct pci_cfg *cfg, const struct pci_list *pci);
/* The DMA engine of the device under test; NULL with *why when there is
 * none, or the one open is gone (dut_gone: *why says so). The running
 * test is told it uses the device (test_uses_device). */
struct dma_engine *dut_engine(const char **why);
/* Is the device under test gone? The one place every case, the runner
 * and the measure writer ask: NULL while the engine open answers (or none
 * is open), else why not, naming the device and its removal (its
 * configuration space reads all ones: pci_answers). Once gone it stays
 * gone until the engine is closed (`set device` opens it anew). */
const char *dut_gone(void);
/* The function dut_engine tries first (`set device`, or auto's choice),
 * without opening it; false when there is none. */
bool dut_candidate(struct pci_addr *out);
/* The engine open now, or NULL; nothing is opened, nor asked whether it is
 * gone (the running test is told it uses the device). */
struct dma_engine *dut_current(void);
/* Closes it: the device goes back to its driver. */
void dut_close(void);
/* What closes it when a setting changes the device under test: the IOMMU
 * layer's, which lets the device's last commands through a unit that
 * would block them (NULL: dut_close). */
void dut_set_closer(void (*close)(void));

extern const struct subsystem dut_subsystem;

#endif
