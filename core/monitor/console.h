/* Where the console's direct UART is: the monitor resolves it (the ACPI
 * SPCR at boot and for `set uart spcr`, else the place `set uart` names)
 * and hands it to the platform's console_route, which drives it. The
 * platform reads no table and no setting of its own. */
#ifndef IOMMON_CONSOLE_H
#define IOMMON_CONSOLE_H

/* At boot: the SPCR's UART offered in mode auto (none when there is no
 * SPCR). NULL, or why the console could not take it. */
const char *console_boot(void);
/* `set uart`: "spcr" or a place (uart_place_from_setting), driven in the
 * mode the console setting names. NULL, or why not. */
const char *console_set_uart(const char *spec);

#endif
