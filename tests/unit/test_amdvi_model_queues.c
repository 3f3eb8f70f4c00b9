/* The AMD-Vi model's command buffer and event log (amdvi_model_unit.h
 * drives it): the completion-wait store, an illegal command stopping the
 * buffer, the event log and its overflow, W1C status, the injected
 * faults, and the counters that fail a driver breaking the rules. */
#include "unit.h"

#include "amdvi_model_unit.h"

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
