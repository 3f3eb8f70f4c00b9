/* The RISC-V IOMMU group's cases kept in files of their own, listed and
 * documented with the rest in riscv.c. */
#ifndef IOMMON_IOMMU_RISCV_CASES_H
#define IOMMON_IOMMU_RISCV_CASES_H

#include "core/monitor/runner.h"

/* riscv_msi.c: MSI address translation through a flat MSI page table in
 * the G stage: delivered to the page a file's entry names (and only
 * there), timed; blocked and recorded (262) through an entry not valid,
 * delivered again once valid and invalidated; the address's low 12 bits
 * kept. */
void riscv_msi_delivered(struct test_ctx *t);
void riscv_msi_blocked(struct test_ctx *t);
void riscv_msi_offset(struct test_ctx *t);

#endif
