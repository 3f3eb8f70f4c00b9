/* What the monitor is given: console lines, iommon.cfg, load options and
 * the arguments of commands and settings. Each bad input is a named error
 * and nothing runs in its place; a bad line in a script never stops the
 * lines after it. */
#include "unit.h"

#include "core/base/macros.h"
#include "core/base/timing.h"
#include "core/monitor/monitor.h"
#include "core/monitor/runner.h"
#include "core/monitor/settings.h"
#include "iommu/machine.h"
#include "pci/pci.h"
#include "tests/catalogue/catalogue.h"
#include "tests/host/platform_host.h"

static enum cmd_status last;

static void do_line(void *a)
{
	last = monitor_exec_line(a, NULL);
}

static const char *line(const char *text)
{
	return capture_stdout(do_line, (void *)text);
}

static void do_script(void *a)
{
	last = monitor_exec_script(a, "t.cfg");
}

static const char *script(const char *text)
{
	return capture_stdout(do_script, (void *)text);
}

static void calibrate(void *arg)
{
	(void)arg;
	timing_init(NULL, "auto");
}

static int setup(void **state)
{
	(void)state;
	static char vol[] = "/tmp/iommon-input-XXXXXX";
	assert_non_null(mkdtemp(vol));
	setenv("IOMMON_VOLUME", vol, 1);
	platform = &host_platform;
	settings_init();
	runner_init(iommon_catalogue());
	monitor_settings(iommon_catalogue(), subsystems);
	capture_stdout(calibrate, NULL);
	return 0;
}

/* ---- console lines ------------------------------------------------------ */

static struct {
	const char *text;
	size_t len, at;
} typed;

static int typed_getc(void)
{
	if (typed.at == typed.len)
		fail_msg("the line reader wants more than was typed");
	return (unsigned char)typed.text[typed.at++];
}

static void type(const char *text, size_t len)
{
	static struct platform p;
	p = host_platform;
	p.getc = typed_getc;
	platform = &p;
	typed.text = text;
	typed.len = len;
	typed.at = 0;
}

static char read_buf[256];

static void do_read(void *a)
{
	(void)a;
	monitor_read_line(read_buf, sizeof(read_buf));
}

/* A line longer than the buffer is read to its Enter and nothing of it is
 * kept: the next line starts clean, and no cut command runs. */
static void console_line_too_long(void **state)
{
	(void)state;
	static char keys[1200];
	memcpy(keys, "echo ", 5);
	memset(keys + 5, 'a', 600);
	memcpy(keys + 605, "\rinfo\r", 6);
	type(keys, 611);
	const char *out = capture_stdout(do_read, NULL);
	assert_string_equal(read_buf, "");
	assert_non_null(strstr(out, "line longer than 255 characters: not run"));
	capture_stdout(do_read, NULL); /* the next line is whole */
	assert_string_equal(read_buf, "info");
	platform = &host_platform;
}

/* A control character or a byte outside ASCII typed into a line (a raw
 * escape sequence from an arrow key) makes the line a named error. */
static void console_line_not_ascii(void **state)
{
	(void)state;
	type("run \x1b[Adefault\r", 15);
	const char *out = capture_stdout(do_read, NULL);
	assert_string_equal(read_buf, "");
	assert_non_null(strstr(out, "control character 0x1b at column 5: not run"));
	type("echo caf\xe9\r", 10);
	out = capture_stdout(do_read, NULL);
	assert_string_equal(read_buf, "");
	assert_non_null(strstr(out, "not ASCII"));
	/* editing still works: backspace, Ctrl-U, a tab is a space */
	static const char edit[] = "ecxo\b\bho\tx\x15"
				   "echo ok\r";
	type(edit, sizeof(edit) - 1);
	capture_stdout(do_read, NULL);
	assert_string_equal(read_buf, "echo ok");
	platform = &host_platform;
}

/* ---- scripts ------------------------------------------------------------ */

/* Windows editors start a file with a UTF-8 byte order mark. */
static void script_bom(void **state)
{
	(void)state;
	unsigned before = monitor_plan_errors();
	const char *out = script("\xef\xbb\xbf"
				 "echo bom\r\n"
				 "echo two\r\n");
	assert_int_equal(last, CMD_OK);
	assert_string_equal(out, "<iommon-plan-begin plan=t.cfg>\nt.cfg:1> echo bom\nbom\nt.cfg:2> echo two\ntwo\n"
				 "<iommon-result test_case_id=verdict result=error>\n<iommon-plan-end plan=t.cfg>\n");
	assert_int_equal(monitor_plan_errors(), before);
	/* only at the start of the file: later it is a character outside ASCII */
	out = script("echo a\n\xef\xbb\xbf"
		     "echo b\n");
	assert_int_equal(last, CMD_ERROR);
	assert_non_null(strstr(out, "error: t.cfg:2: "));
	assert_int_equal(monitor_plan_errors(), before + 1);
}

/* CR, LF and CRLF each end one line, in any mix; a last line without an
 * end runs too. */
static void script_line_ends(void **state)
{
	(void)state;
	const char *out = script("echo a\recho b\r\necho c\n\necho e\r\recho g");
	assert_int_equal(last, CMD_OK);
	assert_string_equal(out, "<iommon-plan-begin plan=t.cfg>\n"
				 "t.cfg:1> echo a\na\n"
				 "t.cfg:2> echo b\nb\n"
				 "t.cfg:3> echo c\nc\n"
				 "t.cfg:5> echo e\ne\n"
				 "t.cfg:7> echo g\ng\n"
				 "<iommon-result test_case_id=verdict result=error>\n<iommon-plan-end plan=t.cfg>\n");
}

struct bytes {
	const char *p;
	size_t n;
};

static void do_bytes(void *a)
{
	struct bytes *b = a;
	last = monitor_exec_bytes(b->p, b->n, "t.cfg");
}

static const char *script_bytes(const char *p, size_t n)
{
	struct bytes b = { p, n };
	return capture_stdout(do_bytes, &b);
}

/* Each kind of bad line is one named error with its place, counted as one
 * plan error, and every line after it still runs. */
static void script_bad_lines_go_on(void **state)
{
	(void)state;
	static const char text[] = "echo 1\n"
				   "echo \0x\n"		    /* 2: NUL */
				   "echo \x1b[2J\n"	    /* 3: control character */
				   "echo \xff\xfe\n"	    /* 4: not UTF-8 */
				   "echo caf\xc3\xa9\n"	    /* 5: UTF-8, but outside a comment */
				   "echo 6 # caf\xc3\xa9\n" /* 6: fine: in a comment */
				   "sett x\n"		    /* 7: unknown command */
				   "echo \xc3\n"	    /* 8: cut UTF-8 sequence */
				   "echo \xed\xa0\x80\n"    /* 9: a surrogate */
				   "echo \xc0\xaf\n"	    /* 10: overlong */
				   "\x7f\n"		    /* 11: DEL */
				   "echo 12\n";
	unsigned before = monitor_plan_errors();
	const char *out = script_bytes(text, sizeof(text) - 1);
	assert_int_equal(last, CMD_ERROR);
	assert_non_null(strstr(out, "error: t.cfg:2: NUL byte at column 6: not run\n"));
	assert_non_null(strstr(out, "error: t.cfg:3: control character 0x1b at column 6: not run\n"));
	assert_non_null(strstr(out, "error: t.cfg:4: invalid UTF-8 (byte 0xff) at column 6: not run\n"));
	assert_non_null(strstr(out, "error: t.cfg:5: character not ASCII at column 9 (outside a comment): not run\n"));
	assert_non_null(strstr(out, "t.cfg:6> echo 6 \n6\n"));
	assert_non_null(strstr(out, "error: t.cfg:7: unknown command 'sett'"));
	assert_non_null(strstr(out, "error: t.cfg:8: invalid UTF-8 (byte 0xc3) at column 6: not run\n"));
	assert_non_null(strstr(out, "error: t.cfg:9: invalid UTF-8 (byte 0xed) at column 6: not run\n"));
	assert_non_null(strstr(out, "error: t.cfg:10: invalid UTF-8 (byte 0xc0) at column 6: not run\n"));
	assert_non_null(strstr(out, "error: t.cfg:11: control character 0x7f at column 1: not run\n"));
	assert_non_null(strstr(out, "t.cfg:12> echo 12\n12\n"));
	assert_null(strstr(out, "\n\n")); /* nothing of a bad line was printed */
	assert_int_equal(monitor_plan_errors(), before + 9);
}

/* A line longer than the limit is one error; the rest of it is not taken
 * for further lines, and the next line runs. */
static void script_long_line(void **state)
{
	(void)state;
	static char text[5000];
	size_t n = (size_t)snprintf(text, sizeof(text), "echo ");
	memset(text + n, 'x', 3000);
	n += 3000;
	n += (size_t)snprintf(text + n, sizeof(text) - n, "; echo cut\necho next\n");
	unsigned before = monitor_plan_errors();
	const char *out = script_bytes(text, n);
	assert_int_equal(last, CMD_ERROR);
	assert_non_null(strstr(out, "error: t.cfg:1: line longer than 1024 characters: not run\n"));
	assert_null(strstr(out, "cut"));
	assert_non_null(strstr(out, "t.cfg:2> echo next\nnext\n"));
	assert_int_equal(monitor_plan_errors(), before + 1);
	/* exactly the limit is fine */
	n = (size_t)snprintf(text, sizeof(text), "echo ");
	memset(text + n, 'y', 1024 - n);
	text[1024] = '\n';
	out = script_bytes(text, 1025);
	assert_int_equal(last, CMD_OK);
}

struct piece {
	const char *text;
	size_t cut, n;
};

static void feed_in_two(void *a)
{
	struct piece *p = a;
	struct script s;
	script_begin(&s, "t.cfg");
	script_feed(&s, p->text, p->cut);
	script_feed(&s, p->text + p->cut, p->n - p->cut);
	last = script_end(&s, NULL);
}

/* A script fed in pieces gives the same lines whatever the cuts (a CR at
 * the end of one piece and its LF at the start of the next is one end). */
static void script_in_pieces(void **state)
{
	(void)state;
	static const char text[] = "\xef\xbb\xbf"
				   "echo a\r\necho b\recho c\n";
	static char whole[65536];
	strcpy(whole, script_bytes(text, sizeof(text) - 1));
	assert_non_null(strstr(whole, "t.cfg:3> echo c\nc\n"));
	/* the plan's banners are the plan runner's, not the script reader's */
	static const char begin[] = "<iommon-plan-begin plan=t.cfg>\n";
	assert_memory_equal(whole, begin, sizeof(begin) - 1);
	memmove(whole, whole + sizeof(begin) - 1, strlen(whole) - (sizeof(begin) - 1) + 1);
	/* a plan that ran no test: its verdict, then its end */
	assert_non_null(
	    strstr(whole, "<iommon-result test_case_id=verdict result=error>\n<iommon-plan-end plan=t.cfg>\n"));
	*strstr(whole, "<iommon-result test_case_id=verdict") = '\0';
	for (size_t cut = 0; cut <= sizeof(text) - 1; cut++) {
		struct piece pc = { text, cut, sizeof(text) - 1 };
		assert_string_equal(capture_stdout(feed_in_two, &pc), whole);
	}
}

static void feed_then_cut(void *a)
{
	static struct script s;
	script_begin(&s, "t.cfg");
	script_feed(&s, a, strlen(a));
	last = script_end(&s, "read error after 30 bytes: device error");
}

/* A file that cannot be read to its end: what was read ran, the line the
 * error cut is not run, and the error is named and counted. */
static void script_cut_by_read_error(void **state)
{
	(void)state;
	unsigned before = monitor_plan_errors();
	const char *out = capture_stdout(feed_then_cut, "echo whole\necho cut-he");
	assert_int_equal(last, CMD_ERROR);
	assert_non_null(strstr(out, "t.cfg:1> echo whole\nwhole\n"));
	assert_null(strstr(out, "cut-he"));
	assert_non_null(
	    strstr(out, "error: t.cfg:2: read error after 30 bytes: device error: the rest of t.cfg is not run\n"));
	assert_int_equal(monitor_plan_errors(), before + 1);
}

static void write_file(const char *name, const char *fmt_line, size_t bytes, const char *tail)
{
	char full[512];
	snprintf(full, sizeof(full), "%s/%s", getenv("IOMMON_VOLUME"), name);
	FILE *f = fopen(full, "wb");
	assert_non_null(f);
	size_t n = 0;
	while (n < bytes)
		n += (size_t)fprintf(f, "%s", fmt_line);
	fputs(tail, f);
	fclose(f);
}

/* iommon.cfg over 1 MiB is read to its end. */
static void big_file_read_whole(void **state)
{
	(void)state;
	write_file("big2.cfg", "# a comment line that takes up room, as a generated plan might\n", 2u << 20,
		   "echo the-end\n");
	size_t len = 0;
	char *text = platform->file_read("big2.cfg", &len);
	assert_non_null(text);
	assert_true(len > (2u << 20));
	assert_non_null(strstr(text + len - 20, "echo the-end\n"));
	free(text);
}

static void do_file(void *a)
{
	last = monitor_exec_file(a);
}

static void big_file_runs_to_its_end(void **state)
{
	(void)state;
	write_file("big3.cfg", "# a comment line that takes up room, as a generated plan might\r\n", 3u << 20,
		   "echo the-end");
	const char *out = capture_stdout(do_file, "big3.cfg");
	assert_int_equal(last, CMD_OK);
	assert_non_null(strstr(out, "big3.cfg:49153> echo the-end\nthe-end\n"));
	out = capture_stdout(do_file, "absent.cfg");
	assert_int_equal(last, CMD_OK);
	assert_non_null(strstr(out, "no absent.cfg on host folder"));
}

/* ---- load options -------------------------------------------------------- */

static const char *opts(const uint16_t *s, size_t n, char **text)
{
	return load_options_text(s, n, "iommon.efi", text);
}

static char *opts_of(const char *a)
{
	uint16_t u[64];
	size_t n = 0;
	for (; *a && n < 63; a++)
		u[n++] = (uint8_t)*a;
	char *text = NULL;
	assert_null(opts(u, n, &text));
	return text;
}

static void load_options(void **state)
{
	(void)state;
	static uint16_t u[3000];
	char *text = NULL;
	/* the shell's form: the image's name first; kept whole, however long */
	const char *head = "fs0:\\iommon.efi echo ";
	size_t n = 0;
	for (const char *p = head; *p; p++)
		u[n++] = (uint8_t)*p;
	for (int i = 0; i < 2000; i++)
		u[n++] = 'z';
	u[n++] = 0;
	assert_null(opts(u, n, &text));
	assert_non_null(text);
	assert_int_equal(strlen(text), 5 + 2000);
	assert_true(strncmp(text, "echo zzz", 8) == 0);
	free(text);
	/* a boot entry's binary data, or text outside ASCII: ignored, and said */
	uint16_t bin[] = { 'r', 'u', 'n', 0x00e9, 0 };
	text = NULL;
	assert_non_null(strstr(opts(bin, 5, &text), "not plain ASCII text"));
	assert_null(text);
	uint16_t ctl[] = { 'r', 'u', 'n', 0x0001, 'x' };
	assert_non_null(opts(ctl, 5, &text));
	assert_null(text);
	/* empty, or only the image's name: no options */
	uint16_t name[] = { 'a', '.', 'e', 'f', 'i', ' ', 0 };
	assert_null(opts(name, 7, &text));
	assert_null(text);
	/* a byte order mark is not text either way: leading U+FEFF is skipped */
	uint16_t bom[] = { 0xfeff, 'e', 'c', 'h', 'o', 0 };
	assert_null(opts(bom, 6, &text));
	assert_string_equal(text, "echo");
	free(text);
	/* the shell lets the image be typed without its .efi, and passes the
	 * name as typed: "iommon run all" is "run all", in any case; a first
	 * word that is not the image's name is a command */
	static const char *const same[][2] = {
		{ "iommon run all", "run all" },	  { "IOMMON run all", "run all" },
		{ "iommon.EFI run all", "run all" },	  { "run all", "run all" },
		{ "iommonx run all", "iommonx run all" }, { "iommo run all", "iommo run all" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(same); i++) {
		text = opts_of(same[i][0]);
		assert_non_null(text);
		if (strcmp(text, same[i][1]) != 0)
			fail_msg("'%s' gave '%s', want '%s'", same[i][0], text, same[i][1]);
		free(text);
	}
	assert_null(opts_of("iommon"));
}

/* ---- numbers and addresses ---------------------------------------------- */

static void numbers(void **state)
{
	(void)state;
	unsigned long long v = 77;
	static const char *const bad[] = { "",
					   " -10",
					   "-10",
					   "+10",
					   "10 ",
					   " 10",
					   "010",
					   "0x",
					   "0x 1",
					   "1e3",
					   "12abc",
					   "0x1g",
					   "18446744073709551616",
					   "0x10000000000000000",
					   "99999999999999999999999",
					   "0b101",
					   "1_000",
					   "0o7",
					   "\t1" };
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		assert_false(parse_u64(bad[i], &v));
		assert_non_null(parse_u64_why(bad[i], &v));
	}
	assert_int_equal(v, 77); /* untouched */
	assert_non_null(strstr(parse_u64_why("010", &v), "leading 0"));
	assert_non_null(strstr(parse_u64_why("18446744073709551616", &v), "too large"));
	assert_non_null(strstr(parse_u64_why(" -10", &v), "not a number"));
	assert_non_null(strstr(parse_u64_why("", &v), "empty"));
	static const struct {
		const char *s;
		unsigned long long v;
	} good[] = { { "0", 0 },
		     { "10", 10 },
		     { "0x10", 16 },
		     { "0X1f", 31 },
		     { "0x0001", 1 },
		     { "18446744073709551615", ~0ull },
		     { "0xffffffffffffffff", ~0ull } };
	for (size_t i = 0; i < ARRAY_SIZE(good); i++) {
		assert_true(parse_u64(good[i].s, &v));
		assert_true(v == good[i].v);
	}
}

static void pci_addresses(void **state)
{
	(void)state;
	struct pci_addr a = { 9, 9, 9, 9 };
	static const char *const bad[] = { "100000001:00.0", "10000:00:00.0", "0:100:00.0", "0:1ff:00.0",
					   "00:20.0",	     "00:00.8",	      "00:00.10",   " 01:00.0",
					   "01:00.0 ",	     "+1:00.0",	      "-1:00.0",    "0x1:00.0",
					   "01:0x0.0",	     "01::00.0",      "01:00.",	    ":00.0",
					   "01:00",	     "0:0:0:0.0",     "",	    "00000:01:00.0",
					   "001:00.0",	     "01:000.0" };
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		if (pci_parse_addr(bad[i], &a))
			fail_msg("'%s' was taken as %x:%x:%x.%x", bad[i], a.seg, a.bus, a.dev, a.fn);
		assert_non_null(pci_parse_addr_why(bad[i], &a));
	}
	assert_non_null(strstr(pci_parse_addr_why("100000001:00:00.0", &a), "segment"));
	assert_non_null(strstr(pci_parse_addr_why("100000001:00.0", &a), "bus"));
	assert_non_null(strstr(pci_parse_addr_why("0:100:00.0", &a), "bus"));
	assert_non_null(strstr(pci_parse_addr_why("00:20.0", &a), "device"));
	assert_non_null(strstr(pci_parse_addr_why("00:00.8", &a), "function"));
	assert_true(pci_parse_addr("ffff:ff:1f.7", &a));
	assert_true(a.seg == 0xffff && a.bus == 0xff && a.dev == 0x1f && a.fn == 7);
	assert_true(pci_parse_addr("0:0.0", &a));
	assert_true(a.seg == 0 && a.bus == 0 && a.dev == 0 && a.fn == 0);
	assert_true(pci_parse_addr("00:1F.3", &a));
	assert_true(a.dev == 0x1f && a.fn == 3);
}

/* ---- settings and command arguments -------------------------------------- */

static void uart_addresses(void **state)
{
	(void)state;
	static const char *const bad[] = { "mmio:0",
					   "mmio:0xffffffffffffffff",
					   "mmio:0x10000000000000", /* 2^52 */
					   "mmio32:0xfedc9001",	    /* not 4-byte aligned */
					   "mmio:0x8000000000000000",
					   "mmio:-1",
					   "mmio:0xfe000000,",
					   "mmio:0xfe000000,115200,8",
					   "io:0x3f8,0x1c200 ",
					   "io:0",
					   "io:0x3f9x",
					   "io:01016",
					   "mmio:0xfe000000,0115200" };
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		const char *why = setting_check("uart", bad[i]);
		if (!why)
			fail_msg("uart '%s' was taken", bad[i]);
	}
	assert_non_null(strstr(setting_check("uart", "mmio:0x10000000000000"), "2^52"));
	assert_non_null(strstr(setting_check("uart", "mmio32:0xfedc9001"), "aligned"));
	assert_null(setting_check("uart", "mmio:0xffffffffffff8")); /* its 8 registers end at 2^52 */
	assert_non_null(setting_check("uart", "mmio:0xffffffffffff9"));
	assert_null(setting_check("uart", "mmio32:0xfedc9000,57600"));
	assert_null(setting_check("uart", "io:0x3f8"));
	assert_null(setting_check("uart", "io:1016,9600"));
}

/* Every number-valued setting refuses what parse_u64 refuses, with the
 * reason and the range, and leaves the value as it was. */
static void setting_numbers(void **state)
{
	(void)state;
	static const char *const keys[] = { "countdown", "timer.samples", "price.count", "price.batch" };
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		char before[64];
		snprintf(before, sizeof(before), "%s", setting_get(keys[i]));
		static const char *const bad[] = { " -10", "010", "18446744073709551616", "", "12abc", "0x" };
		for (size_t k = 0; k < ARRAY_SIZE(bad); k++) {
			const char *why = setting_set(keys[i], bad[k]);
			if (!why)
				fail_msg("%s '%s' was taken", keys[i], bad[k]);
		}
		assert_string_equal(setting_get(keys[i]), before);
	}
	assert_non_null(strstr(setting_set("countdown", "010"), "leading 0"));
	assert_non_null(strstr(setting_set("timer.samples", "99999999999999999999"), "too large"));
	static const char *const sizes[] = { "4096,",
					     ",4096",
					     "4096,,8192",
					     "4096 ",
					     "4096,0x",
					     "4096,4096",
					     "512,1024,2048,4096,8192,16384,32768,65536,131072" };
	for (size_t k = 0; k < ARRAY_SIZE(sizes); k++)
		if (!setting_check("price.sizes", sizes[k]))
			fail_msg("price.sizes '%s' was taken", sizes[k]);
	assert_null(setting_check("price.sizes", "512,0x1000"));
	static const char *const strat[] = { "strict,", ",strict", "strict,,none", "strict,strict", "" };
	for (size_t k = 0; k < ARRAY_SIZE(strat); k++)
		if (!setting_check("price.strategies", strat[k]))
			fail_msg("price.strategies '%s' was taken", strat[k]);
	assert_null(setting_check("price.strategies", "none,strict"));
}

/* Settings that take a PCI address name the field that is wrong. */
static void pci_settings(void **state)
{
	(void)state;
	assert_non_null(strstr(setting_check("device", "100000001:00.0"), "bus"));
	assert_non_null(strstr(setting_check("device", "0:00:20.0"), "device"));
	assert_non_null(setting_check("device", "0000:01:00.0 "));
	assert_null(setting_check("device", "0000:01:00.0"));
	assert_null(setting_check("device", "auto"));
	assert_non_null(setting_check("nvme.scratch", "0000:01:00.0,"));
	assert_non_null(strstr(setting_check("nvme.scratch", "100000001:00.0,SN1"), "bus"));
	assert_non_null(setting_check("nvme.scratch", "0000:01:00.0,123456789012345678901"));
	assert_null(setting_check("nvme.scratch", "0000:01:00.0,iommon0"));
	assert_non_null(setting_check("dma.samples", "0x"));
	assert_non_null(setting_check("vtd.levels", "03"));
}

/* Commands refuse arguments they do not take, and bad numbers. */
static void command_arguments(void **state)
{
	(void)state;
	static const char *const bad[] = { "results all now", "save it",	  "info x",
					   "menu 2",	      "list timer extra", "help run x",
					   "show a b",	      "countdown 010",	  "countdown -1",
					   "countdown 1 2",   "countdown 0x",	  "countdown 99999999999999999999" };
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		const char *out = line(bad[i]);
		if (last != CMD_ERROR)
			fail_msg("'%s' was taken: %s", bad[i], out);
	}
	assert_non_null(strstr(line("results all now"), "'results' takes at most 1 argument"));
	assert_non_null(strstr(line("results nosuch"), "no test or group named 'nosuch'"));
	assert_int_equal(last, CMD_ERROR);
	assert_non_null(strstr(line("countdown 010"), "leading 0"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(console_line_too_long),
		cmocka_unit_test(console_line_not_ascii),
		cmocka_unit_test(script_bom),
		cmocka_unit_test(script_line_ends),
		cmocka_unit_test(script_bad_lines_go_on),
		cmocka_unit_test(script_long_line),
		cmocka_unit_test(script_in_pieces),
		cmocka_unit_test(big_file_read_whole),
		cmocka_unit_test(big_file_runs_to_its_end),
		cmocka_unit_test(load_options),
		cmocka_unit_test(numbers),
		cmocka_unit_test(pci_addresses),
		cmocka_unit_test(uart_addresses),
		cmocka_unit_test(setting_numbers),
		cmocka_unit_test(command_arguments),
		cmocka_unit_test(pci_settings),
		cmocka_unit_test(script_cut_by_read_error),
	};
	return cmocka_run_group_tests_name("input", tests, setup, NULL);
}
