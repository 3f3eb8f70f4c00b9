/* What the smmuv3 group's files share: its unit behind the bench, and the
 * cases kept in files of their own (smmuv3_events.c, smmuv3_stages.c). */
#ifndef IOMMON_SMMUV3_CASES_H
#define IOMMON_SMMUV3_CASES_H

#include <stdint.h>

#include "core/base/macros.h"
#include "iommu/smmuv3/smmuv3.h"
#include "tests/catalogue/bench.h"

static inline struct smmuv3 *smmuv3_of(struct iommu *io)
{
	return container_of(io, struct smmuv3, io);
}

/* The stream id the device under test's DMA carries. */
static inline uint32_t smmuv3_dut_sid(const struct env *v)
{
	return smmuv3_of(v->io)->dut_sid;
}

/* Every event the unit queued read and dropped (the queue emptied), so
 * that what a case then provokes is all that is counted. */
static inline void smmuv3_drain_events(struct env *v)
{
	struct iommu_fault f[64];
	bool ovf;
	for (size_t n = 0; n < 64 && v->io->ops->faults(v->io, f, 64, &ovf) > 0; n++)
		;
}

/* The event queue (smmuv3_events.c): F_PERMISSION and F_TRANSLATION
 * decoded; more forbidden reads than the queue holds, the loss reported. */
void case_smmuv3_event_decode(struct test_ctx *t);
void case_smmuv3_event_overflow(struct test_ctx *t);

/* What a tag scopes and each stage's faults (smmuv3_stages.c): another
 * ASID's or VMID's invalidation leaves the device's entry cached; AF=0 is
 * an F_ACCESS at the stage of the device's tables; nested, a fault at
 * either stage says which (and the IPA at stage 2). */
void case_smmuv3_tag_scope(struct test_ctx *t);
void case_smmuv3_access_flag(struct test_ctx *t);
void case_smmuv3_nested_faults(struct test_ctx *t);
/* The SMMU's wired event and global-error interrupts through the GIC,
 * timed (smmuv3_irq.c); on a model, the model's own signal. */
void case_smmuv3_fault_interrupt(struct test_ctx *t);
/* GBPA as the firmware left it (judged: bypass while off is a finding);
 * and, not in the default plan, ABORT and bypass shown by DMA. */
void case_smmuv3_gbpa(struct test_ctx *t);
void case_smmuv3_gbpa_abort(struct test_ctx *t);
/* Stage 2 from concatenated start tables: a DMA through a table other
 * than the first goes where that table says. */
void case_smmuv3_s2_concatenated(struct test_ctx *t);

/* The architecture checks (smmuv3_arch.c): named rules, each against the
 * CPU, the IORT or a claimed compliance level. */
#define SMMUV3_ARCH(X)                                                                            \
	X(revision, "AIDR: the revision, and no feature of a later one")                          \
	X(same_revision, "B_SMMU_01: every SMMU the same revision")                               \
	X(granules, "B_SMMU_02: the PE's translation granules, the SMMU's too")                   \
	X(address_size, "B_SMMU_06: 52-bit addresses; RAM within the OAS")                        \
	X(asid_vmid, "B_SMMU_13, B_SMMU_23: ASID and VMID widths against the PE's")               \
	X(range_invalidation, "B_SMMU_04/05: range invalidation where the PE has range TLBI")     \
	X(endianness, "B_SMMU_14: table walks in the PE's endianness")                            \
	X(level, "the claimed BSA/SBSA level's SMMU rules (smmuv3.arm_claim); features reported") \
	X(requesters, "S_L7SM_01: every requester behind an SMMU, by the IORT and by the devices")
#define SMMUV3_ARCH_DECLARE(c, what) void case_smmuv3_arch_##c(struct test_ctx *t);
SMMUV3_ARCH(SMMUV3_ARCH_DECLARE)
#define SMMUV3_ARCH_CASE(c, what) { "smmuv3.arch." #c, what, case_smmuv3_arch_##c, true },
extern const struct test_doc smmuv3_arch_docs[];

/* The descriptions of the cases above (smmuv3_stages.c). */
extern const struct test_doc smmuv3_stage_docs[];

#endif
