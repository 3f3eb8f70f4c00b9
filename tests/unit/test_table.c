/* The console for a person (core/monitor/table.h, readout.h): a row's
 * last column wrapped under itself within 80 columns (132 with `set wide
 * on`), words kept whole where they fit, none lost; and every table the
 * menu prints, over a whole catalogue's results on the host monitor,
 * within that width. */
#include "host_monitor.h"

#include "core/base/macros.h"
#include "core/base/wrap.h"
#include "iommu/models/models.h"

static int setup(void **state)
{
	(void)state;
	host_monitor_init();
	monitor_settings(iommon_catalogue(), subsystems); /* the groups' own keys, for `show` */
	return 0;
}

static void wrap_words(void *arg)
{
	printf("  name     ");
	table_wrap(11, arg);
}

/* Every word of `text` is in `out`, in order (wrapping moves words, never
 * drops one). */
static void words_kept(const char *out, const char *text)
{
	char word[64];
	const char *at = out;
	for (const char *p = text; *p;) {
		size_t n = strcspn(p, " ");
		snprintf(word, sizeof(word), "%.*s", (int)n, p);
		at = strstr(at, word);
		assert_non_null(at);
		at += n;
		p += n + (p[n] == ' ');
	}
}

static void wraps_within_the_width(void **state)
{
	(void)state;
	const char *text = "the unit used the stale translation after the leaf was repointed without an "
			   "invalidation, which the specification allows: a finding, not a failure of the unit";
	const char *out = capture_stdout(wrap_words, (void *)text);
	assert_true(unit_widest_line(out) <= 80);
	words_kept(out, text);
	/* continuation lines hang under the column */
	assert_non_null(strstr(out, "\n           "));
	assert_null(strstr(out, "\n            ")); /* and not further */
	/* a word longer than the room is cut, not lost */
	char lng[200];
	memset(lng, 'x', 150);
	lng[150] = '\0';
	out = capture_stdout(wrap_words, lng);
	assert_true(unit_widest_line(out) <= 80);
	size_t xs = 0;
	for (const char *p = out; *p; p++)
		xs += *p == 'x';
	assert_int_equal(xs, 150);
	/* wide: one line of 132 holds what 80 wraps */
	assert_null(setting_set("wide", "on"));
	out = capture_stdout(wrap_words, (void *)"a b c");
	assert_string_equal(out, "  name     a b c\n");
	out = capture_stdout(wrap_words, (void *)text);
	assert_true(unit_widest_line(out) > 80 && unit_widest_line(out) <= 132);
	assert_null(setting_set("wide", "off"));
}

/* A lead wider than the room leaves: the text starts on a line of its own. */
static void no_room_left(void *arg)
{
	(void)arg;
	printf("%70s", "");
	table_wrap(70, "some words that would not fit in the ten columns left");
}

static void narrow_lead(void **state)
{
	(void)state;
	const char *out = capture_stdout(no_room_left, NULL);
	assert_true(unit_widest_line(out) <= 80);
	assert_non_null(strstr(out, "\n      some words"));
}

/* Every line of what `cmd` printed within `width` columns, but for the
 * lines the console keeps whole: a test's claims and notes (indented
 * four), lab lines and records. */
static void fits(const char *cmd, size_t width)
{
	const char *out = host_monitor_line(cmd);
	for (const char *l = out; *l;) {
		size_t n = strcspn(l, "\n");
		bool kept_whole = strncmp(l, "    ", 4) == 0 || *l == '<' || *l == '{';
		if (!kept_whole && n > width)
			fail_msg("'%s' printed a line of %zu columns: %.*s", cmd, n, (int)n, l);
		l += n + (l[n] == '\n');
	}
}

static void menu_tables_fit(void **state)
{
	(void)state;
	host_monitor_line("run default price.allocators"); /* figures, and groups that do not apply */
	static const char *const cmds[] = { "results",
					    "results all",
					    "results measures",
					    "results price.allocators",
					    "list",
					    "help",
					    "show",
					    "help run",
					    "help results",
					    "info",
					    "iommu",
					    "model" };
	for (size_t i = 0; i < ARRAY_SIZE(cmds); i++)
		fits(cmds[i], 80);
	assert_null(setting_set("wide", "on"));
	for (size_t i = 0; i < ARRAY_SIZE(cmds); i++)
		fits(cmds[i], 132);
	assert_null(setting_set("wide", "off"));
	/* the digest leads with the counts and offers the rest by name */
	const char *out = host_monitor_line("results");
	assert_true(strncmp(out, "session: ", 9) == 0);
	assert_non_null(strstr(out, "\n  more: 'results all', 'results measures', 'results GROUP'"));
	assert_non_null(strstr(out, "\n  not applicable here:\n"));
	assert_non_null(strstr(out, "\n  group      passed failed skipped  known   n/a\n"));
	/* the figures, by test and path */
	out = host_monitor_line("results measures");
	assert_non_null(strstr(out, "\n  timer.overhead, timer "));
	assert_non_null(strstr(out, "\n    empty-region "));
}

/* A unit that used a stale translation (as the spec allows) passes, with
 * a finding: in its record, and in the digest apart from the passes. */
static void findings_apart(void **state)
{
	(void)state;
	assert_null(model_attach("vtd", "none"));
	assert_null(setting_set("records", "console"));
	const char *out = host_monitor_line("run vtd.stale_iotlb vtd.translate_4k");
	const char *rec = host_monitor_result(out, "vtd.stale_iotlb");
	assert_non_null(strstr(rec, "\"verdict\":\"pass\""));
	assert_non_null(strstr(rec, ",\"finding\":\"the unit USED the stale translation (the spec allows either)\""));
	assert_null(strstr(host_monitor_result(out, "vtd.translate_4k"), "\"finding\""));
	assert_non_null(strstr(out, "\n  vtd.stale_iotlb  finding "));
	assert_non_null(strstr(out, "\n  vtd.translate_4k pass    "));
	assert_null(setting_set("records", "file"));
	model_detach();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(findings_apart),
		cmocka_unit_test(wraps_within_the_width),
		cmocka_unit_test(narrow_lead),
		cmocka_unit_test(menu_tables_fit),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
