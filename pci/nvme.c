/* NVMe as a DMA engine: a minimal, careful driver (NVM Express Base
 * Specification 1.4). One admin queue pair, one I/O queue pair, PRP lists
 * for transfers over two pages, completion by polling the phase bit.
 * Device -> RAM is Read; RAM -> device is Compare (the controller reads
 * host memory and changes nothing), or Write only on a controller named
 * in `nvme.scratch`. On close the controller is left as the firmware had
 * it: its registers (CC, AQA/ASQ/ACQ, INTMS) and command register as
 * found, enabled again if it was enabled, and then re-initialised by the
 * firmware's own driver when one had it.
 *
 * Every wait on the controller (a ready change, an admin command) has
 * CAP.TO as its deadline, and all of them together have one budget per
 * device (NVME_BUDGET_US): a controller that stops answering is given up
 * within it, not after 16 waits of 127.5 s. Waits that run long ask
 * whether the operator pressed Ctrl-C or Esc, and notice a controller
 * that reads all ones (removed). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/runner.h"
#include "../core/settings.h"
#include "../core/timing.h"
#include "dma.h"
#include "nvme.h"

#define CC_EN NVME_CC_EN
#define CC_IOSQES_64 (6u << 16)
#define CC_IOCQES_16 (4u << 20)
#define CSTS_RDY NVME_CSTS_RDY
#define CSTS_CFS NVME_CSTS_CFS
#define PCI_CAP_MSIX 0x11
#define MSIX_ENABLE 0x8000 /* Message Control */

/* Opcodes: admin (5.) and NVM command set (6.) */
#define ADMIN_DELETE_SQ 0x00
#define ADMIN_CREATE_SQ 0x01
#define ADMIN_DELETE_CQ 0x04
#define ADMIN_CREATE_CQ 0x05
#define ADMIN_IDENTIFY 0x06
#define NVM_FLUSH 0x00
#define NVM_WRITE 0x01
#define NVM_READ 0x02
#define NVM_COMPARE 0x05

#define PAGE NVME_PAGE
#define ADMIN_DEPTH 16
#define IO_DEPTH 64
#define IRQ_CQ_QID 2 /* the I/O queue is 1 */
#define IRQ_CQ_DEPTH 2
#define MAX_TRANSFER (1u << 20) /* 256 pages: one PRP list page */
#define CMD_DEADLINE_US 2000000 /* a read of 1 MiB from any real disk */
/* All of one device's controller waits together, from open to close: a
 * healthy controller needs milliseconds; CAP.TO may claim 127.5 s each. */
#define NVME_BUDGET_US 60000000ull
/* A wait this long is not a healthy one: from then on, every
 * WAIT_CHECK_US, the console (Ctrl-C, Esc) and CSTS (all ones) are asked. */
#define WAIT_SLOW_US 100000
#define WAIT_CHECK_US 10000

struct nvme_queue {
	uint8_t *sq, *cq; /* one page each */
	uint16_t depth, tail, head, qid;
	bool phase;
};

struct nvme {
	struct dma_engine e;
	struct regwin bar;
	struct pci_cfg *cfg;
	uint32_t dstrd;	     /* doorbell stride in bytes */
	uint64_t timeout_us; /* CAP.TO */
	uint64_t waited_us;  /* spent in budgeted waits, against NVME_BUDGET_US */
	char werr[160];	     /* why the last wait ended without an answer */
	uint16_t cid;
	struct nvme_queue admin, io;
	uint8_t *prp_list; /* one page */
	uint8_t *identify; /* one page */
	uint32_t nsid, lba_size;
	uint64_t nsze;
	bool compare, scratch;
	char serial[21], model[41]; /* Identify controller, trimmed */
	char how[256];
	/* as found */
	uint16_t saved_command;
	uint32_t saved_cc, saved_aqa, saved_intms;
	uint64_t saved_asq, saved_acq;
	bool was_enabled, claimed;
	bool msix;		    /* MSI-X on: INTMS/INTMC must not be touched (1.4, 3.1.3) */
	uint16_t msix_off;	    /* the MSI-X capability (0: none) */
	struct msix_cap msix_saved; /* while the engine's own interrupt is programmed */
	uint8_t *irq_cq;	    /* the completion queue that holds vector 0 in use (below) */
	bool saved;		    /* the registers above hold what was found */
	bool dead;		    /* stopped after a timeout */
	/* closing: the stop that ended the test (it stays requested for the
	 * rest of the run) no longer ends a wait, or the controller would be
	 * left disabled and not given back; a Ctrl-C/Esc typed during the
	 * close still does */
	bool closing;
};

static const char *status_text(unsigned sct, unsigned sc)
{
	if (sct == 0) {
		switch (sc) {
		case 0x00:
			return "success";
		case 0x01:
			return "invalid command opcode";
		case 0x02:
			return "invalid field in command";
		case 0x04:
			return "data transfer error";
		case 0x06:
			return "internal error";
		case 0x0b:
			return "invalid namespace or format";
		case 0x13:
			return "PRP offset invalid";
		case 0x80:
			return "LBA out of range";
		case 0x81:
			return "capacity exceeded";
		case 0x82:
			return "namespace not ready";
		}
	} else if (sct == 1) {
		switch (sc) {
		case 0x01:
			return "invalid completion queue";
		case 0x02:
			return "invalid queue identifier";
		case 0x03:
			return "invalid queue size";
		}
	} else if (sct == 2) {
		switch (sc) {
		case 0x81:
			return "unrecovered read error";
		case 0x85:
			return "compare failure";
		case 0x86:
			return "access denied";
		}
	}
	return "(see the NVMe specification's status tables)";
}

static void *page(void)
{
	void *p = platform->alloc_pages(1, 0);
	if (p)
		memset(p, 0, PAGE);
	return p;
}

static void doorbell(struct nvme *n, uint16_t qid, bool cq, uint16_t value)
{
	regwin_write32(&n->bar, NVME_DOORBELLS + (2u * qid + (cq ? 1 : 0)) * n->dstrd, value);
}

/* One wait on the controller. Budgeted waits (ready changes, admin
 * commands) are cut to what is left of the device's budget. */
struct nvme_wait {
	struct nvme *n;
	const char *what;
	struct deadline end, check;
	uint64_t t0, us;
	bool budgeted, cut; /* cut: `end` is the budget's, not the wait's own */
	bool live;	    /* the controller is meant to be ready meanwhile (a command runs) */
};

static uint64_t cycles_to_us(uint64_t cycles)
{
	uint64_t hz = timing.tsc_hz ? timing.tsc_hz : 10000000000ull;
	return cycles / (hz / 1000000 ? hz / 1000000 : 1);
}

static void wait_begin(struct nvme_wait *w, struct nvme *n, const char *what, uint64_t us, bool budgeted)
{
	*w = (struct nvme_wait){ .n = n, .what = what, .us = us, .budgeted = budgeted };
	uint64_t left = n->waited_us < NVME_BUDGET_US ? NVME_BUDGET_US - n->waited_us : 0;
	if (budgeted && us > left) {
		w->us = left;
		w->cut = true;
	}
	w->t0 = rdtsc();
	w->end = deadline_after_us(w->us);
	w->check = deadline_after_us(WAIT_SLOW_US);
}

static void wait_end(struct nvme_wait *w)
{
	if (w->budgeted)
		w->n->waited_us += cycles_to_us(rdtsc() - w->t0);
}

/* Called on each turn of a wait that has not seen its answer: true when
 * it must end, with the named error in n->werr. */
static bool wait_over(struct nvme_wait *w)
{
	struct nvme *n = w->n;
	if (deadline_passed(&w->check)) {
		w->check = deadline_after_us(WAIT_CHECK_US);
		/* a surprise removal: configuration reads return all ones, and
		 * the registers all ones (or nothing at all) */
		uint32_t csts = regwin_read32(&n->bar, NVME_CSTS);
		const char *gone = NULL;
		if (pci_read16(n->cfg, n->e.addr, PCI_VENDOR_ID) == 0xffff)
			gone = "removed (configuration space reads all ones)";
		else if (csts == 0xffffffffu)
			gone = "registers read all ones (removed, or not decoding)";
		else if (w->live && (csts & CSTS_CFS))
			gone = "fatal status (CSTS.CFS)";
		else if (w->live && !(csts & CSTS_RDY))
			gone = "no longer ready (CSTS.RDY clear: reset or removed)";
		else if (n->closing ? runner_stop_typed_now() : runner_stop_requested())
			gone = "stopped by the operator";
		if (gone) {
			snprintf(n->werr, sizeof(n->werr), "nvme: %s, waiting for %s", gone, w->what);
			return true;
		}
	}
	if (!deadline_passed(&w->end))
		return false;
	if (w->cut)
		snprintf(n->werr, sizeof(n->werr),
			 "nvme: not answering, waiting for %s: the device's budget of %llu s for waits is spent "
			 "(CAP.TO %llu ms each); given up",
			 w->what, NVME_BUDGET_US / 1000000, (unsigned long long)n->timeout_us / 1000);
	else
		snprintf(n->werr, sizeof(n->werr), "nvme: no %s for %s within %llu ms",
			 w->live ? "completion" : "answer", w->what, (unsigned long long)w->us / 1000);
	return true;
}

/* Waits for CSTS.RDY to equal `ready`, for at most CAP.TO (and what is
 * left of the budget). */
static bool wait_ready(struct nvme *n, bool ready, const char **why)
{
	struct nvme_wait w;
	wait_begin(&w, n, ready ? "CSTS.RDY to set after enabling" : "CSTS.RDY to clear after disabling", n->timeout_us,
		   true);
	bool ok = false;
	for (;;) {
		uint32_t csts = regwin_read32(&n->bar, NVME_CSTS);
		if (csts == 0xffffffffu) {
			*why = "nvme: the controller reads all ones (gone or not decoding)";
			break;
		}
		if (ready && (csts & CSTS_CFS)) {
			*why = "nvme: controller fatal status while enabling";
			break;
		}
		if (!!(csts & CSTS_RDY) == ready) {
			ok = true;
			break;
		}
		if (wait_over(&w)) {
			*why = n->werr;
			break;
		}
		cpu_relax();
	}
	wait_end(&w);
	return ok;
}

/* Puts one command in the queue and rings (unless withheld); the
 * completion is then polled by `complete`. *t_ring: the cycle counter just
 * before the doorbell (emulated controllers may finish inside the write). */
static uint16_t submit(struct nvme *n, struct nvme_queue *q, const uint8_t cmd[64], bool ring, uint64_t *t_ring)
{
	n->cid = n->cid >= 0xfffe ? 1 : n->cid + 1; /* 0xffff is reserved */
	uint16_t cid = n->cid;
	uint8_t *slot = q->sq + (size_t)q->tail * 64;
	memcpy(slot, cmd, 64);
	memcpy(slot + 2, &cid, 2);
	if (t_ring)
		*t_ring = cycles_begin();
	if (ring) {
		q->tail = (uint16_t)((q->tail + 1) % q->depth);
		doorbell(n, q->qid, false, q->tail);
	}
	return cid;
}

/* Polls the next completion entry's phase bit; DMA_OK, DMA_DEVICE_ERROR
 * (decoded into err) or DMA_TIMEOUT. */
static enum dma_status complete(struct nvme *n, struct nvme_queue *q, uint16_t cid, uint64_t deadline_us, bool budgeted,
				uint32_t *dw0, char *err, size_t errn, uint16_t *status)
{
	struct nvme_wait w;
	char what[48];
	snprintf(what, sizeof(what), "command %u", cid);
	wait_begin(&w, n, what, deadline_us, budgeted);
	w.live = true;
	uint32_t dw3;
	for (;;) {
		volatile uint8_t *e = q->cq + (size_t)q->head * 16;
		dw3 = *(volatile uint32_t *)(e + 12);
		if (((dw3 >> 16) & 1) != q->phase) {
			if (n->e.on_wait)
				n->e.on_wait(n->e.on_wait_ctx);
			if (wait_over(&w)) {
				wait_end(&w);
				snprintf(err, errn, "%s", n->werr);
				return DMA_TIMEOUT;
			}
			cpu_relax();
			continue;
		}
		if (dw0)
			*dw0 = *(volatile uint32_t *)e;
		q->head = (uint16_t)((q->head + 1) % q->depth);
		if (q->head == 0)
			q->phase = !q->phase;
		doorbell(n, q->qid, true, q->head);
		if ((dw3 & 0xffff) == cid)
			break;
		/* a late completion of a command given up on: not ours, skip it;
		 * a controller that posts nothing but those still meets the
		 * deadline */
		if (wait_over(&w)) {
			wait_end(&w);
			snprintf(err, errn, "%.110s (completions for other commands only)", n->werr);
			return DMA_TIMEOUT;
		}
	}
	wait_end(&w);
	unsigned sc = (dw3 >> 17) & 0xff, sct = (dw3 >> 25) & 0x7;
	if (status)
		*status = (uint16_t)(sct << 8 | sc);
	if (sc || sct) {
		snprintf(err, errn, "nvme: status type %u code 0x%02x: %s", sct, sc, status_text(sct, sc));
		return DMA_DEVICE_ERROR;
	}
	return DMA_OK;
}

static enum dma_status admin(struct nvme *n, uint8_t opcode, uint32_t nsid, uint64_t prp1, uint32_t cdw10,
			     uint32_t cdw11, const char **why)
{
	static char err[160];
	uint8_t cmd[64] = { opcode };
	memcpy(cmd + 4, &nsid, 4);
	memcpy(cmd + 24, &prp1, 8);
	memcpy(cmd + 40, &cdw10, 4);
	memcpy(cmd + 44, &cdw11, 4);
	uint16_t cid = submit(n, &n->admin, cmd, true, NULL);
	enum dma_status s = complete(n, &n->admin, cid, n->timeout_us, true, NULL, err, sizeof(err), NULL);
	if (s != DMA_OK)
		*why = err;
	return s;
}

/* PRP1 = the IOVA; PRP2 = the next page, or a list of the pages after the
 * first (1.4, 4.3). */
static uint64_t prp2_for(struct nvme *n, uint64_t iova, uint64_t len)
{
	uint64_t first = PAGE - (iova & (PAGE - 1));
	if (len <= first)
		return 0;
	if (len - first <= PAGE)
		return (iova & ~(uint64_t)(PAGE - 1)) + PAGE;
	uint64_t *list = (uint64_t *)n->prp_list;
	uint64_t addr = (iova & ~(uint64_t)(PAGE - 1)) + PAGE;
	size_t k = 0;
	for (uint64_t left = len - first; left > 0; left -= left < PAGE ? left : PAGE)
		list[k++] = addr, addr += PAGE;
	return (uint64_t)(uintptr_t)n->prp_list;
}

static enum dma_status nvme_transfer(struct dma_engine *e, enum dma_dir dir, uint64_t iova, uint64_t len,
				     struct dma_result *r)
{
	struct nvme *n = (struct nvme *)e;
	*r = (struct dma_result){ 0 };
	uint64_t t0 = cycles_begin();
	if (n->dead) {
		r->status = DMA_DEVICE_ERROR;
		snprintf(r->error, sizeof(r->error),
			 "nvme: stopped after a command did not complete ('set device' reopens it)");
		return r->status;
	}
	if (dma_check_request(e, dir, iova, len, r) != DMA_OK)
		return r->status;
	uint64_t nlb = len / n->lba_size;
	if (nlb > n->nsze) {
		r->status = DMA_BAD_REQUEST;
		snprintf(r->error, sizeof(r->error), "nvme: %llu blocks, the namespace has %llu",
			 (unsigned long long)nlb, (unsigned long long)n->nsze);
		return r->status;
	}
	uint8_t op = dir == DMA_FROM_DEVICE ? NVM_READ : n->scratch ? NVM_WRITE : NVM_COMPARE;
	uint8_t cmd[64] = { op };
	uint64_t prp2 = prp2_for(n, iova, len), slba = 0;
	uint32_t cdw12 = (uint32_t)(nlb - 1);
	memcpy(cmd + 4, &n->nsid, 4);
	memcpy(cmd + 24, &iova, 8);
	memcpy(cmd + 32, &prp2, 8);
	memcpy(cmd + 40, &slba, 8);
	memcpy(cmd + 48, &cdw12, 4);
	uint16_t cid = submit(n, &n->io, cmd, !e->withhold_doorbell, &r->t_submit);
	uint64_t setup = r->t_submit - t0;
	r->status = complete(n, &n->io, cid, e->withhold_doorbell ? 1000000 : CMD_DEADLINE_US, false, NULL, r->error,
			     sizeof(r->error), &r->device_status);
	r->t_done = cycles_end();
	r->driver_cycles = setup;
	if (r->status == DMA_TIMEOUT && !e->withhold_doorbell) {
		/* The command may still run and write into a buffer about to be
		 * freed: no more bus mastering, the controller stopped. */
		pci_write16(n->cfg, e->addr, PCI_COMMAND,
			    pci_read16(n->cfg, e->addr, PCI_COMMAND) & ~PCI_COMMAND_MASTER);
		regwin_write32(&n->bar, NVME_CC, regwin_read32(&n->bar, NVME_CC) & ~CC_EN);
		n->dead = true;
	}
	return r->status;
}

static void free_queues(struct nvme *n)
{
	void *pages[] = { n->admin.sq, n->admin.cq, n->io.sq, n->io.cq, n->prp_list, n->identify };
	for (size_t i = 0; i < sizeof(pages) / sizeof(pages[0]); i++)
		if (pages[i])
			platform->free_pages(pages[i], 1);
}

/* The controller as found: queues gone, disabled, its registers back; the
 * firmware's driver re-initialises it when it gets it back. */
static void give_back(struct nvme *n)
{
	const char *why;
	bool stopped = true;
	n->closing = true;
	if (n->saved && pci_read16(n->cfg, n->e.addr, PCI_VENDOR_ID) == 0xffff) {
		/* removed: nothing answers to be put back; a function that only
		 * stopped answering configuration reads might still DMA */
		printf("warning: nvme: the function no longer answers (removed?); its registers are not put back and "
		       "its queue pages are not freed\n");
		stopped = false;
	} else if (n->saved) {
		regwin_write32(&n->bar, NVME_CC, regwin_read32(&n->bar, NVME_CC) & ~CC_EN);
		stopped = wait_ready(n, false, &why);
		if (!stopped)
			printf("warning: %s; bus mastering stays off and its queue pages are not freed\n", why);
		regwin_write32(&n->bar, NVME_AQA, n->saved_aqa);
		regwin_write64(&n->bar, NVME_ASQ, n->saved_asq);
		regwin_write64(&n->bar, NVME_ACQ, n->saved_acq);
		regwin_write32(&n->bar, NVME_CC, n->saved_cc & ~CC_EN);
		/* Enabled as found, on the admin queue it had: the queues' own
		 * state (heads, tails, I/O queues) went with the reset and is
		 * not ours to rebuild; a firmware driver that gets the
		 * controller back re-initialises it, and until a doorbell is
		 * written the controller fetches nothing. */
		if (stopped && n->was_enabled) {
			regwin_write32(&n->bar, NVME_CC, n->saved_cc);
			if (!wait_ready(n, true, &why))
				printf("warning: %s; putting the controller back enabled as found\n", why);
		}
		/* The reset cleared the mask; INTMS sets what was set. */
		if (stopped && !n->msix) {
			regwin_write32(&n->bar, NVME_INTMC, ~n->saved_intms);
			regwin_write32(&n->bar, NVME_INTMS, n->saved_intms);
		}
	}
	pci_write16(n->cfg, n->e.addr, PCI_COMMAND,
		    stopped ? n->saved_command : (uint16_t)(n->saved_command & ~PCI_COMMAND_MASTER));
	if (n->claimed && platform->device_release)
		platform->device_release(n->e.addr.seg, n->e.addr.bus, n->e.addr.dev, n->e.addr.fn);
	if (stopped)
		free_queues(n);
	free(n);
}

static void nvme_msi_off(struct dma_engine *e);

/* The admin completion queue's interrupt (vector 0, always enabled, 1.4
 * 5.3) through MSI-X entry 0 of a table in BAR0. Completions are still
 * polled: the interrupt only tells the interrupt cases it came. */
static const char *nvme_msi_program(struct dma_engine *e, const struct msi_message *m)
{
	struct nvme *n = (struct nvme *)e;
	if (!n->msix_off)
		return "nvme: the controller has no MSI-X capability";
	unsigned bir;
	uint64_t table_off;
	msix_table_where(n->cfg, e->addr, n->msix_off, &bir, &table_off);
	if (bir != 0)
		return "nvme: its MSI-X table is not in BAR0, the only BAR the driver maps";
	const char *why = msix_program(n->cfg, e->addr, n->msix_off, &n->bar, table_off, &n->msix_saved, m);
	if (why || n->irq_cq)
		return why;
	/* QEMU 7.2 sends a queue's vector only if MSI-X was on when some
	 * queue with that vector was created (the admin queue was created
	 * before): an empty queue with interrupts on vector 0 (IEN, IV=0),
	 * never given a submission queue, so nothing is ever posted to it. */
	if (!(n->irq_cq = page())) {
		nvme_msi_off(e);
		return "nvme: out of memory for the interrupt's completion queue";
	}
	uint32_t qsize = (uint32_t)(IRQ_CQ_DEPTH - 1) << 16;
	if (admin(n, ADMIN_CREATE_CQ, 0, (uint64_t)(uintptr_t)n->irq_cq, qsize | IRQ_CQ_QID, 0x3 /* IEN, contiguous */,
		  &why) != DMA_OK) {
		platform->free_pages(n->irq_cq, 1);
		n->irq_cq = NULL;
		nvme_msi_off(e);
		return why;
	}
	return NULL;
}

/* An Identify controller: its completion on the admin queue sends the
 * interrupt. */
static const char *nvme_msi_raise(struct dma_engine *e, uint64_t *t_doorbell)
{
	struct nvme *n = (struct nvme *)e;
	static char err[160];
	if (!n->msix_saved.off)
		return "nvme: its MSI-X is not programmed";
	if (n->dead)
		return "nvme: stopped after a command did not complete";
	uint8_t cmd[64] = { ADMIN_IDENTIFY };
	uint64_t prp1 = (uint64_t)(uintptr_t)n->identify;
	uint32_t cns = 1;
	memcpy(cmd + 24, &prp1, 8);
	memcpy(cmd + 40, &cns, 4);
	uint16_t cid = submit(n, &n->admin, cmd, true, t_doorbell);
	if (complete(n, &n->admin, cid, n->timeout_us, true, NULL, err, sizeof(err), NULL) != DMA_OK)
		return err;
	return NULL;
}

static void nvme_msi_off(struct dma_engine *e)
{
	struct nvme *n = (struct nvme *)e;
	const char *why;
	if (n->irq_cq) { /* deleted while MSI-X is on, so the vector is let go of */
		if (!n->dead && admin(n, ADMIN_DELETE_CQ, 0, 0, IRQ_CQ_QID, 0, &why) != DMA_OK)
			printf("warning: deleting the interrupt's completion queue: %s (its page is kept)\n", why);
		else /* a queue still live keeps its page: nothing is posted to it, but it is the device's */
			platform->free_pages(n->irq_cq, 1);
		n->irq_cq = NULL;
	}
	msix_restore(n->cfg, e->addr, &n->msix_saved);
}

static void nvme_close(struct dma_engine *e)
{
	struct nvme *n = (struct nvme *)e;
	const char *why;
	nvme_msi_off(e);
	n->closing = true;
	if (n->dead) { /* stopped after a timeout: nothing more to ask of it */
		give_back(n);
		return;
	}
	if (n->scratch) {
		/* what was written reaches the medium before the controller stops */
		uint8_t cmd[64] = { NVM_FLUSH };
		char err[160];
		memcpy(cmd + 4, &n->nsid, 4);
		uint16_t cid = submit(n, &n->io, cmd, true, NULL);
		if (complete(n, &n->io, cid, CMD_DEADLINE_US, true, NULL, err, sizeof(err), NULL) != DMA_OK)
			printf("warning: flush before giving the controller back: %s\n", err);
	}
	if (admin(n, ADMIN_DELETE_SQ, 0, 0, n->io.qid, 0, &why) != DMA_OK ||
	    admin(n, ADMIN_DELETE_CQ, 0, 0, n->io.qid, 0, &why) != DMA_OK)
		printf("warning: %s (the controller is disabled all the same)\n", why);
	give_back(n);
}

static bool start(struct nvme *n, const char **why)
{
	struct nvme_cap cap;
	*why = nvme_decode_cap(regwin_read64(&n->bar, NVME_CAP), &cap);
	if (*why)
		return false;
	n->timeout_us = cap.timeout_us;
	n->dstrd = cap.dstrd;
	unsigned mqes = cap.mqes;
	/* as found, before the first write */
	n->saved_cc = regwin_read32(&n->bar, NVME_CC);
	n->saved_aqa = regwin_read32(&n->bar, NVME_AQA);
	n->saved_asq = regwin_read64(&n->bar, NVME_ASQ);
	n->saved_acq = regwin_read64(&n->bar, NVME_ACQ);
	if (!n->msix)
		n->saved_intms = regwin_read32(&n->bar, NVME_INTMS);
	n->was_enabled = n->saved_cc & CC_EN;
	n->saved = true;

	regwin_write32(&n->bar, NVME_CC, n->saved_cc & ~CC_EN);
	if (!wait_ready(n, false, why))
		return false;
	n->admin = (struct nvme_queue){ .sq = page(), .cq = page(), .depth = ADMIN_DEPTH, .phase = true };
	n->io = (struct nvme_queue){ .sq = page(),
				     .cq = page(),
				     .qid = 1,
				     .phase = true,
				     .depth = (uint16_t)(mqes < IO_DEPTH ? mqes : IO_DEPTH) };
	n->prp_list = page();
	n->identify = page();
	if (!n->admin.sq || !n->admin.cq || !n->io.sq || !n->io.cq || !n->prp_list || !n->identify) {
		*why = "nvme: no memory for the queues";
		return false;
	}
	const void *own[] = { n->admin.sq, n->admin.cq, n->io.sq, n->io.cq, n->prp_list, n->identify };
	for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++)
		n->e.own[n->e.nown++] = (struct dma_range){ (uint64_t)(uintptr_t)own[i], PAGE };
	regwin_write32(&n->bar, NVME_AQA, (ADMIN_DEPTH - 1) << 16 | (ADMIN_DEPTH - 1));
	regwin_write64(&n->bar, NVME_ASQ, (uint64_t)(uintptr_t)n->admin.sq);
	regwin_write64(&n->bar, NVME_ACQ, (uint64_t)(uintptr_t)n->admin.cq);
	regwin_write32(&n->bar, NVME_CC, CC_EN | CC_IOSQES_64 | CC_IOCQES_16);
	if (!wait_ready(n, true, why))
		return false;

	uint64_t idp = (uint64_t)(uintptr_t)n->identify;
	if (admin(n, ADMIN_IDENTIFY, 0, idp, 1, 0, why) != DMA_OK)
		return false;
	struct nvme_id_ctrl id;
	nvme_decode_id_ctrl(n->identify, MAX_TRANSFER, &id);
	memcpy(n->serial, id.serial, sizeof(n->serial));
	memcpy(n->model, id.model, sizeof(n->model));
	n->compare = id.compare;
	/* the first namespace with blocks */
	const char *ns_why = "nvme: the controller has no namespace";
	for (uint32_t ns = 1; ns <= id.nn && ns <= 16 && !n->nsid; ns++) {
		memset(n->identify, 0, PAGE);
		enum dma_status st = admin(n, ADMIN_IDENTIFY, ns, idp, 0, 0, why);
		if (st == DMA_TIMEOUT) /* not answering: no second wait for the next namespace */
			return false;
		struct nvme_id_ns idns;
		if (st != DMA_OK)
			ns_why = *why;
		else
			ns_why = nvme_decode_id_ns(n->identify, &idns);
		if (ns_why)
			continue;
		n->nsid = ns;
		n->nsze = idns.nsze;
		n->lba_size = idns.lba_size;
	}
	if (!n->nsid) {
		*why = ns_why;
		return false;
	}
	uint64_t cq = (uint64_t)(uintptr_t)n->io.cq, sq = (uint64_t)(uintptr_t)n->io.sq;
	uint32_t qsize = (uint32_t)(n->io.depth - 1) << 16;
	if (admin(n, ADMIN_CREATE_CQ, 0, cq, qsize | 1, 0x1 /* contiguous, no interrupts */, why) != DMA_OK ||
	    admin(n, ADMIN_CREATE_SQ, 0, sq, qsize | 1, 1u << 16 | 0x1 /* CQ 1, contiguous */, why) != DMA_OK)
		return false;

	uint64_t max = id.max_transfer;
	/* Writes only where the user named this controller by address AND
	 * serial number: a config carried to another server, where another
	 * disk sits at that address, writes nothing. */
	const char *scratch = setting_get("nvme.scratch");
	const char *comma = scratch ? strchr(scratch, ',') : NULL;
	char bdf[24] = "";
	struct pci_addr s;
	if (comma && (size_t)(comma - scratch) < sizeof(bdf))
		memcpy(bdf, scratch, (size_t)(comma - scratch));
	n->scratch = comma && pci_parse_addr(bdf, &s) && s.seg == n->e.addr.seg && s.bus == n->e.addr.bus &&
		     s.dev == n->e.addr.dev && s.fn == n->e.addr.fn && strcmp(comma + 1, n->serial) == 0;
	n->e.caps = (struct dma_caps){ .max_len = max,
				       .addr_bits = 64,
				       .align = 4, /* PRP1 offsets are dword aligned */
				       .len_unit = n->lba_size,
				       .reads_ram = n->compare || n->scratch,
				       .writes_ram = true,
				       .roundtrip = n->scratch,
				       .how = n->how };
	snprintf(n->how, sizeof(n->how), "%s, serial %s, model %s, namespace %u (%u-byte blocks)",
		 n->scratch   ? "NVMe Write/Read of LBA 0 (named scratch: its data is overwritten)"
		 : n->compare ? "NVMe Read and Compare of LBA 0 (media untouched)"
			      : "NVMe Read of LBA 0 (no Compare: reads only)",
		 n->serial, n->model, n->nsid, n->lba_size);
	return true;
}

struct dma_engine *nvme_open(struct pci_cfg *c, const struct pci_dev *dev, const char **why)
{
	const struct pci_bar *b = dev->nbars ? &dev->bar[0] : NULL;
	if (!b || b->index != 0 || b->io || b->size < 0x2000) {
		*why = "nvme: BAR0 is not a register window";
		return NULL;
	}
	/* BAR0 checked before the firmware's driver lets go of the device */
	struct regwin bar;
	if ((*why = pci_bar_open(&bar, "nvme", dev, b)) != NULL)
		return NULL;
	return nvme_open_window(c, dev, &bar, why);
}

struct dma_engine *nvme_open_window(struct pci_cfg *c, const struct pci_dev *dev, const struct regwin *bar,
				    const char **why)
{
	if (platform->device_claim) {
		const char *no = platform->device_claim(dev->addr.seg, dev->addr.bus, dev->addr.dev, dev->addr.fn);
		if (no) {
			*why = no;
			return NULL;
		}
	}
	struct nvme *n = calloc(1, sizeof(*n));
	if (!n) {
		if (platform->device_release)
			platform->device_release(dev->addr.seg, dev->addr.bus, dev->addr.dev, dev->addr.fn);
		*why = "out of memory";
		return NULL;
	}
	n->claimed = platform->device_claim != NULL;
	n->cfg = c;
	n->e = (struct dma_engine){ .kind = "nvme", .addr = dev->addr, .transfer = nvme_transfer, .close = nvme_close };
	n->bar = *bar;
	const struct pci_cap *msix = pci_find_cap(dev, PCI_CAP_MSIX, false);
	n->msix = msix && (pci_read16(c, dev->addr, (uint16_t)(msix->offset + 2)) & MSIX_ENABLE);
	n->msix_off = msix ? msix->offset : 0;
	if (n->msix_off) {
		n->e.msi_program = nvme_msi_program;
		n->e.msi_raise = nvme_msi_raise;
		n->e.msi_off = nvme_msi_off;
	}
	n->saved_command = pci_read16(c, dev->addr, PCI_COMMAND);
	pci_write16(c, dev->addr, PCI_COMMAND, n->saved_command | PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER | 0x0400);
	if (!start(n, why)) {
		/* *why may be n->werr: kept before give_back's waits reuse it
		 * and n is freed */
		static char err[sizeof(n->werr)];
		snprintf(err, sizeof(err), "%s", *why);
		*why = err;
		give_back(n);
		return NULL;
	}
	return &n->e;
}
