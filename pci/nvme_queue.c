/* NVMe submission and completion queues (NVM Express Base 1.4, 4.1, 4.6):
 * a command placed in a submission queue and its doorbell rung, its
 * completion found by the phase tag and the head doorbell written, the
 * status decoded; admin commands on the admin queue; and the controller's
 * waits (CSTS.RDY, completions), each with a deadline and all of one
 * device's together within one budget. */
#include <stdio.h>
#include <string.h>

#include "core/base/platform.h"
#include "core/base/timing.h"
#include "core/monitor/runner.h"
#include "nvme_driver.h"

#define CSTS_RDY NVME_CSTS_RDY
#define CSTS_CFS NVME_CSTS_CFS
/* All of one device's controller waits together, from open to close: a
 * healthy controller needs milliseconds; CAP.TO may claim 127.5 s each. */
#define NVME_BUDGET_US 60000000ull
/* A wait this long is not a healthy one: from then on, every
 * WAIT_CHECK_US, the console (Ctrl-C, Esc) and CSTS (all ones) are asked. */
#define WAIT_SLOW_US 100000
#define WAIT_CHECK_US 10000

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

void *nvme_page(void)
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
		if (!pci_answers(n->cfg, n->e.addr))
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
bool nvme_wait_ready(struct nvme *n, bool ready, const char **why)
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
uint16_t nvme_submit(struct nvme *n, struct nvme_queue *q, const uint8_t cmd[64], bool ring, uint64_t *t_ring)
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

/* The next completion entry of `q` under the wait `w`: true with its
 * dword 3 (cid, phase, status), the head moved past it and rung; false
 * when the wait ended first (n->werr says why). */
static bool next_entry(struct nvme *n, struct nvme_queue *q, struct nvme_wait *w, uint32_t *dw0, uint32_t *dw3)
{
	for (;;) {
		volatile uint8_t *e = q->cq + (size_t)q->head * 16;
		*dw3 = *(volatile uint32_t *)(e + 12);
		if (((*dw3 >> 16) & 1) == q->phase) {
			if (dw0)
				*dw0 = *(volatile uint32_t *)e;
			q->head = (uint16_t)((q->head + 1) % q->depth);
			if (q->head == 0)
				q->phase = !q->phase;
			doorbell(n, q->qid, true, q->head);
			return true;
		}
		if (n->e.on_wait)
			n->e.on_wait(n->e.on_wait_ctx);
		if (wait_over(w))
			return false;
		cpu_relax();
	}
}

static enum dma_status entry_status(uint32_t dw3, char *err, size_t errn, uint16_t *status)
{
	unsigned sc = (dw3 >> 17) & 0xff, sct = (dw3 >> 25) & 0x7;
	if (status)
		*status = (uint16_t)(sct << 8 | sc);
	if (sc || sct) {
		snprintf(err, errn, "nvme: status type %u code 0x%02x: %s", sct, sc, status_text(sct, sc));
		return DMA_DEVICE_ERROR;
	}
	return DMA_OK;
}

/* Polls for command `cid`'s completion; DMA_OK, DMA_DEVICE_ERROR (decoded
 * into err) or DMA_TIMEOUT. */
enum dma_status nvme_complete(struct nvme *n, struct nvme_queue *q, uint16_t cid, uint64_t deadline_us, bool budgeted,
			      uint32_t *dw0, char *err, size_t errn, uint16_t *status)
{
	struct nvme_wait w;
	char what[48];
	snprintf(what, sizeof(what), "command %u", cid);
	wait_begin(&w, n, what, deadline_us, budgeted);
	w.live = true;
	uint32_t dw3;
	bool others = false;
	for (;;) {
		if (!next_entry(n, q, &w, dw0, &dw3)) {
			wait_end(&w);
			snprintf(err, errn, others ? "%.110s (completions for other commands only)" : "%s", n->werr);
			return DMA_TIMEOUT;
		}
		if ((dw3 & 0xffff) == cid)
			break;
		/* a late completion of a command given up on: not ours, skip it;
		 * a controller that posts nothing but those still meets the
		 * deadline */
		others = true;
		if (wait_over(&w)) {
			wait_end(&w);
			snprintf(err, errn, "%.110s (completions for other commands only)", n->werr);
			return DMA_TIMEOUT;
		}
	}
	wait_end(&w);
	return entry_status(dw3, err, errn, status);
}

enum dma_status nvme_next(struct nvme *n, struct nvme_queue *q, uint64_t deadline_us, uint16_t *cid, char *err,
			  size_t errn, uint16_t *status)
{
	struct nvme_wait w;
	wait_begin(&w, n, "a queued command", deadline_us, false);
	w.live = true;
	uint32_t dw3;
	bool got = next_entry(n, q, &w, NULL, &dw3);
	wait_end(&w);
	if (!got) {
		snprintf(err, errn, "%s", n->werr);
		return DMA_TIMEOUT;
	}
	*cid = (uint16_t)(dw3 & 0xffff);
	return entry_status(dw3, err, errn, status);
}

enum dma_status nvme_admin(struct nvme *n, uint8_t opcode, uint32_t nsid, uint64_t prp1, uint32_t cdw10, uint32_t cdw11,
			   const char **why)
{
	static char err[160];
	uint8_t cmd[64] = { opcode };
	memcpy(cmd + 4, &nsid, 4);
	memcpy(cmd + 24, &prp1, 8);
	memcpy(cmd + 40, &cdw10, 4);
	memcpy(cmd + 44, &cdw11, 4);
	uint16_t cid = nvme_submit(n, &n->admin, cmd, true, NULL);
	enum dma_status s = nvme_complete(n, &n->admin, cid, n->timeout_us, true, NULL, err, sizeof(err), NULL);
	if (s != DMA_OK)
		*why = err;
	return s;
}
