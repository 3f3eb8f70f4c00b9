#include "runner.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/match.h"
#include "core/base/timing.h"
#include "core/base/wrap.h"
#include "known.h"
#include "lab.h"
#include "readout.h"
#include "results.h"
#include "rows.h"
#include "survive.h"
#include "verdict.h"

static const struct test_group *const *catalogue;

static struct {
	struct result_row *results;
	size_t nresults, capresults;
	struct tally session;
	const struct test_case *current;
	const char *(*device_gone)(void); /* the running test's device (test_uses_device), or NULL */
	struct {
		bool pending;
		char after[48];
		struct tally before;
		size_t row; /* the crashed test's row: the resumed run's table starts there */
	} resume;
} run;

static const char *const verdict_names[] = { "pass", "fail", "skip", "crashed", "known", "na" };

void runner_init(const struct test_group *const *cat)
{
	catalogue = cat;
}

const struct test_group *const *runner_catalogue(void)
{
	return catalogue;
}

struct tally runner_session(void)
{
	return run.session;
}

const struct result_row *runner_rows(size_t *n)
{
	*n = run.nresults;
	return run.results;
}

const char *runner_verdict_name(enum verdict v)
{
	return verdict_names[v];
}

static void add_row(const struct test_case *tc, enum verdict v, enum skip_reason reason, const char *detail,
		    bool finding)
{
	struct result_row *rows = rows_grow(run.results, &run.capresults, run.nresults, sizeof(*rows));
	if (rows) {
		run.results = rows;
		struct result_row *r = &rows[run.nresults++];
		r->tc = tc;
		r->verdict = v;
		r->reason = reason;
		r->finding = finding;
		snprintf(r->detail, sizeof(r->detail), "%s", detail);
	}
}

const char *runner_current(void)
{
	return run.current ? run.current->name : NULL;
}

void test_uses_device(const char *bdf, const char *(*gone)(void))
{
	if (!run.current)
		return;
	run.device_gone = gone;
	tested_device(bdf);
}

const char *test_device_gone(void)
{
	return run.current && run.device_gone ? run.device_gone() : NULL;
}

/* After the test: its device gone (test_uses_device) while it was not
 * skipped for that is a failure, whatever it claimed, and the detail says
 * the removal first: it is why anything else failed. */
static void device_vanished(struct test_ctx *t)
{
	const char *gone = test_device_gone();
	if (!gone || (t->skipped && !t->failures))
		return;
	char first[sizeof(t->detail)];
	snprintf(first, sizeof(first), "%s", t->failures ? t->detail : "");
	report(t, false, "the device under test is gone: %s", gone);
	char both[2 * sizeof(t->detail)];
	snprintf(both, sizeof(both), "the device under test is gone: %s; first failure: %s", gone, first);
	if (first[0])
		snprintf(t->detail, sizeof(t->detail), "%.*s", (int)sizeof(t->detail) - 1, both);
}

/* Runs one test, or records it as not run for `not_run`: SKIP_STOPPED
 * (the run is being stopped), SKIP_EXCLUDED (`run --skip` named it), or a
 * not-applicable reason its group gave, with `why`. */
static enum verdict run_one(const struct test_case *tc, enum skip_reason not_run, const char *why)
{
	struct test_ctx t = { .tc = tc };
	uint64_t t0 = cycles_begin();
	t.t0 = t0;
	if (not_run) {
		t.skipped = true;
		t.reason = not_run;
		snprintf(t.detail, sizeof(t.detail), "%s",
			 not_run == SKIP_STOPPED    ? "not run: the operator stopped the run"
			 : not_run == SKIP_EXCLUDED ? "not run: excluded by run --skip"
						    : why);
	} else {
		int at = printf("  %s: ", tc->name);
		table_wrap_at((unsigned)at, 4, tc->summary);
		run.current = tc;
		run.device_gone = NULL;
		timed_masked_max = 0;
		timing_floor.n = 0;
		tested_begin();
		tc->fn(&t);
		device_vanished(&t);
		run.current = NULL;
		run.device_gone = NULL;
		double masked_ms = cycles_to_ns(timed_masked_max) / 1e6;
		if (masked_ms * 1000 > TIMED_MASK_BOUND_US)
			printf(
			    "    warning: a timed region kept interrupts masked for %.0f ms, past the %u ms bound: the "
			    "watchdog could not fire meanwhile\n",
			    masked_ms, TIMED_MASK_BOUND_US / 1000);
	}
	uint64_t cycles = cycles_end() - t0;

	enum verdict v;
	if (t.failures)
		v = VERDICT_FAIL;
	else if (t.skipped)
		v = skip_reason_is_na(t.reason) ? VERDICT_NA : VERDICT_SKIP;
	else if (t.checks == 0) {
		/* a test that claimed nothing proved nothing */
		v = VERDICT_FAIL;
		snprintf(t.detail, sizeof(t.detail), "the test made no checks");
	} else
		v = VERDICT_PASS;
	const char *known = known_reason(tc->name);
	if (known && v == VERDICT_FAIL) {
		v = VERDICT_KNOWN;
		printf("    known failure (%s): %s\n", KNOWN_FILE, known);
	} else if (known && v == VERDICT_PASS) {
		printf("    listed in %s as a known failure (%s) but passed: the list may be out of date\n", KNOWN_FILE,
		       known);
	}

	tested_end(v); /* what it took over and made DMA counts when it passed or failed */

	char buf[RECORD_MAX];
	struct json j;
	record_begin(&j, buf, sizeof(buf), "result");
	json_str(&j, "test", tc->name);
	json_str(&j, "verdict", verdict_names[v]);
	json_u64(&j, "checks", t.checks);
	json_u64(&j, "failures", t.failures);
	json_str(&j, "detail", t.detail);
	json_double(&j, "ms", cycles_to_ns(cycles) / 1e6, 3);
	json_str(&j, "platform", timing.platform);
	json_bool(&j, "model", t.model);
	if (known)
		json_str(&j, "known", known);
	if (t.finding[0] && v == VERDICT_PASS)
		json_str(&j, "finding", t.finding);
	/* last, so that readers of the fields before it are unchanged */
	if (v == VERDICT_SKIP || v == VERDICT_NA)
		json_str(&j, "reason", skip_reason_name(t.reason));
	record_emit(&j);
	if (v != VERDICT_NA) /* the lab's results are the tests that apply */
		lab_result(tc->name, verdict_names[v]);
	add_row(tc, v, t.reason, t.detail, t.finding[0] && v == VERDICT_PASS);
	return v;
}

void runner_record_crashed(const struct test_case *tc, const char *detail)
{
	char buf[RECORD_MAX];
	struct json j;
	record_begin(&j, buf, sizeof(buf), "result");
	json_str(&j, "test", tc->name);
	json_str(&j, "verdict", verdict_names[VERDICT_CRASHED]);
	json_u64(&j, "checks", 0);
	json_u64(&j, "failures", 1);
	json_str(&j, "detail", detail);
	json_double(&j, "ms", 0, 3); /* unknown: the clock did not survive the reset */
	json_str(&j, "platform", timing.platform);
	json_bool(&j, "model", false);
	record_emit(&j);
	lab_result(tc->name, verdict_names[VERDICT_CRASHED]);
	run.resume.row = run.nresults;
	add_row(tc, VERDICT_CRASHED, SKIP_UNCLASSIFIED, detail, false);
	run.session.failed++;
	run.session.crashed++;
}

void runner_seed(struct tally session)
{
	run.session = session;
}

void runner_resume(const char *after, struct tally before)
{
	run.resume.pending = true;
	snprintf(run.resume.after, sizeof(run.resume.after), "%s", after);
	run.resume.before = before;
}

static const struct test_group *group_of_case(const struct test_case *tc);

const struct test_case *runner_find(const char *name)
{
	for (const struct test_group *const *g = catalogue; *g; g++)
		for (size_t i = 0; i < (*g)->n; i++)
			if (strcmp((*g)->cases[i].name, name) == 0)
				return &(*g)->cases[i];
	return NULL;
}

const struct test_doc *runner_doc(const struct test_case *tc)
{
	const struct test_group *g = group_of_case(tc);
	for (const struct test_doc *const *t = g ? g->docs : NULL; t && *t; t++)
		for (const struct test_doc *d = *t; d->fn; d++)
			if (d->fn == tc->fn)
				return d;
	return NULL;
}

static bool group_of(const struct test_case *tc, const char *group)
{
	size_t len = strlen(group);
	return strncmp(tc->name, group, len) == 0 && tc->name[len] == '.';
}

#define SKIP_WORD "--skip"

/* The selectors before "--skip" choose; those after it exclude. */
static int skip_at(int nsel, char **sel)
{
	for (int i = 0; i < nsel; i++)
		if (strcmp(sel[i], SKIP_WORD) == 0)
			return i;
	return nsel;
}

bool runner_names(const char *sel, const struct test_group *g, const struct test_case *tc)
{
	if (strcmp(sel, tc->name) == 0)
		return true;
	if (g->hidden)
		return false;
	return group_of(tc, sel) || (match_is_pattern(sel) && match_glob(sel, tc->name));
}

static bool excluded(const struct test_case *tc, int nsel, char **sel)
{
	const struct test_group *g = group_of_case(tc);
	for (int i = skip_at(nsel, sel) + 1; g && i < nsel; i++)
		if (runner_names(sel[i], g, tc))
			return true;
	return false;
}

static bool selected(const struct test_group *g, const struct test_case *tc, int nsel, char **sel)
{
	nsel = skip_at(nsel, sel);
	for (int i = 0; i < nsel; i++) {
		if (runner_names(sel[i], g, tc))
			return true;
		if (!g->hidden &&
		    (strcmp(sel[i], "all") == 0 || (strcmp(sel[i], "default") == 0 && tc->in_default_plan)))
			return true;
	}
	return false;
}

static const struct test_group *group_of_case(const struct test_case *tc)
{
	for (const struct test_group *const *g = catalogue; *g; g++)
		if (tc >= (*g)->cases && tc < (*g)->cases + (*g)->n)
			return *g;
	return NULL;
}

size_t runner_count(int nsel, char **sel)
{
	size_t n = 0;
	for (const struct test_group *const *g = catalogue; *g; g++)
		for (size_t i = 0; i < (*g)->n; i++)
			n += selected(*g, &(*g)->cases[i], nsel, sel);
	return n;
}

bool runner_selector_known(const char *s)
{
	if (strcmp(s, "all") == 0 || strcmp(s, "default") == 0 || strcmp(s, SKIP_WORD) == 0)
		return true;
	for (const struct test_group *const *g = catalogue; *g; g++) {
		if (!(*g)->hidden && strcmp((*g)->name, s) == 0)
			return true;
		for (size_t i = 0; i < (*g)->n; i++)
			if (runner_names(s, *g, &(*g)->cases[i]))
				return true;
	}
	return false;
}

/* One candidate for runner_suggest: kept when it is as near as the
 * nearest so far (at most three of them). */
static void consider(const char *name, unsigned d, unsigned *best, const char **pick, size_t *np)
{
	if (d > *best)
		return;
	if (d < *best)
		*best = d, *np = 0;
	for (size_t i = 0; i < *np; i++)
		if (strcmp(pick[i], name) == 0)
			return;
	if (*np < 3)
		pick[(*np)++] = name;
}

void runner_suggest(const char *s, char *out, size_t cap)
{
	out[0] = '\0';
	if (match_is_pattern(s))
		return; /* a pattern that matches nothing: no one name was meant */
	unsigned best = ~0u;
	const char *pick[3];
	size_t np = 0, len = strlen(s);
	for (const struct test_group *const *g = catalogue; *g; g++) {
		if ((*g)->hidden)
			continue;
		consider((*g)->name, match_distance(s, (*g)->name), &best, pick, &np);
		for (size_t i = 0; i < (*g)->n; i++) {
			const char *name = (*g)->cases[i].name, *dot = strchr(name, '.');
			unsigned d = match_distance(s, name);
			/* a case named without its group ("translate_4k") */
			if (dot && !strchr(s, '.')) {
				unsigned d2 = match_distance(s, dot + 1);
				d = d2 < d ? d2 : d;
			}
			consider(name, d, &best, pick, &np);
		}
	}
	/* near: within a third of what was typed, two edits at least */
	unsigned near = len / 3 > 2 ? (unsigned)(len / 3) : 2;
	if (best > near)
		return;
	size_t used = 0;
	for (size_t i = 0; i < np && used < cap; i++)
		used +=
		    (size_t)snprintf(out + used, cap - used, "%s%s", i ? (i + 1 == np ? " or " : ", ") : "", pick[i]);
}

void runner_print_closing(const char *lead, struct tally t)
{
	printf("%s%u passed, %u failed, %u skipped", lead, t.passed, t.failed, t.skipped);
	if (t.na)
		printf(", %u not applicable", t.na);
	printf("\n");
}

/* Does group `g` apply, asked as its first selected case (`first`) is
 * reached? SKIP_UNCLASSIFIED when it does; else its reason, with `why`
 * said once on the console for the cases the run names in it. */
static enum skip_reason group_na(const struct test_group *g, int nsel, char **sel, size_t first, char *why, size_t cap)
{
	enum skip_reason r = SKIP_NO_UNIT;
	if (!g->applies || g->applies(g, &r, why, cap))
		return SKIP_UNCLASSIFIED;
	if (!skip_reason_is_na(r)) /* a group that cannot apply cannot skip */
		r = SKIP_NO_UNIT;
	size_t n = 0;
	for (size_t i = first; i < g->n; i++)
		n += selected(g, &g->cases[i], nsel, sel);
	int at = printf("  %s: not applicable (%zu test%s): ", g->name, n, n == 1 ? "" : "s");
	table_wrap_at((unsigned)at, 4, why);
	return r;
}

/* Does case `tc` of `g` apply, asked before it starts (case_applies)?
 * SKIP_UNCLASSIFIED when it does or cannot be told; else its reason,
 * with `why` said on the console in place of the case's own lines. */
static enum skip_reason case_na(const struct test_group *g, const struct test_case *tc, char *why, size_t cap)
{
	enum skip_reason r = SKIP_NO_UNIT;
	why[0] = '\0';
	if (!g->case_applies || g->case_applies(g, tc, &r, why, cap))
		return SKIP_UNCLASSIFIED;
	if (!skip_reason_is_na(r)) /* a case that cannot apply cannot skip */
		r = SKIP_NO_UNIT;
	/* the words a case that finds it for itself says (report.c), whole
	 * on one line as there: boot tests and labs match them */
	printf("  %s: not applicable (%s): %s\n", tc->name, skip_reason_name(r), why);
	return r;
}

size_t runner_run(int nsel, char **sel)
{
	struct tally this_run = { 0 }, session0 = run.session;
	size_t first_result = run.nresults, first_measure, ran = 0;
	measure_rows(&first_measure);
	/* a run typed at the prompt is a plan of its own; in a script, the script is */
	bool own_plan = lab_plan_begin("run");
	runner_stop_clear(); /* a stop ends one run, not the session */
	/* a resumed run: the tests up to the crashed one were recorded before
	 * the reset (the crashed one on this boot), and are counted, not run */
	const char *after = NULL;
	if (run.resume.pending) {
		run.resume.pending = false;
		const struct test_case *tc = runner_find(run.resume.after);
		if (tc && selected(group_of_case(tc), tc, nsel, sel)) {
			after = tc->name;
			this_run = run.resume.before;
			this_run.failed++;
			this_run.crashed++;
			session0 = tally_add(session0, this_run, -1);
			first_result = run.resume.row;
		} else {
			printf("warning: resume: %s is not in this run; running all of it\n", run.resume.after);
		}
	}
	uint64_t t0 = cycles_begin();
	const struct keep_cost kept0 = results_cost(), crumbs0 = survive_cost();
	for (const struct test_group *const *g = catalogue; *g; g++) {
		/* asked once per run, before the group's first selected case */
		bool asked = false;
		enum skip_reason na = SKIP_UNCLASSIFIED;
		char na_why[DETAIL_MAX] = "";
		for (size_t i = 0; i < (*g)->n; i++) {
			const struct test_case *tc = &(*g)->cases[i];
			if (!selected(*g, tc, nsel, sel))
				continue;
			ran++;
			if (!asked) {
				asked = true;
				na = group_na(*g, nsel, sel, i, na_why, sizeof(na_why));
			}
			if (after) {
				if (strcmp(tc->name, after) == 0)
					after = NULL;
				continue;
			}
			bool stopping = runner_stop_requested();
			enum skip_reason not_run = stopping		     ? SKIP_STOPPED
						   : na			     ? na
						   : excluded(tc, nsel, sel) ? SKIP_EXCLUDED
									     : SKIP_UNCLASSIFIED;
			const char *why = na_why;
			char case_why[DETAIL_MAX];
			if (!not_run && (not_run = case_na(*g, tc, case_why, sizeof(case_why))) != SKIP_UNCLASSIFIED)
				why = case_why;
			if (!not_run)
				survive_test_start(tc, this_run, tally_add(session0, this_run, 1));
			switch (run_one(tc, not_run, why)) {
			case VERDICT_PASS:
				this_run.passed++;
				this_run.known_fixed += known_reason(tc->name) != NULL;
				break;
			case VERDICT_KNOWN:
				this_run.known++;
				break;
			case VERDICT_FAIL:
				this_run.failed++;
				break;
			case VERDICT_SKIP:
				this_run.skipped++;
				break;
			case VERDICT_NA:
				this_run.na++;
				break;
			case VERDICT_CRASHED:
				break;
			}
		}
	}
	run.session = tally_add(session0, this_run, 1);
	survive_run_end(run.session);
	if (ran)
		readout_run(first_result, first_measure);

	char buf[RECORD_MAX];
	struct json j;
	record_begin(&j, buf, sizeof(buf), "summary");
	json_u64(&j, "passed", this_run.passed);
	json_u64(&j, "failed", this_run.failed);
	json_u64(&j, "skipped", this_run.skipped);
	json_u64(&j, "crashed", this_run.crashed); /* among the failed */
	/* the run's own verdict: a run whose tests all skipped, or one of a
	 * session that has tested no unit (or left a `require` unmet), is
	 * inconclusive, never a pass */
	char why[DETAIL_MAX];
	bool inconclusive = ran && !this_run.failed && verdict_inconclusive(this_run, why, sizeof(why));
	json_str(&j, "verdict", ran == 0 ? "none" : this_run.failed ? "fail" : inconclusive ? "inconclusive" : "pass");
	json_double(&j, "ms", cycles_to_ns(cycles_end() - t0) / 1e6, 1);
	json_str(&j, "platform", timing.platform);
	json_u64(&j, "known", this_run.known); /* not among the failed */
	json_u64(&j, "known_passed", this_run.known_fixed);
	json_u64(&j, "not_applicable", this_run.na); /* apart from all the above */
	/* what keeping the run through the firmware cost, within its ms (the
	 * summary's own append not yet) */
	struct keep_cost kept = results_cost(), crumbs = survive_cost();
	kept.writes -= kept0.writes, kept.cycles -= kept0.cycles;
	crumbs.writes -= crumbs0.writes, crumbs.cycles -= crumbs0.cycles;
	json_u64(&j, "records_written", kept.writes);
	json_double(&j, "records_ms", cycles_to_ns(kept.cycles) / 1e6, 1);
	json_u64(&j, "crumbs_written", crumbs.writes);
	json_double(&j, "crumbs_ms", cycles_to_ns(crumbs.cycles) / 1e6, 1);
	if (inconclusive)
		json_str(&j, "inconclusive", why);
	record_emit(&j);
	if (kept.writes || crumbs.writes)
		printf("kept through the firmware: %lu records appended to the results file in %.2f s, %lu breadcrumbs "
		       "in %.2f s (of the run's %.2f s)\n",
		       kept.writes, cycles_to_ns(kept.cycles) / 1e9, crumbs.writes, cycles_to_ns(crumbs.cycles) / 1e9,
		       cycles_to_ns(cycles_end() - t0) / 1e9);
	/* the closing line keeps its shape: known failures on the line before */
	if (known_count())
		printf("%u known failures (%s; %u listed tests passed)\n", this_run.known, KNOWN_FILE,
		       this_run.known_fixed);
	runner_print_closing("", this_run);
	if (inconclusive)
		printf("inconclusive: %s\n", why);
	if (own_plan)
		lab_plan_end();
	return ran;
}
