/* The AMD-Vi model alone, driven as the spec says software drives the
 * unit: registers poked through its window, device table entries, page
 * tables and commands written in memory by this file's own helpers (from
 * the spec, not from any driver). Each claim is one the model could get
 * wrong: translation at every level count and leaf size, permissions,
 * stale IOTLB and DTE-cache entries until the precise invalidation, the
 * completion-wait store, an illegal command stopping the buffer, the
 * event log and its overflow, W1C status, the injected faults, and the
 * counters that fail a driver breaking the rules. */
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

static void rd_msi(void *ctx)
{
	(*(unsigned *)ctx)++;
}

static uint64_t rd(uint64_t off)
{
	return regwin_read64(&m.win, off);
}

static void wr(uint64_t off, uint64_t v)
{
	regwin_write64(&m.win, off, v);
}

static uint64_t pa(const void *p)
{
	return (uint64_t)(uintptr_t)p;
}

static uint64_t *page(void)
{
	assert_true(pool_next < ARRAY_SIZE(pool));
	memset(pool[pool_next], 0, sizeof(pool[0]));
	return pool[pool_next++];
}

/* A unit with its device table (64K entries), a 256-entry command buffer
 * and event log, the rings at 0, and `control` written last (3.4). */
static void unit(uint64_t control)
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

static void dte(uint16_t devid, uint64_t q0, uint64_t q1)
{
	devtab[4 * devid] = q0;
	devtab[4 * devid + 1] = q1;
}

/* A device translated by a `levels`-level table in `domain`. */
static uint64_t *translated(uint16_t devid, unsigned levels, uint16_t domain)
{
	uint64_t *root = page();
	dte(devid, DTE_V | DTE_TV | MODE(levels) | pa(root) | IR | IW, domain);
	return root;
}

/* Maps `iova` to `phys` with a leaf at `leaf` level (1: 4 KiB, 2: 2 MiB,
 * 3: 1 GiB) under a `levels`-level root, PDEs read/write. */
static uint64_t *map(uint64_t *root, unsigned levels, unsigned leaf, uint64_t iova, uint64_t phys, uint64_t perm)
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

static void command(uint32_t d0, uint32_t d1, uint32_t d2, uint32_t d3)
{
	uint64_t tail = rd(CMD_TAIL);
	uint32_t *c = &cmdbuf[tail / 4];
	c[0] = d0, c[1] = d1, c[2] = d2, c[3] = d3;
	wr(CMD_TAIL, (tail + 16) % sizeof(cmdbuf));
}

static void inval_pages(uint16_t domain, uint64_t addr, bool s)
{
	command(0, 3u << 28 | domain, (uint32_t)(addr & ~0xfffull) | (s ? 1u : 0u), (uint32_t)(addr >> 32));
}

static void inval_dte(uint16_t devid)
{
	command(devid, 2u << 28, 0, 0);
}

static void completion_wait(uint64_t data, bool interrupt)
{
	uint64_t a = pa((const void *)&store_word);
	command((uint32_t)a | 1u | (interrupt ? 2u : 0u), 1u << 28 | (uint32_t)(a >> 32), (uint32_t)data,
		(uint32_t)(data >> 32));
}

static bool dma(uint16_t devid, uint64_t iova, bool write, uint64_t *phys)
{
	*phys = 0;
	return amdvim_translate(&m, devid, iova, write, phys);
}

static uint64_t through(uint16_t devid, uint64_t iova)
{
	uint64_t phys;
	assert_true(dma(devid, iova, false, &phys));
	return phys;
}

/* The i-th entry the unit logged. */
static const uint32_t *event_at(unsigned i)
{
	assert_true(rd(EVT_TAIL) >= 16 * (i + 1));
	return &evtlog[4 * i];
}

static uint64_t event_addr(const uint32_t *e)
{
	return (uint64_t)e[3] << 32 | e[2];
}

static void assert_clean(void)
{
	assert_int_equal(m.bad_width, 0);
	assert_int_equal(m.reserved_writes, 0);
	assert_int_equal(m.protocol_errors, 0);
	assert_int_equal(m.win.out_of_window, 0);
}

/* ---- translation ---------------------------------------------------------- */

static void walks_every_level_count_and_leaf(void **state)
{
	(void)state;
	for (unsigned levels = 1; levels <= 6; levels++) {
		unit(ON);
		uint64_t *root = translated(DEV, levels, 7);
		/* the highest 4 KiB page the root covers, and the larger leaves below it */
		uint64_t top = levels == 6 ? 0xfffffffffffff000ull : (1ull << (12 + 9 * levels)) - 0x1000;
		map(root, levels, 1, top, 0x7654000, IR | IW);
		map(root, levels, 1, 0, 0x3000, IR | IW);
		assert_int_equal(through(DEV, top + 0x123), 0x7654123);
		assert_int_equal(through(DEV, 0x10), 0x3010);
		if (levels >= 2) {
			map(root, levels, 2, 0x200000, 0x40000000, IR | IW);
			assert_int_equal(through(DEV, 0x2abcde), 0x400abcde);
		}
		if (levels >= 3) {
			map(root, levels, 3, 0x80000000, 0x140000000, IR | IW);
			assert_int_equal(through(DEV, 0x9234567c), 0x15234567c);
		}
		if (levels < 6) { /* above what the root covers: a fault, not a wrap to 0 */
			uint64_t phys;
			assert_false(dma(DEV, 1ull << (12 + 9 * levels), false, &phys));
			assert_int_equal(event_at(0)[1] >> 28, AMDVIM_EV_IO_PAGE_FAULT);
		}
		assert_clean();
	}
}

static void skips_levels_and_checks_skipped_bits(void **state)
{
	(void)state;
	unit(ON);
	uint64_t *root = translated(DEV, 4, 1), *l2 = page(), *l1 = page();
	root[0] = pa(l2) | NL(2) | PR | IR | IW; /* level 3 skipped */
	l2[1] = pa(l1) | NL(1) | PR | IR | IW;
	l1[3] = 0x5555000 | PR | IR | IW;
	assert_int_equal(through(DEV, 0x203008), 0x5555008);
	uint64_t phys;
	/* the same entries reached with a level-3 index that is not zero */
	assert_false(dma(DEV, (1ull << 30) | 0x203008, false, &phys));
	const uint32_t *e = event_at(0);
	assert_int_equal(e[1] >> 28, AMDVIM_EV_IO_PAGE_FAULT);
	assert_int_equal(e[1] & AMDVIM_EVF_PR, 0);
	/* a next level that is not lower than its own: an invalid encoding */
	root[1] = pa(l2) | NL(5) | PR | IR | IW;
	assert_false(dma(DEV, 1ull << 39, false, &phys));
	assert_true(event_at(1)[1] & AMDVIM_EVF_RZ);
}

static void encoded_page_size(void **state)
{
	(void)state;
	unit(ON);
	uint64_t *root = translated(DEV, 3, 1), *l2 = page();
	root[0] = pa(l2) | NL(2) | PR | IR | IW;
	/* 8 MiB (2.2.3): bits 21:12 ones, bit 22 zero; each 2 MiB slot holds the entry */
	for (unsigned i = 4; i < 8; i++)
		l2[i] = 0x80000000ull | 0x3ff000 | NL(7) | PR | IR | IW;
	assert_int_equal(through(DEV, 0x800000), 0x80000000);
	assert_int_equal(through(DEV, 0xfedcba), 0x807edcba);
	/* one invalidation anywhere in the 8 MiB drops the whole leaf */
	for (unsigned i = 4; i < 8; i++)
		l2[i] = 0x90000000ull | 0x3ff000 | NL(7) | PR | IR | IW;
	assert_int_equal(through(DEV, 0x800000), 0x80000000);
	inval_pages(1, 0xa00000, false);
	assert_int_equal(through(DEV, 0x800000), 0x90000000);
	/* a size no larger than the entry's own span is refused */
	l2[9] = 0x12344000ull | NL(7) | PR | IR | IW; /* bit 12 zero: 8 KiB at level 2 */
	uint64_t phys;
	assert_false(dma(DEV, 9ull << 21, false, &phys));
	assert_true(event_at(0)[1] & AMDVIM_EVF_RZ);
}

static void permissions_from_dte_pde_and_pte(void **state)
{
	(void)state;
	unit(ON);
	uint64_t *root = translated(DEV, 3, 0x42), phys;
	map(root, 3, 1, 0x1000, 0x11000, IR);
	assert_true(dma(DEV, 0x1000, false, &phys));
	assert_false(dma(DEV, 0x1008, true, &phys));
	const uint32_t *e = event_at(0);
	assert_int_equal(e[0], DEV);
	assert_int_equal(e[1] >> 28, AMDVIM_EV_IO_PAGE_FAULT);
	assert_int_equal(e[1] & 0xffff, 0x42);
	assert_int_equal(e[1] & (AMDVIM_EVF_PR | AMDVIM_EVF_PE | AMDVIM_EVF_RW),
			 AMDVIM_EVF_PR | AMDVIM_EVF_PE | AMDVIM_EVF_RW);
	assert_int_equal(event_addr(e), 0x1008);
	/* a PDE without IW forbids writes below it */
	map(root, 3, 1, 0x40000000, 0x22000, IR | IW);
	root[1] &= ~IW;
	assert_false(dma(DEV, 0x40000000, true, &phys));
	assert_true(dma(DEV, 0x40000000, false, &phys));
	/* the DTE's IW too */
	unit(ON);
	root = translated(DEV, 3, 1);
	devtab[4 * DEV] &= ~IW;
	map(root, 3, 1, 0x1000, 0x11000, IR | IW);
	assert_false(dma(DEV, 0x1000, true, &phys));
	/* not present: PR clear, the read flag clear; a leaf with an address
	 * and permissions but PR=0 is not present either */
	assert_false(dma(DEV, 0x5000, false, &phys));
	e = event_at(1);
	assert_int_equal(e[1] & (AMDVIM_EVF_PR | AMDVIM_EVF_RW), 0);
	assert_int_equal(event_addr(e), 0x5000);
	*map(root, 3, 1, 0x6000, 0x66000, IR | IW) &= ~PR;
	assert_false(dma(DEV, 0x6000, false, &phys));
	assert_int_equal(event_addr(event_at(2)), 0x6000);
}

static void dte_states(void **state)
{
	(void)state;
	uint64_t phys;
	unit(ON);
	assert_int_equal(through(OTHER, 0x1234), 0x1234); /* V=0: untranslated */
	dte(0x300, DTE_V | IR, 0);			  /* TV=0: untranslated within IR/IW */
	assert_true(dma(0x300, 0x5000, false, &phys));
	assert_false(dma(0x300, 0x5000, true, &phys));
	dte(0x301, DTE_V | DTE_TV | MODE(0) | IW, 0); /* Mode 0 likewise */
	assert_true(dma(0x301, 0x5000, true, &phys));
	assert_false(dma(0x301, 0x5000, false, &phys));
	dte(0x302, DTE_V | DTE_TV | MODE(7) | IR | IW, 0);
	assert_false(dma(0x302, 0x5000, false, &phys));
	assert_int_equal(event_at(2)[1] >> 28, AMDVIM_EV_ILLEGAL_DEV_TABLE_ENTRY);
	dte(0x303, DTE_V | DTE_TV | MODE(0) | IR | IW | (1ull << 55), 0); /* GV without GTSup */
	assert_false(dma(0x303, 0x5000, false, &phys));
	assert_int_equal(event_at(3)[0], 0x303);
	assert_true(event_at(3)[1] & AMDVIM_EVF_RZ);
	dte(0x304, DTE_V | DTE_TV | MODE(0), 1ull << 34); /* SA: the fault is not logged */
	assert_false(dma(0x304, 0x5000, false, &phys));
	assert_int_equal(rd(EVT_TAIL), 4 * 16);
	/* IommuEn off: nothing is translated */
	wr(CONTROL, 0);
	assert_true(dma(0x302, 0x5000, true, &phys));
	assert_clean();
}

/* What the unit cannot read: a device past the table's size, a table at
 * an address nothing answers. */
static void short_tables_and_master_aborts(void **state)
{
	(void)state;
	unit(ON);
	dte(DEV, DTE_V | DTE_TV | MODE(3) | IR | IW, 1); /* page table root 0 */
	uint64_t phys;
	assert_false(dma(DEV, 0x1000, false, &phys));
	assert_int_equal(event_at(0)[1] >> 28, AMDVIM_EV_PAGE_TAB_HARDWARE_ERROR);
	wr(CONTROL, 0);
	wr(DEV_TAB, pa(devtab)); /* one page: 128 entries */
	wr(CONTROL, ON);
	command(0, 8u << 28, 0, 0); /* the DTE cache still holds DEV's entry */
	assert_int_equal(through(0x7f, 0x1000), 0x1000);
	assert_false(dma(DEV, 0x1000, false, &phys));
	assert_int_equal(event_at(1)[0], DEV);
	assert_int_equal(event_at(1)[1] >> 28, AMDVIM_EV_ILLEGAL_DEV_TABLE_ENTRY);
	assert_clean();
	wr(CONTROL, 0);
	wr(DEV_TAB, 0x1ff);
	wr(CONTROL, ON); /* enabled with no device table: counted, and nothing read */
	assert_int_equal(m.protocol_errors, 1);
	assert_false(dma(0x7e, 0x1000, false, &phys));
	assert_int_equal(event_at(2)[1] >> 28, AMDVIM_EV_DEV_TAB_HARDWARE_ERROR);
}

static void exclusion_range(void **state)
{
	(void)state;
	unit(ON);
	translated(DEV, 3, 1);								/* nothing mapped */
	dte(0x300, DTE_V | DTE_TV | MODE(3) | pa(page()) | IR | IW, 2ull | 1ull << 39); /* EX */
	wr(EXCL_BASE, 0x100000 | 1);							/* ExEn */
	wr(EXCL_LIMIT, 0x1fffff); /* the low 12 bits read as ones: writing them is no fault */
	uint64_t phys;
	assert_false(dma(DEV, 0x100000, false, &phys));
	assert_int_equal(through(0x300, 0x1fffff), 0x1fffff);
	assert_false(dma(0x300, 0x200000, false, &phys));
	wr(EXCL_BASE, 0x100000 | 3); /* Allow: every device */
	assert_int_equal(through(DEV, 0x100000), 0x100000);
	assert_clean();
}

/* ---- caches and their invalidations ----------------------------------------- */

static void iotlb_stale_until_the_precise_invalidation(void **state)
{
	(void)state;
	unit(ON);
	uint64_t *root = translated(DEV, 4, 5);
	uint64_t *a = map(root, 4, 1, 0x10000, 0xa000, IR | IW);
	map(root, 4, 1, 0x11000, 0xb000, IR | IW);
	assert_int_equal(through(DEV, 0x10000), 0xa000);
	*a = 0xc000 | PR | IR | IW;
	assert_int_equal(through(DEV, 0x10000), 0xa000); /* cached */
	inval_pages(6, 0x10000, false);			 /* another domain */
	inval_pages(5, 0x11000, false);			 /* another page */
	inval_pages(5, 0x12000, true);			 /* 8 KiB at 0x12000 */
	inval_dte(DEV);					 /* the IOTLB is not the DTE cache */
	assert_int_equal(through(DEV, 0x10000), 0xa000);
	assert_int_equal(m.page_invalidations, 3);
	inval_pages(5, 0x10000, false);
	assert_int_equal(through(DEV, 0x10000), 0xc000);
	/* a range with S: 0x13000, bits 13:12 ones and 14 zero, is 32 KiB at 0x10000 */
	*a = 0xd000 | PR | IR | IW;
	assert_int_equal(through(DEV, 0x10000), 0xc000);
	inval_pages(5, 0x13000, true);
	assert_int_equal(through(DEV, 0x10000), 0xd000);
	/* 0x11000 with S is 16 KiB at 0x10000: 0x13000 goes, 0x14000 stays */
	uint64_t *c = map(root, 4, 1, 0x13000, 0x13000, IR | IW), *d = map(root, 4, 1, 0x14000, 0x14000, IR | IW);
	assert_int_equal(through(DEV, 0x13000) + through(DEV, 0x14000), 0x27000);
	*c = 0x33000 | PR | IR | IW;
	*d = 0x44000 | PR | IR | IW;
	inval_pages(5, 0x11000, true);
	assert_int_equal(through(DEV, 0x13000), 0x33000);
	assert_int_equal(through(DEV, 0x14000), 0x14000);
	/* every page of the domain: S with 7FFF_FFFF_FFFF_F000h */
	*a = 0xe000 | PR | IR | IW;
	inval_pages(5, 0x7ffffffffffff000ull, true);
	assert_int_equal(through(DEV, 0x10000), 0xe000);
	/* INVALIDATE_IOMMU_ALL drops everything */
	*a = 0xf000 | PR | IR | IW;
	command(0, 8u << 28, 0, 0);
	assert_int_equal(through(DEV, 0x10000), 0xf000);
	assert_int_equal(rd(CMD_HEAD), rd(CMD_TAIL));
	assert_clean();
}

static void dte_cached_until_invalidate_devtab_entry(void **state)
{
	(void)state;
	unit(ON);
	uint64_t *root = translated(DEV, 3, 1), *root2 = page();
	map(root, 3, 1, 0x1000, 0x11000, IR | IW);
	map(root2, 3, 1, 0x1000, 0x22000, IR | IW);
	assert_int_equal(through(DEV, 0x1000), 0x11000);
	dte(DEV, DTE_V | DTE_TV | MODE(3) | pa(root2) | IR | IW, 2); /* another domain, another table */
	assert_int_equal(through(DEV, 0x1000), 0x11000);
	inval_dte(DEV + 1);
	inval_pages(1, 0x1000, false); /* the old domain's page: the DTE still names it */
	map(root, 3, 1, 0x1000, 0x11000, IR | IW);
	assert_int_equal(through(DEV, 0x1000), 0x11000);
	inval_dte(DEV);
	assert_int_equal(through(DEV, 0x1000), 0x22000);
	assert_int_equal(m.dte_invalidations, 2);
	/* a DTE turned invalid stays in use until invalidated as well */
	dte(DEV, 0, 0);
	assert_int_equal(through(DEV, 0x1000), 0x22000);
	inval_dte(DEV);
	assert_int_equal(through(DEV, 0x1000), 0x1000);
	assert_clean();
}

/* ---- interrupt remapping (2.2.5) ------------------------------------------ */

/* DTE quadword 2 and the 32-bit IRTE, the test's own reading */
#define IV 1ull
#define INT_TAB_LEN(n) ((uint64_t)(n) << 1)
#define IG (1ull << 5)
#define INT_CTL(c) ((uint64_t)(c) << 60)
#define REMAP_EN 1u
#define SUP_IOPF 2u
#define IRTE(vector, dest) (REMAP_EN | (uint32_t)(dest) << 8 | (uint32_t)(vector) << 16)
#define MSI 0xfee00000ull

static _Alignas(128) uint32_t irt[64];

static void remapped(uint16_t devid, unsigned log2n, uint64_t extra)
{
	dte(devid, DTE_V | IR | IW, 1);
	devtab[4 * devid + 2] = IV | INT_TAB_LEN(log2n) | pa(irt) | INT_CTL(2) | extra;
}

static bool msi(uint16_t devid, uint64_t addr, uint32_t data, uint8_t *v, uint32_t *d)
{
	*v = 0, *d = 0;
	return amdvim_msi(&m, devid, addr, data, v, d);
}

/* One I=1 IO_PAGE_FAULT logged for `devid` with exactly `flags`. */
static void assert_interrupt_fault(unsigned i, uint16_t devid, uint32_t flags)
{
	const uint32_t *e = event_at(i);
	assert_int_equal(e[0] & 0xffff, devid);
	assert_int_equal(e[1] >> 28, 2);
	assert_int_equal(e[1] & 0x0fff0000u, (1u << 19) | flags);
	assert_int_equal(event_addr(e), MSI);
}

static void interrupts_remapped_blocked_and_logged(void **state)
{
	(void)state;
	memset(irt, 0, sizeof(irt));
	unit(ON);
	uint8_t v;
	uint32_t d;
	remapped(DEV, 4, 0); /* 16 entries */
	irt[3] = IRTE(0x45, 7);
	assert_true(msi(DEV, MSI | 2 << 12, 3, &v, &d));
	assert_int_equal(v, 0x45);
	assert_int_equal(d, 7);
	/* not an interrupt: outside the APIC window */
	assert_false(msi(DEV, 0xfed00000, 3, &v, &d));
	/* RemapEn=0, past IntTabLen, reserved bits: blocked, logged */
	assert_false(msi(DEV, MSI, 4, &v, &d));
	assert_interrupt_fault(0, DEV, 0);
	assert_false(msi(DEV, MSI, 16, &v, &d));
	assert_interrupt_fault(1, DEV, 1u << 20);
	irt[5] = IRTE(0x46, 1) | 0x80u; /* GuestMode without GA */
	assert_false(msi(DEV, MSI, 5, &v, &d));
	assert_interrupt_fault(2, DEV, 1u << 20 | 1u << 23);
	irt[6] = IRTE(0x46, 1) | 2u << 2; /* IntType 010b */
	assert_false(msi(DEV, MSI, 6, &v, &d));
	assert_interrupt_fault(3, DEV, 1u << 20 | 1u << 23);
	/* SupIOPF and IG keep them out of the log, still blocked */
	irt[7] = SUP_IOPF;
	assert_false(msi(DEV, MSI, 7, &v, &d));
	remapped(OTHER, 4, IG);
	assert_false(msi(OTHER, MSI, 20, &v, &d));
	assert_int_equal(m.events, 4);
	assert_int_equal(m.interrupts_blocked, 6);
	/* IntCtl 01b passes, 00b aborts silently, 11b is an illegal DTE; IV=0
	 * and IommuEn=0 pass as sent */
	remapped(OTHER + 1, 4, 0);
	devtab[4 * (OTHER + 1) + 2] ^= INT_CTL(3);
	assert_true(msi(OTHER + 1, MSI | 1 << 12, 0x31, &v, &d));
	assert_int_equal(v, 0x31);
	assert_int_equal(d, 1);
	remapped(OTHER + 2, 4, 0);
	devtab[4 * (OTHER + 2) + 2] &= ~INT_CTL(3);
	assert_false(msi(OTHER + 2, MSI, 3, &v, &d));
	remapped(OTHER + 3, 4, INT_CTL(1));
	assert_false(msi(OTHER + 3, MSI, 3, &v, &d));
	assert_int_equal(event_at(4)[1] >> 28, 1);
	remapped(OTHER + 4, 12, 0); /* IntTabLen 12: reserved */
	assert_false(msi(OTHER + 4, MSI, 3, &v, &d));
	assert_int_equal(event_at(5)[1] >> 28, 1);
	dte(OTHER + 5, DTE_V | IR | IW, 1);
	assert_true(msi(OTHER + 5, MSI, 0x3a, &v, &d));
	assert_int_equal(v, 0x3a);
	wr(CONTROL, ON & ~IOMMU_EN);
	assert_true(msi(DEV, MSI, 4, &v, &d));
	assert_int_equal(v, 4);
	assert_clean();
}

static void inval_interrupt_table(uint16_t devid)
{
	command(devid, 5u << 28, 0, 0);
}

/* An entry once used stays in use until INVALIDATE_INTERRUPT_TABLE for its
 * device (another device's does nothing) or INVALIDATE_IOMMU_ALL. */
static void irte_cached_until_invalidate_interrupt_table(void **state)
{
	(void)state;
	memset(irt, 0, sizeof(irt));
	unit(ON);
	uint8_t v;
	uint32_t d;
	remapped(DEV, 3, 0);
	irt[2] = IRTE(0x50, 1);
	assert_true(msi(DEV, MSI, 2, &v, &d));
	irt[2] = IRTE(0x51, 2);
	assert_true(msi(DEV, MSI, 2, &v, &d));
	assert_int_equal(v, 0x50);
	inval_interrupt_table(DEV + 1);
	assert_true(msi(DEV, MSI, 2, &v, &d));
	assert_int_equal(v, 0x50);
	inval_interrupt_table(DEV);
	assert_true(msi(DEV, MSI, 2, &v, &d));
	assert_int_equal(v, 0x51);
	assert_int_equal(d, 2);
	/* a present entry turned off is still used until invalidated */
	irt[2] = 0;
	assert_true(msi(DEV, MSI, 2, &v, &d));
	command(0, 8u << 28, 0, 0); /* INVALIDATE_IOMMU_ALL */
	assert_false(msi(DEV, MSI, 2, &v, &d));
	assert_int_equal(m.irt_invalidations, 2);
	assert_true(m.irte_hits >= 3);
	assert_clean();
}

/* ---- commands --------------------------------------------------------------- */

static void completion_wait_store_and_interrupt(void **state)
{
	(void)state;
	unit(ON);
	store_word = 0;
	completion_wait(0x1122334455667788ull, false);
	assert_int_equal(store_word, 0x1122334455667788ull);
	assert_int_equal(rd(STATUS) & COM_WAIT_INT, 0);
	/* I=1 sets ComWaitInt; it interrupts only with ComWaitIntEn */
	completion_wait(2, true);
	assert_true(rd(STATUS) & COM_WAIT_INT);
	assert_int_equal(m.msis, 0);
	wr(STATUS, COM_WAIT_INT);
	assert_int_equal(rd(STATUS) & COM_WAIT_INT, 0);
	wr(CONTROL, ON | COM_WAIT_INT_EN);
	completion_wait(3, true);
	assert_int_equal(store_word, 3);
	assert_int_equal(m.msis, 1);
	assert_int_equal(msi_calls, 1);
	/* a store to where nothing answers: COMMAND_HARDWARE_ERROR, the buffer stops */
	command(1, 1u << 28, 0, 0);
	const uint32_t *e = event_at(0);
	assert_int_equal(e[1] >> 28, AMDVIM_EV_COMMAND_HARDWARE_ERROR);
	assert_int_equal(event_addr(e), pa(cmdbuf) + 48);
	assert_int_equal(rd(STATUS) & CMD_BUF_RUN, 0);
	assert_clean();
}

static void commands_wait_for_the_enables_and_head_wraps_to_zero(void **state)
{
	(void)state;
	unit(IOMMU_EN | EVENT_LOG_EN);
	store_word = 0;
	completion_wait(9, false); /* CmdBufEn off: fetched later */
	assert_int_equal(store_word, 0);
	assert_int_equal(rd(CMD_HEAD), 0);
	wr(CONTROL, ON);
	assert_int_equal(store_word, 9);
	for (unsigned i = 1; i < 256; i++)
		completion_wait(100 + i, false);
	assert_int_equal(store_word, 355);
	assert_int_equal(rd(CMD_TAIL), 0);
	assert_int_equal(rd(CMD_HEAD), 0); /* wraps to 0, not to the ring's length */
	assert_true(rd(STATUS) & CMD_BUF_RUN);
	assert_clean();
}

static void illegal_command_stops_the_buffer(void **state)
{
	(void)state;
	static const uint32_t bad[][4] = {
		{ 0, 0, 0, 0 },			  /* opcode 0 */
		{ 0, 6u << 28, 0, 0 },		  /* PREFETCH_IOMMU_PAGES without PreFSup */
		{ 0, 0xfu << 28, 0, 0 },	  /* no such opcode */
		{ 0x10000, 2u << 28, 0, 0 },	  /* INVALIDATE_DEVTAB_ENTRY, reserved bits */
		{ 0, 3u << 28, 4, 0 },		  /* INVALIDATE_IOMMU_PAGES with GN, no GTSup */
		{ 0, 1u << 28 | 1u << 20, 0, 0 }, /* COMPLETION_WAIT, reserved bits */
	};
	for (unsigned i = 0; i < ARRAY_SIZE(bad); i++) {
		unit(ON);
		store_word = 0;
		completion_wait(1, false);
		command(bad[i][0], bad[i][1], bad[i][2], bad[i][3]);
		completion_wait(2, false);
		const uint32_t *e = event_at(0);
		assert_int_equal(e[1] >> 28, AMDVIM_EV_ILLEGAL_COMMAND_ERROR);
		assert_int_equal(event_addr(e), pa(cmdbuf) + 16);
		assert_int_equal(rd(STATUS) & CMD_BUF_RUN, 0);
		assert_int_equal(rd(CMD_HEAD), 16); /* on the illegal command */
		assert_int_equal(store_word, 1);    /* nothing after it ran */
		/* software's restart: CmdBufEn off, the head past it, CmdBufEn on */
		wr(CONTROL, IOMMU_EN | EVENT_LOG_EN);
		wr(CMD_HEAD, 32);
		wr(CONTROL, ON);
		assert_true(rd(STATUS) & CMD_BUF_RUN);
		assert_int_equal(store_word, 2);
		assert_clean();
	}
}

/* ---- the event log ---------------------------------------------------------- */

static void event_log_gating_interrupt_and_w1c(void **state)
{
	(void)state;
	unit(IOMMU_EN | CMD_BUF_EN); /* EventLogEn off: events are not written */
	translated(DEV, 3, 1);
	uint64_t phys;
	assert_false(dma(DEV, 0x1000, false, &phys));
	assert_int_equal(rd(EVT_TAIL), 0);
	assert_int_equal(m.events_dropped, 1);
	assert_int_equal(rd(STATUS) & EVENT_LOG_RUN, 0);
	wr(CONTROL, ON);
	assert_true(rd(STATUS) & EVENT_LOG_RUN);
	assert_false(dma(DEV, 0x2000, true, &phys));
	assert_int_equal(rd(EVT_TAIL), 16);
	assert_true(rd(STATUS) & EVENT_LOG_INT);
	assert_int_equal(m.msis, 0);
	wr(CONTROL, ON | EVENT_INT_EN);
	assert_false(dma(DEV, 0x3000, true, &phys));
	assert_int_equal(m.msis, 1);
	assert_int_equal(msi_calls, 1);
	/* W1C: EventLogInt clears; the run bits are read-only; the rest is reserved */
	wr(STATUS, EVENT_LOG_INT | EVENT_LOG_RUN | CMD_BUF_RUN);
	assert_int_equal(rd(STATUS) & (EVENT_LOG_INT | EVENT_LOG_RUN | CMD_BUF_RUN), EVENT_LOG_RUN | CMD_BUF_RUN);
	assert_clean();
	wr(STATUS, 1ull << 20);
	assert_int_equal(m.reserved_writes, 1);
	/* software consumes: the head follows the tail */
	wr(EVT_HEAD, rd(EVT_TAIL));
	assert_int_equal(rd(EVT_HEAD), 32);
}

static void event_log_overflows_and_restarts(void **state)
{
	(void)state;
	unit(ON);
	translated(DEV, 3, 1);
	uint64_t phys;
	for (unsigned i = 0; i < 255; i++) /* one entry always stays free */
		assert_false(dma(DEV, 0x1000ull * i, false, &phys));
	assert_int_equal(rd(EVT_TAIL), 255 * 16);
	assert_int_equal(rd(STATUS) & EVENT_OVERFLOW, 0);
	assert_false(dma(DEV, 0x999000, false, &phys));
	assert_true(rd(STATUS) & EVENT_OVERFLOW);
	assert_int_equal(rd(STATUS) & EVENT_LOG_RUN, 0);
	assert_int_equal(rd(EVT_TAIL), 255 * 16);
	/* room made, but logging stays stopped until software restarts it */
	wr(EVT_HEAD, 255 * 16);
	assert_false(dma(DEV, 0x998000, false, &phys));
	assert_int_equal(rd(EVT_TAIL), 255 * 16);
	assert_int_equal(m.events_dropped, 2);
	wr(CONTROL, IOMMU_EN | CMD_BUF_EN);
	wr(STATUS, EVENT_OVERFLOW);
	wr(CONTROL, ON);
	assert_false(dma(DEV, 0x997000, false, &phys));
	assert_int_equal(rd(EVT_TAIL), 0); /* the last slot, then the wrap */
	assert_int_equal(event_addr(&evtlog[4 * 255]), 0x997000);
	assert_clean();
}

/* ---- the faults the family injects ------------------------------------------ */

static const struct model_fault *family_fault(const char *name)
{
	for (const struct model_fault *f = amdvi_family.faults; f->name; f++)
		if (strcmp(f->name, name) == 0)
			return f;
	fail_msg("no fault %s", name);
	return NULL;
}

static void injected_faults(void **state)
{
	(void)state;
	assert_string_equal(amdvi_family.kinds[0], "amdvi");
	assert_null(amdvi_family.kinds[1]);
	/* completion-wait-stuck: no store, no ComWaitInt, the head stays on it */
	unit(ON);
	const struct model_fault *f = family_fault("completion-wait-stuck");
	assert_int_equal(f->at_take, IOMMU_ERR_TIMEOUT); /* the driver fences its take-over */
	f->inject(&m);
	store_word = 0;
	completion_wait(5, true);
	assert_int_equal(store_word, 0);
	assert_int_equal(rd(STATUS) & COM_WAIT_INT, 0);
	assert_int_equal(rd(CMD_HEAD), 0);
	assert_true(rd(STATUS) & CMD_BUF_RUN);
	/* event-log-overflow: the first event overflows */
	unit(ON);
	f = family_fault("event-log-overflow");
	assert_int_equal(f->at_take, IOMMU_OK);
	f->inject(&m);
	translated(DEV, 3, 1);
	uint64_t phys;
	assert_false(dma(DEV, 0x1000, false, &phys));
	assert_true(rd(STATUS) & EVENT_OVERFLOW);
	assert_int_equal(rd(EVT_TAIL), 0);
	/* illegal-command: a well-formed command refused, once */
	unit(ON);
	f = family_fault("illegal-command");
	assert_int_equal(f->at_take, IOMMU_ERR_HARDWARE); /* its first command is at take-over */
	f->inject(&m);
	inval_dte(DEV);
	assert_int_equal(event_at(0)[1] >> 28, AMDVIM_EV_ILLEGAL_COMMAND_ERROR);
	assert_int_equal(rd(STATUS) & CMD_BUF_RUN, 0);
	wr(CONTROL, IOMMU_EN | EVENT_LOG_EN);
	wr(CONTROL, ON); /* restarted on the same command: legal now */
	assert_int_equal(rd(CMD_HEAD), 16);
	assert_int_equal(m.dte_invalidations, 1);
	/* all-ones: every register reads all ones */
	unit(ON);
	assert_non_null(amdvi_family.all_ones);
	m.all_ones = true;
	assert_int_equal(rd(EFR), ~0ull);
	assert_int_equal(regwin_read32(&m.win, STATUS), 0xffffffffu);
}

/* ---- what a driver must not do ---------------------------------------------- */

static void counts_forbidden_accesses(void **state)
{
	(void)state;
	amdvim_init(&m);
	assert_int_equal(rd(EFR), AMDVIM_EFR);
	assert_int_equal((rd(EFR) >> 10) & 3, 2); /* HATS: 6 levels */
	/* 4-byte halves are accesses the unit takes */
	regwin_write32(&m.win, CMD_BASE, (uint32_t)pa(cmdbuf));
	regwin_write32(&m.win, CMD_BASE + 4, (uint32_t)((pa(cmdbuf) | LEN_256) >> 32));
	assert_int_equal(rd(CMD_BASE), pa(cmdbuf) | LEN_256);
	assert_int_equal(regwin_read32(&m.win, EFR), (uint32_t)AMDVIM_EFR);
	assert_int_equal(regwin_read32(&m.win, CMD_BASE + 4), (uint32_t)((pa(cmdbuf) | LEN_256) >> 32));
	assert_clean();
	regwin_read16(&m.win, STATUS);
	regwin_write8(&m.win, CONTROL, 1);
	regwin_read64(&m.win, CONTROL + 4);
	assert_int_equal(m.bad_width, 3);
	assert_int_equal(rd(CONTROL), 0);
	wr(EFR, 0);			       /* read-only */
	wr(CONTROL, 1ull << 13);	       /* PPRLogEn: no PPRSup */
	wr(EVT_BASE, pa(evtlog) | 7ull << 56); /* fewer than 256 entries */
	wr(0x1000, 1);			       /* no register there */
	assert_int_equal(m.reserved_writes, 4);
	wr(CONTROL, IOMMU_EN);	 /* no device table */
	wr(DEV_TAB, pa(devtab)); /* moved under an enabled unit */
	wr(CONTROL, IOMMU_EN | CMD_BUF_EN);
	wr(CMD_BASE, pa(cmdbuf) | LEN_256); /* moved under a running buffer */
	wr(CMD_HEAD, 0x10);		    /* likewise */
	assert_int_equal(m.protocol_errors, 4);
	regwin_read32(&m.win, AMDVIM_WINDOW);
	assert_int_equal(m.win.out_of_window, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(walks_every_level_count_and_leaf),
		cmocka_unit_test(skips_levels_and_checks_skipped_bits),
		cmocka_unit_test(encoded_page_size),
		cmocka_unit_test(permissions_from_dte_pde_and_pte),
		cmocka_unit_test(dte_states),
		cmocka_unit_test(short_tables_and_master_aborts),
		cmocka_unit_test(exclusion_range),
		cmocka_unit_test(iotlb_stale_until_the_precise_invalidation),
		cmocka_unit_test(dte_cached_until_invalidate_devtab_entry),
		cmocka_unit_test(interrupts_remapped_blocked_and_logged),
		cmocka_unit_test(irte_cached_until_invalidate_interrupt_table),
		cmocka_unit_test(completion_wait_store_and_interrupt),
		cmocka_unit_test(commands_wait_for_the_enables_and_head_wraps_to_zero),
		cmocka_unit_test(illegal_command_stops_the_buffer),
		cmocka_unit_test(event_log_gating_interrupt_and_w1c),
		cmocka_unit_test(event_log_overflows_and_restarts),
		cmocka_unit_test(injected_faults),
		cmocka_unit_test(counts_forbidden_accesses),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
