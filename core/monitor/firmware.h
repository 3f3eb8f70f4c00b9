/* The `firmware` command's report (firmware.c). */
#ifndef IOMMON_FIRMWARE_H
#define IOMMON_FIRMWARE_H

#include <stdbool.h>

/* Prints each service and protocol probed, and emits its record; false
 * when the platform is not under firmware (nothing to probe). */
bool firmware_print(void);

#endif
