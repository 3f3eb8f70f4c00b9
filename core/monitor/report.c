/* The test-facing report API (report.h): claims, skips, notes, measure
 * records, a test's watchdog budget. */
#include "report.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/base/macros.h"
#include "core/base/timing.h"
#include "lab.h"
#include "results.h"
#include "rows.h"
#include "survive.h"

#define SKIP_REASON_NAME(id, name, na) [id] = name,
static const char *const skip_reason_names[SKIP_REASON_COUNT] = { SKIP_REASONS(SKIP_REASON_NAME) };
#undef SKIP_REASON_NAME
#define SKIP_REASON_NA(id, name, na) [id] = na,
static const bool skip_reason_na[SKIP_REASON_COUNT] = { SKIP_REASONS(SKIP_REASON_NA) };
#undef SKIP_REASON_NA

const char *skip_reason_name(enum skip_reason r)
{
	return r > SKIP_UNCLASSIFIED && r < SKIP_REASON_COUNT ? skip_reason_names[r] : "unclassified";
}

bool skip_reason_is_na(enum skip_reason r)
{
	return r > SKIP_UNCLASSIFIED && r < SKIP_REASON_COUNT && skip_reason_na[r];
}

static struct {
	struct measure_row *rows;
	size_t n, cap;
} mrows;

const struct measure_row *measure_rows(size_t *n)
{
	*n = mrows.n;
	return mrows.rows;
}

static void vdetail(struct test_ctx *t, const char *fmt, va_list ap)
{
	vsnprintf(t->detail, sizeof(t->detail), fmt, ap);
}

void report(struct test_ctx *t, bool ok, const char *fmt, ...)
{
	va_list ap;
	char line[DETAIL_MAX];
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	t->checks++;
	printf("    %s: %s\n", ok ? "ok" : "FAIL", line);
	if (!ok && t->failures++ == 0)
		snprintf(t->detail, sizeof(t->detail), "%s", line);
}

void test_skip(struct test_ctx *t, enum skip_reason reason, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vdetail(t, fmt, ap);
	va_end(ap);
	t->skipped = true;
	t->reason = reason;
	printf("    %s (%s): %s\n", skip_reason_is_na(reason) ? "not applicable" : "skip", skip_reason_name(reason),
	       t->detail);
}

void test_finding(struct test_ctx *t, const char *fmt, ...)
{
	if (t->finding[0])
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(t->finding, sizeof(t->finding), fmt, ap);
	va_end(ap);
	printf("    finding: %s\n", t->finding);
}

void test_note(struct test_ctx *t, const char *fmt, ...)
{
	if (t->failures || t->skipped)
		return; /* the first failure, or the reason for the skip, stays the detail */
	va_list ap;
	va_start(ap, fmt);
	vdetail(t, fmt, ap);
	va_end(ap);
}

/* The noise floor beside this test's regions (timing_floor), or, where
 * nothing was taken beside them, 64 empty regions now. */
static bool measure_floor(struct stats *f)
{
	static uint64_t s[TIMING_FLOOR_MAX];
	size_t n = timing_floor.n < TIMING_FLOOR_MAX ? (size_t)timing_floor.n : TIMING_FLOOR_MAX;
	bool beside = n > 0;
	if (beside) {
		memcpy(s, timing_floor.s, n * sizeof(*s));
	} else {
		for (n = 0; n < 64; n++) {
			uint64_t t0 = cycles_begin();
			s[n] = cycles_end() - t0;
		}
	}
	stats_compute(s, n, f);
	return beside;
}

void test_measure(struct test_ctx *t, const struct measure *m, uint64_t *samples, size_t n)
{
	struct stats s, floor;
	if (stats_compute(samples, n, &s) != 0) {
		report(t, false, "%s/%s: no samples to measure", m->path, m->variant);
		return;
	}
	bool beside = measure_floor(&floor);
	static char buf[MEASURE_RECORD_MAX];
	static int64_t hist[2 * STATS_BINS];
	unsigned first;
	size_t nh = stats_hist(samples, n, &first, hist, ARRAY_SIZE(hist));
	struct json j;
	record_begin(&j, buf, sizeof(buf), "measure");
	json_str(&j, "test", t->tc->name);
	json_str(&j, "path", m->path);
	json_str(&j, "backend", m->backend);
	json_str(&j, "variant", m->variant);
	json_u64(&j, "n", s.n);
	json_str(&j, "unit", m->unit);
	json_u64(&j, "min", s.min);
	json_u64(&j, "p50", s.p50);
	json_u64(&j, "p90", s.p90);
	json_u64(&j, "p99", s.p99);
	json_u64(&j, "max", s.max);
	json_double(&j, "mean", s.mean, 1);
	json_double(&j, "stddev", s.stddev, 1);
	uint64_t lo, hi;
	if (stats_median_ci(samples, n, &lo, &hi)) {
		json_u64(&j, "p50_lo", lo);
		json_u64(&j, "p50_hi", hi);
	}
	bool cycles = strcmp(m->unit, "cycles") == 0;
	if (cycles) {
		json_double(&j, "p50_ns", cycles_to_ns(s.p50), 1);
		json_double(&j, "p99_ns", cycles_to_ns(s.p99), 1);
		json_double(&j, "mean_ns", cycles_to_ns((uint64_t)s.mean), 1);
	}
	json_u64(&j, "floor_n", floor.n);
	json_u64(&j, "floor_p50", floor.p50);
	json_u64(&j, "floor_p99", floor.p99);
	json_double(&j, "floor_p50_ns", cycles_to_ns(floor.p50), 1);
	json_bool(&j, "floor_beside", beside);
	json_u64(&j, "hist_from", first);
	json_i64s(&j, "hist", hist, nh);
	json_str(&j, "counter", timing.counter);
	json_u64(&j, "counter_hz", timing.tsc_hz);
	json_str(&j, "calibration", timing.source);
	json_u64(&j, "region_overhead", timing.overhead);
	json_str(&j, "platform", timing.platform);
	json_bool(&j, "model", m->model);
	if (m->note)
		json_str(&j, "note", m->note);
	/* the device's removal before anything the case says: it is why */
	const char *gone = test_device_gone(), *cut = gone ? gone : m->cut;
	if (cut) /* last, so that readers of the fields before it are unchanged */
		json_str(&j, "cut", cut);
	record_emit(&j);
	lab_measure(t->tc->name, m->path, m->backend, m->variant, m->unit, s.p50, cut ? "fail" : "pass");
	if (cut)
		printf("    %s: %zu samples, no pass: %s\n", m->variant, n, cut);

	struct measure_row *rows = rows_grow(mrows.rows, &mrows.cap, mrows.n, sizeof(*rows));
	if (!rows)
		return;
	mrows.rows = rows;
	struct measure_row *r = &rows[mrows.n++];
	snprintf(r->test, sizeof(r->test), "%s", t->tc->name);
	snprintf(r->path, sizeof(r->path), "%s", m->path);
	snprintf(r->variant, sizeof(r->variant), "%s", m->variant);
	snprintf(r->unit, sizeof(r->unit), "%s", m->unit);
	r->s = s;
}

void test_progress(struct test_ctx *t, size_t done, size_t total, const char *what)
{
	uint64_t hz = timing.tsc_hz, now = rdtsc();
	if (!hz || !t->t0)
		return;
	uint64_t since = t->progress_at ? t->progress_at : t->t0;
	uint64_t wait = (t->progress_at ? TEST_PROGRESS_EVERY_S : TEST_PROGRESS_AFTER_S) * hz;
	if (now - since < wait)
		return;
	t->progress_at = now;
	printf("    ... %s: %zu/%zu %s (%llu s)\n", t->tc->name, done, total, what,
	       (unsigned long long)((now - t->t0) / hz));
	fflush(stdout);
}

void test_budget(struct test_ctx *t, unsigned seconds)
{
	(void)t;
	survive_extend(seconds);
}
