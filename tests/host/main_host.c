/* The monitor on the host: same core, same catalogue, host platform.
 * Arguments are commands, as UEFI load options are: iommon run all; exit qemu */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/monitor.h"
#include "../../iommu/machine.h"
#include "../catalogue/catalogue.h"
#include "platform_host.h"

int main(int argc, char **argv)
{
	/* the arguments whole, one space between them, as the shell passes them */
	size_t len = 1;
	for (int i = 1; i < argc; i++)
		len += strlen(argv[i]) + 1;
	char *opts = malloc(len);
	if (!opts)
		return 2;
	opts[0] = '\0';
	for (int i = 1; i < argc; i++) {
		if (i > 1)
			strcat(opts, " ");
		strcat(opts, argv[i]);
	}
	host_set_load_options(argc > 1 ? opts : NULL);
	setvbuf(stdout, NULL, _IOLBF, 0);
	return monitor_main(&host_platform, iommon_catalogue(), subsystems);
}
