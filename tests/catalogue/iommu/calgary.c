/* Group `calgary`: IBM Calgary and CalIOC2, on the register-level model
 * `model calgary` or `model calioc2` attached (no emulator has one). The
 * group lists the shared cases (cases.h) with their arguments, and
 * Calgary's own: Linux's flush when the allocator wraps, with the exposure
 * it buys its speed with, and faults injected into the flush handshake
 * (a split queue that never quiesces, CalIOC2's SoftStopFault). */
#include <stdio.h>
#include <stdlib.h>

#include "cases.h"
#include "core/base/timing.h"
#include "iommu/backend.h"
#include "iommu/calgary/calgary.h"
#include "iommu/calgary/model.h"
#include "iommu/models/models.h"
#include "tests/catalogue/bench.h"
#include "tests/catalogue/catalogue.h"

/* Linux's Calgary scheme: a next-fit allocator over a window of IO pages;
 * unmapping only zeroes the TCE; the cache is flushed when the allocator
 * wraps. Until then a freed page stays reachable through the TCE cache:
 * the exposure the seed paper's deferred flush buys its speed with. */
static void t_flush_on_wrap(struct test_ctx *t)
{
	struct env v;
	if (!bench_setup(t, &v, "calgary"))
		return;
	const unsigned W = 32, N = 96;
	struct dmabuf a = { 0 };
	uint64_t *fl = malloc(N * sizeof(*fl));
	if (!fl || !dmabuf_alloc_in(&a, v.len, 0, v.limit, v.pg)) {
		report(t, false, "no memory");
		free(fl);
		bench_teardown(&v);
		return;
	}
	uint64_t base = bench_window(&v, W * v.pg, 0);
	unsigned exposed = 0, freed = 0, flushes = 0, errors = 0;
	const char *e = NULL;
	struct dma_result rd, probe; /* outside the loop: e may point into rd's words after */
	for (unsigned i = 0; i < N && !e && !test_stopped(t); i++) {
		uint64_t io = base + (i % W) * v.pg, iova = io + (a.phys & (v.pg - 1));
		e = v.io->ops->map(v.io, io, a.phys & ~(v.pg - 1), v.pg, IOMMU_RW, v.pg);
		if (!e && !bench_dma(&v, DMA_FROM_DEVICE, iova, v.len, &rd))
			e = rd.error;
		if (!e)
			e = v.io->ops->unmap(v.io, io, v.pg);
		/* the freed page, probed: does the device still get through? */
		v.e->transfer(v.e, DMA_FROM_DEVICE, iova, v.len, &probe);
		freed++;
		exposed += probe.status == DMA_OK;
		struct iommu_fault f[2];
		bool ovf;
		v.io->ops->faults(v.io, f, 2, &ovf);
		if (i % W == W - 1) { /* the allocator wraps: the one flush */
			struct timed tr;
			timed_begin(&tr);
			const char *fe = v.io->ops->invalidate(v.io, 0, base, W * v.pg);
			fl[flushes++] = timed_end(&tr);
			errors += fe != NULL;
		}
	}
	report(t, !e, "%u DMAs through a %u-page window, unmapped without flushing%s%s", freed, W, e ? ": " : "",
	       e ? e : "");
	report(t, errors == 0, "%u flushes, one per wrap, all completed", flushes);
	/* after the wrap's flush no freed page may be reachable */
	struct dma_result r;
	v.e->transfer(v.e, DMA_FROM_DEVICE, base + (a.phys & (v.pg - 1)), v.len, &r);
	struct iommu_fault f[2];
	bool ovf;
	size_t nf = v.io->ops->faults(v.io, f, 2, &ovf);
	report(t, r.status != DMA_OK && nf >= 1, "after the flush a freed page faults (%s)",
	       r.status != DMA_OK ? "aborted, CSR set" : "still reachable");
	printf("    exposure: %u of %u freed pages were still reachable before the flush at the wrap\n", exposed,
	       freed);
	if (flushes) {
		char variant[48];
		snprintf(variant, sizeof(variant), "%s-flush-on-wrap", v.label);
		struct measure m = { .path = "invalidation",
				     .backend = v.io->backend,
				     .variant = variant,
				     .unit = "cycles",
				     .model = v.io->model,
				     .note = v.io->model ? "the flush sequence against the model: CPU cycles, not "
							   "the hardware's time"
							 : NULL };
		test_measure(t, &m, fl, flushes);
	}
	test_note(t, "%s: %u of %u freed pages exposed until the wrap's flush", v.label, exposed, freed);
	free(fl);
	dmabuf_free(&a);
	bench_teardown(&v);
}

/* Faults injected into the model's flush handshake: each gives its named
 * error after a bounded number of register reads, and the unit goes on. */
static void t_flush_faults(struct test_ctx *t)
{
	struct env v;
	if (!bench_setup(t, &v, "calgary"))
		return;
	struct calgary_model *cm = model_calgary(); /* the bench is the attached Calgary model */
	unsigned reads = cm->splitq_reads;
	cm->split_stuck = true;
	bench_flush_fault(&v, "a split queue that never quiesces", IOMMU_ERR_TIMEOUT);
	cm->split_stuck = false;
	printf("    the split queue was read %u times before the deadline\n", cm->splitq_reads - reads);
	if (cm->ioc2) { /* CalIOC2 reports a flush it could not do, and the driver retries */
		cm->softstop_faults = 3;
		bench_flush_rides_out(&v, &cm->softstop_faults, "SoftStopFault three times: retried, then flushed");
		cm->softstop_faults = ~0u;
		bench_flush_fault(&v, "SoftStopFault every time", IOMMU_ERR_ABANDONED);
		cm->softstop_faults = 0;
	}
	bench_flush_recovers(&v);
	bench_teardown(&v);
}

static const struct iommu_case_arg on_calgary = { "calgary" }, leaf_4k = { "calgary", 1ull << 12 },
				   flush = { "calgary", .kind = "flush" };

static const struct test_case cases[] = {
	{ "calgary.translate_4k", "DMA both ways through TCEs at the top of the PHB's IO space", case_translate, false,
	  &leaf_4k },
	{ "calgary.write_read_only", "a device write through a read-only TCE sets CSR; memory unchanged",
	  case_write_read_only, false, &on_calgary },
	{ "calgary.read_not_present", "a device read through an empty TCE sets CSR", case_read_not_present, false,
	  &on_calgary },
	{ "calgary.stale_tce", "rewrite a TCE without flushing: is the cached one used? (finding)", case_stale, false,
	  &on_calgary },
	{ "calgary.invalidate_flush", "the flush sequence (rewrite TAR in the quiet state): DMA reaches the new page",
	  case_invalidate, false, &flush },
	{ "calgary.flush_on_wrap", "Linux's deferred flush: freed pages exposed until the allocator wraps",
	  t_flush_on_wrap },
	{ "calgary.flush_faults", "injected faults in the flush handshake give named errors", t_flush_faults },
	{ "calgary.latency", "DMA latency: translation off, warm and cold TCE cache", case_latency, false,
	  &on_calgary },
	{ "calgary.map_cost", "CPU cycles per page to map and to unmap (big-endian TCE and cache-line flush)",
	  case_map_cost, false, &on_calgary },
};

static const struct test_doc docs[] = {
	{ t_flush_on_wrap,
	  "Linux's Calgary strategy on the model: unmapped TCEs are not flushed until the IOVA allocator wraps; "
	  "the pages freed meanwhile are probed by DMA and counted as still reachable (the exposure), and after "
	  "the flush at the wrap none is",
	  "a freed page still reachable after the flush at the wrap means the flush does not invalidate what "
	  "it should; the exposure count itself is a figure, not a failure" },
	{ t_flush_faults,
	  "faults injected into the TCE cache flush handshake (a flush that never completes, a PHB error) give "
	  "named errors within their deadlines, and the monitor carries on",
	  "a hang (caught by the deadline) or an error that names nothing: a driver could not tell a broken "
	  "PHB from a slow one" },
	{ NULL },
};

IOMMU_BACKEND_CASES(calgary, "IBM Calgary / CalIOC2 (on the register-level model unless the machine has one)");
