/* The SMMUv3 behind the iommu interface: set-up from the ID registers
 * (AArch64 tables required; the stage, the stream table's format and the
 * granule chosen from IDR0, IDR1 and IDR5 and the settings), the device
 * under test moved between bypass and stage-1 or stage-2 translation
 * through its STE, map and unmap in its VMSA tables, the software walk. */
#include "smmuv3.h"

#include <stdio.h>
#include <string.h>

#include "core/base/macros.h"
#include "core/base/platform.h"
#include "driver.h"

#define LINEAR_MAX_LOG2 10 /* auto: a linear table of at most 1024 STEs (64 KiB) */
#define IAS 48		   /* input addresses: T0SZ 16, within what every granule walks */
#define S2_IAS_MIN 25	   /* S2T0SZ 39 */

static const char *no_domain(struct smmuv3 *s)
{
	return iommu_fail(&s->io, IOMMU_ERR_STATE, "smmuv3: no device under test in a domain");
}

/* The RMR ranges of `sid` identity-mapped in the device's tables. */
static const char *rmr_map(struct smmuv3 *s, uint32_t sid)
{
	for (size_t i = 0; i < s->nrmr; i++) {
		if (s->rmr[i].sid != sid)
			continue;
		const char *e =
		    smmuv3_pg_fail(s, &s->dut, io_pgtable_identity(s->fmt, &s->dut, s->rmr[i].base, s->rmr[i].end));
		if (e)
			return e;
	}
	return NULL;
}

/* The stream id requester id `rid` becomes (the IORT's mapping, kept at
 * open): its BDF where the IORT named none. */
static uint32_t stream_of(const struct smmuv3 *s, struct pci_addr dev, uint16_t rid)
{
	struct pci_addr a = { dev.seg, (uint8_t)(rid >> 8), (rid >> 3) & 0x1f, rid & 7 };
	for (size_t i = 0; i < s->nstreams; i++)
		if (pci_addr_eq(s->stream[i].dev, a))
			return s->stream[i].sid;
	return rid;
}

static const char *op_attach(struct iommu *io, struct pci_addr dev, enum iommu_mode mode)
{
	struct smmuv3 *s = container_of(io, struct smmuv3, io);
	if (!io->taken)
		return iommu_fail(io, IOMMU_ERR_STATE, "smmuv3: the unit is not taken over");
	const char *e;
	if (s->has_dut) { /* the previous device under test back among the bystanders */
		if ((e = smmuv3_ttb_unfork(s)) != NULL)
			return e;
		for (size_t i = 0; i < s->ndut_sids; i++)
			if ((e = smmuv3_ste_bypass(s, s->dut_sids[i])) != NULL)
				return e;
		if ((e = smmuv3_tlbi_domain(s)) != NULL)
			return e;
		s->has_dut = false;
	}
	uint16_t rid[1 + IOMMU_MAX_ALIASES];
	size_t n = iommu_dut_rids(io, pci_rid(dev), rid), nsid = 0;
	uint32_t sids[1 + IOMMU_MAX_ALIASES];
	for (size_t i = 0; i < n; i++) {
		uint32_t sid = stream_of(s, dev, rid[i]);
		size_t k = 0;
		while (k < nsid && sids[k] != sid)
			k++;
		if (k == nsid)
			sids[nsid++] = sid;
	}
	uint32_t sid = sids[0];
	if (mode == IOMMU_TRANSLATE) {
		if ((e = smmuv3_pg_fail(s, &s->dut, io_pgtable_alloc(s->fmt, &s->dut, &s->pgcfg, 1))) != NULL)
			return e;
		for (size_t i = 0; i < nsid; i++)
			if ((e = rmr_map(s, sids[i])) != NULL)
				return e;
		/* the descriptor and whatever was cached under the ASID (VMID)
		 * forgotten before the STEs point at it */
		if (s->stage == 1) {
			smmuv3_cd_write(s, s->dut.top);
			for (size_t i = 0; i < nsid; i++)
				if ((e = smmuv3_cfgi_cd(s, sids[i])) != NULL)
					return e;
		}
		if ((e = smmuv3_tlbi_domain(s)) != NULL)
			return e;
		for (size_t i = 0; i < nsid; i++)
			if ((e = smmuv3_ste_translate(s, sids[i])) != NULL)
				return e;
	} else {
		for (size_t i = 0; i < nsid; i++)
			if ((e = smmuv3_ste_bypass(s, sids[i])) != NULL)
				return e;
	}
	s->has_dut = true;
	s->dut_addr = dev;
	s->dut_sid = sid;
	memcpy(s->dut_sids, sids, nsid * sizeof(sids[0]));
	s->ndut_sids = nsid;
	s->dut_mode = mode;
	return NULL;
}

static const char *op_enable(struct iommu *io, bool on)
{
	struct smmuv3 *s = container_of(io, struct smmuv3, io);
	if (!io->taken)
		return iommu_fail(io, IOMMU_ERR_STATE, "smmuv3: the unit is not taken over");
	uint32_t cr0 = smmu_r32(s, SMMU_CR0);
	return smmuv3_cr0(s, on ? cr0 | CR0_SMMUEN : cr0 & ~CR0_SMMUEN);
}

static const char *op_map(struct iommu *io, uint64_t iova, uint64_t phys, uint64_t size, unsigned perm, uint64_t page)
{
	struct smmuv3 *s = container_of(io, struct smmuv3, io);
	if (!io->taken || !s->has_dut)
		return no_domain(s);
	/* stage 1's AP[2:1] grant read with every write: write-only is
	 * mapped read-write (the walk says so), as DART maps everything;
	 * stage 2's S2AP has write-only */
	if (s->stage == 1 && (perm & IOMMU_RW) == IOMMU_W)
		perm |= IOMMU_R;
	/* a translation fault is never cached (Arm ARM D8.16): no invalidation */
	return smmuv3_pg_fail(s, &s->dut, io_pgtable_map(s->fmt, &s->dut, iova, phys, size, perm, page));
}

static const char *op_unmap(struct iommu *io, uint64_t iova, uint64_t size)
{
	struct smmuv3 *s = container_of(io, struct smmuv3, io);
	if (!io->taken || !s->has_dut)
		return no_domain(s);
	return smmuv3_pg_fail(s, &s->dut, io_pgtable_unmap(s->fmt, &s->dut, iova, size));
}

static bool op_iova_to_phys(struct iommu *io, uint64_t iova, uint64_t *phys, unsigned *perm, uint64_t *page)
{
	struct smmuv3 *s = container_of(io, struct smmuv3, io);
	if (!io->taken || !s->has_dut)
		return false;
	if (s->dut_mode == IOMMU_PASSTHROUGH) {
		*phys = iova, *perm = IOMMU_RW, *page = 1ull << s->granule_bits;
		return true;
	}
	unsigned level;
	if (!io_pgtable_walk(s->fmt, &s->dut, iova, phys, perm, &level))
		return false;
	*page = io_pgtable_leaf_size(&s->pgcfg, level);
	return true;
}

static const char *op_mode(struct iommu *io, const char *name);

static const struct iommu_ops smmuv3_ops = {
	.take = smmuv3_op_take,
	.give_back = smmuv3_op_give_back,
	.attach = op_attach,
	.enable = op_enable,
	.map = op_map,
	.unmap = op_unmap,
	.invalidate = smmuv3_op_invalidate,
	.faults = smmuv3_op_faults,
	.fault_pending = smmuv3_op_fault_pending,
	.iova_to_phys = op_iova_to_phys,
	.as_found = smmuv3_op_as_found,
	.firmware_left = smmuv3_op_firmware_left,
	.mode = op_mode,
};

const char *smmuv3_access_flag(struct smmuv3 *s, uint64_t iova, bool set)
{
	if (!s->io.taken || !s->has_dut || s->dut_mode != IOMMU_TRANSLATE)
		return no_domain(s);
	unsigned level;
	uint64_t *e = io_pgtable_leaf_entry(s->fmt, &s->dut, iova, &level);
	if (!e)
		return iommu_fail(&s->io, IOMMU_ERR_ARGUMENT, "smmuv3: nothing mapped there");
	*e = set ? *e | PTE_AF : *e & ~PTE_AF;
	smmuv3_push(e, 8, s);
	/* kinds[0] is the stage's per-page invalidation */
	return smmuv3_op_invalidate(&s->io, 0, iova & ~(io_pgtable_leaf_size(&s->pgcfg, level) - 1),
				    io_pgtable_leaf_size(&s->pgcfg, level));
}

const char *smmuv3_s2_hole(struct smmuv3 *s, bool make, uint64_t *ipa)
{
	if (!s->io.taken || !s->nested || !s->s2id.top)
		return iommu_fail(&s->io, IOMMU_ERR_STATE, "smmuv3: not translating nested");
	uint64_t top = 1ull << s->s2id_bits, phys, size;
	unsigned perm, level;
	if (make) {
		if (!io_pgtable_walk(&smmuv3_s2_pte_fmt, &s->s2id, top - 1, &phys, &perm, &level))
			return iommu_fail(&s->io, IOMMU_ERR_STATE, "smmuv3: the stage-2 identity has a hole already");
		size = io_pgtable_leaf_size(&s->s2cfg, level);
		*ipa = top - size;
		const char *e = io_pgtable_unmap(&smmuv3_s2_pte_fmt, &s->s2id, *ipa, size);
		if (e)
			return smmuv3_pg_fail(s, &s->s2id, e);
	} else {
		const char *e = io_pgtable_identity(&smmuv3_s2_pte_fmt, &s->s2id, *ipa, top);
		if (e)
			return smmuv3_pg_fail(s, &s->s2id, e);
	}
	return smmuv3_tlbi_vmall(s);
}

const char *smmuv3_granule_name(unsigned bits)
{
	return bits == 12 ? "4k" : bits == 14 ? "16k" : bits == 16 ? "64k" : "?";
}

/* The granule asked for, or the smallest IDR5 offers. */
static const char *choose_granule(struct smmuv3 *s)
{
	static char why[120];
	static const struct {
		unsigned bits;
		uint32_t idr5;
	} gran[] = { { 12, IDR5_GRAN4K }, { 14, IDR5_GRAN16K }, { 16, IDR5_GRAN64K } };
	for (size_t i = 0; i < 3; i++) {
		bool offered = s->idr5 & gran[i].idr5;
		if (s->want_granule_bits == gran[i].bits && !offered) {
			snprintf(why, sizeof(why), "smmuv3: a %s granule was asked for; IDR5 0x%x does not offer it",
				 smmuv3_granule_name(gran[i].bits), s->idr5);
			return iommu_fail(&s->io, IOMMU_ERR_UNSUPPORTED, why);
		}
		if (offered && (!s->want_granule_bits || s->want_granule_bits == gran[i].bits)) {
			s->granule_bits = gran[i].bits;
			return NULL;
		}
	}
	return iommu_fail(&s->io, IOMMU_ERR_UNUSABLE, "smmuv3: IDR5 offers no translation granule");
}

static const char *choose_strtab(struct smmuv3 *s)
{
	bool offered = IDR0_ST_LEVEL(s->idr0) == 1;
	if (s->want_strtab == SMMUV3_STRTAB_2LEVEL && !offered)
		return iommu_fail(&s->io, IOMMU_ERR_UNSUPPORTED,
				  "smmuv3: a 2-level stream table was asked for; IDR0.ST_LEVEL offers only linear");
	s->two_level = s->want_strtab == SMMUV3_STRTAB_2LEVEL ||
		       (s->want_strtab == SMMUV3_STRTAB_AUTO && offered && s->sid_bits > LINEAR_MAX_LOG2);
	/* level-2 tables of 256 STEs (16 KiB), or 64 for a narrow stream id */
	s->split = s->sid_bits > 8 ? 8 : 6;
	if (s->two_level && s->sid_bits <= s->split)
		return iommu_fail(&s->io, IOMMU_ERR_UNSUPPORTED,
				  "smmuv3: the stream id is too narrow for a 2-level table (IDR1.SIDSIZE)");
	/* 2-level: every stream id, in at most 4096 level-1 descriptors;
	 * linear: sized at take-over to the stream ids in use */
	s->strtab_log2 = s->two_level ? (s->sid_bits < s->split + 12 ? s->sid_bits : s->split + 12) : 0;
	return NULL;
}

const char *const smmuv3_mode_names[SMMUV3_NMODES] = { "stage-1", "stage-2", "nested" };

/* The stage-2 walk of an IPA of `ias` bits at granule 2^g. S2SL0 starts
 * at level 0, 1 or 2 at 4K and at 1, 2 or 3 at 16K and 64K (at least two
 * levels here); the start level may resolve up to 4 bits more than a
 * stride in concatenated tables (Arm ARM D8.2: at most 16). `fewest`:
 * concatenate wherever that saves a level of every walk, as a hypervisor
 * builds them; else only where no start level is deep enough without
 * (16K at 48 bits). */
static void s2_shape(unsigned g, unsigned ias, bool fewest, unsigned *levels, unsigned *extra)
{
	unsigned stride = g - 3, most = g == 12 ? 4 : 3;
	unsigned plain = (ias - g + stride - 1) / stride; /* levels without concatenation */
	plain = plain < 2 ? 2 : plain;
	for (unsigned l = 2; l <= most; l++) {
		unsigned below = g + stride * (l - 1);
		bool fits = ias > below && ias - below <= stride + 4;
		if (fits && (fewest || l >= plain || plain > most)) {
			*levels = l;
			*extra = ias - below > stride ? ias - below - stride : 0;
			return;
		}
	}
	*levels = most, *extra = 0; /* wider than four levels reach: not for an IAS of 48 */
}

/* The stage-1 walk of `ias` bits: as deep as it needs, its top table
 * resolving at most a stride (CD.T0SZ: no concatenation at stage 1). */
static unsigned s1_levels(unsigned g, unsigned ias)
{
	return (ias - g + (g - 4)) / (g - 3);
}

/* What mode `m` gives the interface and the tables: the stage of the
 * device's own tables (nested: stage 1's, with a stage-2 identity below),
 * their walk, the leaves, the kinds, the variant every record names. */
static void mode_apply(struct smmuv3 *s, enum smmuv3_mode m)
{
	unsigned g = s->granule_bits;
	/* stage 2's input is an IPA, at most the unit's OAS wide (3.4: IAS
	 * is OAS with stage 2) */
	unsigned ias2 = s->oas_bits < IAS ? s->oas_bits : IAS;
	if (ias2 < S2_IAS_MIN)
		ias2 = S2_IAS_MIN;
	s->mode = m;
	s->stage = m == SMMUV3_MODE_S2 ? 2 : 1;
	s->nested = m == SMMUV3_MODE_NESTED;
	s->fmt = s->stage == 2 ? &smmuv3_s2_pte_fmt : &smmuv3_pte_fmt;
	unsigned ias = s->stage == 2 ? ias2 : IAS, extra = 0;
	if (s->stage == 2)
		s2_shape(g, ias, s->want_s2_fewest, &s->levels, &extra);
	else
		s->levels = s1_levels(g, ias);
	s->io.addr_bits = ias;
	s->io.page_sizes = g == 12 ? 1ull << 12 | 1ull << 21 | 1ull << 30 : 1ull << g | 1ull << (2 * g - 3);
	s->io.mode = smmuv3_mode_names[m];
	snprintf(s->variant, sizeof(s->variant), "%s-%s%s", s->two_level ? "2level" : "linear", smmuv3_granule_name(g),
		 m == SMMUV3_MODE_S2	   ? "-s2"
		 : m == SMMUV3_MODE_NESTED ? "-nested"
					   : "");
	s->io.variant = s->variant;
	smmuv3_kinds_setup(s);
	/* every table, queue and descriptor within IDR5.OAS */
	uint64_t limit = s->oas_bits < 64 ? 1ull << s->oas_bits : 0;
	s->pgcfg = (struct io_pgtable_cfg){ .levels = s->levels,
					    .addr_bits = ias,
					    .page_sizes = s->io.page_sizes,
					    .sync = smmuv3_push,
					    .ctx = s,
					    .granule_bits = g,
					    .limit = limit,
					    .top_extra_bits = extra };
	/* nested: the stage-2 tables under stage 1's, an identity */
	s->s2cfg = s->pgcfg;
	s->s2cfg.addr_bits = ias2;
	s2_shape(g, ias2, s->want_s2_fewest, &s->s2cfg.levels, &s->s2cfg.top_extra_bits);
	s->dut.did = s->alt.did = s->s2id.did = 1;
	s->dut.cfg = s->alt.cfg = &s->pgcfg;
	s->s2id.cfg = &s->s2cfg;
}

/* The mode the settings ask for (auto: stage 1 where IDR0 offers it, else
 * stage 2); whether the unit offers it is the caller's to check. */
static enum smmuv3_mode default_mode(const struct smmuv3 *s)
{
	static const enum smmuv3_mode want[] = { [SMMUV3_STAGE_1] = SMMUV3_MODE_S1,
						 [SMMUV3_STAGE_2] = SMMUV3_MODE_S2,
						 [SMMUV3_STAGE_NESTED] = SMMUV3_MODE_NESTED };
	if (s->want_stage == SMMUV3_STAGE_AUTO)
		return s->offers[SMMUV3_MODE_S1] ? SMMUV3_MODE_S1 : SMMUV3_MODE_S2;
	return want[s->want_stage];
}

static const char *not_offered(struct smmuv3 *s, enum smmuv3_mode m)
{
	static char why[140];
	snprintf(why, sizeof(why), "smmuv3: %s translation was asked for; IDR0 0x%08x does not offer it (%s)",
		 smmuv3_mode_names[m], s->idr0,
		 m == SMMUV3_MODE_S1   ? "S1P clear"
		 : m == SMMUV3_MODE_S2 ? "S2P clear"
				       : "nested needs S1P and S2P");
	return iommu_fail(&s->io, IOMMU_ERR_UNSUPPORTED, why);
}

static const char *op_mode(struct iommu *io, const char *name)
{
	struct smmuv3 *s = container_of(io, struct smmuv3, io);
	enum smmuv3_mode m = name ? SMMUV3_NMODES : default_mode(s);
	for (size_t i = 0; name && i < SMMUV3_NMODES; i++)
		if (strcmp(name, smmuv3_mode_names[i]) == 0)
			m = (enum smmuv3_mode)i;
	if (m == SMMUV3_NMODES)
		return iommu_fail(io, IOMMU_ERR_ARGUMENT, "smmuv3: no such translation mode");
	if (!s->offers[m])
		return not_offered(s, m);
	if (io->taken && m != s->mode)
		return iommu_fail(io, IOMMU_ERR_STATE, "smmuv3: the unit is taken over in another mode");
	if (!io->taken)
		mode_apply(s, m);
	return NULL;
}

/* The modes IDR0 offers with AArch64 tables, and the one the settings ask for. */
static const char *choose_mode(struct smmuv3 *s, enum smmuv3_mode *m)
{
	bool s1 = s->idr0 & IDR0_S1P, s2 = s->idr0 & IDR0_S2P;
	if (!(IDR0_TTF(s->idr0) & 2) || (!s1 && !s2))
		return iommu_fail(&s->io, IOMMU_ERR_UNUSABLE,
				  "smmuv3: neither stage with AArch64 tables (IDR0.S1P, S2P, TTF)");
	s->offers[SMMUV3_MODE_S1] = s1, s->offers[SMMUV3_MODE_S2] = s2, s->offers[SMMUV3_MODE_NESTED] = s1 && s2;
	s->io.nmodes = 0;
	for (size_t i = 0; i < SMMUV3_NMODES; i++)
		if (s->offers[i])
			s->io.modes[s->io.nmodes++] = smmuv3_mode_names[i];
	*m = default_mode(s);
	return s->offers[*m] ? NULL : not_offered(s, *m);
}

const char *smmuv3_init(struct smmuv3 *s, const struct regwin *w, const char *name)
{
	enum smmuv3_strtab_choice st = s->want_strtab;
	unsigned gran = s->want_granule_bits;
	enum smmuv3_stage_choice stage = s->want_stage;
	bool ncfw = s->noncoherent_fw, fewest = s->want_s2_fewest;
	uint32_t gsiv_event = s->gsiv_event, gsiv_gerr = s->gsiv_gerr;
	struct smmuv3_found found = s->found;
	bool same_unit = s->found_valid && w->space == s->w.space && w->base == s->w.base && w->ctx == s->w.ctx;
	bool had_2level = same_unit && s->had_2level;
	memset(s, 0, sizeof(*s));
	s->want_strtab = st, s->want_granule_bits = gran, s->want_stage = stage, s->noncoherent_fw = ncfw;
	s->want_s2_fewest = fewest;
	s->gsiv_event = gsiv_event, s->gsiv_gerr = gsiv_gerr;
	if (same_unit)
		s->found = found, s->found_valid = true, s->had_2level = had_2level;
	s->w = *w;
	s->dut_sid = ~0u;
	s->ndut_sids = 0;
	s->io.ops = &smmuv3_ops;
	s->io.backend = "smmuv3";
	s->io.kinds = s->kinds;
	s->io.model = w->space == REGWIN_MODEL;
	snprintf(s->io.name, sizeof(s->io.name), "%s", name);
	s->idr0 = smmu_r32(s, SMMU_IDR0);
	s->idr1 = smmu_r32(s, SMMU_IDR1);
	s->idr3 = smmu_r32(s, SMMU_IDR3);
	s->idr5 = smmu_r32(s, SMMU_IDR5);
	s->aidr = smmu_r32(s, SMMU_AIDR);
	if (s->idr0 == ~0u || s->idr1 == ~0u || s->idr5 == ~0u)
		return iommu_fail(&s->io, IOMMU_ERR_UNUSABLE, "smmuv3: IDR0 reads all ones (nothing answers)");
	static const unsigned oas[] = { 32, 36, 40, 42, 44, 48, 52, 52 };
	s->oas_bits = oas[IDR5_OAS(s->idr5)];
	s->sid_bits = IDR1_SIDSIZE(s->idr1);
	s->coherent = (s->idr0 & IDR0_COHACC) && !s->noncoherent_fw;
	s->ril = s->idr3 & IDR3_RIL;
	s->asid = 1;
	s->vmid = 1;
	enum smmuv3_mode m;
	const char *e = choose_mode(s, &m);
	if (!e)
		e = choose_strtab(s);
	if (!e)
		e = choose_granule(s);
	if (e)
		return e;
	/* one page of commands (256) and of events (128), or what IDR1 allows */
	s->cmdq_log2 = IDR1_CMDQS(s->idr1) < 8 ? IDR1_CMDQS(s->idr1) : 8;
	s->evtq_log2 = IDR1_EVENTQS(s->idr1) < 7 ? IDR1_EVENTQS(s->idr1) : 7;
	s->io.perm_bits = true;
	s->io.passthrough = true;
	s->io.map_flushes = false;
	mode_apply(s, m);
	return NULL;
}

void smmuv3_add_stream(struct smmuv3 *s, struct pci_addr dev, uint32_t sid)
{
	if (s->nstreams < SMMUV3_MAX_STREAMS)
		s->stream[s->nstreams++] = (struct smmuv3_stream){ dev, sid };
}

void smmuv3_add_rmr(struct smmuv3 *s, uint32_t sid, uint64_t base, uint64_t end)
{
	if (s->nrmr < SMMUV3_MAX_RMR)
		s->rmr[s->nrmr++] = (struct smmuv3_rmr){ base, end, sid };
}
