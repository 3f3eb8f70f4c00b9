/* make bench: what the IOMMU drivers themselves cost the CPU, measured
 * natively on the host: the same objects the monitor links, driving the
 * register models (iommu/<family>/model.c) through the iommu interface (no
 * emulator, no silicon). For every backend and every page size it maps,
 * cycles per map and per unmap of one leaf, and per invalidation request
 * of each kind the unit offers, beside a floor taken in the same run: one
 * page-table entry stored, pushed to memory the way the drivers push
 * theirs (cache_flush: mfence, clflush, mfence) and read back.
 *
 * Figures for people (a table, each p50 also as a multiple of the floor's)
 * and `measure` records for machines ("platform": "host"). Register
 * accesses are calls into the model, so an invalidation's figure includes
 * the model answering its handshake. Nothing about time is asserted: the
 * exit status says whether every backend produced its rows and kept the
 * rules its model checks.
 *
 *   build/host/bench [--short] [--fault KIND=FAULT]
 * --short: fewer samples (make test). --fault: attach model KIND with one
 * of the faults `model` can inject (make test shows the rows check fail). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/base/macros.h"
#include "core/base/stats.h"
#include "core/base/timing.h"
#include "core/monitor/runner.h"
#include "core/monitor/settings.h"
#include "iommu/models/models.h"
#include "platform_host.h"

/* Leaves cycled through (by the floor too): the tables above them stay
 * built, as a warm driver's are, and no two writes in a row hit one entry. */
#define LEAVES 64

static const struct test_case bench_case = { "bench.host", "host-native driver cost", NULL, false };
static struct test_ctx ctx = { .tc = &bench_case };

struct row {
	char backend[16], variant[48], path[16];
	size_t n;
	uint64_t p50, p99;
};
static struct row rows[256];
static size_t nrows;
static unsigned problems;
static uint64_t floor_p50;

static void problem(const char *unit, const char *what, const char *why)
{
	printf("bench: %s: %s: %s\n", unit, what, why);
	problems++;
}

/* Statistics, the `measure` record and a row of the table. */
static void emit(const char *path, const char *backend, const char *variant, bool model, uint64_t *s, size_t n)
{
	struct stats st;
	if (stats_compute(s, n, &st) != 0) {
		problem(backend, path, "no samples");
		return;
	}
	char note[200];
	if (floor_p50)
		snprintf(note, sizeof(note),
			 "host-native driver cost against a register model, not silicon IOMMU cost; p50 %.1f x the "
			 "floor (%llu cycles)",
			 (double)st.p50 / (double)floor_p50, (unsigned long long)floor_p50);
	else
		snprintf(note, sizeof(note),
			 "host-native floor: one 8-byte entry stored, flushed (mfence, clflush, mfence) and read back");
	struct measure m = { path, backend, variant, "cycles", model, note };
	test_measure(&ctx, &m, s, n);
	timing_floor.n = 0; /* the next figure's floor is taken beside it */
	if (nrows < ARRAY_SIZE(rows)) {
		struct row *r = &rows[nrows++];
		snprintf(r->backend, sizeof(r->backend), "%s", backend);
		snprintf(r->variant, sizeof(r->variant), "%s", variant);
		snprintf(r->path, sizeof(r->path), "%s", path);
		r->n = st.n, r->p50 = st.p50, r->p99 = st.p99;
	}
}

static void size_name(uint64_t page, char *out, size_t n)
{
	if (page >= 1ull << 30)
		snprintf(out, n, "%llug", (unsigned long long)(page >> 30));
	else if (page >= 1ull << 20)
		snprintf(out, n, "%llum", (unsigned long long)(page >> 20));
	else
		snprintf(out, n, "%lluk", (unsigned long long)(page >> 10));
}

/* The floor: what any driver pays per entry on this host. */
static void bench_floor(uint64_t *s, size_t n)
{
	uint64_t *t = platform->alloc_pages(1, 0);
	if (!t) {
		problem("floor", "a page for the table", "no memory");
		return;
	}
	for (size_t j = 0; j < n; j++) {
		volatile uint64_t *e = &t[j % LEAVES];
		uint64_t t0 = cycles_begin();
		*e = (j << 12) | 3;
		cache_flush((const void *)e, 8);
		(void)*e;
		s[j] = cycles_end() - t0;
		timing_floor_sample();
	}
	platform->free_pages(t, 1);
	emit("floor", "none", "store-clflush-read", false, s, n);
	floor_p50 = rows[nrows - 1].p50;
}

/* LEAVES leaves of `page` bytes the unit can map at [*base, ...). */
static bool window(struct iommu *io, uint64_t page, uint64_t *base)
{
	for (uint64_t b = page * LEAVES; b < page * LEAVES * 16; b += page) {
		if ((b + page * LEAVES - 1) >> io->addr_bits)
			return false;
		if (!io->ops->reserved || !io->ops->reserved(io, b, page * LEAVES)) {
			*base = b;
			return true;
		}
	}
	return false;
}

static const char *map_all(struct iommu *io, uint64_t base, uint64_t page)
{
	const char *e = NULL;
	for (unsigned i = 0; !e && i < LEAVES; i++)
		e = io->ops->map(io, base + i * page, base + i * page, page, IOMMU_RW, page);
	return e;
}

static const char *unmap_all(struct iommu *io, uint64_t base, uint64_t page)
{
	const char *e = NULL;
	for (unsigned i = 0; !e && i < LEAVES; i++)
		e = io->ops->unmap(io, base + i * page, page);
	return e;
}

/* One leaf mapped, then unmapped, at LEAVES IOVAs in turn. */
static void bench_page(struct iommu *io, const char *label, uint64_t page, uint64_t *sm, uint64_t *su, size_t n)
{
	char size[16], variant[48];
	size_name(page, size, sizeof(size));
	snprintf(variant, sizeof(variant), "%s%s%s", io->variant ? io->variant : "", io->variant ? "-" : "", size);
	uint64_t base;
	if (!window(io, page, &base)) {
		problem(label, variant, "no window of unreserved IOVAs to map");
		return;
	}
	const char *e = map_all(io, base, page); /* untimed: builds the tables */
	if (!e)
		e = unmap_all(io, base, page);
	for (size_t k = 0; !e && k < n; k += LEAVES) {
		size_t m = n - k < LEAVES ? n - k : LEAVES;
		for (size_t i = 0; !e && i < m; i++) {
			uint64_t iova = base + i * page, t0 = cycles_begin();
			e = io->ops->map(io, iova, iova, page, IOMMU_RW, page);
			sm[k + i] = cycles_end() - t0;
			timing_floor_sample();
		}
		for (size_t i = 0; !e && i < m; i++) {
			uint64_t t0 = cycles_begin();
			e = io->ops->unmap(io, base + i * page, page);
			su[k + i] = cycles_end() - t0;
			timing_floor_sample();
		}
	}
	if (e) {
		problem(label, variant, e);
		return;
	}
	emit("map", io->backend, variant, io->model, sm, n);
	emit("unmap", io->backend, variant, io->model, su, n);
}

/* Each kind, for one leaf of the smallest page at a time. The first
 * request of a kind is untimed: a change of interface (VT-d's queue on or
 * off) is paid once, not per request. */
static void bench_invalidation(struct iommu *io, const char *label, uint64_t *s, size_t n)
{
	uint64_t page = io->page_sizes & -io->page_sizes, base;
	char size[16], variant[48];
	size_name(page, size, sizeof(size));
	if (!window(io, page, &base)) {
		problem(label, "invalidation", "no window of unreserved IOVAs to map");
		return;
	}
	const char *e = map_all(io, base, page);
	for (size_t k = 0; !e && k < io->nkinds; k++) {
		e = io->ops->invalidate(io, k, base, page);
		for (size_t j = 0; !e && j < n; j++) {
			uint64_t t0 = cycles_begin();
			e = io->ops->invalidate(io, k, base + (j % LEAVES) * page, page);
			s[j] = cycles_end() - t0;
			timing_floor_sample();
		}
		snprintf(variant, sizeof(variant), "%s%s%s-%s", io->variant ? io->variant : "", io->variant ? "-" : "",
			 io->kinds[k].name, size);
		if (!e)
			emit("invalidation", io->backend, variant, io->model, s, n);
	}
	if (!e)
		e = unmap_all(io, base, page);
	if (e)
		problem(label, "invalidation", e);
}

/* Takes the unit over with `dev` in a domain of its own, measures every
 * page size and kind, gives it back; every row it owes must be there. */
static void bench_unit(struct iommu *io, struct pci_addr dev, uint64_t *s1, uint64_t *s2, size_t n)
{
	const char *label = io->variant ? io->variant : io->backend;
	const char *e = io->ops->take(io);
	if (!e)
		e = io->ops->attach(io, dev, IOMMU_TRANSLATE);
	if (e) {
		problem(label, "take over and attach", e);
		io->ops->give_back(io);
		return;
	}
	size_t before = nrows, owed = io->nkinds;
	for (unsigned b = 0; b < 64; b++) {
		if (io->page_sizes >> b & 1) {
			bench_page(io, label, 1ull << b, s1, s2, n);
			owed += 2;
		}
	}
	bench_invalidation(io, label, s1, n);
	e = io->ops->give_back(io);
	if (e)
		problem(label, "give back", e);
	if (nrows - before != owed || !io->page_sizes || !io->nkinds) {
		char why[80];
		snprintf(why, sizeof(why), "%zu of the %zu rows it owes", nrows - before, owed);
		problem(label, "rows", why);
	}
}

static void bench_model(const char *kind, const char *fault, uint64_t *s1, uint64_t *s2, size_t n)
{
	const char *e = model_attach(kind, fault);
	struct dma_engine *eng;
	struct iommu *io = e ? NULL : model_unit(&eng);
	if (!io) {
		problem(kind, "attach", e ? e : "no unit");
		return;
	}
	bench_unit(io, eng->addr, s1, s2, n);
	char what[160];
	if (model_violations(what, sizeof(what)))
		problem(kind, "the model saw", what);
	model_detach();
}

/* The counter and CLOCK_MONOTONIC read back to back: the tightest of a
 * few tries, the time taken at its middle. */
static void clock_pair(uint64_t *tsc, uint64_t *ns)
{
	uint64_t best = ~0ull;
	for (int i = 0; i < 8; i++) {
		struct timespec ts;
		uint64_t a = cycles_begin();
		clock_gettime(CLOCK_MONOTONIC, &ts);
		uint64_t b = cycles_end();
		if (b - a < best) {
			best = b - a;
			*tsc = a + (b - a) / 2;
			*ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
		}
	}
}

/* The TSC's frequency against the host's CLOCK_MONOTONIC over 200 ms. Both
 * run on through a moment the process is descheduled, so a busy host does
 * not stretch it (as it stretches a busy-wait Stall, timing_calibrate's only
 * reference here: that one is replaced). */
static void calibrate_monotonic(void)
{
	uint64_t t0, n0, t1, n1;
	clock_pair(&t0, &n0);
	nanosleep(&(struct timespec){ .tv_nsec = 200000000 }, NULL);
	clock_pair(&t1, &n1);
	if (n1 > n0 && t1 > t0) {
		timing.tsc_hz = (uint64_t)((double)(t1 - t0) * 1e9 / (double)(n1 - n0));
		timing.source = "clock_monotonic";
	}
}

static void print_table(void)
{
	printf("\n  %-8s %-26s %-12s %6s %9s %9s %8s\n", "backend", "variant", "path", "n", "p50", "p99", "x floor");
	for (size_t i = 0; i < nrows; i++) {
		const struct row *r = &rows[i];
		printf("  %-8s %-26s %-12s %6zu %9llu %9llu %8.1f\n", r->backend, r->variant, r->path, r->n,
		       (unsigned long long)r->p50, (unsigned long long)r->p99,
		       floor_p50 ? (double)r->p50 / (double)floor_p50 : 0.0);
	}
}

int main(int argc, char **argv)
{
	size_t n = 5000;
	const char *fault_kind = "", *fault = "none";
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--short") == 0) {
			n = 500;
		} else if (strcmp(argv[i], "--fault") == 0 && i + 1 < argc && strchr(argv[i + 1], '=')) {
			fault_kind = argv[++i];
			fault = strchr(fault_kind, '=') + 1;
		} else {
			fprintf(stderr, "usage: %s [--short] [--fault KIND=FAULT]\n", argv[0]);
			return 2;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	platform = &host_platform;
	settings_init();
	setting_set("records", "console"); /* its measure records are its output: there is no results file */
	timing_calibrate(NULL, "stall");
	snprintf(timing.platform, sizeof(timing.platform), "host");
	calibrate_monotonic();
	uint64_t *s1 = calloc(n, sizeof(*s1)), *s2 = calloc(n, sizeof(*s2));
	if (!s1 || !s2)
		return 2;
	printf("host-native driver cost: the drivers' own CPU cycles against the register models (iommu/*/model.c),\n"
	       "not silicon IOMMU cost (a register access here is a call into the model)\n"
	       "counter: TSC at %.3f GHz (calibration: %s; %s), %s;\n"
	       "every figure includes a timed region's own %llu cycles\n",
	       (double)timing.tsc_hz / 1e9, timing.source, timing.invariant_tsc ? "invariant" : "not invariant",
	       timing.cpu, (unsigned long long)timing.overhead);

	bench_floor(s1, n);
	for (size_t i = 0; model_kind_at(i); i++) {
		const char *k = model_kind_at(i);
		bool faulty = strncmp(fault_kind, k, strlen(k)) == 0 && fault_kind[strlen(k)] == '=';
		bench_model(k, faulty ? fault : "none", s1, s2, n);
	}
	print_table();
	free(s1);
	free(s2);
	if (problems)
		printf("bench: %u problem%s (above)\n", problems, problems == 1 ? "" : "s");
	return problems ? 1 : 0;
}
