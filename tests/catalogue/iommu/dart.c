/* Group `dart`: the PowerPC DART (U3, U4), on the register-level model
 * `model dart-u3` or `model dart-u4` attached (no emulator has one). The
 * group lists the shared cases (cases.h) with their arguments, and the
 * DART's own: Linux's invalidate-on-map strategy, the dummy-page scheme
 * that hides the faults invalid entries show, and faults injected into
 * FLUSHTLB. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cases.h"
#include "core/base/platform.h"
#include "core/base/timing.h"
#include "iommu/backend.h"
#include "iommu/dart/dart.h"
#include "iommu/dart/model.h"
#include "iommu/models/models.h"
#include "tests/catalogue/bench.h"
#include "tests/catalogue/catalogue.h"

/* Linux's DART scheme: invalidate on map (U4: one entry; U3: all), never on
 * unmap. A page mapped again is right at once; a page only unmapped stays
 * reachable until something else flushes. */
static void t_flush_on_map(struct test_ctx *t)
{
	struct env v;
	if (!bench_setup(t, &v, "dart"))
		return;
	struct dmabuf a = { 0 }, b = { 0 };
	const size_t n = 64;
	uint64_t *mc = malloc(n * sizeof(*mc));
	if (!mc || !dmabuf_alloc_in(&a, v.len, 0, v.limit, v.pg) || !dmabuf_alloc_in(&b, v.len, 0, v.limit, v.pg)) {
		report(t, false, "no memory");
		goto out;
	}
	size_t one = bench_kind_for(v.io, "page"), kind = one != (size_t)-1 ? one : bench_kind_for(v.io, "global");
	uint64_t io = bench_window(&v, v.pg, 0), iova = io + (a.phys & (v.pg - 1));
	const char *e = NULL;
	size_t got = 0;
	bool right = true;
	struct dma_result r;
	for (size_t i = 0; i < n && !e && !test_stopped(t); i++) {
		struct dmabuf *to = i % 2 ? &b : &a;
		uint32_t seed = 100 + (uint32_t)i;
		dmabuf_pattern(&a, seed), dmabuf_pattern(&b, seed + 1000);
		struct timed tr;
		timed_begin(&tr);
		e = v.io->ops->map(v.io, io, to->phys & ~(v.pg - 1), v.pg, IOMMU_RW, v.pg);
		if (!e)
			e = v.io->ops->invalidate(v.io, kind, io, v.pg);
		mc[got] = timed_end(&tr);
		got += !e;
		if (!e && !bench_dma(&v, DMA_FROM_DEVICE, iova, v.len, &r))
			e = r.error;
		right = right && !e && bench_changed(to, i % 2 ? seed + 1000 : seed) &&
			!bench_changed(i % 2 ? &a : &b, i % 2 ? seed : seed + 1000);
		if (!e)
			e = v.io->ops->unmap(v.io, io, v.pg); /* no invalidation: the next map's takes care */
	}
	report(t, !e, "%zu maps, each followed by a %s invalidation%s%s", got, v.io->kinds[kind].name, e ? ": " : "",
	       e ? e : "");
	report(t, right, "every DMA after a map reached the page just mapped, alternating A and B");
	if (got) {
		char variant[48];
		snprintf(variant, sizeof(variant), "%s-flush-on-map", v.label);
		struct measure m = { .path = "map",
				     .backend = v.io->backend,
				     .variant = variant,
				     .unit = "cycles",
				     .model = v.io->model,
				     .note = "map one page and invalidate it (Linux's DART strategy); on a model: CPU "
					     "cycles, not the hardware's time" };
		test_measure(t, &m, mc, got);
	}
	test_note(t, "%s: flush on map, %zu maps", v.label, got);
out:
	free(mc);
	dmabuf_free(&a);
	dmabuf_free(&b);
	bench_teardown(&v);
}

/* The dummy-page scheme Linux used: a DMA to an unmapped IOVA lands in the
 * dummy page and nothing records it. With invalid entries the same DMA is
 * refused and EXCP says so. */
static void t_dummy_hides_faults(struct test_ctx *t)
{
	struct env v;
	if (!bench_setup(t, &v, "dart"))
		return;
	struct dart *d = model_dart_driver(); /* the bench is the attached DART model's driver */
	bool was = d->dummy_scheme;
	uint64_t iova = bench_window(&v, v.pg, 0);
	struct dma_result r;
	struct iommu_fault f[2];
	bool ovf;
	const char *e = NULL;
	bool hidden = false, seen = false;
	for (int dummy = 1; dummy >= 0 && !e; dummy--) {
		v.io->ops->give_back(v.io);
		dart_set_scheme(d, dummy);
		e = v.io->ops->take(v.io);
		if (e)
			break;
		v.io->ops->faults(v.io, f, 2, &ovf);
		if (dummy)
			memset(d->dummy, 0, PAGE_SIZE);
		v.e->transfer(v.e, DMA_FROM_DEVICE, iova, 256, &r);
		size_t nf = v.io->ops->faults(v.io, f, 2, &ovf);
		if (dummy) {
			bool landed = false;
			for (size_t i = 0; i < 256 && !landed; i++)
				landed = d->dummy[i] != 0;
			hidden = r.status == DMA_OK && nf == 0 && landed;
			report(t, hidden, "dummy-page scheme: the stray DMA %s, %s in EXCP, %s the dummy page",
			       r.status == DMA_OK ? "completed" : "was refused", nf ? "recorded" : "nothing",
			       landed ? "its data in" : "nothing in");
		} else {
			seen = r.status != DMA_OK && nf >= 1;
			report(t, seen, "invalid-entry scheme: the same DMA was refused and EXCP recorded it (0x%08x)",
			       nf ? f[0].reason : 0);
		}
	}
	report(t, !e, "the DART taken over with each scheme%s%s", e ? ": " : "", e ? e : "");
	if (hidden && seen)
		test_finding(t, "the dummy page hides faults that invalid entries show");
	else
		printf("    the dummy page does not hide faults that invalid entries show\n");
	v.io->ops->give_back(v.io);
	dart_set_scheme(d, was);
	v.io->ops->take(v.io);
	test_note(t, "dummy page: fault hidden; invalid entries: fault in EXCP");
	bench_teardown(&v);
}

/* Faults injected into FLUSHTLB: a set the DART missed is set again; one
 * that never clears gives its named error after a bounded number of reads,
 * and the DART goes on. */
static void t_flush_faults(struct test_ctx *t)
{
	struct env v;
	if (!bench_setup(t, &v, "dart"))
		return;
	struct dart_model *dm = model_dart(); /* the bench is the attached DART model */
	dm->deaf_sets = 1;
	bench_flush_rides_out(&v, &dm->deaf_sets, "a FLUSHTLB set the DART missed: cleared, set again, done");
	dm->flush_stuck = true;
	bench_flush_fault(&v, "FLUSHTLB that never clears", IOMMU_ERR_TIMEOUT);
	dm->flush_stuck = false;
	bench_flush_recovers(&v);
	bench_teardown(&v);
}

static const struct iommu_case_arg on_dart = { "dart" }, leaf_4k = { "dart", 1ull << 12 },
				   all = { "dart", .kind = "all" }, one = { "dart", .kind = "one" };

static const struct test_case cases[] = {
	{ "dart.translate_4k", "DMA both ways through DART entries at the top of its IO space", case_translate, false,
	  &leaf_4k },
	{ "dart.write_read_only", "entries are valid or not: there is no read-only page", case_write_read_only, false,
	  &on_dart },
	{ "dart.read_not_present", "a device read through an invalid entry shows in EXCP", case_read_not_present, false,
	  &on_dart },
	{ "dart.stale_tlb", "rewrite an entry without flushing: is the cached one used? (finding)", case_stale, false,
	  &on_dart },
	{ "dart.invalidate_all", "FLUSHTLB with Linux's escalation: DMA reaches the new page", case_invalidate, false,
	  &all },
	{ "dart.invalidate_one", "U4's invalidate-one: DMA reaches the new page", case_invalidate, false, &one },
	{ "dart.flush_on_map", "Linux's strategy: invalidate on map, never on unmap", t_flush_on_map },
	{ "dart.dummy_page_hides_faults", "the dummy-page scheme hides the faults invalid entries show",
	  t_dummy_hides_faults },
	{ "dart.flush_faults", "a missed FLUSHTLB and one that never clears: named, and the DART carries on",
	  t_flush_faults },
	{ "dart.latency", "DMA latency: translation off, warm and cold TLB", case_latency, false, &on_dart },
	{ "dart.map_cost", "CPU cycles per page to map and to unmap (big-endian entry and cache-line flush)",
	  case_map_cost, false, &on_dart },
};

static const struct test_doc docs[] = {
	{ t_flush_on_map,
	  "Linux's DART strategy on the model: the TLB is flushed when a mapping is made, never when it is "
	  "removed; the pages unmapped meanwhile are probed by DMA and counted as still reachable (the exposure)",
	  "a DMA through a fresh mapping that reaches the old page means the flush on map did not take effect; "
	  "the exposure count is a figure, not a failure" },
	{ t_dummy_hides_faults,
	  "the two ways to refuse a DMA: entries pointing at a dummy page (the DMA lands there, no fault) and "
	  "invalid entries (refused, EXCP records it); which hides faults is recorded as a finding",
	  "an invalid entry that lets the DMA through, or a refusal EXCP does not record" },
	{ t_flush_faults,
	  "a FLUSHTLB that is missed and one whose busy bit never clears: each named within its deadline, and "
	  "the DART carries on translating",
	  "a hang (caught by the deadline) or an error that names nothing" },
	{ NULL },
};

IOMMU_BACKEND_CASES(dart, "PowerPC DART U3/U4 (on the register-level model unless the machine has one)");
