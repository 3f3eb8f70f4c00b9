/* `describe TEST` (core/monitor/commands.c): every test in the catalogue,
 * hidden ones too, is described in the code beside its function: what it
 * claims and how it can fail; the command says so within 80 columns, with
 * whether the test is in the default plan and applies here. */
#include "host_monitor.h"

static int setup(void **state)
{
	(void)state;
	host_monitor_init();
	return 0;
}

static void every_test_described(void **state)
{
	(void)state;
	size_t missing = 0, n = 0;
	for (const struct test_group *const *g = runner_catalogue(); *g; g++)
		for (size_t i = 0; i < (*g)->n; i++, n++) {
			const struct test_case *tc = &(*g)->cases[i];
			const struct test_doc *d = runner_doc(tc);
			if (!d || !d->claims || strlen(d->claims) < 30 || !d->fails || strlen(d->fails) < 30) {
				printf("not described: %s\n", tc->name);
				missing++;
			}
		}
	assert_true(n >= 140);
	assert_int_equal(missing, 0);
}

static void describe_says_it(void **state)
{
	(void)state;
	const char *out = host_monitor_line("describe vtd.stale_iotlb");
	assert_non_null(strstr(out, "  vtd.stale_iotlb\n    repoint a mapping without invalidating"));
	assert_non_null(strstr(out, "\n    claims: "));
	assert_non_null(strstr(out, "\n    fails:  "));
	assert_non_null(strstr(out, "\n    plan:   in the default plan; not applicable here: no Intel VT-d unit"));
	assert_true(unit_widest_line(out) <= 80);
	/* a pattern describes each test it matches; a typo is answered */
	out = host_monitor_line("describe timer.*");
	assert_non_null(strstr(out, "  timer.counter\n"));
	assert_non_null(strstr(out, "  timer.stall\n"));
	out = host_monitor_line("describe vtd.stale_iotbl");
	assert_non_null(strstr(out, "did you mean vtd.stale_iotlb?"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_test_described),
		cmocka_unit_test(describe_says_it),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
