/* The VT-d unit behind the iommu interface: set-up from CAP/ECAP, the
 * device under test moved between domains through its context entry, map
 * and unmap with what caching mode asks, and the context-cache probe. */
#include "vtd.h"

#include <stdio.h>
#include <string.h>

#include "caps.h"
#include "core/base/macros.h"
#include "core/base/platform.h"
#include "driver.h"
#include "pci/dma.h"

static const char *not_taken(struct vtd *v)
{
	return iommu_fail(&v->io, IOMMU_ERR_STATE, "vtd: the unit is not taken over");
}

static const char *no_domain(struct vtd *v)
{
	return iommu_fail(&v->io, IOMMU_ERR_STATE, "vtd: no device under test in a domain");
}

bool vtd_walk(const struct vtd *v, const struct vtd_domain *d, uint64_t iova, uint64_t *phys, unsigned *perm,
	      unsigned *level)
{
	(void)v; /* the domain carries its unit's walk */
	return vtd_pgtable_walk(d, iova, phys, perm, level);
}

/* After a context swap the device's cached context entries may still name
 * the old domain, and have filled the IOTLB under its id: both invalidated
 * before that domain's tables or id are used again. */
static const char *alt_forget(struct vtd *v)
{
	const char *e = NULL;
	for (size_t i = 0; !e && i < v->ndut_rid; i++)
		e = vtd_ctx_invalidate(v, VTD_CCMD_DEVICE, v->alt.did, v->dut_rid[i]);
	if (!e)
		e = v->scalable ? vtd_sm_forget(v, v->alt.did)
				: vtd_iotlb_invalidate(v, v->qi_on, VTD_IOTLB_DOMAIN, v->alt.did, 0, 0);
	v->alt_cached = v->alt_cached && e;
	return e;
}

static bool is_dut_rid(const struct vtd *v, uint16_t sid)
{
	for (size_t i = 0; v->has_dut && i < v->ndut_rid; i++)
		if (v->dut_rid[i] == sid)
			return true;
	return false;
}

/* A context entry just made present (spec 6.1): in caching mode the unit may
 * hold the not-present entry, cached under domain 0, and the new domain's
 * IOTLB; otherwise the write buffer is all there is to flush. */
static const char *ctx_present(struct vtd *v, uint16_t sid, uint16_t did)
{
	if (!v->cm)
		return vtd_write_buffer_flush(v);
	const char *e = vtd_ctx_invalidate(v, VTD_CCMD_DEVICE, 0, sid);
	if (!e && v->scalable)
		return vtd_sm_forget(v, did);
	return e ? e : vtd_iotlb_invalidate(v, v->qi_on, VTD_IOTLB_DOMAIN, did, 0, 0);
}

/* The domain id a present context entry leads to: its own field (legacy),
 * or its RID_PASID entry's (scalable). */
/* Scalable mode: the PASID tables a context entry names (NULL: none of ours). */
static struct vtd_pasid_tables *ctx_tables(struct vtd *v, uint16_t sid)
{
	const uint64_t *c = vtd_ctx_entry(v, sid);
	struct vtd_pasid_tables *sets[] = { &v->pt_by, &v->pt_dut, &v->pt_alt };
	for (size_t i = 0; i < ARRAY_SIZE(sets); i++)
		if ((c[0] & VTD_SMCTX_DIR) == (uint64_t)(uintptr_t)sets[i]->dir)
			return sets[i];
	return NULL;
}

static uint16_t ctx_did(struct vtd *v, uint16_t sid)
{
	if (!v->scalable)
		return vtd_ctx_did(vtd_ctx_entry(v, sid)[1]);
	struct vtd_pasid_tables *t = ctx_tables(v, sid);
	return t ? vtd_pe_did(vtd_pasid_entry(v, t)[1]) : 0;
}

static size_t ctx_bytes(const struct vtd *v)
{
	return v->scalable ? 8 * VTD_SM_CTX_QWORDS : 16;
}

/* A present context entry changes through not-present (spec 6.5.3.3):
 * cleared, then the device's context-cache entry and the old domain's IOTLB
 * invalidated. */
static const char *ctx_clear(struct vtd *v, uint16_t sid)
{
	uint64_t *c = vtd_ctx_entry(v, sid);
	uint16_t did = ctx_did(v, sid);
	c[0] = 0;
	vtd_push(c, ctx_bytes(v), v);
	const char *e = vtd_ctx_invalidate(v, VTD_CCMD_DEVICE, did, sid);
	if (!e)
		e = v->scalable ? vtd_sm_forget(v, did)
				: vtd_iotlb_invalidate(v, v->qi_on, VTD_IOTLB_DOMAIN, did, 0, 0);
	if (!e && v->alt_cached && is_dut_rid(v, sid))
		e = alt_forget(v);
	return e;
}

static void ctx_set(struct vtd *v, uint16_t sid, const struct vtd_domain *d, bool pt)
{
	vtd_ctx_write(v, sid, d, pt);
	vtd_push(vtd_ctx_entry(v, sid), ctx_bytes(v), v);
}

static bool in(const uint16_t *ids, size_t n, uint16_t id)
{
	for (size_t i = 0; i < n; i++)
		if (ids[i] == id)
			return true;
	return false;
}

/* The device and every requester id its DMA carries (io->alias) get one
 * context entry each naming its domain; ids it no longer carries go back
 * among the bystanders. */
static const char *op_attach(struct iommu *io, struct pci_addr dev, enum iommu_mode mode)
{
	struct vtd *v = container_of(io, struct vtd, io);
	if (!io->taken)
		return not_taken(v);
	if (mode == IOMMU_PASSTHROUGH && !v->pt)
		return iommu_fail(io, IOMMU_ERR_UNSUPPORTED, "vtd: the unit has no pass-through (ECAP.PT clear)");
	uint16_t sid = pci_rid(dev), rid[1 + IOMMU_MAX_ALIASES];
	size_t n = iommu_dut_rids(io, sid, rid);
	const char *e;
	for (size_t i = 0; v->has_dut && i < v->ndut_rid; i++) {
		/* the previous device under test (or an alias it had) back
		 * among the bystanders */
		uint16_t prev = v->dut_rid[i];
		if (in(rid, n, prev))
			continue;
		if ((e = ctx_clear(v, prev)) != NULL)
			return e;
		if (v->live) /* the firmware's entry again */
			vtd_live_put_back(v, prev);
		else
			ctx_set(v, prev, &v->ident, v->bystanders_pt);
		if ((e = ctx_present(v, prev, ctx_did(v, prev))) != NULL)
			return e;
	}
	/* a live unit's entries are the firmware's: each saved before the first change */
	for (size_t i = 0; v->live && i < n; i++)
		if (!vtd_ctx_entry(v, rid[i]))
			return iommu_fail(io, IOMMU_ERR_NOMEM,
					  "vtd: no room to save the firmware's context entries of the device");
	for (size_t i = 0; i < n; i++)
		if ((e = ctx_clear(v, rid[i])) != NULL)
			return e;
	/* nothing points at the old tables any more: a fresh, empty domain
	 * with the RMRRs that name the device, each time it is attached to
	 * translate (what the bench maps before a case, it maps again) */
	if (mode == IOMMU_TRANSLATE &&
	    ((e = vtd_domain_init(v, &v->dut, v->dids[1])) != NULL || (e = vtd_rmrr_map(v, &v->dut, &dev)) != NULL))
		return e;
	for (size_t i = 0; i < n; i++) {
		ctx_set(v, rid[i], mode == IOMMU_TRANSLATE ? &v->dut : &v->ident, mode == IOMMU_PASSTHROUGH);
		if ((e = ctx_present(v, rid[i], ctx_did(v, rid[i]))) != NULL)
			return e;
	}
	v->has_dut = true;
	v->dut_addr = dev;
	v->dut_mode = mode;
	for (size_t i = 0; i < n; i++)
		v->dut_rid[i] = rid[i];
	v->ndut_rid = n;
	return NULL;
}

static void op_firmware_left(struct iommu *io, struct iommu_fw_state *st)
{
	vtd_firmware_left(container_of(io, struct vtd, io), st);
}

static const char *op_enable(struct iommu *io, bool on)
{
	struct vtd *v = container_of(io, struct vtd, io);
	if (!io->taken)
		return not_taken(v);
	if (!on && v->live)
		return iommu_fail(io, IOMMU_ERR_FIRMWARE,
				  "vtd: translation stays on: the firmware left it on to protect memory from DMA, and "
				  "turning it off would open a window to every device");
	if (on && v->live)
		return NULL; /* it never went off */
	if (!on)
		return vtd_gcmd_set(v, VTD_GCMD_TE, false,
				    "vtd: GSTS.TES still set " VTD_DEADLINE_TEXT " after disabling");
	/* spec 10.4.4 (rev. 2): the root pointer is set again before
	 * translation is re-enabled, and the caches invalidated after it */
	const char *e = vtd_set_root(v, vtd_root_value(v));
	if (!e)
		e = vtd_invalidate_all(v);
	return e ? e
		 : vtd_gcmd_set(v, VTD_GCMD_TE, true, "vtd: GSTS.TES not set within " VTD_DEADLINE_TEXT " of enabling");
}

static const char *op_map(struct iommu *io, uint64_t iova, uint64_t phys, uint64_t size, unsigned perm, uint64_t page)
{
	struct vtd *v = container_of(io, struct vtd, io);
	if (!io->taken || !v->has_dut)
		return no_domain(v);
	const char *e = vtd_pg_fail(v, &v->dut, vtd_pgtable_map(&v->dut, iova, phys, size, perm, page));
	if (e)
		return e;
	/* caching mode: not-present entries may be cached, so a new mapping
	 * needs an invalidation like any other change (spec 6.1) */
	if (v->cm)
		return vtd_dut_invalidate(v, v->psi, v->dut.did, iova, size);
	return vtd_write_buffer_flush(v);
}

static const char *op_unmap(struct iommu *io, uint64_t iova, uint64_t size)
{
	struct vtd *v = container_of(io, struct vtd, io);
	if (!io->taken || !v->has_dut)
		return no_domain(v);
	return vtd_pg_fail(v, &v->dut, vtd_pgtable_unmap(&v->dut, iova, size));
}

/* Where the device under test's DMA to `iova` goes: its domain walked, or
 * `iova` itself when it is passed through (no leaf: 4 KiB reported). */
static bool op_iova_to_phys(struct iommu *io, uint64_t iova, uint64_t *phys, unsigned *perm, uint64_t *page)
{
	struct vtd *v = container_of(io, struct vtd, io);
	if (!io->taken || !v->has_dut)
		return false;
	if (v->dut_mode == IOMMU_PASSTHROUGH) {
		*phys = iova, *perm = IOMMU_RW, *page = PAGE_SIZE;
		return true;
	}
	unsigned level;
	if (!vtd_pgtable_walk(&v->dut, iova, phys, perm, &level))
		return false;
	*page = vtd_level_size(level);
	return true;
}

/* The device moved to a second domain (`iova` -> `phys`, `keep` identity)
 * by rewriting its context entries, or (`pasid_entry`) only its RID_PASID
 * entry, and invalidating neither cache in front of them. */
static const char *swap(struct vtd *v, uint64_t iova, uint64_t phys, const struct dma_range *keep, size_t nkeep,
			bool pasid_entry)
{
	if (!v->io.taken || !v->has_dut || v->dut_mode != IOMMU_TRANSLATE)
		return no_domain(v);
	if (pasid_entry && !v->scalable)
		return iommu_fail(&v->io, IOMMU_ERR_UNSUPPORTED, "vtd: legacy mode has no PASID entries");
	uint16_t old = v->dut.did, next = old == v->dids[1] ? v->dids[2] : v->dids[1];
	/* the tables about to be reused must not be what a cached context
	 * entry still leads to (a second swap with no invalidation between) */
	const char *e = v->alt_cached ? alt_forget(v) : NULL;
	if (!e)
		e = vtd_domain_init(v, &v->alt, next);
	for (size_t i = 0; !e && i < nkeep; i++)
		e = vtd_pg_fail(v, &v->alt,
				vtd_pgtable_map(&v->alt, keep[i].phys, keep[i].phys, keep[i].len, IOMMU_RW, PAGE_SIZE));
	if (!e)
		e = vtd_pg_fail(v, &v->alt,
				vtd_pgtable_map(&v->alt, iova & ~(PAGE_SIZE - 1), phys & ~(PAGE_SIZE - 1), PAGE_SIZE,
						IOMMU_RW, PAGE_SIZE));
	if (!e)
		e = vtd_rmrr_map(v, &v->alt, &v->dut_addr);
	if (e)
		return e;
	struct vtd_pasid_tables *cur = pasid_entry ? ctx_tables(v, v->dut_rid[0]) : NULL;
	if (pasid_entry && !cur)
		return iommu_fail(&v->io, IOMMU_ERR_STATE,
				  "vtd: the device's context entry names no PASID table of ours");
	if (pasid_entry) /* the PASID tables its context entries name; no PASID-cache invalidation */
		vtd_pe_write(v, cur, &v->alt, false);
	for (size_t i = 0; !pasid_entry && i < v->ndut_rid; i++)
		ctx_set(v, v->dut_rid[i], &v->alt, false); /* and no context-cache invalidation */
	struct vtd_domain t = v->dut;
	v->dut = v->alt;
	v->alt = t;
	v->alt_cached = true;
	return vtd_dut_invalidate(v, false, old, 0, 0);
}

bool vtd_fs_accessed_dirty(const struct vtd *v, uint64_t iova, unsigned *levels, unsigned *accessed, bool *dirty)
{
	if (!v->io.taken || !v->has_dut || v->dut.cfg != &v->fscfg)
		return false;
	*levels = *accessed = 0;
	*dirty = false;
	const uint64_t *t = v->dut.top;
	for (unsigned l = v->fscfg.levels; l >= 1 && t; l--) {
		uint64_t e = ((const volatile uint64_t *)t)[(iova >> (12 + 9 * (l - 1))) & 511];
		if (!(e & VTD_FS_P))
			return false;
		(*levels)++;
		*accessed += (e & VTD_FS_A) != 0;
		if (l == 1 || (e & VTD_FS_PS)) {
			*dirty = (e & VTD_FS_D) != 0;
			return true;
		}
		t = (const uint64_t *)(uintptr_t)(e & VTD_FS_ADDR);
	}
	return false;
}

const char *vtd_context_swap(struct vtd *v, uint64_t iova, uint64_t phys, const struct dma_range *keep, size_t nkeep)
{
	return swap(v, iova, phys, keep, nkeep, false);
}

const char *vtd_pasid_swap(struct vtd *v, uint64_t iova, uint64_t phys, const struct dma_range *keep, size_t nkeep)
{
	return swap(v, iova, phys, keep, nkeep, true);
}

const char *vtd_pasid_invalidate(struct vtd *v, enum vtd_pc_g g)
{
	if (!v->io.taken || !v->has_dut || !v->scalable)
		return iommu_fail(&v->io, IOMMU_ERR_STATE, "vtd: no device under test in scalable mode");
	const char *e = vtd_pc_invalidate(v, g, v->alt.did, v->rid_pasid);
	if (!e)
		e = vtd_sm_forget(v, v->alt.did);
	v->alt_cached = v->alt_cached && e;
	return e;
}

const char *vtd_context_invalidate(struct vtd *v, bool queued)
{
	if (!v->io.taken || !v->has_dut)
		return iommu_fail(&v->io, IOMMU_ERR_STATE, "vtd: no device under test");
	const char *e = vtd_qi_enable(v, queued);
	return e ? e : alt_forget(v);
}

static const struct iommu_ops vtd_ops = {
	.take = vtd_op_take,
	.give_back = vtd_op_give_back,
	.attach = op_attach,
	.enable = op_enable,
	.map = op_map,
	.unmap = op_unmap,
	.invalidate = vtd_op_invalidate,
	.faults = vtd_op_faults,
	.fault_pending = vtd_op_fault_pending,
	.iova_to_phys = op_iova_to_phys,
	.as_found = vtd_op_as_found,
	.firmware_left = op_firmware_left,
	.ir_enable = vtd_op_ir_enable,
	.ir_set = vtd_op_ir_set,
	.ir_msi = vtd_op_ir_msi,
	.ir_ioapic_rte = vtd_op_ir_ioapic_rte,
	.ir_invalidate = vtd_op_ir_invalidate,
	.ir_compat = vtd_op_ir_compat,
	.mode = vtd_op_mode,
	.mode_refusal = vtd_op_mode_refusal,
};

/* What CAP and ECAP allow, as the driver and the iommu interface use it. */
static void adopt(struct vtd *v, const struct vtd_caps *c)
{
	v->mgaw = c->mgaw, v->levels = c->levels, v->aw = c->aw, v->max_aw = c->max_aw;
	v->fro = c->fro, v->nfr = c->nfr, v->iro = c->iro, v->mamv = c->mamv;
	v->coherent = c->coherent, v->qi = c->qi, v->pt = c->pt, v->rwbf = c->rwbf, v->cm = c->cm, v->psi = c->psi;
	v->drain_w = c->drain_w, v->drain_r = c->drain_r, v->plmr = c->plmr, v->phmr = c->phmr;
	v->io.addr_bits = c->mgaw;
	v->io.perm_bits = true;
	v->io.passthrough = v->pt;
	v->io.map_flushes = v->cm;
	v->ir = vtd_ecap_ir(v->ecap);
	if (v->ir && v->qi) { /* IEC exists only as a queued descriptor */
		memcpy(v->ir_kinds, vtd_ir_kinds, sizeof(v->ir_kinds));
		v->io.ir_kinds = v->ir_kinds;
		v->io.nir_kinds = 2;
	}
	v->io.ir_dest32 = v->ir && vtd_ecap_eim(v->ecap) ? "vtd.eime on" : NULL;
	v->io.page_sizes = 1ull << 12 | (c->sp_2m ? 1ull << 21 : 0) | (c->sp_1g ? 1ull << 30 : 0);
	v->pgcfg = (struct vtd_pgtable_cfg){ .levels = v->levels,
					     .addr_bits = v->mgaw,
					     .page_sizes = v->io.page_sizes,
					     .sync = vtd_push,
					     .ctx = v,
					     .fmt = &vtd_pte_fmt };
	/* the modes, the first-stage walk, and the kinds of the first mode */
	vtd_modes_adopt(v, c, v->want_fs_levels);
}

const char *vtd_init(struct vtd *v, const struct regwin *w, const char *name, const struct dmar *dmar,
		     const struct pci_list *pci, uint16_t segment)
{
	enum vtd_bystanders by = v->want_bystanders;
	unsigned lv = v->want_levels;
	bool want_eime = v->want_eime;
	enum vtd_mode mode = v->default_mode;
	unsigned fs_levels = v->want_fs_levels;
	struct vtd_found found = v->found;
	bool same_unit = v->found_valid && w->space == v->w.space && w->base == v->w.base && w->ctx == v->w.ctx;
	bool cfi_ignored = v->cfi_ignored;
	memset(v, 0, sizeof(*v));
	v->want_bystanders = by;
	v->want_levels = lv;
	v->want_eime = want_eime;
	v->default_mode = mode;
	v->want_fs_levels = fs_levels;
	/* what the unit showed of itself this boot holds for the same unit:
	 * a CFIS that never followed CFI is not waited for (its whole
	 * deadline) again at every take-over */
	if (same_unit)
		v->found = found, v->found_valid = true, v->cfi_ignored = cfi_ignored;
	v->w = *w;
	v->vector = -1;
	v->dmar = dmar, v->pci = pci, v->segment = segment;
	v->io.ops = &vtd_ops;
	v->io.backend = "vtd";
	v->io.kinds = v->kinds;
	v->io.model = w->space == REGWIN_MODEL;
	snprintf(v->io.name, sizeof(v->io.name), "%s", name);

	v->ver = vtd_r32(v, VTD_REG_VER);
	v->cap = vtd_r64(v, VTD_REG_CAP);
	v->ecap = vtd_r64(v, VTD_REG_ECAP);
	struct vtd_caps c;
	const char *bad = vtd_decode_caps(v->ver, v->cap, v->ecap, w->size, v->want_levels, &c);
	if (bad)
		return iommu_fail(&v->io, c.err, bad);
	adopt(v, &c);
	/* domain ids: 0 is reserved in caching mode, and we need 1 and 2 */
	v->dids[0] = v->ident.did = 1;
	v->dids[1] = v->dut.did = 2;
	v->dids[2] = v->alt.did = 3;
	v->ident.cfg = v->dut.cfg = v->alt.cfg = &v->pgcfg;
	return NULL;
}

const char *vtd_open(struct vtd *v, const struct iommu_unit *u, const struct dmar *dmar, const struct pci_list *pci)
{
	if (u->backend != &vtd_backend)
		return iommu_fail(&v->io, IOMMU_ERR_ARGUMENT, "not a VT-d unit");
	/* the window the DRHD describes (its Size field),
	 * checked against the memory map before anything reads it */
	if (u->refused[0])
		return iommu_fail(&v->io, IOMMU_ERR_UNUSABLE, u->refused);
	struct regwin w;
	const char *why = units_open_window(u, &w);
	if (why)
		return iommu_fail(&v->io, IOMMU_ERR_UNUSABLE, why);
	struct unit_regs r;
	if (!units_read_regs(u, &r))
		return iommu_fail(&v->io, IOMMU_ERR_UNUSABLE,
				  "vtd: the registers read all ones (nothing answers at the base)");
	return vtd_init(v, &w, u->name, dmar, pci, u->segment);
}
