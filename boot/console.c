/* Console sinks: the UEFI text console (ConOut/ConIn, which firmware
 * usually mirrors to a serial port) and a 16550 UART driven directly. One
 * sink per wire: when the firmware already redirects ConOut to a UART, the
 * direct sink stays off, so no line appears twice on the serial line. */
#include <stdio.h>
#include <string.h>

#include "../core/acpi.h"
#include "../core/monitor.h"
#include "../core/results.h"
#include "../core/settings.h"
#include "../core/uart16550.h"
#include "boot.h"

static struct {
	bool efi_out, uart_out;
	bool firmware_redirects; /* ConOut's device paths include a UART */
	bool have_uart;
	struct uart16550 uart;
	char uart_desc[64];
	bool at_line_start;
	char describe[160];
} con = { .efi_out = true, .at_line_start = true };

/* Does the ConOut variable name a UART device path node (type 3, subtype 14)? */
static bool conout_has_uart(void)
{
	UINTN size = 0;
	EFI_DEVICE_PATH *dp = LibGetVariableAndSize(L"ConOut", &EfiGlobalVariable, &size);
	if (!dp)
		return false;
	bool found = false;
	UINT8 *p = (UINT8 *)dp, *end = p + size;
	while (p + sizeof(EFI_DEVICE_PATH) <= end) {
		EFI_DEVICE_PATH *n = (EFI_DEVICE_PATH *)p;
		UINT16 len = DevicePathNodeLength(n);
		if (len < sizeof(EFI_DEVICE_PATH) || p + len > end)
			break;
		if (DevicePathType(n) == MESSAGING_DEVICE_PATH && DevicePathSubType(n) == MSG_UART_DP)
			found = true;
		p += len;
	}
	FreePool(dp);
	return found;
}

void console_init(void)
{
	con.firmware_redirects = conout_has_uart();
	con.at_line_start = true;
}

static void efi_write(const char *buf, size_t n)
{
	CHAR16 out[257];
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (buf[i] == '\n')
			out[k++] = L'\r';
		out[k++] = (unsigned char)buf[i] < 0x80 ? (CHAR16)buf[i] : L'?';
		if (k >= 255 || i + 1 == n) {
			out[k] = 0;
			ST->ConOut->OutputString(ST->ConOut, out);
			k = 0;
		}
	}
}

static void uart_write(const char *buf, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (buf[i] == '\n')
			uart_putc(&con.uart, '\r');
		uart_putc(&con.uart, (uint8_t)buf[i]);
	}
}

static void sinks_write(const char *buf, size_t n)
{
	if (con.efi_out)
		efi_write(buf, n);
	if (con.uart_out)
		uart_write(buf, n);
}

/* The output contract: only record lines start with '{'. */
void console_write(const char *buf, size_t n)
{
	size_t start = 0;
	for (size_t i = 0; i < n; i++) {
		if (con.at_line_start && buf[i] == '{' && !output_record_line) {
			sinks_write(buf + start, i - start);
			sinks_write(" ", 1);
			start = i;
		}
		con.at_line_start = buf[i] == '\n';
	}
	sinks_write(buf + start, n - start);
}

int console_getc(void)
{
	if (con.uart_out) {
		int c = uart_getc(&con.uart);
		if (c >= 0)
			return c;
	}
	EFI_INPUT_KEY key;
	if (ST->ConIn->ReadKeyStroke(ST->ConIn, &key) != EFI_SUCCESS)
		return -1;
	if (key.UnicodeChar)
		return key.UnicodeChar < 0x80 ? key.UnicodeChar : 0x80; /* not ASCII: the line reader refuses it */
	return key.ScanCode == SCAN_ESC ? 0x1b : -1;
}

static const char no_spcr[] = "the ACPI tables have no SPCR";

/* "io:0x3f8[,baud]", "mmio:0xADDR[,baud]", "mmio32:0xADDR[,baud]" or "spcr" */
static const char *uart_from_spec(const char *spec, struct uart16550 *u, uint32_t *baud, char *desc, size_t dn)
{
	memset(u, 0, sizeof(*u));
	if (strcmp(spec, "spcr") == 0) {
		struct acpi_spcr s;
		const char *why = no_spcr;
		const struct acpi_header *t = acpi_find(monitor_acpi(), "SPCR", 0);
		if (!t || acpi_spcr_uart(t, &s, &why) != 0)
			return why;
		*baud = s.baud;
		u->stride = s.base.bit_width == 32 || s.base.access_size == 3 ? 4 : 1;
		u->width = s.base.access_size == 3 ? 4 : 1;
		if (s.base.space_id == ACPI_SPACE_IO) {
			if (s.base.address > 0xfff8)
				return "SPCR names an I/O port beyond 0xfff8";
			regwin_init_port(&u->win, "uart", (uint16_t)s.base.address, (uint16_t)(8 * u->stride));
		} else {
			const char *no =
			    regwin_open_mmio(&u->win, "uart", s.base.address, 8 * u->stride, false, "ACPI SPCR");
			if (no)
				return no;
		}
		snprintf(desc, dn, "%s:0x%llx (SPCR)", s.base.space_id == ACPI_SPACE_IO ? "io" : "mmio",
			 (unsigned long long)s.base.address);
		return NULL;
	}
	unsigned long long addr = 0, b = 115200;
	char tmp[48];
	snprintf(tmp, sizeof(tmp), "%s", strchr(spec, ':') + 1);
	char *comma = strchr(tmp, ',');
	if (comma) {
		*comma = '\0';
		parse_u64(comma + 1, &b);
	}
	parse_u64(tmp, &addr);
	*baud = (uint32_t)b;
	bool wide = strncmp(spec, "mmio32:", 7) == 0;
	u->stride = wide ? 4 : 1;
	u->width = wide ? 4 : 1;
	if (strncmp(spec, "io:", 3) == 0) {
		regwin_init_port(&u->win, "uart", (uint16_t)addr, 8);
	} else {
		const char *no = regwin_open_mmio(&u->win, "uart", addr, 8 * u->stride, false, "set uart");
		if (no)
			return no;
	}
	snprintf(desc, dn, "%s", spec);
	return NULL;
}

const char *console_route(const char *mode, const char *uart)
{
	static char msg[320];
	/* At boot, leave alone a UART the firmware is already using. */
	if (uart && mode && strcmp(mode, "auto") == 0 && strcmp(uart, "spcr") == 0 && con.firmware_redirects)
		uart = NULL;
	if (uart) {
		struct uart16550 u;
		uint32_t baud = 0;
		char desc[64];
		const char *why = uart_from_spec(uart, &u, &baud, desc, sizeof(desc));
		/* Give the old port back first: it may be this very port, whose
		 * firmware state must be the one saved. */
		bool had = con.have_uart;
		if (!why && had)
			uart_close(&con.uart);
		if (!why)
			why = uart_open(&u, baud);
		if (why && had && uart_open(&con.uart, con.uart.baud) != NULL)
			con.have_uart = con.uart_out = false; /* the old port no longer answers either */
		if (why) {
			if (why == no_spcr && !con.have_uart && strcmp(mode ? mode : "", "auto") == 0)
				why = NULL; /* at boot, no SPCR simply means no direct UART */
			else {
				snprintf(msg, sizeof(msg), "%s", why);
				return msg;
			}
		} else {
			con.uart = u;
			con.have_uart = true;
			snprintf(con.uart_desc, sizeof(con.uart_desc), "%s", desc);
		}
		if (!mode)
			mode = setting_get("console");
	}
	if (!mode)
		return NULL;
	bool efi, direct;
	if (strcmp(mode, "auto") == 0) {
		efi = true;
		direct = con.have_uart && !con.firmware_redirects;
	} else {
		efi = strcmp(mode, "efi") == 0 || strcmp(mode, "both") == 0;
		direct = strcmp(mode, "uart") == 0 || strcmp(mode, "both") == 0;
	}
	if (direct && !con.have_uart)
		return "no direct UART: set uart io:PORT or mmio:ADDRESS first";
	con.efi_out = efi;
	con.uart_out = direct;
	snprintf(con.describe, sizeof(con.describe), "%s%s%s%s", efi ? "efi" : "",
		 efi && con.firmware_redirects ? " (firmware mirrors it to serial)" : "", efi && direct ? " + " : "",
		 direct ? "uart " : "");
	if (direct)
		strncat(con.describe, con.uart_desc, sizeof(con.describe) - strlen(con.describe) - 1);
	return NULL;
}

const char *console_describe(void)
{
	return con.describe[0] ? con.describe : "efi";
}

void console_restore(void)
{
	if (con.have_uart)
		uart_close(&con.uart);
	con.uart_out = false;
	con.efi_out = true;
}
