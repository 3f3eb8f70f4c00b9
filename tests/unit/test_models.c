/* The models `model` attaches, through the family table (tests/models):
 * every kind's driver walks its tables where the model's DMA goes, every
 * injected fault fails the first operation it breaks with its code, and
 * the table refuses what no family offers. */
#include "unit.h"

#include "../../core/timing.h"
#include "../../iommu/backend.h"
#include "../host/platform_host.h"
#include "../models/models.h"

static bool fault_offered(const struct model_family *f, const char *name)
{
	for (const struct model_fault *x = f->faults; x->name; x++)
		if (strcmp(x->name, name) == 0)
			return true;
	return false;
}

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
		if (model_violations(what, sizeof(what)))
			fail_msg("%s: the model saw %s", model_kind_at(k), what);
		model_detach();
	}
}

/* Every fault each family offers, on every kind it applies to, and the
 * all-ones window every family takes: it attaches, and the first
 * operation it breaks (take, attach, an invalidation) fails with the code
 * the family says its driver gives. */
static void check_fault(const char *kind, const struct model_fault *x)
{
	struct model_engine *m;
	struct iommu *io = open_kind(kind, x->name, &m);
	io->err = IOMMU_OK;
	const char *why = io->ops->take(io);
	if (io->err != x->at_take)
		fail_msg("%s with %s: take-over code %d, the family says %d", kind, x->name, io->err, x->at_take);
	if (!why) {
		why = io->ops->attach(io, m->e.addr, IOMMU_TRANSLATE);
		if (!why)
			why = io->ops->invalidate(io, 0, 0, 0);
		if (io->err != x->after)
			fail_msg("%s with %s: code %d after take-over, the family says %d", kind, x->name, io->err,
				 x->after);
	}
	assert_int_equal(why != NULL, x->at_take || x->after);
	model_detach();
}

static void faults_give_their_codes(void **state)
{
	(void)state;
	static const struct model_fault all_ones = { "all-ones", "", NULL, NULL, IOMMU_ERR_UNUSABLE, IOMMU_OK };
	size_t checked = 0;
	const struct model_family *f;
	for (size_t i = 0; (f = iommu_registry_model(i)) != NULL; i++)
		for (const char *const *kind = f->kinds; *kind; kind++) {
			check_fault(*kind, &all_ones);
			checked++;
			for (const struct model_fault *x = f->faults; x->name; x++)
				if (!x->only || strcmp(x->only, *kind) == 0)
					check_fault(*kind, x), checked++;
		}
	assert_true(checked >= 10);
}

/* The family of `kind`, and one that is not. */
static const struct model_family *family_of(const char *kind, const struct model_family **other)
{
	const struct model_family *f, *mine = NULL;
	*other = NULL;
	for (size_t i = 0; (f = iommu_registry_model(i)) != NULL; i++) {
		bool has = false;
		for (const char *const *k = f->kinds; *k; k++)
			has |= strcmp(*k, kind) == 0;
		if (has)
			mine = f;
		else
			*other = f;
	}
	return mine;
}

/* The table: the kinds it lists (every family's), and what it refuses. */
static void table_lookups(void **state)
{
	(void)state;
	size_t n = 0, listed = 0;
	while (model_kind_at(n))
		n++;
	const struct model_family *f;
	for (size_t i = 0; (f = iommu_registry_model(i)) != NULL; i++)
		for (const char *const *k = f->kinds; *k; k++)
			listed++;
	assert_int_equal(n, listed);
	assert_true(n >= 2);
	assert_non_null(model_attach(model_kind_at(0), "no-such-fault"));
	assert_non_null(model_attach("no-such-model", "none"));
	assert_null(model_attached_kind());
	/* a fault only one kind takes is refused on its family's other kinds */
	for (size_t i = 0; (f = iommu_registry_model(i)) != NULL; i++)
		for (const struct model_fault *x = f->faults; x->name; x++)
			for (const char *const *k = f->kinds; x->only && *k; k++)
				if (strcmp(*k, x->only) != 0)
					assert_non_null(model_attach(*k, x->name));
	const char *last = model_kind_at(n - 1);
	const struct model_family *other, *mine = family_of(last, &other);
	assert_non_null(mine);
	assert_null(model_attach(last, "none"));
	assert_string_equal(model_attached_kind(), last);
	assert_non_null(model_attached_state(mine, false));
	assert_non_null(model_attached_state(mine, true));
	if (other) {
		assert_null(model_attached_state(other, false));
		/* another family's own fault does not apply to this kind */
		for (const struct model_fault *x = other->faults; x->name; x++)
			if (!fault_offered(mine, x->name))
				assert_non_null(model_attach(last, x->name));
	}
	assert_null(model_attach("none", "none")); /* detaches */
	assert_null(model_attached_kind());
	assert_null(model_attached_state(mine, false));
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
