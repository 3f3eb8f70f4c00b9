/* Shared by the unit tests that drive the host monitor through the entry
 * points the console and iommon.cfg use: a boot volume of their own, the
 * catalogue, the counter calibrated against Stall; what a line printed;
 * one test's result record in it. */
#ifndef IOMMON_UNIT_HOST_MONITOR_H
#define IOMMON_UNIT_HOST_MONITOR_H

#include "unit.h"

#include "core/base/timing.h"
#include "core/monitor/monitor.h"
#include "core/monitor/settings.h"
#include "tests/catalogue/catalogue.h"
#include "tests/host/platform_host.h"

static inline void host_monitor_calibrate(void *arg)
{
	(void)arg;
	timing_init(NULL, "auto"); /* no ACPI on the host: Stall-based */
}

/* The monitor as it stands before its plan, on a fresh temporary volume. */
static inline void host_monitor_init(void)
{
	static char vol[] = "/tmp/iommon-unit-XXXXXX";
	assert_non_null(mkdtemp(vol));
	setenv("IOMMON_VOLUME", vol, 1);
	platform = &host_platform;
	settings_init();
	runner_init(iommon_catalogue());
	capture_stdout(host_monitor_calibrate, NULL);
}

static inline void host_monitor_do_line(void *line)
{
	monitor_exec_line(line, NULL);
}

/* What one line typed at the prompt printed. */
static inline const char *host_monitor_line(const char *text)
{
	return capture_stdout(host_monitor_do_line, (void *)text);
}

/* `test`'s result record in `out` (which must hold one), as one line. */
static inline const char *host_monitor_result(const char *out, const char *test)
{
	char key[80];
	snprintf(key, sizeof(key), "{\"kind\":\"result\",\"test\":\"%s\"", test);
	const char *r = strstr(out, key);
	assert_non_null(r);
	static char rec[1024];
	size_t n = strcspn(r, "\n");
	snprintf(rec, sizeof(rec), "%.*s", (int)n, r);
	return rec;
}

#endif
