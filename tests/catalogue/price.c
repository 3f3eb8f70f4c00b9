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

#include "catalogue.h"
#include "core/base/iova.h"
#include "core/base/json.h"
#include "core/base/macros.h"
#include "core/base/stats.h"
#include "core/base/timing.h"
#include "core/base/wrap.h"
#include "core/monitor/results.h"
#include "core/monitor/settings.h"
#include "core/monitor/survive.h"
#include "iommu/models/models.h"
#include "price.h"

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

const char *price_parse_list(const char *v, size_t *out, size_t *n, unsigned long long lo, unsigned long long hi,
			     const char *what)
{
	static char msg[240];
	*n = 0;
	for (const char *p = v; *p;) {
		unsigned long long x;
		char item[24];
		const char *why = list_item(&p, item, sizeof(item));
		if (!why && *n == PRICE_LIST_MAX)
			why = "more than 8 items";
		if (!why)
			why = parse_range(item, lo, hi, what, &x);
		for (size_t i = 0; !why && i < *n; i++)
			if (out[i] == x)
				why = "an item listed twice";
		if (why) {
			snprintf(msg, sizeof(msg), "%s; up to 8 of %s from %llu to %llu, comma-separated", why, what,
				 lo, hi);
			return msg;
		}
		out[(*n)++] = (size_t)x;
	}
	return *n ? NULL : "nothing given";
}

const char *price_parse_sizes(const char *v, size_t *out, size_t *n)
{
	return price_parse_list(v, out, n, 512, 1u << 20, "a size in bytes");
}

static const char *check_sizes(const char *v)
{
	size_t s[8], n;
	return price_parse_sizes(v, s, &n);
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

bool price_wanted(const char *name)
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
	price_queue_settings();
}

/* The record automation reads, one per strategy and size. */
static void record(struct env *v, const char *test, const struct figures *f)
{
	char buf[2 * RECORD_MAX]; /* every figure with its interval: about 900 bytes */
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
	json_double(&j, "dmas_per_s_lo", f->dmas_ci[0], 1);
	json_double(&j, "dmas_per_s_hi", f->dmas_ci[1], 1);
	json_double(&j, "mb_per_s", f->mb_s, 2);
	json_double(&j, "mb_per_s_lo", f->dmas_ci[0] * (double)f->size / 1e6, 2);
	json_double(&j, "mb_per_s_hi", f->dmas_ci[1] * (double)f->size / 1e6, 2);
	json_double(&j, "per_dma_p50_ns", f->per_p50, 1);
	json_double(&j, "dmas_per_s_p50", f->dmas_p50_s, 1);
	json_double(&j, "per_dma_lo_ns", f->per_lo, 1);
	json_double(&j, "per_dma_hi_ns", f->per_hi, 1);
	price_overhead_json(&j, &f->over);
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
	bool kinds;	   /* strict-<kind> rows too, one per invalidation kind the unit offers */
	const char *label; /* what names the unit in each row's variant; NULL: its own variant */
};

static struct plan from_settings(void)
{
	struct plan p = { .kinds = true };
	price_parse_sizes(setting_get("price.sizes"), p.sizes, &p.nsizes);
	p.count = (size_t)setting_long("price.count");
	return p;
}

/* Every strategy at every size on the bench `v` holds: rows added to the
 * table, overhead against that size's baseline. */
size_t price_strategy_list(const struct env *v, bool kinds_too, struct strategy *list, size_t max)
{
	size_t ns = 0;
	static const enum kind kinds[] = { S_NONE, S_PASSTHROUGH, S_STRICT, S_DEFERRED, S_PERSISTENT };
	for (size_t k = 0; k < 5 && ns < max; k++) {
		if (!price_wanted(strategy_names[k]))
			continue;
		if (kinds[k] == S_PASSTHROUGH && !v->io->passthrough)
			continue;
		struct strategy s = { .kind = kinds[k], .inval = (size_t)-1 };
		snprintf(s.name, sizeof(s.name), "%s", strategy_names[k]);
		list[ns++] = s;
		/* strict with every invalidation kind and interface */
		for (size_t i = 0; kinds_too && kinds[k] == S_STRICT && i < v->io->nkinds && ns < max; i++) {
			struct strategy x = { .kind = S_STRICT, .inval = i };
			snprintf(x.name, sizeof(x.name), "strict-%s", v->io->kinds[i].name);
			list[ns++] = x;
		}
	}
	return ns;
}

static void strategies(struct env *v, const struct plan *p)
{
	const size_t *sizes = p->sizes, nsizes = p->nsizes;
	size_t n = v->e->caps.fixed_latency_us ? 3 : p->count;
	struct strategy list[16];
	size_t ns = price_strategy_list(v, p->kinds, list, 16);
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
			const char *unit = p->label ? p->label : v->io->variant;
			snprintf(c->f.variant, sizeof(c->f.variant), "%.24s%s%.32s-%zu", unit ? unit : "",
				 unit ? "-" : "", c->st.name, size);
			bool direct = c->st.kind == S_NONE || c->st.kind == S_PASSTHROUGH;
			if (direct && v->direct_why[0]) {
				c->f.skipped = true;
				snprintf(c->f.why, sizeof(c->f.why), "%s", v->direct_why);
			} else if (c->st.kind == S_NONE && v->io->stays_on) {
				c->f.skipped = true;
				snprintf(c->f.why, sizeof(c->f.why), "%s", v->io->stays_on);
			}
		}
		for (size_t k = 0; k < ns && !v->t->skipped; k++)
			if (!cells[k].f.skipped && !cells[k].err)
				price_burst(v, &cells[k], size, warm, false);
		for (size_t r = 0; r < rounds && !v->t->skipped; r++)
			for (size_t j = 0; j < ns && !v->t->skipped; j++) {
				char what[64];
				snprintf(what, sizeof(what), "strategy bursts on %s%s%.24s", v->io->backend,
					 v->io->variant ? " " : "", v->io->variant ? v->io->variant : "");
				test_progress(v->t, si * rounds * ns + r * ns + j, nsizes * rounds * ns, what);
				struct cell *c = &cells[(r + j) % ns];
				/* round r's share: the DMAs up to r+1 rounds' worth */
				size_t upto = n * (r + 1) / rounds;
				if (!c->f.skipped && !c->err && c->got < upto)
					price_burst(v, c, size, upto - c->got, true);
			}
		const struct cell *none = NULL;
		for (size_t k = 0; k < ns; k++) {
			price_cell_close(v, &cells[k]);
			if (cells[k].f.skipped)
				continue;
			price_finish(v, &cells[k], size);
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
			price_overhead(c, none);
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

void price_overhead_words(const struct overhead *o, char *out, size_t n)
{
	if (!o->baseline)
		snprintf(out, n, "-");
	else if (o->is_baseline)
		snprintf(out, n, "baseline");
	else if (!o->interval)
		snprintf(out, n, "%+.1f%% (too few for an interval) %s", o->pct, stats_verdict_name(o->verdict));
	else
		snprintf(out, n, "%+.1f%% [%+.1f, %+.1f] %s", o->pct, o->lo, o->hi, stats_verdict_name(o->verdict));
}

/* The strategies in two tables, each within the console's width
 * (core/base/wrap.h): what a DMA costs the CPU and how long it takes,
 * then what that does to throughput against 'none'. Wide, the second has
 * MB/s and the exposure too; at 80 columns the exposure follows as lines. */
static void print_table(size_t first)
{
	int wl = table_cols("backend-strategy-size");
	for (size_t i = first; i < table.n; i++)
		if (table.row[i].ran && table_cols(table.row[i].variant) > wl)
			wl = table_cols(table.row[i].variant);
	bool wide = console_width() >= 132;
	printf("\n  %-*s %7s %7s %7s %8s %8s\n", wl, "backend-strategy-size", "map", "unmap", "inval", "p50 us",
	       "p99 us");
	for (size_t i = first; i < table.n; i++) {
		const struct figures *f = &table.row[i];
		if (f->ran)
			printf("  %-*s %7llu %7llu %7llu %8.2f %8.2f\n", wl, f->variant, (unsigned long long)f->map,
			       (unsigned long long)f->unmap, (unsigned long long)f->inval, f->lat_p50 / 1e3,
			       f->lat_p99 / 1e3);
	}
	/* throughput twice, each named: of the median DMA (the overhead's
	 * statistic: the two always agree) and of the mean (every slow one
	 * counted: under TCG p99 runs to 100x p50, and the two part) */
	printf("\n  %-*s %10s %10s", wl, "backend-strategy-size", "DMA/s p50", "DMA/s mean");
	printf(wide ? " %9s %-34s %s\n" : "%.0s %s\n", "MB/s mean", "overhead p50 [95% interval] verdict", "exposure");
	bool exposed = false;
	for (size_t i = first; i < table.n; i++) {
		const struct figures *f = &table.row[i];
		if (!f->ran)
			continue;
		char exp[48] = "-", over[80];
		price_overhead_words(&f->over, over, sizeof(over));
		if (f->probes)
			snprintf(exp, sizeof(exp), "%u pending, %u/%u reached", f->pending_max, f->reachable,
				 f->probes);
		exposed |= f->probes > 0;
		printf("  %-*s %10.0f %10.0f", wl, f->variant, f->dmas_p50_s, f->dmas_s);
		if (wide)
			printf(" %9.1f %-34s %s\n", f->mb_s, over, exp);
		else
			printf(" %s\n", over);
	}
	if (exposed && !wide) {
		printf("\n  %-*s exposure\n", wl, "backend-strategy-size");
		for (size_t i = first; i < table.n; i++) {
			const struct figures *f = &table.row[i];
			if (f->ran && f->probes)
				printf("  %-*s %u pending, %u/%u reached\n", wl, f->variant, f->pending_max,
				       f->reachable, f->probes);
		}
	}
	printf("  ");
	table_wrapf(2,
		    "(map, unmap, inval: CPU cycles per DMA, p50; p50 us, p99 us: the DMA's own latency; DMA/s p50: "
		    "one over the median DMA's whole cost (map to invalidation); DMA/s mean: the DMAs over the time "
		    "they took, every slow one counted, so a heavy tail pulls it below the p50 figure; overhead p50: "
		    "the median whole cost against 'none' at that size, the same statistic as DMA/s p50 (+x%% there "
		    "is 'none''s DMA/s p50 over this row's), with the 95%% percentile-bootstrap interval of that "
		    "ratio; inconclusive where the interval holds 0: the method cannot tell the two apart; "
		    "'-' where 'none' did not run; each strategy warmed up first, then its DMAs in %d rounds, the "
		    "order rotated; exposure: freed pages awaiting invalidation at most, and how many probes still "
		    "reached one%s)",
		    PRICE_ROUNDS, wide ? "" : "; MB/s: in the records and 'set wide on'");
	price_provenance();
}

void price_provenance(void)
{
	bool emulated = strncmp(timing.platform, "qemu", 4) == 0 || strcmp(timing.platform, "kvm") == 0;
	printf("  ");
	table_wrapf(2, "(figures from %s, counter %s at %llu Hz%s)", timing.platform, timing.counter,
		    (unsigned long long)timing.tsc_hz,
		    emulated ? ": they measure the emulator and its host, not an IOMMU's silicon" : "");
}

/* ---- the cases ------------------------------------------------------------ */

/* On the machine's unit behind the device under test: in its default
 * translation mode, then in each other mode it offers (VT-d's scalable
 * first and second stage), each mode's rows named by it. */
static void on_machine(struct test_ctx *t, const struct plan *p)
{
	struct env v;
	if (!bench_setup(t, &v, NULL))
		return;
	table.n = 0; /* each case its own table */
	size_t first = 0, nmodes = 1;
	const char *others[4], *label = v.label;
	size_t nothers = 0;
	for (size_t i = 0; i < v.io->nmodes && i < 4; i++)
		if (!v.io->mode || strcmp(v.io->modes[i], v.io->mode) != 0)
			others[nothers++] = v.io->modes[i];
	strategies(&v, p);
	bench_teardown(&v);
	for (size_t i = 0; i < nothers && !t->skipped; i++) {
		if (!bench_setup_mode(t, &v, NULL, others[i]))
			break;
		strategies(&v, p);
		bench_teardown(&v);
		nmodes++;
	}
	print_table(first);
	if (nmodes > 1)
		test_note(t, "%s: %zu strategy and size rows in %zu translation modes", label, table.n - first, nmodes);
	else
		test_note(t, "%s: %zu strategy and size rows", label, table.n - first);
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
	size_t nmodels = 0;
	while (model_kind_at(nmodels))
		nmodels++;
	/* two models one backend drives the same way (smmuv3 and smmuv3-s2
	 * at stage 1) would give rows, measures and plot labels that read the
	 * same: the second is named by its model kind too */
	char seen[24][48], label[48];
	size_t nseen = 0;
	for (; model_kind_at(k) && !t->skipped; k++) {
		test_progress(t, k, nmodels, "models");
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
		char as[48];
		snprintf(as, sizeof(as), "%s/%s", v.io->backend, v.io->variant ? v.io->variant : "");
		for (size_t i = 0; i < nseen; i++)
			if (strcmp(seen[i], as) == 0) {
				snprintf(label, sizeof(label), "%.20s%s%.24s", model_kind_at(k),
					 v.io->variant ? "-" : "", v.io->variant ? v.io->variant : "");
				p.label = label;
			}
		if (nseen < ARRAY_SIZE(seen))
			snprintf(seen[nseen++], sizeof(seen[0]), "%s", as);
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
				timing_floor_sample();
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

static const struct test_doc docs[] = {
	{ t_quick,
	  "the price of safety in brief, on the machine's unit: the five strategies (translation off, "
	  "pass-through, strict, deferred, persistent) at 4 KiB with 50 DMAs each, their cost per DMA, latency "
	  "and overhead against 'none' with its 95 % interval",
	  "a DMA or mapping that fails under a strategy; the figures are never judged, only reported with "
	  "their intervals" },
	{ t_strategies,
	  "each mapping strategy on the machine's unit at every size (price.sizes): CPU cycles to map, unmap "
	  "and invalidate, latency, DMAs per second, overhead against 'none' with its 95 % interval, and for "
	  "deferred the exposure (freed pages still reachable by DMA before their invalidation)",
	  "a DMA or mapping that fails under a strategy; the figures, the exposure among them, are never "
	  "judged" },
	{ t_models,
	  "the same strategies on every register-level model the monitor has, one after another, each named "
	  "apart; the model found before is attached again after",
	  "a model that cannot be attached or a DMA through it that fails" },
	{ t_allocators,
	  "the CPU cost of IOVA allocation and free: a bitmap with next fit against a cached free list, over "
	  "sizes of pages, with the wraps counted",
	  "an allocation that fails with only 8 ranges live: the allocator lost IOVAs it was given back" },
	{ price_queue_case,
	  "streams with DMAs in flight (NVMe queue depths 1, 8, 32 at each size): throughput in MB/s, the CPU's "
	  "share spent mapping, unmapping and invalidating, cycles per KiB, overhead against 'none', each a "
	  "median over windows with its 95 % interval",
	  "a stream whose commands fail or never complete (named with its deadline); the figures are never "
	  "judged" },
	{ NULL },
};

static const struct test_case cases[] = {
	{ "price.quick", "the default plan's reduced form: the five strategies on the machine's unit, 4 KiB, 50 DMAs",
	  t_quick, true },
	{ "price.strategies", "each mapping strategy on the machine's unit: cost per DMA, latency, overhead, exposure",
	  t_strategies, false },
	{ "price.models", "the same strategies on every register-level model `model` attaches", t_models, false },
	{ "price.allocators", "CPU cycles per IOVA allocation and free: bitmap next fit and cached free list",
	  t_allocators, false },
	{ "price.queue",
	  "streams with DMAs in flight (NVMe queue depths): throughput and CPU cost per byte, each strategy",
	  price_queue_case, false },
};

const struct test_group price_group = {
	.name = "price",
	.summary = "the price of safety: mapping strategies and their cost per DMA, on every backend",
	.cases = cases,
	.n = ARRAY_SIZE(cases),
	.settings = price_settings,
	.docs = (const struct test_doc *const[]){ docs, NULL },
};
