/* How the RISC-V IOMMU backend finds its units (discover.c): PCI
 * functions and the device tree, without a table of its own. */
#ifndef IOMMON_RISCV_DISCOVER_H
#define IOMMON_RISCV_DISCOVER_H

#include "core/base/macros.h"
#include "iommu/backend.h"

/* A unit's src: its PCI function's index in the list, or this plus its
 * index among the device tree's platform IOMMUs. */
#define RISCV_FDT_SRC 0x10000u

extern const struct iommu_discovery riscv_discovery;

#endif
