#include "lab.h"

#include <stdio.h>
#include <string.h>

#include "core/base/timing.h"
#include "monitor.h"
#include "results.h"
#include "runner.h"
#include "verdict.h"

static struct {
	bool open;
	char plan[48];
} lab;

bool lab_plan_begin(const char *plan)
{
	if (lab.open)
		return false;
	lab.open = true;
	snprintf(lab.plan, sizeof(lab.plan), "%s", plan);
	verdict_plan_begin(runner_session(), monitor_plan_errors());
	printf("<iommon-plan-begin plan=%s>\n", lab.plan);
	return true;
}

void lab_plan_end(void)
{
	if (!lab.open)
		return;
	lab.open = false;
	/* the plan's own verdict, as `exit` says it: a lab that reads the
	 * result lines alone sees a run that tested nothing as inconclusive */
	lab_result("verdict", plan_verdict_name(verdict_plan_end(lab.plan, runner_session(), monitor_plan_errors(),
								 results_failure() != NULL)));
	printf("<iommon-plan-end plan=%s>\n", lab.plan);
	fflush(stdout); /* the plan may end with the machine leaving */
}

void lab_result(const char *test, const char *verdict)
{
	printf("<iommon-result test_case_id=%s result=%s>\n", test, verdict);
}

void lab_measure(const char *test, const char *path, const char *backend, const char *variant, const char *unit,
		 uint64_t p50, const char *result)
{
	/* the same figure, rounded the same way, as the measure record's
	 * p50_ns; cycles stay cycles while the counter's rate is unknown */
	if (strcmp(unit, "cycles") == 0 && timing.tsc_hz)
		printf("<iommon-result test_case_id=%s/%s/%s/%s result=%s measurement=%.1f units=ns>\n", test, path,
		       backend, variant, result, cycles_to_ns(p50));
	else
		printf("<iommon-result test_case_id=%s/%s/%s/%s result=%s measurement=%llu units=%s>\n", test, path,
		       backend, variant, result, (unsigned long long)p50, unit);
}
