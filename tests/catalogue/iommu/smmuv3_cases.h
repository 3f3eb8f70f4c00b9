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
/* Stage 2 from concatenated start tables: a DMA through a table other
 * than the first goes where that table says. */
void case_smmuv3_s2_concatenated(struct test_ctx *t);

#endif
