/* The stale-translation probe (tests/catalogue/iommu/stale.c) on every
 * model: a probe whose DMA fails says the engine's own words after it
 * returns. They were once a pointer into the probe's dead stack frame, and
 * QEMU 11.1 under load printed them as "@???@???" in a result's detail. */
#include "unit.h"

#include "core/base/timing.h"
#include "iommu/backend.h"
#include "iommu/models/models.h"
#include "tests/catalogue/bench.h"
#include "tests/host/platform_host.h"

static int setup(void **state)
{
	(void)state;
	platform = &host_platform;
	timing.tsc_hz = 3000000000ull;
	return 0;
}

/* Repoints nothing: the IOVA is unmapped and invalidated, so the DMA
 * after it is refused by the unit and the engine says so. */
static const char *unmap_only(struct env *v, uint64_t iova, uint64_t phys, size_t arg)
{
	(void)phys, (void)arg;
	const char *e = v->io->ops->unmap(v->io, iova, v->pg);
	return e ? e : bench_invalidate(v, "page", iova, v->pg);
}

/* Writes over the stack below the caller, where a returned function's
 * frame lay. */
static __attribute__((noinline)) void scribble(void)
{
	volatile char junk[16384];
	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = (char)0x40;
}

static void a_failed_dma_keeps_its_words(void **state)
{
	(void)state;
	for (size_t k = 0; model_kind_at(k); k++) {
		const char *kind = model_kind_at(k);
		assert_null(model_attach(kind, "none"));
		struct dma_engine *e;
		struct iommu *io = model_unit(&e);
		assert_non_null(io);
		/* as bench_setup sets a bench up */
		struct test_ctx t = { 0 };
		struct env v = { .t = &t, .e = e, .io = io, .label = "model" };
		v.pg = io->page_sizes & -io->page_sizes;
		v.bits = e->caps.addr_bits < io->addr_bits ? e->caps.addr_bits : io->addr_bits;
		v.len = e->caps.max_len < 4096 ? e->caps.max_len : 4096;
		v.limit = io->addr_bits >= e->caps.addr_bits ? 1ull << (v.bits - 1) : 1ull << e->caps.addr_bits;
		if (dma_ram_below(v.limit, v.len))
			v.limit = 0;
		assert_null(io->ops->take(io));
		assert_null(bench_translate(&v));
		const struct stale_way way = { unmap_only, NULL, 0 };
		struct stale s;
		bench_stale(&v, &way, &s);
		scribble();
		if (!s.err)
			fail_msg("%s: the DMA to an unmapped IOVA went through", kind);
		/* the model engine's words for a refused DMA (iommu/models/engine.c) */
		if (!strstr(s.err, "master-aborted"))
			fail_msg("%s: the probe's error reads \"%.40s\"", kind, s.err);
		io->ops->give_back(io);
		model_detach();
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_failed_dma_keeps_its_words),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
