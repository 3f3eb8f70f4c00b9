#include "monitor.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "console.h"
#include "core/base/claims.h"
#include "core/base/memmap.h"
#include "core/base/timing.h"
#include "core/tables/acpi.h"
#include "core/tables/mcfg.h"
#include "early.h"
#include "identity.h"
#include "known.h"
#include "lab.h"
#include "platform_id.h"
#include "replay.h"
#include "results.h"
#include "settings.h"
#include "survive.h"

const struct platform *platform;

static struct {
	const struct subsystem *const *subs;
	struct acpi acpi;
	struct identity id; /* SMBIOS, and the plan file it picks */
	unsigned plan_errors;
} mon;

static const struct command *find_command(const char *name);

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

int monitor_verdict(void)
{
	struct tally t = runner_session();
	if (mon.plan_errors || results_failure() || t.passed + t.failed + t.skipped + t.known == 0)
		return 2;
	return t.failed ? 1 : 0; /* known failures (iommon-known.txt) are not failures */
}

/* ---- commands ---------------------------------------------------------- */

/* A command given more words than it takes is refused, never run with
 * some of them ignored. */
static bool too_many(int argc, char **argv, int max)
{
	if (argc <= max + 1)
		return false;
	if (max == 0)
		cmd_error("'%s' takes no arguments (try 'help %s')", argv[0], argv[0]);
	else
		cmd_error("'%s' takes at most %d argument%s (try 'help %s')", argv[0], max, max > 1 ? "s" : "",
			  argv[0]);
	return true;
}

static enum cmd_status cmd_help(int argc, char **argv);

static enum cmd_status cmd_list(int argc, char **argv)
{
	if (too_many(argc, argv, 1))
		return CMD_ERROR;
	const struct test_group *const *cat = runner_catalogue();
	bool any = false;
	for (const struct test_group *const *g = cat; *g; g++) {
		if ((*g)->hidden || (argc > 1 && strcmp(argv[1], (*g)->name) != 0))
			continue;
		any = true;
		printf("  %s: %s\n", (*g)->name, (*g)->summary);
		for (size_t i = 0; i < (*g)->n; i++)
			printf("   %c %-28s %s\n", (*g)->cases[i].in_default_plan ? '*' : ' ', (*g)->cases[i].name,
			       (*g)->cases[i].summary);
	}
	if (!any) {
		cmd_error("no group named '%s' (try 'list')", argv[1]);
		return CMD_ERROR;
	}
	printf("  (* = in the default plan: 'run default')\n");
	return CMD_OK;
}

static enum cmd_status cmd_run(int argc, char **argv)
{
	if (argc < 2) {
		cmd_error("run needs a test, a group, 'default' or 'all' (try 'list')");
		return CMD_ERROR;
	}
	static bool console_only_said;
	const char *console_only = results_console_only();
	if (script_unattended() && console_only) {
		if (!console_only_said)
			printf("results go to the console only: %s\n", console_only);
		console_only_said = true;
	} else if (script_unattended() && !results_path()[0] && !results_failure()) {
		const char *why = results_save();
		if (why)
			printf("error: %s; results go to the console only, and the verdict is 'plan could not run'\n",
			       why);
		else
			printf("saving results to %s\n", results_path());
		replay_save(why ? NULL : results_path(), &mon.acpi, &mon.id.smbios, mon.subs);
	}
	unsigned unknown = 0;
	for (int i = 1; i < argc; i++) {
		if (!runner_selector_known(argv[i])) {
			cmd_error("no test or group named '%s' (try 'list')", argv[i]);
			unknown++;
		}
	}
	if (!survive_run_begin(argc - 1, argv + 1)) /* it ran before a reset */
		return unknown || runner_count(argc - 1, argv + 1) == 0 ? CMD_ERROR : CMD_OK;
	size_t ran = runner_run(argc - 1, argv + 1);
	return unknown || ran == 0 ? CMD_ERROR : CMD_OK;
}

static enum cmd_status cmd_set(int argc, char **argv)
{
	if (argc != 3) {
		cmd_error("usage: set <key> <value> ('show' lists the keys)");
		return CMD_ERROR;
	}
	const char *why = setting_set(argv[1], argv[2]);
	if (why) {
		cmd_error("%s", why);
		return CMD_ERROR;
	}
	return CMD_OK;
}

static enum cmd_status cmd_show(int argc, char **argv)
{
	if (too_many(argc, argv, 1))
		return CMD_ERROR;
	if (!settings_show(argc > 1 ? argv[1] : NULL)) {
		cmd_error("unknown setting '%s' (try 'show')", argv[1]);
		return CMD_ERROR;
	}
	return CMD_OK;
}

static enum cmd_status cmd_results(int argc, char **argv)
{
	if (too_many(argc, argv, 0))
		return CMD_ERROR;
	runner_print_results();
	if (results_path()[0])
		printf("saving to %s\n", results_path());
	return CMD_OK;
}

static enum cmd_status cmd_save(int argc, char **argv)
{
	if (too_many(argc, argv, 0))
		return CMD_ERROR;
	if (results_path()[0]) {
		printf("already saving to %s (every record is appended as it is made)\n", results_path());
		return CMD_OK;
	}
	if (results_console_only()) { /* by design, not a failure: a plan made for a stick runs from a CD */
		printf("nothing can be saved: %s; the records are on the console\n", results_console_only());
		return CMD_OK;
	}
	const char *why = results_save();
	if (why) {
		cmd_error("%s", why);
		return CMD_ERROR;
	}
	printf("saved %zu records to %s; later records are appended as they are made\n", results_count(),
	       results_path());
	return CMD_OK;
}

static void print_info(void)
{
	printf("  platform   %s, from %s\n", timing.platform, timing.platform_how);
	printf("  cpu        %s\n", timing.cpu[0] ? timing.cpu : "(no brand string)");
	printf("  counter    %s %.3f MHz, calibrated against %s%s; invariant %s; rdtscp %s\n", timing.counter,
	       (double)timing.tsc_hz / 1e6, timing.source, timing.ref_hz ? "" : " (firmware Stall)",
	       timing.invariant_tsc ? "yes" : "no (as reported by CPUID)", timing.rdtscp ? "yes" : "no");
	printf("  stall      estimate %.3f MHz (%.2f%% from the calibration)\n", (double)timing.stall_hz / 1e6,
	       timing_disagreement() * 100);
	printf("  region     empty timed region costs %llu cycles\n", (unsigned long long)timing.overhead);
	if (timing.note[0])
		printf("  note       %s\n", timing.note);
	printf("  acpi       %s\n", mon.acpi.present ? (mon.acpi.xsdt ? "XSDT" : "RSDT") : mon.acpi.error);
	smbios_print(&mon.id.smbios);
	const struct mem_range *m = NULL;
	size_t nm = platform->memory_map ? platform->memory_map(&m) : 0;
	printf("  memory     %zu memory map entries%s, %u physical address bits: MMIO only where the map has no RAM\n",
	       nm, nm ? "" : " (none)", cpu_phys_bits());
	printf("  console    %s\n", platform->console_describe());
	printf("  files      %s\n", platform->volume_describe());
}

static enum cmd_status cmd_info(int argc, char **argv)
{
	if (too_many(argc, argv, 0))
		return CMD_ERROR;
	print_info();
	return CMD_OK;
}

static enum cmd_status cmd_echo(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		printf("%s%s", argv[i], i + 1 < argc ? " " : "");
	printf("\n");
	return CMD_OK;
}

static enum cmd_status cmd_menu(int argc, char **argv)
{
	if (too_many(argc, argv, 0))
		return CMD_ERROR;
	monitor_print_menu();
	return CMD_OK;
}

/* Waits `countdown` seconds for a key: Enter (or none) goes on, any other
 * key stops the script and opens the menu. */
static enum cmd_status cmd_countdown(int argc, char **argv)
{
	unsigned long long secs = (unsigned long long)setting_long("countdown");
	const char *why = argc == 2 ? parse_range(argv[1], 0, 3600, "a number of seconds", &secs) : NULL;
	if (too_many(argc, argv, 1))
		return CMD_ERROR;
	if (why) {
		cmd_error("countdown '%s': %s", argv[1], why);
		return CMD_ERROR;
	}
	if (survive_replaying()) {
		printf("resume: the countdown is not repeated\n");
		return CMD_OK;
	}
	/* keys typed before the question do not answer it (a line that never
	 * stops talking is not allowed to hold us here) */
	for (int i = 0; i < 256 && runner_getc() >= 0; i++)
		;
	printf("unattended run in %llu s: Enter starts it now, any other key opens the menu\n", secs);
	for (unsigned long long left = secs; left > 0; left--) {
		printf("%llu ", left);
		fflush(stdout);
		struct deadline dl = deadline_after_us(1000000);
		while (!deadline_passed(&dl)) {
			int c = runner_getc();
			if (c == '\r' || c == '\n') {
				printf("\n");
				return CMD_OK;
			}
			if (c >= 0) {
				printf("\ninterrupted: opening the menu\n");
				return CMD_MENU;
			}
			platform->idle_us(10000);
		}
	}
	printf("\n");
	return CMD_OK;
}

static enum cmd_status cmd_exit(int argc, char **argv)
{
	static const struct {
		const char *name;
		enum exit_kind kind;
	} kinds[] = { { "firmware", EXIT_FIRMWARE },
		      { "reset", EXIT_RESET },
		      { "poweroff", EXIT_POWEROFF },
		      { "qemu", EXIT_QEMU } };
	if (argc != 2) {
		cmd_error("usage: exit <firmware|reset|poweroff|qemu>");
		return CMD_ERROR;
	}
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		if (strcmp(argv[1], kinds[i].name) != 0)
			continue;
		lab_plan_end(); /* the plan ends here, whatever lines follow `exit` */
		int v = monitor_verdict();
		static const char *const words[] = { "pass", "fail", "plan could not run" };
		struct tally t = runner_session();
		printf("verdict: %s (%u passed, %u failed, %u skipped, %u plan errors", words[v], t.passed, t.failed,
		       t.skipped, mon.plan_errors);
		if (t.known)
			printf(", %u known failures", t.known);
		printf(")\n");
		if (results_failure())
			printf("  the results were not saved completely: %s\n", results_failure());
		else if (results_console_only())
			printf("  results went to the console only: %s\n", results_console_only());
		if (kinds[i].kind == EXIT_QEMU)
			printf("exit qemu: verdict %d (QEMU exits with %d: isa-debug-exit on x86_64, semihosting on "
			       "aarch64)\n",
			       v, (v << 1) | 1);
		else
			results_close();
		/* given back while the plan is still on record: a give-back
		 * that crashes leaves a breadcrumb, and the next boots stop
		 * (survive_plan_begin) instead of running the whole plan and
		 * crashing here again, reset after reset */
		monitor_release();
		timing_fini();
		survive_plan_end(); /* the plan is over: nothing to resume */
		fflush(stdout);
		const char *why = platform->exit(kinds[i].kind, v);
		cmd_error("exit %s did not happen: %s", argv[1], why ? why : "no reason given");
		return CMD_ERROR;
	}
	cmd_error("exit '%s': must be firmware, reset, poweroff or qemu", argv[1]);
	return CMD_ERROR;
}

static const struct command commands[] = {
	{ "help", "help [command]", "list the commands, or explain one", cmd_help },
	{ "menu", "menu", "show the numbered menu", cmd_menu },
	{ "list", "list [group]", "show the test catalogue", cmd_list },
	{ "run", "run <test|group|default|all> ... [--skip <test|group> ...]",
	  "run tests; ends with 'N passed, N failed, N skipped'", cmd_run },
	{ "set", "set <key> <value>", "change a setting ('show' lists them)", cmd_set },
	{ "show", "show [key]", "show settings", cmd_show },
	{ "results", "results", "show this session's results table", cmd_results },
	{ "save", "save", "save the records to iommon/results/ on the boot volume", cmd_save },
	{ "info", "info", "show the platform, the counter and its calibration", cmd_info },
	{ "countdown", "countdown [seconds]", "wait for a key before going on (for iommon.cfg)", cmd_countdown },
	{ "echo", "echo <text>", "print a line (marks a log)", cmd_echo },
	{ "exit", "exit <firmware|reset|poweroff|qemu>", "leave; 'qemu' reports the verdict as QEMU's status",
	  cmd_exit },
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static const struct command *find_command(const char *name)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	for (size_t k = 0; mon.subs && mon.subs[k]; k++)
		for (size_t i = 0; i < mon.subs[k]->ncommands; i++)
			if (strcmp(mon.subs[k]->commands[i].name, name) == 0)
				return &mon.subs[k]->commands[i];
	return NULL;
}

static enum cmd_status cmd_help(int argc, char **argv)
{
	if (too_many(argc, argv, 1))
		return CMD_ERROR;
	if (argc > 1) {
		const struct command *c = find_command(argv[1]);
		if (!c) {
			cmd_error("no command '%s' (try 'help')", argv[1]);
			return CMD_ERROR;
		}
		printf("  %s\n    %s\n", c->usage, c->summary);
		return CMD_OK;
	}
	for (size_t i = 0; i < NCOMMANDS; i++)
		printf("  %-38s %s\n", commands[i].usage, commands[i].summary);
	for (size_t k = 0; mon.subs && mon.subs[k]; k++)
		for (size_t i = 0; i < mon.subs[k]->ncommands; i++)
			printf("  %-38s %s\n", mon.subs[k]->commands[i].usage, mon.subs[k]->commands[i].summary);
	printf("  Commands on one line are separated by ';'. '#' starts a comment.\n");
	return CMD_OK;
}

/* ---- scripts ----------------------------------------------------------- */

static void plan_error(void)
{
	mon.plan_errors++;
}

static const struct script_env script_env = { find_command, plan_error };

/* Unit tests run lines without monitor_main: each entry attaches the
 * command table first. */
enum cmd_status monitor_exec_line(const char *line, const char *where)
{
	script_init(&script_env);
	return script_exec_line(line, strlen(line), where);
}

enum cmd_status monitor_exec_bytes(const char *buf, size_t len, const char *name)
{
	script_init(&script_env);
	lab_plan_begin(name);
	if (!survive_plan_begin(plan_hash_update(plan_hash_start(name), buf, len), name)) {
		lab_plan_end();
		return CMD_MENU; /* it took the monitor down while resuming */
	}
	enum cmd_status st = script_run(buf, len, name);
	survive_plan_end();
	lab_plan_end();
	return st;
}

enum cmd_status monitor_exec_script(const char *text, const char *name)
{
	return monitor_exec_bytes(text, strlen(text), name);
}

static bool feed_piece(void *ctx, const void *buf, size_t n)
{
	return script_feed(ctx, buf, n);
}

static bool hash_piece(void *ctx, const void *buf, size_t n)
{
	uint64_t *h = ctx;
	*h = plan_hash_update(*h, buf, n);
	return true;
}

/* A breadcrumb names its plan by source and a hash of the bytes: a file
 * is read once for the hash (never held whole), then again as it runs. */
enum cmd_status monitor_exec_file(const char *path)
{
	static struct script s; /* scripts do not nest */
	bool absent = false;
	script_init(&script_env);
	uint64_t plan = plan_hash_start(path);
	platform->file_stream(path, hash_piece, &plan, &absent); /* a read error is named by the run below */
	if (absent) {
		printf("no %s on %s\n", path, platform->volume_describe());
		return CMD_OK;
	}
	lab_plan_begin(path);
	if (!survive_plan_begin(plan, path)) { /* it took the monitor down while resuming */
		lab_plan_end();
		return CMD_MENU;
	}
	script_begin(&s, path);
	const char *why = platform->file_stream(path, feed_piece, &s, &absent);
	enum cmd_status st = script_end(&s, why);
	survive_plan_end();
	lab_plan_end();
	return st;
}

/* ---- console ----------------------------------------------------------- */

static int wait_key(void)
{
	for (;;) {
		int c = runner_getc();
		if (c >= 0)
			return c;
		platform->idle_us(10000);
	}
}

int monitor_read_line(char *buf, unsigned size)
{
	/* Typed characters beyond the buffer are counted, not kept: the buffer
	 * always holds a prefix of the line, so Backspace can bring a line that
	 * was too long back within it. The first character that is not
	 * printable ASCII spoils the line until it is erased. */
	size_t typed = 0, bad_at = 0; /* bad_at: 1-based column of the first bad character */
	int bad = 0;
	for (;;) {
		int c = wait_key();
		if (c == '\r' || c == '\n') {
			printf("\n");
			break;
		}
		if (c == 0x08 || c == 0x7f) { /* backspace, delete */
			if (typed) {
				typed--;
				printf("\b \b");
			}
		} else if (c == 0x15) { /* ^U: kill the line */
			while (typed) {
				typed--;
				printf("\b \b");
			}
		} else {
			if (c == '\t')
				c = ' ';
			bool ok = c >= 0x20 && c < 0x7f;
			if (!ok && (!bad_at || bad_at > typed)) {
				bad_at = typed + 1;
				bad = c;
			}
			if (typed + 1 < size)
				buf[typed] = (char)c;
			typed++;
			putchar(ok ? c : '?');
		}
		if (bad_at > typed)
			bad_at = 0;
		fflush(stdout);
	}
	if (typed + 1 > size) {
		buf[0] = '\0';
		cmd_error("line longer than %u characters: not run", size - 1);
		return -1;
	}
	if (bad_at) {
		buf[0] = '\0';
		if (bad >= 0x80)
			cmd_error("character not ASCII at column %zu: not run", bad_at);
		else
			cmd_error("control character 0x%02x at column %zu: not run", (unsigned)bad, bad_at);
		return -1;
	}
	buf[typed] = '\0';
	return (int)typed;
}

static const struct {
	const char *command, *what;
} menu[] = {
	{ "run default", "run the default plan" },
	{ "run all", "run every test" },
	{ "list", "show the test catalogue" },
	{ "results", "show this session's results" },
	{ "show", "show the settings" },
	{ "save", "save results to the boot volume" },
	{ "info", "platform and counter" },
	{ "help", "all commands" },
	{ "exit firmware", "return to the firmware" },
};

#define NMENU (sizeof(menu) / sizeof(menu[0]))

void monitor_print_menu(void)
{
	printf("\niommon %s - IOMMU test monitor (%s)\n", IOMMON_VERSION, timing.platform);
	for (size_t i = 0; i < NMENU; i++)
		printf("  %zu  %-16s %s\n", i + 1, menu[i].command, menu[i].what);
	printf("Type a number, or any command ('help' lists them).\n");
}

static void menu_loop(void)
{
	monitor_print_menu();
	for (;;) {
		static char line[SCRIPT_LINE_MAX + 1];
		printf("iommon> ");
		fflush(stdout);
		if (monitor_read_line(line, sizeof(line)) < 0)
			continue;
		char *p = line;
		while (*p == ' ')
			p++;
		char *end;
		unsigned long item = strtoul(p, &end, 10);
		while (*end == ' ')
			end++;
		if (p[0] >= '0' && p[0] <= '9' && *end == '\0') {
			if (item < 1 || item > NMENU) {
				cmd_error("no menu item %lu (1-%zu)", item, NMENU);
				continue;
			}
			printf("> %s\n", menu[item - 1].command);
			monitor_exec_line(menu[item - 1].command, NULL);
		} else if (*p) {
			monitor_exec_line(p, NULL);
		} else {
			monitor_print_menu();
		}
	}
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
	script_init(&script_env);
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
	print_info();
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
	menu_loop();
	return 0;
}
