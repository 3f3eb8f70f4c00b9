/* The one IOMMU unit the monitor holds at a time: the unit covering the
 * device under test, opened by the backend the registry names for its
 * type, given back before the next one and before exit (with the
 * `iommu-exit` record automation checks). Also the `iommu` command and the
 * backends' settings. */
#ifndef IOMMON_SESSION_H
#define IOMMON_SESSION_H

#include "iommu.h"

struct subsystem;

/* The unit that covers `dev`, opened (not taken over) by its backend with
 * the backend's settings; NULL with *why when none covers it, no backend
 * drives its type, or it was refused: its window at discovery, or by its
 * backend when opened ("riscv0 refused: <reason>", at most
 * IOMMU_REFUSAL_MAX bytes). */
#define IOMMU_REFUSAL_MAX 400
struct iommu *iommu_for_device(struct pci_addr dev, const char **why);
/* Why the unit covering `dev` was refused, in those words; NULL when it
 * was not (it opens, none covers the device, or no backend drives it).
 * The unit is opened to ask, as iommu_for_device opens it. */
const char *iommu_refusal(struct pci_addr dev);
/* The unit covering `dev` as its last successful open left it, when no
 * other unit was opened since: for what that open read (its modes), asked
 * without touching the unit. NULL when there is none such. */
const struct iommu *iommu_opened(struct pci_addr dev);
/* Gives the held unit back, printing what its registers say. NULL or what
 * could not be put back. */
const char *iommu_give_back_held(void);

extern const struct subsystem iommu_subsystem;

#endif
