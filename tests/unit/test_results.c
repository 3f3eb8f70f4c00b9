/* Results that look fine but are not: a volume that fills mid-run, a
 * write-protected medium, a device that fails. The results file then ends
 * at the last whole record, the console says why in words, and the
 * unattended plan's verdict is "plan could not run". */
#include "unit.h"

#include <dirent.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "core/base/timing.h"
#include "core/monitor/monitor.h"
#include "core/monitor/results.h"
#include "core/monitor/settings.h"
#include "tests/catalogue/catalogue.h"
#include "tests/host/platform_host.h"

/* A boot volume in memory, as the platform contract describes it: a write
 * that does not fit puts what fits on the medium (as a FAT driver that
 * allocated some clusters before the volume ran out would), then the
 * platform cuts the file back to its size before the call, unless the
 * device fails that too. */
static struct {
	char data[16384];
	size_t size, capacity;
	bool created, write_protected, cut_fails;
	unsigned appends;
	const char *console_only; /* the platform's volume_readonly: a CD, a network boot */
} vol;

struct platform_file {
	int unused;
};
static struct platform_file the_file;

static struct platform_file *mem_create(const char *path, const char **why)
{
	(void)path;
	if (vol.write_protected) {
		*why = "cannot create the folder iommon: the medium is write-protected";
		return NULL;
	}
	if (vol.created) {
		*why = "exists";
		return NULL;
	}
	vol.created = true;
	return &the_file;
}

static bool mem_append(struct platform_file *f, const void *buf, size_t n, const char **why)
{
	(void)f;
	vol.appends++;
	size_t room = vol.capacity - vol.size, put = n < room ? n : room;
	size_t before = vol.size;
	memcpy(vol.data + vol.size, buf, put);
	vol.size += put;
	if (put == n)
		return true;
	if (vol.cut_fails) {
		*why = "the volume is full; cutting the partial line off failed too, so the file may end in one";
		return false;
	}
	vol.size = before;
	*why = "the volume is full";
	return false;
}

static void mem_close(struct platform_file *f)
{
	(void)f;
}

static const char *mem_readonly(void)
{
	return vol.console_only;
}

static struct platform fake;

/* What one scenario left: it runs in a child process, since a session's
 * verdict (like a real one) cannot be taken back. */
static struct outcome {
	char out[65536];
	char failure[512];
	int verdict;
	unsigned plan_errors, appends_after;
	size_t records, size;
	char data[sizeof(vol.data)];
	bool path_empty;
} * got;

/* A plan, or lines typed at the prompt when it starts with '@' (each
 * line's '@' dropped). */
static void do_script(void *a)
{
	const char *s = a;
	if (*s != '@') {
		monitor_exec_script(a, "t.cfg");
		return;
	}
	char line[128];
	for (const char *l = s; *l == '@'; l = strchr(l, '\n') + 1) {
		snprintf(line, sizeof(line), "%.*s", (int)strcspn(l + 1, "\n"), l + 1);
		monitor_exec_line(line, NULL);
	}
}

static void calibrate(void *arg)
{
	(void)arg;
	timing_init(NULL, "auto");
}

/* Runs `script` unattended on a fresh session over the volume `v`, then
 * one more run, and fills *got. */
static void scenario(const char *script, typeof(vol) v)
{
	fflush(stdout);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		vol = v;
		fake = host_platform;
		fake.file_create = mem_create;
		fake.file_append = mem_append;
		fake.file_close = mem_close;
		fake.volume_readonly = mem_readonly;
		platform = &fake;
		settings_init();
		runner_init(iommon_catalogue());
		capture_stdout(calibrate, NULL);
		snprintf(got->out, sizeof(got->out), "%s", capture_stdout(do_script, (void *)script));
		snprintf(got->failure, sizeof(got->failure), "%s", results_failure() ? results_failure() : "");
		got->verdict = monitor_verdict();
		got->plan_errors = monitor_plan_errors();
		got->records = results_count();
		got->path_empty = results_path()[0] == '\0';
		memcpy(got->data, vol.data, vol.size);
		got->size = vol.size;
		unsigned before = vol.appends;
		capture_stdout(do_script, (void *)"run timer.counter\n");
		got->appends_after = vol.appends - before;
		_exit(0);
	}
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* Every line of the file is one whole record: '{' ... '}' '\n'. */
static size_t whole_lines(const char *data, size_t size)
{
	size_t lines = 0;
	for (size_t i = 0; i < size;) {
		const char *nl = memchr(data + i, '\n', size - i);
		assert_non_null(nl);
		size_t len = (size_t)(nl - (data + i));
		assert_true(len >= 2 && data[i] == '{' && data[i + len - 1] == '}');
		i += len + 1;
		lines++;
	}
	return lines;
}

/* The records the console showed: its lines that are JSON objects. */
static size_t console_records(const char *out)
{
	size_t n = 0;
	for (const char *l = out; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
		n += *l == '{';
	return n;
}

/* timer.counter takes no IOMMU unit: `require nothing`, or the verdict
 * would be inconclusive for that alone */
static const char *const four_runs =
    "require nothing\nrun timer.counter\nrun timer.counter\nrun timer.counter\nrun timer.counter\n";

/* The control: room for everything, verdict pass, no error. */
static void room_enough(void **state)
{
	(void)state;
	scenario(four_runs, (typeof(vol)){ .capacity = sizeof(vol.data) });
	assert_int_equal(got->verdict, 0);
	assert_string_equal(got->failure, "");
	assert_null(strstr(got->out, "error:"));
	assert_int_equal(whole_lines(got->data, got->size), got->records);
	assert_int_equal(got->appends_after,
			 4); /* test-start, result, summary and the plan's verdict: saving goes on */
	/* the file has them: the console is for a person (`set records console`
	 * prints them too) */
	assert_int_equal(console_records(got->out), 0);
	assert_non_null(strstr(got->out, "<iommon-result test_case_id=timer.counter result=pass>"));
	scenario("set records console\nrun timer.counter\n", (typeof(vol)){ .capacity = sizeof(vol.data) });
	assert_true(got->records > 0);
	assert_int_equal(console_records(got->out), got->records);
	assert_int_equal(whole_lines(got->data, got->size), got->records);
}

/* Room for a few records only: the plan goes on, the file ends at the last
 * whole record, saving stops with one error line, the verdict is 2 though
 * every test passed, and no second file repeats the records. */
static void volume_fills_mid_run(void **state)
{
	(void)state;
	scenario(four_runs, (typeof(vol)){ .capacity = 700 });
	assert_non_null(strstr(got->out, "error: results file: writing iommon/results/"));
	assert_non_null(strstr(got->out, "the volume is full"));
	assert_non_null(strstr(got->out, "the verdict is 'plan could not run'"));
	assert_null(strstr(strstr(got->out, "error: results file") + 1, "error:"));
	size_t lines = whole_lines(got->data, got->size);
	assert_true(lines >= 1 && lines < got->records);
	/* the rest, from the one the file failed on, went to the console */
	assert_int_equal(console_records(got->out), got->records - lines);
	assert_true(got->size <= 700);
	assert_non_null(strstr(got->out, "1 passed, 0 failed, 0 skipped"));
	assert_int_equal(got->plan_errors, 0);
	assert_int_equal(got->verdict, 2);
	assert_non_null(strstr(got->failure, "the volume is full"));
	assert_true(got->path_empty);
	assert_int_equal(got->appends_after, 0);
}

/* A write-protected stick: not a warning but the verdict, in words. */
static void write_protected(void **state)
{
	(void)state;
	scenario("run timer.counter\n", (typeof(vol)){ .capacity = sizeof(vol.data), .write_protected = true });
	assert_non_null(strstr(got->out, "error: cannot create a results file on "));
	assert_non_null(strstr(got->out, "the medium is write-protected; results go to the console only, and the "
					 "verdict is 'plan could not run'"));
	assert_non_null(strstr(got->out, "1 passed, 0 failed, 0 skipped"));
	assert_int_equal(got->verdict, 2);
	assert_non_null(strstr(got->failure, "write-protected"));
	assert_int_equal(got->size, 0);
	assert_int_equal(console_records(got->out), got->records); /* all of them, once */
}

/* A medium that takes no files by its nature (a CD-ROM, a network boot):
 * no file is even tried, the console says once where the results went,
 * `save` says why it saves nothing (a plan written for a stick still runs
 * from a CD), and the verdict stays the tests' own. */
static void console_only_medium(void **state)
{
	(void)state;
	scenario(
	    "require nothing\nrun timer.counter\nrun timer.counter\nsave\n",
	    (typeof(vol)){ .capacity = sizeof(vol.data), .console_only = "the boot volume is a CD-ROM, read-only" });
	const char *said = strstr(got->out, "results go to the console only: the boot volume is a CD-ROM, read-only\n");
	assert_non_null(said);
	assert_null(strstr(said + 1, "results go to the console only"));
	assert_non_null(strstr(got->out, "nothing can be saved: the boot volume is a CD-ROM, read-only"));
	assert_null(strstr(got->out, "saving results to"));
	assert_null(strstr(got->out, "error:"));
	assert_int_equal(got->size, 0);
	assert_int_equal(got->appends_after, 0);
	assert_string_equal(got->failure, "");
	assert_int_equal(got->verdict, 0);
	assert_true(got->path_empty);
	assert_int_equal(console_records(got->out), got->records); /* all of them, once */
}

/* At the prompt on a CD: the records are kept until `save`, which cannot
 * save and prints them instead, then every later one. */
static void console_only_save(void **state)
{
	(void)state;
	scenario(
	    "@run timer.counter\n@save\n@run timer.counter\n",
	    (typeof(vol)){ .capacity = sizeof(vol.data), .console_only = "the boot volume is a CD-ROM, read-only" });
	const char *said = strstr(got->out, "nothing can be saved: the boot volume is a CD-ROM, read-only; the ");
	assert_non_null(said);
	assert_int_equal(console_records(said), got->records); /* the kept ones, then the rest, once each */
	assert_true(console_records(said) > console_records(strstr(said, "\n  timer.counter: ")));
	assert_int_equal(console_records(got->out), got->records);
	assert_int_equal(got->size, 0);
}

/* `set records console` after records were made: the console gets the
 * kept ones first, then each as it is made; `records file` stops it. */
static void records_catch_up(void **state)
{
	(void)state;
	scenario("@run timer.counter\n@echo --\n@set records console\n@run timer.counter\n@set records file\n@run "
		 "timer.counter\n",
		 (typeof(vol)){ .capacity = sizeof(vol.data) });
	const char *mark = strstr(got->out, "--\n");
	assert_non_null(mark);
	assert_int_equal(console_records(got->out), console_records(mark)); /* none before it */
	const char *second = strstr(mark, "\n  timer.counter: "), *third = strstr(second + 1, "\n  timer.counter: ");
	assert_non_null(third);
	/* the first run's result and summary, caught up */
	assert_true(console_records(mark) - console_records(second) >= 2);
	assert_int_equal(console_records(third), 0);
	/* what the console lacks is the third run's: the first two runs made as many */
	size_t shown = console_records(mark), missing = got->records - shown;
	assert_int_equal(shown, 2 * missing);
}

/* When even cutting the partial line off fails, the console says so. */
static void cut_back_fails(void **state)
{
	(void)state;
	scenario(four_runs, (typeof(vol)){ .capacity = 700, .cut_fails = true });
	assert_non_null(strstr(got->out, "so the file may end in one"));
	assert_int_equal(got->verdict, 2);
}

/* The host platform keeps the contract on a real file: a write cut short
 * by the file size limit (a volume that fills) leaves the file as it was
 * before the call. */
static void host_platform_cuts_back(void **state)
{
	(void)state;
	static char dir[] = "/tmp/iommon-results-XXXXXX";
	assert_non_null(mkdtemp(dir));
	setenv("IOMMON_VOLUME", dir, 1);
	const char *why = NULL;
	struct platform_file *f = host_platform.file_create("iommon/results/x.jsonl", &why);
	assert_non_null(f);
	char line[300];
	memset(line, 'a', sizeof(line));
	line[sizeof(line) - 1] = '\n';
	assert_true(host_platform.file_append(f, line, sizeof(line), &why));
	struct rlimit old, lim;
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	lim = old;
	lim.rlim_cur = 450; /* room for half of the next line */
	signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	bool ok = host_platform.file_append(f, line, sizeof(line), &why);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	assert_false(ok);
	assert_non_null(strstr(why, "the volume is full"));
	host_platform.file_close(f);
	char full[600];
	snprintf(full, sizeof(full), "%s/iommon/results/x.jsonl", dir);
	struct stat st;
	assert_int_equal(stat(full, &st), 0);
	assert_int_equal(st.st_size, sizeof(line));
}

int main(void)
{
	got = mmap(NULL, sizeof(*got), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (got == MAP_FAILED)
		return 1;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(room_enough),	     cmocka_unit_test(volume_fills_mid_run),
		cmocka_unit_test(write_protected),   cmocka_unit_test(console_only_medium),
		cmocka_unit_test(cut_back_fails),    cmocka_unit_test(host_platform_cuts_back),
		cmocka_unit_test(console_only_save), cmocka_unit_test(records_catch_up),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
