/* The boot flow: from the platform's entry to the prompt (monitor.h);
 * the commands are commands.c's, the prompt menu.c's. */
#include "monitor.h"

#include <stdio.h>

#include "console.h"
#include "core/base/memmap.h"
#include "core/base/timing.h"
#include "core/base/wrap.h"
#include "core/tables/mcfg.h"
#include "early.h"
#include "known.h"
#include "monitor_state.h"
#include "platform_id.h"
#include "results.h"
#include "settings.h"
#include "survive.h"
#include "verdict.h"

const struct platform *platform;

struct monitor_state mon;

const struct acpi *monitor_acpi(void)
{
	return &mon.acpi;
}
unsigned monitor_plan_errors(void)
{
	return mon.plan_errors;
}

void monitor_plan_error(void)
{
	mon.plan_errors++;
}

void monitor_release(void)
{
	size_t n = 0;
	while (mon.subs && mon.subs[n])
		n++;
	while (n--)
		if (mon.subs[n]->release)
			mon.subs[n]->release();
}

int monitor_verdict_why(char *why, size_t cap)
{
	/* known failures (iommon-known.txt) are not failures */
	return (int)session_verdict(runner_session(), mon.plan_errors, results_failure() != NULL, why, cap);
}

int monitor_verdict(void)
{
	char why[DETAIL_MAX];
	return monitor_verdict_why(why, sizeof(why));
}

void monitor_print_info(void)
{
	printf("  platform   ");
	table_wrapf(13, "%s, from %s", timing.platform, timing.platform_how);
	printf("  cpu        ");
	table_wrap(13, timing.cpu[0] ? timing.cpu : "(no brand string)");
	printf("  counter    ");
	table_wrapf(13, "%s %.3f MHz, calibrated against %s%s; invariant %s; rdtscp %s", timing.counter,
		    (double)timing.tsc_hz / 1e6, timing.source, timing.ref_hz ? "" : " (firmware Stall)",
		    timing.invariant_tsc ? "yes" : "no (as reported by CPUID)", timing.rdtscp ? "yes" : "no");
	printf("  stall      estimate %.3f MHz (%.2f%% from the calibration)\n", (double)timing.stall_hz / 1e6,
	       timing_disagreement() * 100);
	printf("  region     empty timed region costs %llu cycles\n", (unsigned long long)timing.overhead);
	if (timing.note[0]) {
		printf("  note       ");
		table_wrap(13, timing.note);
	}
	printf("  acpi       ");
	table_wrap(13, mon.acpi.present ? (mon.acpi.xsdt ? "XSDT" : "RSDT") : mon.acpi.error);
	smbios_print(&mon.id.smbios);
	const struct mem_range *m = NULL;
	size_t nm = platform->memory_map ? platform->memory_map(&m) : 0;
	printf("  memory     ");
	table_wrapf(13, "%zu memory map entries%s, %u physical address bits: MMIO only where the map has no RAM", nm,
		    nm ? "" : " (none)", cpu_phys_bits());
	printf("  console    ");
	table_wrap(13, platform->console_describe());
	printf("  files      ");
	table_wrap(13, platform->volume_describe());
}

/* ---- boot flow --------------------------------------------------------- */

static void info_record(void)
{
	/* SMBIOS's eleven strings of up to 64 characters and the platform's
	 * how, each escaped */
	char buf[4 * RECORD_MAX];
	struct json j;
	record_begin(&j, buf, sizeof(buf), "info");
	json_str(&j, "what", "platform");
	json_str(&j, "iommon", IOMMON_VERSION);
	json_str(&j, "platform", timing.platform);
	json_str(&j, "platform_how", timing.platform_how);
	json_str(&j, "hypervisor", timing.hypervisor);
	json_str(&j, "cpu", timing.cpu);
	json_str(&j, "firmware", platform->name);
	json_str(&j, "counter", timing.counter);
	json_u64(&j, "counter_hz", timing.tsc_hz);
	json_str(&j, "calibration", timing.source);
	json_u64(&j, "stall_hz", timing.stall_hz);
	json_bool(&j, "invariant_tsc", timing.invariant_tsc);
	json_bool(&j, "rdtscp", timing.rdtscp);
	json_u64(&j, "region_overhead", timing.overhead);
	json_str(&j, "acpi", mon.acpi.present ? (mon.acpi.xsdt ? "xsdt" : "rsdt") : "none");
	json_str(&j, "console", platform->console_describe());
	identity_json(&j, &mon.id.smbios);
	json_str(&j, "config", mon.id.config);
	struct wallclock wc; /* the firmware's clock, as its setup shows it (no time zone) */
	if (platform->wallclock && platform->wallclock(&wc)) {
		char date[24];
		snprintf(date, sizeof(date), "%04u-%02u-%02u %02u:%02u:%02u", wc.year, wc.month, wc.day, wc.hour,
			 wc.minute, wc.second);
		json_str(&j, "date", date);
	}
	if (platform->replay)
		json_str(&j, "replay", platform->replay);
	record_emit(&j);
}

void monitor_settings(const struct test_group *const *catalogue, const struct subsystem *const *subsystems)
{
	for (size_t i = 0; catalogue && catalogue[i]; i++)
		if (catalogue[i]->settings)
			catalogue[i]->settings();
	for (size_t i = 0; subsystems && subsystems[i]; i++)
		if (subsystems[i]->settings)
			subsystems[i]->settings();
}

int monitor_main(const struct platform *p, const struct test_group *const *catalogue,
		 const struct subsystem *const *subsystems)
{
	platform = p;
	mon.subs = subsystems;
	monitor_commands_attach();
	settings_init();
	survive_init();
	runner_init(catalogue);
	monitor_settings(catalogue, subsystems);
	printf("\niommon %s - bare-metal IOMMU test monitor\n", IOMMON_VERSION);

	acpi_init(&mon.acpi, platform->acpi_rsdp());
	for (size_t i = 0; i < mon.acpi.diag.n; i++)
		printf("error: ACPI: %s\n", mon.acpi.diag.msg[i].text);
	if (mon.acpi.diag.errors > mon.acpi.diag.n)
		printf("error: ACPI: %zu more root entries refused or dropped\n",
		       (size_t)mon.acpi.diag.errors - mon.acpi.diag.n);
	if (!mon.acpi.present)
		printf("warning: ACPI: %s\n", mon.acpi.error);
	/* the ECAM windows, before the console and the timers a table names
	 * are opened: none may lie in one (the enumeration adds the BARs) */
	static struct mcfg early_mcfg;
	const struct acpi_header *mcfg = acpi_find(&mon.acpi, "MCFG", 0);
	if (mcfg && mcfg_parse((const uint8_t *)mcfg, mcfg->length, &early_mcfg) == 0)
		early_claim_ecam(&early_mcfg);
	const char *why = console_boot();
	if (why)
		printf("warning: console: %s\n", why);
	early_cpu_facts(&mon.acpi);
	/* a replay's timers are the machine's: not here to be read */
	timing_init(platform->replay ? NULL : &mon.acpi, setting_get("timer.source"));
	identity_read(&mon.id);
	/* after SMBIOS, which is part of the evidence; a replay's machine is
	 * not here to be asked */
	if (platform->replay) {
		snprintf(timing.platform, sizeof(timing.platform), "replay");
		snprintf(timing.platform_how, sizeof(timing.platform_how), "a replay of %s: the machine is not here",
			 platform->replay);
	} else {
		platform_identify(&mon.acpi, &mon.id.smbios);
	}
	monitor_print_info();
	info_record();
	for (size_t i = 0; mon.subs && mon.subs[i]; i++)
		if (mon.subs[i]->discover)
			mon.subs[i]->discover();
	survive_boot();
	known_load();

	const char *opts = platform->load_options();
	if (opts && *opts) {
		/* commands from whoever started us: no countdown, they asked */
		printf("running the load options: %s\n", opts);
		monitor_exec_script(opts, "options");
	} else {
		printf("config: %s (%s)\n", mon.id.config, mon.id.config_why);
		monitor_exec_file(mon.id.config);
	}
	survive_boot_end();
	monitor_menu_loop();
	return 0;
}
