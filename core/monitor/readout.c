#include "readout.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "core/base/match.h"
#include "core/base/timing.h"
#include "core/base/wrap.h"
#include "rows.h"
#include "runner.h"

/* A run this short is shown whole after it; a longer one as a digest. */
#define READOUT_WHOLE_ROWS 12
/* ... and its figures, when it made at most this many series: a longer
 * list (price's 700) is offered, so that a run ends with its table */
#define READOUT_WHOLE_MEASURES 16

/* Failures, skips, and findings (a pass a person should know about). */
static bool needs_a_look(const struct result_row *r)
{
	return (r->verdict != VERDICT_PASS || r->finding) && r->verdict != VERDICT_NA;
}

static bool applies(const struct result_row *r)
{
	return r->verdict != VERDICT_NA;
}

static bool any_row(const struct result_row *r)
{
	(void)r;
	return true;
}

/* Does `what` (a test, a group, a pattern) name test `name`? */
static bool names(const char *what, const char *name)
{
	size_t n = strlen(what);
	return strcmp(what, name) == 0 || (strncmp(what, name, n) == 0 && name[n] == '.') ||
	       (match_is_pattern(what) && match_glob(what, name));
}

static size_t group_len(const char *name)
{
	return strcspn(name, ".");
}

/* The rows of the table, those `keep` keeps (and `what` names, when not
 * NULL): the name's column as wide as the widest, the detail wrapped. A
 * skip shows its reason code before the detail. */
static size_t print_rows(size_t first, bool (*keep)(const struct result_row *), const char *what)
{
	size_t n, shown = 0;
	const struct result_row *rows = runner_rows(&n);
	int wn = 4;
	for (size_t i = first; i < n; i++)
		if (keep(&rows[i]) && applies(&rows[i]) && (!what || names(what, rows[i].tc->name)))
			wn = table_cols(rows[i].tc->name) > wn ? table_cols(rows[i].tc->name) : wn;
	for (size_t i = first; i < n; i++) {
		const struct result_row *r = &rows[i];
		if (!keep(r) || !applies(r) || (what && !names(what, r->tc->name)))
			continue;
		if (shown++ == 0)
			printf("  %-*s %-7s %s\n", wn, "test", "result", "detail");
		printf("  %-*s %-7s ", wn, r->tc->name, r->finding ? "finding" : runner_verdict_name(r->verdict));
		if (r->verdict == VERDICT_SKIP)
			table_wrapf((unsigned)wn + 11, "[%s] %s", skip_reason_name(r->reason), r->detail);
		else
			table_wrap((unsigned)wn + 11, r->detail);
	}
	return shown;
}

/* The end of the run of n/a rows from `i` in one group for one reason. */
static size_t na_run(const struct result_row *rows, size_t n, size_t i, const char *what)
{
	size_t g = group_len(rows[i].tc->name), j = i + 1;
	while (j < n && rows[j].verdict == VERDICT_NA && strncmp(rows[j].tc->name, rows[i].tc->name, g + 1) == 0 &&
	       strcmp(rows[j].detail, rows[i].detail) == 0 && (!what || names(what, rows[j].tc->name)))
		j++;
	return j;
}

/* Is [i, j) a whole group that did not apply for want of a unit of its kind? */
static bool no_unit_group(const struct result_row *rows, size_t n, size_t i, size_t j)
{
	size_t g = group_len(rows[i].tc->name);
	return rows[i].reason == SKIP_NO_UNIT && (j == n || strncmp(rows[j].tc->name, rows[i].tc->name, g + 1) != 0) &&
	       (i == 0 || strncmp(rows[i - 1].tc->name, rows[i].tc->name, g + 1) != 0);
}

/* The tests that did not apply: a run of them in one group for one reason
 * (a group that did not apply) is one line, and groups side by side that
 * found no unit of their kind share one. */
static void print_na(size_t first, const char *what)
{
	size_t n;
	const struct result_row *rows = runner_rows(&n);
	bool header = false;
	for (size_t i = first; i < n; i++) {
		const struct result_row *r = &rows[i];
		if (r->verdict != VERDICT_NA || (what && !names(what, r->tc->name)))
			continue;
		size_t g = group_len(r->tc->name), j = na_run(rows, n, i, what);
		if (!header)
			printf("\n  not applicable here:\n");
		header = true;
		size_t k = j, groups = 1;
		while (no_unit_group(rows, n, i, j) && k < n && rows[k].verdict == VERDICT_NA &&
		       (!what || names(what, rows[k].tc->name))) {
			size_t e = na_run(rows, n, k, what);
			if (!no_unit_group(rows, n, k, e))
				break;
			k = e, groups++;
		}
		if (groups > 1) {
			char line[160];
			size_t len = 0;
			for (size_t a = i; a < k && len < sizeof(line);) {
				size_t e = na_run(rows, n, a, what);
				len +=
				    (size_t)snprintf(line + len, sizeof(line) - len, "%s%.*s (%zu)", a == i ? "" : ", ",
						     (int)group_len(rows[a].tc->name), rows[a].tc->name, e - a);
				a = e;
			}
			int at = printf("    - %s: ", line);
			table_wrap_at((unsigned)at, 6, "no unit of their kind on this machine");
			i = k - 1;
			continue;
		}
		int at = j - i > 1 ? printf("    - %.*s (%zu tests): ", (int)g, r->tc->name, j - i)
				   : printf("    - %s: ", r->tc->name);
		table_wrap_at((unsigned)at, 6, r->detail);
		i = j - 1;
	}
}

/* One line per group: its counts, the groups in the order they ran. */
static void print_groups(size_t first)
{
	size_t n;
	const struct result_row *rows = runner_rows(&n);
	bool header = false;
	for (size_t i = first; i < n; i++) {
		const char *name = rows[i].tc->name;
		size_t g = group_len(name);
		bool seen = false;
		for (size_t k = first; k < i && !seen; k++)
			seen = strncmp(rows[k].tc->name, name, g + 1) == 0;
		if (seen)
			continue;
		unsigned c[6] = { 0 }; /* by verdict */
		for (size_t k = i; k < n; k++)
			if (strncmp(rows[k].tc->name, name, g + 1) == 0)
				c[rows[k].verdict]++;
		if (c[VERDICT_NA] && c[VERDICT_NA] == c[0] + c[1] + c[2] + c[3] + c[4] + c[5])
			continue; /* none applied: said under "not applicable here" */
		if (!header)
			printf("\n  %-10s %6s %6s %7s %6s %5s\n", "group", "passed", "failed", "skipped", "known",
			       "n/a");
		header = true;
		printf("  %-10.*s %6u %6u %7u %6u %5u\n", (int)g, name, c[VERDICT_PASS],
		       c[VERDICT_FAIL] + c[VERDICT_CRASHED], c[VERDICT_SKIP], c[VERDICT_KNOWN], c[VERDICT_NA]);
	}
}

static size_t count_measures(size_t first, const char *what)
{
	size_t n, c = 0;
	const struct measure_row *m = measure_rows(&n);
	for (size_t i = first; i < n; i++)
		c += !what || names(what, m[i].test);
	return c;
}

/* A figure in microseconds where the counter's rate is known, else in the
 * record's own unit. */
static bool in_us(const struct measure_row *m)
{
	return strcmp(m->unit, "cycles") == 0 && timing.tsc_hz;
}

static void figure(const struct measure_row *m, uint64_t v)
{
	if (in_us(m))
		printf(" %10.2f", cycles_to_ns(v) / 1e3);
	else
		printf(" %10llu", (unsigned long long)v);
}

/* The measures from `first` (those `what` names): under a heading per
 * test and path, a row per variant. At 80 columns the figures are n and
 * p50, p99 and max in us; wide, min and the cycles too. */
static void print_measures(size_t first, const char *what)
{
	size_t n;
	const struct measure_row *m = measure_rows(&n);
	bool wide = console_width() >= 132;
	int wv = (int)console_width() - 4 - 7 - 11 * (wide ? 7 : 3);
	printf("\n  figures: ");
	table_wrapf(11, "the counter (%s) at %.3f MHz, calibrated against %s; platform %s", timing.counter,
		    (double)timing.tsc_hz / 1e6, timing.source, timing.platform);
	for (size_t i = first; i < n; i++) {
		if (what && !names(what, m[i].test))
			continue;
		bool heading = i == first || strcmp(m[i].test, m[i - 1].test) != 0 || strcmp(m[i].path, m[i - 1].path);
		if (heading) {
			char h[64];
			snprintf(h, sizeof(h), "%s, %s", m[i].test, m[i].path);
			const char *u = in_us(&m[i]) ? "us" : m[i].unit;
			if (table_cols(h) > wv + 2) /* the heading has a line of its own */
				printf("  %s\n  %-*s %6s", h, wv + 2, "", "n");
			else
				printf("  %-*s %6s", wv + 2, h, "n");
			if (wide)
				printf(" %10s %10s %10s %10s", "min cyc", "p50 cyc", "p99 cyc", "max cyc");
			printf(" %7s %2s %7s %2s %7s %2s\n", "p50", u, "p99", u, "max", u);
		}
		if (table_cols(m[i].variant) > wv)
			printf("    %s\n    %-*s %6zu", m[i].variant, wv, "", m[i].s.n);
		else
			printf("    %-*s %6zu", wv, m[i].variant, m[i].s.n);
		if (wide)
			printf(" %10llu %10llu %10llu %10llu", (unsigned long long)m[i].s.min,
			       (unsigned long long)m[i].s.p50, (unsigned long long)m[i].s.p99,
			       (unsigned long long)m[i].s.max);
		figure(&m[i], m[i].s.p50);
		figure(&m[i], m[i].s.p99);
		figure(&m[i], m[i].s.max);
		printf("\n");
	}
}

/* What else there is to see, by the words that show it: one line. */
static void offer(size_t measures)
{
	printf("  more: 'results all'%s, 'results GROUP'; 'set wide on'\n", measures ? ", 'results measures'" : "");
}

static size_t count_rows(size_t first, bool (*keep)(const struct result_row *))
{
	size_t n, c = 0;
	const struct result_row *rows = runner_rows(&n);
	for (size_t i = first; i < n; i++)
		c += keep(&rows[i]);
	return c;
}

void readout_run(size_t first_row, size_t first_measure)
{
	size_t applied = count_rows(first_row, applies);
	printf("\n");
	if (applied <= READOUT_WHOLE_ROWS) {
		/* the figures first, and only a few: what a person reads last
		 * is the run's table, then its closing line */
		size_t m = count_measures(first_measure, NULL);
		if (m && m <= READOUT_WHOLE_MEASURES) {
			print_measures(first_measure, NULL);
			printf("\n");
		}
		print_rows(first_row, any_row, NULL);
		print_na(first_row, NULL);
		if (m > READOUT_WHOLE_MEASURES)
			offer(m);
		return;
	}
	if (!print_rows(first_row, needs_a_look, NULL))
		printf("  every test that applies passed\n");
	print_groups(first_row);
	print_na(first_row, NULL);
	offer(count_measures(first_measure, NULL));
}

bool readout_results(const char *what)
{
	size_t n;
	runner_rows(&n);
	if (n == 0) {
		printf("no results yet: 'run default' runs the default plan\n");
		return true;
	}
	if (!what) { /* the counts first, then what needs a look */
		runner_print_closing("session: ", runner_session());
		printf("\n");
		if (!print_rows(0, needs_a_look, NULL))
			printf("  every test that applies passed\n");
		print_groups(0);
		print_na(0, NULL);
		offer(count_measures(0, NULL));
		return true;
	}
	if (strcmp(what, "all") == 0) {
		print_rows(0, any_row, NULL);
		print_na(0, NULL);
		return true;
	}
	if (strcmp(what, "measures") == 0) {
		if (!count_measures(0, NULL))
			printf("no figures yet: the tests run so far measured nothing\n");
		else
			print_measures(0, NULL);
		return true;
	}
	size_t rows = print_rows(0, any_row, what);
	print_na(0, what);
	if (count_measures(0, what))
		print_measures(0, what);
	if (rows == 0 && !count_measures(0, what)) {
		bool na = false;
		const struct result_row *r = runner_rows(&n);
		for (size_t i = 0; i < n && !na; i++)
			na = names(what, r[i].tc->name);
		if (!na) {
			printf("error: no result names '%s' ('results all' lists them)\n", what);
			return false;
		}
	}
	return true;
}
