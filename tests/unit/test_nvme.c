/* The NVMe driver against a register-level model of a controller: a
 * healthy one (state put back as found), a mute one with CAP.TO = 0xff
 * (bounded by the device's budget, stoppable from the console), one that
 * is removed (all ones) mid-run, and the decoders alone.
 *
 * Time is simulated, never measured: the counter frequency is set to
 * 1 MHz, so each cycle of the host's counter stands for a microsecond and
 * CAP.TO's 127.5 s pass in about 0.1 s of real time. The tests assert what
 * the driver did (which waits, which named error, which registers), not
 * how long anything took. */
#include "unit.h"

#include "core/base/timing.h"
#include "core/monitor/runner.h"
#include "pci/dma.h"
#include "pci/nvme.h"
#include "tests/host/platform_host.h"

#include "nvme_model.h"

/* ---- the console: a key arrives after the driver has polled a while ---- */

static int key_after = -1; /* CSTS polls before Ctrl-C is typed; -1: never */

static int test_getc(void)
{
	if (key_after >= 0 && m.csts_reads >= (unsigned)key_after) {
		key_after = -1;
		return 0x03;
	}
	return -1;
}

static struct platform fake;

static int setup(void **state)
{
	(void)state;
	fake = host_platform;
	fake.getc = test_getc;
	fake.device_claim = NULL;
	fake.device_release = NULL;
	platform = &fake;
	timing.tsc_hz = 1000000; /* one cycle stands for one microsecond */
	return 0;
}

static struct dma_engine *open_it(const char **why)
{
	*why = NULL;
	return nvme_open_window(&pcfg, &dev, &bar, why);
}

/* ---- the tests ----------------------------------------------------------- */

/* Everything the driver changed is put back: CC (with EN: it was enabled),
 * the admin queue registers, INTMS, the command register. */
static void state_put_back(void **state)
{
	(void)state;
	healthy(1);
	uint32_t cc = m.cc, aqa = m.aqa, intms = m.intms;
	uint64_t asq = m.asq, acq = m.acq;
	const char *why;
	struct dma_engine *e = open_it(&why);
	assert_non_null(e);
	assert_null(why);
	assert_true(m.resets >= 1);
	assert_int_not_equal(m.asq, asq); /* it ran on its own queues */
	static uint8_t buf[4096] __attribute__((aligned(4096)));
	struct dma_result r;
	assert_int_equal(e->transfer(e, DMA_FROM_DEVICE, (uintptr_t)buf, 512, &r), DMA_OK);
	assert_int_equal(buf[0], 0x5a);
	e->close(e);
	assert_int_equal(m.cc, cc);
	assert_true(m.csts & NVME_CSTS_RDY);
	assert_int_equal(m.aqa, aqa);
	assert_int_equal(m.asq, asq);
	assert_int_equal(m.acq, acq);
	assert_int_equal(m.intms, intms);
	assert_int_equal(cfg[PCI_COMMAND], PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER);
	assert_int_equal(cfg[PCI_COMMAND + 1], 0); /* INTx disable put back too */
}

/* Found disabled: left disabled. */
static void disabled_stays_disabled(void **state)
{
	(void)state;
	healthy(1);
	m.cc &= ~NVME_CC_EN;
	m.csts = 0;
	const char *why;
	struct dma_engine *e = open_it(&why);
	assert_non_null(e);
	e->close(e);
	assert_false(m.cc & NVME_CC_EN);
	assert_false(m.csts & NVME_CSTS_RDY);
	assert_int_equal(m.intms, 0x5);
}

/* CAP.TO = 0xff (127.5 s) and a controller that answers Identify
 * Controller and then nothing, with 16 namespaces: one namespace wait, not
 * sixteen, and the named error. */
static void mute_after_identify(void **state)
{
	(void)state;
	healthy(0xff);
	m.nn = 16;
	m.mute_after = 1;
	const char *why;
	assert_null(open_it(&why));
	assert_non_null(why);
	assert_int_equal(m.admin_seen, 2); /* Identify Controller, Identify Namespace 1 */
	assert_non_null(strstr(why, "nvme: "));
	assert_non_null(strstr(why, "command"));
	/* given back: bus mastering off is not required (it stopped), but the
	 * command register is as found */
	assert_int_equal(cfg[PCI_COMMAND], PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER);
}

/* A controller whose RDY never clears, with CAP.TO = 0xff: the first
 * wait (127.5 s allowed) is cut by the device's 60 s budget, the error
 * names the budget, and the give-back's own wait is over at once. */
static void budget_bounds_every_wait(void **state)
{
	(void)state;
	healthy(0xff);
	m.rdy_stuck = true;
	const char *why;
	assert_null(open_it(&why));
	assert_non_null(why);
	assert_non_null(strstr(why, "budget of 60 s for waits is spent"));
	assert_non_null(strstr(why, "CAP.TO 127500 ms"));
	assert_non_null(strstr(why, "given up"));
	/* not stopped: bus mastering stays off */
	assert_int_equal(cfg[PCI_COMMAND] & PCI_COMMAND_MASTER, 0);
}

/* Ctrl-C typed while the driver waits on a mute controller ends the wait
 * with the operator's name on it. */
static void operator_stops_a_wait(void **state)
{
	(void)state;
	healthy(0xff);
	m.rdy_never = true;
	key_after = 5;
	const char *why;
	assert_null(open_it(&why));
	assert_non_null(why);
	assert_non_null(strstr(why, "stopped by the operator, waiting for CSTS.RDY to set"));
	assert_true(runner_stop_requested());
}

/* Removed mid-run (surprise removal: everything reads all ones): the I/O
 * wait notices and names it instead of waiting out its deadline. */
static void removed_during_io(void **state)
{
	(void)state;
	healthy(1);
	const char *why;
	struct dma_engine *e = open_it(&why);
	assert_non_null(e);
	m.removed = true;
	static uint8_t buf[4096] __attribute__((aligned(4096)));
	struct dma_result r;
	assert_int_equal(e->transfer(e, DMA_FROM_DEVICE, (uintptr_t)buf, 512, &r), DMA_TIMEOUT);
	assert_non_null(strstr(r.error, "reads all ones"));
	/* the next one is refused at once */
	assert_int_equal(e->transfer(e, DMA_FROM_DEVICE, (uintptr_t)buf, 512, &r), DMA_DEVICE_ERROR);
	e->close(e);
}

static void close_it(void *e)
{
	((struct dma_engine *)e)->close(e);
}

/* Ctrl-C ended the test (the stop stays requested for the rest of the
 * run), and the controller takes a while to clear RDY when disabled: the
 * give-back still waits for it (within CAP.TO), puts it back enabled as
 * found and gives bus mastering back, instead of leaving it disabled. */
static void stop_does_not_cut_the_give_back(void **state)
{
	(void)state;
	healthy(0xff);
	/* RDY clears only after the wait's first look at the device (100 ms
	 * in): a counter of 1 GHz keeps that far from CAP.TO and the budget
	 * (seconds of real time) however slowly this process is scheduled */
	timing.tsc_hz = 1000000000;
	const char *why;
	struct dma_engine *e = open_it(&why);
	assert_non_null(e);
	key_after = 0; /* Ctrl-C typed: the test saw it and ended */
	runner_stop_typed_now();
	assert_int_equal(key_after, -1);
	assert_true(runner_stop_requested());
	m.rdy_slow = true;
	unsigned resets = m.resets;
	const char *out = capture_stdout(close_it, e);
	key_after = -1;
	assert_true(runner_stop_requested());
	assert_int_equal(m.resets, resets + 1);
	assert_null(strstr(out, "stopped by the operator"));
	assert_null(strstr(out, "warning"));
	assert_int_equal(m.cc, 0x460001);
	assert_true(m.csts & NVME_CSTS_RDY);
	assert_int_equal(cfg[PCI_COMMAND], PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER);
	timing.tsc_hz = 1000000;
}

/* A controller that posts only completions for commands that are not the
 * one waited for (the head doorbell makes it post another): the wait still
 * ends at its deadline, with the named error. */
static void foreign_completions_meet_the_deadline(void **state)
{
	(void)state;
	healthy(1);
	const char *why;
	struct dma_engine *e = open_it(&why);
	assert_non_null(e);
	m.babble = true;
	alarm(20); /* the old loop never ends: SIGALRM fails the test */
	static uint8_t buf[4096] __attribute__((aligned(4096)));
	struct dma_result r;
	assert_int_equal(e->transfer(e, DMA_FROM_DEVICE, (uintptr_t)buf, 512, &r), DMA_TIMEOUT);
	alarm(0);
	/* its deadline, or the stop an earlier test left requested */
	assert_non_null(strstr(r.error, "for command"));
	assert_non_null(strstr(r.error, "completions for other commands only"));
	m.babble = false;
	e->close(e);
}

/* The decoders alone. */
static void decoders(void **state)
{
	(void)state;
	struct nvme_cap cap;
	assert_non_null(strstr(nvme_decode_cap(~0ull, &cap), "all ones"));
	assert_null(nvme_decode_cap(63 | 0xffull << 24 | 1ull << 37, &cap));
	assert_int_equal(cap.timeout_us, 127500000);
	assert_int_equal(cap.mqes, 64);
	assert_int_equal(cap.dstrd, 4);
	assert_null(nvme_decode_cap(63 | 1ull << 37, &cap));
	assert_int_equal(cap.timeout_us, 500000);		 /* TO = 0: taken as 500 ms */
	assert_non_null(nvme_decode_cap(63 | 1ull << 48, &cap)); /* 8 KiB pages only */
	assert_non_null(nvme_decode_cap(0 | 1ull << 37, &cap));	 /* MQES 0: one-entry queues */
	static uint8_t page[NVME_PAGE];
	struct nvme_id_ns ns;
	memset(page, 0, sizeof(page));
	page[0] = 8;
	page[128 + 2] = 12;
	assert_null(nvme_decode_id_ns(page, &ns));
	assert_int_equal(ns.lba_size, 4096);
	page[26] = 3; /* FLBAS beyond NLBAF */
	assert_non_null(strstr(nvme_decode_id_ns(page, &ns), "FLBAS"));
	page[26] = 0;
	page[128] = 8; /* metadata */
	assert_non_null(nvme_decode_id_ns(page, &ns));
	struct nvme_id_ctrl id;
	memset(page, 0, sizeof(page));
	memset(page + 4, ' ', 20);
	memcpy(page + 4, "S\xff", 2);
	page[77] = 40; /* MDTS beyond any shift */
	nvme_decode_id_ctrl(page, 1u << 20, &id);
	assert_string_equal(id.serial, "S?");
	assert_int_equal(id.max_transfer, 1u << 20);
}

/* The admin queue's interrupt through MSI-X entry 0: programmed (the
 * other entries masked, vector 0 held in use by the interrupt queue), sent
 * once by an Identify, and the capability, the table and the queues as
 * found after msi_off. */
static void msix_programmed_and_restored(void **state)
{
	(void)state;
	healthy(1);
	const uint8_t cap[] = { 0x11, 0x00, 0x03, 0x00, 0x00, 0x20, 0x00, 0x00 }; /* 4 entries, BAR0 0x2000 */
	memcpy(cfg + MODEL_MSIX_CAP, cap, sizeof(cap));
	for (unsigned i = 0; i < 4; i++)
		m.msix[i][3] = i == 2 ? 0 : 1; /* entry 2 left unmasked by the firmware */
	m.msix[0][0] = 0xfee00000, m.msix[0][2] = 0x41;
	uint32_t table[4][4];
	memcpy(table, m.msix, sizeof(table));
	dev.ncaps = 1;
	dev.cap[0] = (struct pci_cap){ .id = 0x11, .offset = MODEL_MSIX_CAP };
	const char *why;
	struct dma_engine *e = open_it(&why);
	assert_non_null(e);
	assert_non_null(e->msi_program);
	const struct msi_message msg = { .addr = 0xfee01000, .data = 0xd3 };
	assert_null(e->msi_program(e, &msg));
	assert_true(m.vec0_used);
	assert_int_equal(m.msix[2][3] & 1, 1); /* every other entry masked */
	uint64_t t = 0;
	unsigned before = m.msix_sent;
	assert_null(e->msi_raise(e, &t));
	assert_int_equal(m.msix_sent, before + 1);
	assert_int_equal(m.msix_addr, 0xfee01000);
	assert_int_equal(m.msix_data, 0xd3);
	e->msi_off(e);
	assert_false(m.irq_cq);
	assert_memory_equal(cfg + MODEL_MSIX_CAP, cap, sizeof(cap));
	assert_memory_equal(m.msix, table, sizeof(table));
	assert_non_null(e->msi_raise(e, &t)); /* not programmed any more */
	e->close(e);
	dev.ncaps = 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(decoders),
		cmocka_unit_test(state_put_back),
		cmocka_unit_test(disabled_stays_disabled),
		cmocka_unit_test(mute_after_identify),
		cmocka_unit_test(budget_bounds_every_wait),
		cmocka_unit_test(removed_during_io),
		cmocka_unit_test(operator_stops_a_wait),
		cmocka_unit_test(stop_does_not_cut_the_give_back),
		cmocka_unit_test(foreign_completions_meet_the_deadline),
		cmocka_unit_test(msix_programmed_and_restored),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
