/* What the VT-d driver's files share and nobody else uses: register
 * access of the right width, the GCMD/GSTS handshakes, table writes made
 * visible, and the pieces each file offers the others. Every function that
 * fails records its code in v->io.err (iommu_fail) where the failure is
 * seen, and returns why. */
#ifndef IOMMON_VTD_DRIVER_H
#define IOMMON_VTD_DRIVER_H

#include "core/base/macros.h"
#include "vtd.h"

#define VTD_DEADLINE_MS 100 /* any register handshake or queue wait */
#define VTD_DEADLINE_US (VTD_DEADLINE_MS * 1000)
#define VTD_DEADLINE_TEXT STRINGIFY(VTD_DEADLINE_MS) " ms"
#define VTD_IQ_ENTRIES 256 /* one page of 128-bit descriptors (IQA.QS 0) */

/* 32-bit registers are only ever accessed with 32-bit accesses (a 64-bit
 * access to one aborts QEMU, and real hardware is no kinder). */
static inline uint32_t vtd_r32(struct vtd *v, uint64_t off)
{
	return regwin_read32(&v->w, off);
}
static inline uint64_t vtd_r64(struct vtd *v, uint64_t off)
{
	return regwin_read64(&v->w, off);
}
static inline void vtd_w32(struct vtd *v, uint64_t off, uint32_t val)
{
	regwin_write32(&v->w, off, val);
}
static inline void vtd_w64(struct vtd *v, uint64_t off, uint64_t val)
{
	regwin_write64(&v->w, off, val);
}

/* takeover.c: table memory reaches RAM before the unit may read it (the
 * pgtable sync callback too) */
void vtd_push(const void *p, size_t n, void *vtd);
/* GSTS `bit` to `set` within the deadline; else `late` (TIMEOUT). */
const char *vtd_gsts_wait(struct vtd *v, uint32_t bit, bool set, const char *late);
/* A persistent GCMD bit (TE, QIE) to `on`, waiting for its GSTS twin. */
const char *vtd_gcmd_set(struct vtd *v, uint32_t bit, bool on, const char *late);
/* RTADDR written and latched (SRTP, then RTPS). */
const char *vtd_set_root(struct vtd *v, uint64_t rtaddr);

/* inval.c */
const char *vtd_write_buffer_flush(struct vtd *v);
const char *vtd_qi_enable(struct vtd *v, bool on);
const char *vtd_ctx_invalidate(struct vtd *v, enum vtd_ccmd_g g, uint16_t did, uint16_t sid);
const char *vtd_iotlb_invalidate(struct vtd *v, bool queued, enum vtd_iotlb_g g, uint16_t did, uint64_t iova,
				 uint64_t size);
/* Everything: context cache and IOTLB, globally, on the current interface. */
const char *vtd_invalidate_all(struct vtd *v);
const char *vtd_op_invalidate(struct iommu *io, size_t kind, uint64_t iova, uint64_t size);
/* Interrupt entry cache (6.5.2.7) through the queue: every entry, or
 * 2^im entries from `index`. */
const char *vtd_iec_invalidate(struct vtd *v, bool by_index, unsigned index, unsigned im);
/* The kinds the driver offers; vtd_kind_usable says which this unit can do. */
extern const struct iommu_inval_kind vtd_kinds[6];

/* fault.c */
bool vtd_op_fault_pending(struct iommu *io);
size_t vtd_op_faults(struct iommu *io, struct iommu_fault *out, size_t max, bool *overflow);
void vtd_irq_setup(struct vtd *v);
void vtd_irq_teardown(struct vtd *v);

/* intremap.c */
extern const struct iommu_inval_kind vtd_ir_kinds[2];
const char *vtd_op_ir_enable(struct iommu *io, bool on, unsigned entries);
const char *vtd_op_ir_set(struct iommu *io, uint16_t source_id, unsigned index, const struct iommu_irte *e);
const char *vtd_op_ir_msi(struct iommu *io, uint16_t source_id, unsigned index, struct msi_message *out);
const char *vtd_op_ir_ioapic_rte(struct iommu *io, unsigned index, uint8_t vector, uint64_t *rte);
const char *vtd_op_ir_invalidate(struct iommu *io, size_t kind, uint16_t source_id, int index);
const char *vtd_op_ir_compat(struct iommu *io, bool allow);
/* Give-back's half: IRE off, the table freed, IRTA and CFI as found. */
const char *vtd_ir_give_back(struct vtd *v);

/* takeover.c */
const char *vtd_op_take(struct iommu *io);
const char *vtd_op_give_back(struct iommu *io);
bool vtd_op_as_found(struct iommu *io, char *out, size_t n);
/* The context entry of one source id made present (9.3): through `d`'s
 * tables, or pass-through. */
void vtd_ctx_write(struct vtd *v, uint16_t sid, const struct vtd_domain *d, bool pt);
/* The RMRR ranges that name `only` (NULL: every RMRR) identity-mapped in `d`. */
const char *vtd_rmrr_map(struct vtd *v, struct vtd_domain *d, const struct pci_addr *only);
/* A domain of this unit, empty; v->io.err on failure. */
const char *vtd_domain_init(struct vtd *v, struct vtd_domain *d, uint16_t did);
/* A pgtable call's failure as the unit's. */
static inline const char *vtd_pg_fail(struct vtd *v, const struct vtd_domain *d, const char *why)
{
	return why ? iommu_fail(&v->io, d->err, why) : NULL;
}

#endif
