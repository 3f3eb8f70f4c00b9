/* The monitor on the host: same core, same catalogue, host platform.
 * Arguments are commands, as UEFI load options are: iommon run all; exit qemu
 * First `--replay DIR`: a replay folder stands in for the machine (replay.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/monitor/monitor.h"
#include "iommu/machine.h"
#include "platform_host.h"
#include "replay.h"
#include "tests/catalogue/catalogue.h"

int main(int argc, char **argv)
{
	/* --replay DIR: a replay folder a live run saved is the machine; with
	 * no commands after it, the checks a replay can make are run */
	int first = 1;
	if (argc > 1 && strcmp(argv[1], "--replay") == 0) {
		const char *why = argc > 2 ? host_replay_load(argv[2]) : "--replay needs a folder";
		if (why) {
			fprintf(stderr, "iommon: %s\n", why);
			return 2;
		}
		first = 3;
		if (argc == 3)
			host_set_load_options("iommu; run acpi pci; exit qemu");
	}
	/* the arguments whole, one space between them, as the shell passes them */
	size_t len = 1;
	for (int i = first; i < argc; i++)
		len += strlen(argv[i]) + 1;
	char *opts = malloc(len);
	if (!opts)
		return 2;
	opts[0] = '\0';
	for (int i = first; i < argc; i++) {
		if (i > first)
			strcat(opts, " ");
		strcat(opts, argv[i]);
	}
	if (argc > first || first == 1)
		host_set_load_options(argc > first ? opts : NULL);
	host_console_open();
	return monitor_main(&host_platform, iommon_catalogue(), subsystems);
}
