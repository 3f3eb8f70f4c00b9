/* A result's reasons are kept whole up to DETAIL_MAX (core/monitor/report.h):
 * a failed claim, a skip's reason and a finding of 400 characters reach the
 * result's detail and finding uncut. They were cut at 160 ("linear is
 * proven by"), in the console's tables, the records, JUnit, TAP and HTML. */
#include "unit.h"

#include "core/monitor/report.h"
#include "core/monitor/results.h"

/* 400 characters of words, the last one "end". */
static const char *long_reason(void)
{
	static char s[401];
	for (size_t i = 0; i < 396; i++)
		s[i] = i % 7 == 6 ? ' ' : (char)('a' + i % 7);
	memcpy(s + 396, " end", 5);
	return s;
}

static void run_quiet(void (*fn)(void *), void *arg)
{
	(void)capture_stdout(fn, arg); /* its own buffer: the console's copy is not asserted here */
}

static void fail_long(void *arg)
{
	report(arg, false, "%s", long_reason());
}

static void skip_long(void *arg)
{
	test_skip(arg, SKIP_UNSUPPORTED, "%s", long_reason());
}

static void find_long(void *arg)
{
	test_finding(arg, "%s", long_reason());
}

static void reasons_kept_whole(void **state)
{
	(void)state;
	struct test_ctx t = { 0 };
	run_quiet(fail_long, &t);
	assert_string_equal(t.detail, long_reason());
	struct test_ctx s = { 0 };
	run_quiet(skip_long, &s);
	assert_string_equal(s.detail, long_reason());
	struct test_ctx f = { 0 };
	run_quiet(find_long, &f);
	assert_string_equal(f.finding, long_reason());
	/* a result record holds both at their longest, with room for the rest */
	assert_true(RECORD_MAX >= 2 * DETAIL_MAX + 512);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(reasons_kept_whole),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
