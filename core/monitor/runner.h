/* The test registry and runner: which tests a selector names, running
 * them one by one, the session's tallies and the human table, and the
 * crash-survival hooks. The report API a test case uses is report.h. */
#ifndef IOMMON_RUNNER_H
#define IOMMON_RUNNER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report.h"

struct tally {
	unsigned passed, failed, skipped;
	unsigned crashed;     /* among the failed */
	unsigned known;	      /* failures iommon-known.txt lists: not among the failed */
	unsigned known_fixed; /* listed tests that passed: among the passed */
	unsigned na;	      /* not applicable to this machine: apart from all the above */
};

/* The one place a tally's counts are combined: a + b, or a - b (b counted
 * within a). */
static inline struct tally tally_add(struct tally a, struct tally b, int sign)
{
	unsigned s = (unsigned)sign; /* -1 wraps: a - b in unsigned arithmetic */
	return (struct tally){
		.passed = a.passed + s * b.passed,
		.failed = a.failed + s * b.failed,
		.skipped = a.skipped + s * b.skipped,
		.crashed = a.crashed + s * b.crashed,
		.known = a.known + s * b.known,
		.known_fixed = a.known_fixed + s * b.known_fixed,
		.na = a.na + s * b.na,
	};
}

void runner_init(const struct test_group *const *catalogue);
const struct test_group *const *runner_catalogue(void);
/* "all", "default", a group or a test name, a pattern some test's name
 * matches (`vtd.translate*`, `*.latency`), or "--skip" (the words after
 * it name tests, groups or patterns the run records as skipped instead of
 * running)? */
bool runner_selector_known(const char *sel);
/* Does `sel` name test `tc` of group `g`: its name, its group's, or a
 * pattern its name matches (a hidden group's tests answer to their exact
 * names only)? */
bool runner_names(const char *sel, const struct test_group *g, const struct test_case *tc);
/* The names nearest an unknown selector, "vtd.translate_4k or
 * amdvi.translate_4k" ("" when none is near, or it is a pattern). */
void runner_suggest(const char *sel, char *out, size_t cap);
/* The run loop's side of the operator's stop (stop.c): runner_run clears
 * it, as a stop ends one run, not the session. */
void runner_stop_clear(void);
/* Run every test matching any selector; returns how many ran. Always ends
 * with a summary record and the "N passed, N failed, N skipped" line,
 * followed on that line by ", N not applicable" when some were. */
size_t runner_run(int nsel, char **sel);
/* Totals since boot. */
struct tally runner_session(void);

/* Crash survival (survive.c). */
const struct test_case *runner_find(const char *name);
/* Test `tc`'s description, from its group's docs (NULL: none). */
const struct test_doc *runner_doc(const struct test_case *tc);
const char *runner_current(void); /* the test running, or NULL */
/* How many tests the selectors name (nothing is run). */
size_t runner_count(int nsel, char **sel);
/* The session's totals carried over from the boot before a reset. */
void runner_seed(struct tally session);
/* A test that never finished: its `result` record, counted as failed. */
void runner_record_crashed(const struct test_case *tc, const char *detail);
/* The next runner_run goes on after `after`: the tests before it and it
 * were recorded before the reset; `before` is what that run had counted. */
void runner_resume(const char *after, struct tally before);
/* One row per result since boot, in the order they ended. */
struct result_row {
	const struct test_case *tc;
	enum verdict verdict;
	enum skip_reason reason;
	char detail[DETAIL_MAX];
	bool finding; /* a pass with a finding (test_finding) */
};
const struct result_row *runner_rows(size_t *n);
const char *runner_verdict_name(enum verdict v); /* "pass", ... as the records have it */
/* "N passed, N failed, N skipped[, N not applicable]" after `lead`. */
void runner_print_closing(const char *lead, struct tally t);

#endif
