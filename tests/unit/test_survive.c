/* A run that survives a crash: the breadcrumb's text and its checks, the
 * crashed verdict, the watchdog budget, hidden cases, and the resume of a
 * plan after a reset, driven through the same entry points as at boot
 * (survive_boot, monitor_exec_script) with the note kept by the host seam. */
#include "unit.h"

#include <sys/stat.h>

#include "core/base/macros.h"
#include "core/base/timing.h"
#include "core/monitor/monitor.h"
#include "core/monitor/results.h"
#include "core/monitor/settings.h"
#include "core/monitor/survive.h"
#include "tests/catalogue/catalogue.h"
#include "tests/host/platform_host.h"

static const char *volume;

static void calibrate(void *arg)
{
	(void)arg;
	timing_init(NULL, "auto");
}

static int setup(void **state)
{
	(void)state;
	static char vol[] = "/tmp/iommon-survive-XXXXXX";
	assert_non_null(mkdtemp(vol));
	volume = vol;
	setenv("IOMMON_VOLUME", vol, 1);
	unsetenv("IOMMON_NVRAM");
	platform = &host_platform;
	settings_init();
	setting_set("records", "console"); /* the tests read them there */
	survive_init();
	runner_init(iommon_catalogue());
	capture_stdout(calibrate, NULL);
	return 0;
}

static const struct crumb sample = {
	.source = "iommon-Standard-PC-Q35-ICH9-2009.cfg", /* a machine's own plan (core/tables/smbios.h) */
	.plan = 0x0123456789abcdefull,
	.run = 2,
	.phase = CRUMB_TEST,
	.test = "timer.stall",
	.results = "iommon/results/Standard-PC-Q35-ICH9-2009/20261130-120000.jsonl",
	.this_run = { 1, 2, 3, 1, 2, 1 },
	.session = { 4, 5, 6, 2, 3, 1 },
	.budget = 600,
	.resumes = 1,
	.crash = "CPU exception 13 (#GP general protection), error code 0x0 at RIP 0x1000",
};

static void crumb_round_trip(void **state)
{
	(void)state;
	char buf[CRUMB_MAX];
	int n = crumb_format(&sample, buf, sizeof(buf));
	assert_true(n > 0);
	assert_int_equal((size_t)n, strlen(buf));
	struct crumb c;
	assert_null(crumb_parse(buf, &c));
	assert_string_equal(c.source, sample.source);
	assert_true(c.plan == sample.plan);
	assert_int_equal(c.run, 2);
	assert_int_equal(c.phase, CRUMB_TEST);
	assert_string_equal(c.test, "timer.stall");
	assert_string_equal(c.results, sample.results);
	assert_memory_equal(&c.this_run, &sample.this_run, sizeof(c.this_run));
	assert_memory_equal(&c.session, &sample.session, sizeof(c.session));
	assert_int_equal(c.budget, 600);
	assert_int_equal(c.resumes, 1);
	assert_string_equal(c.crash, sample.crash);
	assert_false(c.results_lost);
	struct crumb lost = sample;
	lost.results_lost = true;
	assert_true(crumb_format(&lost, buf, sizeof(buf)) > 0);
	assert_null(crumb_parse(buf, &c));
	assert_true(c.results_lost);
	assert_true(crumb_format(&sample, buf, sizeof(buf) - 32) > 0);
	strcat(buf, "results_lost=0\n"); /* written only as 1 */
	assert_non_null(crumb_parse(buf, &c));
	/* too small a buffer is refused, not cut */
	assert_int_equal(crumb_format(&sample, buf, 40), -1);
}

/* Replaces the value of `key` in the sample's text (or drops the line when
 * value is NULL) and parses the result. */
static const char *parse_with(const char *key, const char *value)
{
	char buf[CRUMB_MAX], out[CRUMB_MAX + 256];
	assert_true(crumb_format(&sample, buf, sizeof(buf)) > 0);
	size_t k = 0, klen = strlen(key);
	for (char *p = buf; *p;) {
		char *nl = strchr(p, '\n');
		size_t len = (size_t)(nl - p) + 1;
		if (strncmp(p, key, klen) == 0 && p[klen] == '=') {
			if (value)
				k += (size_t)snprintf(out + k, sizeof(out) - k, "%s=%s\n", key, value);
		} else {
			memcpy(out + k, p, len);
			k += len;
		}
		p += len;
	}
	out[k] = '\0';
	struct crumb c;
	return crumb_parse(out, &c);
}

static void crumb_refuses_what_it_did_not_write(void **state)
{
	(void)state;
	struct crumb c;
	assert_non_null(crumb_parse("", &c));
	assert_non_null(crumb_parse("iommon-breadcrumb 2\nsource=x\n", &c));
	assert_non_null(strstr(crumb_parse("iommon-breadcrumb 1\nsource=iommon.cfg", &c), "no end"));
	/* numbers: decimal digits only, in range */
	static const char *const bad_runs[] = { " 1", "-1", "+1", "010", "0x10", "0", "1 ", "99999999999", "", "1e3" };
	/* run 0 only before the plan's first run command (phase early) */
	struct crumb early = sample;
	early.phase = CRUMB_EARLY;
	early.run = 0;
	early.test[0] = '\0';
	char text[CRUMB_MAX];
	assert_true(crumb_format(&early, text, sizeof(text)) > 0);
	assert_null(crumb_parse(text, &c));
	assert_int_equal(c.phase, CRUMB_EARLY);
	assert_int_equal(c.run, 0);
	for (size_t i = 0; i < ARRAY_SIZE(bad_runs); i++)
		assert_non_null(parse_with("run", bad_runs[i]));
	assert_null(parse_with("run", "7"));
	assert_non_null(parse_with("budget", "86401"));
	assert_non_null(parse_with("plan", "0123456789abcde"));	 /* 15 digits */
	assert_non_null(parse_with("plan", "0123456789ABCDEF")); /* we write lower case */
	assert_non_null(parse_with("tally", "1,2,3"));		 /* four counts */
	assert_non_null(parse_with("tally", "1,2,3,4"));	 /* crashed among failed: 4 > 2 */
	assert_null(parse_with("tally", "1,2,3,0"));		 /* from before known failures */
	assert_null(parse_with("tally", "1,2,3,0,3,1"));
	assert_non_null(parse_with("tally", "1,2,3,0,4"));   /* five counts */
	assert_non_null(parse_with("tally", "1,2,3,0,4,2")); /* listed passes among the passed: 2 > 1 */
	assert_non_null(parse_with("session", "1,,3,0"));
	assert_non_null(parse_with("session", "0,5,6,2"));     /* fewer passes than the run had */
	assert_non_null(parse_with("session", "4,5,6,2,1,1")); /* fewer known failures than the run had */
	assert_non_null(parse_with("phase", "running"));
	/* only files the monitor could have made: never a path elsewhere */
	static const char *const bad_paths[] = { "../iommon.cfg",
						 "/etc/passwd.jsonl",
						 "iommon/results/../../EFI/BOOT/BOOTX64.EFI",
						 "iommon/results/a/b/c.jsonl",
						 "iommon/results/.a/b.jsonl",
						 "iommon/results//b.jsonl",
						 "iommon/results/a/.jsonl",
						 "iommon/results/x.txt",
						 "iommon/results/.jsonl",
						 "IOMMON/RESULTS/x.jsonl" };
	for (size_t i = 0; i < ARRAY_SIZE(bad_paths); i++)
		assert_non_null(parse_with("results", bad_paths[i]));
	assert_null(parse_with("results", ""));
	assert_null(parse_with("results", "iommon/results/20261130-120000.jsonl")); /* no machine folder */
	assert_non_null(parse_with("test", "Timer.Stall"));
	assert_non_null(parse_with("test", "timer stall"));
	assert_non_null(parse_with("test", NULL)); /* phase test needs it */
	assert_non_null(parse_with("source", NULL));
	assert_null(parse_with("crash", NULL)); /* a plain reset has none */
	assert_non_null(parse_with("crash", "a\tb"));
	char more[CRUMB_MAX + 16];
	crumb_format(&sample, more, sizeof(more));
	strcat(more, "colour=red\n");
	const char *why = crumb_parse(more, &c);
	assert_non_null(why);
	assert_non_null(strstr(why, "unknown key 'colour'"));
	crumb_format(&sample, more, sizeof(more));
	strcat(more, "run=3\n");
	why = crumb_parse(more, &c);
	assert_non_null(why);
	assert_non_null(strstr(why, "second time"));
}

static void hidden_cases_run_only_by_name(void **state)
{
	(void)state;
	char *all[] = { "all" }, *def[] = { "default" }, *grp[] = { "selftest" }, *one[] = { "selftest.hang" };
	assert_false(runner_selector_known("selftest"));
	assert_true(runner_selector_known("selftest.hang"));
	assert_true(runner_selector_known("selftest.fault"));
	size_t n_all = runner_count(1, all);
	assert_true(n_all > 0);
	assert_int_equal(runner_count(1, grp), 0);
	assert_int_equal(runner_count(1, one), 1);
	char *all_and_one[] = { "all", "selftest.hang" };
	assert_int_equal(runner_count(2, all_and_one), n_all + 1);
	assert_true(runner_count(1, def) < n_all);
	assert_non_null(runner_find("selftest.hang"));
	assert_null(runner_find("selftest.nosuch"));
}

struct plan_run {
	const char *text, *name;
	enum cmd_status st;
};

static void do_script(void *a)
{
	struct plan_run *s = a;
	s->st = monitor_exec_script(s->text, s->name);
}

static void do_line(void *a)
{
	monitor_exec_line(a, NULL);
}

static void do_boot_end(void *a)
{
	(void)a;
	survive_boot_end();
}

static void do_boot(void *a)
{
	(void)a;
	survive_boot();
}

static const char *boot_and_run(struct plan_run *s)
{
	static char both[65536];
	const char *out = capture_stdout(do_boot, NULL);
	snprintf(both, sizeof(both), "%s", out);
	out = capture_stdout(do_script, s);
	strncat(both, out, sizeof(both) - strlen(both) - 1);
	return both;
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *p = hay; (p = strstr(p, needle)) != NULL; p++)
		n++;
	return n;
}

static char *slurp(const char *path)
{
	static char buf[65536];
	char full[512];
	snprintf(full, sizeof(full), "%s/%s", volume, path);
	FILE *f = fopen(full, "r");
	if (!f)
		return NULL;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void put_file(const char *path, const char *text)
{
	char full[512];
	snprintf(full, sizeof(full), "%s/iommon", volume);
	mkdir(full, 0755);
	snprintf(full, sizeof(full), "%s/iommon/results", volume);
	mkdir(full, 0755);
	snprintf(full, sizeof(full), "%s/%s", volume, path);
	FILE *f = fopen(full, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static const char plan[] = "countdown 0\n"
			   "set timer.samples 100\n"
			   "run timer.counter\n"
			   "run timer.counter timer.stall timer.overhead\n"
			   "run timer.counter\n";

static void plant(const char *name, const char *text, enum crumb_phase phase, unsigned run, const char *test,
		  const char *results)
{
	struct crumb c = { .plan = plan_hash(name, text), .run = run, .phase = phase, .budget = 600 };
	snprintf(c.source, sizeof(c.source), "%s", name);
	snprintf(c.test, sizeof(c.test), "%s", test ? test : "");
	snprintf(c.results, sizeof(c.results), "%s", results);
	/* run #1 passed one test; run #2 had passed timer.counter */
	c.session = (struct tally){ 2, 0, 0, 0 };
	c.this_run = (struct tally){ 1, 0, 0, 0 };
	char buf[CRUMB_MAX];
	assert_true(crumb_format(&c, buf, sizeof(buf)) > 0);
	host_note_put(buf);
}

/* The reset came during timer.stall in the plan's second run: it is
 * recorded crashed once, the first run and the countdown are not
 * repeated, the second run goes on after it, the third runs, everything
 * lands in the same file (a record the reset cut is dropped), the counts
 * carry over, and the note is gone when the plan ends. */
static void resume_after_a_crashed_test(void **state)
{
	(void)state;
	results_close();
	const char *file = "iommon/results/resume-1.jsonl";
	put_file(file, "{\"kind\":\"info\",\"what\":\"platform\"}\n{\"kind\":\"info\",\"what\":\"test-st");
	plant("t.cfg", plan, CRUMB_TEST, 2, "timer.overhead", file);
	struct plan_run s = { plan, "t.cfg", CMD_OK };
	const char *out = boot_and_run(&s);
	assert_int_equal(s.st, CMD_OK);
	assert_non_null(strstr(out, "breadcrumb: plan t.cfg did not finish: run #2, during test timer.overhead"));
	assert_non_null(strstr(out, "resume: the countdown is not repeated"));
	assert_null(strstr(out, "unattended run in"));
	assert_non_null(strstr(out, "resume: run #1 ran before the reset: not repeated"));
	assert_non_null(strstr(out, "resume: run #2 goes on after timer.overhead"));
	assert_int_equal(count(out, "\"verdict\":\"crashed\""), 1);
	assert_non_null(strstr(out, "\"test\":\"timer.overhead\",\"verdict\":\"crashed\",\"checks\":0,\"failures\":1,"
				    "\"detail\":\"the machine reset while the test ran: its 600 s watchdog budget"));
	/* run #2 (catalogue order: counter, calibration, overhead, stall):
	 * timer.counter was before the reset, timer.stall runs now (not applicable on
	 * the host, calibrated against Stall itself) */
	assert_int_equal(count(out, "  timer.counter: "), 1); /* only run #3 runs it */
	assert_int_equal(count(out, "  timer.overhead: "), 0);
	assert_int_equal(count(out, "  timer.stall: "), 1);
	assert_non_null(strstr(out, "\"kind\":\"summary\",\"passed\":1,\"failed\":1,\"skipped\":0,\"crashed\":1"));
	assert_non_null(strstr(out, "\n1 passed, 1 failed, 0 skipped, 1 not applicable\n"));
	assert_non_null(strstr(out, "{\"kind\":\"info\",\"what\":\"test-start\",\"test\":\"timer.counter\",\"run\":3,"
				    "\"watchdog_s\":600}"));
	/* the session: the 2 passes from before the reset, the crash, the
	 * timer.stall that does not apply and run #3's timer.counter */
	struct tally after = runner_session();
	assert_int_equal(after.passed, 3);
	assert_int_equal(after.failed, 1);
	assert_int_equal(after.skipped, 0);
	assert_int_equal(after.na, 1);
	assert_int_equal(after.crashed, 1);
	assert_int_equal(monitor_verdict(), monitor_plan_errors() ? 2 : 1);
	assert_string_equal(host_note_text(), "");
	assert_int_equal(host_watchdog_armed(), 0);

	const char *text = slurp(file);
	assert_non_null(text);
	/* the cut record was dropped, not glued to the next */
	assert_null(strstr(text, "test-st{"));
	assert_null(strstr(text, "}{"));
	assert_true(strncmp(text, "{\"kind\":\"info\",\"what\":\"platform\"}\n{", 35) == 0);
	assert_int_equal(count(text, "\"verdict\":\"crashed\""), 1);
	assert_non_null(strstr(text, "\"what\":\"resume\",\"plan\":\"t.cfg\",\"run\":2,\"phase\":\"test\""));
	for (const char *p = text; *p; p = strchr(p, '\n') + 1) {
		assert_int_equal(*p, '{'); /* every line a whole record */
		const char *nl = strchr(p, '\n');
		assert_non_null(nl);
		assert_int_equal(nl[-1], '}');
	}
	results_close();
}

/* A note that does not match the plan, names a test or a file that is
 * gone, or was left while resuming, is reported and cleared, not trusted. */
static void bad_breadcrumbs_are_not_trusted(void **state)
{
	(void)state;
	const char *file = "iommon/results/resume-2.jsonl";
	put_file(file, "");
	struct plan_run s = { plan, "t.cfg", CMD_OK };

	results_close();
	plant("t.cfg", "run timer.counter\n", CRUMB_TEST, 1, "timer.counter", file); /* the plan changed */
	const char *out = boot_and_run(&s);
	assert_non_null(strstr(out, "is not that plan now: cleared, t.cfg runs from the start"));
	assert_null(strstr(out, "\"verdict\":\"crashed\""));
	assert_non_null(strstr(out, "unattended run in")); /* from the start: the countdown too */
	assert_string_equal(host_note_text(), "");

	results_close();
	plant("t.cfg", plan, CRUMB_TEST, 2, "timer.gone", file);
	out = boot_and_run(&s);
	assert_non_null(strstr(out, "names test 'timer.gone', which this monitor does not have: cleared"));
	assert_null(strstr(out, "\"verdict\":\"crashed\""));

	results_close();
	plant("t.cfg", plan, CRUMB_TEST, 2, "timer.stall", "iommon/results/gone.jsonl");
	out = boot_and_run(&s);
	assert_non_null(strstr(out, "names iommon/results/gone.jsonl: cannot reopen it"));
	assert_non_null(strstr(out, "no such file"));
	assert_null(strstr(out, "\"verdict\":\"crashed\""));

	results_close();
	host_note_put("iommon-breadcrumb 1\nsource=t.cfg\nrun=1\n");
	out = boot_and_run(&s);
	assert_non_null(strstr(out, "is not valid ('plan' is missing): cleared, nothing resumed"));
	assert_string_equal(host_note_text(), "");

	/* the monitor went down while resuming: the plan does not run again */
	results_close();
	plant("t.cfg", plan, CRUMB_RESUME, 2, NULL, file);
	out = boot_and_run(&s);
	assert_int_equal(s.st, CMD_MENU);
	assert_non_null(strstr(out, "went down while resuming the plan; not running it again"));
	assert_null(strstr(out, "  timer.counter: "));
	assert_string_equal(host_note_text(), "");

	/* a note no plan takes is cleared before the menu */
	plant("t.cfg", plan, CRUMB_TEST, 2, "timer.stall", file);
	capture_stdout(do_boot, NULL);
	out = capture_stdout(do_boot_end, NULL);
	assert_non_null(strstr(out, "no plan ran on this boot; cleared"));
	assert_string_equal(host_note_text(), "");
	results_close();
}

/* The reset came after run #2 had ended (between commands): runs #1 and
 * #2 are not repeated, nothing is recorded crashed, run #3 runs. */
static void resume_after_a_finished_run(void **state)
{
	(void)state;
	results_close();
	const char *file = "iommon/results/resume-3.jsonl";
	put_file(file, "");
	plant("t.cfg", plan, CRUMB_RAN, 2, NULL, file);
	struct plan_run s = { plan, "t.cfg", CMD_OK };
	const char *out = boot_and_run(&s);
	assert_non_null(strstr(out, "resume: run #1 ran before the reset: not repeated"));
	assert_non_null(strstr(out, "resume: run #2 ran before the reset: not repeated"));
	assert_null(strstr(out, "\"verdict\":\"crashed\""));
	assert_int_equal(count(out, "  timer.counter: "), 1);
	assert_null(strstr(out, "  timer.stall: "));
	results_close();
}

/* Each test of a plan leaves a breadcrumb before it starts and gets the
 * watchdog's budget; at the menu neither happens unless asked for. */
static void breadcrumbs_and_budget(void **state)
{
	(void)state;
	results_close();
	struct plan_run s = { "set watchdog 7\nrun timer.counter\n", "w.cfg", CMD_OK };
	const char *out = capture_stdout(do_script, &s);
	assert_non_null(strstr(out, "{\"kind\":\"info\",\"what\":\"test-start\",\"test\":\"timer.counter\",\"run\":1,"
				    "\"watchdog_s\":7}"));
	assert_int_equal(host_watchdog_armed(), 0); /* disarmed when the run ended */
	assert_string_equal(host_note_text(), "");  /* cleared when the plan ended */

	assert_null(setting_set("watchdog", "auto"));
	assert_int_equal(survive_budget(), 0); /* the menu: off */
	assert_null(setting_set("watchdog", "30"));
	assert_int_equal(survive_budget(), 30);
	assert_null(setting_set("watchdog", "off"));
	assert_int_equal(survive_budget(), 0);
	assert_null(setting_set("watchdog", "0"));
	assert_int_equal(survive_budget(), 0);
	assert_null(setting_set("watchdog", "0x10")); /* what the check accepts, the budget reads the same */
	assert_int_equal(survive_budget(), 16);
	assert_non_null(setting_set("watchdog", "86401"));
	assert_non_null(setting_set("watchdog", "-5"));
	assert_non_null(setting_set("crash", "halt"));
	assert_null(setting_set("crash", "firmware"));
	assert_null(setting_set("crash", "reset"));

	/* interactive runs leave no breadcrumb and arm no watchdog */
	assert_null(setting_set("watchdog", "auto"));
	out = capture_stdout(do_line, "run timer.counter");
	assert_non_null(strstr(out, "  timer.counter: "));
	assert_null(strstr(out, "test-start"));
	assert_string_equal(host_note_text(), "");
	results_close();
}

static void do_crashed(void *name)
{
	runner_record_crashed(runner_find(name), "a reset");
}

static unsigned armed_inside[3];

static void t_long(struct test_ctx *t)
{
	armed_inside[0] = host_watchdog_armed();
	test_budget(t, 900); /* it knows it is long */
	armed_inside[1] = host_watchdog_armed();
	test_budget(t, 1); /* never less than it started with */
	armed_inside[2] = host_watchdog_armed();
	report(t, true, "ran");
}

static void t_masks(struct test_ctx *t)
{
	struct timed r;
	timed_begin(&r);
	platform->stall_us(TIMED_MASK_BOUND_US + 50000);
	timed_end(&r);
	report(t, true, "ran");
}

static const struct test_case own_cases[] = {
	{ "own.long", "extends its budget", t_long, false },
	{ "own.masks", "masks for too long", t_masks, false },
};
static const struct test_group own_group = { "own", "tests of the runner", own_cases, 2, false };
static const struct test_group *const own_catalogue[] = { &own_group, NULL };

/* A test that knows it is long extends its watchdog budget, never below
 * the one it started with; one that masks interrupts past the bound is
 * named on the console. */
static void budget_extension_and_masked_regions(void **state)
{
	(void)state;
	results_close();
	runner_init(own_catalogue);
	struct plan_run s = { "set watchdog 7\nrun own.long\n", "b.cfg", CMD_OK };
	capture_stdout(do_script, &s);
	assert_int_equal(armed_inside[0], 7);
	assert_int_equal(armed_inside[1], 900);
	assert_int_equal(armed_inside[2], 7);
	assert_int_equal(host_watchdog_armed(), 0);
	const char *out = capture_stdout(do_line, "run own.masks");
	assert_non_null(strstr(out, "warning: a timed region kept interrupts masked for"));
	assert_non_null(strstr(out, "past the 250 ms bound"));
	out = capture_stdout(do_line, "run own.long");
	assert_null(strstr(out, "masked"));
	runner_init(iommon_catalogue());
	assert_null(setting_set("watchdog", "auto"));
	results_close();
}

/* A breadcrumb the firmware will not keep: no watchdog either, since a
 * watchdog reset would start the plan over and hang in the same test
 * again, reset after reset. */
static void no_watchdog_without_a_breadcrumb(void **state)
{
	(void)state;
	results_close();
	runner_init(own_catalogue);
	setenv("IOMMON_NVRAM", "/nonexistent-iommon-dir/nvram", 1);
	armed_inside[0] = 99;
	struct plan_run s = { "set watchdog 7\nrun own.long\n", "n.cfg", CMD_OK };
	const char *out = capture_stdout(do_script, &s);
	unsetenv("IOMMON_NVRAM");
	runner_init(iommon_catalogue());
	assert_non_null(strstr(out, "warning: breadcrumb not kept ("));
	assert_non_null(strstr(out, "warning: watchdog not armed in this plan"));
	assert_int_equal(armed_inside[0], 0);
	assert_int_equal(armed_inside[1], 0); /* test_budget arms nothing either */
	assert_int_equal(host_watchdog_armed(), 0);

	/* selftest.hang would spin with nothing to end it: a skip, named */
	setenv("IOMMON_NVRAM", "/nonexistent-iommon-dir/nvram", 1);
	struct plan_run h = { "set watchdog 1\nrun selftest.hang\n", "h.cfg", CMD_OK };
	out = capture_stdout(do_script, &h);
	unsetenv("IOMMON_NVRAM");
	assert_non_null(strstr(out, "\"test\":\"selftest.hang\",\"verdict\":\"na\"")); /* no watchdog here */
	assert_non_null(
	    strstr(out, "the watchdog is not armed (the firmware refused it, or the breadcrumb is not kept"));
	assert_null(setting_set("watchdog", "auto"));
	results_close();
}

/* A crashed test counts as failed: the verdict is fail, the closing line
 * keeps its three counts. */
static void crashed_counts_as_failed(void **state)
{
	(void)state;
	struct tally t0 = runner_session();
	const char *out = capture_stdout(do_crashed, "timer.counter");
	assert_non_null(strstr(out, "{\"kind\":\"result\",\"test\":\"timer.counter\",\"verdict\":\"crashed\""));
	struct tally t1 = runner_session();
	assert_int_equal(t1.failed, t0.failed + 1);
	assert_int_equal(t1.crashed, t0.crashed + 1);
	assert_int_equal(t1.passed, t0.passed);
	assert_int_equal(monitor_plan_errors() ? 2 : monitor_verdict(), monitor_plan_errors() ? 2 : 1);
}

static void leave_a_breadcrumb(void *a)
{
	(void)a;
	char *sel[] = { "timer.counter" };
	assert_true(survive_plan_begin(1, "x.cfg"));
	assert_true(survive_run_begin(1, sel));
	survive_test_start(runner_find("timer.counter"), (struct tally){ 0 }, (struct tally){ 0 });
}

/* Saving had failed before the reset (a full or write-protected stick, so
 * the breadcrumb names no results file): the breadcrumb says so, and the
 * resumed boot's verdict stays 'plan could not run' instead of a clean
 * verdict over a file made afresh that lacks the first boot's records. A
 * breadcrumb left on this boot says so again. Runs last: the failure stays
 * for the rest of the process, as it does for the rest of a boot. */
static void results_lost_before_the_reset(void **state)
{
	(void)state;
	results_close();
	struct crumb c = { .source = "t.cfg",
			   .plan = plan_hash("t.cfg", plan),
			   .run = 2,
			   .phase = CRUMB_TEST,
			   .test = "timer.overhead",
			   .this_run = { 1, 0, 0, 0 },
			   .session = { 2, 0, 0, 0 },
			   .budget = 600 };
	char note[CRUMB_MAX];
	assert_true(crumb_format(&c, note, sizeof(note) - 32) > 0);
	strcat(note, "results_lost=1\n");
	host_note_put(note);
	struct plan_run s = { plan, "t.cfg", CMD_OK };
	const char *out = boot_and_run(&s);
	assert_non_null(strstr(out, "resume: run #2 goes on after timer.overhead"));
	assert_non_null(strstr(out, "the boot before the reset could not save its records whole"));
	assert_null(strstr(out, "saving results to"));
	assert_non_null(results_failure());
	assert_int_equal(monitor_verdict(), 2);

	capture_stdout(leave_a_breadcrumb, NULL);
	assert_non_null(strstr(host_note_text(), "\nresults_lost=1\n"));
	capture_stdout(do_boot_end, NULL);
	survive_plan_end();
	assert_string_equal(host_note_text(), "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(crumb_round_trip),
		cmocka_unit_test(crumb_refuses_what_it_did_not_write),
		cmocka_unit_test(hidden_cases_run_only_by_name),
		cmocka_unit_test(breadcrumbs_and_budget),
		cmocka_unit_test(resume_after_a_crashed_test),
		cmocka_unit_test(resume_after_a_finished_run),
		cmocka_unit_test(bad_breadcrumbs_are_not_trusted),
		cmocka_unit_test(crashed_counts_as_failed),
		cmocka_unit_test(budget_extension_and_masked_regions),
		cmocka_unit_test(no_watchdog_without_a_breadcrumb),
		cmocka_unit_test(results_lost_before_the_reset), /* last: saving stays failed */
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
