#include "dma.h"

#include <stdio.h>

#include "core/base/cpu.h"
#include "core/base/dmabuf.h"
#include "core/base/macros.h"
#include "core/base/memmap.h"
#include "core/base/platform.h"
#include "core/base/timing.h"

const char *dma_status_name(enum dma_status s)
{
	switch (s) {
	case DMA_OK:
		return "ok";
	case DMA_BAD_REQUEST:
		return "bad request";
	case DMA_DEVICE_ERROR:
		return "device error";
	case DMA_TIMEOUT:
		return "timeout";
	}
	return "?";
}

enum dma_status dma_check_request(const struct dma_engine *e, enum dma_dir dir, uint64_t iova, uint64_t len,
				  struct dma_result *r)
{
	const struct dma_caps *c = &e->caps;
	r->status = DMA_BAD_REQUEST;
	if (len == 0 || len > c->max_len)
		snprintf(r->error, sizeof(r->error), "length %llu outside 1..%llu", (unsigned long long)len,
			 (unsigned long long)c->max_len);
	else if (c->align > 1 && (iova & (c->align - 1)))
		snprintf(r->error, sizeof(r->error), "IOVA 0x%llx is not %llu-byte aligned", (unsigned long long)iova,
			 (unsigned long long)c->align);
	else if (c->len_unit > 1 && len % c->len_unit)
		snprintf(r->error, sizeof(r->error), "length %llu is not a multiple of %llu", (unsigned long long)len,
			 (unsigned long long)c->len_unit);
	else if (iova + len - 1 < iova)
		snprintf(r->error, sizeof(r->error), "IOVA 0x%llx+%llu wraps around", (unsigned long long)iova,
			 (unsigned long long)len);
	else if (c->addr_bits < 64 && (iova >> c->addr_bits || (iova + len - 1) >> c->addr_bits))
		snprintf(r->error, sizeof(r->error), "IOVA 0x%llx+%llu beyond the device's %u address bits",
			 (unsigned long long)iova, (unsigned long long)len, c->addr_bits);
	else if ((dir == DMA_TO_DEVICE && !c->reads_ram) || (dir == DMA_FROM_DEVICE && !c->writes_ram))
		snprintf(r->error, sizeof(r->error), "the device cannot %s RAM",
			 dir == DMA_TO_DEVICE ? "read" : "write");
	else
		r->status = DMA_OK;
	return r->status;
}

uint64_t dma_reach(const struct dma_engine *e)
{
	return e->caps.addr_bits < 64 ? 1ull << e->caps.addr_bits : 0;
}

const char *dma_ram_below(uint64_t limit, size_t len)
{
	struct dmabuf b;
	if (dmabuf_alloc(&b, len, 0, limit)) {
		dmabuf_free(&b);
		return NULL;
	}
	/* the allocation decides; the map only says which words fit (the
	 * host build describes no map) */
	const struct mem_range *map;
	uint64_t at;
	bool described = platform->memory_map && platform->memory_map(&map) > 0;
	if (limit && described && memmap_os_ram_in(0, limit, &at) == MEM_TYPES)
		return "no RAM lies below it";
	return "no free memory below it could be had";
}

const char *dma_unreachable(const struct dma_engine *e, size_t len, char *buf, size_t n)
{
	uint64_t reach = dma_reach(e);
	const char *why = reach ? dma_ram_below(reach, len) : NULL;
	if (why)
		snprintf(buf, n, "%s reaches %u bits (0x%llx) and %s", e->kind, e->caps.addr_bits,
			 (unsigned long long)reach, why);
	return why ? buf : NULL;
}

static const struct {
	uint16_t vendor, device;
	uint32_t class, class_mask;
	struct dma_engine *(*open)(struct pci_cfg *c, const struct pci_dev *d, const char **why);
} drivers[] = {
	{ 0x1234, 0x11e8, 0, 0, edu_open },		   /* QEMU edu */
	{ 0xffff, 0xffff, 0x010802, 0xffffff, nvme_open }, /* any NVMe controller */
};

static int driver_for(const struct pci_dev *d)
{
	for (size_t i = 0; i < ARRAY_SIZE(drivers); i++) {
		if (drivers[i].vendor != 0xffff && (drivers[i].vendor != d->vendor || drivers[i].device != d->device))
			continue;
		if (drivers[i].class_mask && (d->class & drivers[i].class_mask) != drivers[i].class)
			continue;
		return (int)i;
	}
	return -1;
}

bool dma_has_driver(const struct pci_dev *d)
{
	return driver_for(d) >= 0;
}

struct dma_engine *dma_open(struct pci_cfg *c, const struct pci_dev *d, const char **why)
{
	int i = driver_for(d);
	if (i < 0) {
		*why = "no DMA engine driver for this function (edu and NVMe have one)";
		return NULL;
	}
	return drivers[i].open(c, d, why);
}

/* ---- a device's own interrupt, counted ---------------------------------- */

static void msi_catch_fire(void *ctx)
{
	struct msi_catch *c = ctx;
	c->tsc = rdtsc(); /* first: the arrival, not the count's store */
	c->count++;
}

const char *msi_catch_install(struct msi_catch *c)
{
	*c = (struct msi_catch){ .vector = -1 };
	if (!platform->irq_install)
		return "the platform delivers no interrupts to the monitor (no irq_install)";
	const char *why = "no vector";
	c->vector = platform->irq_install(msi_catch_fire, c, &c->apic_id, &why);
	return c->vector < 0 ? why : NULL;
}

void msi_catch_remove(struct msi_catch *c)
{
	if (c->vector >= 0 && platform->irq_remove)
		platform->irq_remove(c->vector);
	c->vector = -1;
}

bool msi_catch_wait(const struct msi_catch *c, uint64_t before, uint32_t us)
{
	struct deadline dl = deadline_after_us(us);
	while (c->count == before && !deadline_passed(&dl))
		cpu_relax();
	return c->count != before;
}

/* 0xfee00000 | destination << 12; redirection hint 0, physical mode */
struct msi_message msi_catch_message(const struct msi_catch *c)
{
	return (struct msi_message){ .addr = 0xfee00000ull | ((uint64_t)(c->apic_id & 0xff) << 12),
				     .data = (uint32_t)(c->vector & 0xff) };
}

/* ---- the MSI capability (PCIe base spec 7.7.1) --------------------------- */

#define MSI_CONTROL 0x2
#define MSI_ADDR_LO 0x4
#define MSI_CTL_ENABLE 0x0001
#define MSI_CTL_MME 0x0070 /* multiple message enable: 0, one vector */
#define MSI_CTL_64BIT 0x0080
#define MSI_CTL_PVM 0x0100 /* per-vector masking */

/* the data register, then the mask bits, follow the address */
static uint16_t msi_data_off(uint16_t control)
{
	return control & MSI_CTL_64BIT ? 0xc : 0x8;
}

const char *msi_cap_program(struct pci_cfg *c, struct pci_addr a, uint16_t off, struct msi_cap *saved,
			    const struct msi_message *m)
{
	if (!off)
		return "the device has no MSI capability";
	uint16_t ctl = pci_read16(c, a, off + MSI_CONTROL);
	if (ctl == 0xffff)
		return "the device's configuration space reads all ones";
	if (!(ctl & MSI_CTL_64BIT) && (m->addr >> 32))
		return "the message's address needs 64 bits and the device's MSI has 32";
	uint16_t data = msi_data_off(ctl);
	if (!saved->off) { /* the first programming records what the firmware left */
		*saved = (struct msi_cap){ .off = off,
					   .control = ctl,
					   .addr_lo = pci_read32(c, a, off + MSI_ADDR_LO),
					   .addr_hi = ctl & MSI_CTL_64BIT ? pci_read32(c, a, off + 0x8) : 0,
					   .data = pci_read16(c, a, off + data),
					   .mask = ctl & MSI_CTL_PVM ? pci_read32(c, a, off + data + 4) : 0 };
	}
	/* off while the message changes: no half-written address is sent */
	pci_write16(c, a, off + MSI_CONTROL, (uint16_t)(ctl & ~(MSI_CTL_ENABLE | MSI_CTL_MME)));
	pci_write32(c, a, off + MSI_ADDR_LO, (uint32_t)m->addr);
	if (ctl & MSI_CTL_64BIT)
		pci_write32(c, a, off + 0x8, (uint32_t)(m->addr >> 32));
	pci_write16(c, a, off + data, (uint16_t)m->data);
	if (ctl & MSI_CTL_PVM)
		pci_write32(c, a, off + data + 4, saved->mask & ~1u); /* vector 0 unmasked */
	pci_write16(c, a, off + MSI_CONTROL, (uint16_t)((ctl & ~MSI_CTL_MME) | MSI_CTL_ENABLE));
	return NULL;
}

void msi_cap_restore(struct pci_cfg *c, struct pci_addr a, struct msi_cap *saved)
{
	uint16_t off = saved->off, ctl = saved->control, data = msi_data_off(ctl);
	if (!off)
		return;
	/* off while the message goes back (only if it must change): no
	 * half-restored address is sent; each register written only where
	 * it differs from what was found */
	uint16_t now = pci_read16(c, a, off + MSI_CONTROL);
	bool moved = pci_read32(c, a, off + MSI_ADDR_LO) != saved->addr_lo ||
		     ((ctl & MSI_CTL_64BIT) && pci_read32(c, a, off + 0x8) != saved->addr_hi) ||
		     pci_read16(c, a, off + data) != (uint16_t)saved->data;
	if (moved && (now & MSI_CTL_ENABLE))
		pci_write16(c, a, off + MSI_CONTROL, (uint16_t)(now & ~MSI_CTL_ENABLE));
	pci_restore32(c, a, off + MSI_ADDR_LO, saved->addr_lo);
	if (ctl & MSI_CTL_64BIT)
		pci_restore32(c, a, off + 0x8, saved->addr_hi);
	pci_restore16(c, a, off + data, (uint16_t)saved->data);
	if (ctl & MSI_CTL_PVM)
		pci_restore32(c, a, off + data + 4, saved->mask);
	pci_restore16(c, a, off + MSI_CONTROL, ctl);
	saved->off = 0;
}

/* ---- MSI-X (PCIe base spec 7.7.2) ---------------------------------------- */

#define MSIX_CONTROL 0x2
#define MSIX_TABLE 0x4
#define MSIX_CTL_SIZE 0x07ff /* table size - 1 */
#define MSIX_CTL_MASKALL 0x4000
#define MSIX_CTL_ENABLE 0x8000
#define MSIX_ENTRY 16
#define MSIX_VC_MASK 0x1

void msix_table_where(struct pci_cfg *c, struct pci_addr a, uint16_t off, unsigned *bir, uint64_t *table_off)
{
	uint32_t t = pci_read32(c, a, off + MSIX_TABLE);
	*bir = t & 0x7;
	*table_off = t & ~0x7u;
}

const char *msix_program(struct pci_cfg *c, struct pci_addr a, uint16_t off, struct regwin *table, uint64_t table_off,
			 struct msix_cap *saved, const struct msi_message *m)
{
	if (!off)
		return "the device has no MSI-X capability";
	uint16_t ctl = pci_read16(c, a, off + MSIX_CONTROL);
	if (ctl == 0xffff)
		return "the device's configuration space reads all ones";
	unsigned n = (ctl & MSIX_CTL_SIZE) + 1u;
	if (table_off + (uint64_t)n * MSIX_ENTRY > table->size)
		return "the MSI-X table lies past the end of its BAR";
	/* function-masked while entries change: nothing half-written is sent */
	pci_write16(c, a, off + MSIX_CONTROL, (uint16_t)(ctl | MSIX_CTL_ENABLE | MSIX_CTL_MASKALL));
	if (!saved->off) {
		*saved =
		    (struct msix_cap){ .off = off, .control = ctl, .table = table, .table_off = table_off, .n = n };
		for (unsigned w = 0; w < 4; w++)
			saved->entry0[w] = regwin_read32(table, table_off + 4 * w);
		for (unsigned i = 0; i < n; i++)
			if (regwin_read32(table, table_off + i * MSIX_ENTRY + 12) & MSIX_VC_MASK)
				saved->masked[i / 8] |= (uint8_t)(1u << (i % 8));
	}
	for (unsigned i = 1; i < n; i++)
		regwin_write32(table, table_off + i * MSIX_ENTRY + 12, MSIX_VC_MASK);
	regwin_write32(table, table_off + 0, (uint32_t)m->addr);
	regwin_write32(table, table_off + 4, (uint32_t)(m->addr >> 32));
	regwin_write32(table, table_off + 8, m->data);
	regwin_write32(table, table_off + 12, 0);
	pci_write16(c, a, off + MSIX_CONTROL, (uint16_t)((ctl & ~MSIX_CTL_MASKALL) | MSIX_CTL_ENABLE));
	return NULL;
}

void msix_restore(struct pci_cfg *c, struct pci_addr a, struct msix_cap *saved)
{
	if (!saved->off)
		return;
	uint16_t off = saved->off;
	pci_write16(c, a, off + MSIX_CONTROL, (uint16_t)(saved->control | MSIX_CTL_ENABLE | MSIX_CTL_MASKALL));
	for (unsigned w = 0; w < 4; w++)
		regwin_write32(saved->table, saved->table_off + 4 * w, saved->entry0[w]);
	for (unsigned i = 1; i < saved->n; i++)
		regwin_write32(saved->table, saved->table_off + i * MSIX_ENTRY + 12,
			       (saved->masked[i / 8] >> (i % 8)) & 1u ? MSIX_VC_MASK : 0);
	pci_restore16(c, a, off + MSIX_CONTROL, saved->control);
	saved->off = 0;
}
