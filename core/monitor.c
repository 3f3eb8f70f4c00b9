#include "monitor.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acpi.h"
#include "memmap.h"
#include "results.h"
#include "settings.h"
#include "survive.h"
#include "timing.h"

#define MAX_ARGS 16
#define LINE_MAX_LEN 256

const struct platform *platform;

static struct {
	const struct monitor_ext *ext;
	struct acpi acpi;
	unsigned plan_errors;
	bool unattended; /* running a script: results are saved */
} mon;

static const struct command *find_command(const char *name);

/* Where the command being run came from ("iommon.cfg:3"), or NULL. */
static const char *cmd_where;

void cmd_error(const char *fmt, ...)
{
	va_list ap;
	printf("error: %s%s", cmd_where ? cmd_where : "", cmd_where ? ": " : "");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

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
	if (mon.ext && mon.ext->release)
		mon.ext->release();
}

int monitor_verdict(void)
{
	struct tally t = runner_session();
	if (mon.plan_errors || results_failure() || t.passed + t.failed + t.skipped == 0)
		return 2;
	return t.failed ? 1 : 0;
}

/* ---- commands ---------------------------------------------------------- */

static enum cmd_status cmd_help(int argc, char **argv);

static enum cmd_status cmd_list(int argc, char **argv)
{
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
	if (mon.unattended && !results_path()[0] && !results_failure()) {
		const char *why = results_save();
		if (why)
			printf("error: %s; results go to the console only, and the verdict is 'plan could not run'\n",
			       why);
		else
			printf("saving results to %s\n", results_path());
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
	if (!settings_show(argc > 1 ? argv[1] : NULL)) {
		cmd_error("unknown setting '%s' (try 'show')", argv[1]);
		return CMD_ERROR;
	}
	return CMD_OK;
}

static enum cmd_status cmd_results(int argc, char **argv)
{
	(void)argc, (void)argv;
	runner_print_results();
	if (results_path()[0])
		printf("saving to %s\n", results_path());
	return CMD_OK;
}

static enum cmd_status cmd_save(int argc, char **argv)
{
	(void)argc, (void)argv;
	if (results_path()[0]) {
		printf("already saving to %s (every record is appended as it is made)\n", results_path());
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
	printf("  platform   %s%s%s%s\n", timing.platform, timing.hypervisor[0] ? " (CPUID hypervisor \"" : "",
	       timing.hypervisor, timing.hypervisor[0] ? "\")" : "");
	printf("  cpu        %s\n", timing.cpu[0] ? timing.cpu : "(no brand string)");
	printf("  counter    TSC %.3f MHz, calibrated against %s%s; invariant TSC %s; rdtscp %s\n",
	       (double)timing.tsc_hz / 1e6, timing.source, timing.ref_hz ? "" : " (firmware Stall)",
	       timing.invariant_tsc ? "yes" : "no (as reported by CPUID)", timing.rdtscp ? "yes" : "no");
	printf("  stall      estimate %.3f MHz (%.2f%% from the calibration)\n", (double)timing.stall_hz / 1e6,
	       timing_disagreement() * 100);
	printf("  region     empty timed region costs %llu cycles\n", (unsigned long long)timing.overhead);
	if (timing.note[0])
		printf("  note       %s\n", timing.note);
	printf("  acpi       %s\n", mon.acpi.present ? (mon.acpi.xsdt ? "XSDT" : "RSDT") : mon.acpi.error);
	const struct mem_range *m = NULL;
	size_t nm = platform->memory_map ? platform->memory_map(&m) : 0;
	printf("  memory     %zu memory map entries%s, %u physical address bits: MMIO only where the map has no RAM\n",
	       nm, nm ? "" : " (none)", cpu_phys_bits());
	printf("  console    %s\n", platform->console_describe());
	printf("  files      %s\n", platform->volume_describe());
}

static enum cmd_status cmd_info(int argc, char **argv)
{
	(void)argc, (void)argv;
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
	(void)argc, (void)argv;
	monitor_print_menu();
	return CMD_OK;
}

/* Waits `countdown` seconds for a key: Enter (or none) goes on, any other
 * key stops the script and opens the menu. */
static enum cmd_status cmd_countdown(int argc, char **argv)
{
	unsigned long long secs = (unsigned long long)setting_long("countdown");
	if (argc > 2 || (argc == 2 && (!parse_u64(argv[1], &secs) || secs > 3600))) {
		cmd_error("usage: countdown [seconds 0..3600]");
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
		int v = monitor_verdict();
		static const char *const words[] = { "pass", "fail", "plan could not run" };
		struct tally t = runner_session();
		printf("verdict: %s (%u passed, %u failed, %u skipped, %u plan errors)\n", words[v], t.passed, t.failed,
		       t.skipped, mon.plan_errors);
		if (results_failure())
			printf("  the results were not saved completely: %s\n", results_failure());
		survive_plan_end(); /* the plan is over: nothing to resume */
		if (kinds[i].kind == EXIT_QEMU)
			printf("exit qemu: writing %d to port 0xf4 (QEMU exits with %d)\n", v, (v << 1) | 1);
		else
			results_close();
		monitor_release();
		timing_fini();
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
	{ "run", "run <test|group|default|all> ...", "run tests; ends with 'N passed, N failed, N skipped'", cmd_run },
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
	for (size_t i = 0; mon.ext && i < mon.ext->ncommands; i++)
		if (strcmp(mon.ext->commands[i].name, name) == 0)
			return &mon.ext->commands[i];
	return NULL;
}

static enum cmd_status cmd_help(int argc, char **argv)
{
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
	for (size_t i = 0; mon.ext && i < mon.ext->ncommands; i++)
		printf("  %-38s %s\n", mon.ext->commands[i].usage, mon.ext->commands[i].summary);
	printf("  Commands on one line are separated by ';'. '#' starts a comment.\n");
	return CMD_OK;
}

/* ---- parsing ----------------------------------------------------------- */

/* Splits one command into words; double quotes group words. Returns the
 * number of words, or -1 with *why set. */
static int split_words(char *s, char **argv, const char **why)
{
	int argc = 0;
	for (;;) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			return argc;
		if (argc == MAX_ARGS) {
			*why = "too many words";
			return -1;
		}
		if (*s == '"') {
			argv[argc++] = ++s;
			while (*s && *s != '"')
				s++;
			if (!*s) {
				*why = "unterminated quote";
				return -1;
			}
		} else {
			argv[argc++] = s;
			while (*s && *s != ' ' && *s != '\t')
				s++;
		}
		if (*s)
			*s++ = '\0';
	}
}

static bool printable(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 && *s != '\t')
			return false;
	return true;
}

static enum cmd_status exec_one(char *cmd, const char *where)
{
	char *argv[MAX_ARGS];
	const char *why = NULL;
	while (*cmd == ' ' || *cmd == '\t')
		cmd++;
	if (where && *cmd)
		printf("%s> %s\n", where, cmd); /* what a script ran, in the log */
	int argc = split_words(cmd, argv, &why);
	enum cmd_status st;
	if (argc == 0)
		return CMD_OK;
	if (argc < 0) {
		cmd_error("%s", why);
		st = CMD_ERROR;
	} else {
		const struct command *c = find_command(argv[0]);
		if (!c) {
			cmd_error("unknown command '%s' (try 'help')", argv[0]);
			st = CMD_ERROR;
		} else {
			st = c->fn(argc, argv);
		}
	}
	if (st == CMD_ERROR && mon.unattended)
		mon.plan_errors++;
	return st;
}

static enum cmd_status exec_line(const char *line, const char *where);

enum cmd_status monitor_exec_line(const char *line, const char *where)
{
	const char *outer = cmd_where;
	cmd_where = where;
	enum cmd_status st = exec_line(line, where);
	cmd_where = outer;
	return st;
}

static enum cmd_status exec_line(const char *line, const char *where)
{
	char buf[LINE_MAX_LEN];
	if (strlen(line) >= sizeof(buf)) {
		cmd_error("line longer than %d characters", LINE_MAX_LEN - 1);
		if (mon.unattended)
			mon.plan_errors++;
		return CMD_ERROR;
	}
	strcpy(buf, line);
	if (!printable(buf)) {
		cmd_error("control characters in the line");
		if (mon.unattended)
			mon.plan_errors++;
		return CMD_ERROR;
	}
	/* '#' outside quotes starts a comment; ';' outside quotes ends a command */
	enum cmd_status worst = CMD_OK;
	bool quoted = false;
	char *start = buf;
	for (char *p = buf;; p++) {
		if (*p == '"')
			quoted = !quoted;
		bool end = *p == '\0' || (!quoted && (*p == ';' || *p == '#'));
		if (!end)
			continue;
		char c = *p;
		*p = '\0';
		enum cmd_status st = exec_one(start, where);
		if (st == CMD_MENU)
			return st;
		if (st == CMD_ERROR)
			worst = st;
		if (c != ';')
			break;
		start = p + 1;
	}
	return worst;
}

enum cmd_status monitor_exec_script(const char *text, const char *name)
{
	if (!survive_plan_begin(text, name)) /* it took the monitor down while resuming */
		return CMD_MENU;
	bool was = mon.unattended;
	mon.unattended = true;
	enum cmd_status worst = CMD_OK;
	unsigned lineno = 0;
	const char *p = text;
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		lineno++;
		char line[LINE_MAX_LEN + 1], where[48];
		size_t take = len < sizeof(line) - 1 ? len : sizeof(line) - 1;
		memcpy(line, p, take);
		line[take] = '\0';
		if (take && line[take - 1] == '\r')
			line[take - 1] = '\0';
		snprintf(where, sizeof(where), "%s:%u", name, lineno);
		enum cmd_status st;
		if (len > LINE_MAX_LEN - 1) {
			cmd_where = where;
			cmd_error("line longer than %d characters", LINE_MAX_LEN - 1);
			cmd_where = NULL;
			mon.plan_errors++;
			st = CMD_ERROR;
		} else {
			st = monitor_exec_line(line, where);
		}
		if (st == CMD_MENU) {
			worst = st;
			break;
		}
		if (st == CMD_ERROR)
			worst = st;
		p = nl ? nl + 1 : p + len;
	}
	mon.unattended = was;
	survive_plan_end();
	return worst;
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

void monitor_read_line(char *buf, unsigned size)
{
	unsigned n = 0;
	for (;;) {
		int c = wait_key();
		if (c == '\r' || c == '\n') {
			printf("\n");
			break;
		}
		if (c == 0x08 || c == 0x7f) { /* backspace, delete */
			if (n) {
				n--;
				printf("\b \b");
			}
		} else if (c == 0x15) { /* ^U: kill the line */
			while (n) {
				n--;
				printf("\b \b");
			}
		} else if (c >= 0x20 && c < 0x7f && n + 1 < size) {
			buf[n++] = (char)c;
			putchar(c);
		}
		fflush(stdout);
	}
	buf[n] = '\0';
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
		char line[LINE_MAX_LEN];
		printf("iommon> ");
		fflush(stdout);
		monitor_read_line(line, sizeof(line));
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
	char buf[RECORD_MAX];
	struct json j;
	record_begin(&j, buf, sizeof(buf), "info");
	json_str(&j, "what", "platform");
	json_str(&j, "iommon", IOMMON_VERSION);
	json_str(&j, "platform", timing.platform);
	json_str(&j, "hypervisor", timing.hypervisor);
	json_str(&j, "cpu", timing.cpu);
	json_str(&j, "firmware", platform->name);
	json_str(&j, "counter", "tsc");
	json_u64(&j, "counter_hz", timing.tsc_hz);
	json_str(&j, "calibration", timing.source);
	json_u64(&j, "stall_hz", timing.stall_hz);
	json_bool(&j, "invariant_tsc", timing.invariant_tsc);
	json_bool(&j, "rdtscp", timing.rdtscp);
	json_u64(&j, "region_overhead", timing.overhead);
	json_str(&j, "acpi", mon.acpi.present ? (mon.acpi.xsdt ? "xsdt" : "rsdt") : "none");
	json_str(&j, "console", platform->console_describe());
	record_emit(&j);
}

int monitor_main(const struct platform *p, const struct test_group *const *catalogue, const struct monitor_ext *ext)
{
	platform = p;
	mon.ext = ext;
	settings_init();
	survive_init();
	runner_init(catalogue);
	printf("\niommon %s - bare-metal IOMMU test monitor\n", IOMMON_VERSION);

	acpi_init(&mon.acpi, platform->acpi_rsdp());
	for (size_t i = 0; i < mon.acpi.diag.n; i++)
		printf("error: ACPI: %s\n", mon.acpi.diag.msg[i].text);
	if (mon.acpi.diag.errors > mon.acpi.diag.n)
		printf("error: ACPI: %zu more root entries refused or dropped\n",
		       (size_t)mon.acpi.diag.errors - mon.acpi.diag.n);
	if (!mon.acpi.present)
		printf("warning: ACPI: %s\n", mon.acpi.error);
	const char *why = platform->console_route("auto", "spcr");
	if (why)
		printf("warning: console: %s\n", why);
	timing_init(&mon.acpi, setting_get("timer.source"));
	print_info();
	info_record();
	if (mon.ext && mon.ext->discover)
		mon.ext->discover();
	survive_boot();

	const char *opts = platform->load_options();
	if (opts && *opts) {
		/* commands from whoever started us: no countdown, they asked */
		printf("running the load options: %s\n", opts);
		monitor_exec_script(opts, "options");
	} else {
		size_t len;
		char *cfg = platform->file_read("iommon.cfg", &len);
		if (cfg) {
			if (strlen(cfg) != len)
				printf("warning: iommon.cfg holds NUL bytes; reading up to the first\n");
			monitor_exec_script(cfg, "iommon.cfg");
			free(cfg);
		} else {
			printf("no iommon.cfg on %s: opening the menu\n", platform->volume_describe());
		}
	}
	survive_boot_end();
	menu_loop();
	return 0;
}
