/* QEMU's edu device (PCI 1234:11e8): a 4 KiB buffer and a DMA engine that
 * copies between it and RAM. Every DMA completes 100 ms of virtual time
 * after it starts: useful for correctness, never for latency. Register
 * layout from QEMU's hw/misc/edu.c and docs/specs/edu.txt. */
#include <stdio.h>
#include <stdlib.h>

#include "core/base/macros.h"
#include "core/base/timing.h"
#include "core/monitor/runner.h"
#include "dma.h"

#define EDU_ID 0x00
#define EDU_ID_MAGIC 0xed /* low byte; the upper bytes are the version */
#define EDU_IRQ_STATUS 0x24
#define EDU_IRQ_RAISE 0x60 /* the value written is ORed into the status, and the interrupt sent */
#define EDU_IRQ_ACK 0x64
#define EDU_IRQ_RAISE_BIT 0x1 /* ours; a DMA's completion is 0x100 */
#define PCI_CAP_MSI 0x05
#define EDU_DMA_SRC 0x80
#define EDU_DMA_DST 0x88
#define EDU_DMA_COUNT 0x90
#define EDU_DMA_CMD 0x98
#define EDU_CMD_START 0x1
#define EDU_CMD_TO_RAM 0x2
#define EDU_CMD_IRQ 0x4
#define EDU_IRQ_DMA 0x100
#define EDU_BUFFER 0x40000 /* the device's buffer, in its own address space */
#define EDU_BUFFER_SIZE 4096
/* QEMU 7.2's range check wants the transfer to end strictly before the
 * buffer's end, and aborts the whole VM otherwise (an off-by-one): a DMA
 * of all 4096 bytes kills it. One byte less is the most it takes. */
#define EDU_MAX_TRANSFER (EDU_BUFFER_SIZE - 1)
#define EDU_LATENCY_US 100000
#define EDU_DEADLINE_MS 1000 /* ten times the latency */
#define EDU_DEADLINE_US (EDU_DEADLINE_MS * 1000)
#define EDU_DEADLINE_TEXT STRINGIFY(EDU_DEADLINE_MS) " ms"
/* A DMA still running this long is not a healthy one: from then on, every
 * EDU_CHECK_US, the console (Ctrl-C, Esc), the configuration space and the
 * ID register (all ones: removed, or not decoding) are asked. */
#define EDU_SLOW_US (EDU_LATENCY_US * 2)
#define EDU_CHECK_US 10000
#define PCI_COMMAND_INTX_DISABLE 0x0400

struct edu {
	struct dma_engine e;
	struct regwin bar;
	struct pci_cfg *cfg;
	uint16_t saved_command;
	uint16_t msi_off; /* the MSI capability's offset (0: none) */
	struct msi_cap msi;
	bool dead; /* bus mastering off after a DMA that did not finish */
};

static enum dma_status edu_transfer(struct dma_engine *e, enum dma_dir dir, uint64_t iova, uint64_t len,
				    struct dma_result *r)
{
	struct edu *d = container_of(e, struct edu, e);
	*r = (struct dma_result){ 0 };
	uint64_t t0 = cycles_begin();
	if (d->dead) {
		r->status = DMA_DEVICE_ERROR;
		snprintf(r->error, sizeof(r->error),
			 "edu: stopped after a DMA did not finish ('set device' reopens it)");
		return r->status;
	}
	/* An offset or count outside the 4 KiB buffer aborts the whole VM in
	 * QEMU: the length check here is what keeps it alive. */
	if (dma_check_request(e, dir, iova, len, r) != DMA_OK)
		return r->status;
	bool to_ram = dir == DMA_FROM_DEVICE;
	regwin_write32(&d->bar, EDU_IRQ_ACK, EDU_IRQ_DMA); /* a stale flag must not read as our completion */
	regwin_write64(&d->bar, EDU_DMA_SRC, to_ram ? EDU_BUFFER : iova);
	regwin_write64(&d->bar, EDU_DMA_DST, to_ram ? iova : EDU_BUFFER);
	regwin_write64(&d->bar, EDU_DMA_COUNT, len);
	r->t_submit = cycles_begin(); /* just before the start bit */
	if (!e->withhold_doorbell)
		regwin_write64(&d->bar, EDU_DMA_CMD, EDU_CMD_START | EDU_CMD_IRQ | (to_ram ? EDU_CMD_TO_RAM : 0));
	uint64_t setup = r->t_submit - t0;
	/* done: the start bit cleared and the completion flag raised (a
	 * command never started has neither) */
	struct deadline dl = deadline_after_us(EDU_DEADLINE_US), check = deadline_after_us(EDU_SLOW_US);
	for (;;) {
		uint32_t irq = regwin_read32(&d->bar, EDU_IRQ_STATUS);
		if (irq != 0xffffffffu && (irq & EDU_IRQ_DMA) && !(regwin_read64(&d->bar, EDU_DMA_CMD) & EDU_CMD_START))
			break;
		if (e->on_wait)
			e->on_wait(e->on_wait_ctx);
		const char *why = NULL;
		if (deadline_passed(&check)) {
			check = deadline_after_us(EDU_CHECK_US);
			if (!pci_answers(d->cfg, e->addr))
				why = "edu: removed (configuration space reads all ones) while a DMA ran";
			else if (regwin_read32(&d->bar, EDU_ID) == 0xffffffffu)
				why = "edu: the device reads all ones while a DMA runs (removed, or not decoding)";
			else if (runner_stop_requested())
				why = "edu: stopped by the operator while a DMA ran";
		}
		if (!why && deadline_passed(&dl))
			why = "edu: no completion within " EDU_DEADLINE_TEXT;
		if (why) {
			r->t_done = cycles_end();
			r->status = DMA_TIMEOUT;
			if (!e->withhold_doorbell) { /* it may still run: no more bus mastering */
				pci_write16(d->cfg, e->addr, PCI_COMMAND,
					    pci_read16(d->cfg, e->addr, PCI_COMMAND) & ~PCI_COMMAND_MASTER);
				d->dead = true;
			}
			snprintf(r->error, sizeof(r->error), "%s", why);
			return r->status;
		}
		cpu_relax();
	}
	r->t_done = cycles_end();
	regwin_write32(&d->bar, EDU_IRQ_ACK, EDU_IRQ_DMA);
	r->driver_cycles = setup + (cycles_end() - r->t_done);
	r->status = DMA_OK; /* edu ignores bus errors: a faulted DMA still completes */
	return r->status;
}

/* edu's MSI (one vector, 64-bit address, no masking in QEMU 7.2): sent on
 * every write to the raise register while the status is not zero. */
static const char *edu_msi_program(struct dma_engine *e, const struct msi_message *m)
{
	struct edu *d = container_of(e, struct edu, e);
	return msi_cap_program(d->cfg, e->addr, d->msi_off, &d->msi, m);
}

static const char *edu_msi_raise(struct dma_engine *e, uint64_t *t_doorbell)
{
	struct edu *d = container_of(e, struct edu, e);
	if (!d->msi.off)
		return "edu: its MSI is not programmed";
	regwin_write32(&d->bar, EDU_IRQ_ACK, EDU_IRQ_RAISE_BIT);
	*t_doorbell = cycles_begin();
	regwin_write32(&d->bar, EDU_IRQ_RAISE, EDU_IRQ_RAISE_BIT);
	/* the status kept set would let a DMA's completion send it again */
	regwin_write32(&d->bar, EDU_IRQ_ACK, EDU_IRQ_RAISE_BIT);
	return NULL;
}

static void edu_msi_off(struct dma_engine *e)
{
	struct edu *d = container_of(e, struct edu, e);
	msi_cap_restore(d->cfg, e->addr, &d->msi);
}

/* edu's INTx: the raise register asserts it while MSI is off, and it
 * stays asserted until the status is acknowledged to zero. */
static const char *edu_intx_enable(struct dma_engine *e, bool on)
{
	struct edu *d = container_of(e, struct edu, e);
	if (on && d->msi_off && (pci_read16(d->cfg, e->addr, d->msi_off + 2) & 0x1))
		return "edu: its MSI is enabled: INTx would not be sent";
	regwin_write32(&d->bar, EDU_IRQ_ACK, EDU_IRQ_RAISE_BIT);
	uint16_t cmd = pci_read16(d->cfg, e->addr, PCI_COMMAND);
	cmd = on ? cmd & (uint16_t)~PCI_COMMAND_INTX_DISABLE : cmd | PCI_COMMAND_INTX_DISABLE;
	pci_write16(d->cfg, e->addr, PCI_COMMAND, cmd);
	return NULL;
}

static void edu_intx_set(struct dma_engine *e, bool asserted, uint64_t *t_doorbell)
{
	struct edu *d = container_of(e, struct edu, e);
	if (t_doorbell)
		*t_doorbell = cycles_begin();
	regwin_write32(&d->bar, asserted ? EDU_IRQ_RAISE : EDU_IRQ_ACK, EDU_IRQ_RAISE_BIT);
}

static void edu_close(struct dma_engine *e)
{
	struct edu *d = container_of(e, struct edu, e);
	edu_msi_off(e);
	uint16_t command = d->saved_command;
	/* a DMA given up on may still run: bus mastering back on would let
	 * it land in a buffer the test has freed */
	if (d->dead && (regwin_read64(&d->bar, EDU_DMA_CMD) & EDU_CMD_START)) {
		command &= (uint16_t)~PCI_COMMAND_MASTER;
		printf("warning: edu: a DMA given up on is still running: bus mastering stays off\n");
	}
	pci_restore16(d->cfg, e->addr, PCI_COMMAND, command); /* INTx disable, memory, bus mastering as found */
	free(d);
}

struct dma_engine *edu_open(struct pci_cfg *c, const struct pci_dev *dev, const char **why)
{
	const struct pci_bar *b = dev->nbars ? &dev->bar[0] : NULL;
	if (!b || b->index != 0 || b->io || b->size < 0x100000) {
		*why = "edu: BAR0 is not the 1 MiB register window";
		return NULL;
	}
	struct regwin bar;
	if ((*why = pci_bar_open(&bar, "edu", dev, b)) != NULL)
		return NULL;
	return edu_open_window(c, dev, &bar, why);
}

struct dma_engine *edu_open_window(struct pci_cfg *c, const struct pci_dev *dev, const struct regwin *bar,
				   const char **why)
{
	struct edu *d = calloc(1, sizeof(*d));
	if (!d) {
		*why = "out of memory";
		return NULL;
	}
	d->cfg = c;
	d->bar = *bar;
	d->saved_command = pci_read16(c, dev->addr, PCI_COMMAND);
	/* its registers, bus mastering, and no INTx: completion is polled */
	pci_write16(c, dev->addr, PCI_COMMAND,
		    d->saved_command | PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER | PCI_COMMAND_INTX_DISABLE);
	uint32_t id = regwin_read32(&d->bar, EDU_ID);
	if ((id & 0xff) == EDU_ID_MAGIC)
		regwin_write32(&d->bar, EDU_IRQ_ACK, regwin_read32(&d->bar, EDU_IRQ_STATUS));
	if ((id & 0xff) != EDU_ID_MAGIC) {
		pci_write16(c, dev->addr, PCI_COMMAND, d->saved_command);
		free(d);
		*why = "edu: the identification register does not read 0x...ed";
		return NULL;
	}
	d->e = (struct dma_engine){
		.kind = "edu",
		.addr = dev->addr,
		.caps = { .max_len = EDU_MAX_TRANSFER,
			  .addr_bits = 28, /* QEMU's default dma_mask */
			  .align = 1,
			  .len_unit = 1,
			  .reads_ram = true,
			  .writes_ram = true,
			  .roundtrip = true,
			  .fixed_latency_us = EDU_LATENCY_US,
			  .how = "edu DMA command (copy to/from its 4 KiB buffer)" },
		.transfer = edu_transfer,
		.close = edu_close,
		.intx_enable = edu_intx_enable,
		.intx_set = edu_intx_set,
	};
	const struct pci_cap *msi = pci_find_cap(dev, PCI_CAP_MSI, false);
	d->msi_off = msi ? msi->offset : 0;
	if (d->msi_off) {
		d->e.msi_program = edu_msi_program;
		d->e.msi_raise = edu_msi_raise;
		d->e.msi_off = edu_msi_off;
	}
	return &d->e;
}
