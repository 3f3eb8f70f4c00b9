/* The edu driver against a model of QEMU's edu device: a DMA that never
 * finishes stops the device once (not once per transfer), a device that
 * reads all ones is named, and Ctrl-C ends a long wait. Time is simulated
 * (the counter frequency set to 1 MHz: a cycle stands for a microsecond);
 * nothing here measures how long anything took. */
#include "unit.h"

#include "core/base/timing.h"
#include "core/monitor/runner.h"
#include "pci/dma.h"
#include "tests/host/platform_host.h"

static struct {
	uint64_t src, dst, count, cmd;
	uint32_t irq;
	bool mute, removed;
	unsigned starts, reads, raises;
	unsigned command_writes; /* to the PCI command register */
} m;

static uint8_t cfg[4096];

static uint64_t bar_read(void *ctx, uint64_t off, unsigned width)
{
	(void)ctx;
	m.reads++;
	if (m.removed)
		return width == 8 ? ~0ull : (1ull << (8 * width)) - 1;
	switch (off) {
	case 0x00:
		return 0x010000ed;
	case 0x24:
		return m.irq;
	case 0x98:
		return m.cmd;
	}
	return 0;
}

static void bar_write(void *ctx, uint64_t off, unsigned width, uint64_t v)
{
	(void)ctx, (void)width;
	switch (off) {
	case 0x60:
		m.irq |= (uint32_t)v;
		m.raises++;
		return;
	case 0x64:
		m.irq &= ~(uint32_t)v;
		return;
	case 0x80:
		m.src = v;
		return;
	case 0x88:
		m.dst = v;
		return;
	case 0x90:
		m.count = v;
		return;
	case 0x98:
		m.cmd = v;
		if (v & 1) {
			m.starts++;
			if (!m.mute) {
				m.cmd &= ~1ull;
				m.irq |= 0x100;
			}
		}
		return;
	}
}

static const struct regwin_model_ops bar_ops = { bar_read, bar_write };

static uint64_t cfg_read(void *ctx, uint64_t off, unsigned width)
{
	(void)ctx;
	if (m.removed || off >> 12 != 1 << 8)
		return width == 8 ? ~0ull : (1ull << (8 * width)) - 1;
	uint64_t v = 0;
	memcpy(&v, cfg + (off & 0xfff), width);
	return v;
}

static void cfg_write(void *ctx, uint64_t off, unsigned width, uint64_t v)
{
	(void)ctx;
	if (!m.removed && off >> 12 == 1 << 8)
		memcpy(cfg + (off & 0xfff), &v, width);
	m.command_writes += (off & 0xfff) == PCI_COMMAND;
}

static const struct regwin_model_ops cfg_ops = { cfg_read, cfg_write };

static struct pci_cfg pcfg;
static struct pci_dev dev;
static struct regwin bar;
static int key_after = -1; /* register reads before Ctrl-C is typed */
static struct platform fake;

static int test_getc(void)
{
	if (key_after >= 0 && m.reads >= (unsigned)key_after) {
		key_after = -1;
		return 0x03;
	}
	return -1;
}

static void close_it(void *e)
{
	((struct dma_engine *)e)->close(e);
}

static uint16_t fw_command; /* the command register as the firmware left it */

static struct dma_engine *fresh(void)
{
	memset(&m, 0, sizeof(m));
	memset(cfg, 0, sizeof(cfg));
	memcpy(cfg + PCI_COMMAND, &fw_command, 2);
	pci_cfg_init(&pcfg, NULL, false);
	pcfg.n = 1;
	pcfg.ecam[0] = (struct pci_ecam){ .segment = 0, .start_bus = 0, .end_bus = 1 };
	regwin_init_model(&pcfg.ecam[0].win, "ecam", 2u << 20, false, &cfg_ops, NULL);
	dev = (struct pci_dev){ .addr = { 0, 1, 0, 0 }, .vendor = 0x1234, .device = 0x11e8 };
	regwin_init_model(&bar, "edu", 0x100000, false, &bar_ops, NULL);
	const char *why = NULL;
	struct dma_engine *e = edu_open_window(&pcfg, &dev, &bar, &why);
	assert_non_null(e);
	return e;
}

static int setup(void **state)
{
	(void)state;
	fake = host_platform;
	fake.getc = test_getc;
	platform = &fake;
	timing.tsc_hz = 1000000;
	return 0;
}

static void healthy(void **state)
{
	(void)state;
	struct dma_engine *e = fresh();
	struct dma_result r;
	assert_int_equal(e->transfer(e, DMA_FROM_DEVICE, 0x1000, 64, &r), DMA_OK);
	assert_int_equal(e->transfer(e, DMA_TO_DEVICE, 0x1000, 64, &r), DMA_OK);
	assert_int_equal(m.starts, 2);
	e->close(e);
}

/* A DMA that never finishes: one timeout, bus mastering off, and the next
 * transfer refused at once instead of waiting out another deadline. */
static void mute_stops_once(void **state)
{
	(void)state;
	struct dma_engine *e = fresh();
	m.mute = true;
	struct dma_result r;
	assert_int_equal(e->transfer(e, DMA_FROM_DEVICE, 0x1000, 64, &r), DMA_TIMEOUT);
	assert_non_null(strstr(r.error, "no completion within 1000 ms"));
	assert_int_equal(cfg[PCI_COMMAND] & PCI_COMMAND_MASTER, 0);
	assert_int_equal(e->transfer(e, DMA_FROM_DEVICE, 0x1000, 64, &r), DMA_DEVICE_ERROR);
	assert_non_null(strstr(r.error, "stopped after a DMA did not finish"));
	assert_int_equal(m.starts, 1);
	e->close(e);
}

/* Found with bus mastering on, given up on while its DMA still runs:
 * closing must not switch bus mastering back on under that DMA (it would
 * land in a buffer the test has freed). Once it has finished, close puts
 * the register back as found. */
static void close_leaves_a_running_dma_stopped(void **state)
{
	(void)state;
	fw_command = PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER;
	struct dma_engine *e = fresh();
	m.mute = true;
	struct dma_result r;
	assert_int_equal(e->transfer(e, DMA_FROM_DEVICE, 0x1000, 64, &r), DMA_TIMEOUT);
	const char *out = capture_stdout(close_it, e);
	assert_non_null(strstr(out, "still running: bus mastering stays off"));
	assert_int_equal(cfg[PCI_COMMAND], PCI_COMMAND_MEMORY);

	e = fresh();
	m.mute = true;
	assert_int_equal(e->transfer(e, DMA_FROM_DEVICE, 0x1000, 64, &r), DMA_TIMEOUT);
	m.cmd &= ~1ull; /* it finished late */
	e->close(e);
	assert_int_equal(cfg[PCI_COMMAND], PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER);
	fw_command = 0;
}

static void removed_named(void **state)
{
	(void)state;
	struct dma_engine *e = fresh();
	m.mute = true;
	m.removed = true;
	struct dma_result r;
	assert_int_equal(e->transfer(e, DMA_FROM_DEVICE, 0x1000, 64, &r), DMA_TIMEOUT);
	assert_non_null(strstr(r.error, "reads all ones"));
	e->close(e);
}

static void operator_stops(void **state)
{
	(void)state;
	struct dma_engine *e = fresh();
	m.mute = true;
	/* typed once the wait has begun (its first read): at 1 MHz a cycle is a
	 * microsecond, and a host that deschedules the test for a millisecond
	 * between ten reads ran past the 1 s deadline (half a millisecond of
	 * real time) before the key came */
	key_after = 1;
	struct dma_result r;
	assert_int_equal(e->transfer(e, DMA_FROM_DEVICE, 0x1000, 64, &r), DMA_TIMEOUT);
	assert_non_null(strstr(r.error, "stopped by the operator"));
	assert_true(runner_stop_requested());
	e->close(e);
}

/* The MSI capability at 0x40 (64-bit, as QEMU's edu has it) programmed
 * for the message, enabled; the raise register written once with the
 * doorbell stamped; everything as the firmware left it after close. */
static void msi_programmed_and_restored(void **state)
{
	(void)state;
	memset(&m, 0, sizeof(m));
	memset(cfg, 0, sizeof(cfg));
	static const uint8_t fw[] = { 0x05, 0x00, 0x80, 0x00, 0x0c, 0xf0, 0xe0, 0xfe, 0, 0, 0, 0, 0x41, 0x00 };
	memcpy(cfg + 0x40, fw, sizeof(fw));
	pci_cfg_init(&pcfg, NULL, false);
	pcfg.n = 1;
	pcfg.ecam[0] = (struct pci_ecam){ .segment = 0, .start_bus = 0, .end_bus = 1 };
	regwin_init_model(&pcfg.ecam[0].win, "ecam", 2u << 20, false, &cfg_ops, NULL);
	dev = (struct pci_dev){ .addr = { 0, 1, 0, 0 }, .vendor = 0x1234, .device = 0x11e8, .ncaps = 1 };
	dev.cap[0] = (struct pci_cap){ .id = 0x05, .offset = 0x40 };
	regwin_init_model(&bar, "edu", 0x100000, false, &bar_ops, NULL);
	const char *why = NULL;
	struct dma_engine *e = edu_open_window(&pcfg, &dev, &bar, &why);
	assert_non_null(e);
	assert_non_null(e->msi_program);
	uint64_t t = 0;
	assert_non_null(e->msi_raise(e, &t)); /* nothing programmed yet */
	const struct msi_message msg = { .addr = 0x1fee01000ull, .data = 0xd3 };
	assert_null(e->msi_program(e, &msg));
	uint32_t lo, hi;
	uint16_t ctl, data;
	memcpy(&ctl, cfg + 0x42, 2), memcpy(&lo, cfg + 0x44, 4), memcpy(&hi, cfg + 0x48, 4),
	    memcpy(&data, cfg + 0x4c, 2);
	assert_int_equal(ctl, 0x0081);
	assert_int_equal(lo, 0xfee01000u);
	assert_int_equal(hi, 1);
	assert_int_equal(data, 0xd3);
	timing.tsc_hz = 1000000;
	assert_null(e->msi_raise(e, &t));
	assert_int_equal(m.raises, 1);
	assert_int_equal(m.irq, 0); /* acknowledged: a DMA's completion does not send it again */
	e->close(e);
	assert_memory_equal(cfg + 0x40, fw, sizeof(fw));
}

static uint16_t command(void)
{
	uint16_t v;
	memcpy(&v, cfg + PCI_COMMAND, 2);
	return v;
}

/* Found 0x0007 (I/O, memory, bus mastering, INTx allowed): open sets INTx
 * disable (completion is polled), the INTx path clears it and sets it
 * again; close puts back all 16 bits as found. Found as the driver runs
 * it (0x0406), close has nothing to put back and writes nothing. */
static void command_as_found(void **state)
{
	(void)state;
	fw_command = PCI_COMMAND_IO | PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER;
	struct dma_engine *e = fresh();
	assert_int_equal(command(), 0x0407);
	assert_null(e->intx_enable(e, true));
	assert_int_equal(command(), 0x0007);
	assert_null(e->intx_enable(e, false));
	struct dma_result r;
	assert_int_equal(e->transfer(e, DMA_FROM_DEVICE, 0x1000, 64, &r), DMA_OK);
	e->close(e);
	assert_int_equal(command(), 0x0007);

	fw_command = 0x0406;
	e = fresh();
	m.command_writes = 0;
	e->close(e);
	assert_int_equal(command(), 0x0406);
	assert_int_equal(m.command_writes, 0);
	fw_command = 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(healthy),
		cmocka_unit_test(mute_stops_once),
		cmocka_unit_test(close_leaves_a_running_dma_stopped),
		cmocka_unit_test(removed_named),
		cmocka_unit_test(operator_stops),
		cmocka_unit_test(msi_programmed_and_restored),
		cmocka_unit_test(command_as_found),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
