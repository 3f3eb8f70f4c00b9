/* What the monitor's own files share, and nobody else: the boot flow
 * (monitor.c), the command table and the scripts it runs (commands.c), and
 * the line reader and the menu (menu.c). */
#ifndef IOMMON_MONITOR_STATE_H
#define IOMMON_MONITOR_STATE_H

#include "core/tables/acpi.h"
#include "identity.h"
#include "monitor.h"

struct monitor_state {
	const struct subsystem *const *subs;
	struct acpi acpi;
	struct identity id; /* SMBIOS, and the plan file it picks */
	unsigned plan_errors;
};
extern struct monitor_state mon;

/* commands.c: the command table attached to the script engine. */
void monitor_commands_attach(void);
/* monitor.c: the `info` lines (at boot, and the `info` command). */
void monitor_print_info(void);
/* menu.c: the prompt, for ever. */
void monitor_menu_loop(void);

#endif
