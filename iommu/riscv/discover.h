/* How the RISC-V IOMMU backend finds its units (discover.c): PCI
 * functions, the RIMT where the firmware gives ACPI, the device tree. */
#ifndef IOMMON_RISCV_DISCOVER_H
#define IOMMON_RISCV_DISCOVER_H

#include "core/base/macros.h"
#include "iommu/backend.h"

/* A unit's src: its PCI function's index in the list, or one of these
 * plus its index among the device tree's platform IOMMUs (the RIMT's
 * IOMMU nodes). */
#define RISCV_FDT_SRC 0x10000u
#define RISCV_RIMT_SRC 0x20000u

extern const struct iommu_discovery riscv_discovery;
/* Puts back what discovery changed on the machine (a unit's PCI memory
 * decoding it turned on): the backend's release. */
void riscv_release(void);

#endif
