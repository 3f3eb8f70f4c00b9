/* What the SMMUv3 driver's files share and nobody else uses: register
 * access, table writes made visible, and the pieces each file offers the
 * others. Every function that fails records its code in s->io.err
 * (iommu_fail) where the failure is seen, and returns why. */
#ifndef IOMMON_SMMUV3_DRIVER_H
#define IOMMON_SMMUV3_DRIVER_H

#include "core/base/macros.h"
#include "smmuv3.h"

#define SMMUV3_DEADLINE_MS 100 /* any ACK, Update or CMD_SYNC wait */
#define SMMUV3_DEADLINE_US (SMMUV3_DEADLINE_MS * 1000)
#define SMMUV3_DEADLINE_TEXT STRINGIFY(SMMUV3_DEADLINE_MS) " ms"

/* 32-bit registers are accessed as words, the 64-bit bases whole (6.2:
 * 64-bit accesses to 64-bit registers are single-copy atomic). */
static inline uint32_t smmu_r32(struct smmuv3 *s, uint64_t off)
{
	return regwin_read32(&s->w, off);
}
static inline void smmu_w32(struct smmuv3 *s, uint64_t off, uint32_t v)
{
	regwin_write32(&s->w, off, v);
}
static inline uint64_t smmu_r64(struct smmuv3 *s, uint64_t off)
{
	return regwin_read64(&s->w, off);
}
static inline void smmu_w64(struct smmuv3 *s, uint64_t off, uint64_t v)
{
	regwin_write64(&s->w, off, v);
}

/* A queue pointer: index and wrap bit (the bits above are flags). */
static inline uint32_t q_ptr(uint32_t v, unsigned log2)
{
	return v & ((2u << log2) - 1);
}
static inline uint32_t q_next(uint32_t v, unsigned log2)
{
	return (q_ptr(v, log2) + 1) & ((2u << log2) - 1);
}
static inline uint32_t q_idx(uint32_t v, unsigned log2)
{
	return v & ((1u << log2) - 1);
}

/* takeover.c: table memory reaches the point of coherency before the unit
 * may read it (cache_flush where it does not snoop) */
void smmuv3_push(const void *p, size_t n, void *smmuv3);
/* CR0 written and CR0ACK polled until it agrees (6.3.10). */
const char *smmuv3_cr0(struct smmuv3 *s, uint32_t v);

/* Zeroed memory of `bytes` aligned to them (at least a 4 KiB page),
 * pushed to the unit; NULL when none. smmuv3_free gives it back. */
void *smmuv3_alloc(struct smmuv3 *s, size_t bytes, struct smmuv3_mem *m);
void smmuv3_free(struct smmuv3_mem *m);

/* pgtable.c */
extern const struct io_pgtable_fmt smmuv3_pte_fmt, smmuv3_s2_pte_fmt;

/* strtab.c */
const char *smmuv3_strtab_build(struct smmuv3 *s);
void smmuv3_strtab_free(struct smmuv3 *s);
/* STE `sid` bypassing, or translating (stage 1: through the context
 * descriptor; stage 2: S2TTB the device's tables), then CFGI_STE and
 * CMD_SYNC. */
const char *smmuv3_ste_bypass(struct smmuv3 *s, uint32_t sid);
const char *smmuv3_ste_translate(struct smmuv3 *s, uint32_t sid);
/* The context descriptor for tables `top` (its TTB0). */
void smmuv3_cd_write(struct smmuv3 *s, const uint64_t *top);

/* cmdq.c */
const char *smmuv3_submit(struct smmuv3 *s, const uint64_t (*cmds)[CMD_DWORDS], size_t n);
const char *smmuv3_op_invalidate(struct iommu *io, size_t kind, uint64_t iova, uint64_t size);
const char *smmuv3_invalidate_everything(struct smmuv3 *s);
/* The kinds this unit can do, into s->kinds. */
void smmuv3_kinds_setup(struct smmuv3 *s);
/* An active global error (GERROR differs from GERRORN) acknowledged. */
void smmuv3_gerror_ack(struct smmuv3 *s, uint32_t bits);

/* evtq.c */
bool smmuv3_op_fault_pending(struct iommu *io);
size_t smmuv3_op_faults(struct iommu *io, struct iommu_fault *out, size_t max, bool *overflow);

/* takeover.c */
const char *smmuv3_op_take(struct iommu *io);
const char *smmuv3_op_give_back(struct iommu *io);
bool smmuv3_op_as_found(struct iommu *io, char *out, size_t n);
void smmuv3_op_firmware_left(struct iommu *io, struct iommu_fw_state *st);

static inline const char *smmuv3_pg_fail(struct smmuv3 *s, const struct io_pgtable *d, const char *why)
{
	return why ? iommu_fail(&s->io, d->err, why) : NULL;
}

#endif
