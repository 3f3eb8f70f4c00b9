/* The RISC-V IOMMU model alone, driven as the spec says software drives
 * the unit: registers through its window, the directory, contexts, page
 * tables and commands written in memory in this test's own reading of the
 * spec (never the driver's riscv/ code, which the model is there to
 * check). Each claim is one the model could get wrong: the reset state
 * blocks, the directory's depth and its broken entries, both stages and
 * their faults, the caches stale until the covering command, the queues'
 * errors and overflow, flat MSI page tables, and the register rules. */
#include "unit.h"

#include <string.h>

#include "iommu/riscv/model.h"
#include "tests/host/platform_host.h"

/* registers (5.1) and their bits, the test's reading */
#define CAPS 0x000
#define DDTP 0x010
#define CQB 0x018
#define CQH 0x020
#define CQT 0x024
#define FQB 0x028
#define FQH 0x030
#define FQT 0x034
#define CQCSR 0x048
#define FQCSR 0x04c
#define IPSR 0x054
#define ICVEC 0x2f8
#define MSI_CFG(v) (0x300 + 16 * (v))

#define OFF 0
#define BARE 1
#define LVL1 2
#define LVL2 3
#define LVL3 4
#define EN 1u
#define IE 2u
#define MF (1u << 8)
#define CMD_ILL (1u << 10)
#define FQOF (1u << 9)
#define QON (1u << 16)

/* a context (2.1.3): tc V, SADE, DTF; atp modes; PTE bits */
#define TC_V 1ull
#define TC_EN_ATS 2ull
#define TC_DTF (1ull << 4)
#define TC_GADE (1ull << 7)
#define TC_SADE (1ull << 8)
#define SV39 8ull
#define SV48 9ull
#define SV57 10ull
#define V 1ull
#define R 2ull
#define W 4ull
#define U 16ull
#define A 64ull
#define D 128ull
#define LEAF (V | R | W | U | A | D)

#define DID 0x000010 /* 00:02.0 */
#define FAR_DID 0x123456

static _Alignas(4096) uint64_t pool[160][512];
static unsigned pool_next;
static _Alignas(4096) uint64_t cq[256 * 2];
static _Alignas(4096) uint64_t fq[8 * 4];
static volatile uint32_t fence_word;
static struct rvi_model m;
static unsigned msi_calls;

static uint64_t pa(const void *p)
{
	return (uint64_t)(uintptr_t)p;
}

static uint64_t *page(void)
{
	assert_true(pool_next < 160);
	uint64_t *p = pool[pool_next++];
	memset(p, 0, 4096);
	return p;
}

/* four pages, 16 KiB aligned (a G-stage root) */
static uint64_t *root16k(void)
{
	while (pa(pool[pool_next]) & 0x3fff)
		pool_next++;
	uint64_t *p = page();
	page(), page(), page();
	memset(p, 0, 16384);
	return p;
}

static uint64_t ppn(uint64_t addr) /* an entry's or register's PPN field, bits 53:10 */
{
	return (addr >> 12) << 10;
}

static uint64_t rd(uint64_t off)
{
	return regwin_read64(&m.win, off);
}

static void wr(uint64_t off, uint64_t v)
{
	regwin_write64(&m.win, off, v);
}

static uint32_t rd32(uint64_t off)
{
	return regwin_read32(&m.win, off);
}

static void wr32(uint64_t off, uint32_t v)
{
	regwin_write32(&m.win, off, v);
}

static void count_msi(void *ctx)
{
	(*(unsigned *)ctx)++;
}

static int setup(void **state)
{
	(void)state;
	platform = &host_platform;
	return 0;
}

static uint64_t *ddt_root;
static unsigned ddt_mode;

/* A unit with both queues on (256 commands, 8 fault records) and a
 * directory of `mode` (its root empty), or Bare/Off as asked. */
static void unit(unsigned mode)
{
	pool_next = 0;
	memset(cq, 0, sizeof(cq));
	memset(fq, 0, sizeof(fq));
	rvim_init(&m);
	msi_calls = 0;
	m.msi = count_msi, m.msi_ctx = &msi_calls;
	wr(CQB, ppn(pa(cq)) | 7); /* LOG2SZ-1 = 7: 256 entries */
	wr(FQB, ppn(pa(fq)) | 2); /* 8 entries */
	wr32(CQCSR, EN);
	wr32(FQCSR, EN | IE);
	assert_true(rd32(CQCSR) & QON);
	assert_true(rd32(FQCSR) & QON);
	ddt_root = page();
	ddt_mode = mode;
	if (mode != OFF)
		wr(DDTP, ppn(pa(ddt_root)) | mode);
}

/* Device `did`'s 64-byte context, its directory pages made on the way:
 * device-id bits 5:0, 14:6 and 23:15 index the levels (extended format). */
static uint64_t *dc_of(uint32_t did)
{
	uint64_t *t = ddt_root;
	static const unsigned shift[] = { 0, 6, 15 };
	for (int l = (int)ddt_mode - 2; l > 0; l--) {
		uint64_t *e = &t[(did >> shift[l]) & 511];
		if (!(*e & V))
			*e = ppn(pa(page())) | V;
		t = (uint64_t *)(uintptr_t)((*e >> 10) << 12);
	}
	return t + 8 * (did & 63);
}

/* An S-stage (or `g`: G-stage, x4) leaf of `size` at `va` in the tree at
 * `root` with `levels` levels. */
static void map(uint64_t *root, unsigned levels, bool g, uint64_t va, uint64_t out, uint64_t size, uint64_t bits)
{
	uint64_t *t = root;
	for (int l = (int)levels - 1;; l--) {
		unsigned sh = 12 + 9 * (unsigned)l;
		uint64_t i = (va >> sh) & (g && l == (int)levels - 1 ? 2047 : 511);
		if (1ull << sh == size) {
			t[i] = ppn(out) | bits;
			return;
		}
		if (!(t[i] & V))
			t[i] = ppn(pa(page())) | V;
		t = (uint64_t *)(uintptr_t)((t[i] >> 10) << 12);
	}
}

/* A context translating with an S stage of `mode` under PSCID `pscid`. */
static uint64_t *s_stage(uint32_t did, uint64_t mode, uint32_t pscid)
{
	uint64_t *dc = dc_of(did), *root = page();
	dc[0] = TC_V;
	dc[2] = (uint64_t)pscid << 12;
	dc[3] = mode << 60 | pa(root) >> 12;
	return root;
}

static void cmd(uint64_t d0, uint64_t d1)
{
	uint32_t t = rd32(CQT);
	cq[2 * t] = d0, cq[2 * t + 1] = d1;
	wr32(CQT, (t + 1) % 256);
}

/* IOTINVAL (func 0 VMA, 1 GVMA), IODIR.INVAL_DDT, IOFENCE.C */
static void iotinval(unsigned func, int gscid, int pscid, uint64_t addr)
{
	uint64_t d0 = 1 | (uint64_t)func << 7, d1 = 0;
	if (gscid >= 0)
		d0 |= 1ull << 33 | (uint64_t)gscid << 44;
	if (pscid >= 0)
		d0 |= 1ull << 32 | (uint64_t)pscid << 12;
	if (addr != ~0ull)
		d0 |= 1ull << 10, d1 = (addr >> 12) << 10;
	cmd(d0, d1);
}

static void iodir(long did)
{
	cmd(3 | (did >= 0 ? 1ull << 33 | (uint64_t)did << 40 : 0), 0);
}

static void fence(uint32_t data)
{
	cmd(2 | 1ull << 10 | 3ull << 12 | (uint64_t)data << 32, pa((const void *)&fence_word) >> 2);
}

static bool dma(uint32_t did, uint64_t iova, bool write, uint64_t *phys)
{
	*phys = 0;
	return rvim_translate(&m, did, iova, write, phys);
}

static uint64_t through(uint32_t did, uint64_t iova)
{
	uint64_t phys;
	assert_true(dma(did, iova, false, &phys));
	return phys;
}

static unsigned records(void)
{
	return (rd32(FQT) - rd32(FQH)) & 7;
}

/* The oldest record not yet read: its cause (its device, transaction
 * type, iotval and iotval2 in the others); consumed. */
static unsigned take_fault(uint32_t *did, unsigned *ttyp, uint64_t *iotval, uint64_t *iotval2)
{
	assert_true(records() > 0);
	uint32_t h = rd32(FQH);
	const uint64_t *r = fq + 4 * h;
	if (did)
		*did = (uint32_t)(r[0] >> 40);
	if (ttyp)
		*ttyp = (unsigned)(r[0] >> 34) & 0x3f;
	if (iotval)
		*iotval = r[2];
	if (iotval2)
		*iotval2 = r[3];
	wr32(FQH, (h + 1) % 8);
	return (unsigned)(r[0] & 0xfff);
}

static unsigned refused(uint32_t did, uint64_t iova, bool write)
{
	uint64_t phys;
	assert_false(dma(did, iova, write, &phys));
	uint64_t tval;
	uint32_t d;
	unsigned ttyp, cause = take_fault(&d, &ttyp, &tval, NULL);
	assert_int_equal(d, did);
	assert_int_equal(ttyp, write ? 3 : 2);
	assert_int_equal(tval, iova);
	return cause;
}

static void assert_clean(void)
{
	assert_int_equal(m.bad_width, 0);
	assert_int_equal(m.reserved_writes, 0);
	assert_int_equal(m.protocol_errors, 0);
	assert_int_equal(rd32(CQCSR) & 0xf00, 0);
}

/* ---- reset, Bare and the directory -------------------------------------- */

/* Out of reset every DMA is blocked (cause 256, untranslated read or
 * write); Bare passes through; the capabilities read as offered. */
static void reset_blocks_bare_passes(void **state)
{
	(void)state;
	unit(OFF);
	assert_int_equal(rd(DDTP) & 0xf, OFF);
	uint64_t caps = rd(CAPS);
	assert_int_equal(caps & 0xff, 0x10);
	assert_int_equal((caps >> 9) & 7, 7);	   /* Sv39/48/57 */
	assert_int_equal((caps >> 17) & 7, 7);	   /* their x4 forms */
	assert_int_equal((caps >> 32) & 0x3f, 56); /* PAS */
	assert_int_equal(refused(DID, 0x1000, false), 256);
	assert_int_equal(refused(DID, 0x2000, true), 256);
	wr(DDTP, BARE);
	assert_int_equal(through(DID, 0x12345678), 0x12345678);
	assert_int_equal(records(), 0);
	assert_clean();
}

/* Each depth resolves its device ids; an id too wide for the mode is a
 * "transaction type disallowed" (260), not a wrap into another device. */
static void directory_depths(void **state)
{
	(void)state;
	const uint32_t ids[] = { 0x3f, 0x7fff, 0xffffff };
	for (unsigned mode = LVL1; mode <= LVL3; mode++) {
		unit(mode);
		uint32_t did = ids[mode - LVL1];
		uint64_t *root = s_stage(did, SV39, 1);
		map(root, 3, false, 0x40000000, 0x7000000, 1ull << 12, LEAF);
		assert_int_equal(through(did, 0x40000123), 0x7000123);
		if (mode < LVL3) /* the first id one bit wider */
			assert_int_equal(refused(did + 1, 0x40000000, false), 260);
		/* an id of the same low bits but another device: not valid */
		if (mode > LVL1)
			assert_int_equal(refused(did & 0x3f, 0x40000000, false), 258);
		assert_clean();
	}
}

/* A non-leaf entry not valid (258) or with reserved bits (259); a context
 * not valid (258) or asking for what the unit lacks (259); a directory at
 * physical page 0 is a load access fault (257). */
static void broken_directory(void **state)
{
	(void)state;
	unit(LVL3);
	uint64_t *dc = dc_of(FAR_DID);
	dc[0] = TC_V;
	assert_int_equal(through(FAR_DID, 0x5000), 0x5000); /* both stages Bare */
	uint64_t *top = &ddt_root[FAR_DID >> 15];
	*top |= 1ull << 63;
	iodir(-1);
	assert_int_equal(refused(FAR_DID, 0x5000, false), 259);
	*top &= ~(1ull << 63 | V);
	assert_int_equal(refused(FAR_DID, 0x5000, false), 258);
	*top |= V;
	dc[0] = 0;
	assert_int_equal(refused(FAR_DID, 0x5000, false), 258);
	dc[0] = TC_V | TC_EN_ATS; /* no capabilities.ATS */
	assert_int_equal(refused(FAR_DID, 0x5000, false), 259);
	dc[0] = TC_V;
	dc[1] = SV39 << 60 | 1; /* a G-stage root not on 16 KiB */
	assert_int_equal(refused(FAR_DID, 0x5000, false), 259);
	dc[1] = 0;
	dc[4] = 1ull << 60; /* flat MSI page table without a G stage */
	assert_int_equal(refused(FAR_DID, 0x5000, false), 259);
	dc[4] = 0;
	dc[3] = 7ull << 60; /* no such iosatp mode */
	assert_int_equal(refused(FAR_DID, 0x5000, false), 259);
	wr(DDTP, OFF); /* to Off with the PPN changed: UNSPECIFIED */
	assert_int_equal(m.protocol_errors, 1);
	m.protocol_errors = 0;
	wr(DDTP, LVL1);
	assert_int_equal(refused(0, 0x5000, false), 257);
	assert_clean();
}

/* ---- the S and G stages --------------------------------------------------- */

/* A unit offering one stage (rvim_offer_stages): its capabilities say
 * which, and a context naming a mode of the stage it lacks is
 * misconfigured (259, 2.1.4), while the stage it has translates. */
static void stages_as_offered(void **state)
{
	(void)state;
	unit(LVL1);
	rvim_offer_stages(&m, false, true); /* the G stage alone */
	assert_int_equal((rd(CAPS) >> 9) & 7, 0);
	assert_int_equal((rd(CAPS) >> 17) & 7, 7);
	uint64_t *root = s_stage(DID, SV39, 1);
	map(root, 3, false, 0x40000000, 0x7000000, 4096, LEAF);
	assert_int_equal(refused(DID, 0x40000000, false), 259);
	uint64_t *dc = dc_of(DID), *g = root16k();
	dc[3] = 0;
	dc[1] = SV48 << 60 | 2ull << 44 | pa(g) >> 12;
	map(g, 4, true, 0x40000000, 0x7000000, 4096, LEAF);
	assert_int_equal(through(DID, 0x40000010), 0x7000010);
	assert_clean();
	unit(LVL1);
	rvim_offer_stages(&m, true, false); /* the S stage alone */
	dc = dc_of(DID), g = root16k();
	dc[0] = TC_V;
	dc[1] = SV39 << 60 | 2ull << 44 | pa(g) >> 12;
	assert_int_equal(refused(DID, 0x40000000, false), 259);
	dc[1] = 0;
	root = s_stage(DID, SV57, 1);
	map(root, 5, false, 0x40000000, 0x7000000, 4096, LEAF);
	assert_int_equal(through(DID, 0x40000010), 0x7000010);
	assert_clean();
}

/* Sv39, Sv48 and Sv57 with a leaf at every level they have; the top
 * half of the IOVA space is the sign-extended one; a non-canonical
 * IOVA, W without R, a misaligned superpage and U clear are page faults. */
static void s_stage_every_mode_and_leaf(void **state)
{
	(void)state;
	for (uint64_t mode = SV39; mode <= SV57; mode++) {
		unit(LVL1);
		unsigned levels = (unsigned)mode - 5;
		uint64_t *root = s_stage(DID, mode, 7);
		for (unsigned l = 1; l <= levels && l <= 4; l++) {
			uint64_t size = 1ull << (12 + 9 * (l - 1)), va = 3 * size + (l == 4 ? 0 : 1ull << 37);
			map(root, levels, false, va, 5 * size, size, LEAF);
			assert_int_equal(through(DID, va + size - 8), 5 * size + size - 8);
		}
		uint64_t top = ~0ull << (12 + 9 * levels - 1); /* the lowest upper-half IOVA */
		map(root, levels, false, top, 0x9000, 4096, LEAF);
		assert_int_equal(through(DID, top + 4), 0x9004);
		assert_int_equal(refused(DID, top & ~(1ull << 63), false), 13);
		map(root, levels, false, 0x7000, 0x7000, 4096, V | W | U | A | D);
		assert_int_equal(refused(DID, 0x7000, true), 15);
		map(root, levels, false, 0x200000 * 9, 0x1000, 0x200000, LEAF); /* 2 MiB leaf at 4 KiB */
		assert_int_equal(refused(DID, 0x200000 * 9, false), 13);
		map(root, levels, false, 0x8000, 0x8000, 4096, V | R | W | A | D);
		assert_int_equal(refused(DID, 0x8000, false), 13);
		assert_clean();
	}
}

/* Write to read-only (15), read not present (13), A or D clear without
 * tc.SADE (a page fault) and with it (set, and served); tc.DTF
 * suppresses the record but still refuses. */
static void permissions_and_dirty_bits(void **state)
{
	(void)state;
	unit(LVL1);
	uint64_t *root = s_stage(DID, SV39, 3), *dc = dc_of(DID);
	map(root, 3, false, 0x10000, 0x20000, 4096, V | R | U | A);
	assert_int_equal(through(DID, 0x10010), 0x20010);
	assert_int_equal(refused(DID, 0x10010, true), 15);
	assert_int_equal(refused(DID, 0x11000, false), 13);
	map(root, 3, false, 0x12000, 0x22000, 4096, V | R | W | U);
	assert_int_equal(refused(DID, 0x12000, false), 13);
	dc[0] |= TC_SADE;
	iodir(DID);
	assert_int_equal(through(DID, 0x12008), 0x22008);
	uint64_t *leaf = (uint64_t *)(uintptr_t)((((uint64_t *)(uintptr_t)((root[0] >> 10) << 12))[0] >> 10) << 12);
	assert_int_equal(leaf[0x12] & (A | D), A);
	uint64_t phys;
	assert_true(dma(DID, 0x12008, true, &phys));
	assert_int_equal(leaf[0x12] & (A | D), A | D);
	dc[0] |= TC_DTF;
	iodir(DID);
	assert_false(dma(DID, 0x13000, false, &phys));
	assert_int_equal(records(), 0);
	assert_clean();
}

/* The G stage alone and under an S stage: the S stage's tables are guest
 * physical, translated by the G stage; a G-stage miss for the final
 * address is a guest-page fault naming the GPA, one for the S stage's own
 * table says so in iotval2 bit 0; a GPA above the x4 width faults. */
static void two_stages(void **state)
{
	(void)state;
	unit(LVL2);
	uint64_t *dc = dc_of(DID), *g = root16k(), *s = page();
	const uint64_t gbase = 0x80000000; /* guest physical addresses from 2 GiB */
	dc[0] = TC_V;
	dc[1] = SV39 << 60 | 5ull << 44 | pa(g) >> 12; /* GSCID 5 */
	/* the G stage alone first */
	map(g, 3, true, gbase, 0x30000000, 1ull << 21, LEAF);
	assert_int_equal(through(DID, gbase + 0x1234), 0x30001234);
	uint64_t tval2;
	uint64_t phys;
	assert_false(dma(DID, 1ull << 41, false, &phys)); /* beyond Sv39x4's 41 bits */
	assert_int_equal(take_fault(NULL, NULL, NULL, &tval2), 21);
	assert_int_equal(tval2, 1ull << 41);
	/* the S stage at guest physical addresses the G stage maps to its pages */
	map(g, 3, true, 0x40000000, pa(s), 4096, LEAF);
	dc[2] = 9ull << 12;
	dc[3] = SV39 << 60 | 0x40000000ull >> 12;
	iodir(DID);
	uint64_t *l1 = page(), *l0 = page();
	map(g, 3, true, 0x40001000, pa(l1), 4096, LEAF);
	map(g, 3, true, 0x40002000, pa(l0), 4096, LEAF);
	s[0] = ppn(0x40001000) | V;
	l1[0] = ppn(0x40002000) | V;
	l0[5] = ppn(gbase + 0x3000) | LEAF;
	assert_int_equal(through(DID, 0x5678), 0x30003678);
	l0[6] = ppn(0x90000000) | LEAF; /* a GPA the G stage lacks */
	assert_false(dma(DID, 0x6000, true, &phys));
	assert_int_equal(take_fault(NULL, NULL, NULL, &tval2), 23);
	assert_int_equal(tval2, 0x90000000);
	s[1] = ppn(0x50000000) | V; /* the S stage's next table where the G stage has nothing */
	assert_false(dma(DID, 1ull << 30, false, &phys));
	assert_int_equal(take_fault(NULL, NULL, NULL, &tval2), 21);
	assert_int_equal(tval2, 0x50000000 | 1);
	assert_clean();
}

/* ---- the caches ----------------------------------------------------------- */

/* A changed leaf is served stale until an IOTINVAL.VMA that covers it:
 * not by one for another PSCID or another address, nor by a GVMA (no G
 * stage); a changed context is served stale until IODIR.INVAL_DDT for
 * its device (one for another device leaves it). */
static void stale_until_invalidated(void **state)
{
	(void)state;
	unit(LVL1);
	uint64_t *root = s_stage(DID, SV39, 3);
	map(root, 3, false, 0x10000, 0x20000, 4096, LEAF);
	assert_int_equal(through(DID, 0x10000), 0x20000);
	map(root, 3, false, 0x10000, 0x30000, 4096, LEAF);
	iotinval(0, -1, 4, ~0ull);
	iotinval(0, -1, 3, 0x11000);
	iotinval(1, -1, -1, ~0ull);
	assert_int_equal(through(DID, 0x10000), 0x20000);
	iotinval(0, -1, 3, 0x10000);
	assert_int_equal(through(DID, 0x10000), 0x30000);
	/* the context: another root under the same PSCID */
	uint64_t *other = page();
	map(other, 3, false, 0x10000, 0x40000, 4096, LEAF);
	uint64_t *dc = dc_of(DID);
	dc[3] = SV39 << 60 | pa(other) >> 12;
	dc[2] = 8ull << 12;
	iodir(DID + 1);
	assert_int_equal(through(DID, 0x10000), 0x30000);
	iodir(DID);
	assert_int_equal(through(DID, 0x10000), 0x40000);
	assert_true(m.dc_hits > 0);
	/* a G-stage entry goes with a GVMA for its GSCID, not another's */
	unit(LVL1);
	uint64_t *g = root16k();
	dc = dc_of(DID);
	dc[0] = TC_V;
	dc[1] = SV39 << 60 | 2ull << 44 | pa(g) >> 12;
	map(g, 3, true, 0x100000, 0x200000, 4096, LEAF);
	assert_int_equal(through(DID, 0x100000), 0x200000);
	map(g, 3, true, 0x100000, 0x300000, 4096, LEAF);
	iotinval(1, 1, -1, ~0ull);
	iotinval(0, 2, -1, ~0ull); /* VMA: an S stage's entries only */
	assert_int_equal(through(DID, 0x100000), 0x200000);
	iotinval(1, 2, -1, 0x100000);
	assert_int_equal(through(DID, 0x100000), 0x300000);
	assert_clean();
}

/* ---- the queues ----------------------------------------------------------- */

/* IOFENCE.C stores its data; an illegal command stops the queue with cqh
 * on it until cmd_ill is cleared; cqen 0 to 1 sets cqh to 0; a cqb write
 * sets cqt to 0; a fence that never completes leaves cqh on it. */
static void command_queue(void **state)
{
	(void)state;
	unit(BARE);
	fence_word = 0;
	fence(0x5a5a);
	assert_int_equal(fence_word, 0x5a5a);
	assert_int_equal(rd32(CQH), 1);
	cmd(0x7f, 0);		/* no such opcode */
	cmd(1 | 1ull << 34, 0); /* IOTINVAL with NL: no non-leaf capability */
	assert_true(rd32(CQCSR) & CMD_ILL);
	assert_int_equal(rd32(CQH), 1);
	assert_true(rd32(IPSR) == 0); /* cie clear: no interrupt */
	cq[2] = 3, cq[3] = 0;	      /* put a legal IODIR in its place */
	wr32(CQCSR, EN | CMD_ILL);
	assert_int_equal(rd32(CQH), 2);
	assert_true(rd32(CQCSR) & CMD_ILL); /* the IOTINVAL with NL */
	wr32(CQCSR, 0);
	assert_false(rd32(CQCSR) & QON);
	wr(CQB, ppn(pa(cq)) | 7);
	assert_int_equal(rd32(CQT), 0);
	wr32(CQCSR, EN | IE);
	assert_int_equal(rd32(CQH), 0);
	assert_int_equal(rd32(CQCSR) & CMD_ILL, 0);
	m.fence_stuck = true;
	fence_word = 0;
	fence(1);
	assert_int_equal(rd32(CQH), 0);
	assert_int_equal(fence_word, 0);
	assert_int_equal(rd32(CQCSR) & 0xf00, 0);
	cmd(0x7f, 0);
	assert_int_equal(m.commands, 2); /* the first fence and the IODIR */
	m.fence_stuck = false;
	assert_clean();
}

/* Eight entries hold seven records (full at fqt == fqh - 1): the eighth
 * sets fqof and is dropped, and so is every one after until fqof is
 * cleared; fip and the MSI once per edge, none with the vector masked. */
static void fault_queue_overflow(void **state)
{
	(void)state;
	unit(OFF);
	for (unsigned i = 0; i < 9; i++)
		assert_false(rvim_translate(&m, DID, 0x1000 * i, false, &(uint64_t){ 0 }));
	assert_int_equal(records(), 7);
	assert_true(rd32(FQCSR) & FQOF);
	assert_int_equal(m.faults_recorded, 7);
	assert_int_equal(m.faults_dropped, 2);
	assert_int_equal(msi_calls, 1);
	assert_true(rd32(IPSR) & 2);
	for (unsigned i = 0; i < 7; i++)
		assert_int_equal(take_fault(NULL, NULL, NULL, NULL), 256);
	assert_false(rvim_translate(&m, DID, 0, false, &(uint64_t){ 0 }));
	assert_int_equal(records(), 0); /* still overflowed */
	wr32(FQCSR, EN | IE | FQOF);
	wr32(IPSR, 2);
	wr32(MSI_CFG(0) + 12, 1); /* vector 0 (icvec.fiv 0) masked */
	assert_false(rvim_translate(&m, DID, 0, false, &(uint64_t){ 0 }));
	assert_int_equal(records(), 1);
	assert_int_equal(msi_calls, 1);
	m.fq_full = true;
	assert_false(rvim_translate(&m, DID, 0, false, &(uint64_t){ 0 }));
	assert_true(rd32(FQCSR) & FQOF);
	assert_clean();
}

/* ---- MSI page tables -------------------------------------------------------- */

/* An MSI to a guest interrupt file goes where its flat MSI PTE says; the
 * file number is extracted through msi_addr_mask; a PTE not valid (262)
 * or in a mode the unit lacks (263) faults; other addresses take the G
 * stage. */
static void msi_flat(void **state)
{
	(void)state;
	unit(LVL1);
	uint64_t *dc = dc_of(DID), *g = root16k(), *mpt = page();
	dc[0] = TC_V;
	dc[1] = SV39 << 60 | 1ull << 44 | pa(g) >> 12;
	dc[4] = 1ull << 60 | pa(mpt) >> 12;
	dc[5] = 0x5;				  /* interrupt files: GPA page bits 0 and 2 */
	dc[6] = 0x28000;			  /* pattern: the pages at 0x28000000 */
	mpt[2 * 3] = ppn(0x9abc000) | 3 << 1 | V; /* file 3: page bits 0 and 2 set */
	assert_int_equal(through(DID, 0x28005004), 0x9abc004);
	assert_int_equal(m.msi_translations, 1);
	/* page bit 1 set: outside the pattern, so the G stage's */
	map(g, 3, true, 0x28002000, 0x11000000, 4096, LEAF);
	assert_int_equal(through(DID, 0x28002010), 0x11000010);
	assert_int_equal(m.msi_translations, 1);
	assert_int_equal(refused(DID, 0x28004000, true), 262); /* file 2: no PTE */
	mpt[2 * 1] = ppn(0x1000) | 1 << 1 | V;		       /* file 1 in MRIF mode: not offered */
	assert_int_equal(refused(DID, 0x28001000, true), 263);
	assert_clean();
}

/* ---- the register file ------------------------------------------------------ */

/* 64-bit registers take 8 bytes or a 4-byte half, 32-bit ones 4 bytes;
 * a 2-byte access is counted; a reserved bit written is counted; xLVL
 * over a translating mode and Bare over one are protocol errors; a
 * reserved mode is ignored; all-ones reads all ones. */
static void register_rules(void **state)
{
	(void)state;
	unit(OFF);
	/* the high half first: under Off, then the mode with the low half */
	wr32(DDTP + 4, (uint32_t)(ppn(pa(ddt_root)) >> 32));
	wr32(DDTP, (uint32_t)(ppn(pa(ddt_root)) | LVL1));
	assert_int_equal(rd(DDTP), ppn(pa(ddt_root)) | LVL1);
	assert_clean();
	regwin_read16(&m.win, DDTP);
	regwin_write64(&m.win, CQCSR, 0);
	assert_int_equal(m.bad_width, 2);
	m.bad_width = 0;
	wr(DDTP, ppn(pa(ddt_root)) | 7); /* reserved mode: WARL, kept */
	assert_int_equal(rd(DDTP) & 0xf, LVL1);
	wr(DDTP, ppn(pa(ddt_root)) | LVL2);
	wr(DDTP, ppn(pa(ddt_root)) | BARE);
	assert_int_equal(m.protocol_errors, 2);
	m.protocol_errors = 0;
	wr(DDTP, 1ull << 60 | BARE);
	wr(CAPS, 0);
	assert_int_equal(m.reserved_writes, 2);
	m.reserved_writes = 0;
	wr(ICVEC, 0x21);
	assert_int_equal(rd(ICVEC), 0x21);
	m.all_ones = true;
	assert_int_equal(rd(DDTP), ~0ull);
	assert_int_equal(rd32(CQH), 0xffffffffu);
	m.all_ones = false;
	m.ddtp_busy = true;
	wr(DDTP, OFF);
	assert_true(rd(DDTP) & (1ull << 4));
	assert_int_equal(rd(DDTP) & 0xf, BARE);
	assert_clean();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(reset_blocks_bare_passes),
		cmocka_unit_test(directory_depths),
		cmocka_unit_test(broken_directory),
		cmocka_unit_test(stages_as_offered),
		cmocka_unit_test(s_stage_every_mode_and_leaf),
		cmocka_unit_test(permissions_and_dirty_bits),
		cmocka_unit_test(two_stages),
		cmocka_unit_test(stale_until_invalidated),
		cmocka_unit_test(command_queue),
		cmocka_unit_test(fault_queue_overflow),
		cmocka_unit_test(msi_flat),
		cmocka_unit_test(register_rules),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
