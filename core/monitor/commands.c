/* The monitor's own commands (help, run, set, exit, ...) and those the
 * subsystems bring, looked up in one table, and the scripts (a line typed,
 * the load options, a plan file) run through it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/macros.h"
#include "core/base/match.h"
#include "core/base/timing.h"
#include "core/base/wrap.h"
#include "firmware.h"
#include "lab.h"
#include "monitor_state.h"
#include "readout.h"
#include "replay.h"
#include "results.h"
#include "settings.h"
#include "survive.h"
#include "verdict.h"

static const struct command *find_command(const char *name);

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

/* "no test or group named 'x'; did you mean y?", or for a pattern "no
 * test matches the pattern 'x'" */
static void no_match(const char *sel)
{
	char near[160];
	runner_suggest(sel, near, sizeof(near));
	if (match_is_pattern(sel))
		cmd_error("no test matches the pattern '%s' (try 'list')", sel);
	else
		cmd_error("no test or group named '%s'%s%s%s (try 'list')", sel, near[0] ? "; did you mean " : "", near,
			  near[0] ? "?" : "");
}

static enum cmd_status cmd_list(int argc, char **argv)
{
	if (too_many(argc, argv, 1))
		return CMD_ERROR;
	const struct test_group *const *cat = runner_catalogue();
	bool any = false;
	int wn = 0; /* the names' column: as wide as the longest listed */
	for (int pass = 0; pass < 2; pass++)
		for (const struct test_group *const *g = cat; *g; g++) {
			bool whole = argc == 1 ? !(*g)->hidden : !(*g)->hidden && strcmp(argv[1], (*g)->name) == 0;
			bool header = false;
			for (size_t i = 0; i < (*g)->n; i++) {
				const struct test_case *tc = &(*g)->cases[i];
				if (!whole && !(argc > 1 && runner_names(argv[1], *g, tc)))
					continue;
				if (pass == 0) {
					wn = table_cols(tc->name) > wn ? table_cols(tc->name) : wn;
					continue;
				}
				if (!header) {
					printf("  %s: ", (*g)->name);
					table_wrap((unsigned)table_cols((*g)->name) + 4, (*g)->summary);
				}
				header = any = true;
				printf("   %c %-*s ", tc->in_default_plan ? '*' : ' ', wn, tc->name);
				table_wrap((unsigned)wn + 6, tc->summary);
			}
		}
	if (!any) {
		no_match(argv[1]);
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
		results_to_console();
	} else if (script_unattended() && !results_path()[0] && !results_failure()) {
		const char *why = results_save();
		if (why) {
			printf("error: %s; results go to the console only, and the verdict is 'plan could not run'\n",
			       why);
			results_to_console();
		} else {
			printf("saving results to %s\n", results_path());
		}
		replay_save(why ? NULL : results_path(), &mon.acpi, &mon.id.smbios, mon.subs);
	}
	unsigned unknown = 0, skips = 0;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--skip") == 0 && (i == 1 || i == argc - 1 || skips++)) {
			cmd_error(i == 1	  ? "run: '--skip' comes after what to run ('run default --skip vtd')"
				  : i == argc - 1 ? "run: '--skip' needs a test, group or pattern after it"
						  : "run: '--skip' once: everything after it is skipped");
			return CMD_ERROR;
		}
		if (!runner_selector_known(argv[i])) {
			no_match(argv[i]);
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
	if (too_many(argc, argv, 1))
		return CMD_ERROR;
	const char *what = argc > 1 ? argv[1] : NULL;
	if (what && strcmp(what, "all") != 0 && strcmp(what, "measures") != 0 && !runner_selector_known(what)) {
		no_match(what);
		return CMD_ERROR;
	}
	if (!readout_results(what))
		return CMD_ERROR;
	/* where the records are, which this table is made from */
	printf("  records: ");
	if (results_path()[0])
		table_wrapf(11, "%s", results_path());
	else if (results_console_only() || results_failure())
		table_wrapf(11, "on the console only (%s)",
			    results_console_only() ? results_console_only() : results_failure());
	else
		table_wrapf(11, "%zu kept in memory; 'save' writes them to iommon/results/ on the boot volume",
			    results_count());
	return CMD_OK;
}

/* One test as `describe` tells it: what it is for, what it claims, how it
 * fails, whether it is in the default plan and applies here. */
static void describe_one(const struct test_group *g, const struct test_case *tc)
{
	const struct test_doc *d = runner_doc(tc);
	printf("  %s\n    ", tc->name);
	table_wrap(4, tc->summary);
	printf("    claims: ");
	table_wrap(12, d && d->claims ? d->claims : "(not described)");
	printf("    fails:  ");
	table_wrap(12, d && d->fails ? d->fails : "(not described)");
	enum skip_reason r = SKIP_NO_UNIT;
	char why[200] = "";
	bool applies = !g->applies || g->applies(g, &r, why, sizeof(why));
	printf("    plan:   ");
	table_wrapf(12, "%s; %s%s", tc->in_default_plan ? "in the default plan" : "not in the default plan",
		    applies ? "its group applies here" : "not applicable here: ", applies ? "" : why);
}

/* `describe verdict`: how the plan's verdict is reached, and what this
 * session requires now */
static void describe_verdict(void)
{
	char req[256], why[DETAIL_MAX];
	require_text(req, sizeof(req));
	printf("verdict: pass only when a test passed, none failed, and the session tested what it needed:\n");
	printf("    fail:         a test failed (a known failure, iommon-known.txt, does not)\n");
	printf("    inconclusive: nothing ran (every test that applies skipped), no IOMMU unit was tested (unless\n"
	       "                  'require nothing'), or a 'require' is unmet\n");
	printf("    plan could not run: a plan error, results not saved whole, or no test selected\n");
	printf("    required now: ");
	table_wrap(18, req[0] ? req : "nothing beyond a unit tested ('require' adds, 'require clear' drops)");
	int v = monitor_verdict_why(why, sizeof(why));
	printf("    so far:       ");
	table_wrapf(18, "%s%s%s", plan_verdict_words((enum plan_verdict)v), why[0] ? ": " : "", why);
}

static enum cmd_status cmd_require(int argc, char **argv)
{
	char err[160], req[256];
	if (argc > 1 && !require_add(argc - 1, argv + 1, err, sizeof(err))) {
		cmd_error("%s", err);
		return CMD_ERROR;
	}
	require_text(req, sizeof(req));
	printf("required: %s\n", req[0] ? req : "nothing beyond a unit tested");
	return CMD_OK;
}

static enum cmd_status cmd_describe(int argc, char **argv)
{
	if (argc != 2) {
		cmd_error("usage: describe <test|group|pattern|verdict> (try 'list')");
		return CMD_ERROR;
	}
	if (strcmp(argv[1], "verdict") == 0) {
		describe_verdict();
		return CMD_OK;
	}
	size_t n = 0;
	for (const struct test_group *const *g = runner_catalogue(); *g; g++)
		for (size_t i = 0; i < (*g)->n; i++)
			if (runner_names(argv[1], *g, &(*g)->cases[i])) {
				describe_one(*g, &(*g)->cases[i]);
				n++;
			}
	if (!n) {
		no_match(argv[1]);
		return CMD_ERROR;
	}
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
		printf("nothing can be saved: %s; the %zu records so far follow on the console, and every later one\n",
		       results_console_only(), results_count());
		results_to_console();
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

static enum cmd_status cmd_info(int argc, char **argv)
{
	if (too_many(argc, argv, 0))
		return CMD_ERROR;
	monitor_print_info();
	return CMD_OK;
}

static enum cmd_status cmd_firmware(int argc, char **argv)
{
	if (too_many(argc, argv, 0))
		return CMD_ERROR;
	firmware_print();
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
	for (size_t i = 0; i < ARRAY_SIZE(kinds); i++) {
		if (strcmp(argv[1], kinds[i].name) != 0)
			continue;
		lab_plan_end(); /* the plan ends here, whatever lines follow `exit` */
		/* after it: its verdict record may be the one the medium refused */
		char inconclusive[DETAIL_MAX];
		int v = monitor_verdict_why(inconclusive, sizeof(inconclusive));
		struct tally t = runner_session();
		printf("verdict: %s (%u passed, %u failed, %u skipped", plan_verdict_words((enum plan_verdict)v),
		       t.passed, t.failed, t.skipped);
		if (t.na)
			printf(", %u not applicable", t.na);
		printf(", %u plan errors", mon.plan_errors);
		if (t.known)
			printf(", %u known failures", t.known);
		printf(")\n");
		if (v == PLAN_INCONCLUSIVE)
			printf("  inconclusive: %s\n", inconclusive);
		if (results_failure())
			printf("  the results were not saved completely: %s\n", results_failure());
		else if (results_console_only())
			printf("  results went to the console only: %s\n", results_console_only());
		if (kinds[i].kind == EXIT_QEMU)
			printf("exit qemu: verdict %d (QEMU exits with %d: isa-debug-exit on x86_64, semihosting on "
			       "aarch64, the test finisher on riscv64 where the device tree names it; without one, "
			       "riscv64's SBI shutdown exits 0)\n",
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
	{ "help", "help [command]", "list the commands, or explain one", cmd_help,
	  "  examples:\n"
	  "    help\n"
	  "    help run\n" },
	{ "menu", "menu", "show the numbered menu", cmd_menu,
	  "    The menu's numbers run its entries; any other line is a command.\n"
	  "  examples:\n"
	  "    menu\n" },
	{ "list", "list [group|test|pattern]", "show the test catalogue", cmd_list,
	  "    '*' marks the default plan's tests. A pattern matches test names: '*' any characters,\n"
	  "    '?' one, [abc] one of a set.\n"
	  "  examples:\n"
	  "    list\n"
	  "    list vtd\n"
	  "    list *.latency\n" },
	{ "run", "run <what>... [--skip <what>...]", "run tests; ends with 'N passed, N failed, N skipped'", cmd_run,
	  "    <what>: a test, a group, a pattern, 'default' (the default plan) or 'all'.\n"
	  "    Tests run in catalogue order, each once. What follows --skip is recorded as skipped\n"
	  "    (reason 'excluded'), not run. Ctrl-C or Esc stops the run: the test in hand ends at its\n"
	  "    next wait, the rest are recorded as skipped (reason 'stopped').\n"
	  "  examples:\n"
	  "    run default\n"
	  "    run vtd\n"
	  "    run vtd.translate*\n"
	  "    run all --skip calgary dart apple\n"
	  "    run default --skip *.latency\n" },
	{ "set", "set <key> <value>", "change a setting ('show' lists them)", cmd_set,
	  "    A bad key or value is refused with what is allowed, and nothing changes.\n"
	  "  examples:\n"
	  "    set countdown 0\n"
	  "    set dma.samples 1000\n"
	  "    set price.strategies strict,deferred\n" },
	{ "show", "show [key]", "show settings", cmd_show,
	  "  examples:\n"
	  "    show\n"
	  "    show price.count\n" },
	{ "results", "results [all|measures|<what>]", "show this session's results", cmd_results,
	  "    The session's counts, then what needs a look (failures, skips with their\n"
	  "    reasons), a line per group and what did not apply here; 'all' lists every\n"
	  "    test, 'measures' the figures, a group, test or pattern those tests and\n"
	  "    their figures. Then where the records are.\n"
	  "  examples:\n"
	  "    results\n"
	  "    results all\n"
	  "    results measures\n"
	  "    results vtd\n"
	  "    results *.latency\n" },
	{ "describe", "describe <test|group|pattern|verdict>", "what a test claims and how it can fail", cmd_describe,
	  "    Each test's one-line summary, what it claims, how it can fail and what\n"
	  "    a failure says about the unit, and whether it is in the default plan\n"
	  "    and applies to this machine.\n"
	  "  examples:\n"
	  "    describe vtd.stale_iotlb\n"
	  "    describe vtd.invalidate*\n"
	  "    describe price\n"
	  "    describe verdict\n" },
	{ "save", "save", "save the records to iommon/results/ on the boot volume", cmd_save,
	  "    From then on every record is appended as it is made; unattended runs save on their own.\n"
	  "  examples:\n"
	  "    save\n" },
	{ "info", "info", "show the platform, the counter and its calibration", cmd_info,
	  "  examples:\n"
	  "    info\n" },
	{ "firmware", "firmware", "the UEFI services and protocols iommon uses, and which this firmware lacks",
	  cmd_firmware,
	  "    Each is probed without changing anything; a missing one is shown with what iommon does\n"
	  "    without it. One record (info, what firmware-services) names each by its key.\n"
	  "  examples:\n"
	  "    firmware\n" },
	{ "countdown", "countdown [seconds]", "wait for a key before going on (for iommon.cfg)", cmd_countdown,
	  "    Enter goes on at once; any other key stops the script and opens the menu.\n"
	  "  examples:\n"
	  "    countdown 10\n" },
	{ "require", "require [iommu|unit KIND|device BDF|nothing|clear]",
	  "what the plan must test to pass (no words: what it requires now)", cmd_require,
	  "    A run that tested no IOMMU unit, or whose tests all skipped, is inconclusive, never a pass.\n"
	  "    iommu: a test that worked on one of the machine's units (not a model) passed or failed;\n"
	  "    unit KIND|NAME: one of that backend's (vtd, amdvi, smmuv3, riscv, ...) or that unit (dmar0);\n"
	  "    device BDF: a test that passed or failed made that function DMA; nothing: the plan tests no\n"
	  "    unit on purpose (timers, tables). Unmet, the verdict is inconclusive, saying which. They hold\n"
	  "    until 'require clear' or the next plan file. 'describe verdict' tells the rest.\n"
	  "  examples:\n"
	  "    require iommu\n"
	  "    require unit vtd\n"
	  "    require device 0000:3b:00.0\n" },
	{ "echo", "echo <text>", "print a line (marks a log)", cmd_echo,
	  "  examples:\n"
	  "    echo rack 12, slot 3: firmware 2.1 under test\n" },
	{ "exit", "exit <firmware|reset|poweroff|qemu>", "leave; 'qemu' reports the verdict as QEMU's status", cmd_exit,
	  "    Every unit taken over is given back first, as the firmware left it.\n"
	  "  examples:\n"
	  "    exit firmware\n"
	  "    exit qemu\n" },
};

#define NCOMMANDS (ARRAY_SIZE(commands))

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

/* A command's help: its prose (lines indented four) flowed to the
 * console's width, the lines from "  examples:" on as they are. */
static void help_text(const char *help)
{
	char para[1024];
	size_t n = 0;
	bool examples = false;
	for (const char *l = help; l && *l;) {
		size_t len = strcspn(l, "\n");
		bool prose = !examples && len > 4 && strncmp(l, "    ", 4) == 0;
		if (prose && n + len < sizeof(para)) {
			n += (size_t)snprintf(para + n, sizeof(para) - n, "%s%.*s", n ? " " : "", (int)len - 4, l + 4);
		} else {
			if (n) {
				printf("    ");
				table_wrap(4, para);
				n = 0;
			}
			examples |= strncmp(l, "  examples:", 11) == 0;
			printf("%.*s\n", (int)len, l);
		}
		l += len + (l[len] == '\n');
	}
	if (n) {
		printf("    ");
		table_wrap(4, para);
	}
}

/* One command in the help table: its usage, then what it does, wrapped;
 * a usage wider than the column has the row to itself. */
#define HELP_USAGE_COLS 30
static void help_row(const struct command *c)
{
	if (table_cols(c->usage) > HELP_USAGE_COLS)
		printf("  %s\n%*s", c->usage, HELP_USAGE_COLS + 3, "");
	else
		printf("  %-*s ", HELP_USAGE_COLS, c->usage);
	table_wrap(HELP_USAGE_COLS + 3, c->summary);
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
		printf("  %s\n    ", c->usage);
		table_wrap(4, c->summary);
		help_text(c->help);
		return CMD_OK;
	}
	for (size_t i = 0; i < NCOMMANDS; i++)
		help_row(&commands[i]);
	for (size_t k = 0; mon.subs && mon.subs[k]; k++)
		for (size_t i = 0; i < mon.subs[k]->ncommands; i++)
			help_row(&mon.subs[k]->commands[i]);
	printf("  Commands on one line are separated by ';'. '#' starts a comment.\n");
	return CMD_OK;
}

/* Scripts: lines, load options and plan files run through the table. */

static void plan_error(void)
{
	mon.plan_errors++;
}

static const struct script_env script_env = { find_command, plan_error };

void monitor_commands_attach(void)
{
	script_init(&script_env);
}

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
	require_clear(); /* a plan says what it requires itself */
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
	require_clear();		       /* a plan file says what it requires itself */
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
