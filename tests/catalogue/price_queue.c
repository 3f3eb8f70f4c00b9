/* price.queue: the price of safety on streams with several DMAs in flight,
 * the shape of the paper's workloads (its netperf and disk streams), not
 * one DMA at a time. The engine keeps `depth` reads in flight (NVMe queue
 * depths 1, 8 and 32 by default), each strategy maps a buffer before its
 * read is queued and unmaps (and, strict, invalidates) it when the read
 * completes, and the stream is cut into windows of completions once the
 * queue is full: each window's wall time and the CPU time spent mapping,
 * unmapping and invalidating in it. From the windows: throughput (MB/s,
 * DMAs/s), the CPU's share of the wall time, CPU cycles per KiB moved,
 * and the overhead against translation off, each a median with its 95 %
 * interval. Strategies run in rounds with the order rotated, after a
 * warm-up, as price.strategies does. Under QEMU these measure the
 * emulator, and the records say so (`platform`). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/timing.h"
#include "core/base/wrap.h"
#include "core/monitor/results.h"
#include "core/monitor/settings.h"
#include "core/monitor/survive.h"
#include "price.h"

#define QD_MAX 32
#define ROUNDS PRICE_ROUNDS

static const char *parse_depths(const char *v, size_t *out, size_t *n)
{
	return price_parse_list(v, out, n, 1, QD_MAX, "a queue depth");
}

static const char *check_depths(const char *v)
{
	size_t d[PRICE_LIST_MAX], n;
	return parse_depths(v, d, &n);
}

static const char *check_sizes(const char *v)
{
	size_t s[PRICE_LIST_MAX], n;
	return price_parse_sizes(v, s, &n);
}

static const char *check_windows(const char *v)
{
	unsigned long long n;
	return parse_range(v, 6, 1000, "a number of windows", &n);
}

void price_queue_settings(void)
{
	setting_add("price.queue.depths", "1,8,32", "price.queue: DMAs in flight (comma-separated, 1 to 32)",
		    check_depths, NULL);
	setting_add("price.queue.sizes", "4096,16384,65536,131072", "price.queue: DMA sizes (bytes, comma-separated)",
		    check_sizes, NULL);
	setting_add("price.queue.windows", "10",
		    "price.queue: windows measured per strategy, depth and size (each max(8, depth) DMAs)",
		    check_windows, NULL);
}

/* One strategy at one depth and size: its buffers, IOVA window and the
 * windows measured. */
struct qcell {
	struct strategy st;
	struct dmabuf buf[QD_MAX];
	uint64_t persist[QD_MAX]; /* persistent: each buffer's IOVA, mapped once */
	struct iova_bitmap alloc;
	uint64_t base;
	size_t space, npend;
	uint64_t *wall, *cpu; /* per window: cycles of wall time, of CPU in the strategy */
	size_t cap, got;
	const char *err;
	bool skipped, open;
	char why[112];
	struct overhead over;
};

/* The IOVA the slot's buffer is reached at, for the read about to be
 * queued: mapped first where the strategy maps per DMA. */
static const char *q_map(struct env *v, struct qcell *c, unsigned slot, size_t size, uint64_t *iova)
{
	size_t pages = (size + v->pg - 1) / v->pg;
	const struct dmabuf *b = &c->buf[slot];
	switch (c->st.kind) {
	case S_NONE:
	case S_PASSTHROUGH:
		*iova = b->phys;
		return NULL;
	case S_PERSISTENT:
		*iova = c->persist[slot];
		return NULL;
	default:
		break;
	}
	bool wrapped;
	uint64_t io = iova_bitmap_alloc(&c->alloc, pages, &wrapped);
	if (!io)
		return "the IOVA space is full";
	const char *e = NULL;
	if (wrapped && c->st.kind == S_DEFERRED && c->npend) {
		/* freed IOVAs come round again: their stale translations go first */
		size_t k = price_flush_kind(v->io);
		e = k == (size_t)-1 ? "no domain-wide invalidation"
				    : v->io->ops->invalidate(v->io, k, c->base, c->space * v->pg);
		c->npend = 0;
	}
	if (!e)
		e = v->io->ops->map(v->io, io, b->phys & ~(v->pg - 1), pages * v->pg, IOMMU_RW, v->pg);
	*iova = io + (b->phys & (v->pg - 1));
	return e;
}

/* The read at `iova` completed: strict unmaps and invalidates, deferred
 * unmaps and invalidates a batch at a time. */
static const char *q_unmap(struct env *v, struct qcell *c, uint64_t iova, size_t size, size_t batch)
{
	if (c->st.kind != S_STRICT && c->st.kind != S_DEFERRED)
		return NULL;
	size_t pages = (size + v->pg - 1) / v->pg;
	uint64_t io = iova & ~(v->pg - 1);
	const char *e = v->io->ops->unmap(v->io, io, pages * v->pg);
	iova_bitmap_free(&c->alloc, io, pages);
	if (e)
		return e;
	if (c->st.kind == S_STRICT)
		return c->st.inval == (size_t)-1 ? bench_invalidate(v, "page", io, pages * v->pg)
						 : v->io->ops->invalidate(v->io, c->st.inval, io, pages * v->pg);
	if (++c->npend < batch)
		return NULL;
	c->npend = 0;
	size_t k = price_flush_kind(v->io);
	return k == (size_t)-1 ? "no domain-wide invalidation"
			       : v->io->ops->invalidate(v->io, k, c->base, c->space * v->pg);
}

/* The strategy's set-up before a burst and its undoing after, untimed. */
static const char *q_setup(struct env *v, struct qcell *c, bool on, size_t size, unsigned depth)
{
	switch (c->st.kind) {
	case S_NONE:
		return v->io->ops->enable(v->io, !on);
	case S_PASSTHROUGH:
		return on ? v->io->ops->attach(v->io, v->e->addr, IOMMU_PASSTHROUGH) : bench_translate(v);
	case S_PERSISTENT: {
		size_t pages = (size + v->pg - 1) / v->pg;
		const char *e = NULL;
		for (unsigned s = 0; s < depth && !e; s++) {
			uint64_t frame = c->buf[s].phys & ~(v->pg - 1);
			if (on) {
				bool w;
				uint64_t io = iova_bitmap_alloc(&c->alloc, pages, &w);
				e = io ? v->io->ops->map(v->io, io, frame, pages * v->pg, IOMMU_RW, v->pg) : "no IOVA";
				c->persist[s] = io + (c->buf[s].phys & (v->pg - 1));
			} else {
				uint64_t io = c->persist[s] & ~(v->pg - 1);
				e = v->io->ops->unmap(v->io, io, pages * v->pg);
				iova_bitmap_free(&c->alloc, io, pages);
			}
		}
		size_t k = price_flush_kind(v->io);
		if (!on && !e && k != (size_t)-1)
			e = v->io->ops->invalidate(v->io, k, c->base, c->space * v->pg);
		return e;
	}
	default:
		return NULL;
	}
}

/* `n` reads of `size` with `depth` in flight; windows of `w` completions
 * from the one that fills the queue to the last submission kept (unless a
 * warm-up). */
static void q_burst(struct env *v, struct qcell *c, size_t size, unsigned depth, size_t n, size_t w, bool keep)
{
	struct dma_engine *e = v->e;
	size_t batch = (size_t)setting_long("price.batch");
	const char *err = q_setup(v, c, true, size, depth);
	uint64_t slot_iova[QD_MAX], cpu = 0, w_t = 0, w_cpu = 0;
	unsigned tag_slot[QD_MAX], inflight = 0;
	bool busy[QD_MAX] = { false };
	size_t submitted = 0, done = 0, w_done = 0;
	while (!err && done < n && !test_stopped(v->t)) {
		while (!err && inflight < depth && submitted < n) {
			unsigned s = 0;
			while (busy[s])
				s++;
			uint64_t c0 = cycles_begin();
			err = q_map(v, c, s, size, &slot_iova[s]);
			cpu += cycles_end() - c0;
			unsigned tag;
			struct dma_result r;
			if (!err && e->queue(e, DMA_FROM_DEVICE, slot_iova[s], size, &tag, &r) != DMA_OK) {
				static char why[96];
				snprintf(why, sizeof(why), "%s", r.error[0] ? r.error : "queue refused");
				q_unmap(v, c, slot_iova[s], size, batch);
				err = why;
			}
			if (err)
				break;
			busy[s] = true, tag_slot[tag] = s;
			inflight++, submitted++;
		}
		if (err || !inflight)
			break;
		unsigned tag;
		struct dma_result r;
		if (e->reap(e, &tag, &r) != DMA_OK) {
			static char why[96];
			snprintf(why, sizeof(why), "%s", r.error[0] ? r.error : "reap failed");
			err = why;
			if (tag >= e->caps.max_inflight) { /* the device stopped: nothing more completes */
				inflight = 0;
			} else {
				q_unmap(v, c, slot_iova[tag_slot[tag]], size, batch);
				busy[tag_slot[tag]] = false, inflight--;
			}
			break;
		}
		unsigned s = tag_slot[tag];
		busy[s] = false, inflight--, done++;
		uint64_t c0 = cycles_begin();
		err = q_unmap(v, c, slot_iova[s], size, batch);
		uint64_t now = cycles_end();
		cpu += now - c0;
		/* windows in the steady state only: the queue full, submissions left */
		if (done == depth || (w_t && done - w_done == w)) {
			if (w_t && keep && c->got < c->cap && submitted < n)
				c->wall[c->got] = now - w_t, c->cpu[c->got++] = cpu - w_cpu;
			w_t = now, w_cpu = cpu, w_done = done;
		}
	}
	while (inflight) { /* after an error, what is still in flight lands before its buffer is touched */
		unsigned tag;
		struct dma_result r;
		e->reap(e, &tag, &r);
		if (tag >= e->caps.max_inflight) /* the device stopped: nothing more completes */
			break;
		q_unmap(v, c, slot_iova[tag_slot[tag]], size, batch);
		inflight--;
	}
	const char *e2 = q_setup(v, c, false, size, depth);
	if (!c->err)
		c->err = err ? err : e2;
	/* the noise floor, between bursts: inside one it would be in the windows' wall time */
	for (int i = 0; i < 8; i++)
		timing_floor_sample();
}

static const char *q_open(struct env *v, struct qcell *c, size_t size, unsigned depth, unsigned slot)
{
	size_t pages = (size + v->pg - 1) / v->pg, batch = (size_t)setting_long("price.batch");
	/* room for the reads in flight, deferred's batch and a wrap's worth */
	c->space = 4 * (depth + batch) * pages;
	bool maps = c->st.kind != S_NONE && c->st.kind != S_PASSTHROUGH;
	c->base = maps ? bench_window(v, c->space * v->pg, slot) : 0;
	c->npend = 0;
	c->open = true;
	if (maps && !c->base)
		return "no IOVA window of its own";
	if (maps && !iova_bitmap_init(&c->alloc, c->base, c->space, v->pg)) {
		c->base = 0;
		return "no memory";
	}
	for (unsigned s = 0; s < depth; s++) {
		bool ok = v->limit ? bench_buffer(v, &c->buf[s], size, v->pg)
				   : dmabuf_alloc_in(&c->buf[s], size, 0, v->direct, v->pg);
		if (!ok)
			return "no memory for the buffers";
	}
	return NULL;
}

/* The cell's end: what deferred left pending invalidated (the next depth's
 * cells take the same IOVA windows), its buffers and allocator freed. */
static void q_close(struct env *v, struct qcell *c, unsigned depth)
{
	if (!c->open)
		return;
	size_t k = price_flush_kind(v->io);
	if (c->base && c->st.kind != S_NONE && c->st.kind != S_PASSTHROUGH && k != (size_t)-1)
		v->io->ops->invalidate(v->io, k, c->base, c->space * v->pg);
	for (unsigned s = 0; s < depth; s++)
		dmabuf_free(&c->buf[s]);
	if (c->base)
		iova_bitmap_fini(&c->alloc);
	c->open = false;
}

/* ---- figures, records, table ------------------------------------------- */

struct qrow {
	char variant[64];
	size_t size, windows;
	unsigned depth, w;
	double mb[3], dmas[3], cpu_pct[3], per_kib[3]; /* median, 95 % interval */
	struct overhead over;
	bool ran;
	char why[112];
};

#define QROWS 128
static struct qrow rows[QROWS];
static size_t nrows;

/* The median of x[0..n) (sorted in place) and its interval, as doubles;
 * the median itself at both ends where there are too few for one. */
static void median3(uint64_t *x, size_t n, double out[3])
{
	struct stats s;
	stats_compute(x, n, &s);
	uint64_t lo = s.p50, hi = s.p50;
	stats_median_ci(x, n, &lo, &hi);
	out[0] = (double)s.p50, out[1] = (double)lo, out[2] = (double)hi;
}

static void q_figures(struct env *v, struct qcell *c, struct qrow *row, size_t size, unsigned w)
{
	size_t n = c->got;
	uint64_t *x = malloc((n ? n : 1) * 8);
	if (!x) {
		snprintf(row->why, sizeof(row->why), "no memory");
		return;
	}
	double wall[3], t[3];
	memcpy(x, c->wall, n * 8);
	median3(x, n, wall);
	double bytes = (double)w * (double)size;
	/* a longer window is a slower stream: the interval's ends swap */
	for (int i = 0; i < 3; i++) {
		double ns = cycles_to_ns((uint64_t)wall[i]);
		t[i] = ns > 0 ? 1e9 / ns : 0;
	}
	row->dmas[0] = t[0] * w, row->dmas[1] = t[2] * w, row->dmas[2] = t[1] * w;
	for (int i = 0; i < 3; i++)
		row->mb[i] = row->dmas[i] * (double)size / 1e6;
	for (size_t i = 0; i < n; i++)
		x[i] = c->wall[i] ? c->cpu[i] * 1000000 / c->wall[i] : 0; /* parts per million of the wall time */
	median3(x, n, row->cpu_pct);
	for (int i = 0; i < 3; i++)
		row->cpu_pct[i] /= 1e4;
	for (size_t i = 0; i < n; i++)
		x[i] = (uint64_t)((double)c->cpu[i] * 1024.0 / bytes);
	median3(x, n, row->per_kib);
	/* each window's wall time per DMA: what compare follows from run to run */
	for (size_t i = 0; i < n; i++)
		x[i] = c->wall[i] / w;
	char note[128];
	snprintf(note, sizeof(note), "a stream's wall time per DMA, %u in flight, over windows of %u completions%s",
		 row->depth, w, v->io->model ? "; on a register-level model" : "");
	struct measure m = {
		.path = "dma", .backend = v->io->backend, .variant = row->variant, .unit = "cycles", .note = note
	};
	m.model = v->io->model;
	test_measure(v->t, &m, x, n);
	free(x);
	row->windows = n;
	row->ran = true;
}

static void q_record(struct env *v, const struct qrow *r)
{
	char buf[2 * RECORD_MAX];
	struct json j;
	record_begin(&j, buf, sizeof(buf), "info");
	json_str(&j, "what", "price-queue");
	json_str(&j, "test", v->t->tc->name);
	json_str(&j, "backend", v->io->backend);
	json_str(&j, "variant", r->variant);
	json_u64(&j, "size", r->size);
	json_u64(&j, "depth", r->depth);
	json_u64(&j, "window", r->w);
	json_u64(&j, "windows", r->windows);
	static const char *const names[4] = { "mb_per_s", "dmas_per_s", "cpu_pct", "cpu_cycles_per_kib" };
	const double *fig[4] = { r->mb, r->dmas, r->cpu_pct, r->per_kib };
	for (int k = 0; k < 4; k++) {
		char key[40];
		json_double(&j, names[k], fig[k][0], 2);
		snprintf(key, sizeof(key), "%s_lo", names[k]);
		json_double(&j, key, fig[k][1], 2);
		snprintf(key, sizeof(key), "%s_hi", names[k]);
		json_double(&j, key, fig[k][2], 2);
	}
	price_overhead_json(&j, &r->over);
	json_u64(&j, "rounds", ROUNDS);
	json_str(&j, "counter", timing.counter);
	json_u64(&j, "counter_hz", timing.tsc_hz);
	json_str(&j, "platform", timing.platform);
	json_bool(&j, "model", v->io->model);
	record_emit(&j);
}

/* One table wide (132 columns); at 80, two: throughput and CPU share,
 * then cycles per KiB and the overhead (core/base/wrap.h). */
static void q_table(size_t first)
{
	int wl = table_cols("strategy-depth-size");
	for (size_t i = first; i < nrows; i++)
		wl = table_cols(rows[i].variant) > wl ? table_cols(rows[i].variant) : wl;
	bool wide = console_width() >= 132;
	for (int part = 0; part < (wide ? 1 : 2); part++) {
		printf("\n  %-*s", wl, "strategy-depth-size");
		if (wide || part == 0) /* padded only where a column follows */
			printf(wide ? " %-26s %-22s" : " %-26s %s", "MB/s [95% interval]", "CPU % [95%]");
		if (wide || part == 1)
			printf(" %-18s %s", "cycles/KiB [95%]", "overhead [95% interval] verdict");
		printf("\n");
		for (size_t i = first; i < nrows; i++) {
			const struct qrow *r = &rows[i];
			if (!r->ran) {
				printf("  %-*s not run: %s\n", wl, r->variant, r->why);
				continue;
			}
			char mb[40], cpu[40], kib[40], over[80];
			snprintf(mb, sizeof(mb), "%.1f [%.1f, %.1f]", r->mb[0], r->mb[1], r->mb[2]);
			snprintf(cpu, sizeof(cpu), "%.1f [%.1f, %.1f]", r->cpu_pct[0], r->cpu_pct[1], r->cpu_pct[2]);
			snprintf(kib, sizeof(kib), "%.0f [%.0f, %.0f]", r->per_kib[0], r->per_kib[1], r->per_kib[2]);
			price_overhead_words(&r->over, over, sizeof(over));
			printf("  %-*s", wl, r->variant);
			if (wide || part == 0)
				printf(wide ? " %-26s %-22s" : " %-26s %s", mb, cpu);
			if (wide || part == 1)
				printf(" %-18s %s", kib, over);
			printf("\n");
		}
	}
	printf("  ");
	table_wrapf(2,
		    "(each figure a median over windows of max(8, depth) completions with the queue full, with its "
		    "95%% order-statistic interval; CPU: cycles spent mapping, unmapping and invalidating, as a "
		    "share of the stream's wall time and per KiB moved; overhead: a window's wall time against "
		    "'none' at that depth and size, 95%% bootstrap interval; %d rounds, the order rotated, after a "
		    "warm-up)",
		    ROUNDS);
	price_provenance();
}

/* ---- the case --------------------------------------------------------------- */

static void q_depth(struct env *v, size_t size, unsigned depth, size_t windows)
{
	struct strategy list[8];
	size_t ns = price_strategy_list(v, false, list, 8);
	unsigned w = depth > 8 ? depth : 8;
	size_t per_round = (windows + ROUNDS - 1) / ROUNDS, n = 2 * depth + per_round * w + 1;
	struct qcell *cells = calloc(ns, sizeof(*cells));
	if (!cells) {
		report(v->t, false, "no memory for the streams");
		return;
	}
	for (size_t k = 0; k < ns; k++) {
		struct qcell *c = &cells[k];
		c->st = list[k];
		c->cap = windows;
		c->wall = calloc(windows, 8), c->cpu = calloc(windows, 8);
		bool direct = c->st.kind == S_NONE || c->st.kind == S_PASSTHROUGH;
		if (direct && v->direct_why[0])
			c->skipped = true, snprintf(c->why, sizeof(c->why), "%s", v->direct_why);
		else if (c->st.kind == S_NONE && v->io->stays_on)
			c->skipped = true, snprintf(c->why, sizeof(c->why), "%s", v->io->stays_on);
		else if (!c->wall || !c->cpu)
			c->err = "no memory";
		else
			c->err = q_open(v, c, size, depth, (unsigned)k);
	}
	for (size_t k = 0; k < ns && !v->t->skipped; k++) /* a warm-up burst of each, discarded */
		if (!cells[k].skipped && !cells[k].err)
			q_burst(v, &cells[k], size, depth, 2 * depth + w + 1, w, false);
	for (size_t r = 0; r < ROUNDS && !v->t->skipped; r++)
		for (size_t j = 0; j < ns; j++) {
			char what[48];
			snprintf(what, sizeof(what), "rounds at depth %u, %zu bytes", depth, size);
			test_progress(v->t, r + 1, ROUNDS, what);
			struct qcell *c = &cells[(r + j) % ns];
			if (!c->skipped && !c->err && c->got < c->cap)
				q_burst(v, c, size, depth, n, w, true);
		}
	const struct qcell *none = NULL;
	for (size_t k = 0; k < ns; k++)
		if (cells[k].st.kind == S_NONE && !cells[k].err && !cells[k].skipped && cells[k].got >= 6)
			none = &cells[k];
	for (size_t k = 0; k < ns && nrows < QROWS; k++) {
		struct qcell *c = &cells[k];
		struct qrow *row = &rows[nrows++];
		memset(row, 0, sizeof(*row));
		snprintf(row->variant, sizeof(row->variant), "%.24s%s%.20s-qd%u-%zu",
			 v->io->variant ? v->io->variant : "", v->io->variant ? "-" : "", c->st.name, depth, size);
		row->size = size, row->depth = depth, row->w = w;
		if (c->skipped) {
			snprintf(row->why, sizeof(row->why), "%s", c->why);
		} else if (v->t->skipped && !c->got) { /* the operator stopped the test before it */
			snprintf(row->why, sizeof(row->why), "stopped by the operator");
		} else {
			report(v->t, !c->err && c->got > 0,
			       "%s: %zu windows of %u reads of %zu bytes, %u in flight%s%s", row->variant, c->got, w,
			       size, depth, c->err ? ": " : "", c->err ? c->err : "");
			if (c->err)
				snprintf(row->why, sizeof(row->why), "%s", c->err);
			if (c->got) {
				q_figures(v, c, row, size, w);
				price_overhead_of(&row->over, c->wall, c->got, none ? none->wall : NULL,
						  none ? none->got : 0);
				q_record(v, row);
			}
		}
	}
	for (size_t k = 0; k < ns; k++) { /* 'none' is every row's yardstick: freed after the last */
		q_close(v, &cells[k], depth);
		free(cells[k].wall), free(cells[k].cpu);
	}
	free(cells);
}

void price_queue_case(struct test_ctx *t)
{
	struct env v;
	if (!bench_setup(t, &v, NULL))
		return;
	if (!bench_needs(&v, v.e->queue && v.e->caps.max_inflight > 1, SKIP_UNSUPPORTED,
			 "%s takes one DMA at a time: no stream with several in flight", v.label))
		return;
	size_t depths[PRICE_LIST_MAX], nd, sizes[PRICE_LIST_MAX], nsz;
	parse_depths(setting_get("price.queue.depths"), depths, &nd);
	price_parse_sizes(setting_get("price.queue.sizes"), sizes, &nsz);
	size_t windows = (size_t)setting_long("price.queue.windows");
	/* the watchdog: 10 ms a DMA (a 1 MiB read at 100 MB/s) for every DMA the settings can ask for */
	uint64_t dmas = 0;
	for (size_t d = 0; d < nd; d++)
		dmas +=
		    (3 * depths[d] + ((windows + ROUNDS - 1) / ROUNDS + 1) * (depths[d] > 8 ? depths[d] : 8) * ROUNDS) *
		    5 * nsz;
	uint64_t need = survive_budget() + dmas / 100;
	test_budget(t, need > WATCHDOG_MAX_S ? WATCHDOG_MAX_S : (unsigned)need);
	nrows = 0;
	for (size_t si = 0; si < nsz && !t->skipped; si++) {
		size_t size = sizes[si] > v.e->caps.max_len ? v.e->caps.max_len : sizes[si];
		if (v.e->caps.len_unit > 1)
			size -= size % v.e->caps.len_unit;
		for (size_t d = 0; d < nd && !t->skipped; d++) {
			unsigned depth = (unsigned)depths[d];
			if (depth > v.e->caps.max_inflight) {
				printf("    depth %u: %s keeps at most %u in flight; not run\n", depth, v.label,
				       v.e->caps.max_inflight);
				continue;
			}
			q_depth(&v, size, depth, windows);
		}
	}
	bench_teardown(&v);
	q_table(0);
	if (!t->skipped)
		report(t, nrows > 0, "%zu strategy, depth and size rows measured", nrows);
	test_note(t, "%s: %zu strategy, depth and size rows", v.label, nrows);
}
