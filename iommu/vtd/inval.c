/* VT-d invalidation: the write buffer (WBF), the context cache and the
 * IOTLB by register (CCMD, IOTLB at ECAP.IRO; 6.5.1) or through the
 * invalidation queue (6.5.2), each ended by a status-writing wait
 * descriptor, and recovery from a queue error (6.5.2.10). In scalable mode
 * the queue holds 256-bit descriptors (IQA.DW) and everything goes through
 * it, with the PASID cache and the PASID-based IOTLB besides. */
#include <stdio.h>
#include <string.h>

#include "core/base/cpu.h"
#include "core/base/macros.h"
#include "core/base/platform.h"
#include "core/base/timing.h"
#include "driver.h"

const struct iommu_inval_kind vtd_kinds[6] = {
	{ "register-page", "page", "register" },     { "register-domain", "domain", "register" },
	{ "register-global", "global", "register" }, { "queued-page", "page", "queued" },
	{ "queued-domain", "domain", "queued" },     { "queued-global", "global", "queued" },
};
#define NKINDS (ARRAY_SIZE(vtd_kinds))

/* Register-based invalidation: legacy mode only here (scalable mode needs
 * the queue anyway), and not on units of VER 6 and later, which dropped it
 * (rev. 3.3, 6.5). */
static bool registers_invalidate(const struct vtd *v)
{
	return !v->scalable && vtd_ver_max(v->ver) < 6 && !v->queue_left_on && !v->fw_queue;
}

bool vtd_kind_usable(const struct vtd *v, size_t k)
{
	if (k >= NKINDS)
		return false;
	if (k >= 3 && !v->qi)
		return false;
	if (k < 3 && !registers_invalidate(v))
		return false;
	/* page-selective: CAP.PSI for the second stage; the PASID-based
	 * IOTLB of the first stage is always page-selective */
	bool fs = v->scalable && (v->want_mode == VTD_MODE_FS || v->want_mode == VTD_MODE_NESTED);
	return k % 3 != 0 || v->psi || fs;
}

const char *vtd_write_buffer_flush(struct vtd *v)
{
	if (!v->rwbf)
		return NULL;
	vtd_w32(v, VTD_REG_GCMD, (vtd_r32(v, VTD_REG_GSTS) & VTD_GSTS_KEEP) | VTD_GCMD_WBF);
	return vtd_gsts_wait(v, VTD_GSTS_WBFS, false, "vtd: GSTS.WBFS still set " VTD_DEADLINE_TEXT " after WBF");
}

/* A register-based invalidation (CCMD, or IOTLB after IVA): the command
 * written, its busy bit 63 (ICC, IVT) polled clear, and the granularity
 * the unit reports having used checked: 0 means it refused. */
static const char *reg_invalidate(struct vtd *v, uint64_t off, uint64_t cmd, unsigned (*granted)(uint64_t),
				  const char *reg, const char *busy)
{
	static char err[112];
	vtd_w64(v, off, cmd);
	struct deadline dl = deadline_after_us(VTD_DEADLINE_US);
	uint64_t r;
	while ((r = vtd_r64(v, off)) >> 63) {
		if (r == ~0ull) {
			snprintf(err, sizeof(err), "vtd: %s reads all ones (the unit does not answer)", reg);
			return iommu_fail(&v->io, IOMMU_ERR_UNUSABLE, err);
		}
		if (deadline_passed(&dl)) {
			snprintf(err, sizeof(err),
				 "vtd: %s.%s still set " VTD_DEADLINE_TEXT " after an invalidation was written", reg,
				 busy);
			return iommu_fail(&v->io, IOMMU_ERR_TIMEOUT, err);
		}
		cpu_relax();
	}
	if (granted(r) == 0) {
		snprintf(err, sizeof(err), "vtd: the %s invalidation was refused (granularity granted 0)", reg);
		return iommu_fail(&v->io, IOMMU_ERR_HARDWARE, err);
	}
	return NULL;
}

static unsigned ccmd_granted(uint64_t r)
{
	return vtd_ccmd_caig(r);
}

static unsigned iotlb_granted(uint64_t r)
{
	return vtd_iotlb_iaig(r);
}

/* The smallest aligned power-of-two block of pages covering the range: its
 * address and mask (IVA / descriptor AM). */
static void psi_block(uint64_t iova, uint64_t size, uint64_t *addr, unsigned *am)
{
	uint64_t first = iova >> 12, last = (iova + (size ? size : 1) - 1) >> 12;
	unsigned m = 0;
	while ((first >> m) != (last >> m))
		m++;
	*am = m;
	*addr = (first >> m) << (m + 12);
}

static const char *iotlb_reg(struct vtd *v, enum vtd_iotlb_g g, uint16_t did, uint64_t addr, unsigned am)
{
	if (g == VTD_IOTLB_PAGE)
		vtd_w64(v, VTD_REG_IVA(v->iro), vtd_iva(addr, am));
	return reg_invalidate(v, VTD_REG_IOTLB(v->iro), vtd_iotlb(g, did, v->drain_r, v->drain_w), iotlb_granted,
			      "IOTLB", "IVT");
}

/* A descriptor in the slot at `index`: 128 bits, or 256 with the upper
 * half zero. */
static void put_at(struct vtd *v, unsigned index, struct vtd_desc d)
{
	size_t qw = v->dw ? 4 : 2;
	uint64_t *slot = v->iq + qw * index;
	slot[0] = d.lo;
	slot[1] = d.hi;
	if (v->dw)
		slot[2] = slot[3] = 0;
	vtd_push(slot, 8 * qw, v);
}

static void put_desc(struct vtd *v, struct vtd_desc d)
{
	put_at(v, v->iq_tail, d);
	v->iq_tail = (v->iq_tail + 1) % vtd_iq_entries(v);
}

/* Recovers from a queue error (6.5.2.10): the descriptor at the head is
 * replaced by a harmless wait, IQE is cleared, and the tail written again
 * so that the unit resumes from the head. */
static void qi_recover(struct vtd *v)
{
	unsigned head = vtd_iq_index(vtd_r64(v, VTD_REG_IQH), v->dw) % vtd_iq_entries(v);
	/* a wait writing the value the status already holds: harmless, and
	 * the wait behind the bad descriptor still ends the submission */
	put_at(v, head, vtd_desc_wait_sw(v->wait_seq - 1, (uint64_t)(uintptr_t)v->wait_status));
	vtd_w32(v, VTD_REG_FSTS, VTD_FSTS_IQE);
	vtd_w64(v, VTD_REG_IQT, vtd_iq_offset(v->iq_tail, v->dw));
	v->queue_errors++;
}

/* Puts descriptors on the queue followed by a status-writing wait, and
 * waits for the status. */
static const char *qi_submit(struct vtd *v, const struct vtd_desc *desc, size_t n, bool *iqe)
{
	if (iqe)
		*iqe = false;
	uint32_t seq = ++v->wait_seq;
	/* the firmware's queue: its driver may have added to it since (from
	 * its Map and Unmap calls), so the tail is the unit's, not a copy */
	if (v->fw_queue)
		v->iq_tail = vtd_iq_index(vtd_r64(v, VTD_REG_IQT), false) % vtd_iq_entries(v);
	for (size_t i = 0; i < n; i++)
		put_desc(v, desc[i]);
	put_desc(v, vtd_desc_wait_sw(seq, (uint64_t)(uintptr_t)v->wait_status));
	vtd_w64(v, VTD_REG_IQT, vtd_iq_offset(v->iq_tail, v->dw));
	struct deadline dl = deadline_after_us(VTD_DEADLINE_US);
	unsigned recoveries = 0;
	while (*v->wait_status != seq) {
		uint32_t f = vtd_r32(v, VTD_REG_FSTS);
		if (f != 0xffffffffu && (f & VTD_FSTS_IQE)) {
			if (iqe)
				*iqe = true;
			/* one bad descriptor per submission is ours to expect; a
			 * unit that keeps refusing the replacement is broken */
			if (++recoveries > n + 1)
				return iommu_fail(&v->io, IOMMU_ERR_ABANDONED,
						  "vtd: the queue keeps reporting errors (FSTS.IQE) after recovery");
			qi_recover(v);
			dl = deadline_after_us(VTD_DEADLINE_US);
			continue;
		}
		/* device-TLB errors: we send no device-TLB invalidation, so a
		 * unit reporting one is not doing what it was asked */
		if (f != 0xffffffffu && (f & (VTD_FSTS_ITE | VTD_FSTS_ICE)))
			return iommu_fail(&v->io, IOMMU_ERR_HARDWARE,
					  "vtd: the unit reported an invalidation time-out or completion error "
					  "(FSTS.ITE/ICE)");
		if (deadline_passed(&dl))
			return iommu_fail(
			    &v->io, IOMMU_ERR_TIMEOUT,
			    "vtd: the invalidation wait descriptor's status was not written within " VTD_DEADLINE_TEXT);
		cpu_relax();
	}
	/* the refused descriptor was replaced: what it asked for never ran */
	return recoveries ? iommu_fail(&v->io, IOMMU_ERR_HARDWARE,
				       "vtd: the unit refused a descriptor (FSTS.IQE); queue recovered, invalidation "
				       "not done")
			  : NULL;
}

const char *vtd_qi_submit(struct vtd *v, const struct vtd_desc *d, size_t n)
{
	return qi_submit(v, d, n, NULL);
}

const char *vtd_qi_enable(struct vtd *v, bool on)
{
	if (on == v->qi_on)
		return NULL;
	if (on) {
		if (!v->qi)
			return iommu_fail(&v->io, IOMMU_ERR_UNSUPPORTED,
					  "vtd: the unit has no queued invalidation (ECAP.QI clear)");
		v->iq = v->iq_mine, v->iq_qs = 0;
		memset(v->iq, 0, PAGE_SIZE);
		vtd_push(v->iq, PAGE_SIZE, v);
		v->iq_tail = 0;
		v->dw = v->scalable;
		vtd_w64(v, VTD_REG_IQT, 0);
		vtd_w64(v, VTD_REG_IQA, vtd_iqa((uint64_t)(uintptr_t)v->iq, 0) | (v->dw ? VTD_IQA_DW : 0));
		const char *e = vtd_gcmd_set(v, VTD_GCMD_QIE, true, "vtd: GSTS.QIES not set within " VTD_DEADLINE_TEXT);
		v->qi_on = e == NULL;
		return e;
	}
	if (v->fw_queue)
		return iommu_fail(
		    &v->io, IOMMU_ERR_UNSUPPORTED,
		    "vtd: the firmware's invalidation queue stays running (stopping it would make the unit "
		    "run its old descriptors again): no register-based invalidation");
	/* IEC is queued only: the queue stays while remapping needs it */
	if (v->ir_on)
		return iommu_fail(&v->io, IOMMU_ERR_STATE,
				  "vtd: queued invalidation stays on while interrupt remapping is on");
	/* the unit may stop only when it has fetched everything (head ==
	 * tail) and the last descriptor was a wait */
	if (vtd_iq_index(vtd_r64(v, VTD_REG_IQH), v->dw) != vtd_iq_index(vtd_r64(v, VTD_REG_IQT), v->dw))
		return iommu_fail(&v->io, IOMMU_ERR_HARDWARE,
				  "vtd: the invalidation queue is not drained (IQH != IQT): it stays on");
	const char *e =
	    vtd_gcmd_set(v, VTD_GCMD_QIE, false, "vtd: GSTS.QIES still set " VTD_DEADLINE_TEXT " after clearing QIE");
	v->qi_on = e != NULL;
	return e;
}

/* Context cache: on whichever interface is on. */
const char *vtd_ctx_invalidate(struct vtd *v, enum vtd_ccmd_g g, uint16_t did, uint16_t sid)
{
	const char *e = vtd_write_buffer_flush(v);
	if (e)
		return e;
	if (!v->qi_on)
		return reg_invalidate(v, VTD_REG_CCMD, vtd_ccmd(g, did, sid), ccmd_granted, "CCMD", "ICC");
	struct vtd_desc d = vtd_desc_cc(g, did, sid);
	return qi_submit(v, &d, 1, NULL);
}

static const char *queue_only(struct vtd *v, const char *what)
{
	static char why[112];
	snprintf(why, sizeof(why), "vtd: %s is invalidated through the queue only, and the queue is off", what);
	return iommu_fail(&v->io, IOMMU_ERR_STATE, why);
}

const char *vtd_pc_invalidate(struct vtd *v, enum vtd_pc_g g, uint16_t did, uint32_t pasid)
{
	if (!v->qi_on || !v->dw)
		return queue_only(v, "the PASID cache");
	struct vtd_desc d = vtd_desc_pc(g, did, pasid);
	return qi_submit(v, &d, 1, NULL);
}

const char *vtd_piotlb_invalidate(struct vtd *v, enum vtd_piotlb_g g, uint16_t did, uint32_t pasid, uint64_t iova,
				  uint64_t size)
{
	if (!v->qi_on || !v->dw)
		return queue_only(v, "the PASID-based IOTLB");
	const char *e = NULL;
	uint64_t addr = 0, end = iova + size;
	unsigned am = 0;
	do {
		if (g == VTD_PIOTLB_PAGE) {
			psi_block(iova, end - iova, &addr, &am);
			if (am > v->mamv) {
				am = v->mamv;
				addr = iova & ~((1ull << (am + 12)) - 1);
			}
			iova = addr + (1ull << (am + 12));
		}
		struct vtd_desc d = vtd_desc_piotlb(g, did, pasid, addr, am);
		e = qi_submit(v, &d, 1, NULL);
	} while (!e && g == VTD_PIOTLB_PAGE && iova < end);
	return e;
}

const char *vtd_sm_forget(struct vtd *v, uint16_t did)
{
	const char *e = vtd_pc_invalidate(v, VTD_PC_DOMAIN, did, 0);
	if (!e)
		e = vtd_iotlb_invalidate(v, true, VTD_IOTLB_DOMAIN, did, 0, 0);
	return e ? e : vtd_piotlb_invalidate(v, VTD_PIOTLB_PASID, did, v->rid_pasid, 0, 0);
}

const char *vtd_dut_invalidate(struct vtd *v, bool page, uint16_t did, uint64_t iova, uint64_t size)
{
	if (v->scalable && (v->mode == VTD_MODE_FS || v->mode == VTD_MODE_NESTED))
		return vtd_piotlb_invalidate(v, page ? VTD_PIOTLB_PAGE : VTD_PIOTLB_PASID, did, v->rid_pasid, iova,
					     size);
	return vtd_iotlb_invalidate(v, v->qi_on, page ? VTD_IOTLB_PAGE : VTD_IOTLB_DOMAIN, did, iova, size);
}

const char *vtd_iotlb_invalidate(struct vtd *v, bool queued, enum vtd_iotlb_g g, uint16_t did, uint64_t iova,
				 uint64_t size)
{
	if (g == VTD_IOTLB_PAGE && !v->psi)
		return iommu_fail(&v->io, IOMMU_ERR_UNSUPPORTED,
				  "vtd: the unit has no page-selective invalidation (CAP.PSI clear)");
	if (v->scalable && !queued)
		return queue_only(v, "a scalable-mode IOTLB");
	const char *e = vtd_qi_enable(v, queued);
	if (!e)
		e = vtd_write_buffer_flush(v);
	if (e)
		return e;
	uint64_t addr = 0, end = iova + size;
	unsigned am = 0;
	do {
		if (g == VTD_IOTLB_PAGE) {
			psi_block(iova, end - iova, &addr, &am);
			if (am > v->mamv) { /* more than one mask can cover: in pieces */
				am = v->mamv;
				addr = iova & ~((1ull << (am + 12)) - 1);
			}
			iova = addr + (1ull << (am + 12));
		}
		if (!queued) {
			e = iotlb_reg(v, g, did, addr, am);
		} else {
			struct vtd_desc d = vtd_desc_iotlb(g, did, v->drain_r, v->drain_w, addr, am);
			e = qi_submit(v, &d, 1, NULL);
		}
	} while (!e && g == VTD_IOTLB_PAGE && iova < end);
	return e;
}

const char *vtd_op_invalidate(struct iommu *io, size_t usable, uint64_t iova, uint64_t size)
{
	struct vtd *v = container_of(io, struct vtd, io);
	if (!io->taken)
		return iommu_fail(io, IOMMU_ERR_STATE, "vtd: the unit is not taken over");
	if (usable >= io->nkinds)
		return iommu_fail(io, IOMMU_ERR_ARGUMENT, "vtd: no such kind of invalidation");
	size_t kind = NKINDS;
	for (size_t k = 0; k < NKINDS; k++)
		if (strcmp(vtd_kinds[k].name, io->kinds[usable].name) == 0)
			kind = k;
	if (!vtd_kind_usable(v, kind))
		return iommu_fail(io, IOMMU_ERR_UNSUPPORTED, "vtd: this unit cannot do that kind of invalidation");
	static const enum vtd_iotlb_g g[] = { VTD_IOTLB_PAGE, VTD_IOTLB_DOMAIN, VTD_IOTLB_GLOBAL };
	/* first stage and nested: the PASID-based IOTLB for page and domain
	 * (the domain's one PASID); global is the IOTLB's global and the
	 * PASID's, since an IOTLB descriptor names no first-stage entry */
	if (v->scalable && kind % 3 == 2 && (v->mode == VTD_MODE_FS || v->mode == VTD_MODE_NESTED)) {
		const char *e = vtd_iotlb_invalidate(v, true, VTD_IOTLB_GLOBAL, 0, 0, 0);
		return e ? e : vtd_dut_invalidate(v, false, v->dut.did, 0, 0);
	}
	if (v->scalable && kind % 3 != 2)
		return vtd_dut_invalidate(v, kind % 3 == 0, v->dut.did, iova, size);
	return vtd_iotlb_invalidate(v, kind >= 3, g[kind % 3], v->dut.did, iova, size);
}

const char *vtd_invalidate_all(struct vtd *v)
{
	const char *e = vtd_ctx_invalidate(v, VTD_CCMD_GLOBAL, 0, 0);
	if (!e && v->scalable)
		e = vtd_pc_invalidate(v, VTD_PC_GLOBAL, 0, 0);
	if (!e)
		e = vtd_iotlb_invalidate(v, v->qi_on, VTD_IOTLB_GLOBAL, 0, 0, 0);
	/* the first-stage entries of the domains iommon's PASID entries named */
	for (uint16_t did = 1; !e && v->scalable && did <= 3; did++)
		e = vtd_piotlb_invalidate(v, VTD_PIOTLB_PASID, did, v->rid_pasid, 0, 0);
	return e;
}

const char *vtd_iec_invalidate(struct vtd *v, bool by_index, unsigned index, unsigned im)
{
	if (!v->qi_on)
		return iommu_fail(&v->io, IOMMU_ERR_STATE,
				  "vtd: the interrupt entry cache is invalidated only through the queue, which is off");
	struct vtd_desc d = vtd_desc_iec(by_index, index, im);
	return qi_submit(v, &d, 1, NULL);
}

const char *vtd_queue_error_probe(struct vtd *v, unsigned *iqe_seen)
{
	const char *e = vtd_qi_enable(v, true);
	if (e)
		return e;
	/* type 0 is no descriptor at all: the unit must refuse it */
	struct vtd_desc bad = { 0, 0 };
	bool iqe;
	unsigned before = v->queue_errors;
	qi_submit(v, &bad, 1, &iqe);
	*iqe_seen = v->queue_errors - before;
	if (!iqe)
		return iommu_fail(&v->io, IOMMU_ERR_HARDWARE,
				  "vtd: a descriptor of type 0 was accepted without a queue error");
	/* the queue works again: an ordinary wait completes */
	return qi_submit(v, NULL, 0, NULL);
}
