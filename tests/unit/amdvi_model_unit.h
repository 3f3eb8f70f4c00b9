/* What the AMD-Vi model's tests (test_amdvi_model*.c) share: the MMIO,
 * device table entry and command encodings in the test's own reading of
 * the spec, the tables in memory, and the helpers that drive the model as
 * the spec says software drives the unit (registers through its window;
 * device table entries, page tables and commands written in memory),
 * from the spec, not from any driver. */
#ifndef IOMMON_TEST_AMDVI_MODEL_UNIT_H
#define IOMMON_TEST_AMDVI_MODEL_UNIT_H

#include "unit.h"

#include "core/base/macros.h"
#include "iommu/amdvi/model.h"
#include "iommu/models/models.h"

/* MMIO offsets and bits (spec 3.4), the test's own reading */
#define DEV_TAB 0x0000
#define CMD_BASE 0x0008
#define EVT_BASE 0x0010
#define CONTROL 0x0018
#define EXCL_BASE 0x0020
#define EXCL_LIMIT 0x0028
#define EFR 0x0030
#define CMD_HEAD 0x2000
#define CMD_TAIL 0x2008
#define EVT_HEAD 0x2010
#define EVT_TAIL 0x2018
#define STATUS 0x2020

#define IOMMU_EN (1ull << 0)
#define EVENT_LOG_EN (1ull << 2)
#define EVENT_INT_EN (1ull << 3)
#define COM_WAIT_INT_EN (1ull << 4)
#define CMD_BUF_EN (1ull << 12)
#define ON (IOMMU_EN | EVENT_LOG_EN | CMD_BUF_EN)

#define EVENT_OVERFLOW (1ull << 0)
#define EVENT_LOG_INT (1ull << 1)
#define COM_WAIT_INT (1ull << 2)
#define EVENT_LOG_RUN (1ull << 3)
#define CMD_BUF_RUN (1ull << 4)

#define LEN_256 (8ull << 56)
#define PR 1ull
#define IR (1ull << 61)
#define IW (1ull << 62)
#define NL(n) ((uint64_t)(n) << 9)
#define DTE_V 1ull
#define DTE_TV 2ull
#define MODE(n) ((uint64_t)(n) << 9)

#define DEV 0x1008 /* 10:01.0 */
#define OTHER 0x0200

static _Alignas(4096) uint64_t devtab[65536 * 4];
static _Alignas(4096) uint32_t cmdbuf[256 * 4];
static _Alignas(4096) uint32_t evtlog[256 * 4];
static _Alignas(4096) uint64_t pool[192][512];
static unsigned pool_next;
static volatile uint64_t store_word;
static struct amdvi_model m;
static unsigned msi_calls;

static inline void rd_msi(void *ctx)
{
	(*(unsigned *)ctx)++;
}

static inline uint64_t rd(uint64_t off)
{
	return regwin_read64(&m.win, off);
}

static inline void wr(uint64_t off, uint64_t v)
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

/* A unit with its device table (64K entries), a 256-entry command buffer
 * and event log, the rings at 0, and `control` written last (3.4). */
static inline void unit(uint64_t control)
{
	amdvim_init(&m);
	memset(devtab, 0, sizeof(devtab));
	memset(cmdbuf, 0, sizeof(cmdbuf));
	memset(evtlog, 0, sizeof(evtlog));
	pool_next = 0;
	msi_calls = 0;
	m.msi = rd_msi;
	m.msi_ctx = &msi_calls;
	wr(DEV_TAB, pa(devtab) | 0x1ff);
	wr(CMD_BASE, pa(cmdbuf) | LEN_256);
	wr(EVT_BASE, pa(evtlog) | LEN_256);
	wr(CONTROL, control);
}

static inline void dte(uint16_t devid, uint64_t q0, uint64_t q1)
{
	devtab[4 * devid] = q0;
	devtab[4 * devid + 1] = q1;
}

/* A device translated by a `levels`-level table in `domain`. */
static inline uint64_t *translated(uint16_t devid, unsigned levels, uint16_t domain)
{
	uint64_t *root = page();
	dte(devid, DTE_V | DTE_TV | MODE(levels) | pa(root) | IR | IW, domain);
	return root;
}

/* Maps `iova` to `phys` with a leaf at `leaf` level (1: 4 KiB, 2: 2 MiB,
 * 3: 1 GiB) under a `levels`-level root, PDEs read/write. */
static inline uint64_t *map(uint64_t *root, unsigned levels, unsigned leaf, uint64_t iova, uint64_t phys, uint64_t perm)
{
	uint64_t *t = root;
	for (unsigned l = levels; l > leaf; l--) {
		uint64_t *e = &t[(iova >> (12 + 9 * (l - 1))) & 511];
		if (!(*e & PR))
			*e = pa(page()) | NL(l - 1) | PR | IR | IW;
		t = (uint64_t *)(uintptr_t)(*e & 0x000ffffffffff000ull);
	}
	uint64_t *e = &t[(iova >> (12 + 9 * (leaf - 1))) & 511];
	*e = phys | NL(0) | PR | perm;
	return e;
}

static inline void command(uint32_t d0, uint32_t d1, uint32_t d2, uint32_t d3)
{
	uint64_t tail = rd(CMD_TAIL);
	uint32_t *c = &cmdbuf[tail / 4];
	c[0] = d0, c[1] = d1, c[2] = d2, c[3] = d3;
	wr(CMD_TAIL, (tail + 16) % sizeof(cmdbuf));
}

static inline void inval_pages(uint16_t domain, uint64_t addr, bool s)
{
	command(0, 3u << 28 | domain, (uint32_t)(addr & ~0xfffull) | (s ? 1u : 0u), (uint32_t)(addr >> 32));
}

static inline void inval_dte(uint16_t devid)
{
	command(devid, 2u << 28, 0, 0);
}

static inline void completion_wait(uint64_t data, bool interrupt)
{
	uint64_t a = pa((const void *)&store_word);
	command((uint32_t)a | 1u | (interrupt ? 2u : 0u), 1u << 28 | (uint32_t)(a >> 32), (uint32_t)data,
		(uint32_t)(data >> 32));
}

static inline bool dma(uint16_t devid, uint64_t iova, bool write, uint64_t *phys)
{
	*phys = 0;
	return amdvim_translate(&m, devid, iova, write, phys);
}

static inline uint64_t through(uint16_t devid, uint64_t iova)
{
	uint64_t phys;
	assert_true(dma(devid, iova, false, &phys));
	return phys;
}

/* The i-th entry the unit logged. */
static inline const uint32_t *event_at(unsigned i)
{
	assert_true(rd(EVT_TAIL) >= 16 * (i + 1));
	return &evtlog[4 * i];
}

static inline uint64_t event_addr(const uint32_t *e)
{
	return (uint64_t)e[3] << 32 | e[2];
}

static inline void assert_clean(void)
{
	assert_int_equal(m.bad_width, 0);
	assert_int_equal(m.reserved_writes, 0);
	assert_int_equal(m.protocol_errors, 0);
	assert_int_equal(m.win.out_of_window, 0);
}

#endif
