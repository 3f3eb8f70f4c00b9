/* A register-level model of an NVMe controller (NVMe 1.4, 3.1 and 7.6)
 * for the driver's unit tests (test_nvme.c, test_nvme_stream.c) and the
 * removal tests (test_unplug.c): an admin and one I/O queue pair,
 * Identify, Read filling blocks with 0x5a, Compare against them, its DMA
 * through an IOMMU model where a test puts one, and the faults the tests
 * inject. Each test binary includes it once: its state is the binary's
 * own. */
#ifndef IOMMON_TEST_NVME_MODEL_H
#define IOMMON_TEST_NVME_MODEL_H

#include "core/base/regwin.h"
#include "pci/nvme.h"
#include "pci/pci.h"

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
	bool rdy_never; /* CSTS.RDY never follows CC.EN = 1 */
	bool rdy_stuck; /* CSTS.RDY never clears after CC.EN = 0 */
	int mute_after; /* admin commands answered before it goes mute (-1: never mute) */
	bool removed;	/* every read returns all ones */
	/* removed at this access to the function (its BAR or its
	 * configuration space, reads and writes counted alike; 1: the
	 * first), which already reads all ones; 0: never. `accesses` counts
	 * them, `on_remove` is told when it goes. */
	unsigned remove_at, accesses;
	/* ... or as the remove_at_io-th I/O command's doorbell is written
	 * (counted in io_rung), which it no longer hears; 0: never */
	unsigned remove_at_io, io_rung;
	void (*on_remove)(void);
	/* the controller's DMA as the bus carries it (NULL: at the address
	 * it emits): false when refused (a master abort) */
	bool (*dma)(uint64_t addr, bool write, uint64_t *phys);
	unsigned csts_reads; /* polls of CSTS */
	unsigned resets;     /* CC.EN 1 -> 0 */
	uint32_t nn;	     /* namespaces */
	bool rdy_slow;	     /* after CC.EN = 0, RDY clears only once the driver has looked at
				the vendor ID (a wait that ran past its first check) */
	bool rdy_clearing;
	bool babble; /* the I/O queue answers only with completions for other commands */
	/* I/O commands held when their doorbell rings, then run last first
	 * when the driver next reads CSTS: completions out of order */
	bool io_hold;
	uint8_t held[64][64];
	unsigned nheld;
	uint64_t prp2[64]; /* of each I/O command run, in the order run */
	unsigned nio;
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

/* Where the controller's access to `addr` lands, or NULL when the bus
 * refuses it. Never across a page: callers go page by page. */
static void *at(uint64_t addr, bool write)
{
	uint64_t phys = addr;
	if (m.dma && !m.dma(addr, write, &phys))
		return NULL;
	return (void *)(uintptr_t)phys;
}

static void remove_now(void)
{
	m.removed = true;
	if (m.on_remove)
		m.on_remove();
}

/* One access to the function: counted, and where a test said so, the
 * one at which it is removed. */
static void touch(void)
{
	m.accesses++;
	if (!m.removed && m.remove_at && m.accesses >= m.remove_at)
		remove_now();
}

static void post(unsigned sqid, uint16_t cid, uint16_t status)
{
	struct queue *sq = &m.sq[sqid], *cq = &m.cq[sq->cqid];
	uint32_t *e = at(cq->base + (uint64_t)cq->tail * 16, true);
	if (!e)
		return; /* the completion's write refused: nothing posted */
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
	case 0x06: {
		uint8_t *page = at(prp1, true);
		if (page)
			identify(page, nsid, cdw10 & 0xff);
		else
			status = 0x04; /* data transfer error */
		break;
	}
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
	uint64_t prp2;
	memcpy(&prp2, c + 32, 8);
	m.prp2[m.nio++ % 64] = prp2;
	/* Read: blocks of 0x5a, from PRP1 on, page by page (the tests' IOVAs
	 * are contiguous); Compare: the same blocks against what it reads */
	uint16_t status = 0;
	uint64_t len = ((cdw12 & 0xffff) + 1) * 512ull;
	for (uint64_t done = 0; (c[0] == 0x02 || c[0] == 0x05) && done < len && !status;) {
		uint64_t a = prp1 + done, n = 4096 - (a & 4095);
		n = n < len - done ? n : len - done;
		uint8_t *p = at(a, c[0] == 0x02);
		if (!p)
			status = 0x04; /* data transfer error */
		else if (c[0] == 0x02)
			memset(p, 0x5a, n);
		else
			for (uint64_t i = 0; i < n && !status; i++)
				status = p[i] != 0x5a ? 0x285 : 0; /* compare failure */
		done += n;
	}
	post(1, cid, status);
}

static void sq_doorbell(unsigned qid, uint16_t tail)
{
	struct queue *sq = &m.sq[qid];
	sq->tail = tail;
	while (sq->head != sq->tail) {
		const uint8_t *c = at(sq->base + (uint64_t)sq->head * 64, false);
		sq->head = (uint16_t)((sq->head + 1) % sq->size);
		if (!c)
			continue; /* the fetch refused: the command is lost */
		if (qid == 0) {
			m.admin_seen++;
			if (m.mute_after >= 0 && m.admin_done >= (unsigned)m.mute_after)
				continue; /* mute: the command is taken and never answered */
			m.admin_done++;
			run_admin(c);
		} else if (m.babble) {
			post(1, 0x7777, 0);
		} else if (m.io_hold && m.nheld < 64) {
			memcpy(m.held[m.nheld++], c, 64);
		} else if (m.mute_after < 0 || m.admin_done < (unsigned)m.mute_after) {
			run_io(c);
		}
	}
}

static uint64_t bar_read(void *ctx, uint64_t off, unsigned width)
{
	(void)ctx;
	touch();
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
		while (m.nheld)
			run_io(m.held[--m.nheld]);
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
	touch();
	if (m.removed)
		return;
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
		if (idx == 2 && m.remove_at_io && ++m.io_rung >= m.remove_at_io) {
			remove_now(); /* as it is told to start: it never hears it */
			return;
		}
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
	if (off >> 12 == 1 << 8)
		touch();
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
	if (off >> 12 == 1 << 8)
		touch();
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

#endif
