/* Group `apple`: Apple's DART in its T8020 (t8103, t6000) and T8110
 * layouts, on the register-level model `model apple-...` attached. The
 * group lists the shared cases (cases.h) with their arguments, and Apple's
 * own: an invalidation whose TLB_CMD never finishes. */
#include "cases.h"
#include "iommu/apple_dart/apple_dart.h"
#include "iommu/apple_dart/model.h"
#include "iommu/backend.h"
#include "iommu/models/models.h"
#include "tests/catalogue/bench.h"
#include "tests/catalogue/catalogue.h"

/* A TLB invalidation that stays busy: named after its deadline, and the
 * DART goes on. */
static void t_flush_faults(struct test_ctx *t)
{
	struct env v;
	if (!bench_setup(t, &v, "apple"))
		return;
	struct apple_dart_model *am = model_apple(); /* the bench is the attached Apple DART model */
	am->busy_stuck = true;
	bench_flush_fault(&v, "an invalidation that never finishes", IOMMU_ERR_TIMEOUT);
	am->busy_stuck = false;
	bench_flush_recovers(&v);
	bench_teardown(&v);
}

static const struct iommu_case_arg on_apple = { "apple" }, stream = { "apple", .kind = "stream" },
				   all = { "apple", .kind = "all" };

static const struct test_case cases[] = {
	{ "apple.translate_16k", "DMA both ways through the stream's two-level table at the DART's page size",
	  case_translate, false, &on_apple },
	{ "apple.write_read_only", "a device write to a no-write page faults: ERROR names the address",
	  case_write_read_only, false, &on_apple },
	{ "apple.read_not_present", "a device read of an unmapped IOVA faults (no PTE)", case_read_not_present, false,
	  &on_apple },
	{ "apple.stale_tlb", "rewrite an entry without invalidating: is the cached one used? (finding)", case_stale,
	  false, &on_apple },
	{ "apple.invalidate_stream", "the stream's TLB invalidation: DMA reaches the new page", case_invalidate, false,
	  &stream },
	{ "apple.invalidate_all", "every stream's TLB invalidated: DMA reaches the new page", case_invalidate, false,
	  &all },
	{ "apple.flush_faults", "an invalidation that never finishes: named after its 100 us", t_flush_faults },
	{ "apple.latency", "DMA latency: bypass, warm and cold TLB", case_latency, false, &on_apple },
	{ "apple.map_cost", "CPU cycles per page to map and to unmap (two-level table, cache-line flush)",
	  case_map_cost, false, &on_apple },
};

static const struct test_doc docs[] = {
	{ t_flush_faults,
	  "an invalidation whose busy bit never clears: named as timed out after its 100 us, and the DART "
	  "carries on",
	  "a hang (caught by the deadline) or an unnamed error: a driver could not tell a wedged DART from a "
	  "slow one" },
	{ NULL },
};

IOMMU_BACKEND_CASES(apple, "Apple DART, T8020 (t8103, t6000) and T8110 layouts (on the register-level model)");
