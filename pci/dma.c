#include "dma.h"

#include <stdio.h>

#include "../core/dmabuf.h"
#include "../core/memmap.h"
#include "../core/platform.h"

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
	for (size_t i = 0; i < sizeof(drivers) / sizeof(drivers[0]); i++) {
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
