/* What the SMMUv3 model's tests (test_smmuv3_model*.c) share: the
 * register, STE, CD, descriptor and command encodings in the test's own
 * reading of IHI 0070, a pool of pages, and the helpers that drive the
 * model as the spec says software drives the unit (registers through its
 * window; stream tables, STEs, CDs, translation tables and commands
 * written in memory), from the spec, not from any driver. */
#ifndef IOMMON_TEST_SMMUV3_MODEL_UNIT_H
#define IOMMON_TEST_SMMUV3_MODEL_UNIT_H

#include "unit.h"

#include "core/base/macros.h"
#include "iommu/models/models.h"
#include "iommu/smmuv3/model.h"

/* Register offsets and bits (6.2, 6.3), the test's own reading */
#define IDR0 0x00
#define IDR1 0x04
#define IDR3 0x0c
#define IDR5 0x14
#define CR0 0x20
#define CR0ACK 0x24
#define CR2 0x2c
#define GBPA 0x44
#define IRQ_CTRL 0x50
#define IRQ_CTRLACK 0x54
#define GERROR 0x60
#define GERRORN 0x64
#define STRTAB_BASE 0x80
#define STRTAB_BASE_CFG 0x88
#define CMDQ_BASE 0x90
#define CMDQ_PROD 0x98
#define CMDQ_CONS 0x9c
#define EVENTQ_BASE 0xa0
#define EVENTQ_PROD 0x100a8
#define EVENTQ_CONS 0x100ac

#define SMMUEN 1u
#define EVENTQEN 4u
#define CMDQEN 8u
#define RECINVSID 2u
#define GBPA_UPDATE (1u << 31)
#define GBPA_ABORT (1u << 20)
#define OVFLG (1u << 31)

/* STE and CD fields (5.2, 5.4) */
#define STE_V 1ull
#define CFG_ABORT (0ull << 1)
#define CFG_BYPASS (4ull << 1)
#define CFG_S1 (5ull << 1)
#define CFG_S2 (6ull << 1)
#define CD_EPD1 (1ull << 30)
#define CD_V (1ull << 31)
#define CD_IPS(n) ((uint64_t)(n) << 32)
#define CD_AFFD (1ull << 35)
#define CD_AA64 (1ull << 41)
#define CD_R (1ull << 45)
#define CD_A (1ull << 46)
#define TG0_4K 0u
#define TG0_64K 1u
#define TG0_16K 2u

/* Descriptors (Arm ARM D8.3) */
#define D_VALID 1ull
#define D_TABLE 2ull
#define D_AP1 (1ull << 6)
#define D_AP2 (1ull << 7)
#define D_SH_IS (3ull << 8)
#define D_AF (1ull << 10)
#define D_NG (1ull << 11)
#define APTABLE_RO (1ull << 62)
#define LEAF (D_AF | D_AP1 | D_NG | D_SH_IS) /* read/write, unprivileged, non-global */
/* stage-2 leaves: S2AP[0] read, S2AP[1] write, MemAttr normal write-back */
#define S2_R (1ull << 6)
#define S2_W (1ull << 7)
#define S2_LEAF (0xfull << 2 | D_SH_IS | D_AF)

/* STE doubleword 2 (5.2): the stage-2 fields */
#define S2AA64 (1ull << 51)
#define S2ENDI (1ull << 52)
#define S2AFFD (1ull << 53)
#define S2R (1ull << 58)
/* event record (7.3): S2, CLASS */
#define EV_S2 (1ull << 39)
#define EV_CLASS(e1) (((e1) >> 40) & 3)

/* Commands (4) */
#define CFGI_STE 0x03
#define CFGI_STE_RANGE 0x04
#define CFGI_CD 0x05
#define TLBI_NH_ALL 0x10
#define TLBI_NH_ASID 0x11
#define TLBI_NH_VA 0x12
#define TLBI_NH_VAA 0x13
#define TLBI_NSNH_ALL 0x30
#define TLBI_S12_VMALL 0x28
#define TLBI_S2_IPA 0x2a
#define CMD_SYNC 0x46

#define SID 0x1008 /* 10:01.0 */
#define LOG2_STES 13
#define CMDQ_LOG2 8
#define EVTQ_LOG2 7

static _Alignas(65536) uint64_t pool[40][8192]; /* 64 KiB pages: tables of any granule */
static unsigned pool_next;
static _Alignas(1 << 19) uint64_t strtab[(1 << LOG2_STES) * 8];
static _Alignas(4096) uint64_t cmdq[(1 << CMDQ_LOG2) * 2];
static _Alignas(4096) uint64_t evtq[(1 << EVTQ_LOG2) * 4];
static _Alignas(64) uint64_t cds[4][8];
static struct smmuv3_model m;
static unsigned irq_calls[3];

static inline void on_irq(void *ctx, enum smmuv3m_irq which)
{
	((unsigned *)ctx)[which]++;
}

static inline uint32_t rd(uint64_t off)
{
	return regwin_read32(&m.win, off);
}

static inline void wr(uint64_t off, uint32_t v)
{
	regwin_write32(&m.win, off, v);
}

static inline void wr64(uint64_t off, uint64_t v)
{
	regwin_write64(&m.win, off, v);
}

static inline uint64_t pa(const void *p)
{
	return (uint64_t)(uintptr_t)p;
}

static inline uint64_t *page(void)
{
	assert_true(pool_next < ARRAY_SIZE(pool));
	memset(pool[pool_next], 0, sizeof(pool[0]));
	return pool[pool_next++];
}

/* CR0 written and its ACK polled, as the spec asks (6.3.9). */
static inline void cr0(uint32_t v)
{
	wr(CR0, v);
	for (unsigned i = 0; i < 8 && rd(CR0ACK) != v; i++)
		;
	assert_int_equal(rd(CR0ACK), v);
}

/* A unit of `kind` with a linear stream table of 2^13 STEs, a 256-entry
 * command queue and a 128-entry event queue, enabled in the order of 3.11. */
static inline void unit(const char *kind)
{
	assert_true(smmuv3m_init(&m, kind));
	memset(strtab, 0, sizeof(strtab));
	memset(cmdq, 0, sizeof(cmdq));
	memset(evtq, 0, sizeof(evtq));
	memset(cds, 0, sizeof(cds));
	memset(irq_calls, 0, sizeof(irq_calls));
	pool_next = 0;
	m.irq = on_irq;
	m.irq_ctx = irq_calls;
	wr64(STRTAB_BASE, pa(strtab));
	wr(STRTAB_BASE_CFG, LOG2_STES);
	wr64(CMDQ_BASE, pa(cmdq) | CMDQ_LOG2);
	wr64(EVENTQ_BASE, pa(evtq) | EVTQ_LOG2);
	wr(CR2, RECINVSID);
	cr0(CMDQEN | EVENTQEN);
	cr0(CMDQEN | EVENTQEN | SMMUEN);
}

static inline void command(uint64_t c0, uint64_t c1)
{
	uint32_t prod = rd(CMDQ_PROD), i = prod & ((1u << CMDQ_LOG2) - 1);
	cmdq[2 * i] = c0;
	cmdq[2 * i + 1] = c1;
	wr(CMDQ_PROD, (prod + 1) & ((2u << CMDQ_LOG2) - 1));
}

static inline void cmd_sync(void)
{
	command(CMD_SYNC, 0);
	assert_int_equal(rd(CMDQ_CONS), rd(CMDQ_PROD)); /* consumed: the fence is complete */
}

static inline void tlbi_va(uint16_t asid, uint64_t va)
{
	command(TLBI_NH_VA | (uint64_t)asid << 48, va & ~0xfffull);
	cmd_sync();
}

/* The CD: TTB0 `ttb`, the granule, T0SZ, the ASID, IPS 44 bits, R and A,
 * AA64, walks of TTB1 disabled; `extra` or-ed in. */
static inline uint64_t *cd_at(unsigned i, uint64_t *ttb, unsigned tg, unsigned t0sz, uint16_t asid, uint64_t extra)
{
	uint64_t *cd = cds[i];
	cd[0] = t0sz | (uint64_t)tg << 6 | 1ull << 8 | 1ull << 10 | 3ull << 12 | CD_EPD1 | CD_V | CD_IPS(4) | CD_AA64 |
		CD_R | CD_A | (uint64_t)asid << 48 | extra;
	cd[1] = pa(ttb);
	return cd;
}

static inline void ste(uint32_t sid, uint64_t config, const uint64_t *cd)
{
	strtab[8 * sid] = STE_V | config | (cd ? pa(cd) : 0);
}

/* A stream translated through TTB0 `root` at granule shift `g`. */
static inline uint64_t *translated(uint32_t sid, unsigned g, unsigned t0sz, uint16_t asid)
{
	uint64_t *root = page();
	unsigned tg = g == 12 ? TG0_4K : g == 14 ? TG0_16K : TG0_64K;
	ste(sid, CFG_S1, cd_at(0, root, tg, t0sz, asid, 0));
	return root;
}

/* A stream translated at stage 2 only (Config 0b110): S2TTB `ttb`, the
 * granule (S2TG as TG0), S2T0SZ, S2SL0, the VMID, S2PS 44 bits, S2R,
 * walks write-back inner shareable; `extra` or-ed into doubleword 2. */
static inline void ste_s2(uint32_t sid, const uint64_t *ttb, unsigned tg, unsigned t0sz, unsigned sl0, uint16_t vmid,
			  uint64_t extra)
{
	uint64_t *e = &strtab[8 * sid];
	e[2] = vmid | (uint64_t)t0sz << 32 | (uint64_t)sl0 << 38 | 1ull << 40 | 1ull << 42 | 3ull << 44 |
	       (uint64_t)tg << 46 | 4ull << 48 | S2AA64 | S2R | extra;
	e[3] = pa(ttb);
	e[0] = STE_V | CFG_S2;
}

/* Maps `ipa` to `pa_` with a page under a stage-2 root whose start level
 * resolves the IPA's `ia` bits above it (concatenated tables when more
 * than a stride). */
static inline uint64_t *map_s2(uint64_t *root, unsigned g, unsigned ia, unsigned start, uint64_t ipa, uint64_t pa_,
			       uint64_t attrs)
{
	unsigned stride = g - 3;
	uint64_t *t = root;
	for (unsigned level = start;; level++) {
		unsigned shift = g + stride * (3 - level), bits = level == start ? ia - shift : stride;
		uint64_t *e = &t[(ipa >> shift) & ((1ull << bits) - 1)];
		if (level == 3) {
			*e = pa_ | attrs | D_VALID | D_TABLE;
			return e;
		}
		if (!(*e & D_VALID))
			*e = pa(page()) | D_VALID | D_TABLE;
		t = (uint64_t *)(uintptr_t)(*e & 0x0000fffffffff000ull);
	}
}

/* Maps `va` to `pa_` with a leaf at `leaf` level under a root for granule
 * shift `g` and T0SZ; returns the leaf descriptor. */
static inline uint64_t *map(uint64_t *root, unsigned g, unsigned t0sz, unsigned leaf, uint64_t va, uint64_t pa_,
			    uint64_t attrs)
{
	unsigned stride = g - 3, vabits = 64 - t0sz, level = 4 - (vabits - g + stride - 1) / stride;
	uint64_t *t = root;
	for (;; level++) {
		unsigned shift = g + stride * (3 - level);
		uint64_t *e = &t[(va >> shift) & ((1ull << stride) - 1)];
		if (level == leaf) {
			*e = pa_ | attrs | D_VALID | (leaf == 3 ? D_TABLE : 0);
			return e;
		}
		if (!(*e & D_VALID))
			*e = pa(page()) | D_VALID | D_TABLE;
		t = (uint64_t *)(uintptr_t)(*e & 0x0000fffffffff000ull);
	}
}

static inline bool dma(uint64_t iova, bool write, uint64_t *phys)
{
	*phys = 0;
	return smmuv3m_translate(&m, SID, iova, write, phys);
}

static inline uint64_t through(uint64_t iova)
{
	uint64_t phys;
	assert_true(dma(iova, false, &phys));
	return phys;
}

static inline unsigned events_written(void)
{
	return rd(EVENTQ_PROD) & ((2u << EVTQ_LOG2) - 1);
}

/* The i-th record the unit wrote. */
static inline const uint64_t *event_at(unsigned i)
{
	assert_true(events_written() > i);
	return &evtq[4 * i];
}

static inline unsigned event_type(unsigned i)
{
	return event_at(i)[0] & 0xff;
}

static inline void assert_clean(void)
{
	assert_int_equal(m.bad_width, 0);
	assert_int_equal(m.reserved_writes, 0);
	assert_int_equal(m.protocol_errors, 0);
	assert_int_equal(m.win.out_of_window, 0);
}

#endif
