/* The Calgary / CalIOC2 model (see calgary_model.h). Offsets and bits from
 * shared/specs/calgary.md.
 * Its own reading of the spec, on purpose: never include iommu/calgary/regs.h
 * here (calgary_model.h says why).
 * The faults `model` injects are at the end; its family (what `model
 * calgary` and `model calioc2` attach) is in backend.c. */
#include "model.h"

#include <string.h>

#include "iommu/models/models.h"

#define CCR 0x0108
#define TAR0 0x0580
#define BUSRANGE0 0x4020
#define SPLITQ0 0x4870
#define PHB0 0x8000
#define PHB_STRIDE 0x1000

#define P_CSR 0x110
#define P_PLSSR 0x120
#define P_CONFIG 0x160
#define P_MEM1_LO 0x190
#define P_MEM1_HI 0x1a0
#define P_MEM1_SIZE 0x1c0
#define P_AER 0x200
#define P_CSMR 0x290
#define P_MCK 0x800
#define P_ERR0 0x810
#define P_ERR6 0x870
#define P_RCSTAT 0xcb0
#define P_PMDR 0xda0
#define P_PMCR 0xda8
#define P_SAVIOR 0xdb0

#define TCE_ENABLE 0x20000000u
#define TAR_SW_MASK 0x0000ffffffff800full
#define PMCR_SOFTSTOP 0x80000000u
#define PMCR_HARDSTOP 0x20000000u
#define PMDR_SOFTSTOPFAULT 0x40000000u
#define CSR_ERROR_MASK 0xffe0ffffu

/* Which register is at `off`, and its width; -1 for none. */
static int decode(uint64_t off, unsigned *phb, unsigned *width)
{
	*width = 4;
	*phb = 0;
	if (off == CCR) {
		*width = 8;
		return CCR;
	}
	if (off >= TAR0 && off < TAR0 + 8 * CALM_PHBS && !(off & 7)) {
		*phb = (unsigned)(off - TAR0) / 8;
		*width = 8;
		return TAR0;
	}
	for (unsigned n = 0; n < CALM_PHBS; n++) {
		*phb = n;
		if (off == BUSRANGE0 + PHB_STRIDE * n)
			return BUSRANGE0;
		if (off == SPLITQ0 + PHB_STRIDE * n) {
			*width = 8;
			return SPLITQ0;
		}
		uint64_t base = PHB0 + PHB_STRIDE * n;
		if (off >= base && off < base + PHB_STRIDE) {
			unsigned r = (unsigned)(off - base);
			switch (r) {
			case P_CSR:
			case P_PLSSR:
			case P_CONFIG:
			case P_MEM1_LO:
			case P_MEM1_HI:
			case P_MEM1_SIZE:
			case P_AER:
			case P_CSMR:
			case P_MCK:
			case P_RCSTAT:
			case P_PMDR:
			case P_PMCR:
			case P_SAVIOR:
			case 0x2b0: /* MEM_2: low, high, limit high, limit low */
			case 0x2c0:
			case 0x2d0:
			case 0x2e0:
				return (int)(0x10000 + r);
			}
			if (r >= P_ERR0 && r <= P_ERR6 && !(r & 0xf))
				return 0x10000 + P_ERR0;
		}
	}
	return -1;
}

static void blast(struct calm_phb *p)
{
	for (unsigned i = 0; i < 64; i++)
		p->cache[i].valid = false;
	p->blasts++;
}

static uint64_t read_reg(struct calgary_model *m, uint64_t off, unsigned width)
{
	unsigned n, w;
	int reg = decode(off, &n, &w);
	if (reg < 0)
		return 0;
	if (w != width)
		m->bad_width++;
	struct calm_phb *p = &m->phb[n];
	switch (reg) {
	case CCR:
		return m->ccr;
	case TAR0:
		return p->tar;
	case BUSRANGE0:
		return (uint32_t)p->start_bus << 16 | (uint32_t)p->end_bus << 8;
	case SPLITQ0:
		m->splitq_reads++;
		return m->split_stuck ? 0 : 0xffull << 56; /* the raw low byte, 0xFF when quiet */
	case 0x10000 + P_CSR:
		return p->csr;
	case 0x10000 + P_PLSSR:
		return p->plssr;
	case 0x10000 + P_CONFIG:
		return p->config;
	case 0x10000 + P_MEM1_LO:
		return p->mem1_lo;
	case 0x10000 + P_MEM1_HI:
		return p->mem1_hi;
	case 0x10000 + P_MEM1_SIZE:
		return p->mem1_size;
	case 0x10000 + P_AER:
		return p->aer;
	case 0x10000 + P_PMDR:
		if (p->stop == CALM_SOFTSTOP && m->softstop_faults) {
			m->softstop_faults--;
			p->stop = CALM_RUNNING; /* the stop did not take */
			return PMDR_SOFTSTOPFAULT;
		}
		return p->pmdr;
	case 0x10000 + P_PMCR:
		if (p->stop == CALM_SOFTSTOP) /* reading it under SoftStop forces HardStop */
			p->stop = CALM_HARDSTOP;
		return p->pmcr;
	case 0x10000 + P_SAVIOR:
		return p->savior;
	}
	return 0;
}

static void write_reg(struct calgary_model *m, uint64_t off, unsigned width, uint64_t v)
{
	unsigned n, w;
	int reg = decode(off, &n, &w);
	if (reg < 0)
		return;
	if (w != width)
		m->bad_width++;
	struct calm_phb *p = &m->phb[n];
	switch (reg) {
	case CCR:
		m->ccr = v;
		break;
	case TAR0:
		if (v & ~TAR_SW_MASK)
			m->reserved_writes++;
		/* the flush is only safe in the chip's quiet state */
		if ((p->config & TCE_ENABLE) && ((!m->ioc2 && p->aer != 0) || (m->ioc2 && p->stop != CALM_HARDSTOP)))
			m->protocol_errors++;
		p->tar = v & TAR_SW_MASK;
		blast(p);
		break;
	case 0x10000 + P_CSR:
		p->csr = (uint32_t)v;
		break;
	case 0x10000 + P_CONFIG:
		p->config = (uint32_t)v;
		break;
	case 0x10000 + P_AER:
		p->aer = (uint32_t)v;
		break;
	case 0x10000 + P_PMCR:
		p->pmcr = (uint32_t)v;
		if (v & PMCR_SOFTSTOP)
			p->stop = CALM_SOFTSTOP;
		else if (!(v & PMCR_HARDSTOP))
			p->stop = CALM_RUNNING;
		break;
	case 0x10000 + P_SAVIOR:
		p->savior = (uint32_t)v;
		break;
	case 0x10000 + P_MEM1_LO:
	case 0x10000 + P_MEM1_HI:
	case 0x10000 + P_MEM1_SIZE:
		break; /* accepted, no effect in the model */
	}
}

static uint64_t model_read(void *ctx, uint64_t off, unsigned width)
{
	struct calgary_model *m = ctx;
	if (m->all_ones)
		return width == 8 ? ~0ull : (1ull << (8 * width)) - 1;
	uint64_t v = read_reg(m, off, width);
	return width == 8 ? __builtin_bswap64(v) : __builtin_bswap32((uint32_t)v); /* big-endian registers */
}

static void model_write(void *ctx, uint64_t off, unsigned width, uint64_t v)
{
	struct calgary_model *m = ctx;
	write_reg(m, off, width, width == 8 ? __builtin_bswap64(v) : __builtin_bswap32((uint32_t)v));
}

static const struct regwin_model_ops ops = { model_read, model_write };

void calm_init(struct calgary_model *m, bool ioc2)
{
	memset(m, 0, sizeof(*m));
	m->ioc2 = ioc2;
	for (unsigned n = 0; n < CALM_PHBS; n++) {
		struct calm_phb *p = &m->phb[n];
		p->start_bus = (uint8_t)(0x10 * (n + 1));
		p->end_bus = (uint8_t)(0x10 * (n + 1) + 3);
		p->cache_size = 16;
		p->aer = 0x3; /* arbitration on, as the firmware leaves it [value unverified] */
		/* a peripheral window the TCEs never see, high in IO space */
		p->mem1_lo = 0xe0000000u + 0x1000000u * n;
		p->mem1_size = 0xe0f00000u + 0x1000000u * n; /* the limit: (limit | 0xFFFFF) + 1 ends it at 16 MiB */
	}
	regwin_init_model(&m->win, ioc2 ? "calioc2-model" : "calgary-model", CALM_WINDOW, true, &ops, m);
}

static bool fault(struct calm_phb *p)
{
	p->csr |= CALM_CSR_FAULT;
	return false;
}

bool calm_translate(struct calgary_model *m, unsigned phb, uint64_t iova, bool write, uint64_t *phys)
{
	struct calm_phb *p = &m->phb[phb];
	if (p->config & 0x1c000000u) /* SLOT_DISABLE: the PHB is fenced, nothing gets through */
		return false;
	/* the peripheral window: from (high << 32 | low) up to (limit | 0xFFFFF) + 1 */
	uint64_t mem1 = (uint64_t)p->mem1_hi << 32 | p->mem1_lo, mem1_end = ((uint64_t)p->mem1_size | 0xfffff) + 1;
	if (!(p->config & TCE_ENABLE) || (mem1_end > mem1 && iova >= mem1 && iova < mem1_end)) {
		*phys = iova; /* untranslated */
		return true;
	}
	uint64_t index = iova >> 12, entries = 8192ull << (p->tar & 7);
	if (index >= entries)
		return fault(p);
	uint64_t tce = 0;
	bool hit = false;
	for (unsigned i = 0; i < p->cache_size; i++)
		if (p->cache[i].valid && p->cache[i].index == index) {
			tce = p->cache[i].tce, hit = true;
			break;
		}
	if (!hit) {
		const uint64_t *table = (const uint64_t *)(uintptr_t)(p->tar & 0x0000ffffffff8000ull);
		tce = __builtin_bswap64(table[index]); /* big-endian in memory */
		if (tce) {
			unsigned slot = p->cache_next++ % p->cache_size;
			p->cache[slot].valid = true;
			p->cache[slot].index = index;
			p->cache[slot].tce = tce;
		}
	}
	if (!(tce & (write ? 2u : 1u)))
		return fault(p);
	*phys = (tce & 0x0000fffffffff000ull) | (iova & 0xfff);
	return true;
}

/* ---- the faults `model` injects, and the kinds ---------------------------- */

static void inject_split_stuck(void *m)
{
	((struct calgary_model *)m)->split_stuck = true;
}

static void inject_softstop_three(void *m)
{
	((struct calgary_model *)m)->softstop_faults = 3;
}

static void inject_softstop_forever(void *m)
{
	((struct calgary_model *)m)->softstop_faults = ~0u;
}

const struct model_fault calm_faults[] = {
	{ "split-queue-stuck", "the split queue never quiesces", NULL, inject_split_stuck, IOMMU_OK,
	  IOMMU_ERR_TIMEOUT },
	{ "softstop-fault", "SoftStopFault on the next 3 attempts (the flush retries)", "calioc2",
	  inject_softstop_three, IOMMU_OK, IOMMU_OK },
	{ "softstop-forever", "SoftStopFault every time (the flush is abandoned)", "calioc2", inject_softstop_forever,
	  IOMMU_OK, IOMMU_ERR_ABANDONED },
	{ NULL },
};

const char *const calm_kind_names[] = { "calgary", "calioc2", NULL };
