/* The SMMUv3 model alone, driven as IHI 0070 says software drives the
 * unit: registers poked through its window, stream tables, STEs, CDs,
 * translation tables and commands written in memory by this file's own
 * helpers (from the spec, not from any driver). Each claim is one the
 * model could get wrong: the walk at each granule with its blocks, the
 * permissions and the Access flag, every fault type recorded (and not,
 * without CD.R), caches stale until the covering command and no longer,
 * the 2-level stream table, the command queue's error and its recovery,
 * the event queue's overflow, the injected faults, the counters that fail
 * a driver breaking the rules, and stage 2 (its walk with concatenated
 * start tables, S2AP, its faults, its STE checks, its TLB by VMID). */
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

static void on_irq(void *ctx, enum smmuv3m_irq which)
{
	((unsigned *)ctx)[which]++;
}

static uint32_t rd(uint64_t off)
{
	return regwin_read32(&m.win, off);
}

static void wr(uint64_t off, uint32_t v)
{
	regwin_write32(&m.win, off, v);
}

static void wr64(uint64_t off, uint64_t v)
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

/* CR0 written and its ACK polled, as the spec asks (6.3.9). */
static void cr0(uint32_t v)
{
	wr(CR0, v);
	for (unsigned i = 0; i < 8 && rd(CR0ACK) != v; i++)
		;
	assert_int_equal(rd(CR0ACK), v);
}

/* A unit of `kind` with a linear stream table of 2^13 STEs, a 256-entry
 * command queue and a 128-entry event queue, enabled in the order of 3.11. */
static void unit(const char *kind)
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

static void command(uint64_t c0, uint64_t c1)
{
	uint32_t prod = rd(CMDQ_PROD), i = prod & ((1u << CMDQ_LOG2) - 1);
	cmdq[2 * i] = c0;
	cmdq[2 * i + 1] = c1;
	wr(CMDQ_PROD, (prod + 1) & ((2u << CMDQ_LOG2) - 1));
}

static void cmd_sync(void)
{
	command(CMD_SYNC, 0);
	assert_int_equal(rd(CMDQ_CONS), rd(CMDQ_PROD)); /* consumed: the fence is complete */
}

static void tlbi_va(uint16_t asid, uint64_t va)
{
	command(TLBI_NH_VA | (uint64_t)asid << 48, va & ~0xfffull);
	cmd_sync();
}

/* The CD: TTB0 `ttb`, the granule, T0SZ, the ASID, IPS 44 bits, R and A,
 * AA64, walks of TTB1 disabled; `extra` or-ed in. */
static uint64_t *cd_at(unsigned i, uint64_t *ttb, unsigned tg, unsigned t0sz, uint16_t asid, uint64_t extra)
{
	uint64_t *cd = cds[i];
	cd[0] = t0sz | (uint64_t)tg << 6 | 1ull << 8 | 1ull << 10 | 3ull << 12 | CD_EPD1 | CD_V | CD_IPS(4) | CD_AA64 |
		CD_R | CD_A | (uint64_t)asid << 48 | extra;
	cd[1] = pa(ttb);
	return cd;
}

static void ste(uint32_t sid, uint64_t config, const uint64_t *cd)
{
	strtab[8 * sid] = STE_V | config | (cd ? pa(cd) : 0);
}

/* A stream translated through TTB0 `root` at granule shift `g`. */
static uint64_t *translated(uint32_t sid, unsigned g, unsigned t0sz, uint16_t asid)
{
	uint64_t *root = page();
	unsigned tg = g == 12 ? TG0_4K : g == 14 ? TG0_16K : TG0_64K;
	ste(sid, CFG_S1, cd_at(0, root, tg, t0sz, asid, 0));
	return root;
}

/* A stream translated at stage 2 only (Config 0b110): S2TTB `ttb`, the
 * granule (S2TG as TG0), S2T0SZ, S2SL0, the VMID, S2PS 44 bits, S2R,
 * walks write-back inner shareable; `extra` or-ed into doubleword 2. */
static void ste_s2(uint32_t sid, const uint64_t *ttb, unsigned tg, unsigned t0sz, unsigned sl0, uint16_t vmid,
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
static uint64_t *map_s2(uint64_t *root, unsigned g, unsigned ia, unsigned start, uint64_t ipa, uint64_t pa_,
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
static uint64_t *map(uint64_t *root, unsigned g, unsigned t0sz, unsigned leaf, uint64_t va, uint64_t pa_,
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

static bool dma(uint64_t iova, bool write, uint64_t *phys)
{
	*phys = 0;
	return smmuv3m_translate(&m, SID, iova, write, phys);
}

static uint64_t through(uint64_t iova)
{
	uint64_t phys;
	assert_true(dma(iova, false, &phys));
	return phys;
}

static unsigned events_written(void)
{
	return rd(EVENTQ_PROD) & ((2u << EVTQ_LOG2) - 1);
}

/* The i-th record the unit wrote. */
static const uint64_t *event_at(unsigned i)
{
	assert_true(events_written() > i);
	return &evtq[4 * i];
}

static unsigned event_type(unsigned i)
{
	return event_at(i)[0] & 0xff;
}

static void assert_clean(void)
{
	assert_int_equal(m.bad_width, 0);
	assert_int_equal(m.reserved_writes, 0);
	assert_int_equal(m.protocol_errors, 0);
	assert_int_equal(m.win.out_of_window, 0);
}

/* ---- registers ------------------------------------------------------------- */

static void id_registers_per_kind(void **state)
{
	(void)state;
	unit("smmuv3");
	assert_int_equal(rd(IDR0), 0x0d40101a); /* QEMU 7.2's: S1P, AArch64, COHACC, ASID16, 2-level */
	assert_int_equal(rd(IDR1) & 0x3f, 16);
	assert_int_equal(rd(IDR1) >> 6 & 0x1f, 0); /* SSIDSIZE 0 */
	assert_true(rd(IDR3) & (1u << 10));	   /* RIL */
	assert_int_equal(rd(IDR5), 0x74);	   /* OAS 44, 4K 16K 64K */
	unit("smmuv3-linear");
	assert_int_equal(rd(IDR0) & (1u << 4), 0);  /* not coherent */
	assert_int_equal(rd(IDR0) >> 27 & 3, 0);    /* linear only */
	assert_int_equal(rd(IDR3) & (1u << 10), 0); /* no RIL */
	assert_int_equal(rd(IDR5) & 0x70, 0x50);
	unit("smmuv3-64k");
	assert_int_equal(rd(IDR5) & 0x70, 0x40);
	assert_false(smmuv3m_init(&m, "smmuv2"));
	assert_clean();
}

static void acks_follow_only_after_a_poll(void **state)
{
	(void)state;
	unit("smmuv3");
	wr(CR0, CMDQEN | EVENTQEN);
	assert_int_equal(rd(CR0ACK), CMDQEN | EVENTQEN | SMMUEN); /* not yet */
	assert_int_equal(rd(CR0ACK), CMDQEN | EVENTQEN);
	wr(IRQ_CTRL, 5);
	assert_int_equal(rd(IRQ_CTRLACK), 0);
	assert_int_equal(rd(IRQ_CTRLACK), 5);
	/* GBPA: written with Update, which clears once the update is done */
	wr(GBPA, GBPA_UPDATE | GBPA_ABORT);
	assert_true(rd(GBPA) & GBPA_UPDATE);
	assert_int_equal(rd(GBPA), GBPA_ABORT);
	assert_clean();
	wr(GBPA, 0); /* without Update: ignored, counted */
	assert_int_equal(rd(GBPA), GBPA_ABORT);
	assert_int_equal(m.protocol_errors, 1);
	/* a CR0 write before the previous one was acknowledged */
	wr(CR0, 0);
	wr(CR0, CMDQEN);
	assert_int_equal(m.protocol_errors, 2);
}

static void bypass_and_abort_while_disabled(void **state)
{
	(void)state;
	unit("smmuv3");
	cr0(CMDQEN | EVENTQEN);
	assert_int_equal(through(0x12345), 0x12345);
	wr(GBPA, GBPA_UPDATE | GBPA_ABORT);
	uint64_t phys;
	assert_false(dma(0x12345, false, &phys));
	assert_int_equal(events_written(), 0); /* GBPA aborts record nothing */
	assert_clean();
}

/* ---- translation -------------------------------------------------------------- */

static void walks_each_granule_with_its_blocks(void **state)
{
	(void)state;
	static const struct {
		const char *kind;
		unsigned g, t0sz, block_level;
		uint64_t block;
	} cases[] = {
		{ "smmuv3", 12, 16, 1, 1ull << 30 }, /* 4 levels, 1 GiB blocks */
		{ "smmuv3", 12, 16, 2, 1ull << 21 },
		{ "smmuv3", 12, 25, 2, 1ull << 21 }, /* 39 bits: starts at level 1 */
		{ "smmuv3", 12, 34, 2, 1ull << 21 }, /* 30 bits: starts at level 2 */
		{ "smmuv3", 14, 16, 2, 1ull << 25 }, /* 16K: 4 levels, level 0 of 2 entries */
		{ "smmuv3", 14, 28, 2, 1ull << 25 },
		{ "smmuv3-64k", 16, 16, 2, 1ull << 29 }, /* 64K: 3 levels, 512 MiB blocks */
		{ "smmuv3-linear", 16, 22, 2, 1ull << 29 },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		unit(cases[i].kind);
		unsigned g = cases[i].g;
		uint64_t *root = translated(SID, g, cases[i].t0sz, 1),
			 top = (1ull << (64 - cases[i].t0sz)) - (1ull << g);
		map(root, g, cases[i].t0sz, 3, top, 0x7650000ull << 4, LEAF);
		map(root, g, cases[i].t0sz, 3, 0, 0x30000, LEAF);
		map(root, g, cases[i].t0sz, cases[i].block_level, cases[i].block, 0x80000000000ull, LEAF);
		assert_int_equal(through(top + 0x123), (0x7650000ull << 4) + 0x123);
		assert_int_equal(through(0x10), 0x30010);
		assert_int_equal(through(cases[i].block + cases[i].block - 8), 0x80000000000ull + cases[i].block - 8);
		uint64_t phys;
		/* beyond what T0SZ covers: a translation fault, not a wrap */
		assert_false(dma(top + (1ull << g), false, &phys));
		assert_int_equal(event_type(0), SMMUV3M_F_TRANSLATION);
		assert_int_equal(event_at(0)[2], top + (1ull << g));
		assert_int_equal(m.walks, 3); /* the fault is found before any walk */
		assert_clean();
	}
}

static void blocks_only_where_the_granule_allows(void **state)
{
	(void)state;
	uint64_t phys;
	unit("smmuv3");
	uint64_t *root = translated(SID, 12, 16, 1);
	*map(root, 12, 16, 0, 0, 0, LEAF) = D_VALID | LEAF; /* a level-0 block: reserved at 4K */
	assert_false(dma(0x1000, false, &phys));
	assert_int_equal(event_type(0), SMMUV3M_F_TRANSLATION);
	unit("smmuv3");
	root = translated(SID, 14, 16, 1);
	map(root, 14, 16, 1, 1ull << 36, 0, LEAF); /* a level-1 block: 16K allows none without DS */
	assert_false(dma(1ull << 36, false, &phys));
	assert_int_equal(event_type(0), SMMUV3M_F_TRANSLATION);
	/* a level-3 descriptor with bit 1 clear is reserved, not a block */
	uint64_t *leaf = map(root, 14, 16, 3, 0x4000, 0x8000, LEAF);
	*leaf &= ~D_TABLE;
	assert_false(dma(0x4000, false, &phys));
	assert_int_equal(event_type(1), SMMUV3M_F_TRANSLATION);
	*leaf |= D_TABLE;
	assert_int_equal(through(0x4004), 0x8004);
}

static void permissions_from_ap_and_aptable(void **state)
{
	(void)state;
	uint64_t phys;
	unit("smmuv3");
	uint64_t *root = translated(SID, 12, 16, 3);
	map(root, 12, 16, 3, 0x1000, 0x11000, LEAF | D_AP2); /* read-only */
	assert_true(dma(0x1000, false, &phys));
	assert_false(dma(0x1008, true, &phys));
	const uint64_t *e = event_at(0);
	assert_int_equal(e[0], (uint64_t)SID << 32 | SMMUV3M_F_PERMISSION);
	assert_int_equal(e[1] >> 35 & 1, 0); /* RnW: a write */
	assert_int_equal(e[2], 0x1008);
	/* from the TLB too: the permission is checked on a hit */
	assert_int_equal(m.tlb_hits, 1);
	/* AP[1]=0: EL1 only, and a PCIe request is unprivileged */
	map(root, 12, 16, 3, 0x2000, 0x12000, (LEAF & ~D_AP1));
	assert_false(dma(0x2000, false, &phys));
	assert_int_equal(event_type(1), SMMUV3M_F_PERMISSION);
	assert_int_equal(event_at(1)[1] >> 35 & 1, 1); /* RnW: a read */
	/* STE.PRIVCFG privileged: the same page reads */
	strtab[8 * SID + 1] = 3ull << 48;
	command(CFGI_STE | (uint64_t)SID << 32, 1);
	assert_int_equal(through(0x2000), 0x12000);
	/* APTable[1]: no writes below this table */
	map(root, 12, 16, 3, 1ull << 30, 0x13000, LEAF);
	uint64_t *l1 = (uint64_t *)(uintptr_t)(root[0] & 0x0000fffffffff000ull);
	l1[1] |= APTABLE_RO;
	assert_false(dma(1ull << 30, true, &phys));
	assert_int_equal(event_type(2), SMMUV3M_F_PERMISSION);
	assert_true(dma(1ull << 30, false, &phys));
	assert_int_equal(phys, 0x13000);
	assert_clean();
}

static void access_flag_and_affd(void **state)
{
	(void)state;
	uint64_t phys;
	unit("smmuv3");
	uint64_t *root = translated(SID, 12, 16, 1);
	map(root, 12, 16, 3, 0x5000, 0x55000, LEAF & ~D_AF);
	assert_false(dma(0x5000, false, &phys)); /* unlike QEMU, which ignores AF */
	assert_int_equal(event_type(0), SMMUV3M_F_ACCESS);
	cds[0][0] |= CD_AFFD;
	command(CFGI_CD | (uint64_t)SID << 32, 1);
	cmd_sync();
	assert_int_equal(through(0x5000), 0x55000);
}

static void address_size_and_walk_aborts(void **state)
{
	(void)state;
	uint64_t phys;
	unit("smmuv3");
	uint64_t *root = translated(SID, 12, 16, 1);
	map(root, 12, 16, 3, 0x1000, 1ull << 44, LEAF); /* beyond OAS 44 */
	assert_false(dma(0x1000, false, &phys));
	assert_int_equal(event_type(0), SMMUV3M_F_ADDR_SIZE);
	/* IPS 32 bits: an output address at 4 GiB is beyond it */
	map(root, 12, 16, 3, 0x2000, 1ull << 32, LEAF);
	cds[0][0] &= ~CD_IPS(7);
	command(CFGI_CD | (uint64_t)SID << 32, 1);
	cmd_sync();
	assert_false(dma(0x2000, false, &phys));
	assert_int_equal(event_type(1), SMMUV3M_F_ADDR_SIZE);
	map(root, 12, 16, 3, 0x3000, 0xfffff000ull, LEAF);
	assert_int_equal(through(0x3008), 0xfffff008ull);
	/* a table at physical 0: nothing answers the walk */
	uint64_t *l1 = (uint64_t *)(uintptr_t)(root[0] & 0x0000fffffffff000ull);
	l1[2] = D_VALID | D_TABLE;
	assert_false(dma(2ull << 30, false, &phys));
	assert_int_equal(event_type(2), SMMUV3M_F_WALK_EABT);
	assert_int_equal(event_at(2)[2], 2ull << 30);
}

static void record_bit_and_config_errors(void **state)
{
	(void)state;
	uint64_t phys;
	unit("smmuv3");
	translated(SID, 12, 16, 1);
	cds[0][0] &= ~CD_R; /* translation faults are not recorded */
	assert_false(dma(0x1000, false, &phys));
	assert_int_equal(events_written(), 0);
	/* configuration errors are, whatever R says */
	cds[1][0] = cds[0][0] & ~CD_A; /* A=0: TERM_MODEL 1 makes it ILLEGAL */
	ste(0x10, CFG_S1, cds[1]);
	assert_false(smmuv3m_translate(&m, 0x10, 0, false, &phys));
	assert_int_equal(event_type(0), SMMUV3M_C_BAD_CD);
	assert_int_equal(event_at(0)[0] >> 32, 0x10);
	cds[2][0] = (cds[0][0] & ~0x3full) | 40; /* T0SZ 40: beyond 39 */
	ste(0x11, CFG_S1, cds[2]);
	assert_false(smmuv3m_translate(&m, 0x11, 0, false, &phys));
	assert_int_equal(event_type(1), SMMUV3M_C_BAD_CD);
	ste(0x12, CFG_S2, cds[0]); /* no stage 2 */
	assert_false(smmuv3m_translate(&m, 0x12, 0, false, &phys));
	assert_int_equal(event_type(2), SMMUV3M_C_BAD_STE);
	ste(0x13, CFG_S1, cds[0]);
	strtab[8 * 0x13] |= 1ull << 59; /* S1CDMax: no SubstreamIDs */
	assert_false(smmuv3m_translate(&m, 0x13, 0, false, &phys));
	assert_int_equal(event_type(3), SMMUV3M_C_BAD_STE);
	strtab[8 * 0x14] = CFG_BYPASS; /* V=0 */
	assert_false(smmuv3m_translate(&m, 0x14, 0, false, &phys));
	assert_int_equal(event_type(4), SMMUV3M_C_BAD_STE);
	ste(0x15, CFG_S1, NULL); /* the CD at physical 0 */
	assert_false(smmuv3m_translate(&m, 0x15, 0, false, &phys));
	assert_int_equal(event_type(5), SMMUV3M_F_CD_FETCH);
	assert_false(smmuv3m_translate(&m, 1u << LOG2_STES, 0, false, &phys)); /* beyond the table */
	assert_int_equal(event_type(6), SMMUV3M_C_BAD_STREAMID);
	cr0(CMDQEN | EVENTQEN); /* CR2 changes only while SMMUEN is 0 */
	wr(CR2, 0);		/* without RECINVSID: not recorded */
	cr0(CMDQEN | EVENTQEN | SMMUEN);
	assert_false(smmuv3m_translate(&m, 1u << LOG2_STES, 0, false, &phys));
	ste(0x16, CFG_ABORT, NULL); /* abort: nothing recorded */
	assert_false(smmuv3m_translate(&m, 0x16, 0, false, &phys));
	ste(0x18, 2ull << 1, NULL); /* 0b010: reserved, behaves as abort */
	assert_false(smmuv3m_translate(&m, 0x18, 0, false, &phys));
	ste(0x17, CFG_BYPASS, NULL);
	assert_true(smmuv3m_translate(&m, 0x17, 0x4321, true, &phys));
	assert_int_equal(phys, 0x4321);
	assert_int_equal(events_written(), 7);
	assert_int_equal(m.events, 7);
	assert_int_equal(irq_calls[SMMUV3M_IRQ_EVENTQ], 0); /* EVENTQ_IRQEN clear */
}

static void cd_halves_and_granules(void **state)
{
	(void)state;
	uint64_t phys;
	unit("smmuv3");
	uint64_t *root = translated(SID, 12, 16, 1), *upper = page();
	map(root, 12, 16, 3, 0x1000, 0x11000, LEAF);
	assert_false(dma(0xffff000000001000ull, false, &phys)); /* TTB1's half, EPD1=1 */
	assert_int_equal(event_type(0), SMMUV3M_F_TRANSLATION);
	assert_false(dma(0x0001000000001000ull, false, &phys)); /* neither half */
	assert_int_equal(event_type(1), SMMUV3M_F_TRANSLATION);
	/* TTB1 walked: T1SZ 16, TG1 0b10 (4K in TG1's own encoding) */
	cds[0][0] = (cds[0][0] & ~CD_EPD1) | 16ull << 16 | 2ull << 22;
	cds[0][2] = pa(upper);
	command(CFGI_CD | (uint64_t)SID << 32, 1);
	cmd_sync();
	map(upper, 12, 16, 3, 0xffff000000002000ull, 0x22000, LEAF);
	assert_int_equal(through(0xffff000000002008ull), 0x22008);
	assert_int_equal(through(0x1008), 0x11008);
	/* T1SZ out of range once TTB1 is used: the CD is ILLEGAL */
	cds[0][0] &= ~(0x3full << 16);
	command(CFGI_CD | (uint64_t)SID << 32, 1);
	cmd_sync();
	assert_false(dma(0x1008, false, &phys));
	assert_int_equal(event_type(2), SMMUV3M_C_BAD_CD);
	/* a granule IDR5 does not offer: 16K on the 64K-only kind */
	unit("smmuv3-64k");
	translated(SID, 14, 16, 1);
	assert_false(dma(0x1000, false, &phys));
	assert_int_equal(event_type(0), SMMUV3M_C_BAD_CD);
	assert_clean();
}

/* ---- caches -------------------------------------------------------------------- */

static void tlb_stale_until_the_precise_invalidation(void **state)
{
	(void)state;
	unit("smmuv3");
	uint64_t *root = translated(SID, 12, 16, 5);
	uint64_t *a = map(root, 12, 16, 3, 0x10000, 0x100000, LEAF);
	map(root, 12, 16, 3, 0x11000, 0x110000, LEAF);
	assert_int_equal(through(0x10000), 0x100000);
	assert_int_equal(through(0x11000), 0x110000);
	*a = 0x200000 | LEAF | D_VALID | D_TABLE;
	assert_int_equal(through(0x10000), 0x100000); /* stale */
	tlbi_va(6, 0x10000);			      /* another ASID */
	assert_int_equal(through(0x10000), 0x100000);
	tlbi_va(5, 0x11000); /* another page */
	assert_int_equal(through(0x10000), 0x100000);
	command(CFGI_STE | (uint64_t)SID << 32, 1); /* configuration only */
	cmd_sync();
	assert_int_equal(through(0x10000), 0x100000);
	tlbi_va(5, 0x10000);
	assert_int_equal(through(0x10000), 0x200000);
	assert_int_equal(m.tlbi_nh_va, 3);
	/* NH_ASID, NH_VAA, NH_ALL, NSNH_ALL each drop it */
	static const uint64_t drops[][2] = {
		{ TLBI_NH_ASID | 5ull << 48, 0 },
		{ TLBI_NH_VAA, 0x10000 },
		{ TLBI_NH_ALL, 0 },
		{ TLBI_NSNH_ALL, 0 },
	};
	for (unsigned i = 0; i < 4; i++) {
		uint64_t before = 0x300000 + 0x100000 * i, after = before + 0x1000;
		*a = before | LEAF | D_VALID | D_TABLE;
		tlbi_va(5, 0x10000);
		assert_int_equal(through(0x10000), before);
		*a = after | LEAF | D_VALID | D_TABLE;
		assert_int_equal(through(0x10000), before);
		command(drops[i][0], drops[i][1]);
		cmd_sync();
		assert_int_equal(through(0x10000), after);
	}
	assert_int_equal(m.tlbi_nh_asid + m.tlbi_nh_vaa + m.tlbi_nh_all + m.tlbi_nsnh_all, 4);
	assert_clean();
}

static void range_invalidation_is_precise(void **state)
{
	(void)state;
	unit("smmuv3");
	uint64_t *root = translated(SID, 12, 16, 5), *e[8];
	for (unsigned i = 0; i < 8; i++) {
		e[i] = map(root, 12, 16, 3, 0x40000 + 0x1000ull * i, 0x400000 + 0x1000ull * i, LEAF);
		through(0x40000 + 0x1000ull * i);
	}
	for (unsigned i = 0; i < 8; i++)
		*e[i] += 0x100000;
	/* TG 4K, NUM 2, SCALE 0: three pages from 0x42000 */
	command(TLBI_NH_VA | 5ull << 48 | 2ull << 12, 0x42000 | 1ull << 10);
	cmd_sync();
	for (unsigned i = 0; i < 8; i++) {
		uint64_t want = 0x400000 + 0x1000ull * i + (i >= 2 && i < 5 ? 0x100000 : 0);
		assert_int_equal(through(0x40000 + 0x1000ull * i), want);
	}
	assert_int_equal(m.tlbi_nh_va_range, 1);
	/* a range names the granule and the leaf level it drops: a wrong TG or
	 * TTL leaves the entry (4.4.1.1), the right ones drop it */
	uint64_t *blk = map(root, 12, 16, 2, 0x40000000, 0x80000000, LEAF);
	assert_int_equal(through(0x40000000), 0x80000000);
	*blk += 0x200000;
	command(TLBI_NH_VA | 5ull << 48 | 1ull << 12, 0x40000000 | 2ull << 10);		    /* TG 16K */
	command(TLBI_NH_VA | 5ull << 48 | 1ull << 12, 0x40000000 | 1ull << 10 | 3ull << 8); /* TTL 3 */
	cmd_sync();
	assert_int_equal(through(0x40000000), 0x80000000);
	command(TLBI_NH_VA | 5ull << 48, 0x40000000 | 1ull << 10 | 2ull << 8); /* 4K, level 2 */
	cmd_sync();
	assert_int_equal(through(0x40000000), 0x80200000);
	/* NUM=SCALE=TTL=0 with a TG is the reserved combination: CERROR_ILL */
	command(TLBI_NH_VA | 5ull << 48, 0x42000 | 1ull << 10);
	assert_int_equal(rd(CMDQ_CONS) >> 24 & 0x7f, SMMUV3M_CERROR_ILL);
	/* no RIL: a range is CERROR_ILL */
	unit("smmuv3-linear");
	command(TLBI_NH_VA | 5ull << 48 | 2ull << 12, 0x42000 | 1ull << 10);
	assert_int_equal(rd(CMDQ_CONS) >> 24 & 0x7f, SMMUV3M_CERROR_ILL);
}

static void global_entries_survive_asid_invalidation(void **state)
{
	(void)state;
	unit("smmuv3");
	uint64_t *root = translated(SID, 12, 16, 5);
	uint64_t *a = map(root, 12, 16, 3, 0x10000, 0x100000, LEAF & ~D_NG);
	assert_int_equal(through(0x10000), 0x100000);
	*a += 0x1000;
	command(TLBI_NH_ASID | 5ull << 48, 0);
	cmd_sync();
	assert_int_equal(through(0x10000), 0x100000); /* nG=0: global, kept (4.4.2.2) */
	tlbi_va(5, 0x10000);
	assert_int_equal(through(0x10000), 0x101000);
}

static void configuration_cached_until_cfgi(void **state)
{
	(void)state;
	unit("smmuv3");
	uint64_t *root = translated(SID, 12, 16, 5), *other = page();
	map(root, 12, 16, 3, 0x1000, 0x11000, LEAF);
	map(other, 12, 16, 3, 0x1000, 0x22000, LEAF);
	assert_int_equal(through(0x1000), 0x11000);
	/* the CD's TTB0 and ASID change: stale through TLBI_NH_ALL until CFGI_CD */
	cds[0][1] = pa(other);
	cds[0][0] = (cds[0][0] & 0xffffffffffffull) | 6ull << 48;
	command(TLBI_NH_ALL, 0);
	cmd_sync();
	assert_int_equal(through(0x1000), 0x11000);
	command(CFGI_CD | (uint64_t)(SID + 1) << 32, 1); /* another stream's */
	cmd_sync();
	assert_int_equal(through(0x1000), 0x11000);
	command(CFGI_CD | (uint64_t)SID << 32, 1);
	cmd_sync();
	assert_int_equal(through(0x1000), 0x22000);
	/* the STE to bypass: stale until CFGI_STE (or a range covering it) */
	ste(SID, CFG_BYPASS, NULL);
	assert_int_equal(through(0x1000), 0x22000);
	command(CFGI_STE | (uint64_t)(SID + 1) << 32, 1);
	cmd_sync();
	assert_int_equal(through(0x1000), 0x22000);
	command(CFGI_STE_RANGE | (uint64_t)(SID & ~3u) << 32, 1); /* 4 StreamIDs from 0x1008 */
	cmd_sync();
	assert_int_equal(through(0x1000), 0x1000);
	/* back to stage 1 through CFGI_ALL (CFGI_STE_RANGE, Range 31) */
	cds[0][1] = pa(root);
	cds[0][0] = (cds[0][0] & 0xffffffffffffull) | 7ull << 48;
	ste(SID, CFG_S1, cds[0]);
	command(CFGI_STE_RANGE, 31);
	cmd_sync();
	assert_int_equal(through(0x1000), 0x11000);
	/* CFGI_STE drops the CD cached through the STE too (4.3.1) */
	cds[0][1] = pa(other);
	cds[0][0] = (cds[0][0] & 0xffffffffffffull) | 8ull << 48;
	assert_int_equal(through(0x1000), 0x11000);
	command(CFGI_STE | (uint64_t)SID << 32, 1);
	cmd_sync();
	assert_int_equal(through(0x1000), 0x22000);
	assert_int_equal(m.cfgi_cd, 2);
	assert_int_equal(m.cfgi_ste, 2);
	assert_int_equal(m.cfgi_ste_range, 1);
	assert_int_equal(m.cfgi_all, 1);
	assert_clean();
}

/* Structures are cached valid or not (3.21): an STE or a CD made valid
 * is not seen until the CFGI that covers it. */
static void invalid_structures_cached_until_cfgi(void **state)
{
	(void)state;
	uint64_t phys;
	unit("smmuv3");
	uint64_t *root = page();
	map(root, 12, 16, 3, 0x1000, 0x11000, LEAF);
	uint64_t *cd = cd_at(0, root, TG0_4K, 16, 1, 0);
	strtab[8 * SID] = CFG_S1 | pa(cd); /* V=0 */
	assert_false(dma(0x1000, false, &phys));
	assert_int_equal(event_type(0), SMMUV3M_C_BAD_STE);
	strtab[8 * SID] |= STE_V;
	assert_false(dma(0x1000, false, &phys));
	assert_int_equal(event_type(1), SMMUV3M_C_BAD_STE);
	command(CFGI_STE | (uint64_t)SID << 32, 1);
	cmd_sync();
	cd[0] &= ~CD_V;
	assert_false(dma(0x1000, false, &phys));
	assert_int_equal(event_type(2), SMMUV3M_C_BAD_CD);
	cd[0] |= CD_V;
	assert_false(dma(0x1000, false, &phys));
	assert_int_equal(event_type(3), SMMUV3M_C_BAD_CD);
	command(CFGI_CD | (uint64_t)SID << 32, 1);
	cmd_sync();
	assert_int_equal(through(0x1000), 0x11000);
	assert_clean();
}

/* ---- the stream table ----------------------------------------------------------- */

/* The unit switched to a 2-level table of 2^16 StreamIDs, SPLIT 8: the
 * L1 table and the L2 array for SID. */
static uint64_t *two_level(uint64_t **l2)
{
	uint64_t *l1 = page();
	*l2 = page();
	cr0(CMDQEN | EVENTQEN);
	wr64(STRTAB_BASE, pa(l1));
	wr(STRTAB_BASE_CFG, 1u << 16 | 8u << 6 | 16);
	cr0(CMDQEN | EVENTQEN | SMMUEN);
	l1[SID >> 8] = pa(*l2) | 9; /* Span 9: 256 STEs */
	return l1;
}

static void two_level_stream_table(void **state)
{
	(void)state;
	uint64_t phys, *l2;
	unit("smmuv3");
	uint64_t *l1 = two_level(&l2), *root = page();
	l2[8 * (SID & 0xff)] = STE_V | CFG_S1 | pa(cd_at(0, root, TG0_4K, 16, 1, 0));
	map(root, 12, 16, 3, 0x1000, 0x11000, LEAF);
	assert_int_equal(through(0x1000), 0x11000);
	assert_clean();
	/* an L1STD with Span 0, and a StreamID beyond its Span */
	assert_false(smmuv3m_translate(&m, 0x2000, 0, false, &phys));
	assert_int_equal(event_type(0), SMMUV3M_C_BAD_STREAMID);
	l1[0x21] = pa(l2) | 2; /* 2 STEs */
	assert_false(smmuv3m_translate(&m, 0x2108, 0, false, &phys));
	assert_int_equal(event_type(1), SMMUV3M_C_BAD_STREAMID);
	/* the Span 0 descriptor was cached too (3.21): a new span needs its
	 * non-leaf CFGI_STE */
	l1[0x20] = pa(l2) | 9;
	assert_false(smmuv3m_translate(&m, 0x2000 | (SID & 0xff), 0, false, &phys));
	command(CFGI_STE | 0x2000ull << 32, 0);
	cmd_sync();
	assert_true(smmuv3m_translate(&m, 0x2000 | (SID & 0xff), 0x1000, false, &phys));
	assert_int_equal(phys, 0x11000);
	assert_int_equal(events_written(), 3);
	/* the L1STD is cached: a leaf CFGI_STE keeps it, a non-leaf one drops it */
	l1[SID >> 8] = 0;
	command(CFGI_STE | (uint64_t)SID << 32, 1);
	cmd_sync();
	assert_int_equal(through(0x1000), 0x11000);
	command(CFGI_STE | (uint64_t)SID << 32, 0);
	cmd_sync();
	assert_false(dma(0x1000, false, &phys));
	assert_int_equal(event_type(3), SMMUV3M_C_BAD_STREAMID);
	/* a 2-level table where IDR0 offers none: SMMUEN with no usable table */
	unit("smmuv3-linear");
	two_level(&l2);
	assert_int_equal(m.protocol_errors, 1);
}

/* ---- the command queue ------------------------------------------------------------ */

static void command_error_stops_the_queue_until_acknowledged(void **state)
{
	(void)state;
	unit("smmuv3");
	wr(IRQ_CTRL, 1); /* GERROR_IRQEN */
	assert_int_equal(rd(IRQ_CTRLACK), 0);
	assert_int_equal(rd(IRQ_CTRLACK), 1);
	command(TLBI_NH_ALL, 0);
	uint32_t bad = rd(CMDQ_PROD);
	command(0x7f, 0); /* no such opcode */
	command(TLBI_NSNH_ALL, 0);
	command(CMD_SYNC, 0);
	uint32_t cons = rd(CMDQ_CONS);
	assert_int_equal(cons & 0xffffff, bad); /* stopped on it */
	assert_int_equal(cons >> 24 & 0x7f, SMMUV3M_CERROR_ILL);
	assert_int_equal((rd(GERROR) ^ rd(GERRORN)) & 1, 1);
	assert_int_equal(irq_calls[SMMUV3M_IRQ_GERROR], 1);
	assert_int_equal(m.tlbi_nsnh_all, 0);
	command(CMD_SYNC, 0); /* more commands wait while the error is active */
	assert_int_equal(rd(CMDQ_CONS) & 0xffffff, bad);
	/* the driver puts a CMD_SYNC in its place and acknowledges: consumption resumes */
	cmdq[2 * bad] = CMD_SYNC;
	wr(GERRORN, rd(GERROR));
	assert_int_equal(rd(CMDQ_CONS) & 0xffffff, rd(CMDQ_PROD));
	assert_int_equal(m.tlbi_nsnh_all, 1);
	assert_int_equal(m.syncs, 3);
	assert_clean();
	wr(GERRORN, rd(GERROR) ^ 1); /* acknowledging an error that is not active */
	assert_int_equal(m.protocol_errors, 1);
	/* recovery by disabling the queue and moving CONS past the command */
	unit("smmuv3");
	bad = rd(CMDQ_PROD);
	command(TLBI_NH_VA | 1ull << 20, 0x1000); /* SCALE without TG: RES0 */
	assert_int_equal(rd(CMDQ_CONS) >> 24 & 0x7f, SMMUV3M_CERROR_ILL);
	wr(GERRORN, rd(GERROR));
	assert_int_equal(rd(CMDQ_CONS) & 0xffffff, bad); /* the same command: stopped again */
	cr0(EVENTQEN | SMMUEN);
	wr(CMDQ_CONS, bad + 1);
	wr(GERRORN, rd(GERROR));
	cr0(CMDQEN | EVENTQEN | SMMUEN);
	cmd_sync();
	assert_int_equal(m.command_errors, 2);
	assert_clean();
}

/* A queue's base is aligned down to the queue's size (6.3.26): a command
 * queue written 32 bytes in is read from its aligned start. */
static void queue_base_aligned_to_its_size(void **state)
{
	(void)state;
	unit("smmuv3");
	cr0(EVENTQEN | SMMUEN);
	wr64(CMDQ_BASE, (pa(cmdq) + 32) | 4); /* 16 entries, 256 bytes */
	cr0(CMDQEN | EVENTQEN | SMMUEN);
	cmdq[0] = TLBI_NH_ALL;
	cmdq[4] = 0x7f; /* where the unaligned base points: never read */
	wr(CMDQ_PROD, 1);
	assert_int_equal(rd(CMDQ_CONS), 1);
	assert_int_equal(m.tlbi_nh_all, 1);
}

static void queue_wraps_and_sync_interrupts(void **state)
{
	(void)state;
	unit("smmuv3");
	for (unsigned i = 0; i < (1u << CMDQ_LOG2) + 10; i++)
		command(TLBI_NH_ASID | (uint64_t)i << 48, 0);
	assert_int_equal(rd(CMDQ_PROD), (1u << CMDQ_LOG2 | 10)); /* wrap bit set, index 10 */
	assert_int_equal(rd(CMDQ_CONS), rd(CMDQ_PROD));
	assert_int_equal(m.tlbi_nh_asid, (1u << CMDQ_LOG2) + 10);
	command(CMD_SYNC | 1u << 12, 0); /* CS=SIG_IRQ */
	command(CMD_SYNC | 2u << 12, 0); /* CS=SIG_SEV */
	assert_int_equal(irq_calls[SMMUV3M_IRQ_SYNC], 1);
	command(CMD_SYNC | 3u << 12, 0); /* reserved */
	assert_int_equal(rd(CMDQ_CONS) >> 24 & 0x7f, SMMUV3M_CERROR_ILL);
	assert_clean();
}

/* ---- the event queue ---------------------------------------------------------------- */

static void event_queue_overflows_and_recovers(void **state)
{
	(void)state;
	uint64_t phys;
	unit("smmuv3");
	cr0(CMDQEN | SMMUEN);
	wr64(EVENTQ_BASE, pa(evtq) | 2); /* 4 entries */
	wr(IRQ_CTRL, 4);		 /* EVENTQ_IRQEN */
	cr0(CMDQEN | EVENTQEN | SMMUEN);
	translated(SID, 12, 16, 1);
	for (unsigned i = 0; i < 6; i++)
		assert_false(dma(0x1000 * i, false, &phys));
	uint32_t prod = rd(EVENTQ_PROD);
	assert_int_equal(prod & 7, 4); /* full: index 0, wrap bit set */
	assert_true(prod & OVFLG);     /* toggled once for both losses */
	assert_int_equal(m.events, 4);
	assert_int_equal(m.events_lost, 2);
	assert_int_equal(m.overflows, 1);
	assert_int_equal(irq_calls[SMMUV3M_IRQ_EVENTQ], 4);
	assert_int_equal(evtq[4 * 3 + 2], 0x3000);
	/* consumed, the overflow acknowledged: the queue records again */
	wr(EVENTQ_CONS, (prod & 7) | OVFLG);
	assert_false(dma(0x9000, false, &phys));
	assert_int_equal(rd(EVENTQ_PROD) & 7, 5);
	assert_int_equal(evtq[2], 0x9000);
	assert_int_equal(m.overflows, 1);
	assert_clean();
	/* disabled: events are lost, not queued */
	cr0(CMDQEN | SMMUEN);
	assert_false(dma(0xa000, false, &phys));
	assert_int_equal(m.events_lost, 3);
}

/* ---- what the driver must not do ----------------------------------------------------- */

static void counts_forbidden_accesses(void **state)
{
	(void)state;
	unit("smmuv3");
	assert_clean();
	regwin_read8(&m.win, CR0);
	regwin_read64(&m.win, CR0);	    /* a 64-bit access to two 32-bit registers */
	regwin_write32(&m.win, CR0 + 2, 0); /* unaligned */
	assert_int_equal(m.bad_width, 3);
	assert_int_equal(regwin_read32(&m.win, STRTAB_BASE + 4), (uint32_t)(pa(strtab) >> 32));
	assert_int_equal(m.bad_width, 3); /* a half of a 64-bit register is allowed */
	wr(IDR0, 0);			  /* read-only */
	wr(CR0 + 0x8, 1u << 13);	  /* CR1: beyond its fields */
	wr(0xa8, 1);			  /* the optional page-0 alias this unit lacks */
	wr(0x1000, 1);			  /* no register there */
	wr(0xc0, 0);			  /* PRIQ_BASE: no PRI, RES0, zero allowed */
	wr(0x1000, 0);
	assert_int_equal(m.reserved_writes, 4);
	wr64(STRTAB_BASE, 0x1000);	 /* moved under SMMUEN: ignored */
	wr(STRTAB_BASE_CFG, 5);		 /* likewise */
	wr64(CMDQ_BASE, pa(cmdq) | 4);	 /* under CMDQEN */
	wr64(EVENTQ_BASE, pa(evtq) | 4); /* under EVENTQEN */
	wr(CMDQ_CONS, 1);		 /* under CMDQEN */
	wr(EVENTQ_PROD, 1);		 /* under EVENTQEN */
	wr(CR2, 0);			 /* under SMMUEN */
	wr(CR0 + 0x8, 1u << 6);		 /* CR1.TABLE_IC under SMMUEN */
	assert_int_equal(m.protocol_errors, 8);
	wr64(STRTAB_BASE, pa(strtab)); /* the same value: no change, allowed */
	wr(CR2, RECINVSID);
	assert_int_equal(m.protocol_errors, 8);
	assert_int_equal(rd(CR0 + 0x8), 0);
	assert_int_equal(rd(CR2), RECINVSID);
	assert_int_equal(regwin_read64(&m.win, STRTAB_BASE), pa(strtab));
	wr(CMDQ_PROD, 2u << CMDQ_LOG2); /* beyond the queue's size */
	assert_int_equal(m.protocol_errors, 9);
	wr(EVENTQ_CONS, 3); /* past PROD: nothing was produced */
	assert_int_equal(m.protocol_errors, 10);
	cr0(0);
	wr64(STRTAB_BASE, 0);
	cr0(SMMUEN); /* no stream table */
	assert_int_equal(m.protocol_errors, 11);
	cr0(0);
	wr64(CMDQ_BASE, pa(cmdq) | 20); /* beyond IDR1.CMDQS (19) */
	assert_int_equal(m.protocol_errors, 12);
	regwin_read32(&m.win, SMMUV3M_WINDOW);
	assert_int_equal(m.win.out_of_window, 1);
}

static void injected_faults(void **state)
{
	(void)state;
	unit("smmuv3");
	m.sync_stuck = true;
	uint32_t at = rd(CMDQ_PROD);
	command(CMD_SYNC, 0);
	command(TLBI_NH_ALL, 0);
	assert_int_equal(rd(CMDQ_CONS), at); /* stopped before the CMD_SYNC, no error */
	assert_int_equal(rd(GERROR), 0);
	unit("smmuv3");
	m.illegal_next = true;
	command(TLBI_NH_ALL, 0);
	assert_int_equal(rd(CMDQ_CONS) >> 24 & 0x7f, SMMUV3M_CERROR_ILL);
	wr(GERRORN, rd(GERROR)); /* the same command is legal once retried */
	assert_int_equal(m.tlbi_nh_all, 1);
	unit("smmuv3");
	m.cr0ack_stuck = true;
	wr(CR0, 0);
	for (unsigned i = 0; i < 8; i++)
		assert_int_equal(rd(CR0ACK), CMDQEN | EVENTQEN | SMMUEN);
	unit("smmuv3");
	m.eventq_full = true;
	uint64_t phys;
	translated(SID, 12, 16, 1);
	assert_false(dma(0x1000, false, &phys));
	assert_int_equal(m.events, 0);
	assert_true(rd(EVENTQ_PROD) & OVFLG);
	m.all_ones = true;
	assert_int_equal(rd(IDR0), 0xffffffffu);
	assert_int_equal(regwin_read64(&m.win, STRTAB_BASE), ~0ull);
}

/* Physical 0 answers nothing: a command queue there is CERROR_ABT, an
 * event queue there GERROR.EVENTQ_ABT_ERR with the record lost. */
static void queues_where_nothing_answers(void **state)
{
	(void)state;
	uint64_t phys;
	unit("smmuv3");
	cr0(EVENTQEN | SMMUEN);
	wr64(CMDQ_BASE, CMDQ_LOG2);
	wr(CMDQ_PROD, 0);
	wr(CMDQ_CONS, 0);
	cr0(CMDQEN | EVENTQEN | SMMUEN); /* enabled with no queue: counted */
	assert_int_equal(m.protocol_errors, 1);
	command(TLBI_NH_ALL, 0);
	assert_int_equal(rd(CMDQ_CONS), SMMUV3M_CERROR_ABT << 24);
	assert_int_equal((rd(GERROR) ^ rd(GERRORN)) & 1, 1);
	unit("smmuv3");
	cr0(CMDQEN | SMMUEN);
	wr64(EVENTQ_BASE, EVTQ_LOG2);
	cr0(CMDQEN | EVENTQEN | SMMUEN);
	translated(SID, 12, 16, 1);
	assert_false(dma(0x1000, false, &phys));
	assert_int_equal((rd(GERROR) ^ rd(GERRORN)) & 4, 4);
	assert_int_equal(m.events, 0);
	assert_int_equal(m.events_lost, 1);
}

/* The family's faults, each injected as `model smmuv3 FAULT` does, and
 * its kinds, which are the model's. */
/* ---- stage 2 (kind smmuv3-s2) ---------------------------------------------- */

/* The stage-2 walk from S2TTB at 4K with S2SL0 1 (level 1) and a 40-bit
 * IPA: two concatenated level-1 tables, bit 39 choosing the second; S2AP
 * read and write apart; the faults recorded with S2, CLASS IN and the IPA. */
static void stage2_walk_permissions_and_faults(void **state)
{
	(void)state;
	uint64_t phys;
	unit("smmuv3-s2");
	uint64_t *root = page(); /* 8 KiB used: two tables, aligned to 8 KiB */
	ste_s2(SID, root, TG0_4K, 24, 1, 7, 0);
	map_s2(root, 12, 40, 1, 0x1000, 0x51000, S2_LEAF | S2_R | S2_W);
	map_s2(root, 12, 40, 1, 1ull << 39 | 0x2000, 0x52000, S2_LEAF | S2_R);
	map_s2(root, 12, 40, 1, 0x3000, 0x53000, S2_LEAF | S2_W);
	uint64_t *noaf = map_s2(root, 12, 40, 1, 0x4000, 0x54000, (S2_LEAF & ~D_AF) | S2_R);
	map_s2(root, 12, 40, 1, 0x5000, 1ull << 44, S2_LEAF | S2_R); /* beyond S2PS */
	assert_int_equal(through(0x1234), 0x51234);
	assert_true(root[512] & D_VALID); /* the second concatenated table was the one walked */
	assert_int_equal(through(1ull << 39 | 0x2010), 0x52010);
	assert_true(dma(0x1000, true, &phys));
	assert_false(dma(1ull << 39 | 0x2000, true, &phys)); /* S2AP read-only */
	assert_true(dma(0x3000, true, &phys));		     /* write-only */
	assert_int_equal(phys, 0x53000);
	assert_false(dma(0x3000, false, &phys));
	assert_false(dma(0x4000, false, &phys));     /* AF=0 */
	assert_false(dma(0x5000, false, &phys));     /* OA beyond S2PS */
	assert_false(dma(0x7000, false, &phys));     /* nothing there */
	assert_false(dma(1ull << 40, false, &phys)); /* beyond the IPA size */
	static const unsigned want[] = { SMMUV3M_F_PERMISSION, SMMUV3M_F_PERMISSION,  SMMUV3M_F_ACCESS,
					 SMMUV3M_F_ADDR_SIZE,  SMMUV3M_F_TRANSLATION, SMMUV3M_F_TRANSLATION };
	static const uint64_t at[] = { 1ull << 39 | 0x2000, 0x3000, 0x4000, 0x5000, 0x7000, 1ull << 40 };
	assert_int_equal(events_written(), 6);
	for (unsigned i = 0; i < 6; i++) {
		const uint64_t *e = event_at(i);
		assert_int_equal(event_type(i), want[i]);
		assert_true(e[1] & EV_S2);
		assert_int_equal(EV_CLASS(e[1]), 2); /* IN: the transaction's address */
		assert_int_equal(e[2], at[i]);
		assert_int_equal(e[3], at[i]); /* the IPA: stage 2 alone, the input address */
	}
	assert_int_equal(event_at(0)[1] & (1ull << 35), 0); /* a write */
	/* S2AFFD: AF=0 is no fault; S2R=0: faults not recorded */
	strtab[8 * SID + 2] |= S2AFFD;
	command(CFGI_STE | (uint64_t)SID << 32, 0);
	cmd_sync();
	assert_int_equal(through(0x4000), 0x54000);
	*noaf |= D_AF;
	strtab[8 * SID + 2] &= ~S2R;
	command(CFGI_STE | (uint64_t)SID << 32, 0);
	cmd_sync();
	assert_false(dma(0x7000, false, &phys));
	assert_int_equal(events_written(), 6);
	assert_clean();
}

/* The stage-2 STE checked as 5.2 says: each ILLEGAL field is C_BAD_STE. */
static void stage2_ste_legality(void **state)
{
	(void)state;
	uint64_t phys, *root;
	unit("smmuv3-s2");
	root = page();
	ste_s2(0x20, root, TG0_4K, 24, 1, 1, 0);
	map_s2(root, 12, 40, 1, 0, 0x60000, S2_LEAF | S2_R);
	assert_true(smmuv3m_translate(&m, 0x20, 0x10, false, &phys)); /* the legal one */
	assert_int_equal(phys, 0x60010);
	ste_s2(0x21, root, TG0_4K, 24, 0, 1, 0); /* level 2 would need 2^19 entries */
	ste_s2(0x22, root, TG0_4K, 16, 2, 1, 0); /* 48-bit IPA: beyond OAS 44 */
	ste_s2(0x23, root, TG0_4K, 24, 1, 1, 0);
	strtab[8 * 0x23 + 2] &= ~S2AA64; /* AArch32 tables: TTF offers AArch64 only */
	ste_s2(0x24, root, TG0_4K, 24, 1, 1, S2ENDI);
	ste_s2(0x25, root, TG0_4K, 24, 3, 1, 0); /* S2SL0 0b11 */
	ste_s2(0x26, root, TG0_4K, 24, 1, 1, 0);
	strtab[8 * 0x26] = STE_V | 7ull << 1; /* nested: not modelled */
	for (uint32_t sid = 0x21; sid <= 0x26; sid++)
		assert_false(smmuv3m_translate(&m, sid, 0, false, &phys));
	assert_int_equal(events_written(), 6);
	for (unsigned i = 0; i < 6; i++)
		assert_int_equal(event_type(i), SMMUV3M_C_BAD_STE);
	/* a unit with stage 2 alone refuses a stage-1 STE */
	unit("smmuv3-s2only");
	translated(SID, 12, 16, 1);
	assert_false(dma(0, false, &phys));
	assert_int_equal(event_type(0), SMMUV3M_C_BAD_STE);
}

/* Stage-2 leaves are tagged by VMID and only the commands that name stage
 * 2 reach them: every TLBI_NH_* keeps them, TLBI_S2_IPA of another VMID or
 * address keeps them, TLBI_S2_IPA (plain and range), TLBI_S12_VMALL and
 * TLBI_NSNH_ALL drop them. */
static void stage2_tlb_tagged_by_vmid(void **state)
{
	(void)state;
	unit("smmuv3-s2");
	uint64_t *root = page();
	ste_s2(SID, root, TG0_4K, 24, 1, 9, 0);
	uint64_t *leaf = map_s2(root, 12, 40, 1, 0x1000, 0x71000, S2_LEAF | S2_R | S2_W);
	assert_int_equal(through(0x1000), 0x71000);
	uint64_t phys, *other = page(); /* VMID 8: the same IPA elsewhere, not VMID 9's entry */
	ste_s2(0x30, other, TG0_4K, 24, 1, 8, 0);
	map_s2(other, 12, 40, 1, 0x1000, 0x81000, S2_LEAF | S2_R);
	assert_true(smmuv3m_translate(&m, 0x30, 0x1000, false, &phys));
	assert_int_equal(phys, 0x81000);
	*leaf = (*leaf & ~0x0000fffffffff000ull) | 0x72000;
	command(TLBI_NH_VA | 9ull << 48, 0x1000);
	command(TLBI_NH_ASID | 9ull << 48, 0);
	command(TLBI_NH_ALL, 0);
	command(TLBI_NH_VAA, 0x1000);
	command(TLBI_S2_IPA | 8ull << 32, 0x1000); /* another VMID */
	command(TLBI_S2_IPA | 9ull << 32, 0x2000); /* another IPA */
	cmd_sync();
	assert_int_equal(m.command_errors, 0);
	assert_int_equal(through(0x1000), 0x71000); /* stale */
	command(TLBI_S2_IPA | 9ull << 32, 0x1000 | 1);
	cmd_sync();
	assert_int_equal(through(0x1000), 0x72000);
	assert_int_equal(m.tlbi_s2_ipa, 3);
	/* the range form: 4 pages of 4K from 0 (NUM 3, TG 4K) */
	*leaf = (*leaf & ~0x0000fffffffff000ull) | 0x73000;
	command(TLBI_S2_IPA | 9ull << 32 | 3ull << 12, 1ull << 10);
	cmd_sync();
	assert_int_equal(through(0x1000), 0x73000);
	assert_int_equal(m.tlbi_s2_ipa_range, 1);
	*leaf = (*leaf & ~0x0000fffffffff000ull) | 0x74000;
	command(TLBI_S12_VMALL | 8ull << 32, 0);
	cmd_sync();
	assert_int_equal(through(0x1000), 0x73000);
	command(TLBI_S12_VMALL | 9ull << 32, 0);
	cmd_sync();
	assert_int_equal(through(0x1000), 0x74000);
	*leaf = (*leaf & ~0x0000fffffffff000ull) | 0x75000;
	command(TLBI_NSNH_ALL, 0);
	cmd_sync();
	assert_int_equal(through(0x1000), 0x75000);
	assert_int_equal(m.command_errors, 0);
	assert_clean();
	/* a unit without stage 2 refuses the stage-2 commands */
	unit("smmuv3");
	command(TLBI_S12_VMALL | 9ull << 32, 0);
	assert_int_equal(rd(CMDQ_CONS) >> 24, SMMUV3M_CERROR_ILL);
}

static void family_faults_and_kinds(void **state)
{
	(void)state;
	size_t n = 0;
	for (const char *const *k = smmuv3_family.kinds; *k; k++, n++)
		assert_string_equal(*k, smmuv3m_kinds[n].name);
	assert_null(smmuv3m_kinds[n].name);
	unsigned seen = 0;
	for (const struct model_fault *f = smmuv3_family.faults; f->name; f++) {
		unit("smmuv3");
		f->inject(&m);
		if (strcmp(f->name, "cmd-sync-stuck") == 0) {
			uint32_t at = rd(CMDQ_PROD);
			command(CMD_SYNC, 0);
			assert_int_equal(rd(CMDQ_CONS), at);
			assert_int_equal(f->at_take, IOMMU_ERR_TIMEOUT);
			seen |= 1;
		} else if (strcmp(f->name, "eventq-overflow") == 0) {
			uint64_t phys;
			translated(SID, 12, 16, 1);
			assert_false(dma(0x1000, false, &phys));
			assert_int_equal(m.overflows, 1);
			assert_int_equal(f->at_take, IOMMU_OK);
			seen |= 2;
		} else if (strcmp(f->name, "illegal-command") == 0) {
			command(CMD_SYNC, 0);
			assert_int_equal(rd(CMDQ_CONS) >> 24, SMMUV3M_CERROR_ILL);
			assert_int_equal(f->at_take, IOMMU_ERR_HARDWARE);
			seen |= 4;
		} else if (strcmp(f->name, "stale-caches") == 0) {
			uint64_t phys;
			unit("smmuv3");
			m.engine_sid = SID;
			f->inject(&m);
			uint64_t *root = translated(SID, 12, 16, 1);
			map(root, 12, 16, 3, 0x1000, 0x11000, LEAF);
			assert_false(dma(0x1000, false, &phys)); /* the stale abort STE */
			command(CFGI_STE_RANGE, 31);
			cmd_sync();
			assert_false(dma(0x1000, false, &phys)); /* a stale global leaf, read-only and EL1 only */
			assert_int_equal(event_type(0), SMMUV3M_F_PERMISSION);
			command(TLBI_NH_ASID | 1ull << 48, 0); /* keeps global entries */
			command(TLBI_NSNH_ALL, 0);
			cmd_sync();
			assert_int_equal(through(0x1000), 0x11000);
			assert_int_equal(f->at_take, IOMMU_OK);
			seen |= 16;
		} else if (strcmp(f->name, "cr0ack-stuck") == 0) {
			wr(CR0, 0);
			assert_int_equal(rd(CR0ACK), CMDQEN | EVENTQEN | SMMUEN);
			assert_int_equal(rd(CR0ACK), CMDQEN | EVENTQEN | SMMUEN);
			assert_int_equal(f->at_take, IOMMU_ERR_TIMEOUT);
			seen |= 8;
		}
	}
	assert_int_equal(seen, 31);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(id_registers_per_kind),
		cmocka_unit_test(acks_follow_only_after_a_poll),
		cmocka_unit_test(bypass_and_abort_while_disabled),
		cmocka_unit_test(walks_each_granule_with_its_blocks),
		cmocka_unit_test(blocks_only_where_the_granule_allows),
		cmocka_unit_test(permissions_from_ap_and_aptable),
		cmocka_unit_test(access_flag_and_affd),
		cmocka_unit_test(address_size_and_walk_aborts),
		cmocka_unit_test(record_bit_and_config_errors),
		cmocka_unit_test(cd_halves_and_granules),
		cmocka_unit_test(tlb_stale_until_the_precise_invalidation),
		cmocka_unit_test(range_invalidation_is_precise),
		cmocka_unit_test(global_entries_survive_asid_invalidation),
		cmocka_unit_test(configuration_cached_until_cfgi),
		cmocka_unit_test(invalid_structures_cached_until_cfgi),
		cmocka_unit_test(two_level_stream_table),
		cmocka_unit_test(command_error_stops_the_queue_until_acknowledged),
		cmocka_unit_test(queue_base_aligned_to_its_size),
		cmocka_unit_test(queue_wraps_and_sync_interrupts),
		cmocka_unit_test(event_queue_overflows_and_recovers),
		cmocka_unit_test(counts_forbidden_accesses),
		cmocka_unit_test(injected_faults),
		cmocka_unit_test(queues_where_nothing_answers),
		cmocka_unit_test(stage2_walk_permissions_and_faults),
		cmocka_unit_test(stage2_ste_legality),
		cmocka_unit_test(stage2_tlb_tagged_by_vmid),
		cmocka_unit_test(family_faults_and_kinds),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
