/* The monitor on the host: same core, same catalogue, host platform.
 * Arguments are commands, as UEFI load options are: iommon run all; exit qemu */
#include <stdio.h>
#include <string.h>

#include "../../core/monitor.h"
#include "../../iommu/machine.h"
#include "../catalogue/catalogue.h"
#include "platform_host.h"

int main(int argc, char **argv)
{
	static char opts[1024];
	size_t len = 0;
	for (int i = 1; i < argc && len < sizeof(opts); i++)
		len += (size_t)snprintf(opts + len, sizeof(opts) - len, "%s%s", i > 1 ? " " : "", argv[i]);
	host_set_load_options(argc > 1 ? opts : NULL);
	setvbuf(stdout, NULL, _IOLBF, 0);
	return monitor_main(&host_platform, catalogue, &machine_ext);
}
