#include "survive.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/json.h"
#include "core/base/platform.h"
#include "core/base/timing.h"
#include "monitor.h"
#include "results.h"
#include "settings.h"

static struct {
	bool active;	  /* a plan (script) is running */
	unsigned run;	  /* its run commands so far */
	struct crumb cur; /* what the note says, or will say */
	bool pending;	  /* a note read at boot waits for its plan */
	struct crumb found;
	bool replaying;	  /* before the resumed run */
	unsigned armed;	  /* watchdog seconds armed now, 0: off */
	unsigned started; /* the budget the running test started with */
	bool said_note, said_watchdog, said_unkept;
	bool started_up; /* discovery is over: the plan or the menu comes next */
} sv;

/* ---- the note and the watchdog ---------------------------------------------- */

static struct keep_cost note_cost;

struct keep_cost survive_cost(void)
{
	return note_cost;
}

/* True when the note holds c. */
static bool note_write(const struct crumb *c)
{
	char buf[CRUMB_MAX];
	const char *why = "the platform keeps no notes across a reset";
	if (crumb_format(c, buf, sizeof(buf)) < 0)
		why = "the breadcrumb does not fit";
	else if (platform->note_set) {
		uint64_t t0 = cycles_begin();
		why = platform->note_set(buf);
		note_cost.cycles += cycles_end() - t0;
		note_cost.writes++;
	}
	if (why && !sv.said_note) {
		sv.said_note = true;
		printf("warning: breadcrumb not kept (%s): a crash or hang will not be resumed\n", why);
	}
	return why == NULL;
}

static void note_clear(void)
{
	const char *why = platform->note_set ? platform->note_set(NULL) : NULL;
	if (why)
		printf("warning: the breadcrumb could not be cleared: %s\n", why);
}

static void arm(unsigned seconds)
{
	if (seconds == 0 && sv.armed == 0)
		return;
	const char *why = platform->watchdog ? platform->watchdog(seconds) : "the platform has no watchdog";
	if (why && seconds && !sv.said_watchdog) {
		sv.said_watchdog = true;
		printf("warning: watchdog not armed: %s\n", why);
	}
	sv.armed = why ? 0 : seconds;
}

static const char *check_watchdog(const char *v)
{
	unsigned long long n;
	if (strcmp(v, "auto") == 0 || strcmp(v, "off") == 0)
		return NULL;
	return parse_u64(v, &n) && n <= WATCHDOG_MAX_S
		   ? NULL
		   : "must be auto (600 s per test in unattended plans, off at the menu), off (or 0), or seconds "
		     "1..86400";
}

static const char *check_crash(const char *v)
{
	return strcmp(v, "reset") == 0 || strcmp(v, "firmware") == 0 ? NULL : "must be reset or firmware";
}

void survive_init(void)
{
	setting_add("watchdog", "auto",
		    "seconds a test may take before the firmware resets the machine: auto (600 unattended, off at the "
		    "menu), off (or 0), or 1..86400",
		    check_watchdog, NULL);
	setting_add(
	    "crash", "reset",
	    "after a CPU exception or abort, once what is held is given back: reset (a plan resumes) or firmware",
	    check_crash, NULL);
}

unsigned survive_budget(void)
{
	const char *v = setting_get("watchdog");
	if (!v || strcmp(v, "off") == 0)
		return 0;
	if (strcmp(v, "auto") == 0)
		return sv.active ? WATCHDOG_DEFAULT_S : 0;
	unsigned long long n; /* as check_watchdog read it: "0x10" is 16 here too */
	return parse_u64(v, &n) && n <= WATCHDOG_MAX_S ? (unsigned)n : 0;
}

unsigned survive_armed(void)
{
	return sv.armed;
}

void survive_extend(unsigned seconds)
{
	if (!sv.armed)
		return;
	unsigned b = seconds > sv.started ? seconds : sv.started;
	if (b > WATCHDOG_MAX_S)
		b = WATCHDOG_MAX_S;
	if (b != sv.armed)
		printf("    watchdog: %u s from now (the test knows it is long)\n", b);
	arm(b);
	if (sv.active && sv.cur.phase == CRUMB_TEST && sv.cur.budget != b) {
		sv.cur.budget = b;
		note_write(&sv.cur);
	}
}

/* ---- records ----------------------------------------------------------------- */

static void info_test_start(const struct test_case *tc, unsigned budget)
{
	char buf[RECORD_MAX];
	struct json j;
	record_begin(&j, buf, sizeof(buf), "info");
	json_str(&j, "what", "test-start");
	json_str(&j, "test", tc->name);
	json_u64(&j, "run", sv.run);
	json_u64(&j, "watchdog_s", budget);
	record_emit(&j);
}

static void info_resume(const struct crumb *f)
{
	char buf[RECORD_MAX];
	struct json j;
	record_begin(&j, buf, sizeof(buf), "info");
	json_str(&j, "what", "resume");
	json_str(&j, "plan", f->source);
	json_u64(&j, "run", f->run);
	json_str(&j, "phase", crumb_phase_name(f->phase));
	json_str(&j, "test", f->test);
	json_str(&j, "crash", f->crash);
	json_u64(&j, "resumes", f->resumes + 1);
	record_emit(&j);
}

/* ---- boot and plan ------------------------------------------------------------- */

void survive_boot(void)
{
	char buf[CRUMB_MAX];
	const char *why = NULL;
	sv.pending = false;
	sv.started_up = true;
	if (!platform->note_get)
		return;
	int n = platform->note_get(buf, sizeof(buf), &why);
	if (n == 0)
		return;
	if (n < 0) {
		printf("warning: the breadcrumb an earlier boot left cannot be read (%s): cleared, nothing resumed\n",
		       why);
		note_clear();
		return;
	}
	why = crumb_parse(buf, &sv.found);
	if (why) {
		printf("warning: the breadcrumb an earlier boot left is not valid (%s): cleared, nothing resumed\n",
		       why);
		note_clear();
		return;
	}
	sv.pending = true;
	const struct crumb *f = &sv.found;
	static const char *const when[] = { "during test ", "after it ended", "while it was being resumed",
					    "before its first test" };
	printf("breadcrumb: plan %s did not finish: run #%u, %s%s%s%s\n", f->source, f->run, when[f->phase], f->test,
	       f->crash[0] ? ": " : "", f->crash);
}

void survive_boot_end(void)
{
	if (!sv.pending)
		return;
	sv.pending = false;
	printf("warning: the breadcrumb of plan %s was not taken: no plan ran on this boot; cleared\n",
	       sv.found.source);
	note_clear();
}

static void crashed_detail(const struct crumb *f, char *out, size_t cap)
{
	if (f->crash[0])
		snprintf(out, cap, "%s", f->crash);
	else if (f->budget)
		snprintf(out, cap,
			 "the machine reset while the test ran: its %u s watchdog budget ran out (or a reset or power "
			 "loss nobody asked for)",
			 f->budget);
	else
		snprintf(out, cap,
			 "the machine reset while the test ran (no watchdog was armed: a reset or power loss)");
}

bool survive_plan_begin(uint64_t plan, const char *name)
{
	memset(&sv.cur, 0, sizeof(sv.cur));
	snprintf(sv.cur.source, sizeof(sv.cur.source), "%s", name);
	sv.cur.plan = plan;
	sv.cur.phase = CRUMB_EARLY;
	sv.active = true;
	sv.run = 0;
	sv.replaying = false;
	if (!sv.pending)
		return true;
	sv.pending = false;
	struct crumb *f = &sv.found;
	if (strcmp(f->source, name) != 0 || f->plan != sv.cur.plan) {
		printf(
		    "warning: the breadcrumb is of plan %s as it was; %s is not that plan now: cleared, %s runs from "
		    "the start\n",
		    f->source, name, name);
		note_clear();
		return true;
	}
	if (f->phase == CRUMB_RESUME || f->phase == CRUMB_EARLY) {
		printf("error: %s: the monitor itself went down %s%s%s; not running it again (cleared): the menu "
		       "opens\n",
		       name, f->phase == CRUMB_EARLY ? "before the plan's first test" : "while resuming the plan",
		       f->crash[0] ? ": " : "", f->crash);
		note_clear();
		sv.active = false;
		return false;
	}
	const struct test_case *tc = NULL;
	if (f->phase == CRUMB_TEST && !(tc = runner_find(f->test))) {
		printf("warning: the breadcrumb names test '%s', which this monitor does not have: cleared, %s runs "
		       "from the start\n",
		       f->test, name);
		note_clear();
		return true;
	}
	if (f->results[0]) {
		const char *why = results_reopen(f->results);
		if (why) {
			printf("warning: the breadcrumb names %s: %s; cleared, %s runs from the start\n", f->results,
			       why, name);
			note_clear();
			return true;
		}
	}
	if (f->results_lost) {
		results_lost_before();
		printf("error: %s: the boot before the reset could not save its records whole: the verdict stays "
		       "'plan could not run'\n",
		       name);
	}
	char after[64];
	if (tc)
		snprintf(after, sizeof(after), "test %s", tc->name);
	else
		snprintf(after, sizeof(after), "run #%u", f->run);
	printf("resume: %s goes on after %s (resume %u); results go on in %s\n", name, after, f->resumes + 1,
	       f->results[0] ? f->results : "(none were saved)");
	sv.replaying = true;
	sv.cur = *f;
	sv.cur.phase = CRUMB_RESUME;
	sv.cur.resumes = f->resumes + 1;
	sv.cur.crash[0] = '\0';
	note_write(&sv.cur);
	info_resume(f);
	runner_seed(f->session);
	if (tc) {
		char detail[sizeof(f->crash) + 40];
		crashed_detail(f, detail, sizeof(detail));
		runner_record_crashed(tc, detail);
		runner_resume(tc->name, f->this_run);
	} else if (f->crash[0]) {
		printf("error: %s: the monitor went down after run #%u: %s\n", name, f->run, f->crash);
		monitor_plan_error();
	}
	return true;
}

void survive_plan_end(void)
{
	if (!sv.active)
		return;
	if (sv.replaying)
		printf("warning: resume: the plan ended before its run #%u\n", sv.found.run);
	sv.active = false;
	sv.replaying = false;
	arm(0);
	note_clear();
}

bool survive_replaying(void)
{
	return sv.replaying;
}

bool survive_run_begin(int nsel, char **sel)
{
	(void)nsel, (void)sel;
	if (!sv.active)
		return true;
	sv.run++;
	if (!sv.replaying)
		return true;
	const struct crumb *f = &sv.found;
	if (sv.run < f->run || (sv.run == f->run && f->phase == CRUMB_RAN)) {
		printf("resume: run #%u ran before the reset: not repeated\n", sv.run);
		if (sv.run == f->run)
			sv.replaying = false;
		return false;
	}
	sv.replaying = false;
	printf("resume: run #%u goes on after %s\n", sv.run, f->test);
	return true;
}

void survive_test_start(const struct test_case *tc, struct tally this_run, struct tally session)
{
	unsigned b = survive_budget();
	sv.started = b;
	arm(b);
	if (!sv.active)
		return;
	sv.cur.run = sv.run;
	sv.cur.phase = CRUMB_TEST;
	snprintf(sv.cur.test, sizeof(sv.cur.test), "%s", tc->name);
	snprintf(sv.cur.results, sizeof(sv.cur.results), "%s", results_path());
	sv.cur.results_lost = results_failure() != NULL;
	sv.cur.this_run = this_run;
	sv.cur.session = session;
	sv.cur.budget = sv.armed;
	sv.cur.crash[0] = '\0';
	if (!note_write(&sv.cur) && sv.armed) {
		/* a watchdog reset would start the plan over, which would hang
		 * in the same test and be reset again, for ever */
		arm(0);
		if (!sv.said_unkept) {
			sv.said_unkept = true;
			printf("warning: watchdog not armed in this plan: without a breadcrumb a reset would start the "
			       "plan over and hang in the same test again\n");
		}
	}
	info_test_start(tc, sv.armed);
}

void survive_run_end(struct tally session)
{
	arm(0);
	if (!sv.active)
		return;
	sv.cur.run = sv.run;
	sv.cur.phase = CRUMB_RAN;
	sv.cur.test[0] = '\0';
	snprintf(sv.cur.results, sizeof(sv.cur.results), "%s", results_path());
	sv.cur.results_lost = results_failure() != NULL;
	sv.cur.this_run = (struct tally){ 0 };
	sv.cur.session = session;
	sv.cur.budget = 0;
	note_write(&sv.cur);
}

/* ---- the crash path ------------------------------------------------------------------ */

void survive_crash(const char *what)
{
	static volatile unsigned depth;
	unsigned d = ++depth;
	if (platform->watchdog)
		platform->watchdog(WATCHDOG_CRASH_S); /* a give-back that hangs is reset */
	const char *test = runner_current();
	/* while the monitor starts, a reset would only crash the same way
	 * again, and no `set crash` can have been read yet */
	bool starting = !sv.started_up;
	const char *then = setting_get("crash");
	bool to_firmware = d == 1 && (starting || (then && strcmp(then, "firmware") == 0));
	bool unkept = false; /* a plan runs but its breadcrumb could not be written */
	if (d == 1) {
		printf("\ncrash: %s\ncrash: test running: %s\n", what, test ? test : "none");
		if (sv.active) {
			sv.cur.results_lost = sv.cur.results_lost || results_failure() != NULL;
			size_t k = 0;
			for (const char *s = what; *s && k + 1 < sizeof(sv.cur.crash); s++)
				sv.cur.crash[k++] = (unsigned char)*s >= 0x20 && (unsigned char)*s <= 0x7e ? *s : '?';
			sv.cur.crash[k] = '\0';
			/* without it the next boot runs the plan from its start and
			 * crashes here again, reset after reset */
			unkept = !note_write(&sv.cur);
			to_firmware = to_firmware || unkept;
		}
		char buf[RECORD_MAX];
		struct json j;
		record_begin(&j, buf, sizeof(buf), "info");
		json_str(&j, "what", "crash");
		json_str(&j, "test", test ? test : "");
		json_str(&j, "reason", what);
		json_str(&j, "then", to_firmware ? "firmware" : "reset");
		record_emit(&j);
		printf("crash: giving back what is held\n");
		monitor_release();
		timing_fini();
	} else {
		printf("\ncrash: %s, while handling an earlier crash: nothing more is given back\n", what);
	}
	if (to_firmware) {
		printf("crash: returning to the firmware (%s)\n",
		       starting ? "the monitor was starting: a reset would crash again"
		       : unkept ? "the breadcrumb could not be kept: after a reset the plan would run from its start "
				  "and crash again"
				: "set crash firmware");
		fflush(stdout);
		results_close();
		if (platform->watchdog)
			platform->watchdog(0);
		platform->exit(EXIT_FIRMWARE, 1);
		if (platform->watchdog)
			platform->watchdog(WATCHDOG_CRASH_S);
	}
	char after[80] = "";
	if (sv.active && sv.cur.phase == CRUMB_TEST)
		snprintf(after, sizeof(after), "; the plan goes on after this test on the next boot");
	else if (sv.active && sv.cur.phase == CRUMB_RAN)
		snprintf(after, sizeof(after), "; the plan goes on after its run #%u on the next boot", sv.cur.run);
	else if (sv.active) /* survive_plan_begin refuses these: a reset would only repeat the crash */
		snprintf(after, sizeof(after),
			 "; the next boot does not run the plan again (it went down outside a test)");
	printf("crash: resetting the machine%s\n", after);
	fflush(stdout);
	if (d == 1)
		results_close();
	platform->exit(EXIT_RESET, 1);
	/* the firmware did not reset: the watchdog armed above will */
	for (;;)
		platform->idle_us(1000000);
}
