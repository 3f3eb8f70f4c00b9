/* The AMD-Vi model's translation (see amdvi_model.h): the device table
 * entry (spec 2.2.2) through a DTE cache, the exclusion range (2.2.1.1),
 * the host page-table walk (2.2.3) through an IOTLB tagged by domain, and
 * the events a refused request logs (2.5). The caches keep what they hold
 * until the command that covers it (amdvi_model.c runs the commands).
 * Its own reading of the spec, on purpose: never include the AMD-Vi
 * driver's register header here (amdvi_model.h says why). */
#include "model.h"

#include <stddef.h>

#define ADDR_MASK 0x000ffffffffff000ull /* bits 51:12 of a base or an entry */
#define IOMMU_EN (1ull << 0)
#define EXCL_EN (1ull << 0)
#define EXCL_ALLOW (1ull << 1)
#define EVENT_LOG_RUN (1ull << 3)

/* DTE, quadword 0 */
#define DTE_V (1ull << 0)
#define DTE_TV (1ull << 1)
#define DTE_MODE(q) ((unsigned)((q) >> 9) & 7)
#define DTE_IR_SHIFT 61 /* IR at 61, IW at 62: the same two bits as in a PTE */
/* Reserved with this EFR: 6:2; HAD 8:7 (no HASup); PPR 52 (no PPRSup);
 * GPRP, GIoV, GV, GLX, GCR3 TRP 60:53 (no GTSup); 63. */
#define DTE_Q0_RESERVED 0x9ff00000000001fcull
/* DTE, quadword 1: DomainID 15:0; GCR3 31:16 and 63:43 without GTSup */
#define DTE_Q1_RESERVED 0xfffff800ffff0000ull
#define DTE_SA (1ull << 34) /* suppress all I/O page faults */
#define DTE_EX (1ull << 39) /* the exclusion range applies to this device */

/* PDE/PTE (2.2.3) */
#define PTE_PR (1ull << 0)
#define PTE_NEXT_LEVEL(e) ((unsigned)((e) >> 9) & 7)

enum { PERM_R = 1, PERM_W = 2 };

static unsigned perms(uint64_t e)
{
	return (unsigned)(e >> DTE_IR_SHIFT) & 3;
}

/* The span of one entry of a level-`l` table. */
static uint64_t span(unsigned l)
{
	return l >= 7 ? 0 : 1ull << (12 + 9 * (l - 1)); /* level 6 entries: 2^57 */
}

static bool io_page_fault(struct amdvi_model *m, uint16_t devid, const uint64_t *dte, uint64_t iova, bool write,
			  uint32_t flags)
{
	if (!(dte[1] & DTE_SA))
		amdvim_log_event(m, devid,
				 (uint32_t)AMDVIM_EV_IO_PAGE_FAULT << 28 | flags | (write ? AMDVIM_EVF_RW : 0) |
				     (uint16_t)dte[1],
				 iova);
	return false;
}

static bool event(struct amdvi_model *m, enum amdvim_event code, uint16_t devid, uint32_t flags, bool write,
		  uint64_t addr)
{
	amdvim_log_event(m, devid, (uint32_t)code << 28 | flags | (write ? AMDVIM_EVF_RW : 0), addr);
	return false;
}

void amdvim_drop_dte(struct amdvi_model *m, bool all, uint16_t devid)
{
	for (unsigned i = 0; i < AMDVIM_DTE_CACHE; i++)
		if (all || m->dtc[i].devid == devid)
			m->dtc[i].valid = false;
}

void amdvim_drop_pages(struct amdvi_model *m, bool all, uint16_t domain, uint64_t first, uint64_t size)
{
	uint64_t last = first + (size - 1);
	for (unsigned i = 0; i < AMDVIM_IOTLB; i++) {
		struct amdvim_tlb *t = &m->tlb[i];
		if (all || (t->domain == domain && t->iova <= last && t->iova + (t->size - 1) >= first))
			t->valid = false;
	}
}

/* The device's DTE, from the cache or the table; NULL after logging why
 * it could not be read. */
static const uint64_t *lookup_dte(struct amdvi_model *m, uint16_t devid, uint64_t iova, bool write)
{
	for (unsigned i = 0; i < AMDVIM_DTE_CACHE; i++)
		if (m->dtc[i].valid && m->dtc[i].devid == devid)
			return m->dtc[i].dte;
	uint64_t entries = ((m->devtab & 0x1ff) + 1) * 4096 / 32;
	if (devid >= entries) { /* beyond the table's size */
		event(m, AMDVIM_EV_ILLEGAL_DEV_TABLE_ENTRY, devid, 0, write, iova);
		return NULL;
	}
	if (!(m->devtab & ADDR_MASK)) {
		event(m, AMDVIM_EV_DEV_TAB_HARDWARE_ERROR, devid, 0, write, iova);
		return NULL;
	}
	const volatile uint64_t *d = (const volatile uint64_t *)(uintptr_t)((m->devtab & ADDR_MASK) + 32ull * devid);
	struct amdvim_dtc *c = &m->dtc[m->dtc_next++ % AMDVIM_DTE_CACHE];
	c->valid = true;
	c->devid = devid;
	for (unsigned q = 0; q < 4; q++)
		c->dte[q] = d[q];
	return c->dte;
}

/* Untranslated, within the DTE's IR/IW (TV=0 or Mode 0). */
static bool filtered(struct amdvi_model *m, uint16_t devid, const uint64_t *dte, uint64_t iova, bool write,
		     uint64_t *phys)
{
	if (!(perms(dte[0]) & (write ? PERM_W : PERM_R)))
		return io_page_fault(m, devid, dte, iova, write, AMDVIM_EVF_PR | AMDVIM_EVF_PE);
	*phys = iova;
	return true;
}

/* The size a PTE with NextLevel 7 encodes (2.2.3): the lowest zero bit of
 * its address at or above bit 12; 0 when none. */
static uint64_t encoded_size(uint64_t pte)
{
	uint64_t a = (pte & ADDR_MASK) >> 12;
	unsigned ones = (unsigned)__builtin_ctzll(~a);
	return ones >= 39 ? 0 : 1ull << (13 + ones);
}

static bool walk(struct amdvi_model *m, uint16_t devid, const uint64_t *dte, uint64_t iova, bool write, uint64_t *phys)
{
	unsigned level = DTE_MODE(dte[0]), perm = perms(dte[0]);
	uint16_t domain = (uint16_t)dte[1];
	if (level < 6 && (iova >> (12 + 9 * level))) /* beyond what the root covers */
		return io_page_fault(m, devid, dte, iova, write, 0);
	for (unsigned i = 0; i < AMDVIM_IOTLB; i++) {
		struct amdvim_tlb *t = &m->tlb[i];
		if (t->valid && t->domain == domain && iova - t->iova < t->size) {
			m->tlb_hits++;
			if (!(t->perm & (write ? PERM_W : PERM_R)))
				return io_page_fault(m, devid, dte, iova, write, AMDVIM_EVF_PR | AMDVIM_EVF_PE);
			*phys = t->phys + (iova - t->iova);
			return true;
		}
	}
	m->walks++;
	uint64_t table = dte[0] & ADDR_MASK;
	for (;;) {
		if (!table)
			return event(m, AMDVIM_EV_PAGE_TAB_HARDWARE_ERROR, devid, 0, write, iova);
		unsigned shift = 12 + 9 * (level - 1);
		uint64_t e = ((const volatile uint64_t *)(uintptr_t)table)[(iova >> shift) & 511];
		if (!(e & PTE_PR))
			return io_page_fault(m, devid, dte, iova, write, 0);
		perm &= perms(e);
		unsigned nl = PTE_NEXT_LEVEL(e);
		if (nl == 0 || nl == 7) { /* a leaf: this level's size, or the encoded one */
			uint64_t size = nl == 0 ? span(level) : encoded_size(e);
			if (!size || (nl == 7 && (size <= span(level) || (level < 6 && size > span(level + 1)))))
				return io_page_fault(m, devid, dte, iova, write, AMDVIM_EVF_PR | AMDVIM_EVF_RZ);
			uint64_t base = e & ADDR_MASK & ~(size - 1), first = iova & ~(size - 1);
			if (!(perm & (write ? PERM_W : PERM_R)))
				return io_page_fault(m, devid, dte, iova, write, AMDVIM_EVF_PR | AMDVIM_EVF_PE);
			struct amdvim_tlb *t = &m->tlb[m->tlb_next++ % AMDVIM_IOTLB];
			*t = (struct amdvim_tlb){ true, domain, first, size, base, perm };
			*phys = base + (iova - first);
			return true;
		}
		if (nl >= level) /* a next level must be lower */
			return io_page_fault(m, devid, dte, iova, write, AMDVIM_EVF_PR | AMDVIM_EVF_RZ);
		/* skipped levels: their address bits must be zero */
		for (unsigned l = level - 1; l > nl; l--)
			if ((iova >> (12 + 9 * (l - 1))) & 511)
				return io_page_fault(m, devid, dte, iova, write, 0);
		table = e & ADDR_MASK;
		level = nl;
	}
}

bool amdvim_translate(void *model, uint16_t devid, uint64_t iova, bool write, uint64_t *phys)
{
	struct amdvi_model *m = model;
	if (!(m->control & IOMMU_EN)) {
		*phys = iova;
		return true;
	}
	uint64_t excl_last = (m->excl_limit & ADDR_MASK) | 0xfff;
	bool excluded = (m->excl_base & EXCL_EN) && iova >= (m->excl_base & ADDR_MASK) && iova <= excl_last;
	if (excluded && (m->excl_base & EXCL_ALLOW)) {
		*phys = iova;
		return true;
	}
	const uint64_t *dte = lookup_dte(m, devid, iova, write);
	if (!dte)
		return false;
	if (!(dte[0] & DTE_V) || (excluded && (dte[1] & DTE_EX))) {
		*phys = iova; /* V=0: the device is not translated */
		return true;
	}
	if ((dte[0] & DTE_Q0_RESERVED) || (dte[1] & DTE_Q1_RESERVED) || DTE_MODE(dte[0]) == 7)
		return event(m, AMDVIM_EV_ILLEGAL_DEV_TABLE_ENTRY, devid, AMDVIM_EVF_RZ, write, iova);
	if (!(dte[0] & DTE_TV) || DTE_MODE(dte[0]) == 0)
		return filtered(m, devid, dte, iova, write, phys);
	return walk(m, devid, dte, iova, write, phys);
}

/* ---- interrupt remapping (2.2.5) ------------------------------------------ */

/* DTE, quadword 2 */
#define DTE_IV (1ull << 0)
#define DTE_INT_TAB_LEN(q) ((unsigned)((q) >> 1) & 15) /* 2^n entries; 12 and above reserved */
#define DTE_IG (1ull << 5)			       /* unmapped interrupts not logged */
#define DTE_INT_ROOT 0x000fffffffffffc0ull	       /* 51:6 */
#define DTE_INT_CTL(q) ((unsigned)((q) >> 60) & 3)
/* IRTE, 32-bit format (2.2.5.2) */
#define IRTE_REMAP_EN (1u << 0)
#define IRTE_SUP_IOPF (1u << 1)
#define IRTE_RESERVED 0xff000080u		    /* 31:24, and GuestMode without GA */
#define IRTE_INT_TYPE(e) ((unsigned)((e) >> 2) & 7) /* 000b fixed, 001b arbitrated */
/* IRTE, 128-bit format with GuestMode 0 (2.2.5.3): the low quadword as
 * above but Destination[23:0] in 31:8 and 63:32 reserved; the high one
 * Vector 7:0, Destination[31:24] 63:56, 55:8 reserved */
#define CTRL_GA_EN (1ull << 17)
#define CTRL_XT_EN (1ull << 50)
#define IRTE_GA_GUEST_MODE (1ull << 7)
#define IRTE_GA_LO_RESERVED 0xffffffff00000000ull
#define IRTE_GA_HI_RESERVED 0x00ffffffffffff00ull

void amdvim_drop_irt(struct amdvi_model *m, bool all, uint16_t devid)
{
	for (unsigned i = 0; i < AMDVIM_IRT_CACHE; i++)
		if (all || m->irtc[i].devid == devid)
			m->irtc[i].valid = false;
}

static bool blocked(struct amdvi_model *m, uint16_t devid, const uint64_t *dte, uint64_t addr, uint32_t flags,
		    bool suppress)
{
	m->interrupts_blocked++;
	if (!suppress)
		amdvim_log_event(
		    m, devid, (uint32_t)AMDVIM_EV_IO_PAGE_FAULT << 28 | AMDVIM_EVF_I | flags | (uint16_t)dte[1], addr);
	return false;
}

static bool irte_bad(bool ga, uint64_t lo, uint64_t hi)
{
	if (!ga)
		return (lo & IRTE_RESERVED) || IRTE_INT_TYPE(lo) > 1;
	return (lo & (IRTE_GA_LO_RESERVED | IRTE_GA_GUEST_MODE)) || (hi & IRTE_GA_HI_RESERVED) || IRTE_INT_TYPE(lo) > 1;
}

/* Entry `index` of the device's table (32 or, with `ga`, 128 bits),
 * through the cache. */
static void read_irte(struct amdvi_model *m, uint16_t devid, const uint64_t *dte, unsigned index, bool ga, uint64_t *lo,
		      uint64_t *hi)
{
	for (unsigned i = 0; i < AMDVIM_IRT_CACHE; i++)
		if (m->irtc[i].valid && m->irtc[i].devid == devid && m->irtc[i].index == index) {
			m->irte_hits++;
			*lo = m->irtc[i].lo, *hi = m->irtc[i].hi;
			return;
		}
	uintptr_t root = (uintptr_t)(dte[2] & DTE_INT_ROOT);
	if (ga)
		*lo = ((const volatile uint64_t *)root)[2 * index],
		*hi = ((const volatile uint64_t *)root)[2 * index + 1];
	else
		*lo = ((const volatile uint32_t *)root)[index], *hi = 0;
	if ((*lo & IRTE_REMAP_EN) && !irte_bad(ga, *lo, *hi))
		m->irtc[m->irtc_next++ % AMDVIM_IRT_CACHE] =
		    (struct amdvim_irtc){ true, devid, (uint16_t)index, *lo, *hi };
}

bool amdvim_msi(struct amdvi_model *m, uint16_t devid, uint64_t addr, uint32_t data, uint8_t *vector, uint32_t *dest)
{
	if ((addr >> 20) != 0xfee)
		return false;
	*vector = (uint8_t)data, *dest = (uint32_t)(addr >> 12) & 0xff; /* as sent */
	if (!(m->control & IOMMU_EN))
		return true;
	const uint64_t *dte = lookup_dte(m, devid, addr, true);
	if (!dte)
		return false;
	if (!(dte[0] & DTE_V) || !(dte[2] & DTE_IV))
		return true;
	unsigned ctl = DTE_INT_CTL(dte[2]), len = DTE_INT_TAB_LEN(dte[2]);
	if (ctl == 3 || (ctl == 2 && len > 11))
		return event(m, AMDVIM_EV_ILLEGAL_DEV_TABLE_ENTRY, devid, AMDVIM_EVF_I | AMDVIM_EVF_RZ, true, addr);
	if (ctl == 0) { /* target abort, nothing logged */
		m->interrupts_blocked++;
		return false;
	}
	if (ctl == 1)
		return true;
	unsigned index = data & 0x7ff;
	if (index >> len)
		return blocked(m, devid, dte, addr, AMDVIM_EVF_PR, dte[2] & DTE_IG);
	if (!(dte[2] & DTE_INT_ROOT))
		return event(m, AMDVIM_EV_PAGE_TAB_HARDWARE_ERROR, devid, AMDVIM_EVF_I, true, addr);
	bool ga = (m->control & CTRL_GA_EN) != 0;
	uint64_t e, hi;
	read_irte(m, devid, dte, index, ga, &e, &hi);
	if (!(e & IRTE_REMAP_EN))
		return blocked(m, devid, dte, addr, 0, e & IRTE_SUP_IOPF);
	if (irte_bad(ga, e, hi))
		return blocked(m, devid, dte, addr, AMDVIM_EVF_PR | AMDVIM_EVF_RZ, e & IRTE_SUP_IOPF);
	if (!ga)
		*vector = (uint8_t)(e >> 16), *dest = (e >> 8) & 0xff;
	else {
		*vector = (uint8_t)hi;
		*dest = (uint32_t)((e >> 8) & 0xffffff) | (uint32_t)(hi >> 56) << 24;
		if (!(m->control & CTRL_XT_EN))
			*dest &= 0xff;
	}
	m->interrupts_remapped++;
	return true;
}
