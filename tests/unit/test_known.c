/* iommon-known.txt's lines (what is taken, what is warned of and ignored),
 * a listed test that passes, and `run --skip`: through the same entry
 * points iommon.cfg uses. (A listed failure turned `known` is proven on a
 * model's failure by tools/test.sh's host.known and tests/boot/known-failures.) */
#include "host_monitor.h"

#include "core/monitor/known.h"
#include "core/monitor/results.h"

static size_t taken;

static void do_parse(void *text)
{
	taken = known_parse(text, strlen(text), "k.txt");
}

static const char *parse(const char *text)
{
	return capture_stdout(do_parse, (void *)text);
}

static int setup(void **state)
{
	(void)state;
	host_monitor_init();
	setting_set("records", "on");
	return 0;
}

static void lines_taken(void **state)
{
	(void)state;
	const char *out = parse("# a comment line\r\n"
				"\n"
				"   \t\n"
				"timer.stall   firmware Stall is off by 3% (ticket 12)  \r\n"
				"\ttimer.counter\tflaky # on rack 4\n"
				"timer.overhead one more"); /* no final newline */
	assert_string_equal(out, "");
	assert_int_equal(taken, 3);
	assert_int_equal(known_count(), 3);
	assert_string_equal(known_reason("timer.stall"), "firmware Stall is off by 3% (ticket 12)");
	assert_string_equal(known_reason("timer.counter"), "flaky # on rack 4"); /* '#' only starts a line's comment */
	assert_string_equal(known_reason("timer.overhead"), "one more");
	assert_null(known_reason("timer.calibration"));
}

static void bad_lines_ignored(void **state)
{
	(void)state;
	char longl[260];
	memset(longl, 'x', sizeof(longl));
	memcpy(longl, "timer.stall ", 12);
	longl[sizeof(longl) - 1] = '\0';
	char text[1024];
	snprintf(text, sizeof(text),
		 "timer.stall\n"		 /* 1: no reason */
		 "timer a group\n"		 /* 2: a group, not a test */
		 "nosuch.test reason\n"		 /* 3: no such test */
		 "timer.counter ok\n"		 /* 4: taken */
		 "timer.counter again\n"	 /* 5: listed already */
		 "timer.stall bell\a here\n"	 /* 6: a control character */
		 "timer.stall caf\xc3\xa9 bug\n" /* 7: not ASCII */
		 "%s\n",			 /* 8: too long */
		 longl);
	const char *out = parse(text);
	assert_int_equal(taken, 1);
	assert_string_equal(known_reason("timer.counter"), "ok");
	assert_null(known_reason("timer.stall"));
	for (unsigned n = 1; n <= 8; n++) {
		char where[32];
		snprintf(where, sizeof(where), "warning: k.txt:%u: ", n);
		if (n == 4)
			assert_null(strstr(out, where));
		else
			assert_non_null(strstr(out, where));
	}
	/* one line each */
	unsigned lines = 0;
	for (const char *p = out; *p; p++)
		lines += *p == '\n';
	assert_int_equal(lines, 7);
	known_clear();
	assert_int_equal(known_count(), 0);
}

/* A listed test that passes is a pass, with the reason it was listed for,
 * and counted as a listed pass; the closing line keeps its shape. */
static void listed_pass(void **state)
{
	(void)state;
	parse("timer.counter flaky on rack 4\n");
	struct tally before = runner_session();
	const char *out = host_monitor_line("run timer.counter");
	const char *rec = host_monitor_result(out, "timer.counter");
	assert_non_null(strstr(rec, "\"verdict\":\"pass\""));
	assert_non_null(strstr(rec, "\"known\":\"flaky on rack 4\""));
	assert_non_null(strstr(out, "\n0 known failures (iommon-known.txt; 1 listed tests passed)\n1 passed, 0 failed, "
				    "0 skipped\n"));
	assert_non_null(strstr(out, "\"verdict\":\"pass\""));
	assert_non_null(strstr(out, "\"known\":0,\"known_passed\":1,"));
	struct tally after = runner_session();
	assert_int_equal(after.passed - before.passed, 1);
	assert_int_equal(after.known_fixed - before.known_fixed, 1);
	assert_int_equal(after.known, before.known);
	known_clear();
	/* no list: no known line, and no "known" reason in the record */
	out = host_monitor_line("run timer.counter");
	assert_null(strstr(out, "known failures"));
	assert_null(strstr(out, "\"known\":\""));
}

/* run --skip: tests and groups named after it are recorded as skipped, the
 * rest run; a name after it must exist too. */
static void run_skip(void **state)
{
	(void)state;
	const char *out = host_monitor_line("run timer --skip timer.stall timer.calibration");
	assert_non_null(strstr(host_monitor_result(out, "timer.stall"), "\"verdict\":\"skip\""));
	assert_non_null(
	    strstr(host_monitor_result(out, "timer.stall"), "\"detail\":\"not run: excluded by run --skip\""));
	assert_non_null(strstr(host_monitor_result(out, "timer.calibration"), "\"verdict\":\"skip\""));
	assert_non_null(strstr(host_monitor_result(out, "timer.counter"), "\"verdict\":\"pass\""));
	assert_non_null(strstr(out, "\n2 passed, 0 failed, 2 skipped\n"));

	out = host_monitor_line("run timer.counter timer.stall --skip timer");
	assert_non_null(strstr(out, "\n0 passed, 0 failed, 2 skipped\n"));

	unsigned errors = monitor_plan_errors();
	out = host_monitor_line("run timer.counter --skip nosuch");
	assert_non_null(strstr(out, "no test or group named 'nosuch'"));
	assert_int_equal(monitor_plan_errors(), errors);     /* typed, not from a script */
	out = host_monitor_line("run --skip timer.counter"); /* nothing chosen: refused, nothing runs */
	assert_non_null(strstr(out, "'--skip' comes after what to run"));
	assert_null(strstr(out, "passed"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(lines_taken),
		cmocka_unit_test(bad_lines_ignored),
		cmocka_unit_test(listed_pass),
		cmocka_unit_test(run_skip),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
