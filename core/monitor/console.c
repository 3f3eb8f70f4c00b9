#include "console.h"

#include <string.h>

#include "core/base/platform.h"
#include "core/serial/uart.h"
#include "core/tables/acpi.h"
#include "monitor.h"
#include "settings.h"

static const char no_spcr[] = "the ACPI tables have no SPCR";

/* "spcr" or a place `set uart` takes (uart_place_from_setting) */
static void resolve(const char *spec, struct console_uart *u)
{
	memset(u, 0, sizeof(*u));
	if (strcmp(spec, "spcr") != 0) {
		u->source = UART_FROM_SETTING;
		u->why = uart_place_from_setting(spec, UART_PORT_IO, &u->place);
		return;
	}
	u->from_spcr = true;
	u->source = UART_FROM_SPCR;
	struct acpi_spcr s;
	const char *why = no_spcr;
	const struct acpi_header *t = acpi_find(monitor_acpi(), "SPCR", 0);
	if (!t || acpi_spcr_uart(t, &s, &why) != 0)
		u->why = why;
	else
		u->why = uart_place_from_spcr(&s, UART_PORT_IO, &u->place);
}

const char *console_boot(void)
{
	struct console_uart u;
	resolve("spcr", &u);
	u.offered = true;
	/* at boot, no SPCR simply means no direct UART */
	return platform->console_route("auto", u.why == no_spcr ? NULL : &u);
}

const char *console_set_uart(const char *spec)
{
	struct console_uart u;
	resolve(spec, &u);
	return platform->console_route(setting_get("console"), &u);
}
