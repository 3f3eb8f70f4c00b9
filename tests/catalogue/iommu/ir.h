/* The interrupt-remapping cases every backend with ir_* ops runs (ir.c),
 * listed in each backend's group with its bench (struct iommu_case_arg).
 * They skip, saying why, where the engine sends no MSI of its own, the
 * backend has no interrupt remapping, or the platform delivers no
 * interrupts to the monitor (aarch64). */
#ifndef IOMMON_IOMMU_IR_H
#define IOMMON_IOMMU_IR_H

#include "../../../core/runner.h"

/* The `kind` of a case argument (struct iommu_case_arg) saying that the
 * machine's unit, on hardware, records interrupt faults, so a blocked
 * interrupt without a record fails (VT-d); otherwise, and under QEMU 7.2
 * (whose VT-d records none and whose AMD-Vi event log is dead), a missing
 * record is reported, not claimed. A model always records. */
#define IR_FAULTS_RECORDED "ir-faults"
/* The `kind` saying that each requester has a remapping table of its own
 * (AMD-Vi): an entry written for another requester leaves the device's
 * own entry absent, so it is blocked as not present. */
#define IR_TABLE_PER_REQUESTER "ir-per-requester"

/* Remapping off: the device's MSI reaches the monitor's handler; timed. */
void case_ir_msi_direct(struct test_ctx *t);
/* Remapping on: no fault after the takeover; the MSI arrives at the
 * entry's vector and destination, not the one the device was told; timed. */
void case_ir_remapped(struct test_ctx *t);
/* Blocked, with the fault recorded where the unit records one: a
 * not-present entry, an index past the table, an entry for another
 * requester with the source checked. */
void case_ir_not_present(struct test_ctx *t);
void case_ir_index(struct test_ctx *t);
void case_ir_source(struct test_ctx *t);
/* A changed entry used only after its invalidation (a finding when the
 * stale one is used before); the path timed after it. */
void case_ir_invalidate(struct test_ctx *t);
/* Remapping on, compatibility format blocked (VT-d GCMD.CFI clear): a
 * compatibility-format MSI is blocked and recorded (VT-d 25h); where the
 * unit ignores CFI (QEMU 7.2) it is sent all the same, what happened said,
 * and the case skipped. */
void case_ir_compat(struct test_ctx *t);

#endif
