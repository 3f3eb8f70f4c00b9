/* The VT-d model in scalable mode (spec 3.4-3.8, 6.2.1-6.2.4, 9.2-9.7):
 * the walk from a scalable-mode root entry (two context tables a bus)
 * through a 256-bit context entry, the PASID directory and table to the
 * PASID entry for the context's RID_PASID, kept in a PASID cache until a
 * PASID-cache invalidation covers it; then first-stage (the IA-32e format,
 * A set on every level walked and D on a leaf written through, 4 or 5
 * levels, canonical addresses, US required of requests without a PASID),
 * second-stage, nested (the first stage's tables and output through the
 * second stage) or pass-through translation, with the scalable-mode fault
 * reasons. Like model.c it reads the spec itself, not the driver's regs.h. */
#include <string.h>

#include "iommu/models/models.h"
#include "model.h"

#define CTX_SLOTS (sizeof(((struct vtd_model *)0)->ctx_cache) / sizeof(((struct vtd_model *)0)->ctx_cache[0]))
#define ADDR 0x000ffffffffff000ull

#define ECAP_PT (1ull << 6)
#define ECAP_NEST (1ull << 26)
#define ECAP_SMTS (1ull << 43)
#define ECAP_SLTS (1ull << 46)
#define ECAP_FLTS (1ull << 47)
#define ECAP_RPS (1ull << 49)
#define CAP_FS1GP (1ull << 56)
#define CAP_FL5LP (1ull << 60)

/* first-stage entry bits (9.7) */
#define FS_P 1ull
#define FS_RW (1ull << 1)
#define FS_US (1ull << 2)
#define FS_A (1ull << 5)
#define FS_D (1ull << 6)
#define FS_PS (1ull << 7)

bool vtdm_scalable(const struct vtd_model *m)
{
	return ((m->root >> 10) & 3) == 1 && (m->ecap & ECAP_SMTS);
}

/* The context entry (its first two qwords; the others are reserved): the
 * context cache's copy, or memory; 0 or the fault reason. */
static unsigned ctx_fetch(struct vtd_model *m, uint16_t sid, uint64_t c[2])
{
	unsigned slot = sid % CTX_SLOTS;
	if (m->ctx_cache[slot].valid && (uint16_t)(m->ctx_cache[slot].hi >> 48) == sid) {
		c[0] = m->ctx_cache[slot].lo, c[1] = m->ctx_cache[slot].hi & 0xffffffffffffull;
		return c[0] & 1 ? 0 : 0x41;
	}
	const uint64_t *root = (const uint64_t *)(uintptr_t)(m->root & ~0xfffull);
	unsigned devfn = sid & 0xff;
	uint64_t re = root[2 * (sid >> 8) + (devfn >= 128)];
	if (!(re & 1))
		return 0x39;
	if (re & 0xffe)
		return 0x3a;
	const uint64_t *ce = (const uint64_t *)(uintptr_t)(re & ADDR) + 4 * (devfn & 127);
	if (!(ce[0] & 1))
		return 0x41;
	if ((ce[0] & 0x1e0) || (ce[1] >> 21) || ce[2] || ce[3])
		return 0x42;
	if ((ce[1] & 0xfffff) && !(m->ecap & ECAP_RPS))
		return 0x48; /* a RID_PASID other than 0 where the unit has none */
	c[0] = ce[0], c[1] = ce[1];
	m->ctx_cache[slot].valid = true;
	m->ctx_cache[slot].lo = c[0];
	m->ctx_cache[slot].hi = c[1] | (uint64_t)sid << 48;
	return 0;
}

static bool pgtt_offered(const struct vtd_model *m, unsigned pgtt)
{
	switch (pgtt) {
	case 1:
		return m->ecap & ECAP_FLTS;
	case 2:
		return m->ecap & ECAP_SLTS;
	case 3:
		return (m->ecap & ECAP_NEST) && (m->ecap & ECAP_FLTS) && (m->ecap & ECAP_SLTS);
	case 4:
		return m->ecap & ECAP_PT;
	}
	return false;
}

/* The PASID entry for `pasid` under context entry `c`: the PASID cache's
 * copy (entries are kept until an invalidation names them), or memory. */
static unsigned pe_fetch(struct vtd_model *m, uint16_t sid, const uint64_t c[2], uint32_t pasid, uint64_t pe[8])
{
	for (unsigned i = 0; i < VTDM_PC; i++)
		if (m->pc[i].valid && m->pc[i].sid == sid && m->pc[i].pasid == pasid) {
			memcpy(pe, m->pc[i].pe, sizeof(m->pc[i].pe));
			return 0;
		}
	unsigned pdts = (unsigned)(c[0] >> 9) & 7;
	if ((pasid >> 6) >= (1u << (pdts + 7)))
		return 0x46;
	const uint64_t *dir = (const uint64_t *)(uintptr_t)(c[0] & ADDR);
	uint64_t de = dir[pasid >> 6];
	if (!(de & 1))
		return 0x51;
	const uint64_t *t = (const uint64_t *)(uintptr_t)(de & ADDR) + 8 * (pasid & 63);
	if (!(t[0] & 1))
		return 0x59;
	if (!pgtt_offered(m, (unsigned)(t[0] >> 6) & 7))
		return 0x5b;
	memcpy(pe, t, 8 * sizeof(*pe));
	unsigned i = m->pc_next++ % VTDM_PC;
	m->pc[i].valid = true, m->pc[i].sid = sid, m->pc[i].pasid = pasid, m->pc[i].did = (uint16_t)pe[1];
	memcpy(m->pc[i].pe, pe, sizeof(m->pc[i].pe));
	return 0;
}

/* Second-stage levels from a PASID entry's AW: 3 or 4, 0 when invalid. */
static unsigned ss_levels(const struct vtd_model *m, uint64_t pe0)
{
	unsigned aw = (unsigned)(pe0 >> 2) & 7, sagaw = (unsigned)(m->cap >> 8) & 0x1f;
	return (aw == 1 || aw == 2) && (sagaw & (1u << aw)) ? aw + 2 : 0;
}

/* A legacy second-stage reason in scalable mode's words. */
static unsigned ss_reason(unsigned r)
{
	return r == 5 ? 0x85 : r == 6 ? 0x86 : r == 12 ? 0x7a : 0x78;
}

/* The first-stage walk (nested: every table and the output address
 * through the second stage `ss_top`, `ss_lv`): 0 and the output with
 * whether every level allows writes, or the fault reason. */
static unsigned fs_walk(struct vtd_model *m, const uint64_t pe[8], uint64_t iova, bool write, uint64_t *phys,
			bool *writable)
{
	bool nested = ((pe[0] >> 6) & 7) == 3;
	uint64_t ss_top = pe[0] & ADDR;
	unsigned ss_lv = nested ? ss_levels(m, pe[0]) : 0;
	unsigned fspm = (unsigned)(pe[2] >> 2) & 3;
	unsigned levels = fspm == 0 ? 4 : fspm == 1 && (m->cap & CAP_FL5LP) ? 5 : 0;
	if (!levels || (nested && !ss_lv))
		return 0x5b;
	unsigned width = levels == 5 ? 57 : 48;
	uint64_t upper = iova >> (width - 1);
	if (upper != 0 && upper != (~0ull >> (width - 1)))
		return 0x80; /* not canonical */
	uint64_t table = pe[2] & ADDR;
	*writable = true;
	for (unsigned l = levels; l >= 1; l--) {
		uint64_t tphys = table;
		unsigned perm_u;
		if (nested && vtdm_ss_walk(ss_top, ss_lv, table, false, &tphys, &perm_u))
			return l == levels ? 0x75 : 0x76;
		uint64_t *t = (uint64_t *)(uintptr_t)(tphys & ADDR);
		unsigned shift = 12 + 9 * (l - 1);
		uint64_t *ep = &t[(iova >> shift) & 511], e = *ep;
		if (!(e & FS_P))
			return 0x71;
		if (!(e & FS_US))
			return 0x81;
		bool leaf = l == 1 || (e & FS_PS);
		if ((e & FS_PS) && (l > 3 || (l == 3 && !(m->cap & CAP_FS1GP))))
			return 0x72;
		*writable = *writable && (e & FS_RW);
		if (write && !(e & FS_RW))
			return nested ? 0x77 : 0x85;
		*ep = e | FS_A | (leaf && write ? FS_D : 0);
		if (leaf) {
			uint64_t mask = (1ull << shift) - 1;
			*phys = ((e & ADDR) & ~mask) | (iova & mask);
			if (nested && vtdm_ss_walk(ss_top, ss_lv, *phys, write, phys, &perm_u))
				return 0x79;
			return 0;
		}
		table = e & ADDR;
	}
	return 0x70;
}

bool vtdm_sm_translate(struct vtd_model *m, uint16_t sid, uint64_t iova, bool write, uint64_t *phys)
{
	uint64_t c[2], pe[8];
	unsigned r = ctx_fetch(m, sid, c);
	uint32_t pasid = (uint32_t)(c[1] & 0xfffff);
	if (!r)
		r = pe_fetch(m, sid, c, pasid, pe);
	if (r)
		return vtdm_fault(m, sid, iova, write, r);
	unsigned pgtt = (unsigned)(pe[0] >> 6) & 7;
	uint16_t did = (uint16_t)pe[1];
	if (pgtt == 4) {
		*phys = iova;
		return true;
	}
	bool first = pgtt != 2;
	struct vtdm_tlb *hit = vtdm_tlb_find(m, did, first, pasid, iova);
	if (hit && first && write && !hit->dirty)
		hit->valid = false, hit = NULL; /* D is set by a walk: the write walks again */
	if (hit) {
		if (!(hit->perm & (write ? 2 : 1)))
			return vtdm_fault(m, sid, iova, write, write ? 0x85 : 0x86);
		*phys = hit->phys << 12 | (iova & 0xfff);
		return true;
	}
	unsigned perm = 0;
	if (first) {
		bool writable = false;
		r = fs_walk(m, pe, iova, write, phys, &writable);
		perm = 1 | (writable ? 2 : 0);
	} else {
		unsigned lv = ss_levels(m, pe[0]);
		if (!lv)
			r = 0x5b;
		else if (iova >> (lv == 4 ? 48 : 39))
			r = 0x83;
		else if ((r = vtdm_ss_walk(pe[0] & ADDR, lv, iova, write, phys, &perm)) != 0)
			r = ss_reason(r);
	}
	if (r)
		return vtdm_fault(m, sid, iova, write, r);
	vtdm_tlb_add(m,
		     &(struct vtdm_tlb){ true, sid, did, iova >> 12, *phys >> 12, perm, first, pasid, first && write });
	return true;
}

void vtdm_pc_flush(struct vtd_model *m, unsigned g, uint16_t did, uint32_t pasid)
{
	for (unsigned i = 0; i < VTDM_PC; i++)
		if (g == 3 || (m->pc[i].did == did && (g == 0 || (g == 1 && m->pc[i].pasid == pasid))))
			m->pc[i].valid = false;
	m->pc_invalidations++;
}

/* G 2: every first-stage entry of (did, pasid); 3: those of its pages
 * from addr by 2^am; 0 and 1 are reserved and drop nothing. */
void vtdm_piotlb_flush(struct vtd_model *m, unsigned g, uint16_t did, uint32_t pasid, uint64_t addr, unsigned am)
{
	uint64_t first = (addr >> 12) & ~((1ull << am) - 1), n = 1ull << am;
	for (unsigned i = 0; i < VTDM_CACHE; i++) {
		struct vtdm_tlb *t = &m->tlb[i];
		if (!t->valid || !t->first || t->did != did || t->pasid != pasid)
			continue;
		if (g == 2 || (g == 3 && t->page >= first && t->page - first < n))
			t->valid = false;
	}
	m->piotlb_invalidations++;
}
