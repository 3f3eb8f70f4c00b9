/* The models `model` attaches, through the family table (tests/models):
 * every kind's driver walks its tables where the model's DMA goes, every
 * injected fault fails the first operation it breaks with its code, and
 * the table refuses what no family offers. */
#include "unit.h"

#include "../../core/timing.h"
#include "../host/platform_host.h"
#include "../models/apple_dart_model.h"
#include "../models/calgary_model.h"
#include "../models/models.h"

static int setup(void **state)
{
	(void)state;
	platform = &host_platform;
	timing.tsc_hz = 3000000000ull;
	return 0;
}

/* The attached kind taken over, the engine's device in a domain. */
static struct iommu *open_kind(const char *kind, const char *fault, struct model_engine **m)
{
	assert_null(model_attach(kind, fault));
	struct dma_engine *e;
	struct iommu *io = model_unit(&e);
	assert_non_null(io);
	*m = (struct model_engine *)e;
	return io;
}

/* iova_to_phys walks the tables as the hardware does: where it says a DMA
 * lands, with which permissions, the model's DMA lands there too (a DART
 * entry has no permission bits: read and write alike). */
static void walk_matches_dma(void **state)
{
	(void)state;
	for (size_t k = 0; model_kind_at(k); k++) {
		struct model_engine *m;
		struct iommu *io = open_kind(model_kind_at(k), "none", &m);
		assert_null(io->ops->take(io));
		assert_null(io->ops->attach(io, m->e.addr, IOMMU_TRANSLATE));
		uint64_t pg = io->page_sizes & -io->page_sizes, base = 16ull << 20;
		static const unsigned perms[] = { IOMMU_RW, IOMMU_R, IOMMU_W, IOMMU_RW };
		for (unsigned i = 0; i < 4; i++)
			assert_null(io->ops->map(io, base + i * pg, 0x40000000ull + i * pg, pg, perms[i], pg));
		assert_null(io->ops->unmap(io, base + 3 * pg, pg));
		assert_null(io->ops->invalidate(io, 0, base, 4 * pg));
		const uint64_t iovas[] = { base + 0x10, base + pg + pg - 8, base + 2 * pg, base + 3 * pg,
					   base + 9 * pg };
		for (size_t i = 0; i < sizeof(iovas) / sizeof(iovas[0]); i++) {
			uint64_t phys = 0, page = 0, rd = 0, wr = 0;
			unsigned perm = 0;
			bool walked = io->ops->iova_to_phys(io, iovas[i], &phys, &perm, &page);
			bool r = m->translate(m->model, iovas[i], false, &rd);
			bool w = m->translate(m->model, iovas[i], true, &wr);
			assert_int_equal(walked, r || w);
			if (!walked)
				continue;
			assert_int_equal(perm, (r ? IOMMU_R : 0u) | (w ? IOMMU_W : 0u));
			assert_int_equal(phys, r ? rd : wr);
			assert_int_equal(page, pg);
		}
		struct iommu_fault f[4];
		bool ovf;
		io->ops->faults(io, f, 4, &ovf); /* the refused DMAs' records */
		assert_null(io->ops->give_back(io));
		assert_false(io->ops->iova_to_phys(io, base, &(uint64_t){ 0 }, &(unsigned){ 0 }, &(uint64_t){ 0 }));
		char what[160];
		assert_int_equal(model_violations(what, sizeof(what)), 0);
		model_detach();
	}
}

/* Every fault a family offers: it attaches, and the first operation it
 * breaks (take, attach, an invalidation) fails with its code. */
static void faults_give_their_codes(void **state)
{
	(void)state;
	static const struct {
		const char *kind, *fault;
		enum iommu_err take, later; /* later: attach, then an invalidation */
	} cases[] = {
		{ "calgary", "split-queue-stuck", IOMMU_OK, IOMMU_ERR_TIMEOUT },
		{ "calioc2", "split-queue-stuck", IOMMU_OK, IOMMU_ERR_TIMEOUT },
		{ "calioc2", "softstop-fault", IOMMU_OK, IOMMU_OK }, /* retried, then flushed */
		{ "calioc2", "softstop-forever", IOMMU_OK, IOMMU_ERR_ABANDONED },
		{ "calgary", "all-ones", IOMMU_ERR_UNUSABLE, IOMMU_OK },
		{ "dart-u4", "flush-deaf", IOMMU_OK, IOMMU_OK }, /* cleared and set again */
		{ "dart-u3", "flush-stuck", IOMMU_ERR_TIMEOUT, IOMMU_OK },
		{ "dart-u4", "all-ones", IOMMU_ERR_UNUSABLE, IOMMU_OK },
		{ "apple-t6000", "busy-stuck", IOMMU_OK, IOMMU_ERR_TIMEOUT },
		{ "apple-t8110", "busy-stuck", IOMMU_OK, IOMMU_ERR_TIMEOUT },
		{ "apple-t8110", "locked", IOMMU_ERR_FIRMWARE, IOMMU_OK },
		{ "apple-t8103", "all-ones", IOMMU_ERR_UNUSABLE, IOMMU_OK },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct model_engine *m;
		struct iommu *io = open_kind(cases[i].kind, cases[i].fault, &m);
		io->err = IOMMU_OK;
		const char *why = io->ops->take(io);
		assert_int_equal(io->err, cases[i].take);
		if (!why) {
			why = io->ops->attach(io, m->e.addr, IOMMU_TRANSLATE);
			if (!why)
				why = io->ops->invalidate(io, 0, 0, 0);
			assert_int_equal(io->err, cases[i].later);
		}
		assert_int_equal(why != NULL, cases[i].take || cases[i].later);
		model_detach();
	}
}

/* The table: the kinds it lists, and what it refuses. */
static void table_lookups(void **state)
{
	(void)state;
	size_t n = 0;
	while (model_kind_at(n))
		n++;
	assert_int_equal(n, 7);
	assert_non_null(model_attach("dart-u3", "softstop-fault"));   /* another family's fault */
	assert_non_null(model_attach("calgary", "softstop-forever")); /* CalIOC2's only */
	assert_non_null(model_attach("calgary", "no-such-fault"));
	assert_non_null(model_attach("no-such-model", "none"));
	assert_null(model_attached_kind());
	assert_null(model_attach("apple-t8110", "none"));
	assert_string_equal(model_attached_kind(), "apple-t8110");
	assert_non_null(model_apple());
	assert_null(model_calgary());
	assert_null(model_attach("none", "none")); /* detaches */
	assert_null(model_attached_kind());
	assert_null(model_apple());
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(walk_matches_dma),
		cmocka_unit_test(faults_give_their_codes),
		cmocka_unit_test(table_lookups),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
