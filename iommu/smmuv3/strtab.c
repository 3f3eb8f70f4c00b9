/* The stream table (spec 5.2, 3.3.2) and the context descriptor (5.4).
 *
 * Linear: 2^strtab_log2 STEs of 64 bytes. 2-level: level-1 descriptors,
 * each naming a table of 2^split STEs, made when a stream id in it is
 * first needed (a missing one has Span 0: its streams are C_BAD_STREAMID,
 * which no device we know of uses). Bystanders' STEs bypass (Config
 * 0b100, attributes as the device sent them); the device under test's
 * translates at stage 1 (Config 0b101) through one context descriptor
 * (S1CDMax 0, S1Fmt linear) whose TTB0 names its VMSA tables, or at stage
 * 2 (Config 0b110) with S2TTB naming them and the walk described in the
 * STE itself (S2T0SZ, S2SL0, S2TG, S2PS; VMID tags what is cached), or
 * nested (Config 0b111): both, the CD and stage 1's tables addressed by
 * IPA through a stage-2 identity.
 *
 * A live STE is changed as 3.21.3 asks, so that the unit never reads half
 * of one: V cleared and the entry invalidated, the other words written,
 * then word 0 with V set and invalidated again. */
#include <stdlib.h>
#include <string.h>

#include "core/base/platform.h"
#include "driver.h"

void *smmuv3_alloc(struct smmuv3 *s, size_t bytes, struct smmuv3_mem *m)
{
	size_t n = (bytes + PAGE_SIZE - 1) / PAGE_SIZE;
	uint64_t align = PAGE_SIZE;
	while (align < bytes)
		align <<= 1;
	void *p = io_pgtable_pages(n, align, s->pgcfg.limit, &m->raw, &m->pages);
	if (!p)
		return NULL;
	memset(p, 0, n * PAGE_SIZE);
	smmuv3_push(p, n * PAGE_SIZE, s);
	return p;
}

void smmuv3_free(struct smmuv3_mem *m)
{
	if (m->raw)
		platform->free_pages(m->raw, m->pages);
	*m = (struct smmuv3_mem){ 0 };
}

/* Cacheability of what the unit fetches through the STE and CD: write-back
 * inner shareable where it snoops, non-cacheable outer shareable where the
 * driver cleans to the point of coherency instead. */
static unsigned fetch_cache(const struct smmuv3 *s)
{
	return s->coherent ? 1 : 0;
}
static unsigned fetch_sh(const struct smmuv3 *s)
{
	return s->coherent ? 3 : 2;
}

/* A linear table covers every 16-bit requester id (a device under test
 * the IORT did not name has its BDF as stream id) and the stream ids in
 * use above that, within IDR1.SIDSIZE: 4 MiB at most for 16 bits. */
static unsigned linear_log2(const struct smmuv3 *s)
{
	uint32_t top = 0;
	for (size_t i = 0; i < s->nstreams; i++)
		top = s->stream[i].sid > top ? s->stream[i].sid : top;
	for (size_t i = 0; i < s->nrmr; i++)
		top = s->rmr[i].sid > top ? s->rmr[i].sid : top;
	unsigned log2 = 16;
	while (log2 < 32 && top >> log2)
		log2++;
	return log2 < s->sid_bits ? log2 : s->sid_bits;
}

const char *smmuv3_strtab_build(struct smmuv3 *s)
{
	if (!s->two_level)
		s->strtab_log2 = linear_log2(s);
	size_t bytes = s->two_level ? (8ull << (s->strtab_log2 - s->split)) : (64ull << s->strtab_log2);
	s->strtab = smmuv3_alloc(s, bytes, &s->strtab_mem);
	s->cd = smmuv3_alloc(s, 64, &s->cd_mem);
	if (s->two_level) {
		s->nl1 = (size_t)1 << (s->strtab_log2 - s->split);
		s->l2 = calloc(s->nl1, sizeof(*s->l2));
		s->l2_mem = calloc(s->nl1, sizeof(*s->l2_mem));
	}
	if (!s->strtab || !s->cd || (s->two_level && (!s->l2 || !s->l2_mem)))
		return iommu_fail(&s->io, IOMMU_ERR_NOMEM, "smmuv3: no memory for the stream table");
	/* every STE starts invalid (all zero); the bystanders bypass */
	for (size_t i = 0; i < s->nstreams; i++) {
		uint64_t *ste = smmuv3_ste(s, s->stream[i].sid);
		if (!ste)
			continue; /* beyond the table: its DMA is C_BAD_STREAMID, as before we came */
		ste[1] = STE1_SHCFG_INCOMING;
		ste[0] = STE0_V | STE0_CONFIG(STE_CONFIG_BYPASS);
		smmuv3_push(ste, 64, s);
	}
	return NULL;
}

void smmuv3_strtab_free(struct smmuv3 *s)
{
	for (size_t i = 0; s->l2_mem && i < s->nl1; i++)
		smmuv3_free(&s->l2_mem[i]);
	free(s->l2);
	free(s->l2_mem);
	s->l2 = NULL, s->l2_mem = NULL, s->nl1 = 0;
	smmuv3_free(&s->strtab_mem);
	smmuv3_free(&s->cd_mem);
	s->strtab = s->cd = NULL;
}

uint64_t *smmuv3_ste(struct smmuv3 *s, uint32_t sid)
{
	if (!s->strtab || (s->strtab_log2 < 32 && sid >> s->strtab_log2))
		return NULL;
	if (!s->two_level)
		return &s->strtab[(size_t)sid * STE_DWORDS];
	size_t i = sid >> s->split;
	if (!s->l2[i]) {
		s->l2[i] = smmuv3_alloc(s, 64ull << s->split, &s->l2_mem[i]);
		if (!s->l2[i])
			return NULL;
		/* Span: 2^(Span - 1) STEs in the level-2 table (5.1) */
		s->strtab[i] = ((uint64_t)(uintptr_t)s->l2[i] & L1STD_L2PTR) | L1STD_SPAN(s->split + 1);
		smmuv3_push(&s->strtab[i], 8, s);
	}
	return &s->l2[i][(size_t)(sid & ((1u << s->split) - 1)) * STE_DWORDS];
}

static const char *cfgi_ste(struct smmuv3 *s, uint32_t sid)
{
	return smmuv3_cfgi_ste(s, sid);
}

/* The STE rewritten to `w` as 3.21.3 asks (see the top of the file). */
static const char *ste_replace(struct smmuv3 *s, uint32_t sid, const uint64_t w[STE_DWORDS])
{
	uint64_t *ste = smmuv3_ste(s, sid);
	if (!ste)
		return iommu_fail(&s->io, s->two_level ? IOMMU_ERR_NOMEM : IOMMU_ERR_ARGUMENT,
				  s->two_level ? "smmuv3: no memory for a level-2 stream table"
					       : "smmuv3: the stream id is beyond the stream table");
	const char *e;
	if (ste[0] & STE0_V) {
		ste[0] &= ~STE0_V;
		smmuv3_push(ste, 8, s);
		if ((e = cfgi_ste(s, sid)) != NULL)
			return e;
	}
	for (unsigned i = 1; i < STE_DWORDS; i++)
		ste[i] = w[i];
	smmuv3_push(ste, 64, s);
	ste[0] = w[0];
	smmuv3_push(ste, 8, s);
	return cfgi_ste(s, sid);
}

const char *smmuv3_ste_bypass(struct smmuv3 *s, uint32_t sid)
{
	const uint64_t w[STE_DWORDS] = { STE0_V | STE0_CONFIG(STE_CONFIG_BYPASS), STE1_SHCFG_INCOMING };
	return ste_replace(s, sid, w);
}

/* TG0 (5.4.1): 0 for 4K, 1 for 64K, 2 for 16K; S2TG alike (5.2) */
static unsigned tg0(unsigned granule_bits)
{
	return granule_bits == 16 ? 1 : granule_bits == 14 ? 2 : 0;
}

/* S2SL0 (5.2, Arm ARM D8.2): the start level of a walk `levels` deep.
 * 4K: 0b00 level 2, 0b01 level 1, 0b10 level 0; 16K and 64K: 0b00 level
 * 3, 0b01 level 2, 0b10 level 1. The start level's tables may be
 * concatenated (smmuv3.c chooses the walk so). */
static unsigned s2sl0(unsigned granule_bits, unsigned levels)
{
	unsigned start = 4 - levels;
	return (granule_bits == 12 ? 2 : 3) - start;
}

/* The stage-2 words of an STE (doublewords 2 and 3) for the walk `c`
 * from tables `top`: S2PS is IDR5.OAS (the tables, and what they map, lie
 * within it), faults recorded (S2R), the VMID tagging what is cached. */
static void ste_s2_fields(const struct smmuv3 *s, const struct io_pgtable_cfg *c, const uint64_t *top,
			  uint64_t w[STE_DWORDS])
{
	unsigned fc = fetch_cache(s);
	w[2] = STE2_S2VMID(s->vmid) | STE2_S2T0SZ(64 - c->addr_bits) | STE2_S2SL0(s2sl0(c->granule_bits, c->levels)) |
	       STE2_S2IR0(fc) | STE2_S2OR0(fc) | STE2_S2SH0(fetch_sh(s)) | STE2_S2TG(tg0(c->granule_bits)) |
	       STE2_S2PS(IDR5_OAS(s->idr5)) | STE2_S2AA64 | STE2_S2R;
	w[3] = (uint64_t)(uintptr_t)top & STE3_S2TTB;
}

const char *smmuv3_ste_translate(struct smmuv3 *s, uint32_t sid)
{
	uint64_t w[STE_DWORDS] = { 0 };
	w[1] = STE1_SHCFG_INCOMING;
	if (s->stage == 2) {
		w[0] = STE0_V | STE0_CONFIG(STE_CONFIG_S2);
		ste_s2_fields(s, &s->pgcfg, s->dut.top, w);
		return ste_replace(s, sid, w);
	}
	/* stage 1 through the CD; nested, the CD's address an IPA (the
	 * identity below makes it the same number) */
	w[0] = STE0_V | STE0_CONFIG(s->nested ? STE_CONFIG_NESTED : STE_CONFIG_S1) | STE0_S1FMT_LINEAR |
	       STE0_S1CDMAX(0) | ((uint64_t)(uintptr_t)s->cd & STE0_S1CONTEXTPTR);
	w[1] = STE1_S1CIR(fetch_cache(s)) | STE1_S1COR(fetch_cache(s)) | STE1_S1CSH(fetch_sh(s));
	if (s->nested)
		ste_s2_fields(s, &s->s2cfg, s->s2id.top, w);
	return ste_replace(s, sid, w);
}

void smmuv3_cd_write(struct smmuv3 *s, const uint64_t *top)
{
	uint64_t *cd = s->cd;
	unsigned c = fetch_cache(s), sh = fetch_sh(s);
	/* word 0 last, with V: the unit never sees a half-written descriptor */
	cd[0] &= ~CD0_V;
	smmuv3_push(cd, 8, s);
	cd[1] = (uint64_t)(uintptr_t)top & CD1_TTB0;
	cd[2] = 0;
	cd[3] = MAIR_ATTR0_NORMAL_WB;
	smmuv3_push(cd, 64, s);
	cd[0] = CD0_T0SZ(64 - s->io.addr_bits) | CD0_TG0(tg0(s->granule_bits)) | CD0_IR0(c) | CD0_OR0(c) | CD0_SH0(sh) |
		CD0_EPD1 | CD0_V | CD0_IPS(IDR5_OAS(s->idr5)) | CD0_AA64 | CD0_R | CD0_A | CD0_ASID(s->asid);
	smmuv3_push(cd, 8, s);
}

/* Where the device's STE or CD names its tables, now `top`. At stage 2
 * only S2TTB's doubleword changes: a single 64-bit write the unit sees
 * whole (3.21.3 allows it without breaking V). */
static void ttb_point(struct smmuv3 *s, const uint64_t *top)
{
	if (s->stage == 1) {
		smmuv3_cd_write(s, top);
		return;
	}
	for (size_t i = 0; i < s->ndut_sids; i++) {
		uint64_t *ste = smmuv3_ste(s, s->dut_sids[i]);
		if (!ste)
			continue; /* the STE exists: it was made at attach */
		ste[3] = (uint64_t)(uintptr_t)top & STE3_S2TTB;
		smmuv3_push(&ste[3], 8, s);
	}
}

const char *smmuv3_ttb_fork(struct smmuv3 *s, uint64_t iova, uint64_t phys)
{
	if (!s->io.taken || !s->has_dut || s->dut_mode != IOMMU_TRANSLATE)
		return iommu_fail(&s->io, IOMMU_ERR_STATE, "smmuv3: no device under test translating");
	const char *e = smmuv3_pg_fail(s, &s->alt, io_pgtable_fork(s->fmt, &s->alt, &s->dut, iova, phys));
	if (e)
		return e;
	s->alt_live = true;
	ttb_point(s, s->alt.top); /* and nothing invalidated: that is the probe */
	return NULL;
}

const char *smmuv3_ttb_unfork(struct smmuv3 *s)
{
	if (!s->alt_live)
		return NULL;
	ttb_point(s, s->dut.top);
	const char *e = smmuv3_cfgi_ttb(s);
	if (!e)
		e = smmuv3_tlbi_domain(s);
	if (!e) { /* the unit no longer reads the fork */
		io_pgtable_free(&s->alt);
		s->alt_live = false;
	}
	return e;
}
