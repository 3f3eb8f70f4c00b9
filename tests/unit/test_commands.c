/* The command table, line and script parsing, settings, and the verdict,
 * exercised through the same entry points the console and iommon.cfg use. */
#include "host_monitor.h"

#include <dirent.h>
#include <sys/stat.h>

#include "core/base/macros.h"
#include "core/base/timing.h"
#include "core/monitor/monitor.h"
#include "core/monitor/results.h"
#include "core/monitor/settings.h"
#include "tests/catalogue/catalogue.h"
#include "tests/host/platform_host.h"

static enum cmd_status last;

struct line_arg {
	const char *line, *where;
};

static void do_line(void *a)
{
	struct line_arg *l = a;
	last = monitor_exec_line(l->line, l->where);
}

static const char *line(const char *text)
{
	struct line_arg a = { text, NULL };
	return capture_stdout(do_line, &a);
}

static void do_script(void *a)
{
	last = monitor_exec_script(a, "t.cfg");
}

static int setup(void **state)
{
	(void)state;
	host_monitor_init();
	return 0;
}

static void unknown_command(void **state)
{
	(void)state;
	const char *out = line("sett countdown 1");
	assert_int_equal(last, CMD_ERROR);
	assert_non_null(strstr(out, "unknown command 'sett'"));
	/* one clear line */
	assert_int_equal(strchr(out, '\n') - out + 1, (long)strlen(out));
}

static void set_and_show(void **state)
{
	(void)state;
	line("set countdown 5");
	assert_int_equal(last, CMD_OK);
	assert_string_equal(setting_get("countdown"), "5");

	const char *out = line("set countdown 99999");
	assert_int_equal(last, CMD_ERROR);
	assert_non_null(strstr(out, "countdown '99999'"));
	assert_string_equal(setting_get("countdown"), "5"); /* unchanged */

	out = line("set countdown -1");
	assert_int_equal(last, CMD_ERROR);
	out = line("set nosuch 1");
	assert_int_equal(last, CMD_ERROR);
	assert_non_null(strstr(out, "unknown setting 'nosuch'"));
	out = line("set countdown");
	assert_int_equal(last, CMD_ERROR);
	assert_non_null(strstr(out, "usage: set"));

	out = line("show countdown");
	assert_non_null(strstr(out, "countdown"));
	assert_non_null(strstr(out, "5"));
	line("show nosuch");
	assert_int_equal(last, CMD_ERROR);
}

static void setting_values(void **state)
{
	(void)state;
	assert_non_null(setting_set("uart", "io:zz"));
	assert_non_null(setting_set("uart", "io:0x3f8,7")); /* 115200 % 7 != 0 */
	assert_non_null(setting_set("uart", "io:0x10000")); /* beyond the port space */
	assert_non_null(setting_set("uart", "serial0"));
	assert_non_null(setting_set("uart", "mmio32:"));
	assert_non_null(strstr(setting_set("uart", "mmio32:0xfedc9000,115200"), "no UART"));
	assert_non_null(strstr(setting_set("uart", "io:0x3f8"), "no UART")); /* valid, but the host has none */
	assert_non_null(setting_set("records", "maybe"));
	assert_null(setting_set("records", "off"));
	assert_false(setting_bool("records"));
	assert_null(setting_set("records", "on"));
	assert_null(setting_set("console", "efi"));
	assert_non_null(setting_set("console", "uart")); /* no UART on the host */
	assert_non_null(setting_set("timer.samples", "5"));
	assert_null(setting_set("timer.samples", "100"));
	assert_int_equal(setting_long("timer.samples"), 100);
}

static void separators_comments_quotes(void **state)
{
	(void)state;
	const char *out = line("echo a; echo b");
	assert_string_equal(out, "a\nb\n");
	out = line("echo a # echo b");
	assert_string_equal(out, "a\n");
	out = line("echo \"x; y # z\"");
	assert_string_equal(out, "x; y # z\n");
	out = line("echo \"open");
	assert_int_equal(last, CMD_ERROR);
	assert_non_null(strstr(out, "unterminated quote"));
	out = line("   ");
	assert_int_equal(last, CMD_OK);
	assert_string_equal(out, "");
}

static void bad_lines(void **state)
{
	(void)state;
	char longl[1100]; /* beyond SCRIPT_LINE_MAX */
	memset(longl, 'a', sizeof(longl) - 1);
	longl[sizeof(longl) - 1] = '\0';
	const char *out = line(longl);
	assert_int_equal(last, CMD_ERROR);
	assert_non_null(strstr(out, "longer than"));
	out = line("echo \x1b[2J");
	assert_int_equal(last, CMD_ERROR);
	out = line("a b c d e f g h i j k l m n o p q r");
	assert_int_equal(last, CMD_ERROR);
	assert_non_null(strstr(out, "too many words"));
	out = line("exit sideways");
	assert_int_equal(last, CMD_ERROR);
	assert_non_null(strstr(out, "exit 'sideways'"));
	out = line("run");
	assert_int_equal(last, CMD_ERROR);
	out = line("help nosuch");
	assert_int_equal(last, CMD_ERROR);
}

static void interactive_errors_are_not_plan_errors(void **state)
{
	(void)state;
	unsigned before = monitor_plan_errors();
	line("nosuch");
	assert_int_equal(monitor_plan_errors(), before);
	/* nothing has run yet: the plan could not run */
	assert_int_equal(monitor_verdict(), 2);
}

static void list_and_help(void **state)
{
	(void)state;
	const char *out = line("list");
	assert_non_null(strstr(out, "timer.calibration"));
	assert_non_null(strstr(out, "* timer.counter"));
	out = line("list nosuch");
	assert_int_equal(last, CMD_ERROR);
	out = line("help");
	static const char *const cmds[] = { "help", "list", "run", "set", "show", "results", "save", "exit" };
	for (size_t i = 0; i < ARRAY_SIZE(cmds); i++)
		assert_non_null(strstr(out, cmds[i]));
}

/* Every command 'help' lists explains itself with examples. */
static void help_has_examples(void **state)
{
	(void)state;
	const char *all = line("help");
	char names[64][24];
	size_t n = 0;
	for (const char *p = all; (p = strstr(p, "\n  ")) && n < 64; p++) {
		p += 3;
		size_t len = strcspn(p, " \n");
		if (len && len < sizeof(names[0]) && p[-1] == ' ' && p[-2] == ' ' && p[-3] == '\n') {
			memcpy(names[n], p, len);
			names[n++][len] = '\0';
		}
	}
	assert_true(n >= 12);
	for (size_t i = 0; i < n; i++) {
		if (strcmp(names[i], "Commands") == 0)
			continue;
		char cmd[64];
		snprintf(cmd, sizeof(cmd), "help %.24s", names[i]);
		const char *out = line(cmd);
		assert_int_equal(last, CMD_OK);
		const char *ex = strstr(out, "  examples:\n    ");
		if (!ex)
			fail_msg("'help %s' gives no examples: %s", names[i], out);
		assert_non_null(strstr(ex, names[i])); /* an example uses the command */
	}
}

/* Patterns in list, run and --skip; a typo answered with the nearest names;
 * --skip with nothing after it (or before it) refused. */
static void patterns_and_typos(void **state)
{
	(void)state;
	const char *out = line("list vtd.translate*");
	assert_int_equal(last, CMD_OK);
	assert_non_null(strstr(out, "vtd.translate_4k"));
	assert_null(strstr(out, "amdvi.translate_4k"));
	out = line("list *.latency");
	assert_non_null(strstr(out, "vtd.latency"));
	assert_non_null(strstr(out, "dma.latency"));
	out = line("list *.nosuch*");
	assert_int_equal(last, CMD_ERROR);
	assert_non_null(strstr(out, "no test matches the pattern '*.nosuch*'"));
	assert_null(strstr(out, "did you mean"));
	out = line("run vtd.translat_4k");
	assert_int_equal(last, CMD_ERROR);
	assert_non_null(strstr(out, "did you mean vtd.translate_4k?"));
	out = line("list translate_4k");
	assert_int_equal(last, CMD_ERROR);
	assert_non_null(strstr(out, "did you mean "));
	assert_non_null(strstr(out, "vtd.translate_4k"));
	out = line("run vdt");
	assert_non_null(strstr(out, "did you mean "));
	assert_non_null(strstr(out, "vtd?"));
	out = line("run zzzzzzzz");
	assert_null(strstr(out, "did you mean"));
	out = line("run default --skip");
	assert_int_equal(last, CMD_ERROR);
	assert_non_null(strstr(out, "'--skip' needs a test, group or pattern after it"));
	assert_null(strstr(out, "passed")); /* nothing ran */
	out = line("run --skip vtd");
	assert_int_equal(last, CMD_ERROR);
	assert_non_null(strstr(out, "'--skip' comes after what to run"));
	out = line("run timer.* --skip timer.c?libration *.overhead timer.[s]tall");
	assert_int_equal(last, CMD_OK);
	assert_non_null(strstr(out, "1 passed, 0 failed, 3 skipped"));
}

/* A script: bad lines are reported with their place, the rest runs, the
 * results are saved as they are made, and the verdict says the plan broke. */
static void script_goes_on_and_saves(void **state)
{
	(void)state;
	const char *script = "# a comment\n"
			     "echo one\r\n"
			     "sett x\n"
			     "run nosuch\n"
			     "run timer.counter\n"
			     "echo two\n";
	const char *out = capture_stdout(do_script, (void *)script);
	assert_int_equal(last, CMD_ERROR);
	assert_non_null(strstr(out, "t.cfg:3: unknown command 'sett'"));
	assert_non_null(strstr(out, "error: t.cfg:4: no test or group named 'nosuch'"));
	assert_non_null(strstr(out, "\n0 passed, 0 failed, 0 skipped\n")); /* every run closes */
	assert_non_null(strstr(out, "\n1 passed, 0 failed, 0 skipped\n"));
	assert_non_null(strstr(out, "two\n"));
	assert_int_equal(monitor_plan_errors(), 2);
	assert_int_equal(monitor_verdict(), 2);

	/* the file holds exactly the records the console showed */
	const char *path = results_path();
	assert_true(strncmp(path, "iommon/results/", 15) == 0);
	char full[512], file[65536] = "", console[65536] = "";
	snprintf(full, sizeof(full), "%s/%s", getenv("IOMMON_VOLUME"), path);
	FILE *f = fopen(full, "r");
	assert_non_null(f);
	size_t n = fread(file, 1, sizeof(file) - 1, f);
	file[n] = '\0';
	fclose(f);
	for (const char *p = out; *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p + 1) : strlen(p);
		if (*p == '{')
			strncat(console, p, len);
		p += len;
	}
	assert_true(strlen(console) > 0);
	assert_string_equal(file, console);
}

/* A second results file never replaces the first. */
static void results_never_overwritten(void **state)
{
	(void)state;
	char first[64];
	snprintf(first, sizeof(first), "%s", results_path());
	results_close();
	assert_null(results_save());
	assert_string_not_equal(results_path(), first);
	results_close();
}

/* Files larger than the first buffer grow it; absent files are NULL. */
static void file_read_whole(void **state)
{
	(void)state;
	char full[512];
	snprintf(full, sizeof(full), "%s/big.cfg", getenv("IOMMON_VOLUME"));
	FILE *f = fopen(full, "w");
	assert_non_null(f);
	for (int i = 0; i < 1000; i++)
		fprintf(f, "echo line %04d\n", i); /* 15 bytes a line */
	fclose(f);
	size_t len = 0;
	char *text = platform->file_read("big.cfg", &len);
	assert_non_null(text);
	assert_int_equal(len, 15000);
	assert_int_equal(strlen(text), 15000);
	assert_memory_equal(text + 14985, "echo line 0999\n", 15);
	free(text);
	assert_null(platform->file_read("absent.cfg", &len));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(unknown_command),
		cmocka_unit_test(set_and_show),
		cmocka_unit_test(setting_values),
		cmocka_unit_test(separators_comments_quotes),
		cmocka_unit_test(bad_lines),
		cmocka_unit_test(interactive_errors_are_not_plan_errors),
		cmocka_unit_test(list_and_help),
		cmocka_unit_test(help_has_examples),
		cmocka_unit_test(script_goes_on_and_saves),
		cmocka_unit_test(results_never_overwritten),
		cmocka_unit_test(file_read_whole),
		/* last: it runs tests, whose records the script test's file must not hold */
		cmocka_unit_test(patterns_and_typos),
	};
	return cmocka_run_group_tests_name("commands", tests, setup, NULL);
}
