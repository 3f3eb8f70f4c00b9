/* Taking a VT-d unit over from the firmware and giving it back.
 *
 * Taking over: the registers the firmware left are recorded first. A unit
 * the firmware left off gets a root table and one context table per bus in
 * which every source id is passed through (ECAP.PT) or sent to an identity
 * domain over all RAM (less any protected memory regions the firmware left
 * on) and the RMRRs; the device under test is then moved to a domain of
 * its own. A unit the firmware left translating keeps its tables, a
 * running queue keeps running, protected memory regions are lifted only
 * once the monitor's tables are live (live.c says how). Giving back writes
 * the recorded registers again, puts back what was changed in the
 * firmware's memory, and checks them. */
#include <stdio.h>
#include <string.h>

#include "core/base/cpu.h"
#include "core/base/macros.h"
#include "core/base/platform.h"
#include "core/base/timing.h"
#include "driver.h"
#include "iommu/as_found.h"

/* Table memory reaches RAM before the unit may read it: flushed from the
 * caches when the unit does not snoop (ECAP.C clear), else ordered. */
void vtd_push(const void *p, size_t n, void *vtd)
{
	const struct vtd *v = vtd;
	if (!v->coherent)
		cache_flush(p, n);
	else
		mfence();
}

const char *vtd_gsts_wait(struct vtd *v, uint32_t bit, bool set, const char *late)
{
	struct deadline dl = deadline_after_us(VTD_DEADLINE_US);
	for (;;) {
		uint32_t s = vtd_r32(v, VTD_REG_GSTS);
		if (s == 0xffffffffu)
			return iommu_fail(&v->io, IOMMU_ERR_UNUSABLE,
					  "vtd: GSTS reads all ones (the unit does not answer)");
		if (!!(s & bit) == set)
			return NULL;
		if (deadline_passed(&dl))
			return iommu_fail(&v->io, IOMMU_ERR_TIMEOUT, late);
		cpu_relax();
	}
}

/* GCMD and GSTS share their bit positions (11.4.4, 11.4.5). */
const char *vtd_gcmd_set(struct vtd *v, uint32_t bit, bool on, const char *late)
{
	uint32_t s = vtd_r32(v, VTD_REG_GSTS) & VTD_GSTS_KEEP;
	vtd_w32(v, VTD_REG_GCMD, on ? s | bit : s & ~bit);
	return vtd_gsts_wait(v, bit, on, late);
}

const char *vtd_set_root(struct vtd *v, uint64_t rtaddr)
{
	vtd_w64(v, VTD_REG_RTADDR, rtaddr);
	vtd_w32(v, VTD_REG_GCMD, (vtd_r32(v, VTD_REG_GSTS) & VTD_GSTS_KEEP) | VTD_GCMD_SRTP);
	return vtd_gsts_wait(v, VTD_GSTS_RTPS, true, "vtd: GSTS.RTPS not set within " VTD_DEADLINE_TEXT " of SRTP");
}

const char *vtd_domain_init(struct vtd *v, struct vtd_domain *d, uint16_t did)
{
	return vtd_pg_fail(v, d, vtd_domain_alloc(d, d->cfg ? d->cfg : &v->pgcfg, did));
}

uint64_t vtd_root_value(const struct vtd *v)
{
	return (uint64_t)(uintptr_t)v->root | (v->scalable ? VTD_RTADDR_TTM_SCALABLE : 0);
}

/* The context entry of one source id (9.3): present; TT 0 through the
 * second-level tables of `d`, or TT 2 pass-through, which names the
 * largest AGAW the unit supports. */
void vtd_ctx_write(struct vtd *v, uint16_t sid, const struct vtd_domain *d, bool pt)
{
	if (v->scalable) {
		vtd_sm_ctx_write(v, sid, vtd_sm_tables_for(v, d, pt));
		return;
	}
	uint64_t *c = vtd_ctx_entry(v, sid);
	if (!c) /* a live unit's entry that could not be saved: left as it is (attach checked first) */
		return;
	c[1] = pt ? vtd_ctx_hi(v->max_aw, v->ident.did) : vtd_ctx_hi(v->aw, d->did);
	__asm__ volatile("" ::: "memory"); /* the domain before the present bit */
	c[0] = VTD_CTX_P | (pt ? VTD_CTX_TT_PT : VTD_CTX_TT_SL | ((uint64_t)(uintptr_t)d->top & VTD_CTX_SLPTPTR));
}

const char *vtd_rmrr_map(struct vtd *v, struct vtd_domain *d, const struct pci_addr *only)
{
	if (!v->dmar)
		return NULL;
	for (size_t i = 0; i < v->dmar->n; i++) {
		const struct dmar_struct *s = &v->dmar->s[i];
		if (s->type != DMAR_RMRR || s->segment != v->segment || s->limit < s->base)
			continue;
		bool wanted = only == NULL;
		for (size_t k = 0; !wanted && k < s->nscopes && v->pci; k++) {
			int idx = dmar_scope_device(&v->dmar->scopes[s->first_scope + k], s->segment, v->pci);
			wanted = idx >= 0 && pci_addr_eq(v->pci->d[idx].addr, *only);
		}
		const char *e = wanted ? vtd_pgtable_identity(d, s->base, s->limit + 1) : NULL;
		if (e)
			return vtd_pg_fail(v, d, e);
	}
	return NULL;
}

static void *zeroed_pages(size_t n)
{
	void *p = platform->alloc_pages(n, 0);
	if (p)
		memset(p, 0, n * PAGE_SIZE);
	return p;
}

static const char *build_tables(struct vtd *v)
{
	/* a live unit keeps the firmware's root and context tables */
	v->ctx_pages = v->live ? 0 : v->scalable ? 512 : 256;
	v->root = v->live ? NULL : zeroed_pages(1);
	v->ctx = v->live ? NULL : zeroed_pages(v->ctx_pages);
	v->iq_mine = zeroed_pages(1);
	if (!v->fw_queue)
		v->iq = v->iq_mine;
	v->wait_status = zeroed_pages(1);
	if ((!v->live && (!v->root || !v->ctx)) || !v->iq_mine || !v->wait_status)
		return iommu_fail(&v->io, IOMMU_ERR_NOMEM,
				  "vtd: no memory for the root, context, queue and status pages (1 or 2 MiB)");
	const char *e;
	if ((e = vtd_domain_init(v, &v->ident, v->dids[0])) != NULL ||
	    (e = vtd_domain_init(v, &v->dut, v->dids[1])) != NULL)
		return e;
	/* auto: passed through where the unit can, unless the firmware left
	 * protected memory regions on, which the identity then leaves out */
	bool regions = (v->plmr || v->phmr) && (v->found.pmen & VTD_PMEN_EPM);
	bool pt =
	    v->want_bystanders == VTD_BYSTANDERS_PT || (v->want_bystanders == VTD_BYSTANDERS_AUTO && v->pt && !regions);
	if (pt && !v->pt)
		return iommu_fail(&v->io, IOMMU_ERR_UNSUPPORTED,
				  "vtd: pass-through was asked for but the unit has none (ECAP.PT clear)");
	v->bystanders_pt = pt;
	if (!pt) {
		uint64_t top = platform->memory_top ? platform->memory_top() : 0;
		if (!top)
			top = 4ull << 30; /* unknown: the low 4 GiB */
		top = (top + (1ull << 30) - 1) & ~((1ull << 30) - 1);
		if (top >> v->mgaw)
			top = 1ull << v->mgaw;
		v->ident_top = top;
		if ((e = vtd_live_ident(v, &v->ident, top)) != NULL || (e = vtd_rmrr_map(v, &v->ident, NULL)) != NULL)
			return e;
	}
	if (v->live)
		return NULL;
	if (v->scalable) {
		if ((e = vtd_sm_build(v)) != NULL)
			return e;
		vtd_push(v->ctx, v->ctx_pages * PAGE_SIZE, v);
		vtd_push(v->root, PAGE_SIZE, v);
		return NULL;
	}
	for (unsigned bus = 0; bus < 256; bus++) {
		v->root[2 * bus] = ((uint64_t)(uintptr_t)(v->ctx + 512 * bus) & VTD_ROOT_CTP) | VTD_ROOT_P;
		v->root[2 * bus + 1] = 0;
		for (unsigned devfn = 0; devfn < 256; devfn++)
			vtd_ctx_write(v, (uint16_t)(bus << 8 | devfn), &v->ident, pt);
	}
	vtd_push(v->ctx, 256 * PAGE_SIZE, v);
	vtd_push(v->root, PAGE_SIZE, v);
	return NULL;
}

static void free_tables(struct vtd *v)
{
	vtd_domain_free(&v->ident);
	vtd_domain_free(&v->dut);
	vtd_domain_free(&v->alt);
	vtd_sm_free(v);
	if (v->root)
		platform->free_pages(v->root, 1);
	if (v->iq_mine)
		platform->free_pages(v->iq_mine, 1);
	if (v->ctx)
		platform->free_pages(v->ctx, v->ctx_pages);
	if (v->wait_status)
		platform->free_pages((void *)(uintptr_t)v->wait_status, 1);
	v->root = v->iq = v->iq_mine = v->ctx = NULL;
	v->wait_status = NULL;
}

/* What the firmware left, read once per unit: later take-overs in the
 * same session must give back the firmware's state, not our last one. */
static void record(struct vtd *v)
{
	struct vtd_found *f = &v->found;
	if (v->found_valid)
		return;
	f->gsts = vtd_r32(v, VTD_REG_GSTS);
	f->fsts = vtd_r32(v, VTD_REG_FSTS);
	f->fectl = vtd_r32(v, VTD_REG_FECTL);
	f->fedata = vtd_r32(v, VTD_REG_FEDATA);
	f->feaddr = vtd_r32(v, VTD_REG_FEADDR);
	f->feuaddr = vtd_r32(v, VTD_REG_FEUADDR);
	f->rtaddr = vtd_r64(v, VTD_REG_RTADDR);
	f->iqa = v->qi ? vtd_r64(v, VTD_REG_IQA) : 0;
	f->iqh = v->qi ? vtd_r64(v, VTD_REG_IQH) : 0;
	f->iqt = v->qi ? vtd_r64(v, VTD_REG_IQT) : 0;
	f->irta = vtd_ecap_ir(v->ecap) ? vtd_r64(v, VTD_REG_IRTA) : 0;
	if (v->plmr || v->phmr)
		f->pmen = vtd_r32(v, VTD_REG_PMEN);
	if (v->plmr)
		f->plmbase = vtd_r32(v, VTD_REG_PLMBASE), f->plmlimit = vtd_r32(v, VTD_REG_PLMLIMIT);
	if (v->phmr)
		f->phmbase = vtd_r64(v, VTD_REG_PHMBASE), f->phmlimit = vtd_r64(v, VTD_REG_PHMLIMIT);
	v->found_valid = true;
}

/* What the unit does now, not only what it did when first seen: NULL when
 * it can be taken (live.c says what cannot). */
static const char *firmware_state(struct vtd *v)
{
	uint32_t gsts = vtd_r32(v, VTD_REG_GSTS);
	if (gsts == 0xffffffffu)
		return iommu_fail(&v->io, IOMMU_ERR_UNUSABLE, "vtd: GSTS reads all ones (the unit does not answer)");
	if ((gsts ^ v->found.gsts) & (VTD_GSTS_TES | VTD_GSTS_QIES | VTD_GSTS_IRES))
		return iommu_fail(&v->io, IOMMU_ERR_FIRMWARE,
				  "vtd: the unit is no longer as the firmware left it at the first take-over (GSTS "
				  "changed under iommon)");
	return vtd_live_refusal(v);
}

/* The mode asked for (ops->mode) and the walks its domains use: the device
 * under test's first-stage tables in first-stage and nested modes; the
 * identity domain second-stage where the unit has a second stage. */
static void set_mode(struct vtd *v)
{
	v->mode = v->want_mode;
	v->scalable = v->mode != VTD_MODE_LEGACY;
	v->dw = false;
	bool fs = v->mode == VTD_MODE_FS || v->mode == VTD_MODE_NESTED;
	v->dut.cfg = v->alt.cfg = fs ? &v->fscfg : &v->pgcfg;
	v->ident.cfg = v->mode == VTD_MODE_FS && !v->offers[VTD_MODE_SS] ? &v->fscfg : &v->pgcfg;
	v->nest.cfg = &v->pgcfg;
}

/* A failed take-over undone; the failure's code survives the give-back. */
static const char *take_failed(struct iommu *io, const char *why)
{
	enum iommu_err code = io->err;
	vtd_op_give_back(io);
	return iommu_fail(io, code, why);
}

const char *vtd_op_take(struct iommu *io)
{
	struct vtd *v = container_of(io, struct vtd, io);
	if (io->taken)
		return NULL;
	record(v);
	set_mode(v);
	vtd_expose(v, v->mode); /* the kinds as the unit is now: a firmware queue running has no register ones */
	const char *e = firmware_state(v);
	if (e)
		return e;
	io->taken = true; /* from here on give_back puts things back */
	v->qi_on = false;
	v->has_dut = false;
	v->npatch = 0;
	v->pmr_lifted = false;
	v->live = v->found.gsts & VTD_GSTS_TES;
	v->fw_ir = v->found.gsts & VTD_GSTS_IRES;
	io->stays_on = v->live ? "translation stays on: the firmware left it on to protect memory from DMA" : NULL;
	e = vtd_live_pick_dids(v);
	if (!e && (v->found.gsts & VTD_GSTS_QIES))
		e = vtd_live_adopt_queue(v);
	if (!e)
		e = build_tables(v);
	/* scalable mode: the queue, in 256-bit descriptors, before the root
	 * table that needs them */
	if (!e && v->scalable)
		e = vtd_qi_enable(v, true);
	if (!e && !v->live)
		e = vtd_set_root(v, vtd_root_value(v));
	if (!e && !v->live)
		e = vtd_invalidate_all(v);
	if (e)
		return take_failed(io, e);
	/* faults the firmware left are history: cleared, not ours to report */
	struct iommu_fault old[4];
	bool ovf;
	size_t n = vtd_op_faults(io, old, 4, &ovf);
	if (n)
		printf("    %s: %zu fault record%s left from before the take-over, cleared (first: sid %04x, %s)\n",
		       io->name, n, n == 1 ? "" : "s", old[0].sid, old[0].why);
	vtd_irq_setup(v);
	if (!v->live)
		e = vtd_gcmd_set(v, VTD_GCMD_TE, true,
				 "vtd: GSTS.TES not set within " VTD_DEADLINE_TEXT " of enabling translation");
	/* the firmware's regions stay until tables of ours translate */
	if (!e)
		e = vtd_pmr_lift(v);
	if (!e && (v->live || v->fw_queue || v->pmr_lifted || v->fw_ir))
		printf("    %s: the firmware left %s%s%s%s%s%s on: %s\n", io->name, v->live ? "translation" : "",
		       v->live && v->fw_queue ? ", " : "", v->fw_queue ? "its queue" : "",
		       (v->live || v->fw_queue) && v->fw_ir ? ", " : "", v->fw_ir ? "interrupt remapping" : "",
		       v->pmr_lifted ? (v->live || v->fw_queue || v->fw_ir ? ", protected memory regions"
									   : "protected memory regions")
				     : "",
		       v->pmr_lifted ? "lifted now that iommon's tables translate, enforced again at give-back"
				     : "kept running through the take-over");
	return e ? take_failed(io, e) : NULL;
}

bool vtd_as_found(struct vtd *v, char *out, size_t n)
{
	const struct vtd_found *f = &v->found;
	if (!v->found_valid) {
		snprintf(out, n, "never taken over: nothing recorded to compare");
		return true;
	}
	struct reg_found regs[] = {
		/* RTPS and IRTPS say a pointer was latched once, not a state */
		{ "GSTS", vtd_r32(v, VTD_REG_GSTS) & ~(VTD_GSTS_RTPS | VTD_GSTS_IRTPS),
		  f->gsts & ~(VTD_GSTS_RTPS | VTD_GSTS_IRTPS) },
		{ "RTADDR", vtd_r64(v, VTD_REG_RTADDR), f->rtaddr },
		{ "IRTA", vtd_ecap_ir(v->ecap) ? vtd_r64(v, VTD_REG_IRTA) : 0, f->irta },
		{ "FECTL", vtd_r32(v, VTD_REG_FECTL) & ~VTD_FECTL_IP, f->fectl & ~VTD_FECTL_IP },
		{ "FEDATA", vtd_r32(v, VTD_REG_FEDATA), f->fedata },
		{ "FEADDR", vtd_r32(v, VTD_REG_FEADDR), f->feaddr },
		{ "FEUADDR", vtd_r32(v, VTD_REG_FEUADDR), f->feuaddr },
		{ "PMEN", (v->plmr || v->phmr) ? vtd_r32(v, VTD_REG_PMEN) : 0, f->pmen },
		/* a queue left running: its tail where the firmware had it */
		{ "IQT", (f->gsts & VTD_GSTS_QIES) ? vtd_r64(v, VTD_REG_IQT) : 0,
		  (f->gsts & VTD_GSTS_QIES) ? f->iqt : 0 },
	};
	/* IQA is written back but not compared: with the queue disabled it
	 * means nothing, and QEMU reads back the address it last latched.
	 * PLMBASE and the other region registers are never written unless
	 * PMEN changed, and PMEN is compared */
	bool same = regs_as_found(regs, ARRAY_SIZE(regs), out, n);
	if (same) /* the values themselves, for the iommu-exit record */
		snprintf(out, n, "GSTS 0x%08x RTADDR 0x%llx FECTL 0x%08x FEDATA 0x%x FEADDR 0x%x as found", f->gsts,
			 (unsigned long long)f->rtaddr, f->fectl, f->fedata, f->feaddr);
	return same;
}

bool vtd_op_as_found(struct iommu *io, char *out, size_t n)
{
	return vtd_as_found(container_of(io, struct vtd, io), out, n);
}

/* The first failure of a give-back is the one reported, with its code. */
static void first(struct vtd *v, const char **err, enum iommu_err *code, const char *e)
{
	if (e && !*err)
		*err = e, *code = v->io.err;
}

const char *vtd_op_give_back(struct iommu *io)
{
	struct vtd *v = container_of(io, struct vtd, io);
	if (!io->taken)
		return NULL;
	const struct vtd_found *f = &v->found;
	const char *err = NULL;
	enum iommu_err code = IOMMU_OK;
	/* interrupt remapping first: it needs the queue, which stops below */
	first(v, &err, &code, vtd_ir_give_back(v));
	/* the firmware's regions enforced again while our tables still
	 * translate: no moment in which neither protects */
	first(v, &err, &code, vtd_pmr_restore(v));
	if (!v->live)
		first(v, &err, &code,
		      vtd_gcmd_set(v, VTD_GCMD_TE, false,
				   "vtd: GSTS.TES still set " VTD_DEADLINE_TEXT " after disabling"));
	/* the queue drains with a wait, then stops (or, the firmware's, is
	 * brought back to its tail); caches are emptied on the way out so
	 * nothing of ours is used by whoever comes next */
	first(v, &err, &code, v->live ? vtd_live_restore(v) : vtd_invalidate_all(v));
	if (!v->fw_queue)
		first(v, &err, &code, vtd_qi_enable(v, false));
	if (!v->qi_on) /* the tables below are the firmware's, in its mode */
		v->scalable = false, v->dw = false;
	vtd_irq_teardown(v);
	bool ovf;
	struct iommu_fault junk[4];
	vtd_op_faults(io, junk, 4, &ovf);
	vtd_w32(v, VTD_REG_FSTS, VTD_FSTS_PFO | VTD_FSTS_IQE | VTD_FSTS_ICE | VTD_FSTS_ITE);
	/* the recorded registers */
	vtd_w32(v, VTD_REG_FEDATA, f->fedata);
	vtd_w32(v, VTD_REG_FEADDR, f->feaddr);
	vtd_w32(v, VTD_REG_FEUADDR, f->feuaddr);
	vtd_w32(v, VTD_REG_FECTL, f->fectl & VTD_FECTL_IM);
	if (!v->live && f->rtaddr != vtd_r64(v, VTD_REG_RTADDR)) {
		/* the firmware's pointer back, latched as it was */
		const char *e = vtd_set_root(v, f->rtaddr);
		first(v, &err, &code, e);
		if (!e)
			first(v, &err, &code, vtd_invalidate_all(v));
	}
	if (v->fw_queue) /* last: every invalidation above went through it */
		first(v, &err, &code, vtd_live_return_queue(v));
	else if (v->qi && !v->qi_on && !(f->gsts & VTD_GSTS_QIES)) {
		vtd_w64(v, VTD_REG_IQA, f->iqa); /* an IQA write resets IQH and IQT: IQT after it */
		vtd_w64(v, VTD_REG_IQT, f->iqt);
	}
	uint32_t gsts = vtd_r32(v, VTD_REG_GSTS);
	if (gsts == 0xffffffffu || ((gsts ^ f->gsts) & (VTD_GSTS_TES | VTD_GSTS_QIES)) || v->npatch || v->fw_queue) {
		/* the unit may still walk the tables or fetch from the queue:
		 * their pages are left to it rather than given to the firmware */
		printf("    %s: translation or the queue is not as found (GSTS 0x%08x): its %zu table pages are kept\n",
		       io->name, gsts,
		       3 + v->ctx_pages + v->ident.npages + v->dut.npages + v->alt.npages + vtd_sm_table_pages(v));
		*v = (struct vtd){ .io = v->io, .w = v->w, .found = v->found, .found_valid = true };
		v->io.taken = false;
		snprintf(io->restore_note, sizeof(io->restore_note), "the unit is not back as found (GSTS 0x%08x)",
			 gsts);
		first(v, &err, &code, iommu_fail(io, IOMMU_ERR_RESTORE, "vtd: the unit is not back as found"));
		return iommu_fail(io, code, err);
	}
	free_tables(v);
	io->taken = false;
	v->has_dut = false;
	v->scalable = false;
	v->live = v->fw_ir = false;
	io->stays_on = NULL;
	bool same = vtd_as_found(v, io->restore_note, sizeof(io->restore_note));
	if (!same)
		first(v, &err, &code,
		      iommu_fail(io, IOMMU_ERR_RESTORE, "vtd: registers differ from what the firmware left"));
	return err ? iommu_fail(io, code, err) : NULL;
}
