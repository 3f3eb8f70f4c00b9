/* The monitor: boot-time flow, the command table, scripts (load options
 * and iommon.cfg), the countdown and the menu. */
#ifndef IOMMON_MONITOR_H
#define IOMMON_MONITOR_H

#include <stdbool.h>

#include "platform.h"
#include "runner.h"

#define IOMMON_VERSION "0.1.0"

struct acpi;

enum cmd_status {
	CMD_OK,
	CMD_ERROR, /* bad command, key or value: reported, counted as a plan error in scripts */
	CMD_MENU,  /* stop the script and open the menu (countdown interrupted) */
};

struct command {
	const char *name;
	const char *usage;
	const char *summary;
	enum cmd_status (*fn)(int argc, char **argv);
};

/* What the layers above core/ add: their commands, and the discovery
 * they run at boot (after the counter is calibrated, before any script). */
struct monitor_ext {
	const struct command *commands;
	size_t ncommands;
	void (*discover)(void);
	void (*release)(void); /* before exit: devices and IOMMUs as found */
};

/* Runs one line: several commands may be separated by ';', '#' starts a
 * comment. `where` names the source in error lines ("iommon.cfg:3"), or
 * NULL when typed at the prompt. */
enum cmd_status monitor_exec_line(const char *line, const char *where);
/* Runs a whole script, line by line; stops early on CMD_MENU. */
enum cmd_status monitor_exec_script(const char *text, const char *name);

/* One error line, prefixed with where the command came from. */
void cmd_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Exit status for `exit qemu`: 0 all passed, 1 some failed, 2 the plan
 * could not run (a bad command or unknown test in a script, or no test). */
int monitor_verdict(void);
unsigned monitor_plan_errors(void);
/* A plan error found outside a command (a resumed plan's crash). */
void monitor_plan_error(void);
/* The layers above give back what they hold: devices and IOMMUs as found
 * (before exit, and on the crash path). */
void monitor_release(void);

const struct acpi *monitor_acpi(void);
void monitor_print_menu(void);
/* Reads a line from the console with echo and backspace; blocks. */
void monitor_read_line(char *buf, unsigned size);

/* Entry from the platform layer; returns only on the host. */
int monitor_main(const struct platform *p, const struct test_group *const *catalogue, const struct monitor_ext *ext);

#endif
