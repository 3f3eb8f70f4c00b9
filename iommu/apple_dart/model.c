/* The Apple DART model (see apple_dart_model.h). Offsets, bits and entry
 * formats from shared/specs/dart.md section 2.
 * Its own reading of the spec, on purpose: never include iommu/apple_dart/regs.h
 * here (apple_dart_model.h says why).
 * The faults `model` injects are at the end; its family (what `model
 * apple-t8103`, `apple-t6000` and `apple-t8110` attach) is in backend.c. */
#include "model.h"

#include <string.h>

#include "iommu/models/models.h"

/* T8020 layout (t8103, t6000) */
#define A_PARAMS1 0x00
#define A_PARAMS2 0x04
#define A_STREAM_COMMAND 0x20
#define A_STREAM_SELECT 0x34
#define A_ERROR 0x40
#define A_ERROR_ADDR_LO 0x50
#define A_ERROR_ADDR_HI 0x54
#define A_CONFIG 0x60
#define A_ENABLE 0xfc
#define A_TCR(s) (0x100 + 4 * (s))
#define A_TTBR(s, i) (0x200 + 16 * (s) + 4 * (i))
#define A_CMD_INVALIDATE (1u << 20)
#define A_CMD_BUSY (1u << 2)
#define A_TCR_TRANSLATE (1u << 7)
#define A_TCR_BYPASS (1u << 8)
#define A_TTBR_VALID (1u << 31)
/* T8110 layout */
#define B_PARAMS3 0x08
#define B_PARAMS4 0x0c
#define B_TLB_CMD 0x80
#define B_ERROR 0x100
#define B_ERROR_MASK 0x104
#define B_ERROR_ADDR_LO 0x170
#define B_ERROR_ADDR_HI 0x174
#define B_PROTECT 0x200
#define B_ENABLE 0xc00
#define B_TCR(s) (0x1000 + 4 * (s))
#define B_TTBR(s) (0x1400 + 4 * (s))
#define B_TLB_BUSY (1u << 31)
#define B_TCR_TRANSLATE 1u
#define B_TCR_BYPASS 2u
#define B_TTBR_VALID 1u

static bool t8110(const struct apple_dart_model *m)
{
	return m->layout == ADM_T8110;
}

static bool dart1(const struct apple_dart_model *m)
{
	return m->layout == ADM_T8103;
}

static void tlb_drop(struct apple_dart_model *m, bool all, unsigned sid)
{
	for (unsigned i = 0; i < 32; i++)
		if (all || m->tlb[i].sid == sid)
			m->tlb[i].valid = false;
	m->invalidations++;
}

static uint32_t reg_read(struct apple_dart_model *m, uint64_t off)
{
	if (off == A_PARAMS1)
		return m->page_shift << 24;
	if (off == A_PARAMS2)
		return 1; /* bypass supported */
	if (t8110(m)) {
		if (off == B_PARAMS3)
			return 36u << 24 | 36u << 16 | 0x110;
		if (off == B_PARAMS4)
			return 1u << 16 | ADM_STREAMS;
		if (off == B_TLB_CMD)
			return m->busy_stuck ? B_TLB_BUSY : 0;
		if (off == B_ERROR)
			return m->error;
		if (off == B_ERROR_MASK)
			return m->error_mask;
		if (off == B_ERROR_ADDR_LO)
			return (uint32_t)m->error_addr;
		if (off == B_ERROR_ADDR_HI)
			return (uint32_t)(m->error_addr >> 32);
		if (off == B_PROTECT)
			return m->locked;
		if (off == B_ENABLE)
			return m->enabled;
		if (off >= B_TCR(0) && off < B_TCR(ADM_STREAMS))
			return m->tcr[(off - B_TCR(0)) / 4];
		if (off >= B_TTBR(0) && off < B_TTBR(ADM_STREAMS))
			return m->ttbr[(off - B_TTBR(0)) / 4][0];
		return 0;
	}
	if (off == A_STREAM_COMMAND)
		return m->busy_stuck ? A_CMD_BUSY : 0;
	if (off == A_STREAM_SELECT)
		return m->select;
	if (off == A_ERROR)
		return m->error;
	if (off == A_ERROR_ADDR_LO)
		return (uint32_t)m->error_addr;
	if (off == A_ERROR_ADDR_HI)
		return (uint32_t)(m->error_addr >> 32);
	if (off == A_CONFIG)
		return m->locked ? 1u << 15 : 0;
	if (off == A_ENABLE)
		return m->enabled;
	if (off >= A_TCR(0) && off < A_TCR(ADM_STREAMS))
		return m->tcr[(off - A_TCR(0)) / 4];
	if (off >= A_TTBR(0, 0) && off < A_TTBR(ADM_STREAMS, 0))
		return m->ttbr[(off - A_TTBR(0, 0)) / 16][(off / 4) % 4];
	return 0;
}

static void reg_write(struct apple_dart_model *m, uint64_t off, uint32_t v)
{
	if (t8110(m)) {
		if (off == B_TLB_CMD) {
			unsigned op = (v >> 8) & 7;
			m->reserved_writes += op > 1 || (v & ~0x7ffu);
			tlb_drop(m, op == 0, v & 0xff);
		} else if (off == B_ERROR) {
			m->error &= ~v; /* write-1-to-clear */
		} else if (off == B_ERROR_MASK) {
			m->error_mask = v;
		} else if (off == B_ENABLE) {
			m->enabled |= v;
		} else if (off == B_ENABLE + 0x20) {
			m->enabled &= ~v;
		} else if (off >= B_TCR(0) && off < B_TCR(ADM_STREAMS)) {
			m->reserved_writes += (v & ~7u) != 0;
			if (!m->locked)
				m->tcr[(off - B_TCR(0)) / 4] = v;
		} else if (off >= B_TTBR(0) && off < B_TTBR(ADM_STREAMS)) {
			if (!m->locked)
				m->ttbr[(off - B_TTBR(0)) / 4][0] = v;
		}
		return;
	}
	if (off == A_STREAM_SELECT) {
		m->reserved_writes += (v >> ADM_STREAMS) != 0;
		m->select = v;
	} else if (off == A_STREAM_COMMAND) {
		m->reserved_writes += (v & ~A_CMD_INVALIDATE) != 0;
		if (v & A_CMD_INVALIDATE)
			for (unsigned s = 0; s < ADM_STREAMS; s++)
				if (m->select & (1u << s))
					tlb_drop(m, false, s);
	} else if (off == A_ERROR) {
		m->error &= ~v;
	} else if (off == A_ENABLE) {
		m->enabled = v;
	} else if (off >= A_TCR(0) && off < A_TCR(ADM_STREAMS)) {
		m->reserved_writes += (v & ~(A_TCR_TRANSLATE | A_TCR_BYPASS | (1u << 12))) != 0;
		if (!m->locked)
			m->tcr[(off - A_TCR(0)) / 4] = v;
	} else if (off >= A_TTBR(0, 0) && off < A_TTBR(ADM_STREAMS, 0)) {
		if (!m->locked)
			m->ttbr[(off - A_TTBR(0, 0)) / 16][(off / 4) % 4] = v;
	}
}

static uint64_t model_read(void *ctx, uint64_t off, unsigned width)
{
	struct apple_dart_model *m = ctx;
	if (m->all_ones)
		return width == 8 ? ~0ull : (1ull << (8 * width)) - 1;
	m->bad_width += width != 4;
	return reg_read(m, off);
}

static void model_write(void *ctx, uint64_t off, unsigned width, uint64_t v)
{
	struct apple_dart_model *m = ctx;
	m->bad_width += width != 4;
	reg_write(m, off, (uint32_t)v);
}

static const struct regwin_model_ops ops = { model_read, model_write };

void adm_init(struct apple_dart_model *m, enum adm_layout layout, unsigned page_shift)
{
	memset(m, 0, sizeof(*m));
	m->layout = layout;
	m->page_shift = page_shift;
	m->tlb_size = 16;
	regwin_init_model(&m->win, layout == ADM_T8110 ? "t8110-dart-model" : "t8020-dart-model", ADM_WINDOW, false,
			  &ops, m);
}

/* Entry <-> physical address, in the two formats. */
static uint64_t entry_pa(const struct apple_dart_model *m, uint64_t e)
{
	return dart1(m) ? e & 0x0000000ffffff000ull : ((e >> 10) & 0x0fffffffull) << 14;
}

static bool fault(struct apple_dart_model *m, unsigned sid, uint64_t iova, uint32_t code)
{
	if (!(m->error & (1u << 31))) {
		m->error = 1u << 31 | (t8110(m) ? (uint32_t)sid << 20 : (uint32_t)sid << 24) | code;
		m->error_addr = iova;
	}
	return false;
}

/* A leaf found (walked or cached): its permissions, then the address. */
static bool leaf(struct apple_dart_model *m, unsigned sid, uint64_t iova, bool write, uint64_t e, uint64_t *phys)
{
	bool b = t8110(m);
	bool deny = write ? e & (dart1(m) ? 1ull << 7 : 1ull << 2) : e & (dart1(m) ? 1ull << 8 : 1ull << 3);
	if (deny) /* WRITE_FAULT / READ_FAULT */
		return fault(m, sid, iova, write ? (b ? 1u << 4 : 1u << 3) : (b ? 1u << 5 : 1u << 4));
	uint64_t mask = (1ull << m->page_shift) - 1;
	if (dart1(m) && !(e & 2)) {
		/* DART1's sub-page range, in units of page / 4096 bytes (0 and
		 * 0xFFF: the whole page) unless SP_DIS */
		uint64_t unit = (iova & mask) >> (m->page_shift - 12), start = e >> 52, end = (e >> 40) & 0xfff;
		if (unit < start || unit > end)
			return fault(m, sid, iova, write ? 1u << 3 : 1u << 4);
	}
	*phys = entry_pa(m, e) | (iova & mask);
	return true;
}

/* The codes: T8020 NO_TTBR b0, NO_PMD b1, NO_PTE b2; T8110 NO_TTBR b0,
 * NO_PGD b1, NO_PMD b2, NO_PTE b3. A blocked stream (TCR 0) reports
 * NO_TTBR: the model's choice, the spec does not say. */
bool adm_translate(struct apple_dart_model *m, unsigned sid, uint64_t iova, bool write, uint64_t *phys)
{
	bool b = t8110(m);
	uint32_t tcr = m->tcr[sid];
	uint32_t on = b ? B_TCR_TRANSLATE : A_TCR_TRANSLATE, bypass = b ? B_TCR_BYPASS : A_TCR_BYPASS;
	if (!(m->enabled & (1u << sid)) || !(tcr & (on | bypass)))
		return fault(m, sid, iova, 1u);
	if (tcr & bypass) {
		*phys = iova;
		return true;
	}
	unsigned ps = m->page_shift, bits = ps - 3; /* a granule-sized table holds 2^bits entries */
	uint64_t vpn = iova >> ps;
	for (unsigned i = 0; i < m->tlb_size; i++)
		if (m->tlb[i].valid && m->tlb[i].sid == sid && m->tlb[i].vpn == vpn)
			return leaf(m, sid, iova, write, m->tlb[i].pte, phys);
	unsigned ti = (unsigned)(iova >> (ps + 2 * bits));
	uint32_t tt = b ? m->ttbr[sid][0] : m->ttbr[sid][ti & 3];
	bool tvalid = b ? tt & B_TTBR_VALID : tt & A_TTBR_VALID;
	if ((b && ti) || ti > 3 || !tvalid)
		return fault(m, sid, iova, 1u);
	uint64_t l1pa = b ? (uint64_t)(tt >> 2) << 14 : (uint64_t)(tt & 0x0fffffffu) << 12;
	const uint64_t *l1 = (const uint64_t *)(uintptr_t)l1pa;
	uint64_t t1 = l1[(iova >> (ps + bits)) & ((1ull << bits) - 1)];
	if (!(t1 & 1))
		return fault(m, sid, iova, b ? 1u << 2 : 1u << 1);
	const uint64_t *l2 = (const uint64_t *)(uintptr_t)entry_pa(m, t1);
	uint64_t e = l2[vpn & ((1ull << bits) - 1)];
	if (!(e & 1))
		return fault(m, sid, iova, b ? 1u << 3 : 1u << 2);
	unsigned s = m->tlb_next++ % m->tlb_size;
	m->tlb[s].valid = true;
	m->tlb[s].sid = sid;
	m->tlb[s].vpn = vpn;
	m->tlb[s].pte = e;
	return leaf(m, sid, iova, write, e, phys);
}

/* ---- the faults `model` injects, and the kinds ---------------------------- */

static void inject_busy_stuck(void *m)
{
	((struct apple_dart_model *)m)->busy_stuck = true;
}

static void inject_locked(void *m)
{
	((struct apple_dart_model *)m)->locked = true;
}

const struct model_fault adm_faults[] = {
	{ "busy-stuck", "an invalidation never finishes", NULL, inject_busy_stuck, IOMMU_OK, IOMMU_ERR_TIMEOUT },
	{ "locked", "locked by the firmware (TCRs and TTBRs immutable)", NULL, inject_locked, IOMMU_ERR_FIRMWARE,
	  IOMMU_OK },
	{ NULL },
};

const char *const adm_kind_names[] = { "apple-t8103", "apple-t6000", "apple-t8110", NULL };
