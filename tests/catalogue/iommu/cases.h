/* The IOMMU cases every backend runs (shared.c), written once against the
 * iommu and DMA engine interfaces. A backend's group (vtd.c, calgary.c,
 * dart.c, apple.c) lists them beside its own cases, each with an argument
 * saying which bench it runs on and what sets it apart. */
#ifndef IOMMON_IOMMU_CASES_H
#define IOMMON_IOMMU_CASES_H

#include <stddef.h>
#include <stdint.h>

#include "core/base/macros.h"
#include "core/monitor/runner.h"

/* A shared case's `.arg`. */
struct iommu_case_arg {
	const char *backend; /* the bench (bench_setup): "vtd", "calgary"... */
	uint64_t page;	     /* case_translate: the leaf size; 0: the unit's smallest */
	const char *kind;    /* case_invalidate: the kind's name ("queued-page") */
	const char *mode;    /* the unit's translation mode (io->modes); NULL: its default */
};

/* DMA both ways through leaves of one size at an IOVA far from the page;
 * the backend's own walk (iova_to_phys) must agree. */
void case_translate(struct test_ctx *t);
/* A forbidden DMA faults: the record is right in what the unit records,
 * memory is unchanged, the interrupt comes (where there is one). */
void case_write_read_only(struct test_ctx *t);
void case_read_not_present(struct test_ctx *t);
/* A page entry repointed without invalidating: is the stale one used? */
void case_stale(struct test_ctx *t);
/* The same with one invalidation kind: the DMA must reach the new page. */
void case_invalidate(struct test_ctx *t);
/* DMA latency: translation off, pass-through, warm and cold caches. */
void case_latency(struct test_ctx *t);
/* CPU cycles per page to map and to unmap. */
void case_map_cost(struct test_ctx *t);

/* A take-over's words on its bystanders (bench_bystanders: `tried`, of
 * which `fine` worked): "N of M bystander engines fine", or, when none was
 * tried, that there was none, since then nothing was claimed of one. */
const char *bystanders_said(size_t fine, size_t tried, char *buf, size_t n);

/* A backend's group applies where the machine has a unit it drives, or
 * its model is attached (bench.c); a backend that drives only its model
 * (no `open`) applies with the model alone. */
bool bench_applies(const struct test_group *g, enum skip_reason *reason, char *why, size_t cap);
/* A test_group's case_applies for groups whose cases' arguments are all
 * struct iommu_case_arg (or NULL): a mode the unit does not offer. */
bool bench_mode_applies(const struct test_group *g, const struct test_case *tc, enum skip_reason *reason, char *why,
			size_t cap);

/* What `describe` says of the shared cases (shared.c) and the interrupt
 * remapping ones (ir.c, ir_ioapic.c). */
extern const struct test_doc iommu_shared_docs[];
extern const struct test_doc iommu_ir_docs[];

/* A backend's group, made of its `cases` table and its `docs` (its own
 * cases described): id_group, which the composition root lists by the
 * backend's name (iommu/backends.h); the group is called `id`, as are its
 * tests' names' prefix and the backend. */
#define IOMMU_BACKEND_CASES(id, summary_) IOMMU_BACKEND_CASES_ASKED(id, summary_, NULL)
/* The same with a case_applies (bench_mode_applies where every case's
 * argument is a struct iommu_case_arg). */
#define IOMMU_BACKEND_CASES_ASKED(id, summary_, case_applies_)                                            \
	const struct test_group id##_group = {                                                            \
		.name = #id,                                                                              \
		.summary = summary_,                                                                      \
		.cases = cases,                                                                           \
		.n = ARRAY_SIZE(cases),                                                                   \
		.applies = bench_applies,                                                                 \
		.case_applies = case_applies_,                                                            \
		.docs = (const struct test_doc *const[]){ docs, iommu_shared_docs, iommu_ir_docs, NULL }, \
	}

#endif
