/* The SMMUv3 model alone (smmuv3_model_unit.h drives it): its ID and
 * control registers and their acknowledgements, the walk at each granule
 * with its blocks, the permissions and the Access flag, every fault type
 * recorded (and not, without CD.R), and the 2-level stream table. Each
 * claim is one the model could get wrong. */
#include "unit.h"

#include "smmuv3_model_unit.h"

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
		cmocka_unit_test(two_level_stream_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
