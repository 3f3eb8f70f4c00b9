/* The RISC-V IOMMU model's translation (see model.h): ddtp's mode, the
 * device directory (spec 2.3.1) through a device-context cache, the
 * context's checks (2.1.4), the S and G stages (the privileged
 * architecture's two-stage algorithm, as 2.3 step 17 to 19 call it)
 * through an IOTLB tagged by GSCID and PSCID, flat MSI page tables (2.3.3),
 * and the fault records a refused request makes. The caches keep what
 * they hold until the command that covers it (model.c runs the commands).
 * Its own reading of the spec, on purpose: never include the driver's
 * riscv/regs.h here (model.c says why). */
#include "model.h"

#include <stddef.h>

#define PPN_BITS 0x003ffffffffffc00ull /* an entry's PPN, bits 53:10 */
#define ATP_PPN 0x00000fffffffffffull  /* iosatp, iohgatp, msiptp: PPN in 43:0 */
#define ATP_MODE(a) ((unsigned)((a) >> 60))
#define FQ_ON (1u << 16)

/* tc (2.1.3.1) */
#define TC_V (1ull << 0)
#define TC_DTF (1ull << 4)
#define TC_GADE (1ull << 7)
#define TC_SADE (1ull << 8)
/* EN_ATS, EN_PRI, T2GPA, PDTV, PRPR, DPE, SBE and SXL need capabilities
 * this unit lacks (ATS, T2GPA, PD8/17/20, END, Sv32); 23:12 and 63:32
 * are reserved (31:24 is for custom use) */
#define TC_NOT_HERE 0xffffffff00fffe6eull

/* PTE bits (privileged architecture, Sv39/48/57) */
#define PTE_V (1ull << 0)
#define PTE_R (1ull << 1)
#define PTE_W (1ull << 2)
#define PTE_X (1ull << 3)
#define PTE_U (1ull << 4)
#define PTE_A (1ull << 6)
#define PTE_D (1ull << 7)
/* N (Svnapot), PBMT (Svpbmt) and 60:54: none offered here */
#define PTE_RESERVED 0xffc0000000000000ull

/* Fault causes (3.2) and transaction types */
enum {
	READ_ACCESS = 5,
	WRITE_ACCESS = 7,
	READ_PAGE = 13,
	WRITE_PAGE = 15,
	READ_GUEST_PAGE = 21,
	WRITE_GUEST_PAGE = 23,
	ALL_DISALLOWED = 256,
	DDT_LOAD = 257,
	DDT_INVALID = 258,
	DDT_MISCONFIGURED = 259,
	TTYP_DISALLOWED = 260,
	MSI_LOAD = 261,
	MSI_INVALID = 262,
	MSI_MISCONFIGURED = 263,
};
enum { TTYP_READ = 2, TTYP_WRITE = 3 };

enum { PERM_R = 1, PERM_W = 2 };

/* The request being translated, and how it ends. */
struct req {
	struct rvi_model *m;
	uint32_t did;
	uint64_t iova;
	bool write;
	bool dtf; /* translation faults not reported (tc.DTF) */
};

/* Records the fault (unless tc.DTF suppresses this cause: every cause
 * below 256, and 260 to 263) and refuses the request. */
static bool refuse(const struct req *q, unsigned cause, uint64_t iotval2)
{
	bool translation = cause < ALL_DISALLOWED || (cause >= TTYP_DISALLOWED && cause <= MSI_MISCONFIGURED);
	if (q->dtf && translation)
		return false;
	rvim_fault(q->m, cause, q->did, q->write ? TTYP_WRITE : TTYP_READ, q->iova, iotval2);
	return false;
}

/* ---- invalidation (3.1.2, 3.1.3) ----------------------------------------- */

void rvim_inval_ddt(struct rvi_model *m, bool one, uint32_t did)
{
	for (unsigned i = 0; i < RVIM_DC_CACHE; i++)
		if (!one || m->dcc[i].did == did)
			m->dcc[i].valid = false;
	m->ddt_invalidations++;
}

/* IOTINVAL.VMA: the entries an S stage made, in the host's address spaces
 * (GV 0: no G stage) or in the VM that GSCID names; of one PSCID or every
 * one; covering ADDR or everywhere. */
void rvim_inval_vma(struct rvi_model *m, bool gv, uint16_t gscid, bool pscv, uint32_t pscid, bool av, uint64_t addr)
{
	for (unsigned i = 0; i < RVIM_IOTLB; i++) {
		struct rvim_tlb *t = &m->tlb[i];
		if (!t->valid || !t->s || t->gv != gv || (gv && t->gscid != gscid) || (pscv && t->pscid != pscid))
			continue;
		if (!av || addr - t->iova < t->size)
			t->valid = false;
	}
	m->vma_invalidations++;
}

/* IOTINVAL.GVMA: every entry a G stage made, of one GSCID or every one;
 * with ADDR, those whose G-stage leaf covers that guest physical address. */
void rvim_inval_gvma(struct rvi_model *m, bool gv, uint16_t gscid, bool av, uint64_t addr)
{
	for (unsigned i = 0; i < RVIM_IOTLB; i++) {
		struct rvim_tlb *t = &m->tlb[i];
		if (!t->valid || !t->gv || (gv && t->gscid != gscid))
			continue;
		if (!av || addr - t->gpa < t->gsize)
			t->valid = false;
	}
	m->gvma_invalidations++;
}

/* ---- the device context --------------------------------------------------- */

/* Bare, or a mode the unit offers (2.1.4): Sv39, Sv48, Sv57 (8-10) where
 * capabilities bits 9-11 say so for the S stage, and their x4 forms
 * (bits 17-19) for the G stage. */
static bool atp_mode_ok(const struct rvi_model *m, unsigned mode, bool g)
{
	return mode == 0 || (mode >= 8 && mode <= 10 && (m->caps >> ((g ? 17 : 9) + mode - 8) & 1));
}

/* 2.1.4 for this unit; NULL when the context is well formed. */
static const char *misconfigured(const struct rvi_model *m, const uint64_t *dc)
{
	uint64_t tc = dc[0], iohgatp = dc[1], ta = dc[2], fsc = dc[3];
	uint64_t msiptp = dc[4], mask = dc[5], pattern = dc[6];
	if (tc & TC_NOT_HERE)
		return "tc";
	if (!atp_mode_ok(m, ATP_MODE(iohgatp), true) || (ATP_MODE(iohgatp) && (iohgatp & 3)))
		return "iohgatp"; /* mode, or a G-stage root not on 16 KiB */
	if (!atp_mode_ok(m, ATP_MODE(fsc), false) || (fsc & 0x0ffff00000000000ull))
		return "fsc";
	if (ta & 0xffffffff00000fffull)
		return "ta";
	if (ATP_MODE(msiptp) > 1 || (msiptp & 0x0ffff00000000000ull) || (ATP_MODE(msiptp) && !ATP_MODE(iohgatp)))
		return "msiptp"; /* only Off and Flat; Flat needs a G stage */
	if ((mask | pattern) >> 52 || dc[7])
		return "reserved";
	return NULL;
}

/* Device `did`'s context, from the cache or the directory; NULL after
 * recording why it could not be had. Only well-formed contexts are kept. */
static const uint64_t *context(struct req *q)
{
	struct rvi_model *m = q->m;
	for (unsigned i = 0; i < RVIM_DC_CACHE; i++)
		if (m->dcc[i].valid && m->dcc[i].did == q->did) {
			m->dc_hits++;
			return m->dcc[i].dc;
		}
	unsigned mode = m->ddtp & 0xf, levels = mode - 1;
	/* 64-byte contexts: device-id bits 5:0, 14:6 and 23:15 index the levels */
	if ((levels == 1 && q->did >> 6) || (levels == 2 && q->did >> 15) || q->did >> 24) {
		refuse(q, TTYP_DISALLOWED, 0);
		return NULL;
	}
	m->dc_walks++;
	uint64_t table = (m->ddtp & PPN_BITS) << 2;
	static const unsigned shift[] = { 0, 6, 15 };
	for (unsigned l = levels - 1; l > 0; l--) {
		if (!table) {
			refuse(q, DDT_LOAD, 0);
			return NULL;
		}
		uint64_t e = ((const volatile uint64_t *)(uintptr_t)table)[(q->did >> shift[l]) & 511];
		if (!(e & 1)) {
			refuse(q, DDT_INVALID, 0);
			return NULL;
		}
		if (e & ~(PPN_BITS | 1)) {
			refuse(q, DDT_MISCONFIGURED, 0);
			return NULL;
		}
		table = (e & PPN_BITS) << 2;
	}
	if (!table) {
		refuse(q, DDT_LOAD, 0);
		return NULL;
	}
	const volatile uint64_t *d = (const volatile uint64_t *)(uintptr_t)(table + 64ull * (q->did & 63));
	uint64_t dc[8];
	for (unsigned w = 0; w < 8; w++)
		dc[w] = d[w];
	if (!(dc[0] & TC_V)) {
		refuse(q, DDT_INVALID, 0);
		return NULL;
	}
	if (misconfigured(m, dc)) {
		refuse(q, DDT_MISCONFIGURED, 0);
		return NULL;
	}
	struct rvim_dcc *c = &m->dcc[m->dcc_next++ % RVIM_DC_CACHE];
	c->valid = true;
	c->did = q->did;
	for (unsigned w = 0; w < 8; w++)
		c->dc[w] = dc[w];
	return c->dc;
}

/* ---- the stages ----------------------------------------------------------- */

/* One stage's walk: `atp` (iosatp or iohgatp), `g` for the G stage (x4:
 * two more bits at the root, addresses zero-extended, not sign-extended).
 * `ad` says the unit may set A and D (caps.AMO_HWAD and tc.SADE/GADE).
 * 0 with the leaf's output, size and permissions; else the cause class:
 * 1 a page fault, 2 an access fault. */
enum { WALK_OK, WALK_PAGE, WALK_ACCESS };

struct leaf {
	uint64_t out, base, size;
	unsigned perm;
};

/* For the G stage's translation of an S-stage table's address. */
typedef unsigned (*table_xlate)(void *ctx, uint64_t gpa, uint64_t *spa);

static unsigned walk(uint64_t atp, bool g, bool ad, uint64_t va, bool write, table_xlate xl, void *xl_ctx,
		     struct leaf *out)
{
	unsigned levels = ATP_MODE(atp) - 5; /* Sv39 (8): 3 levels, Sv48 4, Sv57 5 */
	unsigned bits = 12 + 9 * levels + (g ? 2 : 0);
	if (g ? va >> bits : ((int64_t)(va << (64 - bits)) >> (64 - bits)) != (int64_t)va)
		return WALK_PAGE;
	uint64_t table = (atp & ATP_PPN) << 12;
	for (int l = (int)levels - 1; l >= 0; l--) {
		unsigned sh = 12 + 9 * (unsigned)l;
		uint64_t index = (va >> sh) & (l == (int)levels - 1 && g ? 2047 : 511);
		uint64_t pa = table + 8 * index;
		if (xl) { /* the table's guest physical address, through the G stage */
			unsigned r = xl(xl_ctx, pa, &pa);
			if (r)
				return r;
		}
		if (!(pa & ~0xfffull))
			return WALK_ACCESS; /* nothing answers at physical page 0 */
		volatile uint64_t *pe = (volatile uint64_t *)(uintptr_t)pa;
		uint64_t e = *pe;
		if (!(e & PTE_V) || ((e & PTE_W) && !(e & PTE_R)) || (e & PTE_RESERVED))
			return WALK_PAGE;
		if (!(e & (PTE_R | PTE_X))) { /* a pointer: A, D and U reserved */
			if (l == 0 || (e & (PTE_A | PTE_D | PTE_U)))
				return WALK_PAGE;
			table = (e & PPN_BITS) << 2;
			continue;
		}
		uint64_t size = 1ull << sh, ppn = (e & PPN_BITS) << 2;
		/* a device's request is a user one, and so is every G-stage access */
		if (!(e & PTE_U) || !(e & (write ? PTE_W : PTE_R)) || (ppn & (size - 1)))
			return WALK_PAGE;
		if (!(e & PTE_A) || (write && !(e & PTE_D))) {
			if (!ad)
				return WALK_PAGE;
			e |= PTE_A | (write ? PTE_D : 0);
			*pe = e;
		}
		out->base = va & ~(size - 1);
		out->size = size;
		out->out = ppn;
		/* a write needs D: without it the entry serves reads only, and a
		 * write walks again (and sets D, or faults) */
		out->perm = ((e & PTE_R) ? PERM_R : 0) | ((e & PTE_W) && (e & PTE_D) ? PERM_W : 0);
		return WALK_OK;
	}
	return WALK_PAGE;
}

/* The G stage for a context: for the S stage's table reads (implicit,
 * reads) and for the final address. */
struct gctx {
	struct req *q;
	const uint64_t *dc;
	uint64_t fault_gpa; /* the guest physical address a G-stage fault names */
	bool implicit;
	struct leaf leaf;
};

static unsigned gstage(void *ctx, uint64_t gpa, uint64_t *spa)
{
	struct gctx *g = ctx;
	bool ad = (g->dc[0] & TC_GADE) != 0;
	unsigned r = walk(g->dc[1], true, ad, gpa, g->implicit ? false : g->q->write, NULL, NULL, &g->leaf);
	if (r) {
		g->fault_gpa = gpa;
		return r + 2; /* 3 a guest-page fault, 4 an access fault */
	}
	*spa = g->leaf.out + (gpa - g->leaf.base);
	return WALK_OK;
}

/* extract(x, y): x's bits where y has ones, packed at the low end. */
static uint64_t extract(uint64_t x, uint64_t y)
{
	uint64_t r = 0;
	for (unsigned i = 0, k = 0; i < 64; i++)
		if ((y >> i) & 1)
			r |= ((x >> i) & 1) << k++;
	return r;
}

/* 2.3.3: `a` an MSI to a virtual interrupt file? 1 and the address when
 * so, 0 when not (the G stage goes on), -1 after the fault. */
static int msi(struct req *q, const uint64_t *dc, uint64_t a, uint64_t *phys)
{
	uint64_t mask = dc[5], pattern = dc[6];
	if (!ATP_MODE(dc[4]) || ((a >> 12) & ~mask) != (pattern & ~mask))
		return 0;
	uint64_t root = (dc[4] & ATP_PPN) << 12, i = extract(a >> 12, mask);
	if (!root)
		return refuse(q, MSI_LOAD, 0), -1;
	const volatile uint64_t *pte = (const volatile uint64_t *)(uintptr_t)(root | (i * 16));
	uint64_t lo = pte[0], hi = pte[1];
	if (!(lo & 1))
		return refuse(q, MSI_INVALID, 0), -1;
	/* C (63) clear, M (2:1) 3: basic translate, with 9:3, 62:54 and the
	 * second doubleword reserved (MRIF mode needs caps.MSI_MRIF) */
	if ((lo >> 63) || ((lo >> 1) & 3) != 3 || (lo & 0x7fc00000000003f8ull) || hi)
		return refuse(q, MSI_MISCONFIGURED, 0), -1;
	q->m->msi_translations++;
	*phys = ((lo & PPN_BITS) << 2) | (a & 0xfff);
	return 1;
}

static struct rvim_tlb *tlb_find(struct rvi_model *m, bool gv, uint16_t gscid, bool s, uint32_t pscid, uint64_t iova)
{
	for (unsigned i = 0; i < RVIM_IOTLB; i++) {
		struct rvim_tlb *t = &m->tlb[i];
		if (t->valid && t->gv == gv && t->s == s && (!gv || t->gscid == gscid) && (!s || t->pscid == pscid) &&
		    iova - t->iova < t->size)
			return t;
	}
	return NULL;
}

static bool translate(struct req *q, const uint64_t *dc, uint64_t *phys)
{
	struct rvi_model *m = q->m;
	uint64_t iosatp = dc[3], iohgatp = dc[1];
	bool s = ATP_MODE(iosatp) != 0, gv = ATP_MODE(iohgatp) != 0;
	uint16_t gscid = (uint16_t)(iohgatp >> 44);
	uint32_t pscid = (uint32_t)(dc[2] >> 12) & 0xfffff;
	unsigned need = q->write ? PERM_W : PERM_R;
	struct rvim_tlb *t = (s || gv) ? tlb_find(m, gv, gscid, s, pscid, q->iova) : NULL;
	if (t && (t->perm & need)) {
		m->tlb_hits++;
		*phys = t->phys + (q->iova - t->iova);
		return true;
	}
	/* a miss, or a cached entry without the permission: walk again (the
	 * privileged architecture lets a unit refetch before it faults) */
	m->walks++;
	struct gctx g = { q, dc, 0, true, { 0 } };
	struct leaf sl = { q->iova & ~0xfffull, q->iova & ~0xfffull, 4096,
			   PERM_R | PERM_W }; /* S Bare: the IOVA is the GPA */
	if (s) {
		unsigned r =
		    walk(iosatp, false, (dc[0] & TC_SADE) != 0, q->iova, q->write, gv ? gstage : NULL, &g, &sl);
		if (r == WALK_PAGE)
			return refuse(q, q->write ? WRITE_PAGE : READ_PAGE, 0);
		if (r == WALK_ACCESS || r == 4)
			return refuse(q, q->write ? WRITE_ACCESS : READ_ACCESS, 0);
		if (r == 3) /* the S stage's own table, refused by the G stage */
			return refuse(q, q->write ? WRITE_GUEST_PAGE : READ_GUEST_PAGE, (g.fault_gpa & ~3ull) | 1);
	}
	uint64_t gpa = sl.out + (q->iova - sl.base);
	if (gv) {
		int r = msi(q, dc, gpa, phys);
		if (r)
			return r > 0;
		g.implicit = false;
		unsigned w = gstage(&g, gpa, phys);
		if (w == 3)
			return refuse(q, q->write ? WRITE_GUEST_PAGE : READ_GUEST_PAGE, gpa & ~3ull);
		if (w == 4)
			return refuse(q, q->write ? WRITE_ACCESS : READ_ACCESS, 0);
	} else
		*phys = gpa;
	if (!s && !gv)
		return true; /* both stages Bare: nothing to cache */
	/* one entry for both stages: the smaller leaf, its permissions both */
	uint64_t size = sl.size, base = sl.base;
	if (gv && g.leaf.size < size)
		size = g.leaf.size, base = q->iova & ~(size - 1);
	struct rvim_tlb *e = t ? t : &m->tlb[m->tlb_next++ % RVIM_IOTLB];
	*e = (struct rvim_tlb){ .valid = true,
				.gv = gv,
				.gscid = gscid,
				.s = s,
				.pscid = pscid,
				.iova = base,
				.size = size,
				.phys = *phys - (q->iova - base),
				.gpa = gv ? g.leaf.base : 0,
				.gsize = gv ? g.leaf.size : 0,
				.perm = sl.perm & (gv ? g.leaf.perm : PERM_R | PERM_W) };
	return true;
}

bool rvim_translate(void *model, uint32_t did, uint64_t iova, bool write, uint64_t *phys)
{
	struct rvi_model *m = model;
	struct req q = { m, did, iova, write, false };
	unsigned mode = m->ddtp & 0xf;
	if (mode == 0)
		return refuse(&q, ALL_DISALLOWED, 0);
	if (mode == 1) {
		*phys = iova;
		return true;
	}
	const uint64_t *dc = context(&q);
	if (!dc)
		return false;
	q.dtf = (dc[0] & TC_DTF) != 0;
	return translate(&q, dc, phys);
}
