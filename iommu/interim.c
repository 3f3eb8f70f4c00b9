/* INTERIM (see interim.h). */
#include "interim.h"

#include "../core/monitor.h"
#include "../core/settings.h"

static const char *check_samples(const char *v)
{
	unsigned long long n;
	return parse_range(v, 1, 100000, "a count", &n);
}

static void interim_settings(void)
{
	setting_add("dma.samples", "200", "DMAs per size and direction in dma.latency", check_samples, NULL);
}

const struct subsystem interim_subsystem = {
	.name = "interim",
	.settings = interim_settings,
};
