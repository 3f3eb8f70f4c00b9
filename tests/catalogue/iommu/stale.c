/* The stale-translation probe (bench.h): what the unit still translates
 * after a page entry is rewritten, before and after an invalidation, found
 * by where a DMA lands; the claims and timings the shared and the
 * backends' own cases build on it. Split from bench.c, which sets the bench
 * up. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/platform.h"
#include "core/base/timing.h"
#include "tests/catalogue/bench.h"

/* The device's data source: a roundtrip engine (edu) gets a pattern first,
 * from a mapped page; a medium (NVMe) has its own. */
static bool load_device(struct env *v, uint32_t seed)
{
	if (!v->e->caps.roundtrip)
		return true;
	struct dmabuf s;
	if (!bench_buffer(v, &s, v->len, v->pg))
		return false;
	dmabuf_pattern(&s, seed);
	uint64_t iova = bench_window(v, v->pg, 8);
	const char *e = v->io->ops->map(v->io, iova, s.phys & ~(v->pg - 1), v->pg, IOMMU_R, v->pg);
	struct dma_result r;
	bool ok = !e && bench_dma(v, DMA_TO_DEVICE, iova + (s.phys & (v->pg - 1)), v->len, &r);
	if (!e) {
		v->io->ops->unmap(v->io, iova, v->pg);
		bench_invalidate(v, "page", iova, v->pg);
	}
	dmabuf_free(&s);
	return ok;
}

static int which(const struct dmabuf *a, uint32_t sa, const struct dmabuf *b, uint32_t sb)
{
	bool ca = bench_changed(a, sa), cb = bench_changed(b, sb);
	return ca && !cb ? 'A' : cb && !ca ? 'B' : ca ? '2' : '0';
}

/* The page entry rewritten: unmap, then map the same IOVA to B. */
static const char *repoint_entry(struct env *v, uint64_t iova, uint64_t phys, size_t arg)
{
	(void)arg;
	const char *e = v->io->ops->unmap(v->io, iova, v->pg);
	return e ? e : v->io->ops->map(v->io, iova, phys, v->pg, IOMMU_RW, v->pg);
}

static const char *invalidate_kind(struct env *v, uint64_t iova, size_t kind)
{
	return v->io->ops->invalidate(v->io, kind, iova, v->pg);
}

const struct stale_way bench_stale_entry = { repoint_entry, NULL, 0 };

struct stale_way bench_stale_kind(size_t kind)
{
	return (struct stale_way){ repoint_entry, invalidate_kind, kind };
}

void bench_stale(struct env *v, const struct stale_way *way, struct stale *s)
{
	memset(s, 0, sizeof(*s));
	struct dmabuf a = { 0 }, b = { 0 };
	if (!bench_buffer(v, &a, v->len, v->pg) || !bench_buffer(v, &b, v->len, v->pg)) {
		s->err = "no memory";
		dmabuf_free(&a);
		dmabuf_free(&b);
		return;
	}
	uint64_t w0 = bench_window(v, v->pg, 2);
	uint64_t iova = w0 + (a.phys & (v->pg - 1));
	struct dma_result r;
	/* the device's data differs from every prefill pattern below (seeds 1..5) */
	const char *e = load_device(v, 0xd06) ? NULL : "loading the device's data failed";
	if (!e && (a.phys & (v->pg - 1)) != (b.phys & (v->pg - 1)))
		e = "the two buffers sit at different offsets in their pages";
	if (!e)
		e = v->io->ops->map(v->io, w0, a.phys & ~(v->pg - 1), v->pg, IOMMU_RW, v->pg);
	if (!e) {
		dmabuf_pattern(&a, 1);
		if (!bench_dma(v, DMA_FROM_DEVICE, iova, v->len, &r))
			e = r.error;
		else if (!bench_changed(&a, 1))
			e = "the first DMA did not reach A";
	}
	if (!e) /* without telling the unit */
		e = way->repoint(v, w0, b.phys & ~(v->pg - 1), way->arg);
	if (!e) {
		dmabuf_pattern(&a, 2), dmabuf_pattern(&b, 3);
		if (!bench_dma(v, DMA_FROM_DEVICE, iova, v->len, &r))
			e = r.error;
		s->before = which(&a, 2, &b, 3);
	}
	if (!e && way->invalidate) {
		uint64_t t0 = cycles_begin();
		e = way->invalidate(v, w0, way->arg);
		s->inval_cycles = cycles_end() - t0;
		if (!e) {
			dmabuf_pattern(&a, 4), dmabuf_pattern(&b, 5);
			if (!bench_dma(v, DMA_FROM_DEVICE, iova, v->len, &r))
				e = r.error;
			s->after = which(&a, 4, &b, 5);
		}
	}
	if (dmabuf_guards_damaged(&a) + dmabuf_guards_damaged(&b))
		e = e ? e : "guard bytes around A or B were written";
	v->io->ops->unmap(v->io, w0, v->pg);
	bench_invalidate(v, "page", w0, v->pg);
	if (e == r.error) { /* r is gone when the caller reads it */
		snprintf(s->err_text, sizeof(s->err_text), "%s", r.error);
		e = s->err_text;
	}
	s->err = e;
	dmabuf_free(&a);
	dmabuf_free(&b);
}

static const char *landed(int c)
{
	return c == 'A' ? "A (the old page: stale)" : c == 'B' ? "B (the new page)" : c == '2' ? "both" : "neither";
}

void bench_stale_finding(struct env *v, const struct stale_way *way, const char *how, const char *what)
{
	struct stale s;
	bench_stale(v, way, &s);
	report(v->t, !s.err, "map A, DMA, %s, DMA%s%s", how, s.err ? ": " : "", s.err ? s.err : "");
	if (s.err)
		return;
	report(v->t, s.before == 'A' || s.before == 'B', "the second DMA landed in exactly one page: %s",
	       landed(s.before));
	if (s.before == 'A')
		test_finding(v->t, "the unit USED the %s (the spec allows either)", what);
	else
		printf("    the unit did not use the %s (the spec allows either)\n", what);
	test_note(v->t, "%s: %s %s", v->label, what, s.before == 'A' ? "used (finding)" : "not used");
}

bool bench_stale_invalidated(struct env *v, const struct stale_way *way, const char *how, const char *name)
{
	struct stale s;
	bench_stale(v, way, &s);
	report(v->t, !s.err, "map A, DMA, %s, %s invalidation, DMA%s%s", how, name, s.err ? ": " : "",
	       s.err ? s.err : "");
	if (s.err)
		return false;
	printf("    before the invalidation the DMA landed in %s\n", landed(s.before));
	report(v->t, s.after == 'B', "after %s invalidation the DMA reached %s", name, landed(s.after));
	return s.after == 'B';
}

bool bench_on_qemu(void)
{
	return strcmp(timing.platform, "qemu-tcg") == 0;
}

bool bench_stale_precision(struct env *v, const struct stale_way *way, struct stale *s)
{
	struct test_ctx *t = v->t;
	bench_stale(v, way, s);
	report(t, !s->err, "the probe ran%s%s", s->err ? ": " : "", s->err ? s->err : "");
	if (!s->err && s->before != 'A') {
		bench_teardown(v);
		test_skip(t, SKIP_INCONCLUSIVE,
			  "the unit showed no stale entry to test precision with (the DMA reached %c)", s->before);
		return false;
	}
	return true;
}

void bench_time_invalidation(struct env *v, const struct stale_way *way, uint64_t iova, const char *name,
			     const char *variant, const char *note)
{
	const struct measure m = { .path = "invalidation",
				   .backend = v->io->backend,
				   .variant = variant ? variant : name,
				   .unit = "cycles",
				   .model = v->io->model,
				   .note = note };
	size_t n = v->e->caps.fixed_latency_us ? 20 : 200, got = 0;
	uint64_t *c = malloc(n * sizeof(*c));
	const char *e = c ? NULL : "no memory";
	for (size_t i = 0; !e && i < n; i++) {
		if (test_stopped(v->t)) {
			n = i;
			break;
		}
		struct timed tr;
		timed_begin(&tr);
		e = way->invalidate(v, iova, way->arg);
		c[got] = timed_end(&tr);
		got += !e;
	}
	report(v->t, got == n, "%zu %s invalidations timed%s%s", got, name, e ? ": " : "", e ? e : "");
	if (got)
		test_measure(v->t, &m, c, got);
	free(c);
}

void bench_time_cmd(struct env *v, const struct bench_cmd *c)
{
	const struct stale_way way = { NULL, c->run, 0 };
	bench_time_invalidation(v, &way, 0, c->name, NULL, c->note);
	test_note(v->t, "%s: %s completed every time", v->label, c->name);
}
