/* VT-d scalable mode (3.4-3.8, 9.2-9.7): the translation modes a unit is
 * driven in, and the tables scalable mode adds. A scalable-mode root entry
 * names two context tables per bus (devfns 0-127 and 128-255) of 256-bit
 * entries; a context entry names a PASID directory; its entry for the
 * PASID leads to a PASID table, whose 512-bit entry says how requests with
 * that PASID are translated (PGTT: first stage, second stage, nested,
 * pass-through) and with which domain id. Requests without a PASID, which
 * is all an emulated or ordinary device sends, use the context entry's
 * RID_PASID. Three sets of PASID tables: the bystanders' (pass-through or
 * the identity domain), the device under test's and the second set the
 * context-cache probe moves it to. */
#include <stdio.h>
#include <string.h>

#include "caps.h"
#include "core/base/macros.h"
#include "core/base/platform.h"
#include "driver.h"

const char *const vtd_mode_names[VTD_NMODES] = { "legacy", "scalable-second-stage", "scalable-first-stage",
						 "scalable-nested" };

enum vtd_mode vtd_mode_named(const char *name)
{
	for (size_t m = 0; name && m < VTD_NMODES; m++)
		if (strcmp(name, vtd_mode_names[m]) == 0)
			return (enum vtd_mode)m;
	return VTD_NMODES;
}

/* What `m` gives the iommu interface: the leaves, the IOVA width (a
 * first-stage walk takes canonical addresses: the lower half of 48 or 57
 * bits) and the invalidation kinds (scalable mode: through the queue). */
void vtd_expose(struct vtd *v, enum vtd_mode m)
{
	bool fs = m == VTD_MODE_FS || m == VTD_MODE_NESTED;
	v->io.page_sizes = fs ? v->fscfg.page_sizes : v->pgcfg.page_sizes;
	v->io.addr_bits = fs ? v->fscfg.addr_bits : v->mgaw;
	v->io.variant = m == VTD_MODE_LEGACY ? NULL : vtd_mode_names[m];
	v->io.mode = vtd_mode_names[m];
	v->io.nkinds = 0;
	v->scalable = m != VTD_MODE_LEGACY;
	/* a queue the firmware left running stays on: no register-based kinds */
	uint32_t gsts = vtd_r32(v, VTD_REG_GSTS);
	v->queue_left_on = gsts != 0xffffffffu && (gsts & VTD_GSTS_QIES) && !v->io.taken;
	for (size_t k = 0; k < ARRAY_SIZE(vtd_kinds); k++)
		if (vtd_kind_usable(v, k))
			v->kinds[v->io.nkinds++] = vtd_kinds[k];
}

/* Why mode `m` is not offered (CAP and ECAP as the open read them), NULL
 * when it is. */
static const char *mode_refusal(const struct vtd *v, enum vtd_mode m)
{
	static char why[128];
	if (v->offers[m])
		return NULL;
	/* one reason for every scalable type where there is no scalable mode
	 * at all, so a person reads it once */
	if (m != VTD_MODE_LEGACY && !vtd_ecap_smts(v->ecap))
		snprintf(why, sizeof(why), "vtd: %s has no scalable mode (ECAP.SMTS clear)", v->io.name);
	else
		snprintf(why, sizeof(why), "vtd: %s does not offer %s translation (%s)", v->io.name, vtd_mode_names[m],
			 m == VTD_MODE_LEGACY ? "CAP.SAGAW"
			 : m == VTD_MODE_SS   ? "ECAP.SMTS, SLTS, QI"
			 : m == VTD_MODE_FS   ? "ECAP.SMTS, FLTS, QI"
					      : "ECAP.SMTS, NEST with SLTS and FLTS, QI");
	return why;
}

const char *vtd_op_mode_refusal(const struct iommu *io, const char *name)
{
	const struct vtd *v = container_of(io, struct vtd, io);
	enum vtd_mode m = name ? vtd_mode_named(name) : v->default_mode;
	return m == VTD_NMODES ? "vtd: no such translation mode" : mode_refusal(v, m);
}

const char *vtd_op_mode(struct iommu *io, const char *name)
{
	struct vtd *v = container_of(io, struct vtd, io);
	enum vtd_mode m = name ? vtd_mode_named(name) : v->default_mode;
	if (m == VTD_NMODES)
		return iommu_fail(io, IOMMU_ERR_ARGUMENT, "vtd: no such translation mode");
	if (io->taken && m != v->mode)
		return iommu_fail(io, IOMMU_ERR_STATE, "vtd: the unit is taken over in another mode");
	const char *no = mode_refusal(v, m);
	if (no)
		return iommu_fail(io, IOMMU_ERR_UNSUPPORTED, no);
	v->want_mode = m;
	if (!io->taken)
		vtd_expose(v, m);
	return NULL;
}

void vtd_modes_adopt(struct vtd *v, const struct vtd_caps *c, unsigned fs_levels)
{
	const char *names[4];
	size_t n = vtd_modes(c, names);
	/* scalable mode needs the queue: 128-bit descriptors are invalid
	 * there, and iommon invalidates through the queue only */
	for (size_t i = 0; i < n; i++) {
		enum vtd_mode m = vtd_mode_named(names[i]);
		if (m != VTD_NMODES && (m == VTD_MODE_LEGACY || c->qi))
			v->offers[m] = true;
	}
	v->io.nmodes = 0;
	for (size_t m = 0; m < VTD_NMODES; m++)
		if (v->offers[m])
			v->io.modes[v->io.nmodes++] = vtd_mode_names[m];
	v->fl1gp = c->fl1gp, v->fl5lp = c->fl5lp, v->rps = c->rps, v->pasid_bits = c->pasid_bits;
	/* RID_PASID: 0 unless the unit lets it be another (ECAP.RPS), then one
	 * in the directory's second entry, so its walk is not entry 0's */
	v->rid_pasid = v->rps ? VTD_PASID_PER_TABLE + 1 : 0;
	/* the directory covers every PASID the unit has (ECAP.PSS), at least
	 * the 2^7 entries PDTS 0 means */
	unsigned dir_bits = c->pasid_bits > 6 ? c->pasid_bits - 6 : 0;
	v->pdts = dir_bits > 7 ? dir_bits - 7 : 0;
	/* 0 (auto): the deepest walk the unit offers, as vtd.levels' auto */
	unsigned levels = fs_levels != 4 && c->fl5lp ? 5 : 4;
	v->fscfg = (struct vtd_pgtable_cfg){ .levels = levels,
					     .addr_bits = levels == 5 ? 56 : 47,
					     .page_sizes = 1ull << 12 | 1ull << 21 | (c->fl1gp ? 1ull << 30 : 0),
					     .sync = vtd_push,
					     .ctx = v,
					     .fmt = &vtd_fs_pte_fmt };
	v->want_mode = v->default_mode = v->offers[v->default_mode] ? v->default_mode : VTD_MODE_LEGACY;
	vtd_expose(v, v->want_mode);
}

/* ---- the tables ------------------------------------------------------------ */

static size_t dir_pages(const struct vtd *v)
{
	size_t bytes = 8ull << (v->pdts + 7);
	return bytes < PAGE_SIZE ? 1 : bytes / PAGE_SIZE;
}

static const char *tables_alloc(struct vtd *v, struct vtd_pasid_tables *t)
{
	t->dir_pages = dir_pages(v);
	t->dir = platform->alloc_pages(t->dir_pages, 0);
	t->table = platform->alloc_pages(1, 0);
	if (!t->dir || !t->table)
		return iommu_fail(&v->io, IOMMU_ERR_NOMEM, "vtd: no memory for the PASID directory and table");
	memset(t->dir, 0, t->dir_pages * PAGE_SIZE);
	memset(t->table, 0, PAGE_SIZE);
	t->dir[v->rid_pasid / VTD_PASID_PER_TABLE] = ((uint64_t)(uintptr_t)t->table & VTD_PE_PTR) | VTD_PASID_DIR_P;
	vtd_push(t->table, PAGE_SIZE, v);
	vtd_push(t->dir, t->dir_pages * PAGE_SIZE, v);
	return NULL;
}

static void tables_free(struct vtd_pasid_tables *t)
{
	if (t->dir)
		platform->free_pages(t->dir, t->dir_pages);
	if (t->table)
		platform->free_pages(t->table, 1);
	*t = (struct vtd_pasid_tables){ 0 };
}

uint64_t *vtd_pasid_entry(struct vtd *v, struct vtd_pasid_tables *t)
{
	return t->table + VTD_PASID_QWORDS * (size_t)(v->rid_pasid % VTD_PASID_PER_TABLE);
}

/* RID_PASID's entry in `t`: through `d` the way the mode says, or
 * pass-through. The first qword, with P, last. */
void vtd_pe_write(struct vtd *v, struct vtd_pasid_tables *t, const struct vtd_domain *d, bool pt)
{
	uint64_t *pe = vtd_pasid_entry(v, t);
	uint64_t q[VTD_PASID_QWORDS] = { 0 };
	uint64_t top = d ? (uint64_t)(uintptr_t)d->top : 0;
	bool first = d && d->cfg == &v->fscfg;
	if (pt) {
		q[0] = VTD_PE_AW(v->max_aw) | VTD_PE_PGTT(VTD_PGTT_PT);
		q[1] = v->ident.did;
	} else if (first && v->mode == VTD_MODE_NESTED && d != &v->ident) {
		/* nested: the first-stage tables and what they map are
		 * addresses the second stage translates (identity here) */
		q[0] =
		    VTD_PE_AW(v->aw) | VTD_PE_PGTT(VTD_PGTT_NESTED) | ((uint64_t)(uintptr_t)v->nest.top & VTD_PE_PTR);
		q[1] = d->did;
		q[2] = (top & VTD_PE_PTR) | (v->fscfg.levels == 5 ? VTD_PE_FSPM_5LEVEL : 0);
	} else if (first) {
		q[0] = VTD_PE_AW(v->fscfg.levels == 5 ? 3 : 2) | VTD_PE_PGTT(VTD_PGTT_FS);
		q[1] = d->did;
		q[2] = (top & VTD_PE_PTR) | (v->fscfg.levels == 5 ? VTD_PE_FSPM_5LEVEL : 0);
	} else {
		q[0] = VTD_PE_AW(v->aw) | VTD_PE_PGTT(VTD_PGTT_SS) | (top & VTD_PE_PTR);
		q[1] = d->did;
	}
	q[0] |= VTD_PE_P;
	if (memcmp(pe, q, sizeof(q)) == 0)
		return; /* written already (another requester id of the same device): no not-present moment */
	q[0] &= ~VTD_PE_P;
	pe[0] = 0;
	__asm__ volatile("" ::: "memory");
	for (size_t i = VTD_PASID_QWORDS; i-- > 1;)
		pe[i] = q[i];
	__asm__ volatile("" ::: "memory"); /* the rest before the present bit */
	pe[0] = q[0] | VTD_PE_P;
	vtd_push(pe, 8 * VTD_PASID_QWORDS, v);
}

/* A context entry in scalable mode (9.4): present, its PASID directory,
 * RID_PASID; faults reported (FPD clear). */
void vtd_sm_ctx_write(struct vtd *v, uint16_t sid, const struct vtd_pasid_tables *t)
{
	uint64_t *c = v->ctx + VTD_SM_CTX_QWORDS * (size_t)sid;
	c[3] = c[2] = 0;
	c[1] = v->rid_pasid;
	__asm__ volatile("" ::: "memory");
	c[0] = ((uint64_t)(uintptr_t)t->dir & VTD_SMCTX_DIR) | VTD_SMCTX_PDTS(v->pdts) | VTD_SMCTX_P;
}

/* The PASID tables a context entry for `d` (or pass-through) names: the
 * bystanders' where `d` is the identity domain in the bystanders' way,
 * else the device under test's (or the probe's second set, for alt), with
 * RID_PASID's entry written for it. */
struct vtd_pasid_tables *vtd_sm_tables_for(struct vtd *v, const struct vtd_domain *d, bool pt)
{
	if (d == &v->ident && pt == v->bystanders_pt)
		return &v->pt_by;
	struct vtd_pasid_tables *t = d == &v->alt ? &v->pt_alt : &v->pt_dut;
	vtd_pe_write(v, t, d == &v->ident ? &v->ident : d, pt);
	return t;
}

const char *vtd_sm_build(struct vtd *v)
{
	const char *e;
	if ((e = tables_alloc(v, &v->pt_by)) != NULL || (e = tables_alloc(v, &v->pt_dut)) != NULL ||
	    (e = tables_alloc(v, &v->pt_alt)) != NULL)
		return e;
	if (v->mode == VTD_MODE_NESTED) {
		/* the second stage under nested translation: identity over
		 * every physical address the CPU has (the first stage's tables
		 * and pages are anywhere in RAM), within the walk's width */
		unsigned bits = platform->phys_bits ? platform->phys_bits() : 36;
		bits = bits > v->mgaw ? v->mgaw : bits;
		uint64_t top = 1ull << bits;
		if ((e = vtd_pg_fail(v, &v->nest, vtd_domain_alloc(&v->nest, &v->pgcfg, 4))) != NULL ||
		    (e = vtd_pg_fail(v, &v->nest, vtd_pgtable_identity(&v->nest, 0, top))) != NULL ||
		    (e = vtd_rmrr_map(v, &v->nest, NULL)) != NULL)
			return e;
	}
	vtd_pe_write(v, &v->pt_by, &v->ident, v->bystanders_pt);
	for (unsigned bus = 0; bus < 256; bus++) {
		uint64_t *lower = v->ctx + 2 * 512 * (size_t)bus, *upper = lower + 512;
		v->root[2 * bus] = ((uint64_t)(uintptr_t)lower & VTD_ROOT_CTP) | VTD_ROOT_P;
		v->root[2 * bus + 1] = ((uint64_t)(uintptr_t)upper & VTD_ROOT_CTP) | VTD_ROOT_P;
		for (unsigned devfn = 0; devfn < 256; devfn++)
			vtd_sm_ctx_write(v, (uint16_t)(bus << 8 | devfn), &v->pt_by);
	}
	return NULL;
}

void vtd_sm_free(struct vtd *v)
{
	tables_free(&v->pt_by);
	tables_free(&v->pt_dut);
	tables_free(&v->pt_alt);
	vtd_domain_free(&v->nest);
}

size_t vtd_sm_table_pages(const struct vtd *v)
{
	return 3 * (v->pt_by.dir_pages + 1) + v->nest.npages;
}
