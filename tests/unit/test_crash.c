/* The crash path end to end on the host: the whole monitor runs in a child
 * process whose SIGSEGV handler stands in for the UEFI exception handler
 * (boot/cpu_exceptions.c) and calls survive_crash, as that handler's landing
 * does. The parent reads what the child printed, the note it left, and how
 * it left ("reset" and "firmware" are both exit(0) on the host; what the
 * monitor said tells them apart). */
#include "unit.h"

#include <signal.h>
#include <sys/wait.h>

#include "core/monitor/monitor.h"
#include "core/monitor/survive.h"
#include "tests/catalogue/catalogue.h"
#include "tests/host/platform_host.h"

static char nvram[256];

static void on_segv(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	char what[96];
	snprintf(what, sizeof(what), "host signal %d at address 0x%lx", sig, (unsigned long)(uintptr_t)si->si_addr);
	survive_crash(what);
}

static int releases;
/* an address no process maps, hidden from the compiler's bounds checks */
static volatile uintptr_t unmapped = 8;

/* An exception inside the give-back: the crash path must not give back
 * again, nor recurse. */
static void release_that_faults(void)
{
	releases++;
	printf("release %d\n", releases);
	fflush(stdout);
	*(volatile int *)unmapped = 1;
}

static void discover_that_faults(void)
{
	*(volatile int *)unmapped = 1;
}

static enum cmd_status cmd_boom(int argc, char **argv)
{
	(void)argc, (void)argv;
	*(volatile int *)unmapped = 1;
	return CMD_OK;
}

static const struct command boom[] = { { "boom", "boom", "fault", cmd_boom } };

static struct subsystem ext;
static const struct subsystem *const subs[] = { &ext, NULL };

/* Runs the monitor in a child with `opts` as its load options; returns
 * what it printed and sets *status to how it ended. */
static const char *run_child(const char *opts, int *status)
{
	static char out[65536];
	int fd[2];
	assert_int_equal(pipe(fd), 0);
	fflush(stdout);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(fd[1], 1);
		close(fd[0]);
		if (!freopen("/dev/null", "r", stdin)) /* the menu: nobody types, the monitor leaves */
			_exit(98);
		struct sigaction sa = { 0 };
		sa.sa_sigaction = on_segv;
		sa.sa_flags = SA_SIGINFO | SA_NODEFER;
		sigaction(SIGSEGV, &sa, NULL);
		host_platform.exceptions_caught = true;
		char with[512]; /* the records on the console, where the tests read them */
		snprintf(with, sizeof(with), "set records console; %s", opts);
		host_set_load_options(with);
		setvbuf(stdout, NULL, _IOLBF, 0);
		monitor_main(&host_platform, iommon_catalogue(), subs);
		_exit(99);
	}
	close(fd[1]);
	size_t n = 0;
	ssize_t got;
	while (n + 1 < sizeof(out) && (got = read(fd[0], out + n, sizeof(out) - 1 - n)) > 0)
		n += (size_t)got;
	out[n] = '\0';
	close(fd[0]);
	waitpid(pid, status, 0);
	return out;
}

static int setup(void **state)
{
	(void)state;
	static char vol[] = "/tmp/iommon-crash-XXXXXX";
	assert_non_null(mkdtemp(vol));
	setenv("IOMMON_VOLUME", vol, 1);
	snprintf(nvram, sizeof(nvram), "%s.nvram", vol);
	setenv("IOMMON_NVRAM", nvram, 1);
	return 0;
}

/* A fault in a test, then a fault while giving back: the report names the
 * test, the give-back runs once, the second fault skips it, the machine
 * "resets", and the note keeps what the handler saw for the next boot. */
static void fault_then_fault_in_release(void **state)
{
	(void)state;
	unlink(nvram);
	ext = (struct subsystem){ .release = release_that_faults };
	int status;
	const char *out =
	    run_child("countdown 0; run timer.counter selftest.fault; run timer.stall; exit qemu", &status);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_non_null(strstr(out, "\ncrash: host signal 11 at address 0x0\ncrash: test running: selftest.fault\n"));
	assert_non_null(strstr(out, "\"what\":\"crash\",\"test\":\"selftest.fault\",\"reason\":\"host signal 11"));
	assert_non_null(strstr(out, "crash: giving back what is held\nrelease 1\n"));
	assert_non_null(strstr(out, "crash: host signal 11 at address 0x8, while handling an earlier crash: nothing "
				    "more is given back\n"));
	assert_null(strstr(out, "release 2"));
	assert_non_null(strstr(out, "crash: resetting the machine; the plan goes on after this test on the next boot"));
	assert_null(strstr(out, "timer.stall:"));

	/* the next boot: recorded crashed with what the handler saw */
	FILE *f = fopen(nvram, "r");
	assert_non_null(f);
	char note[1024];
	size_t n = fread(note, 1, sizeof(note) - 1, f);
	note[n] = '\0';
	fclose(f);
	assert_non_null(strstr(note, "phase=test\ntest=selftest.fault\n"));
	assert_non_null(strstr(note, "crash=host signal 11 at address 0x0\n"));

	ext = (struct subsystem){ 0 };
	out = run_child("countdown 0; run timer.counter selftest.fault; run timer.stall; exit qemu", &status);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 3); /* exit qemu: fail */
	assert_non_null(strstr(out, "\"test\":\"selftest.fault\",\"verdict\":\"crashed\",\"checks\":0,\"failures\":1,"
				    "\"detail\":\"host signal 11 at address 0x0\""));
	assert_non_null(strstr(out, "  timer.stall: "));
	assert_non_null(strstr(out, "verdict: fail (1 passed, 1 failed, 0 skipped, 1 not applicable, 0 plan errors)"));
	assert_int_equal(access(nvram, F_OK), -1); /* the plan ended: cleared */
}

/* `set crash firmware`: given back, then back to the firmware. */
static void crash_firmware(void **state)
{
	(void)state;
	unlink(nvram);
	ext = (struct subsystem){ 0 };
	int status;
	const char *out = run_child("set crash firmware; run selftest.fault; exit qemu", &status);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_non_null(strstr(out, "crash: returning to the firmware (set crash firmware)"));
	assert_null(strstr(out, "crash: resetting"));
	assert_non_null(strstr(out, "\"then\":\"firmware\""));
}

/* A crash while the monitor starts (before any plan or setting) returns to
 * the firmware: a reset would crash the same way, for ever. */
static void crash_while_starting(void **state)
{
	(void)state;
	unlink(nvram);
	ext = (struct subsystem){ .discover = discover_that_faults };
	int status;
	const char *out = run_child("run timer.counter; exit qemu", &status);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_non_null(strstr(out, "crash: test running: none"));
	assert_non_null(strstr(out, "crash: returning to the firmware (the monitor was starting: a reset would crash "
				    "again)"));
	assert_null(strstr(out, "timer.counter:"));
	assert_int_equal(access(nvram, F_OK), -1); /* no plan: no note */
}

/* A plan that takes the monitor down outside any test (before its first
 * one) is not run again on the next boot: that would only repeat the crash,
 * reset after reset. The menu opens instead. */
static void crash_before_the_first_test(void **state)
{
	(void)state;
	unlink(nvram);
	ext = (struct subsystem){ .commands = boom, .ncommands = 1 };
	int status;
	const char *out = run_child("countdown 0; boom; run timer.counter; exit qemu", &status);
	assert_true(WIFEXITED(status));
	assert_non_null(strstr(out, "crash: test running: none"));
	assert_non_null(strstr(out, "crash: resetting the machine; the next boot does not run the plan again (it "
				    "went down outside a test)"));
	assert_int_equal(access(nvram, F_OK), 0);

	out = run_child("countdown 0; boom; run timer.counter; exit qemu", &status);
	assert_non_null(strstr(out, "breadcrumb: plan options did not finish: run #0, before its first test: host "
				    "signal 11 at address 0x8"));
	assert_non_null(strstr(out, "error: options: the monitor itself went down before the plan's first test: host "
				    "signal 11 at address 0x8; not running it again (cleared): the menu opens"));
	assert_null(strstr(out, "options:1> boom"));
	assert_non_null(strstr(out, "iommon> "));
	assert_int_equal(access(nvram, F_OK), -1);
}

/* A give-back that crashes when the plan's `exit` leaves (the same fault
 * on every boot): the plan must not run again and again, reset after
 * reset. The first crash is seen after the run (the next boot goes on
 * after it and reaches the exit again), the second while resuming (the
 * boot after that opens the menu). */
static void crash_in_the_exit_give_back(void **state)
{
	(void)state;
	unlink(nvram);
	ext = (struct subsystem){ .release = release_that_faults };
	const char *plan = "countdown 0; run timer.counter; exit qemu";
	int status;
	const char *out = run_child(plan, &status);
	assert_non_null(strstr(out, "  timer.counter: "));
	assert_non_null(strstr(out, "crash: test running: none"));
	assert_int_equal(access(nvram, F_OK), 0); /* the plan is on record */

	out = run_child(plan, &status);
	assert_non_null(strstr(out, "the monitor went down after run #1"));
	assert_null(strstr(out, "  timer.counter: "));
	assert_int_equal(access(nvram, F_OK), 0);

	out = run_child(plan, &status);
	assert_non_null(strstr(out, "went down while resuming the plan: host signal 11"));
	assert_non_null(strstr(out, "not running it again (cleared): the menu opens"));
	assert_null(strstr(out, "  timer.counter: "));
	assert_null(strstr(out, "crash:"));
	assert_int_equal(access(nvram, F_OK), -1);
	ext = (struct subsystem){ 0 };
}

/* A breadcrumb the firmware will not keep (variable store full or
 * write-protected): a reset would run the plan from its start and crash in
 * the same test again, for ever; the crash path returns to the firmware. */
static void crash_without_a_breadcrumb(void **state)
{
	(void)state;
	setenv("IOMMON_NVRAM", "/nonexistent-iommon-dir/nvram", 1);
	ext = (struct subsystem){ 0 };
	int status;
	const char *out = run_child("countdown 0; run selftest.fault; exit qemu", &status);
	setenv("IOMMON_NVRAM", nvram, 1);
	assert_true(WIFEXITED(status));
	assert_non_null(strstr(out, "warning: breadcrumb not kept ("));
	assert_non_null(strstr(out, "crash: test running: selftest.fault"));
	assert_non_null(strstr(out, "crash: returning to the firmware (the breadcrumb could not be kept"));
	assert_non_null(strstr(out, "\"then\":\"firmware\""));
	assert_null(strstr(out, "crash: resetting"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fault_then_fault_in_release), cmocka_unit_test(crash_firmware),
		cmocka_unit_test(crash_while_starting),	       cmocka_unit_test(crash_before_the_first_test),
		cmocka_unit_test(crash_in_the_exit_give_back), cmocka_unit_test(crash_without_a_breadcrumb),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
