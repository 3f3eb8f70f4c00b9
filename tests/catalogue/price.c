/* Group `price`: the seed paper's question — what DMA isolation costs and
 * which mapping strategies buy it back — asked on bare metal, on every
 * backend. A stream of DMAs (the device reads from the device into RAM) is
 * run under each strategy:
 *   none         translation off: the baseline
 *   passthrough  the device bypasses translation (where the unit can)
 *   strict       map before each DMA; unmap and invalidate after
 *   deferred     unmap without invalidating; invalidate every N unmaps or
 *                when the next-fit allocator wraps (Calgary's scheme)
 *   persistent   map once, reuse, never unmap
 * and on the machine's unit, strict with each invalidation kind it offers.
 * Figures per strategy: CPU cycles per DMA in map, unmap and invalidate,
 * DMA latency, DMAs/s and MB/s, overhead against the baseline, and for
 * deferred the exposure: freed pages a DMA could still reach. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "catalogue.h"
#include "core/base/iova.h"
#include "core/base/json.h"
#include "core/base/macros.h"
#include "core/base/stats.h"
#include "core/base/timing.h"
#include "core/monitor/results.h"
#include "core/monitor/settings.h"
#include "core/monitor/survive.h"
#include "iommu/models/models.h"

enum kind { S_NONE, S_PASSTHROUGH, S_STRICT, S_DEFERRED, S_PERSISTENT };

struct strategy {
	char name[40];
	enum kind kind;
	size_t inval; /* strict: the invalidation kind; (size_t)-1: the narrowest */
};

struct figures {
	char variant[64];
	size_t size, n;
	uint64_t map, unmap, inval;		      /* p50 CPU cycles per DMA */
	uint64_t map_ci[2], unmap_ci[2], inval_ci[2]; /* their medians' 95 % intervals */
	double lat_ci[2];			      /* the latency median's, ns */
	double lat_p50, lat_p99;		      /* ns */
	double per_dma_ns, dmas_s, mb_s;
	/* each DMA's whole cost (map, DMA, unmap, invalidation): its median
	 * and the median's 95 % interval, ns */
	double per_p50, per_lo, per_hi;
	/* against 'none' at that size: the ratio of the medians, as a
	 * percentage, with its 95 % bootstrap interval and what it says */
	double overhead, over_lo, over_hi;
	enum stats_verdict verdict;
	bool interval;	  /* over_lo/over_hi hold one (enough DMAs on both sides) */
	bool is_baseline; /* this is the 'none' row the others are against */
	unsigned rounds, warmup;
	unsigned pending_max, probes, reachable;
	bool ran;
	bool skipped;  /* not run, for the reason in why */
	bool baseline; /* overhead is against a 'none' row */
	char why[112];
};

/* The rounds a strategy's DMAs are spread over, each at least this many
 * DMAs of it (fewer DMAs than five rounds' worth: one round). */
#define PRICE_ROUNDS 5
#define PRICE_MIN_BURST 4

/* every model's strategies at eight sizes (7 x 5 x 8 today), with room for
 * the models to come; rows past it are not run */
#define MAX_ROWS 512

static struct {
	struct figures row[MAX_ROWS];
	size_t n;
} table;

/* ---- settings ---------------------------------------------------------- */

/* A comma-separated list: no empty item (a comma at either end, or two
 * together), none twice. NULL, or what was wrong with item *n. */
static const char *list_item(const char **p, char *item, size_t cap)
{
	size_t len = strcspn(*p, ",");
	if (len == 0)
		return "an empty item (a comma at either end, or two together)";
	if (len >= cap)
		return "an item too long";
	memcpy(item, *p, len);
	item[len] = '\0';
	*p += len;
	if (**p == ',' && !*++*p)
		return "a comma at the end";
	return NULL;
}

static const char *parse_sizes(const char *v, size_t *out, size_t max, size_t *n)
{
	static char msg[240];
	*n = 0;
	for (const char *p = v; *p;) {
		unsigned long long x;
		char item[24];
		const char *why = list_item(&p, item, sizeof(item));
		if (!why && *n == max)
			why = "more than 8 sizes";
		if (!why)
			why = parse_range(item, 512, 1u << 20, "a size in bytes", &x);
		for (size_t i = 0; !why && i < *n; i++)
			if (out[i] == x)
				why = "a size listed twice";
		if (why) {
			snprintf(msg, sizeof(msg), "%s; up to 8 sizes from 512 to 1048576 bytes, comma-separated", why);
			return msg;
		}
		out[(*n)++] = (size_t)x;
	}
	return *n ? NULL : "no size given";
}

static const char *check_sizes(const char *v)
{
	size_t s[8], n;
	return parse_sizes(v, s, 8, &n);
}

static const char *check_count(const char *v)
{
	unsigned long long n;
	return parse_range(v, 2, 100000, "a count", &n);
}

static const char *check_batch(const char *v)
{
	unsigned long long n;
	return parse_range(v, 1, 4096, "a number of unmaps", &n);
}

static const char *const strategy_names[] = { "none", "passthrough", "strict", "deferred", "persistent", NULL };

static const char *check_strategies(const char *v)
{
	static char msg[240];
	if (strcmp(v, "all") == 0)
		return NULL;
	unsigned seen = 0;
	for (const char *p = v; *p;) {
		char item[24];
		size_t i = 0;
		const char *why = list_item(&p, item, sizeof(item));
		if (!why) {
			for (i = 0; strategy_names[i] && strcmp(strategy_names[i], item) != 0; i++)
				;
			why = !strategy_names[i] ? "a name that is not a strategy"
			      : seen & (1u << i) ? "a strategy listed twice"
						 : NULL;
		}
		if (why) {
			snprintf(msg, sizeof(msg),
				 "%s; must be all, or a comma-separated list of none, passthrough, strict, deferred, "
				 "persistent",
				 why);
			return msg;
		}
		seen |= 1u << i;
	}
	return seen ? NULL : "no strategy given";
}

static bool wanted(const char *name)
{
	const char *v = setting_get("price.strategies");
	if (!v || strcmp(v, "all") == 0)
		return true;
	size_t len = strlen(name);
	for (const char *p = v; *p;) {
		size_t l = strcspn(p, ",");
		if (l == len && strncmp(p, name, len) == 0)
			return true;
		p += l + (p[l] == ',');
	}
	return false;
}

static void price_settings(void)
{
	setting_add("price.sizes", "4096,65536", "DMA sizes for the price group (bytes, comma-separated)", check_sizes,
		    NULL);
	setting_add("price.count", "100", "DMAs per strategy and size in the price group", check_count, NULL);
	setting_add("price.strategies", "all",
		    "price group strategies: all, or some of none,passthrough,strict,deferred,persistent",
		    check_strategies, NULL);
	setting_add("price.batch", "32", "deferred strategy: invalidate after this many unmaps (or at the wrap)",
		    check_batch, NULL);
}

/* ---- one stream of DMAs under one strategy ------------------------------- */

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

/* One strategy's DMAs at one size, gathered over the rounds. */
struct cell {
	struct strategy st;
	struct figures f;
	uint64_t *map, *unmap, *inval, *lat, *per; /* cycles, one a DMA kept */
	size_t cap, got;
	uint64_t total; /* cycles of the DMAs kept, whole */
	const char *err;
	/* The stream's state, kept from burst to burst as one stream's: its
	 * buffer, its own IOVA window (slot `slot`, so no other strategy maps
	 * where its stale translations may still be cached, and those lead only
	 * into its own buffer), the allocator over it, and deferred's freed
	 * IOVAs awaiting their invalidation. */
	bool open;
	bool own_window; /* false: no window of its own below the others (bench_window gave 0) */
	unsigned slot;
	struct dmabuf b;
	struct iova_bitmap alloc;
	uint64_t base, *pend;
	size_t space, npend;
};

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
static void cell_close(struct env *v, struct cell *c)
{
	if (!c->open)
		return;
	size_t kind = bench_kind_for(v->io, "domain");
	if (kind == (size_t)-1)
		kind = bench_kind_for(v->io, "global");
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
static void burst(struct env *v, struct cell *c, size_t size, size_t n, bool keep)
{
	const struct strategy *st = &c->st;
	struct figures *f = &c->f;
	size_t pages = (size + v->pg - 1) / v->pg, batch = (size_t)setting_long("price.batch");
	const char *e = c->open ? NULL : cell_open(v, c, size);
	struct dmabuf b = c->b;
	struct iova_bitmap *alloc = &c->alloc;
	uint64_t *pend = c->pend, base = c->base;
	size_t space = c->space;
	size_t deferred_kind = bench_kind_for(v->io, "domain");
	if (deferred_kind == (size_t)-1)
		deferred_kind = bench_kind_for(v->io, "global");
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
		struct dma_result r = { 0 };
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
	if (e && !c->err)
		c->err = e;
}

/* The cell's figures from the DMAs it kept, and its measure records. */
static void finish(struct env *v, struct cell *c, size_t size)
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
		uint64_t lo, hi;
		if (stats_median_ci(sorted, got, &lo, &hi))
			f->per_lo = cycles_to_ns(lo), f->per_hi = cycles_to_ns(hi);
		free(sorted);
	}
	f->per_dma_ns = cycles_to_ns(c->total) / (double)got;
	f->dmas_s = f->per_dma_ns > 0 ? 1e9 / f->per_dma_ns : 0;
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
static void overhead(struct cell *c, const struct cell *none)
{
	struct figures *f = &c->f;
	double r, lo, hi;
	f->baseline = none && none->f.ran && f->ran && none->f.per_p50 > 0;
	f->is_baseline = c == none;
	if (!f->baseline || f->is_baseline) /* the baseline against itself: 0, no interval */
		return;
	f->overhead = (f->per_p50 / none->f.per_p50 - 1) * 100;
	f->interval = stats_ratio_ci(c->per, c->got, none->per, none->got, &r, &lo, &hi);
	if (f->interval) {
		f->overhead = (r - 1) * 100;
		f->over_lo = (lo - 1) * 100, f->over_hi = (hi - 1) * 100;
		f->verdict = stats_ratio_verdict(lo, hi);
	} else {
		f->verdict = STATS_INCONCLUSIVE; /* too few DMAs for an interval: nothing is shown */
	}
}

/* The record automation reads, one per strategy and size. */
static void record(struct env *v, const char *test, const struct figures *f)
{
	char buf[RECORD_MAX];
	struct json j;
	record_begin(&j, buf, sizeof(buf), "info");
	json_str(&j, "what", "price");
	json_str(&j, "test", test);
	json_str(&j, "backend", v->io->backend);
	json_str(&j, "variant", f->variant);
	json_u64(&j, "size", f->size);
	json_u64(&j, "n", f->n);
	json_u64(&j, "map_cycles", f->map);
	json_u64(&j, "map_cycles_lo", f->map_ci[0]);
	json_u64(&j, "map_cycles_hi", f->map_ci[1]);
	json_u64(&j, "unmap_cycles", f->unmap);
	json_u64(&j, "unmap_cycles_lo", f->unmap_ci[0]);
	json_u64(&j, "unmap_cycles_hi", f->unmap_ci[1]);
	json_u64(&j, "invalidation_cycles", f->inval);
	json_u64(&j, "invalidation_cycles_lo", f->inval_ci[0]);
	json_u64(&j, "invalidation_cycles_hi", f->inval_ci[1]);
	json_double(&j, "latency_p50_ns", f->lat_p50, 1);
	json_double(&j, "latency_p50_lo_ns", f->lat_ci[0], 1);
	json_double(&j, "latency_p50_hi_ns", f->lat_ci[1], 1);
	json_double(&j, "latency_p99_ns", f->lat_p99, 1);
	json_double(&j, "dmas_per_s", f->dmas_s, 1);
	json_double(&j, "mb_per_s", f->mb_s, 2);
	json_double(&j, "per_dma_p50_ns", f->per_p50, 1);
	json_double(&j, "per_dma_lo_ns", f->per_lo, 1);
	json_double(&j, "per_dma_hi_ns", f->per_hi, 1);
	if (f->baseline) {
		json_double(&j, "overhead_pct", f->overhead, 1);
		if (f->interval) {
			json_double(&j, "overhead_lo_pct", f->over_lo, 1);
			json_double(&j, "overhead_hi_pct", f->over_hi, 1);
		}
		json_str(&j, "overhead_verdict", f->is_baseline ? "baseline" : stats_verdict_name(f->verdict));
	}
	json_u64(&j, "rounds", f->rounds);
	json_u64(&j, "warmup", f->warmup);
	json_u64(&j, "exposure_pending_max", f->pending_max);
	json_u64(&j, "exposure_probes", f->probes);
	json_u64(&j, "exposure_reachable", f->reachable);
	json_str(&j, "platform", timing.platform);
	json_bool(&j, "model", v->io->model);
	record_emit(&j);
}

/* What a case measures: the settings, or the default plan's reduced form. */
struct plan {
	size_t sizes[8], nsizes, count;
	bool kinds; /* strict-<kind> rows too, one per invalidation kind the unit offers */
};

static struct plan from_settings(void)
{
	struct plan p = { .kinds = true };
	parse_sizes(setting_get("price.sizes"), p.sizes, 8, &p.nsizes);
	p.count = (size_t)setting_long("price.count");
	return p;
}

/* Every strategy at every size on the bench `v` holds: rows added to the
 * table, overhead against that size's baseline. */
static void strategies(struct env *v, const struct plan *p)
{
	const size_t *sizes = p->sizes, nsizes = p->nsizes;
	size_t n = v->e->caps.fixed_latency_us ? 3 : p->count;
	struct strategy list[16];
	size_t ns = 0;
	static const enum kind kinds[] = { S_NONE, S_PASSTHROUGH, S_STRICT, S_DEFERRED, S_PERSISTENT };
	for (size_t k = 0; k < 5; k++) {
		if (!wanted(strategy_names[k]))
			continue;
		if (kinds[k] == S_PASSTHROUGH && !v->io->passthrough)
			continue;
		struct strategy s = { .kind = kinds[k], .inval = (size_t)-1 };
		snprintf(s.name, sizeof(s.name), "%s", strategy_names[k]);
		list[ns++] = s;
		/* strict with every invalidation kind and interface */
		for (size_t i = 0; p->kinds && kinds[k] == S_STRICT && i < v->io->nkinds && ns < 16; i++) {
			struct strategy x = { .kind = S_STRICT, .inval = i };
			snprintf(x.name, sizeof(x.name), "strict-%s", v->io->kinds[i].name);
			list[ns++] = x;
		}
	}
	/* a warm-up burst of each first, discarded (under TCG the code's first
	 * translation, on silicon cold caches and TLBs), then the DMAs in
	 * rounds with the order rotated, so drift falls on every strategy alike */
	size_t rounds = n >= 5 * PRICE_MIN_BURST ? PRICE_ROUNDS : 1, warm = n >= 10 ? n / 10 : 1;
	/* the settings can make this long (price.count up to its limit, eight
	 * sizes of up to 1 MiB): the watchdog gets its budget plus 10 ms a DMA
	 * (a 1 MiB read at 100 MB/s), or twice a fixed-latency engine's delay */
	uint64_t per_dma_us = v->e->caps.fixed_latency_us ? 2 * (uint64_t)v->e->caps.fixed_latency_us : 10000;
	uint64_t need_s = survive_budget() + (uint64_t)nsizes * ns * (n + warm) * per_dma_us / 1000000;
	test_budget(v->t, need_s > WATCHDOG_MAX_S ? WATCHDOG_MAX_S : (unsigned)need_s);
	struct cell *cells = calloc(ns, sizeof(*cells));
	for (size_t k = 0; cells && k < ns; k++) {
		cells[k].cap = n;
		cells[k].map = calloc(n, 8), cells[k].unmap = calloc(n, 8), cells[k].inval = calloc(n, 8);
		cells[k].lat = calloc(n, 8), cells[k].per = calloc(n, 8);
		if (!cells[k].map || !cells[k].unmap || !cells[k].inval || !cells[k].lat || !cells[k].per)
			cells[k].err = "no memory";
	}
	for (size_t si = 0; cells && si < nsizes && table.n + ns <= MAX_ROWS && !v->t->skipped; si++) {
		size_t size = sizes[si] > v->e->caps.max_len ? v->e->caps.max_len : sizes[si];
		if (v->e->caps.len_unit > 1)
			size -= size % v->e->caps.len_unit;
		for (size_t k = 0; k < ns; k++) {
			struct cell *c = &cells[k];
			c->st = list[k];
			c->slot = (unsigned)k;
			c->got = 0, c->total = 0;
			c->err = c->map && c->unmap && c->inval && c->lat && c->per ? NULL : "no memory";
			memset(&c->f, 0, sizeof(c->f));
			c->f.size = size, c->f.rounds = (unsigned)rounds, c->f.warmup = (unsigned)warm;
			snprintf(c->f.variant, sizeof(c->f.variant), "%.24s%s%.32s-%zu",
				 v->io->variant ? v->io->variant : "", v->io->variant ? "-" : "", c->st.name, size);
			bool direct = c->st.kind == S_NONE || c->st.kind == S_PASSTHROUGH;
			if (direct && v->direct_why[0]) {
				c->f.skipped = true;
				snprintf(c->f.why, sizeof(c->f.why), "%s", v->direct_why);
			}
		}
		for (size_t k = 0; k < ns && !v->t->skipped; k++)
			if (!cells[k].f.skipped && !cells[k].err)
				burst(v, &cells[k], size, warm, false);
		for (size_t r = 0; r < rounds && !v->t->skipped; r++)
			for (size_t j = 0; j < ns && !v->t->skipped; j++) {
				struct cell *c = &cells[(r + j) % ns];
				/* round r's share: the DMAs up to r+1 rounds' worth */
				size_t upto = n * (r + 1) / rounds;
				if (!c->f.skipped && !c->err && c->got < upto)
					burst(v, c, size, upto - c->got, true);
			}
		const struct cell *none = NULL;
		for (size_t k = 0; k < ns; k++) {
			cell_close(v, &cells[k]);
			if (cells[k].f.skipped)
				continue;
			finish(v, &cells[k], size);
			if (cells[k].st.kind == S_NONE && cells[k].f.ran)
				none = &cells[k];
		}
		for (size_t k = 0; k < ns && table.n < MAX_ROWS; k++) {
			struct cell *c = &cells[k];
			struct figures *f = &c->f;
			if (f->skipped) { /* the row not kept */
				printf("    %s not run: %s\n", f->variant, f->why);
				continue;
			}
			overhead(c, none);
			report(v->t, f->ran || v->t->skipped, "%s: %zu DMAs of %zu bytes%s%s", f->variant, f->n, size,
			       f->ran ? "" : ": ", f->ran ? "" : f->why);
			if (f->ran)
				record(v, v->t->tc->name, f);
			table.row[table.n++] = *f;
		}
	}
	if (!cells)
		report(v->t, false, "no memory for the strategies' samples");
	for (size_t k = 0; cells && k < ns; k++)
		free(cells[k].map), free(cells[k].unmap), free(cells[k].inval), free(cells[k].lat), free(cells[k].per);
	free(cells);
}

/* "+3.1% [-2.0, +8.3] inconclusive", or "-" where 'none' did not run */
static void overhead_words(const struct figures *f, char *out, size_t n)
{
	if (!f->baseline)
		snprintf(out, n, "-");
	else if (f->is_baseline)
		snprintf(out, n, "baseline");
	else if (!f->interval)
		snprintf(out, n, "%+.1f%% (too few DMAs for an interval) %s", f->overhead,
			 stats_verdict_name(f->verdict));
	else
		snprintf(out, n, "%+.1f%% [%+.1f, %+.1f] %s", f->overhead, f->over_lo, f->over_hi,
			 stats_verdict_name(f->verdict));
}

static void print_table(size_t first)
{
	printf("\n  %-36s %9s %9s %9s %9s %9s %9s %8s %-34s %s\n", "backend-strategy-size", "map", "unmap", "inval",
	       "p50 us", "p99 us", "DMAs/s", "MB/s", "overhead [95% interval] verdict", "exposure");
	for (size_t i = first; i < table.n; i++) {
		const struct figures *f = &table.row[i];
		if (!f->ran)
			continue;
		char exp[48] = "-", over[80];
		overhead_words(f, over, sizeof(over));
		if (f->probes)
			snprintf(exp, sizeof(exp), "%u pending, %u/%u reached", f->pending_max, f->reachable,
				 f->probes);
		printf("  %-36s %9llu %9llu %9llu %9.2f %9.2f %9.0f %8.1f %-34s %s\n", f->variant,
		       (unsigned long long)f->map, (unsigned long long)f->unmap, (unsigned long long)f->inval,
		       f->lat_p50 / 1e3, f->lat_p99 / 1e3, f->dmas_s, f->mb_s, over, exp);
	}
	printf("  (map, unmap, inval: CPU cycles per DMA, p50; overhead: each DMA's whole cost (map to invalidation),\n"
	       "   median against 'none' at that size, with the 95%% percentile-bootstrap interval of that ratio;\n"
	       "   inconclusive where the interval holds 0: the method cannot tell the two apart; '-' where 'none'\n"
	       "   did not run; each strategy warmed up first, then its DMAs in %d rounds, the order rotated;\n"
	       "   exposure: freed pages awaiting invalidation at most, and how many probes still reached one)\n",
	       PRICE_ROUNDS);
}

/* ---- the cases ------------------------------------------------------------ */

/* On the machine's unit behind the device under test. */
static void on_machine(struct test_ctx *t, const struct plan *p)
{
	struct env v;
	if (!bench_setup(t, &v, NULL))
		return;
	table.n = 0; /* each case its own table */
	size_t first = 0;
	strategies(&v, p);
	bench_teardown(&v);
	print_table(first);
	test_note(t, "%s: %zu strategy and size rows", v.label, table.n - first);
}

static void t_strategies(struct test_ctx *t)
{
	struct plan p = from_settings();
	on_machine(t, &p);
}

/* The default plan's reduced form: 4 KiB, 50 DMAs, the five strategies. */
static void t_quick(struct test_ctx *t)
{
	struct plan p = { .sizes = { 4096 }, .nsizes = 1, .count = 50, .kinds = false };
	on_machine(t, &p);
}

/* The same strategies on every register-level model, one after another. */
static void t_models(struct test_ctx *t)
{
	char before[16];
	snprintf(before, sizeof(before), "%s", model_attached_kind() ? model_attached_kind() : "none");
	table.n = 0;
	size_t first = 0;
	size_t k = 0;
	for (; model_kind_at(k) && !t->skipped; k++) {
		const char *e = model_attach(model_kind_at(k), "none");
		report(t, !e, "model %s attached%s%s", model_kind_at(k), e ? ": " : "", e ? e : "");
		if (e)
			continue;
		/* whichever backend drives the model just attached */
		struct env v;
		struct dma_engine *eng;
		struct iommu *io = model_unit(&eng);
		if (!io || !bench_setup(t, &v, io->backend))
			continue;
		struct plan p = from_settings();
		/* strict with the narrowest kind only: each kind's own cost is what
		 * the backend's invalidate_* cases measure */
		p.kinds = false;
		strategies(&v, &p);
		bench_teardown(&v);
	}
	model_attach(before, "none"); /* as it was */
	print_table(first);
	test_note(t, "%zu strategy and size rows on %zu models", table.n - first, k);
}

/* CPU cycles per allocation and free: next fit over a bitmap, and the
 * cached free list. */
static void t_allocators(struct test_ctx *t)
{
	const size_t n = 4096, space = 1024;
	static const size_t runs[] = { 1, 16 };
	uint64_t *c = malloc(n * 8), *fr = malloc(n * 8);
	if (!c || !fr) {
		report(t, false, "no memory");
		free(c), free(fr);
		return;
	}
	for (size_t ri = 0; ri < 2; ri++) {
		size_t pages = runs[ri];
		struct iova_bitmap bm;
		struct iova_cached ca;
		bool ok = iova_bitmap_init(&bm, 1ull << 32, space, 4096);
		iova_cached_init(&ca, 1ull << 32, space * 64, 4096);
		for (int which = 0; ok && which < 2; which++) {
			size_t got = 0;
			/* a window of live mappings, as a driver with DMAs in flight has */
			uint64_t live[8] = { 0 };
			for (size_t i = 0; i < n; i++) {
				bool w;
				uint64_t t0 = cycles_begin();
				uint64_t a = which ? iova_cached_alloc(&ca, pages) : iova_bitmap_alloc(&bm, pages, &w);
				c[got] = cycles_end() - t0;
				if (!a)
					break;
				uint64_t old = live[i % 8];
				live[i % 8] = a;
				t0 = cycles_begin();
				if (old) {
					if (which)
						iova_cached_free(&ca, old, pages);
					else
						iova_bitmap_free(&bm, old, pages);
				}
				fr[got] = cycles_end() - t0;
				got++;
			}
			report(t, got == n, "%s: %zu allocations of %zu page%s with 8 live%s",
			       which ? "cached free list" : "bitmap next fit", got, pages, pages == 1 ? "" : "s",
			       which ? "" : (bm.wraps ? ", wrapping" : ""));
			char variant[48], note[96];
			snprintf(variant, sizeof(variant), "alloc-%s-%zu", which ? "cached" : "next-fit", pages);
			snprintf(note, sizeof(note), "%s over %zu pages: %u wraps",
				 which ? "cached free list" : "next fit", space, which ? 0u : bm.wraps);
			struct measure m = {
				.path = "map", .backend = "none", .variant = variant, .unit = "cycles", .note = note
			};
			test_measure(t, &m, c, got);
			snprintf(variant, sizeof(variant), "free-%s-%zu", which ? "cached" : "next-fit", pages);
			m.path = "unmap";
			test_measure(t, &m, fr, got);
		}
		iova_bitmap_fini(&bm);
	}
	free(c), free(fr);
	test_note(t, "bitmap next fit and cached free list, 1 and 16 pages");
}

static const struct test_case cases[] = {
	{ "price.quick", "the default plan's reduced form: the five strategies on the machine's unit, 4 KiB, 50 DMAs",
	  t_quick, true },
	{ "price.strategies", "each mapping strategy on the machine's unit: cost per DMA, latency, overhead, exposure",
	  t_strategies, false },
	{ "price.models", "the same strategies on every register-level model `model` attaches", t_models, false },
	{ "price.allocators", "CPU cycles per IOVA allocation and free: bitmap next fit and cached free list",
	  t_allocators, false },
};

const struct test_group price_group = {
	.name = "price",
	.summary = "the price of safety: mapping strategies and their cost per DMA, on every backend",
	.cases = cases,
	.n = ARRAY_SIZE(cases),
	.settings = price_settings,
};
