/* Console sinks: the UEFI text console (ConOut/ConIn, which firmware
 * usually mirrors to a serial port) and a UART driven directly, a 16550 or
 * a PL011 (SBSA generic UARTs too). One sink per wire: when the firmware
 * already redirects ConOut to a UART, `auto` leaves the direct sink off, so
 * no line appears twice on the serial line. That is how QEMU's virt machine
 * stays single: its firmware's console is the PL011 that SPCR names, and
 * ConOut's device path ends in a UART node there too. */
#include <stdio.h>
#include <string.h>

#include "boot.h"
#include "core/base/claims.h"
#include "core/base/contract.h"
#include "core/base/macros.h"
#include "core/serial/pl011.h"
#include "core/serial/uart.h"
#include "core/serial/uart16550.h"

/* The direct UART: one of the two drivers, as uart_place.kind says. */
struct direct {
	enum uart_kind kind;
	union {
		struct uart16550 ns;
		struct pl011 pl;
	};
};

static struct {
	bool efi_out, uart_out;
	bool firmware_redirects; /* ConOut's device paths include a UART */
	bool have_uart;
	bool stop_noted; /* the direct UART's transmitter stopped, and the console said so */
	struct direct uart;
	char uart_desc[64];
	char left_to_firmware[64]; /* the SPCR UART auto did not drive, the firmware's console being on a UART */
	char describe[288];
	/* ConOut's terminal is EDK II's TtyTerm (tty_write below) */
	EFI_SERIAL_IO_PROTOCOL *tty_serial;
	UINTN tty_columns;
	SIMPLE_TEXT_OUTPUT_INTERFACE *screens[4]; /* ConOut's other outputs */
	size_t n_screens;
} con = { .efi_out = true };

static const struct uart_tx *direct_tx(const struct direct *d)
{
	return d->kind == UART_PL011 ? &d->pl.tx : &d->ns.tx;
}

static const char *direct_reopen(struct direct *d)
{
	return d->kind == UART_PL011 ? pl011_open(&d->pl, d->pl.tx.baud) : uart16550_open(&d->ns, d->ns.tx.baud);
}

static void direct_close(struct direct *d)
{
	if (d->kind == UART_PL011)
		pl011_close(&d->pl);
	else
		uart16550_close(&d->ns);
}

static void direct_putc(struct direct *d, uint8_t c)
{
	if (d->kind == UART_PL011)
		pl011_putc(&d->pl, c);
	else
		uart16550_putc(&d->ns, c);
}

static int direct_getc(struct direct *d)
{
	return d->kind == UART_PL011 ? pl011_getc(&d->pl) : uart16550_getc(&d->ns);
}

static void uart_dropped(const char *why);

/* A UART's registers may lie in a BAR only of a serial controller (class
 * 07h: a PCI UART the SPCR names); inside any other device's window they
 * are that device's. */
#define UART_CLASS_MASK 0xff0000u
#define UART_CLASS 0x070000u

/* The window and the driver for a place; NULL, or why not. */
static const char *direct_open(struct direct *d, const struct uart_place *p, const char *source)
{
	static char owned[200];
	memset(d, 0, sizeof(*d));
	d->kind = p->kind;
	struct regwin *w = p->kind == UART_PL011 ? &d->pl.win : &d->ns.win;
	uint64_t size = uart_place_span(p);
	if (p->space == ACPI_SPACE_IO) {
		regwin_init_port(w, "uart", (uint16_t)p->address, (uint16_t)size);
	} else {
		const char *owner = claims_other_owner(p->address, size, UART_CLASS_MASK, UART_CLASS);
		if (owner) {
			snprintf(owned, sizeof(owned),
				 "%s: the UART's registers at 0x%llx lie inside %s: another device's", source,
				 (unsigned long long)p->address, owner);
			return owned;
		}
		const char *no = regwin_open_mmio(w, "uart", p->address, size, false, source);
		if (no)
			return no;
	}
	if (p->kind == UART_PL011) {
		d->pl.sbsa = p->sbsa;
		d->pl.clock_hz = p->clock_hz;
		return pl011_open(&d->pl, p->baud);
	}
	d->ns.stride = p->stride;
	d->ns.width = p->width;
	return uart16550_open(&d->ns, p->baud);
}

/* EDK II's TtyTerm terminal type (ConOut on its RISC-V virt build, on
 * ArmVirtQemu built with TTY_TERMINAL) writes CR LF after the character
 * that fills the text mode's last column, keeping its idea of the cursor in
 * step with a terminal that does not wrap: a record or lab line longer than
 * the mode (80 columns) reaches the serial line in two pieces, and a lab's
 * reader takes neither. Where ConOut's terminal is one, the console's
 * bytes go to that terminal's serial port through the firmware's own
 * SERIAL_IO (no register of ours, the firmware's driver and settings), and
 * to ConOut's other outputs (a screen) through their own text outputs; the
 * firmware's keyboard input stays as it is. */
static EFI_GUID tty_term = { 0x7d916d80, 0x5bb1, 0x458c, { 0xa4, 0x8f, 0xe2, 0x5f, 0xdd, 0x51, 0xef, 0x94 } };

static bool uart_node(EFI_DEVICE_PATH *n)
{
	return DevicePathType(n) == MESSAGING_DEVICE_PATH && DevicePathSubType(n) == MSG_UART_DP;
}

static bool path_has_uart(EFI_DEVICE_PATH *dp)
{
	UINT8 *p = (UINT8 *)dp;
	for (int nodes = 0; nodes < 64; nodes++) { /* a path without its end is not followed for ever */
		EFI_DEVICE_PATH *n = (EFI_DEVICE_PATH *)p;
		UINT16 len = DevicePathNodeLength(n);
		if (DevicePathType(n) == END_DEVICE_PATH_TYPE || len < sizeof(EFI_DEVICE_PATH))
			return false;
		if (uart_node(n))
			return true;
		p += len;
	}
	return false;
}

/* The ConOut variable, its nodes bounded first: does an instance name a
 * UART (type 3, subtype 14): the firmware mirrors its console to serial;
 * and is that instance a TtyTerm terminal: then the SERIAL_IO under it,
 * found from the instance copied whole. */
static void scan_conout(void)
{
	UINTN size = 0;
	EFI_DEVICE_PATH *dp = LibGetVariableAndSize(L"ConOut", &EfiGlobalVariable, &size);
	if (!dp)
		return;
	UINT8 *p = (UINT8 *)dp, *end = p + size, *start = p;
	bool uart = false, tty = false;
	while (p + sizeof(EFI_DEVICE_PATH) <= end) {
		EFI_DEVICE_PATH *n = (EFI_DEVICE_PATH *)p;
		UINT16 len = DevicePathNodeLength(n);
		if (len < sizeof(EFI_DEVICE_PATH) || p + len > end)
			break;
		if (uart_node(n))
			uart = con.firmware_redirects = true;
		if (DevicePathType(n) == MESSAGING_DEVICE_PATH && DevicePathSubType(n) == MSG_VENDOR_DP &&
		    len >= sizeof(EFI_DEVICE_PATH) + sizeof(EFI_GUID) &&
		    memcmp(p + sizeof(EFI_DEVICE_PATH), &tty_term, sizeof(EFI_GUID)) == 0)
			tty = true;
		if (DevicePathType(n) == END_DEVICE_PATH_TYPE) { /* an instance ends */
			UINT8 one[512];
			size_t body = (size_t)(p - start);
			if (uart && tty && !con.tty_serial && body + len <= sizeof(one)) {
				memcpy(one, start, body);
				memcpy(one + body, p, len);
				((EFI_DEVICE_PATH *)(one + body))->SubType = END_ENTIRE_DEVICE_PATH_SUBTYPE;
				EFI_DEVICE_PATH *at = (EFI_DEVICE_PATH *)one;
				EFI_HANDLE h;
				EFI_SERIAL_IO_PROTOCOL *sio;
				if (!EFI_ERROR(BS->LocateDevicePath(&SerialIoProtocol, &at, &h)) &&
				    !EFI_ERROR(BS->HandleProtocol(h, &SerialIoProtocol, (void **)&sio)))
					con.tty_serial = sio;
			}
			uart = tty = false;
			start = p + len;
		}
		p += len;
	}
	FreePool(dp);
	if (!con.tty_serial)
		return;
	UINTN rows;
	if (EFI_ERROR(ST->ConOut->QueryMode(ST->ConOut, (UINTN)ST->ConOut->Mode->Mode, &con.tty_columns, &rows)))
		con.tty_columns = 0;
	/* the other text outputs: not the splitters', not a terminal on a UART */
	UINTN nh = 0;
	EFI_HANDLE *hs = NULL;
	if (EFI_ERROR(BS->LocateHandleBuffer(ByProtocol, &TextOutProtocol, NULL, &nh, &hs)))
		return;
	for (UINTN i = 0; i < nh && con.n_screens < ARRAY_SIZE(con.screens); i++) {
		EFI_DEVICE_PATH *hp;
		SIMPLE_TEXT_OUTPUT_INTERFACE *out;
		if (hs[i] == ST->ConsoleOutHandle || hs[i] == ST->StandardErrorHandle ||
		    EFI_ERROR(BS->HandleProtocol(hs[i], &DevicePathProtocol, (void **)&hp)) || path_has_uart(hp) ||
		    EFI_ERROR(BS->HandleProtocol(hs[i], &TextOutProtocol, (void **)&out)))
			continue;
		con.screens[con.n_screens++] = out;
	}
	FreePool(hs);
}

void console_init(void)
{
	scan_conout();
}

/* The bytes to the TtyTerm terminal's port, CR before LF; the firmware's
 * driver gave up (a timeout, a device error): ConOut again, said once. */
static bool tty_write(const char *buf, size_t n)
{
	char out[256];
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (buf[i] == '\n')
			out[k++] = '\r';
		out[k++] = (unsigned char)buf[i] < 0x80 ? buf[i] : '?';
		if (k >= sizeof(out) - 2 || i + 1 == n) {
			UINTN len = k;
			if (EFI_ERROR(con.tty_serial->Write(con.tty_serial, &len, out)) || len != k) {
				con.tty_serial = NULL;
				return false;
			}
			k = 0;
		}
	}
	return true;
}

static void text_write(SIMPLE_TEXT_OUTPUT_INTERFACE *o, const char *buf, size_t n)
{
	CHAR16 out[257];
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (buf[i] == '\n')
			out[k++] = L'\r';
		out[k++] = (unsigned char)buf[i] < 0x80 ? (CHAR16)buf[i] : L'?';
		if (k >= 255 || i + 1 == n) {
			out[k] = 0;
			o->OutputString(o, out);
			k = 0;
		}
	}
}

static void efi_write(const char *buf, size_t n)
{
	if (con.tty_serial) {
		if (tty_write(buf, n)) {
			for (size_t i = 0; i < con.n_screens; i++)
				text_write(con.screens[i], buf, n);
			return;
		}
		static const char note[] =
		    "\nconsole: the firmware's SERIAL_IO stopped taking bytes; ConOut carries on "
		    "(its TtyTerm terminal breaks lines at its last column)\n";
		text_write(ST->ConOut, note, sizeof(note) - 1);
		strncat(con.describe, " (SERIAL_IO stopped)", sizeof(con.describe) - strlen(con.describe) - 1);
	}
	text_write(ST->ConOut, buf, n);
}

static void uart_write(const char *buf, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (buf[i] == '\n')
			direct_putc(&con.uart, '\r');
		direct_putc(&con.uart, (uint8_t)buf[i]);
	}
}

/* A direct UART whose transmitter stopped (uart_tx_wait gave up) is said
 * once on the firmware console, which carries on alone. */
static void uart_stopped(void)
{
	static const char note[] = "console: the direct UART stopped: its transmitter never took a byte within "
				   "its deadline; the firmware console carries on\n";
	con.stop_noted = true;
	con.uart_out = false;
	con.efi_out = true;
	efi_write(note, sizeof(note) - 1);
	strncat(con.describe, " (direct UART stopped: transmitter stuck)",
		sizeof(con.describe) - strlen(con.describe) - 1);
}

/* What claims_early_audit calls when the enumeration finds the direct
 * UART inside another device's BAR: the firmware console carries on, and
 * nothing touches the window again (not even to put back what was saved
 * of it: those registers may be the other device's). */
static void uart_dropped(const char *why)
{
	con.uart_out = false;
	con.have_uart = false;
	con.efi_out = true;
	printf("error: console: %s; the direct UART is dropped, the firmware console carries on\n", why);
	strncat(con.describe, " (direct UART dropped: another device's window)",
		sizeof(con.describe) - strlen(con.describe) - 1);
}

static void sinks_write(const char *buf, size_t n)
{
	if (con.efi_out)
		efi_write(buf, n);
	if (con.uart_out) {
		uart_write(buf, n);
		if (direct_tx(&con.uart)->dead && !con.stop_noted)
			uart_stopped();
	}
}

/* The output contract: only record lines start with '{'. */
void console_write(const char *buf, size_t n)
{
	contract_write(buf, n, sinks_write);
}

int console_getc(void)
{
	if (con.uart_out) {
		int c = direct_getc(&con.uart);
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

const char *console_route(const char *mode, const struct console_uart *uart)
{
	static char msg[320];
	/* At boot, leave alone a UART the firmware is already using: on
	 * QEMU's virt machine SPCR names the very PL011 ConOut writes to. */
	if (uart && uart->offered && con.firmware_redirects) {
		if (!uart->why)
			snprintf(con.left_to_firmware, sizeof(con.left_to_firmware), "%s", uart->place.desc);
		uart = NULL;
	}
	if (uart) {
		const struct uart_place place = uart->place;
		struct direct u;
		const char *source = uart->source;
		const char *why = uart->why;
		/* Give the old port back first: it may be this very port, whose
		 * firmware state must be the one saved. */
		bool had = con.have_uart;
		if (!why && had)
			direct_close(&con.uart);
		if (!why)
			why = direct_open(&u, &place, source);
		if (why && had && direct_reopen(&con.uart) != NULL)
			con.have_uart = con.uart_out = false; /* the old port no longer answers either */
		if (why) {
			snprintf(msg, sizeof(msg), "%s", why);
			return msg;
		}
		con.uart = u;
		con.have_uart = true;
		/* the port in use, audited once the BARs are known; one refused
		 * or failed above leaves the old claim standing */
		if (place.space == ACPI_SPACE_IO)
			claims_early_forget("uart");
		else
			claims_early("uart", place.address, uart_place_span(&place), source, UART_CLASS_MASK,
				     UART_CLASS, uart_dropped);
		con.stop_noted = false;
		snprintf(con.uart_desc, sizeof(con.uart_desc), "%s", place.desc);
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
		return "no direct UART: set uart io:PORT, mmio:ADDRESS or pl011:ADDRESS first";
	con.efi_out = efi;
	con.uart_out = direct;
	snprintf(con.describe, sizeof(con.describe), "%s%s%s%s", efi ? "efi" : "",
		 efi && con.firmware_redirects ? " (firmware mirrors it to serial)" : "", efi && direct ? " + " : "",
		 direct ? "uart " : "");
	if (direct)
		strncat(con.describe, con.uart_desc, sizeof(con.describe) - strlen(con.describe) - 1);
	else if (efi && con.left_to_firmware[0] && !con.have_uart) {
		size_t n = strlen(con.describe);
		snprintf(con.describe + n, sizeof(con.describe) - n, "; %s is left to the firmware",
			 con.left_to_firmware);
	}
	if (efi && con.tty_serial) {
		size_t n = strlen(con.describe);
		snprintf(con.describe + n, sizeof(con.describe) - n,
			 "; the firmware's TtyTerm terminal would break lines at column %llu, so its serial port is "
			 "written through the firmware's SERIAL_IO%s",
			 (unsigned long long)con.tty_columns,
			 con.n_screens ? " and the screen through its own output" : "");
	}
	return NULL;
}

const char *console_describe(void)
{
	return con.describe[0] ? con.describe : "efi";
}

void console_restore(void)
{
	if (con.have_uart)
		direct_close(&con.uart);
	claims_early_forget("uart");
	con.uart_out = false;
	con.efi_out = true;
}
