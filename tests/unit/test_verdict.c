/* A verdict says what was tested (core/monitor/verdict.c): a run whose
 * tests all skipped or did not apply, a session that took no IOMMU unit
 * over, and one that left a `require` unmet are inconclusive, never a
 * pass; a failure is a failure whatever was tested. Driven through the
 * runner's hooks as a test would drive them (test_uses_unit, the device
 * under test's address), and through the host monitor's exit status. */
#include "unit.h"

#include "core/monitor/monitor.h"
#include "core/monitor/verdict.h"

static const struct tally one_pass = { .passed = 1 };

/* One test that takes unit `name` of `backend` (a model or not), uses
 * device `bdf` (NULL: none), and ends with `v`. */
static void a_test(const char *backend, const char *name, bool model, const char *bdf, enum verdict v)
{
	tested_begin();
	if (name)
		test_uses_unit(backend, name, model);
	if (bdf)
		tested_device(bdf);
	tested_end(v);
}

static bool req(const char *line)
{
	char copy[64], *argv[4], err[160];
	int argc = 0;
	snprintf(copy, sizeof(copy), "%s", line);
	for (char *w = strtok(copy, " "); w && argc < 4; w = strtok(NULL, " "))
		argv[argc++] = w;
	return require_add(argc, argv, err, sizeof(err));
}

static enum plan_verdict judged(struct tally t, char *why, size_t cap)
{
	return session_verdict(t, 0, false, why, cap);
}

/* A fresh plan with nothing required: what the tests before left is in
 * another plan's scope. */
static void fresh_plan(void)
{
	require_clear();
	verdict_plan_begin((struct tally){ 0 }, 0);
}

static void nothing_ran_is_inconclusive(void **state)
{
	(void)state;
	char why[DETAIL_MAX];
	fresh_plan();
	struct tally skipped = { .skipped = 3 }, na = { .na = 5 };
	assert_non_null(verdict_inconclusive(skipped, why, sizeof(why)));
	assert_string_equal(why, "nothing ran: every test that applies here skipped (3)");
	assert_non_null(verdict_inconclusive(na, why, sizeof(why)));
	assert_string_equal(why, "nothing ran: no test applies here (5 not applicable)");
	/* nothing selected at all is a plan that could not run, as before */
	assert_int_equal(judged((struct tally){ 0 }, why, sizeof(why)), PLAN_NOT_RUN);
	/* a failure stays a failure */
	assert_int_equal(judged((struct tally){ .failed = 1 }, why, sizeof(why)), PLAN_FAIL);
	/* plan errors and results not saved whole come first */
	assert_int_equal(session_verdict(one_pass, 1, false, why, sizeof(why)), PLAN_NOT_RUN);
	assert_int_equal(session_verdict(one_pass, 0, true, why, sizeof(why)), PLAN_NOT_RUN);
}

static void no_unit_is_inconclusive(void **state)
{
	(void)state;
	char why[DETAIL_MAX];
	fresh_plan();
	verdict_machine_units(0, 0, "no DMAR, IVRS, IORT or RIMT");
	a_test(NULL, NULL, false, NULL, VERDICT_PASS); /* a timer test: no unit */
	assert_non_null(verdict_inconclusive(one_pass, why, sizeof(why)));
	assert_string_equal(why, "no IOMMU unit was tested: the machine has none (no DMAR, IVRS, IORT or RIMT)");
	verdict_machine_units(2, 2, "DMAR");
	assert_non_null(verdict_inconclusive(one_pass, why, sizeof(why)));
	assert_string_equal(why, "no IOMMU unit was tested: 2 found (DMAR), every one refused");
	verdict_machine_units(2, 1, "DMAR");
	/* a test that took the unit but skipped tested nothing */
	a_test("vtd", "dmar0", false, NULL, VERDICT_SKIP);
	assert_non_null(verdict_inconclusive(one_pass, why, sizeof(why)));
	assert_string_equal(why,
			    "no IOMMU unit was tested: 2 found (DMAR), no test that worked on one passed or failed");
	/* `require nothing`: the plan tests no unit on purpose */
	assert_true(req("nothing"));
	assert_null(verdict_inconclusive(one_pass, why, sizeof(why)));
	assert_int_equal(judged(one_pass, why, sizeof(why)), PLAN_PASS);
	assert_string_equal(why, "");
}

static void a_failed_unit_test_counts(void **state)
{
	(void)state;
	char why[DETAIL_MAX];
	fresh_plan();
	a_test("amdvi", "amdvi0", false, NULL, VERDICT_FAIL);
	assert_null(verdict_inconclusive(one_pass, why, sizeof(why)));
	fresh_plan();
	a_test("amdvi", "amdvi0", false, NULL, VERDICT_KNOWN); /* a known failure ran too */
	assert_null(verdict_inconclusive(one_pass, why, sizeof(why)));
	fresh_plan();
	a_test("amdvi", "amdvi0", false, NULL, VERDICT_NA);
	assert_non_null(verdict_inconclusive(one_pass, why, sizeof(why)));
}

static void requirements(void **state)
{
	(void)state;
	char why[DETAIL_MAX], text[256];
	fresh_plan();
	a_test("dart", "dart0", true, NULL, VERDICT_PASS);
	assert_null(verdict_inconclusive(one_pass, why, sizeof(why))); /* a model is a unit tested */
	assert_true(req("iommu"));
	assert_non_null(verdict_inconclusive(one_pass, why, sizeof(why)));
	assert_string_equal(why, "require iommu: none of the machine's units was tested (tested: dart0 (dart, model))");
	require_clear();
	assert_true(req("unit dart"));
	assert_true(req("unit dart0"));
	assert_true(req("unit dart")); /* twice is once */
	require_text(text, sizeof(text));
	assert_string_equal(text, "unit dart; unit dart0");
	assert_null(verdict_inconclusive(one_pass, why, sizeof(why)));
	assert_true(req("unit vtd"));
	assert_non_null(verdict_inconclusive(one_pass, why, sizeof(why)));
	assert_string_equal(why, "require unit vtd: no vtd unit was tested (tested: dart0 (dart, model))");
	a_test("vtd", "dmar1", false, "0000:01:00.0", VERDICT_PASS);
	assert_true(req("iommu"));
	assert_null(verdict_inconclusive(one_pass, why, sizeof(why)));
	/* a device by either spelling of its address */
	assert_true(req("device 01:00.0"));
	assert_null(verdict_inconclusive(one_pass, why, sizeof(why)));
	assert_true(req("device 0000:02:00.0"));
	assert_non_null(verdict_inconclusive(one_pass, why, sizeof(why)));
	assert_string_equal(why, "require device 0000:02:00.0: no test that used it passed or failed (1 device did)");
	/* refused with the reason, nothing added */
	char *bad[] = { "device", "1:2:3" }, *unknown[] = { "gpu" }, err[160];
	assert_false(require_add(2, bad, err, sizeof(err)));
	assert_string_equal(err, "require device '1:2:3': '.' expected after the device");
	char *wide[] = { "device", "00:20.0" };
	assert_false(require_add(2, wide, err, sizeof(err)));
	assert_string_equal(err, "require device '00:20.0': the device 0x20 is beyond 0x1f");
	assert_false(require_add(1, unknown, err, sizeof(err)));
	assert_non_null(strstr(err, "usage: require iommu"));
	char *clear[] = { "clear" };
	assert_true(require_add(1, clear, err, sizeof(err)));
	require_text(text, sizeof(text));
	assert_string_equal(text, "");
}

/* What one plan tested does not make the next one's verdict; the session
 * (`exit`) counts them all. */
static void each_plan_judged_on_its_own(void **state)
{
	(void)state;
	char why[DETAIL_MAX];
	fresh_plan();
	a_test("vtd", "dmar0", false, NULL, VERDICT_PASS);
	struct tally first = one_pass;
	assert_int_equal(plan_verdict_now(first, 0, false, why, sizeof(why)), PLAN_PASS);
	verdict_plan_begin(first, 0);
	a_test(NULL, NULL, false, NULL, VERDICT_PASS);
	struct tally both = { .passed = 2 };
	assert_int_equal(plan_verdict_now(both, 0, false, why, sizeof(why)), PLAN_INCONCLUSIVE);
	assert_non_null(strstr(why, "no IOMMU unit was tested"));
	assert_int_equal(session_verdict(both, 0, false, why, sizeof(why)), PLAN_PASS);
	/* a plan that selected nothing could not run; its plan errors are its own */
	verdict_plan_begin(both, 4);
	assert_int_equal(plan_verdict_now(both, 4, false, why, sizeof(why)), PLAN_NOT_RUN);
}

/* The host monitor end to end: `exit qemu`'s status is 2v+1. */
static int host_status(const char *plan)
{
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "printf '%s' | IOMMON_VOLUME=$(mktemp -d) build/host/iommon >/dev/null 2>&1", plan);
	int st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void exit_status_says_it(void **state)
{
	(void)state;
	if (access("build/host/iommon", X_OK) != 0)
		skip(); /* run from the repository, after make build/host/iommon */
	assert_int_equal(host_status("run timer.counter\\nexit qemu\\n"), 7);
	assert_int_equal(host_status("require nothing\\nrun timer.counter\\nexit qemu\\n"), 1);
	assert_int_equal(host_status("model dart-u3\\nrun dart.translate_4k\\nexit qemu\\n"), 1);
	assert_int_equal(host_status("model dart-u3\\nrequire unit vtd\\nrun dart.translate_4k\\nexit qemu\\n"), 7);
	assert_int_equal(host_status("run vtd\\nexit qemu\\n"), 7); /* no VT-d here: nothing ran */
	assert_int_equal(host_status("exit qemu\\n"), 5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(nothing_ran_is_inconclusive), cmocka_unit_test(no_unit_is_inconclusive),
		cmocka_unit_test(a_failed_unit_test_counts),   cmocka_unit_test(requirements),
		cmocka_unit_test(each_plan_judged_on_its_own), cmocka_unit_test(exit_status_says_it),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
