/* The lines a lab's console parser reads (core/monitor/lab.c): one begin and one
 * end banner per plan however runs nest, result and measure lines as the
 * LAVA job's pattern expects them, the median as the record gives it. */
#include "unit.h"

#include "core/base/timing.h"
#include "core/monitor/lab.h"

static void begin_end(void *arg)
{
	bool *opened = arg;
	opened[0] = lab_plan_begin("iommon.cfg");
	opened[1] = lab_plan_begin("run"); /* a run inside the script's plan */
	lab_result("timer.counter", "pass");
	lab_plan_end();
	lab_plan_end(); /* `exit` ended it; the script's end finds none open */
}

static void plan_banners_once(void **state)
{
	(void)state;
	bool opened[2];
	const char *out = capture_stdout(begin_end, opened);
	assert_true(opened[0]);
	assert_false(opened[1]);
	assert_string_equal(out, "<iommon-plan-begin plan=iommon.cfg>\n"
				 "<iommon-result test_case_id=timer.counter result=pass>\n"
				 /* the runner counted no test: the plan's verdict is that it could not run */
				 "<iommon-result test_case_id=verdict result=error>\n"
				 "<iommon-plan-end plan=iommon.cfg>\n");
	/* a later run at the prompt is a plan of its own */
	out = capture_stdout(begin_end, opened);
	assert_true(opened[0]);
}

static void measure(void *arg)
{
	lab_measure("vtd.latency", "translation", "vtd", "nvme-4096", arg, 1234, "pass");
}

static void cut_measure(void *arg)
{
	(void)arg;
	lab_measure("dma.latency", "dma", "none", "nvme-from-device-4096", "cycles", 1234, "fail");
}

static void measure_lines(void **state)
{
	(void)state;
	uint64_t hz = timing.tsc_hz;
	timing.tsc_hz = 2000000000; /* 2 GHz: 1234 cycles are 617 ns */
	assert_string_equal(capture_stdout(measure, "cycles"),
			    "<iommon-result test_case_id=vtd.latency/translation/vtd/nvme-4096 result=pass "
			    "measurement=617.0 units=ns>\n");
	assert_string_equal(capture_stdout(measure, "bytes"),
			    "<iommon-result test_case_id=vtd.latency/translation/vtd/nvme-4096 result=pass "
			    "measurement=1234 units=bytes>\n");
	timing.tsc_hz = 0; /* no rate: cycles stay cycles, never a made-up 0 ns */
	assert_string_equal(capture_stdout(measure, "cycles"),
			    "<iommon-result test_case_id=vtd.latency/translation/vtd/nvme-4096 result=pass "
			    "measurement=1234 units=cycles>\n");
	timing.tsc_hz = hz;
}

/* A series cut short still gives its median, under result=fail: the
 * figures of a run that did not finish, read by the same expression. */
static void cut_series_line(void **state)
{
	(void)state;
	uint64_t hz = timing.tsc_hz;
	timing.tsc_hz = 2000000000;
	assert_string_equal(capture_stdout(cut_measure, NULL),
			    "<iommon-result test_case_id=dma.latency/dma/none/nvme-from-device-4096 result=fail "
			    "measurement=617.0 units=ns>\n");
	timing.tsc_hz = hz;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(plan_banners_once),
		cmocka_unit_test(measure_lines),
		cmocka_unit_test(cut_series_line),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
