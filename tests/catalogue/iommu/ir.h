/* The interrupt-remapping cases every backend with ir_* ops runs (ir.c),
 * listed in each backend's group with its bench (struct iommu_case_arg).
 * They skip, saying why, where the engine sends no MSI of its own, the
 * backend has no interrupt remapping, or the platform delivers no
 * interrupts to the monitor (aarch64). */
#ifndef IOMMON_IOMMU_IR_H
#define IOMMON_IOMMU_IR_H

#include "core/monitor/runner.h"
#include "iommu/iommu.h"
#include "pci/dma.h"

/* The `kind` of a case argument (struct iommu_case_arg) saying that the
 * machine's unit records interrupt faults (VT-d 7.1): on hardware a blocked
 * interrupt without a record fails; under an emulator every record that
 * arrives is checked (QEMU 10.0's VT-d records them), and a missing one is
 * reported, not claimed (QEMU 7.2's records none). Without it (AMD-Vi, whose
 * QEMU logs no interrupt fault) a record is never claimed on a machine. A
 * model always records. */
#define IR_FAULTS_RECORDED "ir-faults"
/* The `kind` saying that each requester has a remapping table of its own
 * (AMD-Vi): an entry written for another requester leaves the device's
 * own entry absent, so it is blocked as not present. */
#define IR_TABLE_PER_REQUESTER "ir-per-requester"

struct env;
/* The `sid` of ir_fault_check when the unit was shown not to see the
 * requester (a source check it did not make): the record's is printed. */
#define IR_SID_UNSEEN (-1)
/* After an interrupt that should have been blocked, raised when the unit's
 * fault interrupts numbered `irqs`: the unit's records read and cleared;
 * where the unit records them (the rule above) and `claim`, claims that one
 * of `kind` from `sid` is there (naming entry `index` where the record
 * carries one: VT-d) and that the fault event came (where the unit
 * interrupts the monitor); otherwise what was read is printed. */
void ir_fault_check(const struct env *v, enum iommu_fault_kind kind, int sid, unsigned index, bool claim,
		    uint64_t irqs);
/* Entry `index` of the table serving requester `table_of`, delivering to
 * `c` (NULL: not present) and admitting only `owner`; invalidated (every
 * entry of that table) when asked. */
const char *ir_entry(struct iommu *io, uint16_t table_of, uint16_t owner, unsigned index, const struct msi_catch *c,
		     bool invalidate);
/* The measure record (path "interrupt", variant "<device>-<variant>") of
 * `n` cycle counts. */
void ir_measure(const struct env *v, const char *backend, const char *variant, const char *note, uint64_t *c, size_t n);

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
/* 32-bit destinations (VT-d IRTA.EIME, AMD-Vi XTEn), where the unit
 * remaps with them: an entry naming the boot CPU delivers; one whose
 * destination names it only in the bits a CPU in the other local APIC
 * mode compares shows whether the unit carried all 32 (ir.c says which);
 * timed. Skipped, saying why, where the entries carry 8 bits. */
void case_ir_dest32(struct test_ctx *t);
/* The device's INTx through the I/O APIC (ir_ioapic.c): its pin found by
 * probing, the redirection entry in the unit's remappable form; delivered
 * at the entry's vector, repointed by the entry alone, blocked when not
 * present (or, VT-d, admitting another requester); timed; the firmware's
 * timer still firing while remapping is on. */
void case_ir_ioapic(struct test_ctx *t);
/* Remapping on, compatibility format blocked (VT-d GCMD.CFI clear): a
 * compatibility-format MSI is blocked and recorded (VT-d 25h); where the
 * unit ignores CFI (QEMU 7.2) it is sent all the same, what happened said,
 * and the case skipped. */
void case_ir_compat(struct test_ctx *t);

#endif
