/* The U3/U4 DART model (see dart_model.h). Offsets and bits from
 * shared/specs/dart.md section 1.
 * Its own reading of the spec, on purpose: never include iommu/dart/regs.h
 * here (dart_model.h says why).
 * The faults `model` injects are at the end; its family (what `model
 * dart-u3` and `model dart-u4` attach) is in backend.c. */
#include "model.h"

#include <string.h>

#include "iommu/models/models.h"

#define U3_CNTL 0x000
#define U3_EXCP 0x010
#define U4_CNTL 0x000
#define U4_BASE 0x010
#define U4_SIZE 0x020
#define U4_EXCP 0x030
#define TAGS 0x1000

#define U3_FLUSHTLB 0x400u
#define U3_ENABLE 0x200u
#define U3_SIZE_MASK 0x1ffu
#define U3_BASE_MASK 0xfffff000u
#define U4_ENABLE 0x80000000u
#define U4_IONE 0x40000000u
#define U4_FLUSHTLB 0x20000000u
#define U4_IDLE 0x10000000u
#define U4_IONE_MASK 0x07ffffffu
#define ENTRY_VALID 0x80000000u
#define ENTRY_RPN 0x00ffffffu

static bool enabled(const struct dart_model *m)
{
	return m->cntl & (m->u4 ? U4_ENABLE : U3_ENABLE);
}

static uint32_t flush_bit(const struct dart_model *m)
{
	return m->u4 ? U4_FLUSHTLB : U3_FLUSHTLB;
}

static uint64_t table_base(const struct dart_model *m)
{
	return m->u4 ? (uint64_t)(m->base & 0xffffff) << 12 : (uint64_t)(m->cntl & U3_BASE_MASK);
}

static uint64_t table_entries(const struct dart_model *m)
{
	unsigned pages = m->u4 ? m->size & 0x1fff : m->cntl & U3_SIZE_MASK;
	if (!m->u4 && pages == 0)
		pages = 512; /* the 2 MiB table Linux used wrote 512 & 0x1FF [unverified reading] */
	return (uint64_t)pages * 1024;
}

static void tlb_drop(struct dart_model *m, bool one, uint32_t index)
{
	for (unsigned i = 0; i < 64; i++)
		if (!one || m->tlb[i].index == index)
			m->tlb[i].valid = false;
}

static uint32_t cntl_read(struct dart_model *m)
{
	uint32_t busy = flush_bit(m) | (m->u4 ? U4_IONE : 0);
	if ((m->cntl & busy) && !m->flush_stuck && m->busy_left && --m->busy_left == 0) {
		if (m->cntl & flush_bit(m)) {
			tlb_drop(m, false, 0);
			m->flushes++;
		} else {
			tlb_drop(m, true, m->cntl & U4_IONE_MASK);
			m->ione++;
		}
		m->cntl &= ~busy;
	}
	/* U4 reports IDLE when nothing is in progress: a status bit a driver
	 * must not write back */
	return m->cntl | (m->u4 && !(m->cntl & busy) ? U4_IDLE : 0);
}

static void cntl_write(struct dart_model *m, uint32_t v)
{
	if (!m->u4 && (v & 0x800u))
		m->reserved_writes++;
	if (m->u4 && (v & U4_IDLE))
		m->reserved_writes++; /* a status bit */
	uint32_t fb = flush_bit(m);
	bool start = (v & fb) && !(m->cntl & fb);
	bool ione = m->u4 && (v & U4_IONE) && !(m->cntl & U4_IONE);
	m->cntl = v & ~(m->u4 ? U4_IDLE : 0);
	if (start && m->deaf_sets) {
		m->deaf_sets--;
		m->busy_left = 0; /* not noticed: the bit stays set until cleared and set again */
	} else if (start || ione) {
		m->busy_left = m->busy_reads;
	}
}

static uint64_t model_read(void *ctx, uint64_t off, unsigned width)
{
	struct dart_model *m = ctx;
	if (m->all_ones)
		return width == 8 ? ~0ull : (1ull << (8 * width)) - 1;
	if (width != 4)
		m->bad_width++;
	uint32_t v = 0;
	if (off == U4_CNTL)
		v = cntl_read(m);
	else if (off == (m->u4 ? U4_EXCP : U3_EXCP))
		v = m->excp;
	else if (m->u4 && off == U4_BASE)
		v = m->base;
	else if (m->u4 && off == U4_SIZE)
		v = m->size;
	return __builtin_bswap32(v);
}

static void model_write(void *ctx, uint64_t off, unsigned width, uint64_t raw)
{
	struct dart_model *m = ctx;
	if (width != 4)
		m->bad_width++;
	uint32_t v = __builtin_bswap32((uint32_t)raw);
	if (off == U4_CNTL) {
		cntl_write(m, v);
	} else if (off == (m->u4 ? U4_EXCP : U3_EXCP)) {
		m->excp = 0;
	} else if (m->u4 && off == U4_BASE) {
		m->reserved_writes += (v & ~0xffffffu) != 0;
		m->base = v & 0xffffff;
	} else if (m->u4 && off == U4_SIZE) {
		m->reserved_writes += (v & ~0x1fffu) != 0;
		m->size = v & 0x1fff;
	}
}

static const struct regwin_model_ops ops = { model_read, model_write };

void dartm_init(struct dart_model *m, bool u4)
{
	memset(m, 0, sizeof(*m));
	m->u4 = u4;
	m->tlb_size = 16;
	m->busy_reads = 1; /* clears by the first read after the set */
	regwin_init_model(&m->win, u4 ? "dart-u4-model" : "dart-u3-model", DARTM_WINDOW, true, &ops, m);
}

static bool fault(struct dart_model *m, uint64_t index)
{
	if (!m->excp)
		m->excp = 0x80000000u | (uint32_t)(index & 0x7ffffff);
	return false;
}

bool dartm_translate(struct dart_model *m, uint64_t iova, bool write, uint64_t *phys)
{
	(void)write; /* entries are valid or not: no permissions */
	if (!enabled(m)) {
		*phys = iova;
		return true;
	}
	uint64_t index = iova >> 12;
	if (index >= table_entries(m))
		return fault(m, index);
	uint32_t e = 0;
	bool hit = false;
	for (unsigned i = 0; i < m->tlb_size; i++)
		if (m->tlb[i].valid && m->tlb[i].index == index) {
			e = m->tlb[i].entry, hit = true;
			break;
		}
	if (!hit) {
		const uint32_t *t = (const uint32_t *)(uintptr_t)table_base(m);
		e = __builtin_bswap32(t[index]); /* big-endian in memory */
		if (e & ENTRY_VALID) {
			unsigned s = m->tlb_next++ % m->tlb_size;
			m->tlb[s].valid = true;
			m->tlb[s].index = (uint32_t)index;
			m->tlb[s].entry = e;
		}
	}
	if (!(e & ENTRY_VALID))
		return fault(m, index);
	*phys = (uint64_t)(e & ENTRY_RPN) << 12 | (iova & 0xfff);
	return true;
}

/* ---- the faults `model` injects, and the kinds ---------------------------- */

static void inject_flush_deaf(void *m)
{
	((struct dart_model *)m)->deaf_sets = 1;
}

static void inject_flush_stuck(void *m)
{
	((struct dart_model *)m)->flush_stuck = true;
}

const struct model_fault dartm_faults[] = {
	{ "flush-deaf", "the first FLUSHTLB set goes unnoticed (cleared and set again)", NULL, inject_flush_deaf,
	  IOMMU_OK, IOMMU_OK },
	{ "flush-stuck", "FLUSHTLB never clears", NULL, inject_flush_stuck, IOMMU_ERR_TIMEOUT, IOMMU_OK },
	{ NULL },
};

const char *const dartm_kind_names[] = { "dart-u3", "dart-u4", NULL };
