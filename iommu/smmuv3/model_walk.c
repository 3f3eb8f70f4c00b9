/* The SMMUv3 model's translation (see smmuv3_model.h): the stream table,
 * linear or 2-level (IHI 0070 3.3, 5.1), the STE (5.2) and the CD (5.4)
 * through a configuration cache, the VMSAv8-64 stage-1 walk (Arm ARM D8)
 * through a TLB tagged by ASID, and the events a refused request records
 * (7.3). The caches keep what they hold until the command that covers it
 * (smmuv3_model.c runs the commands).
 * Its own reading of the spec, on purpose: never include the SMMUv3
 * driver's register header here (smmuv3_model.h says why). */
#include "model.h"

#include <stddef.h>

#define SMMUEN (1u << 0)
#define GBPA_ABORT (1u << 20)
#define CR2_RECINVSID (1u << 1)
#define IDR0_ASID16 (1u << 12)
#define IDR1_SIDSIZE(v) ((v)&0x3f)

/* STE (5.2) */
#define STE_V (1ull << 0)
#define STE_CONFIG(s) ((unsigned)((s) >> 1) & 7)
#define STE_S1CDMAX(s) ((unsigned)((s) >> 59) & 0x1f)
#define STE1_S1STALLD (1ull << 27)
#define STE1_STRW(s) ((unsigned)((s) >> 30) & 3)
#define STE1_PRIVCFG(s) ((unsigned)((s) >> 48) & 3)
/* stage 2 (5.2): doubleword 2 from bit 0, doubleword 3 the table */
#define STE2_S2VMID(s) ((uint16_t)(s))
#define STE2_S2T0SZ(s) ((unsigned)((s) >> 32) & 0x3f)
#define STE2_S2SL0(s) ((unsigned)((s) >> 38) & 3)
#define STE2_S2TG(s) ((unsigned)((s) >> 46) & 3)
#define STE2_S2PS(s) ((unsigned)((s) >> 48) & 7)
#define STE2_S2AA64 (1ull << 51)
#define STE2_S2ENDI (1ull << 52)
#define STE2_S2AFFD (1ull << 53)
#define STE2_S2HD (1ull << 55)
#define STE2_S2HA (1ull << 56)
#define STE2_S2S (1ull << 57)
#define STE2_S2R (1ull << 58)
#define STE3_S2TTB 0x000ffffffffffff0ull
enum { CONFIG_BYPASS = 4, CONFIG_S1 = 5, CONFIG_S2 = 6, CONFIG_NESTED = 7 };
#define IDR0_S2P (1u << 0)
#define IDR0_S1P (1u << 1)
#define IDR0_VMID16 (1u << 18)

/* CD (5.4), doubleword 0 */
#define CD_TSZ(d, half) ((unsigned)((d) >> ((half) ? 16 : 0)) & 0x3f)
#define CD_TG(d, half) ((unsigned)((d) >> ((half) ? 22 : 6)) & 3)
#define CD_SH0(d) ((unsigned)((d) >> 12) & 3)
#define CD_EPD(half) (1ull << ((half) ? 30 : 14))
#define CD_ENDI (1ull << 15)
#define CD_V (1ull << 31)
#define CD_IPS(d) ((unsigned)((d) >> 32) & 7)
#define CD_AFFD (1ull << 35)
#define CD_TBI(half) (1ull << ((half) ? 39 : 38))
#define CD_PAN (1ull << 40)
#define CD_AA64 (1ull << 41)
#define CD_HD (1ull << 42)
#define CD_HA (1ull << 43)
#define CD_S (1ull << 44)
#define CD_R (1ull << 45)
#define CD_A (1ull << 46)
#define CD_ASID(d) ((uint16_t)((d) >> 48))
#define CD_TTB_MASK 0x000ffffffffffff0ull /* TTB0/TTB1 [51:4] */

/* Translation table descriptors (Arm ARM D8.3) */
#define DESC_VALID (1ull << 0)
#define DESC_TABLE (1ull << 1) /* at levels 0-2: a table; at level 3: a page (must be set) */
#define DESC_AP1 (1ull << 6)   /* unprivileged access */
#define DESC_AP2 (1ull << 7)   /* read-only */
#define DESC_AF (1ull << 10)
#define DESC_NG (1ull << 11)
#define DESC_OA 0x0000fffffffff000ull /* OA [47:12] (no 52-bit OA at OAS 44) */
#define DESC_S2AP_R (1ull << 6)	      /* stage 2: S2AP[0] reads, S2AP[1] writes */
#define DESC_S2AP_W (1ull << 7)
#define APTABLE_NO_EL0 (1ull << 61)
#define APTABLE_RO (1ull << 62)

/* Event record fields (7.3): the second doubleword's PnU, InD and RnW. */
#define EV_PNU (1ull << 33)
#define EV_RNW (1ull << 35)
#define EV_S2 (1ull << 39)
/* CLASS (7.3.12): what the stage-2 fault was met fetching */
#define EV_CLASS_CD (0ull << 40) /* the CD, addressed by IPA */
#define EV_CLASS_TT (1ull << 40) /* a stage-1 table descriptor, addressed by IPA */
#define EV_CLASS_IN (2ull << 40) /* the transaction's own output of stage 1 (its input without stage 1) */
/* descend(): a stage-2 fault met on the way, already recorded */
#define REPORTED ((enum smmuv3m_event)0x100)

struct request {
	uint32_t sid;
	uint64_t iova;
	bool write, priv;
};

static uint64_t pa_mask(unsigned bits)
{
	return bits >= 64 ? ~0ull : (1ull << bits) - 1;
}

static bool event(struct smmuv3_model *m, enum smmuv3m_event type, const struct request *r, uint64_t addr2)
{
	uint64_t rec[4] = { (uint64_t)type | (uint64_t)r->sid << 32, 0, 0, addr2 };
	if (type >= SMMUV3M_F_WALK_EABT) { /* records of a transaction: its address and direction */
		rec[1] = (r->write ? 0 : EV_RNW) | (r->priv ? EV_PNU : 0);
		rec[2] = r->iova;
	}
	smmuv3m_record(m, rec);
	return false;
}

/* A translation-related fault (5.5): recorded only when the CD says R. */
static bool fault(struct smmuv3_model *m, const uint64_t *cd, enum smmuv3m_event type, const struct request *r)
{
	if (cd[0] & CD_R)
		event(m, type, r, 0);
	return false;
}

/* A StreamID that reaches no STE: C_BAD_STREAMID, recorded only with
 * CR2.RECINVSID (5.1). */
static bool bad_streamid(struct smmuv3_model *m, const struct request *r)
{
	if (m->cr2 & CR2_RECINVSID)
		event(m, SMMUV3M_C_BAD_STREAMID, r, 0);
	return false;
}

/* ---- the caches' invalidations ------------------------------------------- */

void smmuv3m_drop_ste(struct smmuv3_model *m, uint64_t first, uint64_t n, bool l1)
{
	for (unsigned i = 0; i < SMMUV3M_CFG_CACHE; i++)
		if (m->cfg[i].sid >= first && m->cfg[i].sid - first < n)
			m->cfg[i].valid = false;
	unsigned split = (m->strtab_base_cfg >> 6) & 0x1f;
	for (unsigned i = 0; l1 && i < SMMUV3M_L1_CACHE; i++) {
		uint64_t lo = (uint64_t)m->l1[i].index << split, span = 1ull << split;
		if (lo < first + n && first < lo + span)
			m->l1[i].valid = false;
	}
}

void smmuv3m_drop_cd(struct smmuv3_model *m, uint32_t sid)
{
	for (unsigned i = 0; i < SMMUV3M_CFG_CACHE; i++)
		if (m->cfg[i].sid == sid)
			m->cfg[i].cd_cached = false;
}

void smmuv3m_drop_tlb(struct smmuv3_model *m, const struct smmuv3m_scope *s)
{
	uint64_t last = s->va + (s->size - 1);
	for (unsigned i = 0; i < SMMUV3M_TLB; i++) {
		struct smmuv3m_tlb *t = &m->tlb[i];
		bool vmid_ok = s->any_vmid || t->vmid == s->vmid, asid_ok;
		if (t->stage2) /* only the commands that name stage 2 reach it (4.4) */
			asid_ok = s->s2 && vmid_ok;
		else /* stage 1's, within the VMID they were made under */
			asid_ok =
			    !s->s2_only && vmid_ok && (s->any_asid || (t->global ? s->global_too : t->asid == s->asid));
		bool kind_ok = (!s->granule || s->granule == t->granule) && (!s->level || s->level == t->level);
		if (asid_ok && kind_ok && t->va <= last && t->va + (t->size - 1) >= s->va)
			t->valid = false;
	}
}

/* ---- the stream table (3.3, 5.1) ---------------------------------------------- */

/* The STE's address for r->sid, through the L1STD cache; 0 after
 * recording why there is none (*fetch: the descriptor that could not be
 * read, for F_STE_FETCH). */
static uint64_t ste_address(struct smmuv3_model *m, const struct request *r)
{
	uint32_t cfg = m->strtab_base_cfg;
	unsigned log2size = cfg & 0x3f, sidsize = IDR1_SIDSIZE(m->kind->idr1), fmt = (cfg >> 16) & 3,
		 split = (cfg >> 6) & 0x1f;
	unsigned bits = log2size < sidsize ? log2size : sidsize;
	if (bits < 32 && (r->sid >> bits))
		return bad_streamid(m, r), 0;
	uint64_t base = m->strtab_base & pa_mask(smmuv3m_oas_bits(m->kind->idr5 & 7)) & ~0x3full;
	if (fmt == 0) {
		base &= ~((1ull << (log2size < 57 ? log2size + 6 : 63)) - 1); /* aligned to the table's size */
		if (!base)
			return event(m, SMMUV3M_F_STE_FETCH, r, 64ull * r->sid), 0;
		return base + 64ull * r->sid;
	}
	/* 2-level: the L1 table aligned to its size, at least 64 bytes */
	unsigned l1bits = log2size > split ? log2size - split : 0;
	base &= ~((1ull << (l1bits + 3 > 6 ? l1bits + 3 : 6)) - 1);
	uint32_t index = r->sid >> split;
	uint64_t desc = 0;
	bool cached = false;
	for (unsigned i = 0; i < SMMUV3M_L1_CACHE && !cached; i++)
		if (m->l1[i].valid && m->l1[i].index == index)
			desc = m->l1[i].desc, cached = true;
	if (!cached) { /* cached valid or not, as 3.21 permits */
		if (!base)
			return event(m, SMMUV3M_F_STE_FETCH, r, 8ull * index), 0;
		desc = ((const volatile uint64_t *)(uintptr_t)base)[index];
		m->l1[m->l1_next++ % SMMUV3M_L1_CACHE] = (struct smmuv3m_l1){ true, index, desc };
	}
	unsigned span = desc & 0x1f;
	if (span == 0 || span > 11 || span > split + 1)
		return bad_streamid(m, r), 0;
	uint32_t l2index = r->sid & ((1u << split) - 1);
	if (l2index >= 1u << (span - 1))
		return bad_streamid(m, r), 0;
	uint64_t l2 = desc & pa_mask(smmuv3m_oas_bits(m->kind->idr5 & 7)) & ~((64ull << (span - 1)) - 1);
	if (!l2)
		return event(m, SMMUV3M_F_STE_FETCH, r, 64ull * l2index), 0;
	return l2 + 64ull * l2index;
}

/* The stream's STE: from the cache, or read now and cached whether valid
 * or not (3.21 permits it: a V=0 to V=1 change needs its CFGI_STE). */
static struct smmuv3m_cfg *cached_ste(struct smmuv3_model *m, const struct request *r)
{
	for (unsigned i = 0; i < SMMUV3M_CFG_CACHE; i++)
		if (m->cfg[i].valid && m->cfg[i].sid == r->sid)
			return &m->cfg[i];
	uint64_t at = ste_address(m, r);
	if (!at)
		return NULL;
	m->cfg_fetches++;
	struct smmuv3m_cfg *c = &m->cfg[m->cfg_next++ % SMMUV3M_CFG_CACHE];
	c->valid = true;
	c->cd_cached = false;
	c->sid = r->sid;
	for (unsigned i = 0; i < 8; i++)
		c->ste[i] = ((const volatile uint64_t *)(uintptr_t)at)[i];
	return c;
}

static bool s2_legal(const struct smmuv3_model *m, const uint64_t *ste);

/* The stream's configuration; NULL after recording why there is none. */
static struct smmuv3m_cfg *stream_config(struct smmuv3_model *m, const struct request *r)
{
	struct smmuv3m_cfg *c = cached_ste(m, r);
	if (!c)
		return NULL;
	unsigned config = STE_CONFIG(c->ste[0]);
	/* 0b0xx abort (the reserved ones behave as 0b000); 0b101 needs stage
	 * 1, 0b110 stage 2, 0b111 (nested) both */
	uint32_t idr0 = m->kind->idr0;
	bool s1 = config == CONFIG_S1 || config == CONFIG_NESTED, s2 = config == CONFIG_S2 || config == CONFIG_NESTED;
	bool legal = (c->ste[0] & STE_V) && (!s1 || (idr0 & IDR0_S1P)) && (!s2 || (idr0 & IDR0_S2P));
	if (legal && s1) /* no SSIDs, no stall, no EL2 or EL3 stream worlds */
		legal = !STE_S1CDMAX(c->ste[0]) && !(c->ste[1] & STE1_S1STALLD) && !STE1_STRW(c->ste[1]);
	if (legal && s2)
		legal = s2_legal(m, c->ste) && !STE1_STRW(c->ste[1]);
	if (!legal)
		return event(m, SMMUV3M_C_BAD_STE, r, 0), NULL;
	return c;
}

/* Nested translation (STE.Config 0b111): the stage 2 that what stage 1
 * fetches (the CD, its table descriptors) and what it outputs go through. */
struct nest {
	struct smmuv3_model *m;
	const uint64_t *ste;
	const struct request *r; /* the transaction */
};

/* An IPA through the nest's stage 2 (`cls`: what it is, for the record;
 * `write`: the access made there). False after recording the fault. */
static bool s2_translate(const struct nest *n, uint64_t ipa, uint64_t cls, bool write, uint64_t *pa);

/* ---- the context descriptor (5.4) ------------------------------------------------ */

/* The granule's shift for a TGx encoding: TG0 00 4K, 01 64K, 10 16K; TG1
 * 01 16K, 10 4K, 11 64K; 0 when reserved or not offered by IDR5. */
static unsigned granule(const struct smmuv3_model *m, unsigned tg, bool half1)
{
	static const unsigned tg0[4] = { 12, 16, 14, 0 }, tg1[4] = { 0, 14, 12, 16 };
	unsigned g = half1 ? tg1[tg] : tg0[tg];
	unsigned offered = (m->kind->idr5 >> 4) & 7; /* GRAN4K, GRAN16K, GRAN64K */
	bool ok = (g == 12 && (offered & 1)) || (g == 14 && (offered & 2)) || (g == 16 && (offered & 4));
	return ok ? g : 0;
}

static bool half_legal(const struct smmuv3_model *m, uint64_t d0, bool half1)
{
	if (d0 & CD_EPD(half1))
		return true; /* walks of this half disabled: its fields unused */
	unsigned tsz = CD_TSZ(d0, half1);
	return tsz >= 16 && tsz <= 39 && granule(m, CD_TG(d0, half1), half1);
}

/* The CD of the stream's STE, from the cache or read now (nested: at an
 * IPA, through stage 2) and cached whether valid or not (3.21); NULL
 * after recording why it cannot serve. */
static const uint64_t *context(struct smmuv3_model *m, struct smmuv3m_cfg *c, const struct request *r,
			       const struct nest *nest)
{
	if (!c->cd_cached) {
		uint64_t at = c->ste[0] & pa_mask(smmuv3m_oas_bits(m->kind->idr5 & 7)) & ~0x3full;
		if (!at)
			return event(m, SMMUV3M_F_CD_FETCH, r, 0), NULL;
		if (nest && !s2_translate(nest, at, EV_CLASS_CD, false, &at))
			return NULL;
		for (unsigned i = 0; i < 8; i++)
			c->cd[i] = ((const volatile uint64_t *)(uintptr_t)at)[i];
		c->cd_cached = true;
	}
	uint64_t d0 = c->cd[0];
	bool legal = (d0 & CD_V) && (d0 & CD_AA64) && (d0 & CD_A) && !(d0 & (CD_ENDI | CD_S | CD_HA | CD_HD)) &&
		     CD_SH0(d0) != 1 && half_legal(m, d0, false) && half_legal(m, d0, true);
	if (!(m->kind->idr0 & IDR0_ASID16) && (CD_ASID(d0) >> 8))
		legal = false;
	if (!legal)
		return event(m, SMMUV3M_C_BAD_CD, r, 0), NULL;
	return c->cd;
}

/* ---- the walk (Arm ARM D8), one for both stages ------------------------------ */

static bool permitted(const struct smmuv3m_tlb *t, const uint64_t *cd, const struct request *r)
{
	if (r->write ? !t->write : t->noread)
		return false;
	if (t->stage2) /* S2AP alone: a stage-2 leaf knows no privilege */
		return true;
	if (!r->priv)
		return t->unpriv;
	return !(t->unpriv && (cd[0] & CD_PAN)); /* PAN: EL1 may not touch EL0's pages */
}

/* Blocks a granule allows without 52-bit addresses: 4K at levels 1 and 2,
 * 16K and 64K at level 2. */
static bool block_allowed(unsigned g, unsigned level)
{
	return level == 2 || (g == 12 && level == 1);
}

/* Where a walk starts and what it may reach. */
struct walk_from {
	uint64_t table;		 /* TTB: the start table (concatenated tables at stage 2) */
	unsigned g;		 /* granule shift */
	unsigned level;		 /* the start level */
	unsigned inbits;	 /* input address bits (64 - TxSZ) */
	unsigned pabits;	 /* output address bits (IPS or S2PS, at most OAS) */
	const struct nest *nest; /* nested stage 1: the tables are at IPAs */
};

/* The leaf a walk reached. */
struct walk_leaf {
	uint64_t desc, aptable; /* the leaf, and the APTable bits of the tables above it */
	unsigned level, shift;	/* its level, and log2 of the bytes it maps */
};

/* The descriptors from `w` down to the leaf for `in`: 0, or the fault
 * (F_WALK_EABT with *at the descriptor's address). The start table
 * resolves what the levels below leave of the input address: more than a
 * stride when stage-2 tables are concatenated (D8.2.x: up to 16 tables,
 * the index's top bits choose the table). */
static enum smmuv3m_event descend(const struct walk_from *w, uint64_t in, struct walk_leaf *out, uint64_t *at)
{
	unsigned g = w->g, stride = g - 3;
	uint64_t table = w->table;
	if (table & ~pa_mask(w->pabits))
		return SMMUV3M_F_ADDR_SIZE;
	for (unsigned level = w->level;; level++) {
		unsigned shift = g + stride * (3 - level);
		unsigned bits = level == w->level ? w->inbits - shift : stride;
		table &= ~pa_mask(bits + 3 > 6 ? bits + 3 : 6); /* a table is aligned to its size */
		*at = table + 8 * ((in >> shift) & pa_mask(bits));
		if (!table)
			return SMMUV3M_F_WALK_EABT;
		uint64_t pa = *at;
		if (w->nest && !s2_translate(w->nest, *at, EV_CLASS_TT, false, &pa))
			return REPORTED;
		uint64_t desc = *(const volatile uint64_t *)(uintptr_t)pa;
		if (!(desc & DESC_VALID))
			return SMMUV3M_F_TRANSLATION;
		bool is_table = level < 3 && (desc & DESC_TABLE);
		if (!is_table && (level == 3 ? !(desc & DESC_TABLE) : !block_allowed(g, level)))
			return SMMUV3M_F_TRANSLATION; /* reserved encodings */
		if ((desc & DESC_OA & ~pa_mask(w->pabits)))
			return SMMUV3M_F_ADDR_SIZE;
		if (is_table) {
			out->aptable |= desc & (APTABLE_NO_EL0 | APTABLE_RO);
			table = desc & DESC_OA & ~pa_mask(g);
			continue;
		}
		out->desc = desc, out->level = level, out->shift = shift;
		return 0;
	}
}

/* The TLB entry serving `in` at the stage `tag` names, its tags matching
 * (stage 1's within their VMID). */
static const struct smmuv3m_tlb *tlb_find(struct smmuv3_model *m, const struct smmuv3m_tlb *tag, uint64_t in)
{
	bool stage2 = tag->stage2;
	for (unsigned i = 0; i < SMMUV3M_TLB; i++) {
		const struct smmuv3m_tlb *t = &m->tlb[i];
		bool tag_ok = t->vmid == tag->vmid && (stage2 || t->global || t->asid == tag->asid);
		if (t->valid && t->stage2 == stage2 && tag_ok && in - t->va < t->size) {
			m->tlb_hits++;
			return t;
		}
	}
	return NULL;
}

/* The TLB entry for a leaf: `tag` says the stage and its ASID or VMID;
 * stage 1 takes AP and APTable, stage 2 S2AP. */
static struct smmuv3m_tlb leaf_entry(const struct smmuv3m_tlb *tag, unsigned g, const struct walk_leaf *l, uint64_t in)
{
	uint64_t size = 1ull << l->shift, d = l->desc;
	struct smmuv3m_tlb t = *tag;
	t.valid = true;
	t.granule = (uint8_t)g, t.level = (uint8_t)l->level;
	t.va = in & ~(size - 1), t.size = size, t.pa = d & DESC_OA & ~(size - 1);
	if (t.stage2) {
		t.write = d & DESC_S2AP_W;
		t.noread = !(d & DESC_S2AP_R);
	} else {
		t.global = !(d & DESC_NG);
		t.write = !(d & DESC_AP2) && !(l->aptable & APTABLE_RO);
		t.unpriv = (d & DESC_AP1) && !(l->aptable & APTABLE_NO_EL0);
	}
	return t;
}

/* One stage's translation of r->iova: the TLB, else the walk from `from`
 * with its leaf cached (a fault is not). 0 with *phys, or the fault
 * (F_WALK_EABT with *at the descriptor that could not be read). */
static enum smmuv3m_event lookup_or_walk(struct smmuv3_model *m, const struct walk_from *from,
					 const struct smmuv3m_tlb *tag, bool affd, const uint64_t *cd,
					 const struct request *r, uint64_t *phys, uint64_t *at)
{
	uint64_t in = r->iova;
	const struct smmuv3m_tlb *hit = tlb_find(m, tag, in);
	struct smmuv3m_tlb t;
	if (hit) {
		t = *hit;
	} else {
		m->walks++;
		struct walk_leaf l = { 0 };
		enum smmuv3m_event f = descend(from, in, &l, at);
		if (f)
			return f;
		if (!(l.desc & DESC_AF) && !affd)
			return SMMUV3M_F_ACCESS;
		t = leaf_entry(tag, from->g, &l, in);
	}
	if (!permitted(&t, cd, r))
		return SMMUV3M_F_PERMISSION;
	if (!hit)
		m->tlb[m->tlb_next++ % SMMUV3M_TLB] = t;
	*phys = t.pa + (in - t.va);
	return 0;
}

/* ---- stage 1 --------------------------------------------------------------------- */

/* Stage 1 through the CD; nested, its tables and its output through the
 * STE's stage 2. Its leaves are tagged with the ASID and, where the unit
 * has stage 2, the STE's S2VMID. */
static bool walk(struct smmuv3_model *m, const uint64_t *ste, const uint64_t *cd, const struct request *r,
		 const struct nest *nest, uint64_t *phys)
{
	uint64_t d0 = cd[0], va = r->iova;
	bool half1 = (va >> 55) & 1;
	unsigned tsz = CD_TSZ(d0, half1), vabits = 64 - tsz;
	/* the bits above the region, up to 63 (55 with TBI), must all equal bit 55 */
	uint64_t above = ((d0 & CD_TBI(half1)) ? pa_mask(56) : ~0ull) & ~pa_mask(vabits);
	uint64_t upper = va & above, want = half1 ? above : 0;
	if ((d0 & CD_EPD(half1)) || upper != want)
		return fault(m, cd, SMMUV3M_F_TRANSLATION, r);
	unsigned g = granule(m, CD_TG(d0, half1), half1), stride = g - 3;
	unsigned pabits = smmuv3m_oas_bits(CD_IPS(d0)), oas = smmuv3m_oas_bits(m->kind->idr5 & 7);
	struct walk_from from = { cd[half1 ? 2 : 1] & CD_TTB_MASK, g,	4 - (vabits - g + stride - 1) / stride, vabits,
				  pabits < oas ? pabits : oas,	   nest };
	const struct smmuv3m_tlb tag = { .asid = CD_ASID(d0),
					 .vmid = (m->kind->idr0 & IDR0_S2P) ? STE2_S2VMID(ste[2]) : 0 };
	uint64_t at, ipa;
	enum smmuv3m_event f = lookup_or_walk(m, &from, &tag, d0 & CD_AFFD, cd, r, &ipa, &at);
	if (f == REPORTED)
		return false;
	if (f == SMMUV3M_F_WALK_EABT)
		return event(m, f, r, at);
	if (f)
		return fault(m, cd, f, r);
	if (!nest) {
		*phys = ipa;
		return true;
	}
	return s2_translate(nest, ipa, EV_CLASS_IN, r->write, phys);
}

/* ---- stage 2 (STE.Config 0b110) --------------------------------------------------- */

/* The stage-2 start level S2SL0 names (5.2, Arm ARM D8.2): 4K 0b00 level 2,
 * 0b01 level 1, 0b10 level 0; 16K and 64K 0b00 level 3, 0b01 level 2,
 * 0b10 level 1; 0b11 reserved (4 for "none"). */
static unsigned s2_start(unsigned g, unsigned sl0)
{
	if (sl0 == 3)
		return 4;
	return (g == 12 ? 2 : 3) - sl0;
}

/* A stage-2 configuration the unit can walk (else the STE is ILLEGAL):
 * AArch64 little-endian tables without HTTU or stall, an offered granule,
 * an IPA size within 25 bits and OAS (3.4: the unit's IAS is its OAS here),
 * and a start level whose table resolves what remains of the IPA in at
 * most 16 concatenated tables (Arm ARM D8.2: at most 4 more bits than a
 * level's stride, at least one). */
static bool s2_legal(const struct smmuv3_model *m, const uint64_t *ste)
{
	uint64_t d2 = ste[2];
	unsigned g = granule(m, STE2_S2TG(d2), false), tsz = STE2_S2T0SZ(d2);
	unsigned ia = 64 - tsz, oas = smmuv3m_oas_bits(m->kind->idr5 & 7);
	if (!(d2 & STE2_S2AA64) || (d2 & (STE2_S2ENDI | STE2_S2HA | STE2_S2HD | STE2_S2S)) || !g || tsz > 39 ||
	    ia > oas)
		return false;
	if (!(m->kind->idr0 & IDR0_VMID16) && (STE2_S2VMID(d2) >> 8))
		return false;
	unsigned start = s2_start(g, STE2_S2SL0(d2));
	if (start > 3)
		return false;
	unsigned shift = g + (g - 3) * (3 - start);
	return ia > shift && ia - shift <= g - 3 + 4;
}

/* A stage-2 fault (7.3.12): recorded only when STE.S2R says so, with S2
 * set, CLASS saying what was fetched (CD, TT, or IN: the transaction's
 * own address), the transaction's input address and the IPA. */
static bool s2_fault(struct smmuv3_model *m, const uint64_t *ste, enum smmuv3m_event type, const struct request *r,
		     uint64_t ipa, uint64_t cls)
{
	if (!(ste[2] & STE2_S2R))
		return false;
	uint64_t rec[4] = { (uint64_t)type | (uint64_t)r->sid << 32, (r->write ? 0 : EV_RNW) | EV_S2 | cls, r->iova,
			    ipa & 0x000ffffffffffff8ull };
	smmuv3m_record(m, rec);
	return false;
}

static bool s2_translate(const struct nest *n, uint64_t ipa, uint64_t cls, bool write, uint64_t *pa)
{
	struct smmuv3_model *m = n->m;
	uint64_t d2 = n->ste[2];
	unsigned ia = 64 - STE2_S2T0SZ(d2);
	if (ipa >> ia)
		return s2_fault(m, n->ste, SMMUV3M_F_TRANSLATION, n->r, ipa, cls); /* beyond the IPA size */
	unsigned g = granule(m, STE2_S2TG(d2), false);
	unsigned pabits = smmuv3m_oas_bits(STE2_S2PS(d2)), oas = smmuv3m_oas_bits(m->kind->idr5 & 7);
	struct walk_from from = { n->ste[3] & STE3_S2TTB,      g,   s2_start(g, STE2_S2SL0(d2)), ia,
				  pabits < oas ? pabits : oas, NULL };
	const struct smmuv3m_tlb tag = { .stage2 = true, .vmid = STE2_S2VMID(d2) };
	const struct request sub = { n->r->sid, ipa, write, false };
	uint64_t at;
	enum smmuv3m_event f = lookup_or_walk(m, &from, &tag, d2 & STE2_S2AFFD, NULL, &sub, pa, &at);
	if (f == SMMUV3M_F_WALK_EABT)
		return event(m, f, n->r, at);
	return f ? s2_fault(m, n->ste, f, n->r, ipa, cls) : true;
}

bool smmuv3m_translate(void *model, uint32_t sid, uint64_t iova, bool write, uint64_t *phys)
{
	struct smmuv3_model *m = model;
	if (!(m->cr0 & SMMUEN)) { /* GBPA decides (6.3.14) */
		*phys = iova;
		return !(m->gbpa & GBPA_ABORT);
	}
	struct request r = { sid, iova, write, false };
	struct smmuv3m_cfg *c = stream_config(m, &r);
	if (!c)
		return false;
	unsigned config = STE_CONFIG(c->ste[0]);
	if (config < CONFIG_BYPASS)
		return false; /* aborted, nothing recorded */
	if (config == CONFIG_BYPASS) {
		*phys = iova;
		return true;
	}
	struct nest n = { m, c->ste, &r };
	if (config == CONFIG_S2)
		return s2_translate(&n, iova, EV_CLASS_IN, write, phys);
	r.priv = STE1_PRIVCFG(c->ste[1]) == 3;
	const struct nest *nest = config == CONFIG_NESTED ? &n : NULL;
	const uint64_t *cd = context(m, c, &r, nest);
	return cd && walk(m, c->ste, cd, &r, nest, phys);
}
