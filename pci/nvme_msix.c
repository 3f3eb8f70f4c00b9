/* The NVMe engine's own interrupt for the interrupt cases: MSI-X entry 0,
 * the admin completion queue's vector, programmed with the message a case
 * gives, sent by the completion of an Identify, and put back as found. */
#include <stdio.h>
#include <string.h>

#include "core/base/macros.h"
#include "core/base/platform.h"
#include "nvme_driver.h"

#define IRQ_CQ_QID 2 /* the I/O queue is 1 */
#define IRQ_CQ_DEPTH 2

/* The admin completion queue's interrupt (vector 0, always enabled, 1.4
 * 5.3) through MSI-X entry 0 of a table in BAR0. Completions are still
 * polled: the interrupt only tells the interrupt cases it came. */
const char *nvme_msi_program(struct dma_engine *e, const struct msi_message *m)
{
	struct nvme *n = container_of(e, struct nvme, e);
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
	if (!(n->irq_cq = nvme_page())) {
		nvme_msi_off(e);
		return "nvme: out of memory for the interrupt's completion queue";
	}
	uint32_t qsize = (uint32_t)(IRQ_CQ_DEPTH - 1) << 16;
	if (nvme_admin(n, ADMIN_CREATE_CQ, 0, (uint64_t)(uintptr_t)n->irq_cq, qsize | IRQ_CQ_QID,
		       0x3 /* IEN, contiguous */, &why) != DMA_OK) {
		platform->free_pages(n->irq_cq, 1);
		n->irq_cq = NULL;
		nvme_msi_off(e);
		return why;
	}
	return NULL;
}

/* An Identify controller: its completion on the admin queue sends the
 * interrupt. */
const char *nvme_msi_raise(struct dma_engine *e, uint64_t *t_doorbell)
{
	struct nvme *n = container_of(e, struct nvme, e);
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
	uint16_t cid = nvme_submit(n, &n->admin, cmd, true, t_doorbell);
	if (nvme_complete(n, &n->admin, cid, n->timeout_us, true, NULL, err, sizeof(err), NULL) != DMA_OK)
		return err;
	return NULL;
}

void nvme_msi_off(struct dma_engine *e)
{
	struct nvme *n = container_of(e, struct nvme, e);
	const char *why;
	if (n->irq_cq) { /* deleted while MSI-X is on, so the vector is let go of */
		if (!n->dead && nvme_admin(n, ADMIN_DELETE_CQ, 0, 0, IRQ_CQ_QID, 0, &why) != DMA_OK)
			printf("warning: deleting the interrupt's completion queue: %s (its page is kept)\n", why);
		else /* a queue still live keeps its page: nothing is posted to it, but it is the device's */
			platform->free_pages(n->irq_cq, 1);
		n->irq_cq = NULL;
	}
	msix_restore(n->cfg, e->addr, &n->msix_saved);
}
