/* What a test case's author reads: a test is a function that makes
 * claims (report), may skip for a named reason, leaves a note, emits
 * measurements, and asks whether the operator stopped the run. The runner
 * (runner.h) turns these into `result` and `measure` records, the human
 * table and the closing count line. */
#ifndef IOMMON_REPORT_H
#define IOMMON_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/base/stats.h"

struct test_ctx;

/* Why a test was skipped or does not apply: a closed set, recorded as the
 * result record's `reason` (README "Skip reasons"). Each answers what would
 * make the test run; the detail says the rest. */
#define SKIP_REASONS(X)                                                                                            \
	/* id, its code, is it "not applicable" (VERDICT_NA) rather than a skip */                                 \
	X(SKIP_NO_DEVICE, "no-device", false)		  /* no DMA engine to test with */                         \
	X(SKIP_NO_UNIT, "no-unit", true)		  /* no IOMMU of the kind the test is about */             \
	X(SKIP_UNSUPPORTED, "unsupported", true)	  /* the unit, engine or machine lacks the feature */      \
	X(SKIP_EMULATOR, "emulator", false)		  /* the unit claims it; the emulator lacks it */          \
	X(SKIP_PLATFORM, "platform", true)		  /* this build or architecture cannot (host, aarch64) */  \
	X(SKIP_MODEL_ONLY, "model-only", true)		  /* runs on a register-level model, none attached */      \
	X(SKIP_MACHINE_ONLY, "machine-only", true)	  /* needs the machine's own hardware, ran on a model */   \
	X(SKIP_REFUSED, "refused", false)		  /* the monitor refused what the firmware gave (named) */ \
	X(SKIP_NOT_IMPLEMENTED, "not-implemented", false) /* iommon does not do it yet */                          \
	X(SKIP_SETTING, "setting", false)		  /* a setting chose it (`set ...`) */                     \
	X(SKIP_INCONCLUSIVE, "inconclusive", false)	  /* the unit showed nothing to judge on this run */       \
	X(SKIP_EXCLUDED, "excluded", false)		  /* run --skip named it */                                \
	X(SKIP_STOPPED, "stopped", false)		  /* the operator stopped the run */                       \
	X(SKIP_REPLAY, "replay", false)			  /* an offline replay of a saved machine */

#define SKIP_REASON_ENUM(id, name, na) id,
/* From 1: a test_ctx's zero reason is no reason, recorded "unclassified",
 * which tests/report/check.py refuses. */
enum skip_reason { SKIP_UNCLASSIFIED, SKIP_REASONS(SKIP_REASON_ENUM) SKIP_REASON_COUNT };
#undef SKIP_REASON_ENUM

/* The code's name ("no-device"), or "unclassified". */
const char *skip_reason_name(enum skip_reason r);
/* Does a test skipped for `r` not apply to this machine (VERDICT_NA)? */
bool skip_reason_is_na(enum skip_reason r);

struct test_case {
	const char *name;    /* "<group>.<case>" */
	const char *summary; /* one line for `list` */
	void (*fn)(struct test_ctx *t);
	bool in_default_plan;
	const void *arg; /* what tells apart the cases that share a function (a kind, a page size) */
};

/* What `describe TEST` says of a test, written beside its function: what
 * it claims, and how it can fail (what a failure says about the unit).
 * Keyed by the function, so a case the backends share is described once. */
struct test_doc {
	void (*fn)(struct test_ctx *t);
	const char *claims;
	const char *fails;
};

struct test_group {
	const char *name;
	const char *summary;
	const struct test_case *cases;
	size_t n;
	bool hidden; /* run only by a case's full name: never by all, default or the group's name; not listed */
	void (*settings)(void); /* setting_add for each key its cases read; may be NULL */
	/* Does the group apply to this machine as it is now (its hardware, or
	 * the model attached)? When not, its `reason` (one that is_na) and a
	 * line in `why`, and none of its cases is run: each is recorded as not
	 * applicable. NULL: it always applies. */
	bool (*applies)(const struct test_group *g, enum skip_reason *reason, char *why, size_t cap);
	/* Does case `tc` apply, asked before it starts (before its breadcrumb
	 * is written and its watchdog armed, which cost a case tens of ms of
	 * firmware time), from what is already known, touching no hardware?
	 * When not, as `applies`: that case alone is recorded not applicable.
	 * True when it cannot tell: the case decides as it runs. NULL: the
	 * cases decide. */
	bool (*case_applies)(const struct test_group *g, const struct test_case *tc, enum skip_reason *reason,
			     char *why, size_t cap);
	/* Where its cases are described: doc tables, each ended by { NULL },
	 * the list ended by NULL (the group's own, then those it shares). */
	const struct test_doc *const *docs;
};

/* CRASHED: the test never finished (the machine reset, or a CPU exception
 * or abort ended the monitor); recorded on the next boot, counted as failed.
 * KNOWN: it failed, and iommon-known.txt lists it (core/monitor/known.h): counted
 * apart, never as failed.
 * NA: not applicable. The machine lacks what the test is about (no unit
 * of its kind, a feature the unit does not offer, the wrong architecture,
 * a model-only case with no model): a test_skip for one of the reasons
 * marked so above, or a group whose `applies` said no. Counted apart from
 * the skips, which keep meaning "this applies here but could not be
 * shown": nothing a person can do on this machine would make it run. */
/* The longest reason a result keeps whole (a claim, a skip's reason, a
 * finding): the records carry all of it, the console's tables wrap it. A
 * result record (RECORD_MAX) holds a detail and a finding this long. */
#define DETAIL_MAX 512

enum verdict { VERDICT_PASS, VERDICT_FAIL, VERDICT_SKIP, VERDICT_CRASHED, VERDICT_KNOWN, VERDICT_NA };

struct test_ctx {
	const struct test_case *tc;
	unsigned checks, failures;
	bool skipped;
	enum skip_reason reason;  /* why, when skipped */
	bool model;		  /* ran on a register-level model, not hardware */
	char detail[DETAIL_MAX];  /* first failure, the skip reason, or the test's note */
	char finding[DETAIL_MAX]; /* what the unit did that the spec allows and a person should know, or "" */
	uint64_t t0;		  /* the cycle counter when it began (the runner sets it) */
	uint64_t progress_at;	  /* ... when test_progress last printed (0: never) */
};

/* A claim: printed as one line; a false one fails the test. */
void report(struct test_ctx *t, bool ok, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The test does not apply here, for `reason`, which the detail explains.
 * Not a failure. */
void test_skip(struct test_ctx *t, enum skip_reason reason, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The one-line detail shown in the table when the test passes. */
void test_note(struct test_ctx *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A finding: the unit did something the specification allows and a
 * person bringing it up should know (it used a stale translation, an
 * invalidation dropped more than it named). Not a failure: the test still
 * passes on its claims, but the record carries `finding`, the console and
 * the reports show it apart from the passes. The first one is kept. */
void test_finding(struct test_ctx *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Where long work stands, for a person at the console: once the test has
 * run TEST_PROGRESS_AFTER_S, a line "... test: done/total what (N s)",
 * then at most one every TEST_PROGRESS_EVERY_S; never a record. Cheap to
 * call on every step. */
#define TEST_PROGRESS_AFTER_S 2
#define TEST_PROGRESS_EVERY_S 5
void test_progress(struct test_ctx *t, size_t done, size_t total, const char *what);

/* The test knows it is long: the watchdog gives it `seconds` from now
 * (never less than the budget it started with). */
void test_budget(struct test_ctx *t, unsigned seconds);

/* Has the operator asked to stop the run (Ctrl-C or Esc at the console)?
 * Long loops ask; a test that stops early returns through its own clean-up
 * (an IOMMU given back) and is recorded as skipped. Other keys typed
 * meanwhile are kept for the prompt (runner_getc). */
bool runner_stop_requested(void);
/* Is Ctrl-C or Esc typed now (since the last look)? For a clean-up wait,
 * which a stop that ended the test must not cut short, but a new one may. */
bool runner_stop_typed_now(void);
/* True, with the test marked skipped, when the run is being stopped. */
bool test_stopped(struct test_ctx *t);
/* The console's next byte: first what runner_stop_requested set aside. */
int runner_getc(void);

/* The device a test DMAs with, by its PCI address ("0000:01:00.0"), and
 * whether it is still there. Whoever hands the running test its device
 * (pci/dut.c: the device under test) hands with it the way to ask: `gone`
 * gives NULL while the device answers, else why not, naming the removal.
 * From then until the test ends the runner asks too: a series recorded
 * once the device is gone is cut (test_measure), and a test the device
 * vanished under does not pass. A test that passes or fails with it has
 * tested the device (verdict.h: `require device`). Outside a test it does
 * nothing. */
void test_uses_device(const char *bdf, const char *(*gone)(void));
/* The IOMMU unit a test works on, said before it takes the unit over: its
 * backend ("vtd"), its name ("dmar0"), and whether it is a register-level
 * model. A test that then passes or fails (a take-over the unit refuses
 * too) has tested the unit: a plan that tested none is inconclusive, not a
 * pass (verdict.h). Outside a test it does nothing. */
void test_uses_unit(const char *backend, const char *name, bool model);
/* NULL while the running test's device answers, or it uses none; else why
 * not. */
const char *test_device_gone(void);

struct measure {
	const char *path;    /* translation | fault | invalidation | map | unmap | dma | timer */
	const char *backend; /* "none", "vtd", ... */
	const char *variant;
	const char *unit; /* "cycles" */
	bool model;	  /* produced on a hardware model */
	const char *note; /* what a reader must know about these figures, or NULL */
	/* why the series ended before the length it set out to take (a DMA
	 * that failed), or NULL: it ran whole */
	const char *cut;
};
/* Computes statistics over `samples` (sorted in place) and emits a
 * `measure` record. A cut series (m->cut, or the test's device gone:
 * test_device_gone) says why in the record's `cut`, and its lab line's
 * result is fail: its figures are of a run that did not finish. */
void test_measure(struct test_ctx *t, const struct measure *m, uint64_t *samples, size_t n);

#endif
