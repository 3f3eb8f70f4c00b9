/* A VT-d unit the firmware left on, taken over while it runs and given
 * back running (pre-boot DMA protection: EDK II's IntelVTdDxe and the
 * firmware built on it leave translation on, or protected memory regions,
 * when they start a UEFI application).
 *
 * Translation on: the firmware's root table stays latched. A unit without
 * CAP.ESRTPS must not have its root pointer changed while translation is
 * on (spec 11.4.5, as EDK II's IntelVTdDxe and Linux read it), and every
 * unit QEMU models is one, so the monitor does not switch tables: it
 * changes, in the firmware's own context tables, the entries of the device
 * under test and of the ids its DMA carries, each saved first, and puts
 * them back at give-back through not-present. Every other device keeps
 * the firmware's domains and page tables, which the firmware goes on
 * updating as its drivers map buffers; the monitor's domains take ids none
 * of the firmware's entries uses.
 *
 * A running invalidation queue is never stopped: stopping it resets IQH
 * to 0 (10.4.22), and starting it again would run the firmware's old
 * descriptors a second time. It is drained (IQH = IQT), used from its
 * tail, and at give-back brought round to the tail the firmware left, so
 * that a firmware that keeps its own copy of the tail finds it true.
 *
 * Protected memory regions stay enforced until the monitor's tables are
 * live (the bystanders' identity domain leaves them out), are lifted for
 * the cases, and are enforced again before the firmware's state returns. */
#include <stdio.h>
#include <string.h>

#include "core/base/memmap.h"
#include "core/base/platform.h"
#include "core/base/timing.h"
#include "driver.h"

static const uint64_t *fw_root(const struct vtd *v)
{
	return (const uint64_t *)(uintptr_t)(v->found.rtaddr & ~0xfffull);
}

/* The firmware's context table of `bus`, NULL when its root entry is not
 * present or points where no RAM is. */
static const uint64_t *fw_ctx_table(const struct vtd *v, unsigned bus)
{
	uint64_t re = fw_root(v)[2 * bus];
	uint64_t top = platform->memory_top ? platform->memory_top() : 0;
	uint64_t ctp = re & VTD_ROOT_CTP;
	if (!(re & VTD_ROOT_P) || !ctp || (top && ctp >= top))
		return NULL;
	return (const uint64_t *)(uintptr_t)ctp;
}

/* Reserved bits of legacy root and context entries (9.1, 9.3): the root
 * entry's 11:1 and its whole upper half; the context entry's 11:4, its
 * upper half's 7 and 63:24, and TT 3 (reserved). A table with any of them
 * set is not a table: freed memory EDK II filled with 0xAF reads that way. */
#define ROOT_RSVD_LO 0xffeull
#define CTX_RSVD_LO 0xff0ull
#define CTX_RSVD_HI (0x80ull | ~0xffffffull)

static const char *freed_hint(uint64_t lo)
{
	return lo == 0xafafafafafafafafull ? " (0xAF: a freed page)" : "";
}

/* The root table the firmware translates with, and every context table
 * its present entries lead to, checked before the first read or write:
 * in memory the firmware keeps (core/base/memmap.h: not free, not the
 * monitor's, not a device's window or another unit's registers), whole
 * and aligned, with no reserved bit set. False when they pass; true with
 * the reason in `why`. */
static bool fw_tables_refusal(struct vtd *v, char *why, size_t n)
{
	uint64_t rt = v->found.rtaddr & VTD_ROOT_CTP;
	const char *bad = memmap_firmware_table_refusal(rt, PAGE_SIZE, PAGE_SIZE);
	if (bad) {
		snprintf(why, n, "vtd: root table 0x%llx is not the firmware's: %s", (unsigned long long)rt, bad);
		return true;
	}
	const uint64_t *root = fw_root(v);
	for (unsigned bus = 0; bus < 256; bus++) {
		uint64_t re = root[2 * bus], rhi = root[2 * bus + 1];
		if (!(re & VTD_ROOT_P))
			continue;
		if ((re & ROOT_RSVD_LO) || rhi) {
			snprintf(why, n,
				 "vtd: root table 0x%llx is no table: bus %02x's entry 0x%llx:%llx has reserved bits%s",
				 (unsigned long long)rt, bus, (unsigned long long)rhi, (unsigned long long)re,
				 freed_hint(re));
			return true;
		}
		uint64_t ctp = re & VTD_ROOT_CTP;
		bad = memmap_firmware_table_refusal(ctp, PAGE_SIZE, PAGE_SIZE);
		if (bad) {
			snprintf(why, n, "vtd: bus %02x's context table 0x%llx is not the firmware's: %s", bus,
				 (unsigned long long)ctp, bad);
			return true;
		}
		const uint64_t *t = (const uint64_t *)(uintptr_t)ctp;
		for (unsigned fn = 0; fn < 256; fn++) {
			uint64_t lo = t[2 * fn], hi = t[2 * fn + 1];
			if ((lo & VTD_CTX_P) && ((lo & CTX_RSVD_LO) || (lo >> 2 & 3) == 3 || (hi & CTX_RSVD_HI))) {
				snprintf(why, n,
					 "vtd: bus %02x's context table 0x%llx is no table: %02x:%02x.%u's entry "
					 "0x%llx:%llx has reserved bits%s",
					 bus, (unsigned long long)ctp, bus, fn >> 3, fn & 7, (unsigned long long)hi,
					 (unsigned long long)lo, freed_hint(lo));
				return true;
			}
		}
	}
	return false;
}

const char *vtd_live_refusal(struct vtd *v)
{
	static char why[400];
	const struct vtd_found *f = &v->found;
	uint64_t top = platform->memory_top ? platform->memory_top() : 0;
	if (f->gsts & VTD_GSTS_TES) {
		if (f->rtaddr & VTD_RTADDR_TTM) {
			snprintf(
			    why, sizeof(why),
			    "vtd: the firmware translates with %s tables (RTADDR 0x%llx, TTM %llu); iommon takes a "
			    "live unit over from legacy tables only, whose entries it copies one by one",
			    (f->rtaddr & VTD_RTADDR_TTM) == VTD_RTADDR_TTM_SCALABLE ? "scalable-mode" : "reserved-mode",
			    (unsigned long long)f->rtaddr, (unsigned long long)(f->rtaddr >> 10 & 3));
			return iommu_fail(&v->io, IOMMU_ERR_FIRMWARE, why);
		}
		if ((f->rtaddr & VTD_ROOT_CTP) == 0 || (top && (f->rtaddr & VTD_ROOT_CTP) >= top)) {
			snprintf(why, sizeof(why),
				 "vtd: translation is on with a root table at 0x%llx, where no RAM is: its entries "
				 "cannot be copied",
				 (unsigned long long)f->rtaddr);
			return iommu_fail(&v->io, IOMMU_ERR_FIRMWARE, why);
		}
		if (fw_tables_refusal(v, why, sizeof(why)))
			return iommu_fail(&v->io, IOMMU_ERR_FIRMWARE, why);
		if (v->want_mode != VTD_MODE_LEGACY) {
			snprintf(why, sizeof(why),
				 "vtd: mode %s asked for, but the firmware left translation on with legacy tables: a "
				 "live unit is taken over in legacy mode only",
				 vtd_mode_names[v->want_mode]);
			return iommu_fail(&v->io, IOMMU_ERR_UNSUPPORTED, why);
		}
	}
	if (f->gsts & VTD_GSTS_QIES) {
		uint32_t fsts = vtd_r32(v, VTD_REG_FSTS);
		if (f->iqa & VTD_IQA_DW)
			return iommu_fail(
			    &v->io, IOMMU_ERR_FIRMWARE,
			    "vtd: the firmware's running queue holds 256-bit descriptors (IQA.DW): iommon "
			    "adds to a legacy-mode queue only");
		uint64_t iq = f->iqa & ~0xfffull, iq_size = (uint64_t)PAGE_SIZE << vtd_iqa_qs(f->iqa);
		const char *bad = memmap_firmware_table_refusal(iq, iq_size, PAGE_SIZE);
		if (bad) {
			snprintf(why, sizeof(why), "vtd: the running queue (IQA 0x%llx) is not the firmware's: %s",
				 (unsigned long long)f->iqa, bad);
			return iommu_fail(&v->io, IOMMU_ERR_FIRMWARE, why);
		}
		if (fsts & (VTD_FSTS_IQE | VTD_FSTS_ICE | VTD_FSTS_ITE)) {
			snprintf(why, sizeof(why),
				 "vtd: the firmware's invalidation queue is in error (FSTS 0x%x): recovering it is the "
				 "firmware's, not iommon's",
				 fsts);
			return iommu_fail(&v->io, IOMMU_ERR_FIRMWARE, why);
		}
		if (v->want_mode != VTD_MODE_LEGACY) {
			snprintf(why, sizeof(why),
				 "vtd: mode %s needs a queue of 256-bit descriptors; the firmware's queue (128-bit) "
				 "stays running and keeps its format",
				 vtd_mode_names[v->want_mode]);
			return iommu_fail(&v->io, IOMMU_ERR_UNSUPPORTED, why);
		}
	}
	return NULL;
}

const char *vtd_live_adopt_queue(struct vtd *v)
{
	static char why[160];
	struct deadline dl = deadline_after_us(VTD_DEADLINE_US);
	uint64_t h, t;
	while ((h = vtd_r64(v, VTD_REG_IQH)) != (t = vtd_r64(v, VTD_REG_IQT))) {
		if (deadline_passed(&dl)) {
			snprintf(why, sizeof(why),
				 "vtd: the firmware's invalidation queue did not drain within " VTD_DEADLINE_TEXT
				 " (IQH 0x%llx, IQT 0x%llx): nothing was added to it",
				 (unsigned long long)h, (unsigned long long)t);
			return iommu_fail(&v->io, IOMMU_ERR_TIMEOUT, why);
		}
		cpu_relax();
	}
	uint64_t iqa = vtd_r64(v, VTD_REG_IQA);
	if (iqa != v->found.iqa) { /* only the queue vtd_live_refusal checked is used */
		snprintf(why, sizeof(why),
			 "vtd: the firmware's queue moved under iommon (IQA 0x%llx, was 0x%llx): nothing was added "
			 "to it",
			 (unsigned long long)iqa, (unsigned long long)v->found.iqa);
		return iommu_fail(&v->io, IOMMU_ERR_FIRMWARE, why);
	}
	v->iq = (uint64_t *)(uintptr_t)(iqa & ~0xfffull);
	v->iq_qs = vtd_iqa_qs(iqa);
	v->dw = false;
	v->iq_tail = vtd_iq_index(t, false) % vtd_iq_entries(v);
	v->qi_on = true;
	v->fw_queue = true;
	return NULL;
}

/* Context-cache global invalidations (harmless, and valid on any unit in
 * legacy mode) until the tail is where the firmware left it; each batch
 * ends with our status-writing wait. */
const char *vtd_live_return_queue(struct vtd *v)
{
	unsigned want = vtd_iq_index(v->found.iqt, false) % vtd_iq_entries(v);
	struct vtd_desc pad[32];
	for (size_t i = 0; i < ARRAY_SIZE(pad); i++)
		pad[i] = vtd_desc_cc(VTD_CCMD_GLOBAL, 0, 0);
	while (v->iq_tail != want) {
		unsigned gap = (want - v->iq_tail + vtd_iq_entries(v)) % vtd_iq_entries(v);
		size_t n = gap - 1 < ARRAY_SIZE(pad) ? gap - 1 : ARRAY_SIZE(pad);
		const char *e = vtd_qi_submit(v, pad, n);
		if (e)
			return e;
	}
	v->iq = v->iq_mine;
	v->iq_qs = 0;
	v->qi_on = false;
	v->fw_queue = false;
	return NULL;
}

static bool did_used(const uint8_t *used, unsigned did)
{
	return used[did / 8] >> (did % 8) & 1;
}

const char *vtd_live_pick_dids(struct vtd *v)
{
	static uint8_t used[65536 / 8];
	memset(used, 0, sizeof(used));
	used[0] = 1; /* 0: reserved in caching mode, and never ours */
	for (unsigned bus = 0; v->live && bus < 256; bus++) {
		const uint64_t *t = fw_ctx_table(v, bus);
		for (unsigned fn = 0; t && fn < 256; fn++)
			if (t[2 * fn] & VTD_CTX_P) {
				unsigned did = vtd_ctx_did(t[2 * fn + 1]);
				used[did / 8] |= (uint8_t)(1u << (did % 8));
			}
	}
	unsigned limit = 1u << (4 + 2 * vtd_cap_nd(v->cap)), k = 0;
	for (unsigned did = 1; did < limit && k < ARRAY_SIZE(v->dids); did++)
		if (!did_used(used, did))
			v->dids[k++] = (uint16_t)did;
	if (k < ARRAY_SIZE(v->dids))
		return iommu_fail(&v->io, IOMMU_ERR_FIRMWARE,
				  "vtd: the firmware's context entries use every domain id the unit has but two: "
				  "none left for iommon's three");
	v->ident.did = v->dids[0], v->dut.did = v->dids[1], v->alt.did = v->dids[2];
	return NULL;
}

/* The entry at `at` (`n` qwords) saved before its first change. */
static bool save(struct vtd *v, uint64_t *at, size_t n, void *page)
{
	for (size_t i = 0; i < v->npatch; i++)
		if (v->patch[i].at == at)
			return true;
	if (v->npatch == ARRAY_SIZE(v->patch))
		return false;
	struct vtd_patch *p = &v->patch[v->npatch++];
	p->at = at, p->n = n, p->page = page;
	memcpy(p->old, at, 8 * n);
	return true;
}

uint64_t *vtd_live_ctx_entry(struct vtd *v, uint16_t sid)
{
	unsigned bus = sid >> 8;
	uint64_t *root = (uint64_t *)(uintptr_t)(v->found.rtaddr & ~0xfffull);
	uint64_t *t = (uint64_t *)(uintptr_t)fw_ctx_table(v, bus);
	if (!t) {
		/* no context table for the bus: every id on it blocked. One of
		 * ours, as blocking, under the firmware's root entry */
		t = platform->alloc_pages(1, 0);
		if (!t || !save(v, root + 2 * bus, 2, t)) {
			if (t)
				platform->free_pages(t, 1);
			return NULL;
		}
		memset(t, 0, PAGE_SIZE);
		vtd_push(t, PAGE_SIZE, v);
		root[2 * bus + 1] = 0;
		root[2 * bus] = ((uint64_t)(uintptr_t)t & VTD_ROOT_CTP) | VTD_ROOT_P;
		vtd_push(root + 2 * bus, 16, v);
	}
	uint64_t *c = t + 2 * (sid & 0xff);
	return save(v, c, 2, NULL) ? c : NULL;
}

void vtd_live_put_back(struct vtd *v, uint16_t sid)
{
	uint64_t *c = vtd_live_ctx_entry(v, sid);
	for (size_t i = 0; c && i < v->npatch; i++)
		if (v->patch[i].at == c) {
			c[1] = v->patch[i].old[1];
			__asm__ volatile("" ::: "memory");
			c[0] = v->patch[i].old[0];
			vtd_push(c, 16, v);
		}
}

const char *vtd_live_restore(struct vtd *v)
{
	if (!v->npatch)
		return NULL;
	/* through not-present (6.5.3.3): every changed context entry cleared,
	 * the caches emptied, then the firmware's values, and again */
	for (size_t i = 0; i < v->npatch; i++)
		if (!v->patch[i].page) {
			v->patch[i].at[0] = 0;
			vtd_push(v->patch[i].at, 16, v);
		}
	const char *e = vtd_invalidate_all(v);
	for (size_t i = v->npatch; !e && i-- > 0;) {
		struct vtd_patch *p = &v->patch[i];
		p->at[1] = p->old[1];
		__asm__ volatile("" ::: "memory"); /* the upper half before the present bit */
		p->at[0] = p->old[0];
		vtd_push(p->at, 16, v);
	}
	if (!e)
		e = vtd_invalidate_all(v);
	if (e) /* the unit may still reach our context tables: they are kept */
		return e;
	for (size_t i = 0; i < v->npatch; i++)
		if (v->patch[i].page)
			platform->free_pages(v->patch[i].page, 1);
	v->npatch = 0;
	return NULL;
}

/* The regions PMEN protects, as [base, end) pairs; how many. */
static size_t pmr_ranges(const struct vtd *v, uint64_t r[2][2])
{
	const struct vtd_found *f = &v->found;
	size_t n = 0;
	if (!(f->pmen & VTD_PMEN_EPM))
		return 0;
	if (v->plmr && f->plmlimit >= f->plmbase)
		r[n][0] = f->plmbase, r[n][1] = (uint64_t)f->plmlimit + 1, n++;
	if (v->phmr && f->phmlimit >= f->phmbase)
		r[n][0] = f->phmbase, r[n][1] = f->phmlimit + 1, n++;
	return n;
}

const char *vtd_live_ident(struct vtd *v, struct vtd_domain *d, uint64_t top)
{
	uint64_t r[2][2];
	size_t n = pmr_ranges(v, r);
	if (n == 2 && r[1][0] < r[0][0]) {
		uint64_t a = r[0][0], b = r[0][1];
		r[0][0] = r[1][0], r[0][1] = r[1][1], r[1][0] = a, r[1][1] = b;
	}
	uint64_t at = 0;
	for (size_t i = 0; i <= n; i++) {
		uint64_t end = i < n ? r[i][0] : top;
		if (end > top)
			end = top;
		/* the identity maps whole pages: a region's partial pages stay out */
		end &= ~(uint64_t)(PAGE_SIZE - 1);
		if (end > at) {
			const char *e = vtd_pgtable_identity(d, at, end);
			if (e)
				return vtd_pg_fail(v, d, e);
		}
		if (i < n && r[i][1] > at)
			at = (r[i][1] + PAGE_SIZE - 1) & ~(uint64_t)(PAGE_SIZE - 1);
	}
	return NULL;
}

static const char *pmen_set(struct vtd *v, bool on)
{
	vtd_w32(v, VTD_REG_PMEN, on ? VTD_PMEN_EPM : 0);
	struct deadline dl = deadline_after_us(VTD_DEADLINE_US);
	while (!!(vtd_r32(v, VTD_REG_PMEN) & VTD_PMEN_PRS) != on) {
		if (deadline_passed(&dl))
			return iommu_fail(&v->io, IOMMU_ERR_TIMEOUT,
					  on ? "vtd: PMEN.PRS not set within " VTD_DEADLINE_TEXT
					       " of enforcing the protected memory regions again"
					     : "vtd: PMEN.PRS still set " VTD_DEADLINE_TEXT
					       " after lifting the protected memory regions");
		cpu_relax();
	}
	return NULL;
}

const char *vtd_pmr_lift(struct vtd *v)
{
	if (!(v->found.pmen & VTD_PMEN_EPM) || !(v->plmr || v->phmr))
		return NULL;
	const char *e = pmen_set(v, false);
	v->pmr_lifted = true; /* even on a time-out: give-back enforces them again */
	return e;
}

const char *vtd_pmr_restore(struct vtd *v)
{
	if (!v->pmr_lifted)
		return NULL;
	const struct vtd_found *f = &v->found;
	/* the bases and limits are written again only with the regions off
	 * (they are ignored while PRS is set), which they are now */
	if (v->plmr) {
		vtd_w32(v, VTD_REG_PLMBASE, f->plmbase);
		vtd_w32(v, VTD_REG_PLMLIMIT, f->plmlimit);
	}
	if (v->phmr) {
		vtd_w64(v, VTD_REG_PHMBASE, f->phmbase);
		vtd_w64(v, VTD_REG_PHMLIMIT, f->phmlimit);
	}
	const char *e = pmen_set(v, true);
	if (!e)
		v->pmr_lifted = false;
	return e;
}

void vtd_firmware_left(struct vtd *v, struct iommu_fw_state *st)
{
	memset(st, 0, sizeof(*st));
	uint32_t gsts = vtd_r32(v, VTD_REG_GSTS), fsts = vtd_r32(v, VTD_REG_FSTS);
	uint32_t pmen = (v->plmr || v->phmr) ? vtd_r32(v, VTD_REG_PMEN) : 0;
	size_t k = 0;
	char *s = st->state;
	size_t cap = sizeof(st->state);
#define SAY(...) (k += k < cap ? (size_t)snprintf(s + k, cap - k, __VA_ARGS__) : 0)
	if (gsts == 0xffffffffu) {
		SAY("GSTS reads all ones: the unit does not answer");
		return;
	}
	st->translating = gsts & VTD_GSTS_TES;
	st->blocking = pmen & VTD_PMEN_PRS;
	st->queue = gsts & VTD_GSTS_QIES;
	st->intremap = gsts & VTD_GSTS_IRES;
	st->faults = fsts & (VTD_FSTS_PPF | VTD_FSTS_PFO);
	uint64_t rt = vtd_r64(v, VTD_REG_RTADDR);
	if (st->translating)
		SAY("translation on (root table 0x%llx, %s)", (unsigned long long)(rt & VTD_ROOT_CTP),
		    (rt & VTD_RTADDR_TTM) ? "scalable mode" : "legacy mode");
	else
		SAY("translation off");
	if (v->plmr || v->phmr) {
		if (pmen & VTD_PMEN_PRS)
			SAY(", protected memory regions on");
		else
			SAY(", protected memory regions off");
		if ((pmen & VTD_PMEN_PRS) && v->plmr)
			SAY(" (low 0x%x-0x%x", vtd_r32(v, VTD_REG_PLMBASE), vtd_r32(v, VTD_REG_PLMLIMIT));
		if ((pmen & VTD_PMEN_PRS) && v->phmr)
			SAY("%shigh 0x%llx-0x%llx", v->plmr ? ", " : " (",
			    (unsigned long long)vtd_r64(v, VTD_REG_PHMBASE),
			    (unsigned long long)vtd_r64(v, VTD_REG_PHMLIMIT));
		if (pmen & VTD_PMEN_PRS)
			SAY(")");
	} else {
		SAY(", no protected memory regions (CAP.PLMR, PHMR clear)");
	}
	if (st->queue)
		SAY(", invalidation queue on (IQA 0x%llx, IQH 0x%llx, IQT 0x%llx)",
		    (unsigned long long)vtd_r64(v, VTD_REG_IQA), (unsigned long long)vtd_r64(v, VTD_REG_IQH),
		    (unsigned long long)vtd_r64(v, VTD_REG_IQT));
	if (st->intremap)
		SAY(", interrupt remapping on (IRTA 0x%llx)", (unsigned long long)vtd_r64(v, VTD_REG_IRTA));
	SAY(", FSTS 0x%x", fsts);
#undef SAY
	if (v->dmar && (v->dmar->flags & DMAR_FLAG_DMA_CTRL_OPT_IN)) {
		st->promised = true;
		snprintf(st->promise, sizeof(st->promise), "DMAR flags 0x%x (DMA_CTRL_PLATFORM_OPT_IN)",
			 v->dmar->flags);
	}
}
