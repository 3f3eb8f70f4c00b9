/* Progress inside long work (core/monitor/report.c, test_progress): silent
 * for a test's first seconds, then a line, then no more than one every few
 * seconds; a line for people only (it does not start with '{'). Time is
 * moved by setting the test's own stamps back, never by waiting. */
#include "unit.h"

#include "core/base/cpu.h"
#include "core/base/timing.h"
#include "core/monitor/report.h"
#include "core/monitor/runner.h"

static const struct test_case tc = { "price.queue", "streams", NULL, false };
static struct test_ctx t;

static void step(void *arg)
{
	test_progress(&t, 3, 10, arg);
}

static void calm_lines(void **state)
{
	(void)state;
	timing.tsc_hz = 1000000000ull; /* stamps below are in these units */
	t = (struct test_ctx){ .tc = &tc, .t0 = rdtsc() };
	assert_string_equal(capture_stdout(step, "rounds"), ""); /* the first seconds: nothing */
	t.t0 = rdtsc() - 3 * timing.tsc_hz;			 /* it has run 3 s */
	const char *out = capture_stdout(step, "rounds");
	assert_non_null(strstr(out, "    ... price.queue: 3/10 rounds (3 s)\n"));
	assert_true(out[0] != '{');
	assert_string_equal(capture_stdout(step, "rounds"), ""); /* calm: not again at once */
	t.progress_at -= (TEST_PROGRESS_EVERY_S - 1) * timing.tsc_hz;
	assert_string_equal(capture_stdout(step, "rounds"), "");
	t.progress_at -= 2 * timing.tsc_hz; /* past the interval */
	assert_non_null(strstr(capture_stdout(step, "rounds"), "3/10 rounds"));
	/* a test the runner did not stamp, or no counter rate: never */
	t = (struct test_ctx){ .tc = &tc };
	assert_string_equal(capture_stdout(step, "rounds"), "");
	t.t0 = rdtsc() - 10 * timing.tsc_hz;
	timing.tsc_hz = 0;
	assert_string_equal(capture_stdout(step, "rounds"), "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(calm_lines),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
