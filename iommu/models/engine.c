/* The DMA engine behind a model's bridge: it moves data between RAM and
 * its own buffer, one IO page at a time, through the model's translation,
 * as a device behind the real bridge would. */
#include <stdio.h>
#include <string.h>

#include "core/base/cpu.h"
#include "core/base/dmabuf.h"
#include "core/base/macros.h"
#include "core/base/platform.h"
#include "core/base/timing.h"
#include "models.h"

static enum dma_status transfer(struct dma_engine *e, enum dma_dir dir, uint64_t iova, uint64_t len,
				struct dma_result *r)
{
	struct model_engine *m = container_of(e, struct model_engine, e);
	*r = (struct dma_result){ 0 };
	uint64_t t0 = cycles_begin();
	if (dma_check_request(e, dir, iova, len, r) != DMA_OK)
		return r->status;
	r->t_submit = cycles_begin();
	unsigned aborted = 0;
	for (uint64_t done = 0; done < len;) {
		uint64_t a = iova + done, n = PAGE_SIZE - (a & (PAGE_SIZE - 1));
		if (n > len - done)
			n = len - done;
		uint64_t phys = a;
		bool write = dir == DMA_FROM_DEVICE;
		if (m->bypass && !dmabuf_owns(a, n)) {
			m->strays += write; /* not ours: dropped here, written on a machine */
			if (!write)
				memset(m->buf + done, 0xff, n);
		} else if (!m->bypass && !m->translate(m->model, a, write, &phys)) {
			aborted++; /* master abort: the write is dropped, the read gets all ones */
			if (!write)
				memset(m->buf + done, 0xff, n);
		} else if (write) {
			memcpy((void *)(uintptr_t)phys, m->buf + done, n);
		} else {
			memcpy(m->buf + done, (const void *)(uintptr_t)phys, n);
		}
		if (e->on_wait)
			e->on_wait(e->on_wait_ctx);
		done += n;
	}
	r->t_done = cycles_end();
	r->driver_cycles = r->t_submit - t0;
	m->aborts += aborted;
	if (aborted) {
		r->status = DMA_DEVICE_ERROR;
		snprintf(r->error, sizeof(r->error), "%s: %u page%s master-aborted by the bridge", e->kind, aborted,
			 aborted == 1 ? "" : "s");
		return r->status;
	}
	r->status = DMA_OK;
	return r->status;
}

static void close_engine(struct dma_engine *e)
{
	(void)e; /* nothing to give back: the engine is part of the model */
}

void model_engine_init(struct model_engine *m, const char *kind, struct pci_addr addr, unsigned addr_bits,
		       bool (*translate)(void *, uint64_t, bool, uint64_t *), void *model)
{
	memset(m, 0, sizeof(*m));
	m->translate = translate;
	m->model = model;
	m->e = (struct dma_engine){
		.kind = kind,
		.addr = addr,
		.caps = { .max_len = sizeof(m->buf),
			  .addr_bits = addr_bits,
			  .align = 1,
			  .len_unit = 1,
			  .reads_ram = true,
			  .writes_ram = true,
			  .roundtrip = true,
			  .how = "a DMA engine behind the model's bridge (copies through the model's translation)" },
		.transfer = transfer,
		.close = close_engine,
	};
}

/* ---- the engine's own MSI ------------------------------------------------- */

static const char *msi_program(struct dma_engine *e, const struct msi_message *m)
{
	struct model_engine *me = container_of(e, struct model_engine, e);
	me->msg = *m;
	me->msi_enabled = true;
	return NULL;
}

/* The message goes out as the device's memory write; the unit's interrupt
 * path (the model) remaps or blocks it, and a delivered one reaches the
 * local APIC it names, which runs the handler of its vector. */
static const char *msi_raise(struct dma_engine *e, uint64_t *t_doorbell)
{
	struct model_engine *me = container_of(e, struct model_engine, e);
	if (!me->msi_enabled)
		return "the engine's MSI is not programmed";
	if (!platform->irq_send)
		return "the platform cannot deliver the model's interrupt (no irq_send)";
	uint16_t rid = pci_rid(e->addr);
	uint8_t vector = 0;
	uint32_t dest = 0;
	*t_doorbell = rdtsc();
	if (!me->msi(me->model, rid, me->msg.addr, me->msg.data, &vector, &dest)) {
		me->msi_blocked++; /* dropped, as the unit drops it: the model holds the record */
		return NULL;
	}
	me->msi_delivered++;
	platform->irq_send(vector, dest); /* a vector or APIC nobody serves: lost, as on the bus */
	return NULL;
}

static void msi_off(struct dma_engine *e)
{
	struct model_engine *me = container_of(e, struct model_engine, e);
	me->msi_enabled = false;
	me->msg = (struct msi_message){ 0 };
}

/* An MSI that is a memory write and nothing more (RISC-V: an IMSIC's
 * interrupt files are memory-mapped): its 32 bits of data through the
 * model's translation as any write, stored where that lands when the page
 * is a buffer of ours, dropped (a stray) when not. */
static const char *msi_raise_write(struct dma_engine *e, uint64_t *t_doorbell)
{
	struct model_engine *me = container_of(e, struct model_engine, e);
	if (!me->msi_enabled)
		return "the engine's MSI is not programmed";
	uint64_t phys = 0;
	*t_doorbell = rdtsc();
	if (!me->translate(me->model, me->msg.addr, true, &phys)) {
		me->msi_blocked++; /* master abort: the model holds the record */
		return NULL;
	}
	if (!dmabuf_owns(phys, sizeof(uint32_t))) {
		me->strays++;
		return NULL;
	}
	*(volatile uint32_t *)(uintptr_t)phys = me->msg.data;
	me->msi_delivered++;
	return NULL;
}

void model_engine_msi_write(struct model_engine *m)
{
	m->e.msi_program = msi_program;
	m->e.msi_raise = msi_raise_write;
	m->e.msi_off = msi_off;
}

void model_engine_msi(struct model_engine *m, bool (*msi)(void *, uint16_t, uint64_t, uint32_t, uint8_t *, uint32_t *))
{
	m->msi = msi;
	m->e.msi_program = msi_program;
	m->e.msi_raise = msi_raise;
	m->e.msi_off = msi_off;
}
