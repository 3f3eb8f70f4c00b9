/* A run that survives a crash: the breadcrumb an unattended plan leaves
 * before each test (a note that outlives a reset, and a `test-start` record
 * in the results file), the firmware watchdog's per-test budget, the crash
 * path (name the test, give back what is held, reset or return to the
 * firmware), and the resume of the plan on the next boot: the test that
 * never finished is recorded `crashed`, the plan goes on after it, into the
 * same results file. */
#ifndef IOMMON_SURVIVE_H
#define IOMMON_SURVIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "crumb.h"
#include "results.h"
#include "runner.h"

/* The watchdog budget of a test in an unattended plan when `set watchdog`
 * is auto: the slowest test measured so far (dma.integrity, 2.4 s under
 * QEMU TCG) 250 times over, and twice the 5 minutes UEFI gives a boot
 * option; an NVMe controller's CAP.TO wait (127.5 s at most) fits in it. */
#define WATCHDOG_DEFAULT_S 600
/* The crash path's own budget: a give-back that hangs is reset. */
#define WATCHDOG_CRASH_S 60

/* Boot flow (monitor_main): the settings (watchdog, crash); read the note
 * a crashed run left; after the plan (or when there was none), a note that
 * no plan took is reported and cleared. */
void survive_init(void);
void survive_boot(void);
void survive_boot_end(void);

/* A script begins: false when it must not run (the monitor crashed while
 * resuming it: the menu opens instead). A matching note resumes it: the
 * results file is reopened and the crashed test recorded. */
bool survive_plan_begin(uint64_t plan, const char *name); /* plan: plan_hash of its bytes */
void survive_plan_end(void);
/* Before the resumed run command: earlier runs and the countdown are not
 * repeated, everything else (settings, models) is replayed. */
bool survive_replaying(void);
/* A run command of the plan begins: false when it ran before the reset. */
bool survive_run_begin(int nsel, char **sel);

/* From the runner. */
void survive_test_start(const struct test_case *tc, struct tally this_run, struct tally session);
void survive_run_end(struct tally session);
/* The test needs `seconds` more from now (arms the watchdog longer). */
void survive_extend(unsigned seconds);
/* The watchdog budget a test gets now, 0 when the watchdog is off. */
unsigned survive_budget(void);
/* The breadcrumbs written so far (each a firmware variable kept across a
 * reset) and their cycles. */
struct keep_cost survive_cost(void);
/* The watchdog seconds armed now, 0 when it is not (off, refused by the
 * firmware, or held back because the breadcrumb is not kept). */
unsigned survive_armed(void);

/* The crash path, from the platform's handlers (CPU exception, abort,
 * exit): prints `what` and the test, keeps it in the note, gives back what
 * is held (once: a crash while giving back skips it), then resets or
 * returns to the firmware as `set crash` says. */
void survive_crash(const char *what) __attribute__((noreturn));

#endif
