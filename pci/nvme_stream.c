/* NVMe transfers in flight at once (struct dma_engine's queue and reap):
 * each queued command has a slot, the slot a PRP list page of its own
 * (the driver's STREAM_MAX pages, the first shared with transfer()), and
 * completions are taken as the controller posts them, in whatever order.
 * A completion that never comes stops the controller as transfer() does:
 * nothing in flight is then waited for again. */
#include <stdio.h>
#include <string.h>

#include "core/base/macros.h"
#include "core/base/timing.h"
#include "nvme_driver.h"

enum dma_status nvme_queue_io(struct dma_engine *e, enum dma_dir dir, uint64_t iova, uint64_t len, unsigned *tag,
			      struct dma_result *r)
{
	struct nvme *n = container_of(e, struct nvme, e);
	*r = (struct dma_result){ 0 };
	uint64_t t0 = cycles_begin();
	unsigned s = 0;
	while (s < e->caps.max_inflight && n->slot[s].busy)
		s++;
	if (s >= e->caps.max_inflight) {
		r->status = DMA_BAD_REQUEST;
		snprintf(r->error, sizeof(r->error), "nvme: %u transfers already in flight, the most queue() keeps",
			 e->caps.max_inflight);
		return r->status;
	}
	uint8_t cmd[64];
	if (nvme_io_command(n, dir, iova, len, n->prp_list + (size_t)s * PAGE, cmd, r))
		return r->status;
	struct nvme_slot *sl = &n->slot[s];
	sl->r = (struct dma_result){ 0 };
	sl->t0 = t0;
	sl->cid = nvme_submit(n, &n->io, cmd, true, &sl->r.t_submit);
	sl->r.driver_cycles = sl->r.t_submit - t0;
	sl->busy = true;
	n->inflight++;
	*tag = s;
	r->t_submit = sl->r.t_submit;
	return DMA_OK;
}

enum dma_status nvme_reap(struct dma_engine *e, unsigned *tag, struct dma_result *r)
{
	struct nvme *n = container_of(e, struct nvme, e);
	*tag = e->caps.max_inflight;
	*r = (struct dma_result){ 0 };
	if (!n->inflight) {
		r->status = DMA_BAD_REQUEST;
		snprintf(r->error, sizeof(r->error), "nvme: nothing in flight to reap");
		return r->status;
	}
	for (unsigned strays = 0;; strays++) {
		uint16_t cid, status = 0;
		char err[sizeof(r->error)];
		enum dma_status st = nvme_next(n, &n->io, CMD_DEADLINE_US, &cid, err, sizeof(err), &status);
		uint64_t t_done = cycles_end();
		if (st != DMA_TIMEOUT && strays > n->io.depth) {
			/* more completions for no command of ours than the queue holds */
			st = DMA_TIMEOUT;
			snprintf(err, sizeof(err), "nvme: completions for commands not in flight only");
		}
		if (st == DMA_TIMEOUT) {
			/* commands may still run and write into buffers about to be
			 * freed: the controller stopped, every slot given up */
			nvme_stop_dead(n);
			for (unsigned s = 0; s < STREAM_MAX; s++)
				n->slot[s].busy = false;
			n->inflight = 0;
			r->status = DMA_TIMEOUT;
			snprintf(r->error, sizeof(r->error), "%s", err);
			return r->status;
		}
		unsigned s = 0;
		while (s < e->caps.max_inflight && !(n->slot[s].busy && n->slot[s].cid == cid))
			s++;
		if (s == e->caps.max_inflight)
			continue; /* a late completion of a command transfer() gave up on */
		struct nvme_slot *sl = &n->slot[s];
		*r = sl->r;
		r->t_done = t_done;
		r->status = st;
		r->device_status = status;
		r->miscompare = st == DMA_DEVICE_ERROR && status == NVME_SC_COMPARE_FAILURE;
		if (st != DMA_OK)
			snprintf(r->error, sizeof(r->error), "%s", err);
		sl->busy = false;
		n->inflight--;
		*tag = s;
		return r->status;
	}
}
