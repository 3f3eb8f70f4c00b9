/* What the RISC-V IOMMU driver's files share and nobody else uses:
 * register access, table writes made visible, and the pieces each file
 * offers the others. Every function that fails records its code in
 * r->io.err (iommu_fail) where the failure is seen, and returns why. */
#ifndef IOMMON_RISCV_DRIVER_H
#define IOMMON_RISCV_DRIVER_H

#include "core/base/macros.h"
#include "rvi.h"

#define RVI_DEADLINE_MS 100 /* any wait on the unit: a queue turning on or off, ddtp.busy, a fence */
#define RVI_DEADLINE_US (RVI_DEADLINE_MS * 1000)
#define RVI_DEADLINE_TEXT STRINGIFY(RVI_DEADLINE_MS) " ms"

/* 64-bit registers are accessed whole, 32-bit ones as 32 bits (5.1
 * allows a 64-bit register two 32-bit halves; one access is simpler). */
static inline uint64_t rvi_r64(struct rvi *r, uint64_t off)
{
	return regwin_read64(&r->w, off);
}
static inline void rvi_w64(struct rvi *r, uint64_t off, uint64_t v)
{
	regwin_write64(&r->w, off, v);
}
static inline uint32_t rvi_r32(struct rvi *r, uint64_t off)
{
	return regwin_read32(&r->w, off);
}
static inline void rvi_w32(struct rvi *r, uint64_t off, uint32_t v)
{
	regwin_write32(&r->w, off, v);
}

/* Table and queue memory reaches the unit before it may read it. */
void rvi_push(const void *p, size_t n, void *rvi);

/* driver.c: the context a device id has when iommon is not testing it
 * (the bystanders' as found: pass-through, or none), written. */
void rvi_bystander_context(struct rvi *r, uint32_t id);
/* The device under test's context in `mode`: pass-through, or its
 * stage's tree under its PSCID or GSCID, with its MSI page table where one
 * is on. */
struct rvi_dc rvi_dut_context(const struct rvi *r, enum iommu_mode mode);
/* Every context of `ids` becomes `want`, changed as 2.5 asks. */
const char *rvi_write_contexts(struct rvi *r, const uint32_t *ids, size_t n, struct rvi_dc want);
/* The MSI page table's page given back (nothing written to the unit). */
void rvi_msi_free(struct rvi *r);
/* The device ids of `rid`'s DMA (its own, then its aliases), at most
 * RVI_MAX_IDS. */
size_t rvi_dma_ids(const struct rvi *r, uint16_t rid, uint32_t *ids);

/* queues.c */
/* Waits until (reg & mask) == want, within the deadline; NULL or why not
 * (named after `what`). */
const char *rvi_wait32(struct rvi *r, uint64_t reg, uint32_t mask, uint32_t want, const char *what);
/* The command queue and fault queue on, on pages of their own. */
const char *rvi_queues_on(struct rvi *r);
/* Both queues off (the pages stay). */
const char *rvi_queues_off(struct rvi *r);
/* Every cached context and translation dropped, fenced. */
const char *rvi_inval_everything(struct rvi *r);
/* Contexts `ids` changed: IODIR.INVAL_DDT for each, the DUT's PSCID
 * invalidated, fenced. */
const char *rvi_contexts_changed(struct rvi *r, const uint32_t *ids, size_t n);
const char *rvi_op_invalidate(struct iommu *io, size_t kind, uint64_t iova, uint64_t size);
extern const struct iommu_inval_kind rvi_kinds[3], rvi_g_kinds[3];
bool rvi_op_fault_pending(struct iommu *io);
size_t rvi_op_faults(struct iommu *io, struct iommu_fault *out, size_t max, bool *overflow);

/* takeover.c */
const char *rvi_op_take(struct iommu *io);
const char *rvi_op_give_back(struct iommu *io);
bool rvi_op_as_found(struct iommu *io, char *out, size_t n);
void rvi_op_firmware_left(struct iommu *io, struct iommu_fw_state *st);
/* Writes ddtp and waits out its busy bit; NULL or why not. */
const char *rvi_ddtp_write(struct rvi *r, uint64_t v);

static inline const char *rvi_pg_fail(struct rvi *r, const struct io_pgtable *d, const char *why)
{
	return why ? iommu_fail(&r->io, d->err, why) : NULL;
}

#endif
