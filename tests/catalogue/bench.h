/* The bench the IOMMU cases run on: an IOMMU taken over and a DMA engine
 * behind it, the device under test in a domain of its own. Shared by the
 * per-backend cases (iommu.c) and the price of safety (price.c). */
#ifndef IOMMON_BENCH_H
#define IOMMON_BENCH_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "../../core/dmabuf.h"
#include "../../core/runner.h"
#include "../../iommu/iommu.h"
#include "../../pci/dma.h"

struct env {
	struct test_ctx *t;
	bool machine; /* the machine's own unit (given back through machine.c) */
	struct dma_engine *e;
	struct iommu *io;
	uint64_t limit;	   /* buffers below this (the device's reach) */
	unsigned bits;	   /* IOVAs below 2^bits */
	size_t len;	   /* the transfer size the cases use */
	const char *label; /* "nvme", "edu" */
	uint64_t pg;	   /* the unit's smallest page: what the cases map */
	uint64_t t_take;
};

/* Takes over the unit behind the device under test: `backend` "vtd" (the
 * machine's), a model's backend ("calgary", "dart", "apple"), or NULL for
 * the one the test's group names. False, with the test skipped or failed,
 * when there is none or it could not be taken. */
bool bench_setup(struct test_ctx *t, struct env *v, const char *backend);
/* Gives the unit back (a claim that it went back as found). */
void bench_teardown(struct env *v);
/* The device under test in its own empty domain, its own queues mapped. */
const char *bench_translate(struct env *v);
/* The slot-th usable IOVA window of `size`, counting down from the top. */
uint64_t bench_window(const struct env *v, uint64_t size, unsigned slot);
bool bench_dma(struct env *v, enum dma_dir dir, uint64_t iova, size_t len, struct dma_result *r);
/* The first invalidation kind of a granularity, or (size_t)-1. */
size_t bench_kind_for(const struct iommu *io, const char *gran);
/* The narrowest invalidation the unit offers that covers the range. */
const char *bench_invalidate(struct env *v, const char *gran, uint64_t iova, uint64_t size);

static inline bool bench_is(const struct env *v, const char *backend)
{
	return strcmp(v->io->backend, backend) == 0;
}

static inline bool bench_changed(const struct dmabuf *b, uint32_t seed)
{
	return dmabuf_check_pattern(b, seed) >= 0;
}

#endif
