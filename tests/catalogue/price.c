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
	uint64_t map, unmap, inval; /* p50 CPU cycles per DMA */
	double lat_p50, lat_p99;    /* ns */
	double per_dma_ns, dmas_s, mb_s, overhead;
	unsigned pending_max, probes, reachable;
	bool ran;
	bool skipped;  /* not run, for the reason in why */
	bool baseline; /* overhead is against a 'none' row */
	char why[112];
};

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

static void pick(uint64_t *v, size_t n, uint64_t *p50)
{
	struct stats s;
	stats_compute(v, n, &s);
	*p50 = n ? s.p50 : 0;
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

static void run(struct env *v, const struct strategy *st, size_t size, size_t n, struct figures *f)
{
	memset(f, 0, sizeof(*f));
	f->size = size;
	snprintf(f->variant, sizeof(f->variant), "%.24s%s%.32s-%zu", v->io->variant ? v->io->variant : "",
		 v->io->variant ? "-" : "", st->name, size);
	/* none and passthrough: the device reaches the buffer itself */
	bool direct = st->kind == S_NONE || st->kind == S_PASSTHROUGH;
	if (direct && v->direct_why[0]) {
		f->skipped = true;
		snprintf(f->why, sizeof(f->why), "%s", v->direct_why);
		return;
	}
	size_t pages = (size + v->pg - 1) / v->pg, batch = (size_t)setting_long("price.batch");
	/* 64 DMAs' worth of IOVA space: a batch larger than that meets the wrap first */
	size_t space = 64 * pages;
	uint64_t *map = calloc(n, 8), *unmap = calloc(n, 8), *inval = calloc(n, 8), *lat = calloc(n, 8);
	struct dmabuf b = { 0 };
	struct iova_bitmap alloc = { 0 };
	uint64_t *pend = calloc(batch + 1, 8);
	uint64_t base = bench_window(v, space * v->pg, 0);
	const char *e = NULL;
	bool have =
	    direct && !v->limit ? dmabuf_alloc_in(&b, size, 0, v->direct, v->pg) : bench_buffer(v, &b, size, v->pg);
	if (!map || !unmap || !inval || !lat || !pend || !have || !iova_bitmap_init(&alloc, base, space, v->pg))
		e = "no memory";
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
		persistent = iova_bitmap_alloc(&alloc, pages, &w);
		e = persistent ? v->io->ops->map(v->io, persistent, frame, pages * v->pg, IOMMU_RW, v->pg) : "no IOVA";
	}
	size_t npend = 0, got = 0;
	uint64_t probing = 0; /* cycles spent probing the exposure: not the strategy's */
	uint64_t t_start = cycles_begin();
	for (size_t i = 0; !e && i < n && !test_stopped(v->t); i++) {
		uint64_t iova = b.phys, c0 = cycles_begin(), c1 = c0, c2, c3, wrap_inval = 0, wrap_probe = 0;
		bool wrapped = false;
		if (st->kind == S_PERSISTENT)
			iova = persistent + (b.phys - frame);
		if (st->kind == S_STRICT || st->kind == S_DEFERRED) {
			uint64_t io = iova_bitmap_alloc(&alloc, pages, &wrapped);
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
			iova_bitmap_free(&alloc, io, pages);
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
			if (npend > f->pending_max)
				f->pending_max = (unsigned)npend;
			if (npend >= batch) {
				probing += probe(v, f, pend[0] + (b.phys - frame), size);
				uint64_t c5 = cycles_begin();
				e = v->io->ops->invalidate(v->io, deferred_kind, base, space * v->pg);
				c4 = c3 + (cycles_end() - c5);
				npend = 0;
			}
		}
		bool maps = st->kind == S_STRICT || st->kind == S_DEFERRED;
		/* a wrap's invalidation belongs to invalidation, not to map */
		map[got] = maps ? c1 - c0 - wrap_inval - wrap_probe : 0, unmap[got] = maps ? c3 - c2 : 0,
		inval[got] = c4 - c3 + wrap_inval;
		lat[got] = r.t_done - r.t_submit;
		got += !e;
	}
	uint64_t total = cycles_end() - t_start - probing;
	/* the strategy undone: nothing it mapped stays reachable */
	if (st->kind == S_NONE && !e)
		e = v->io->ops->enable(v->io, true);
	else if (st->kind == S_NONE)
		v->io->ops->enable(v->io, true);
	if (st->kind == S_PASSTHROUGH) {
		const char *e2 = bench_translate(v);
		e = e ? e : e2;
	}
	if (st->kind == S_PERSISTENT && persistent)
		v->io->ops->unmap(v->io, persistent, pages * v->pg);
	if (st->kind != S_NONE && st->kind != S_PASSTHROUGH && deferred_kind != (size_t)-1)
		v->io->ops->invalidate(v->io, deferred_kind, base, space * v->pg);
	f->n = got;
	f->ran = got > 0 && !e;
	if (e)
		snprintf(f->why, sizeof(f->why), "%s", e);
	if (got) {
		pick(map, got, &f->map);
		pick(unmap, got, &f->unmap);
		pick(inval, got, &f->inval);
		struct stats s;
		uint64_t *l2 = malloc(got * 8);
		if (l2) {
			memcpy(l2, lat, got * 8);
			stats_compute(l2, got, &s);
			f->lat_p50 = cycles_to_ns(s.p50), f->lat_p99 = cycles_to_ns(s.p99);
			free(l2);
		}
		f->per_dma_ns = cycles_to_ns(total) / (double)got;
		f->dmas_s = f->per_dma_ns > 0 ? 1e9 / f->per_dma_ns : 0;
		f->mb_s = f->dmas_s * (double)size / 1e6;
		char note[160];
		snprintf(note, sizeof(note), "%.40s: CPU cycles per DMA%s", st->name,
			 v->io->model ? "; on a register-level model, not the hardware's time" : "");
		emit(v, "map", f->variant, map, got, note);
		emit(v, "unmap", f->variant, unmap, got, note);
		emit(v, "invalidation", f->variant, inval, got, note);
		emit(v, "dma", f->variant, lat, got, "DMA latency: the doorbell to the completion seen");
	}
	free(map), free(unmap), free(inval), free(lat), free(pend);
	iova_bitmap_fini(&alloc);
	dmabuf_free(&b);
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
	json_u64(&j, "unmap_cycles", f->unmap);
	json_u64(&j, "invalidation_cycles", f->inval);
	json_double(&j, "latency_p50_ns", f->lat_p50, 1);
	json_double(&j, "latency_p99_ns", f->lat_p99, 1);
	json_double(&j, "dmas_per_s", f->dmas_s, 1);
	json_double(&j, "mb_per_s", f->mb_s, 2);
	if (f->baseline)
		json_double(&j, "overhead_pct", f->overhead, 1);
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
	/* the settings can make this long (price.count up to its limit, eight
	 * sizes of up to 1 MiB): the watchdog gets its budget plus 10 ms a DMA
	 * (a 1 MiB read at 100 MB/s), or twice a fixed-latency engine's delay */
	uint64_t per_dma_us = v->e->caps.fixed_latency_us ? 2 * (uint64_t)v->e->caps.fixed_latency_us : 10000;
	uint64_t need_s = survive_budget() + (uint64_t)nsizes * ns * n * per_dma_us / 1000000;
	test_budget(v->t, need_s > WATCHDOG_MAX_S ? WATCHDOG_MAX_S : (unsigned)need_s);
	for (size_t si = 0; si < nsizes && !v->t->skipped; si++) {
		size_t size = sizes[si] > v->e->caps.max_len ? v->e->caps.max_len : sizes[si];
		if (v->e->caps.len_unit > 1)
			size -= size % v->e->caps.len_unit;
		double baseline = 0;
		for (size_t k = 0; k < ns && table.n < MAX_ROWS && !v->t->skipped; k++) {
			struct figures *f = &table.row[table.n];
			run(v, &list[k], size, n, f);
			if (f->skipped) { /* the row not kept */
				printf("    %s not run: %s\n", f->variant, f->why);
				continue;
			}
			if (list[k].kind == S_NONE && f->ran)
				baseline = f->per_dma_ns;
			f->baseline = baseline > 0 && f->ran;
			f->overhead = f->baseline ? (f->per_dma_ns / baseline - 1) * 100 : 0;
			report(v->t, f->ran || v->t->skipped, "%s: %zu DMAs of %zu bytes%s%s", f->variant, f->n, size,
			       f->ran ? "" : ": ", f->ran ? "" : f->why);
			if (f->ran)
				record(v, v->t->tc->name, f);
			table.n++;
		}
	}
}

static void print_table(size_t first)
{
	printf("\n  %-36s %9s %9s %9s %9s %9s %9s %8s %9s %s\n", "backend-strategy-size", "map", "unmap", "inval",
	       "p50 us", "p99 us", "DMAs/s", "MB/s", "overhead", "exposure");
	for (size_t i = first; i < table.n; i++) {
		const struct figures *f = &table.row[i];
		if (!f->ran)
			continue;
		char exp[48] = "-", over[16] = "-";
		if (f->baseline)
			snprintf(over, sizeof(over), "%.1f%%", f->overhead);
		if (f->probes)
			snprintf(exp, sizeof(exp), "%u pending, %u/%u reached", f->pending_max, f->reachable,
				 f->probes);
		printf("  %-36s %9llu %9llu %9llu %9.2f %9.2f %9.0f %8.1f %9s %s\n", f->variant,
		       (unsigned long long)f->map, (unsigned long long)f->unmap, (unsigned long long)f->inval,
		       f->lat_p50 / 1e3, f->lat_p99 / 1e3, f->dmas_s, f->mb_s, over, exp);
	}
	printf("  (map, unmap, inval: CPU cycles per DMA, p50; overhead: time per DMA against 'none' at that size,\n"
	       "   '-' where 'none' did not run;\n"
	       "   exposure: freed pages awaiting invalidation at most, and how many probes still reached one)\n");
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
