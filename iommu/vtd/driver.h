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
/* The queue is one page (IQA.QS 0): 256 descriptors of 128 bits, or 128
 * of 256 bits in scalable mode. */
static inline unsigned vtd_iq_entries(const struct vtd *v)
{
	return (v->dw ? 128u : 256u) << v->iq_qs;
}

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
/* `n` descriptors and a status-writing wait on the queue, waited for. */
const char *vtd_qi_submit(struct vtd *v, const struct vtd_desc *d, size_t n);
const char *vtd_write_buffer_flush(struct vtd *v);
const char *vtd_qi_enable(struct vtd *v, bool on);
const char *vtd_ctx_invalidate(struct vtd *v, enum vtd_ccmd_g g, uint16_t did, uint16_t sid);
/* Scalable mode: the PASID cache (6.5.2.2) and the PASID-based IOTLB
 * (6.5.2.4), through the queue. */
const char *vtd_pc_invalidate(struct vtd *v, enum vtd_pc_g g, uint16_t did, uint32_t pasid);
const char *vtd_piotlb_invalidate(struct vtd *v, enum vtd_piotlb_g g, uint16_t did, uint32_t pasid, uint64_t iova,
				  uint64_t size);
/* What a changed context or PASID entry of domain `did` needs in scalable
 * mode after the context cache: the PASID cache of the domain and both
 * IOTLBs. */
const char *vtd_sm_forget(struct vtd *v, uint16_t did);
/* The translations of domain `did` the device under test's mode caches:
 * page-selective over [iova, iova + size) or every page; second stage
 * (and legacy) through the IOTLB, first stage and nested through the
 * PASID-based IOTLB for RID_PASID. */
const char *vtd_dut_invalidate(struct vtd *v, bool page, uint16_t did, uint64_t iova, uint64_t size);
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

/* scalable.c */
/* What mode `m` gives the iommu interface: leaves, IOVA width, the
 * invalidation kinds usable now. */
void vtd_expose(struct vtd *v, enum vtd_mode m);
const char *vtd_op_mode(struct iommu *io, const char *name);
const char *vtd_op_mode_refusal(const struct iommu *io, const char *name);
/* The modes `c` offers that the driver drives, a first-stage walk of
 * `fs_levels` (4 or 5, where CAP.FL5LP) and the mode a take uses first. */
struct vtd_caps;
void vtd_modes_adopt(struct vtd *v, const struct vtd_caps *c, unsigned fs_levels);
/* The scalable-mode root and context tables (every source id to the
 * bystanders' PASID tables) and the three sets of PASID tables. */
const char *vtd_sm_build(struct vtd *v);
void vtd_sm_free(struct vtd *v);
size_t vtd_sm_table_pages(const struct vtd *v);
void vtd_sm_ctx_write(struct vtd *v, uint16_t sid, const struct vtd_pasid_tables *t);
struct vtd_pasid_tables *vtd_sm_tables_for(struct vtd *v, const struct vtd_domain *d, bool pt);
/* RID_PASID's entry in `t`, and writing it through `d` (or pass-through). */
uint64_t *vtd_pasid_entry(struct vtd *v, struct vtd_pasid_tables *t);
void vtd_pe_write(struct vtd *v, struct vtd_pasid_tables *t, const struct vtd_domain *d, bool pt);
uint64_t *vtd_live_ctx_entry(struct vtd *v, uint16_t sid);
/* A context entry: its qwords (2 legacy, 4 scalable) and the domain id it
 * leads to. */
static inline uint64_t *vtd_ctx_entry(struct vtd *v, uint16_t sid)
{
	if (v->live)
		return vtd_live_ctx_entry(v, sid);
	return v->ctx + (v->scalable ? VTD_SM_CTX_QWORDS : 2) * (size_t)sid;
}

/* live.c: a unit the firmware left on. vtd_live_refusal says why a unit
 * in this state cannot be taken (NULL: it can); the rest are take-over's
 * and give-back's steps. */
const char *vtd_live_refusal(struct vtd *v);
const char *vtd_live_adopt_queue(struct vtd *v);
const char *vtd_live_return_queue(struct vtd *v);
/* Our domain ids, none the firmware's context entries use. */
const char *vtd_live_pick_dids(struct vtd *v);
/* The context entry of `sid` in the firmware's tables, saved before its
 * first change (a bus without a context table gets one of ours, blocking,
 * under the firmware's root entry); NULL when no more can be saved. */
uint64_t *vtd_live_ctx_entry(struct vtd *v, uint16_t sid);
/* The firmware's entry of `sid` back (it was made not present first). */
void vtd_live_put_back(struct vtd *v, uint16_t sid);
/* Every entry changed in the firmware's tables back, through not-present,
 * the caches invalidated. */
const char *vtd_live_restore(struct vtd *v);
/* [0, top) identity-mapped in `d`, less the protected memory regions the
 * firmware left on. */
const char *vtd_live_ident(struct vtd *v, struct vtd_domain *d, uint64_t top);
const char *vtd_pmr_lift(struct vtd *v);
const char *vtd_pmr_restore(struct vtd *v);
/* The firmware's protection as found, in words (never writes). */
void vtd_firmware_left(struct vtd *v, struct iommu_fw_state *st);

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
