/* One strategy's stream of DMAs for the price group (price.h): its bursts,
 * each DMA's cost from its map to its invalidation, the deferred
 * strategy's exposure probed, the figures with their intervals, and the
 * overhead against translation off. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/timing.h"
#include "core/monitor/settings.h"
#include "price.h"

/* The median of `v` (sorted in place) and its 95 % interval; the interval
 * is the median itself where there are too few samples for one. */
static void pick(uint64_t *v, size_t n, uint64_t *p50, uint64_t ci[2])
{
	struct stats s;
	stats_compute(v, n, &s);
	*p50 = n ? s.p50 : 0;
	if (!stats_median_ci(v, n, &ci[0], &ci[1]))
		ci[0] = ci[1] = *p50;
}

static void emit(struct env *v, const char *path, const char *variant, uint64_t *x, size_t n, const char *note)
{
	if (!n)
		return;
	struct measure m = { .path = path,
			     .backend = v->io->backend,
			     .variant = variant,
			     .unit = "cycles",
			     .model = v->io->model,
			     .note = note };
	test_measure(v->t, &m, x, n);
}

/* The exposure, confirmed: does the oldest freed page still take a DMA?
 * (Into our own buffer, untimed; a refusal's fault record is cleared.)
 * Returns the cycles it took, to be left out of the strategy's time. */
static uint64_t probe(struct env *v, struct figures *f, uint64_t iova, size_t size)
{
	uint64_t p0 = cycles_begin();
	struct dma_result pr;
	v->e->transfer(v->e, DMA_FROM_DEVICE, iova, size, &pr);
	f->probes++;
	f->reachable += pr.status == DMA_OK;
	struct iommu_fault junk[2];
	bool ovf;
	v->io->ops->faults(v->io, junk, 2, &ovf);
	return cycles_end() - p0;
}

size_t price_flush_kind(const struct iommu *io)
{
	size_t k = bench_kind_for(io, "domain");
	return k != (size_t)-1 ? k : bench_kind_for(io, "global");
}

/* The stream's state, before its first burst. */
static const char *cell_open(struct env *v, struct cell *c, size_t size)
{
	bool direct = c->st.kind == S_NONE || c->st.kind == S_PASSTHROUGH;
	size_t pages = (size + v->pg - 1) / v->pg, batch = (size_t)setting_long("price.batch");
	/* 64 DMAs' worth of IOVA space: a batch larger than that meets the wrap first */
	c->space = 64 * pages;
	c->npend = 0;
	c->pend = calloc(batch + 1, 8);
	c->base = bench_window(v, c->space * v->pg, c->slot);
	c->own_window = c->base != 0;
	bool have = direct && !v->limit ? dmabuf_alloc_in(&c->b, size, 0, v->direct, v->pg)
					: bench_buffer(v, &c->b, size, v->pg);
	c->open = true;
	if (!c->pend || !have || !iova_bitmap_init(&c->alloc, c->base, c->space, v->pg))
		return "no memory";
	return NULL;
}

/* After its last burst: what deferred left pending invalidated (untimed,
 * as the stream's end), and its state freed. */
void price_cell_close(struct env *v, struct cell *c)
{
	if (!c->open)
		return;
	size_t kind = price_flush_kind(v->io);
	if (c->st.kind != S_NONE && c->st.kind != S_PASSTHROUGH && kind != (size_t)-1)
		v->io->ops->invalidate(v->io, kind, c->base, c->space * v->pg);
	free(c->pend);
	c->pend = NULL;
	iova_bitmap_fini(&c->alloc);
	dmabuf_free(&c->b);
	c->open = false;
}

/* `n` DMAs of `c`'s strategy, its set-up before them and its undoing
 * after, both untimed; kept in the cell's samples unless a warm-up. */
void price_burst(struct env *v, struct cell *c, size_t size, size_t n, bool keep)
{
	const struct strategy *st = &c->st;
	struct figures *f = &c->f;
	size_t pages = (size + v->pg - 1) / v->pg, batch = (size_t)setting_long("price.batch");
	const char *e = c->open ? NULL : cell_open(v, c, size);
	struct dmabuf b = c->b;
	struct iova_bitmap *alloc = &c->alloc;
	uint64_t *pend = c->pend, base = c->base;
	size_t space = c->space;
	size_t deferred_kind = price_flush_kind(v->io);
	uint64_t frame = b.phys & ~(v->pg - 1), persistent = 0;
	/* the strategy's set-up, outside the timed stream */
	if (!e && st->kind == S_NONE)
		e = v->io->ops->enable(v->io, false);
	if (!e && st->kind == S_PASSTHROUGH)
		e = v->io->ops->attach(v->io, v->e->addr, IOMMU_PASSTHROUGH);
	if (!e && st->kind == S_PERSISTENT) {
		bool w;
		persistent = iova_bitmap_alloc(alloc, pages, &w);
		e = persistent ? v->io->ops->map(v->io, persistent, frame, pages * v->pg, IOMMU_RW, v->pg) : "no IOVA";
	}
	size_t npend = c->npend;
	unsigned pending_max = 0, probes = f->probes, reachable = f->reachable;
	struct dma_result r; /* outside the loop: e may point into its error after */
	for (size_t i = 0; !e && i < n && !test_stopped(v->t); i++) {
		uint64_t iova = b.phys, c0 = cycles_begin(), c1 = c0, c2, c3, wrap_inval = 0, wrap_probe = 0,
			 probing = 0;
		bool wrapped = false;
		if (st->kind == S_PERSISTENT)
			iova = persistent + (b.phys - frame);
		if (st->kind == S_STRICT || st->kind == S_DEFERRED) {
			uint64_t io = iova_bitmap_alloc(alloc, pages, &wrapped);
			if (!io) {
				e = "the IOVA space is full";
				break;
			}
			if (wrapped && st->kind == S_DEFERRED && npend) {
				/* the allocator starts over among freed IOVAs: their
				 * stale translations go before one is used again */
				wrap_probe = probe(v, f, pend[0] + (b.phys - frame), size);
				probing += wrap_probe;
				uint64_t w0 = cycles_begin();
				e = v->io->ops->invalidate(v->io, deferred_kind, base, space * v->pg);
				wrap_inval = cycles_end() - w0;
				npend = 0;
			}
			if (!e)
				e = v->io->ops->map(v->io, io, frame, pages * v->pg, IOMMU_RW, v->pg);
			iova = io + (b.phys - frame);
			c1 = cycles_end();
		}
		r = (struct dma_result){ 0 };
		if (!e && !bench_dma(v, DMA_FROM_DEVICE, iova, size, &r))
			e = r.error;
		c2 = cycles_begin();
		uint64_t io = iova - (b.phys - frame);
		if (!e && (st->kind == S_STRICT || st->kind == S_DEFERRED)) {
			e = v->io->ops->unmap(v->io, io, pages * v->pg);
			iova_bitmap_free(alloc, io, pages);
		}
		c3 = cycles_end();
		uint64_t c4 = c3;
		if (!e && st->kind == S_STRICT) {
			e = st->inval == (size_t)-1 ? bench_invalidate(v, "page", io, pages * v->pg)
						    : v->io->ops->invalidate(v->io, st->inval, io, pages * v->pg);
			c4 = cycles_end();
		}
		if (!e && st->kind == S_DEFERRED) {
			pend[npend++] = io;
			if (npend > pending_max)
				pending_max = (unsigned)npend;
			if (npend >= batch) {
				probing += probe(v, f, pend[0] + (b.phys - frame), size);
				uint64_t c5 = cycles_begin();
				e = v->io->ops->invalidate(v->io, deferred_kind, base, space * v->pg);
				c4 = c3 + (cycles_end() - c5);
				npend = 0;
			}
		}
		/* the DMA's whole cost: from its map to its invalidation, the
		 * exposure's probes (not the strategy's) left out */
		uint64_t whole = cycles_end() - c0 - probing;
		timing_floor_sample();
		bool maps = st->kind == S_STRICT || st->kind == S_DEFERRED;
		if (e || !keep || c->got == c->cap)
			continue;
		/* a wrap's invalidation belongs to invalidation, not to map */
		size_t g = c->got++;
		c->map[g] = maps ? c1 - c0 - wrap_inval - wrap_probe : 0, c->unmap[g] = maps ? c3 - c2 : 0;
		c->inval[g] = c4 - c3 + wrap_inval;
		c->lat[g] = r.t_done - r.t_submit;
		c->per[g] = whole;
		c->total += whole;
	}
	/* the strategy undone: nothing it mapped stays reachable */
	if (st->kind == S_NONE && !e)
		e = v->io->ops->enable(v->io, true);
	else if (st->kind == S_NONE)
		v->io->ops->enable(v->io, true);
	if (st->kind == S_PASSTHROUGH) {
		const char *e2 = bench_translate(v);
		e = e ? e : e2;
	}
	if (st->kind == S_PERSISTENT && persistent) {
		v->io->ops->unmap(v->io, persistent, pages * v->pg);
		iova_bitmap_free(alloc, persistent, pages);
		if (deferred_kind != (size_t)-1)
			v->io->ops->invalidate(v->io, deferred_kind, base, space * v->pg);
	}
	/* deferred's freed IOVAs stay pending into its next burst, as in one
	 * stream: they lie in its own window and lead into its own buffer.
	 * Without a window of its own, another strategy may map there next:
	 * they are invalidated now (untimed), as at a stream's end. */
	if (!c->own_window && npend && deferred_kind != (size_t)-1) {
		v->io->ops->invalidate(v->io, deferred_kind, base, space * v->pg);
		npend = 0;
	}
	c->npend = npend;
	if (keep) {
		if (pending_max > f->pending_max)
			f->pending_max = pending_max;
	} else { /* a warm-up's probes are not the figures' either */
		f->probes = probes, f->reachable = reachable;
	}
	if (e && !c->err && e == r.error) { /* r is gone when the cell is read */
		snprintf(c->err_text, sizeof(c->err_text), "%s", r.error);
		c->err = c->err_text;
	} else if (e && !c->err)
		c->err = e;
}

/* The cell's figures from the DMAs it kept, and its measure records. */
void price_finish(struct env *v, struct cell *c, size_t size)
{
	struct figures *f = &c->f;
	size_t got = c->got;
	f->n = got;
	f->ran = got > 0 && !c->err;
	if (c->err)
		snprintf(f->why, sizeof(f->why), "%s", c->err);
	if (!got)
		return;
	pick(c->map, got, &f->map, f->map_ci);
	pick(c->unmap, got, &f->unmap, f->unmap_ci);
	pick(c->inval, got, &f->inval, f->inval_ci);
	uint64_t *sorted = malloc(got * 8);
	if (sorted) {
		struct stats s;
		memcpy(sorted, c->lat, got * 8);
		stats_compute(sorted, got, &s);
		f->lat_p50 = cycles_to_ns(s.p50), f->lat_p99 = cycles_to_ns(s.p99);
		uint64_t llo = s.p50, lhi = s.p50;
		stats_median_ci(sorted, got, &llo, &lhi);
		f->lat_ci[0] = cycles_to_ns(llo), f->lat_ci[1] = cycles_to_ns(lhi);
		memcpy(sorted, c->per, got * 8);
		stats_compute(sorted, got, &s);
		f->per_p50 = f->per_lo = f->per_hi = cycles_to_ns(s.p50);
		f->dmas_p50_s = f->per_p50 > 0 ? 1e9 / f->per_p50 : 0;
		uint64_t lo, hi;
		if (stats_median_ci(sorted, got, &lo, &hi))
			f->per_lo = cycles_to_ns(lo), f->per_hi = cycles_to_ns(hi);
		free(sorted);
	}
	/* throughput is a total over time: the mean DMA's whole cost, every
	 * slow one counted, with its bootstrap interval */
	f->per_dma_ns = cycles_to_ns(c->total) / (double)got;
	f->dmas_s = f->per_dma_ns > 0 ? 1e9 / f->per_dma_ns : 0;
	f->dmas_ci[0] = f->dmas_ci[1] = f->dmas_s;
	double mean, lo, hi;
	if (stats_mean_ci(c->per, got, &mean, &lo, &hi) && lo > 0)
		f->dmas_ci[0] = 1e9 / cycles_to_ns((uint64_t)hi), f->dmas_ci[1] = 1e9 / cycles_to_ns((uint64_t)lo);
	f->mb_s = f->dmas_s * (double)size / 1e6;
	char note[160];
	snprintf(note, sizeof(note), "%.40s: CPU cycles per DMA%s", c->st.name,
		 v->io->model ? "; on a register-level model, not the hardware's time" : "");
	emit(v, "map", f->variant, c->map, got, note);
	emit(v, "unmap", f->variant, c->unmap, got, note);
	emit(v, "invalidation", f->variant, c->inval, got, note);
	emit(v, "dma", f->variant, c->lat, got, "DMA latency: the doorbell to the completion seen");
}

/* Overhead against the baseline cell: the ratio of the DMAs' median
 * whole costs, with its bootstrap interval; inconclusive where that holds 0. */
void price_overhead(struct cell *c, const struct cell *none)
{
	bool have = none && none->f.ran && c->f.ran && none->f.per_p50 > 0;
	price_overhead_of(&c->f.over, c->per, c->got, have ? none->per : NULL, have ? none->got : 0);
}

/* The nearest-rank median of v[0..n), v unchanged; 0 when n is 0. */
static uint64_t median_of(const uint64_t *v, size_t n)
{
	uint64_t *s = n ? malloc(n * 8) : NULL, m = 0;
	if (s) {
		struct stats st;
		memcpy(s, v, n * 8);
		stats_compute(s, n, &st);
		m = st.p50;
		free(s);
	}
	return m;
}

void price_overhead_of(struct overhead *o, const uint64_t *a, size_t na, const uint64_t *b, size_t nb)
{
	*o = (struct overhead){ .baseline = nb > 0, .is_baseline = a == b };
	if (!o->baseline || o->is_baseline) /* the baseline against itself: 0, no interval */
		return;
	double r, lo, hi;
	o->interval = stats_ratio_ci(a, na, b, nb, &r, &lo, &hi);
	if (o->interval) {
		o->pct = (r - 1) * 100;
		o->lo = (lo - 1) * 100, o->hi = (hi - 1) * 100;
		o->verdict = stats_ratio_verdict(lo, hi);
	} else { /* too few for an interval: the ratio of the medians alone, inconclusive */
		uint64_t ma = median_of(a, na), mb = median_of(b, nb);
		o->pct = mb ? ((double)ma / (double)mb - 1) * 100 : 0;
		o->verdict = STATS_INCONCLUSIVE;
	}
}

void price_overhead_json(struct json *j, const struct overhead *o)
{
	if (!o->baseline)
		return;
	json_double(j, "overhead_pct", o->pct, 1);
	if (o->interval) {
		json_double(j, "overhead_lo_pct", o->lo, 1);
		json_double(j, "overhead_hi_pct", o->hi, 1);
	}
	json_str(j, "overhead_verdict", o->is_baseline ? "baseline" : stats_verdict_name(o->verdict));
}
