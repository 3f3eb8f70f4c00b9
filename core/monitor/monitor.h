/* The monitor: the platform's entry (monitor_main) and what the layers
 * above ask of it. Its boot flow is monitor.c, the command table and the
 * scripts it runs (load options, iommon.cfg) commands.c, the prompt and
 * the menu menu.c, the console's UART console.c, what the boot hands the
 * floor from the tables early.c. */
#ifndef IOMMON_MONITOR_H
#define IOMMON_MONITOR_H

#include <stdbool.h>

#include "core/base/platform.h"
#include "runner.h"
#include "script.h"

#define IOMMON_VERSION "0.1.0"

struct acpi;

/* A subsystem above core/, defined beside the code it serves: the
 * settings and commands it owns, the discovery it runs at boot (after the
 * counter is calibrated, before any script) and what it gives back before
 * exit. The composition root (tests/catalogue/catalogue.c) only lists
 * them; they discover in that order and release in the reverse. */
struct subsystem {
	const char *name;
	void (*settings)(void); /* setting_add for each key it owns */
	const struct command *commands;
	size_t ncommands;
	void (*discover)(void);
	void (*release)(void); /* devices and IOMMUs as found */
	/* its part of the run's replay folder, through replay_put (replay.h) */
	void (*replay_save)(void);
};

/* Runs one line typed at the prompt (where == NULL) or from a script
 * ("iommon.cfg:3"); see script.h for what a line may hold. */
enum cmd_status monitor_exec_line(const char *line, const char *where);
/* Runs a whole script, line by line; stops early on CMD_MENU. */
enum cmd_status monitor_exec_script(const char *text, const char *name);
enum cmd_status monitor_exec_bytes(const char *buf, size_t len, const char *name);
/* Streams a script file from the boot volume to its end, whatever its
 * size; says so when there is none (CMD_OK). A file that cannot be read
 * to its end is an error for the rest of it. */
enum cmd_status monitor_exec_file(const char *path);

/* Exit status for `exit qemu`: 0 all passed, 1 some failed, 2 the plan
 * could not run (a bad command or unknown test in a script, or no test),
 * 3 inconclusive (nothing ran, no IOMMU unit was tested, a `require` is
 * unmet: verdict.h), `why` saying which when `why` is not NULL. */
int monitor_verdict(void);
int monitor_verdict_why(char *why, size_t cap);
unsigned monitor_plan_errors(void);
/* A plan error found outside a command (a resumed plan's crash). */
void monitor_plan_error(void);
/* The layers above give back what they hold: devices and IOMMUs as found
 * (before exit, and on the crash path). */
void monitor_release(void);

const struct acpi *monitor_acpi(void);
/* Calibrates the counter (core/base/timing.h, timing_calibrate) against the
 * reference clocks `acpi` describes (NULL: none; core/monitor/early.c);
 * `prefer` as the timer.source setting. */
void timing_init(const struct acpi *acpi, const char *prefer);
void monitor_print_menu(void);
/* Reads a line from the console with echo, Backspace and Ctrl-U; blocks
 * until Enter. Returns its length; or -1 when it was longer than size - 1
 * or held a control character or a character outside ASCII: then it was
 * read to its Enter, an error line said why, and buf is empty. */
int monitor_read_line(char *buf, unsigned size);

/* Every key the subsystems and the catalogue's groups own, registered
 * after the core's own (monitor_main does this; fuzzing and tests too). */
void monitor_settings(const struct test_group *const *catalogue, const struct subsystem *const *subsystems);

/* Entry from the platform layer; returns only on the host. `subsystems`
 * is NULL-terminated. */
int monitor_main(const struct platform *p, const struct test_group *const *catalogue,
		 const struct subsystem *const *subsystems);

#endif
