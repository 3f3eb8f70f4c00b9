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
 * that reads all ones (removed).
 *
 * The driver in four files: nvme.c the engine (open, start, transfers,
 * close and give-back), nvme_queue.c the queues and waits, nvme_stream.c
 * transfers in flight at once, nvme_msix.c the engine's own interrupt;
 * nvme_driver.h between them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/macros.h"
#include "core/base/platform.h"
#include "core/base/timing.h"
#include "core/monitor/settings.h"
#include "nvme_driver.h"

#define PCI_CAP_MSIX 0x11
#define MSIX_ENABLE 0x8000 /* Message Control */

uint64_t nvme_prp2(uint8_t *list_page, uint64_t iova, uint64_t len)
{
	uint64_t first = PAGE - (iova & (PAGE - 1));
	if (len <= first)
		return 0;
	if (len - first <= PAGE)
		return (iova & ~(uint64_t)(PAGE - 1)) + PAGE;
	uint64_t *list = (uint64_t *)list_page;
	uint64_t addr = (iova & ~(uint64_t)(PAGE - 1)) + PAGE;
	size_t k = 0;
	for (uint64_t left = len - first; left > 0; left -= left < PAGE ? left : PAGE)
		list[k++] = addr, addr += PAGE;
	return (uint64_t)(uintptr_t)list_page;
}

const char *nvme_io_command(struct nvme *n, enum dma_dir dir, uint64_t iova, uint64_t len, uint8_t *list,
			    uint8_t cmd[64], struct dma_result *r)
{
	if (n->dead) {
		r->status = DMA_DEVICE_ERROR;
		snprintf(r->error, sizeof(r->error),
			 "nvme: stopped after a command did not complete ('set device' reopens it)");
		return r->error;
	}
	if (dma_check_request(&n->e, dir, iova, len, r) != DMA_OK)
		return r->error;
	uint64_t nlb = len / n->lba_size;
	if (nlb > n->nsze) {
		r->status = DMA_BAD_REQUEST;
		snprintf(r->error, sizeof(r->error), "nvme: %llu blocks, the namespace has %llu",
			 (unsigned long long)nlb, (unsigned long long)n->nsze);
		return r->error;
	}
	uint8_t op = dir == DMA_FROM_DEVICE ? NVM_READ : n->scratch ? NVM_WRITE : NVM_COMPARE;
	uint64_t prp2 = nvme_prp2(list, iova, len), slba = 0;
	uint32_t cdw12 = (uint32_t)(nlb - 1);
	memset(cmd, 0, 64);
	cmd[0] = op;
	memcpy(cmd + 4, &n->nsid, 4);
	memcpy(cmd + 24, &iova, 8);
	memcpy(cmd + 32, &prp2, 8);
	memcpy(cmd + 40, &slba, 8);
	memcpy(cmd + 48, &cdw12, 4);
	return NULL;
}

void nvme_stop_dead(struct nvme *n)
{
	pci_write16(n->cfg, n->e.addr, PCI_COMMAND, pci_read16(n->cfg, n->e.addr, PCI_COMMAND) & ~PCI_COMMAND_MASTER);
	regwin_write32(&n->bar, NVME_CC, regwin_read32(&n->bar, NVME_CC) & ~CC_EN);
	n->dead = true;
}

static enum dma_status nvme_transfer(struct dma_engine *e, enum dma_dir dir, uint64_t iova, uint64_t len,
				     struct dma_result *r)
{
	struct nvme *n = container_of(e, struct nvme, e);
	*r = (struct dma_result){ 0 };
	uint64_t t0 = cycles_begin();
	uint8_t cmd[64];
	if (n->inflight) {
		r->status = DMA_BAD_REQUEST;
		snprintf(r->error, sizeof(r->error), "nvme: %u queued transfers still in flight", n->inflight);
		return r->status;
	}
	if (nvme_io_command(n, dir, iova, len, n->prp_list, cmd, r))
		return r->status;
	uint16_t cid = nvme_submit(n, &n->io, cmd, !e->withhold_doorbell, &r->t_submit);
	uint64_t setup = r->t_submit - t0;
	r->status = nvme_complete(n, &n->io, cid, e->withhold_doorbell ? 1000000 : CMD_DEADLINE_US, false, NULL,
				  r->error, sizeof(r->error), &r->device_status);
	r->t_done = cycles_end();
	r->driver_cycles = setup;
	r->miscompare = r->status == DMA_DEVICE_ERROR && r->device_status == NVME_SC_COMPARE_FAILURE;
	/* The command may still run and write into a buffer about to be
	 * freed: no more bus mastering, the controller stopped. */
	if (r->status == DMA_TIMEOUT && !e->withhold_doorbell)
		nvme_stop_dead(n);
	return r->status;
}

static void free_queues(struct nvme *n)
{
	void *pages[] = { n->admin.sq, n->admin.cq, n->io.sq, n->io.cq, n->identify };
	for (size_t i = 0; i < ARRAY_SIZE(pages); i++)
		if (pages[i])
			platform->free_pages(pages[i], 1);
	if (n->prp_list)
		platform->free_pages(n->prp_list, STREAM_MAX);
}

/* The controller as found: queues gone, disabled, its registers back; the
 * firmware's driver re-initialises it when it gets it back. */
static void give_back(struct nvme *n)
{
	const char *why;
	bool stopped = true;
	n->closing = true;
	if (n->saved && !pci_answers(n->cfg, n->e.addr)) {
		/* removed: nothing answers to be put back; a function that only
		 * stopped answering configuration reads might still DMA */
		printf("warning: nvme: the function no longer answers (removed?); its registers are not put back and "
		       "its queue pages are not freed\n");
		stopped = false;
	} else if (n->saved) {
		regwin_write32(&n->bar, NVME_CC, regwin_read32(&n->bar, NVME_CC) & ~CC_EN);
		stopped = nvme_wait_ready(n, false, &why);
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
			if (!nvme_wait_ready(n, true, &why))
				printf("warning: %s; putting the controller back enabled as found\n", why);
		}
		/* The reset cleared the mask; INTMS sets what was set. */
		if (stopped && !n->msix) {
			regwin_write32(&n->bar, NVME_INTMC, ~n->saved_intms);
			regwin_write32(&n->bar, NVME_INTMS, n->saved_intms);
		}
	}
	pci_restore16(n->cfg, n->e.addr, PCI_COMMAND,
		      stopped ? n->saved_command : (uint16_t)(n->saved_command & ~PCI_COMMAND_MASTER));
	if (n->claimed && platform->device_release)
		platform->device_release(n->e.addr.seg, n->e.addr.bus, n->e.addr.dev, n->e.addr.fn);
	if (stopped)
		free_queues(n);
	free(n);
}

static void nvme_close(struct dma_engine *e)
{
	struct nvme *n = container_of(e, struct nvme, e);
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
		uint16_t cid = nvme_submit(n, &n->io, cmd, true, NULL);
		if (nvme_complete(n, &n->io, cid, CMD_DEADLINE_US, true, NULL, err, sizeof(err), NULL) != DMA_OK)
			printf("warning: flush before giving the controller back: %s\n", err);
	}
	if (nvme_admin(n, ADMIN_DELETE_SQ, 0, 0, n->io.qid, 0, &why) != DMA_OK ||
	    nvme_admin(n, ADMIN_DELETE_CQ, 0, 0, n->io.qid, 0, &why) != DMA_OK)
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
	if (!nvme_wait_ready(n, false, why))
		return false;
	n->admin = (struct nvme_queue){ .sq = nvme_page(), .cq = nvme_page(), .depth = ADMIN_DEPTH, .phase = true };
	n->io = (struct nvme_queue){ .sq = nvme_page(),
				     .cq = nvme_page(),
				     .qid = 1,
				     .phase = true,
				     .depth = (uint16_t)(mqes < IO_DEPTH ? mqes : IO_DEPTH) };
	n->prp_list = platform->alloc_pages(STREAM_MAX, 0);
	n->identify = nvme_page();
	if (!n->admin.sq || !n->admin.cq || !n->io.sq || !n->io.cq || !n->prp_list || !n->identify) {
		*why = "nvme: no memory for the queues";
		return false;
	}
	memset(n->prp_list, 0, STREAM_MAX * PAGE);
	const void *own[] = { n->admin.sq, n->admin.cq, n->io.sq, n->io.cq, n->identify };
	for (size_t i = 0; i < ARRAY_SIZE(own); i++)
		n->e.own[n->e.nown++] = (struct dma_range){ (uint64_t)(uintptr_t)own[i], PAGE };
	n->e.own[n->e.nown++] = (struct dma_range){ (uint64_t)(uintptr_t)n->prp_list, STREAM_MAX * PAGE };
	regwin_write32(&n->bar, NVME_AQA, (ADMIN_DEPTH - 1) << 16 | (ADMIN_DEPTH - 1));
	regwin_write64(&n->bar, NVME_ASQ, (uint64_t)(uintptr_t)n->admin.sq);
	regwin_write64(&n->bar, NVME_ACQ, (uint64_t)(uintptr_t)n->admin.cq);
	regwin_write32(&n->bar, NVME_CC, CC_EN | CC_IOSQES_64 | CC_IOCQES_16);
	if (!nvme_wait_ready(n, true, why))
		return false;

	uint64_t idp = (uint64_t)(uintptr_t)n->identify;
	if (nvme_admin(n, ADMIN_IDENTIFY, 0, idp, 1, 0, why) != DMA_OK)
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
		enum dma_status st = nvme_admin(n, ADMIN_IDENTIFY, ns, idp, 0, 0, why);
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
	if (nvme_admin(n, ADMIN_CREATE_CQ, 0, cq, qsize | 1, 0x1 /* contiguous, no interrupts */, why) != DMA_OK ||
	    nvme_admin(n, ADMIN_CREATE_SQ, 0, sq, qsize | 1, 1u << 16 | 0x1 /* CQ 1, contiguous */, why) != DMA_OK)
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
				       .max_inflight = n->io.depth - 1 < STREAM_MAX ? n->io.depth - 1u : STREAM_MAX,
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
	n->e = (struct dma_engine){ .kind = "nvme",
				    .addr = dev->addr,
				    .transfer = nvme_transfer,
				    .queue = nvme_queue_io,
				    .reap = nvme_reap,
				    .close = nvme_close };
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
