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

/* ---- the controller model (NVMe 1.4, 3.1 and 7.6) ----------------------- */

struct queue {
	uint64_t base;
	uint16_t size, head, tail;
	bool phase;
	uint16_t cqid; /* SQs: the CQ they complete into */
};

static struct model {
	uint64_t cap;
	uint32_t cc, csts, aqa, intms;
	uint64_t asq, acq;
	struct queue sq[2], cq[2];
	unsigned admin_done, admin_seen;
	/* faults */
	bool rdy_never;	     /* CSTS.RDY never follows CC.EN = 1 */
	bool rdy_stuck;	     /* CSTS.RDY never clears after CC.EN = 0 */
	int mute_after;	     /* admin commands answered before it goes mute (-1: never mute) */
	bool removed;	     /* every read returns all ones */
	unsigned csts_reads; /* polls of CSTS */
	unsigned resets;     /* CC.EN 1 -> 0 */
	uint32_t nn;	     /* namespaces */
	bool rdy_slow;	     /* after CC.EN = 0, RDY clears only once the driver has looked at
				the vendor ID (a wait that ran past its first check) */
	bool rdy_clearing;
	bool babble; /* the I/O queue answers only with completions for other commands */
	/* MSI-X (capability at 0x40 when a test puts it there, table at BAR0
	 * 0x2000): QEMU 7.2's rule, a vector sends only once a queue using it
	 * was created with MSI-X on */
	uint32_t msix[4][4];
	bool vec0_used, irq_cq;
	unsigned msix_sent;
	uint64_t msix_addr;
	uint32_t msix_data;
} m;

static uint8_t cfg[4096]; /* the function's configuration space (bus 1, device 0) */

#define MODEL_MSIX_CAP 0x40
#define MODEL_MSIX_TABLE 0x2000

static bool msix_on(void)
{
	uint16_t ctl;
	memcpy(&ctl, cfg + MODEL_MSIX_CAP + 2, 2);
	return cfg[MODEL_MSIX_CAP] == 0x11 && (ctl & 0x8000) && !(ctl & 0x4000);
}

static void *at(uint64_t addr)
{
	return (void *)(uintptr_t)addr;
}

static void post(unsigned sqid, uint16_t cid, uint16_t status)
{
	struct queue *sq = &m.sq[sqid], *cq = &m.cq[sq->cqid];
	uint32_t *e = at(cq->base + (uint64_t)cq->tail * 16);
	e[0] = 0;
	e[1] = 0;
	e[2] = sq->head | (uint32_t)sqid << 16;
	e[3] = cid | (uint32_t)cq->phase << 16 | (uint32_t)status << 17;
	if (++cq->tail == cq->size) {
		cq->tail = 0;
		cq->phase = !cq->phase;
	}
	if (sq->cqid == 0 && msix_on() && m.vec0_used && !(m.msix[0][3] & 1)) {
		m.msix_sent++;
		m.msix_addr = m.msix[0][0] | (uint64_t)m.msix[0][1] << 32;
		m.msix_data = m.msix[0][2];
	}
}

static void identify(uint8_t *page, uint32_t nsid, uint32_t cns)
{
	memset(page, 0, NVME_PAGE);
	if (cns == 1) {
		memcpy(page + 4, "MODEL0001           ", 20);
		memcpy(page + 24, "iommon NVMe model                       ", 40);
		memcpy(page + 516, &m.nn, 4);
		page[520] = 1; /* Compare */
		page[77] = 5;  /* MDTS: 128 KiB */
	} else if (nsid >= 1 && nsid <= m.nn) {
		uint64_t nsze = 2048;
		memcpy(page, &nsze, 8);
		page[128 + 2] = 9; /* 512-byte blocks */
	}
}

static void run_admin(const uint8_t *c)
{
	uint16_t cid;
	uint32_t nsid, cdw10, cdw11;
	uint64_t prp1;
	memcpy(&cid, c + 2, 2);
	memcpy(&nsid, c + 4, 4);
	memcpy(&prp1, c + 24, 8);
	memcpy(&cdw10, c + 40, 4);
	memcpy(&cdw11, c + 44, 4);
	uint16_t status = 0;
	switch (c[0]) {
	case 0x06:
		identify(at(prp1), nsid, cdw10 & 0xff);
		break;
	case 0x05:			     /* create I/O CQ */
		if ((cdw10 & 0xffff) == 2) { /* the driver's interrupt queue: vector 0 (IV) with IEN */
			m.irq_cq = true;
			m.vec0_used |= msix_on() && (cdw11 & 0x2) && !(cdw11 >> 16);
			break;
		}
		m.cq[1] = (struct queue){ .base = prp1, .size = (uint16_t)((cdw10 >> 16) + 1), .phase = true };
		break;
	case 0x01: /* create I/O SQ */
		m.sq[1] = (struct queue){ .base = prp1, .size = (uint16_t)((cdw10 >> 16) + 1), .cqid = 1 };
		break;
	case 0x04:
		if ((cdw10 & 0xffff) == 2)
			m.irq_cq = m.vec0_used = false;
		break;
	case 0x00:
		break;
	default:
		status = 0x01; /* invalid opcode */
	}
	post(0, cid, status);
}

static void run_io(const uint8_t *c)
{
	uint16_t cid;
	uint64_t prp1;
	uint32_t cdw12;
	memcpy(&cid, c + 2, 2);
	memcpy(&prp1, c + 24, 8);
	memcpy(&cdw12, c + 48, 4);
	if (c[0] == 0x02) /* Read: blocks of 0x5a, within the first page */
		memset(at(prp1), 0x5a, ((cdw12 & 0xffff) + 1) * 512);
	post(1, cid, 0);
}

static void sq_doorbell(unsigned qid, uint16_t tail)
{
	struct queue *sq = &m.sq[qid];
	sq->tail = tail;
	while (sq->head != sq->tail) {
		const uint8_t *c = at(sq->base + (uint64_t)sq->head * 64);
		sq->head = (uint16_t)((sq->head + 1) % sq->size);
		if (qid == 0) {
			m.admin_seen++;
			if (m.mute_after >= 0 && m.admin_done >= (unsigned)m.mute_after)
				continue; /* mute: the command is taken and never answered */
			m.admin_done++;
			run_admin(c);
		} else if (m.babble) {
			post(1, 0x7777, 0);
		} else if (m.mute_after < 0 || m.admin_done < (unsigned)m.mute_after) {
			run_io(c);
		}
	}
}

static uint64_t bar_read(void *ctx, uint64_t off, unsigned width)
{
	(void)ctx;
	if (m.removed)
		return width == 8 ? ~0ull : (1ull << (8 * width)) - 1;
	if (off >= MODEL_MSIX_TABLE && off < MODEL_MSIX_TABLE + sizeof(m.msix))
		return m.msix[(off - MODEL_MSIX_TABLE) / 16][(off % 16) / 4];
	switch (off) {
	case NVME_CAP:
		return m.cap;
	case NVME_CC:
		return m.cc;
	case NVME_CSTS:
		m.csts_reads++;
		return m.csts;
	case NVME_AQA:
		return m.aqa;
	case NVME_ASQ:
		return m.asq;
	case NVME_ACQ:
		return m.acq;
	case NVME_INTMS:
	case NVME_INTMC:
		return m.intms;
	}
	return 0;
}

static void bar_write(void *ctx, uint64_t off, unsigned width, uint64_t v)
{
	(void)ctx, (void)width;
	if (off >= MODEL_MSIX_TABLE && off < MODEL_MSIX_TABLE + sizeof(m.msix)) {
		m.msix[(off - MODEL_MSIX_TABLE) / 16][(off % 16) / 4] = (uint32_t)v;
		return;
	}
	switch (off) {
	case NVME_CC: {
		bool was = m.cc & NVME_CC_EN, en = v & NVME_CC_EN;
		m.cc = (uint32_t)v;
		if (was && !en) { /* controller reset (7.3.2): the mask and the queues go */
			m.resets++;
			m.intms = 0;
			memset(m.sq, 0, sizeof(m.sq));
			memset(m.cq, 0, sizeof(m.cq));
			if (m.rdy_slow)
				m.rdy_clearing = true;
			else if (!m.rdy_stuck)
				m.csts &= ~NVME_CSTS_RDY;
		} else if (!was && en) {
			m.sq[0] = (struct queue){ .base = m.asq, .size = (uint16_t)((m.aqa & 0xfff) + 1) };
			m.cq[0] = (struct queue){ .base = m.acq,
						  .size = (uint16_t)(((m.aqa >> 16) & 0xfff) + 1),
						  .phase = true };
			if (!m.rdy_never)
				m.csts |= NVME_CSTS_RDY;
		}
		return;
	}
	case NVME_AQA:
		m.aqa = (uint32_t)v;
		return;
	case NVME_ASQ:
		m.asq = v;
		return;
	case NVME_ACQ:
		m.acq = v;
		return;
	case NVME_INTMS:
		m.intms |= (uint32_t)v;
		return;
	case NVME_INTMC:
		m.intms &= ~(uint32_t)v;
		return;
	}
	if (off >= NVME_DOORBELLS && !m.removed) {
		unsigned idx = (unsigned)(off - NVME_DOORBELLS) / 4;
		if (idx % 2 == 0 && idx / 2 < 2)
			sq_doorbell(idx / 2, (uint16_t)v);
		else if (idx == 3 && m.babble) /* the I/O CQ's head moved: one more foreign completion */
			post(1, 0x7777, 0);
	}
}

static const struct regwin_model_ops bar_ops = { bar_read, bar_write };

static uint64_t cfg_read(void *ctx, uint64_t off, unsigned width)
{
	(void)ctx;
	if (m.removed || off >> 12 != 1 << 8) /* only bus 1, device 0, function 0 */
		return width == 8 ? ~0ull : (1ull << (8 * width)) - 1;
	if ((off & 0xfff) == PCI_VENDOR_ID && m.rdy_clearing) {
		m.rdy_clearing = false;
		m.csts &= ~NVME_CSTS_RDY;
	}
	uint64_t v = 0;
	memcpy(&v, cfg + (off & 0xfff), width);
	return v;
}

static void cfg_write(void *ctx, uint64_t off, unsigned width, uint64_t v)
{
	(void)ctx;
	if (!m.removed && off >> 12 == 1 << 8)
		memcpy(cfg + (off & 0xfff), &v, width);
}

static const struct regwin_model_ops cfg_ops = { cfg_read, cfg_write };

static struct pci_cfg pcfg;
static struct pci_dev dev;
static struct regwin bar;

/* A controller as the firmware's driver leaves it: enabled on its own
 * admin queue, some interrupts masked, memory and bus mastering on. */
static void healthy(uint8_t to)
{
	static uint8_t fw_asq[4096], fw_acq[4096];
	memset(&m, 0, sizeof(m));
	m.cap = 63 /* MQES */ | (uint64_t)to << 24 | 1ull << 37 /* NVM */;
	m.aqa = 31 << 16 | 31;
	m.asq = (uintptr_t)fw_asq;
	m.acq = (uintptr_t)fw_acq;
	m.cc = 0x460001; /* IOCQES 4, IOSQES 6, EN */
	m.csts = NVME_CSTS_RDY;
	m.intms = 0x5;
	m.mute_after = -1;
	m.nn = 1;
	memset(cfg, 0, sizeof(cfg));
	cfg[PCI_COMMAND] = PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER;
	pci_cfg_init(&pcfg, NULL, false);
	pcfg.n = 1;
	pcfg.ecam[0] = (struct pci_ecam){ .segment = 0, .start_bus = 0, .end_bus = 1 };
	regwin_init_model(&pcfg.ecam[0].win, "ecam", 2u << 20, false, &cfg_ops, NULL);
	dev = (struct pci_dev){ .addr = { 0, 1, 0, 0 }, .vendor = 0x1b36, .device = 0x0010, .class = 0x010802 };
	regwin_init_model(&bar, "nvme", 0x4000, false, &bar_ops, NULL);
}

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
