/* The SMMUv3 model's caches and queues (smmuv3_model_unit.h drives it):
 * caches stale until the covering command and no longer, the command
 * queue's error and its recovery, the event queue's overflow, the
 * injected faults, and the counters that fail a driver breaking the
 * rules. */
#include "unit.h"

#include "smmuv3_model_unit.h"

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
		cmocka_unit_test(tlb_stale_until_the_precise_invalidation),
		cmocka_unit_test(range_invalidation_is_precise),
		cmocka_unit_test(global_entries_survive_asid_invalidation),
		cmocka_unit_test(configuration_cached_until_cfgi),
		cmocka_unit_test(invalid_structures_cached_until_cfgi),
		cmocka_unit_test(command_error_stops_the_queue_until_acknowledged),
		cmocka_unit_test(queue_base_aligned_to_its_size),
		cmocka_unit_test(queue_wraps_and_sync_interrupts),
		cmocka_unit_test(event_queue_overflows_and_recovers),
		cmocka_unit_test(counts_forbidden_accesses),
		cmocka_unit_test(injected_faults),
		cmocka_unit_test(queues_where_nothing_answers),
		cmocka_unit_test(family_faults_and_kinds),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
