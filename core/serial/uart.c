#include "uart.h"

#include <stdio.h>
#include <string.h>

#include "core/base/number.h"
#include "core/base/timing.h"
#include "pl011.h"

const char *uart_err_name(enum uart_err e)
{
	switch (e) {
	case UART_OK:
		return "none";
	case UART_ERR_ABSENT:
		return "no UART answers there";
	case UART_ERR_BAUD:
		return "the baud rate cannot be made from the UART's clock";
	case UART_ERR_NO_CLOCK:
		return "a baud rate needs the PL011's UARTCLK, which is unknown";
	case UART_ERR_FIXED_RATE:
		return "an SBSA generic UART has no baud rate divisor: its rate is the firmware's";
	case UART_ERR_DISABLED:
		return "the firmware left the UART disabled";
	case UART_ERR_TX_STUCK:
		return "the transmitter never took a byte within its deadline";
	}
	return "unknown";
}

/* A 16550 whose GAS says how its registers are reached: 32 bits wide
 * (access size 3, dword) or spaced 4 bytes apart (register bit width 32),
 * else bytes. */
static const char *place_16550_from_gas(const struct acpi_gas *g, struct uart_place *p)
{
	if (g->access_size == 2 || g->access_size == 4)
		return "SPCR gives a 16550 16-bit or 64-bit register access, which iommon does not drive";
	p->kind = UART_16550;
	p->stride = g->bit_width == 32 || g->access_size == 3 ? 4 : 1;
	p->width = g->access_size == 3 ? 4 : 1;
	return NULL;
}

const char *uart_place_from_spcr(const struct acpi_spcr *s, bool port_io, struct uart_place *p)
{
	memset(p, 0, sizeof(*p));
	p->space = s->base.space_id;
	p->address = s->base.address;
	p->baud = s->baud;
	const char *why = NULL;
	switch (s->interface_type) {
	case SPCR_PL011:
	case SPCR_SBSA_32BIT:
	case SPCR_SBSA_GENERIC:
		if (p->space != ACPI_SPACE_MEMORY)
			return "SPCR places a PL011 in system I/O space: it is memory-mapped";
		p->kind = UART_PL011;
		p->sbsa = s->interface_type != SPCR_PL011;
		p->clock_hz = s->clock_hz;
		/* The firmware configured it for this very rate: without its
		 * clock (or a divisor, SBSA) the rate is kept, not refused. */
		if (p->sbsa || !p->clock_hz)
			p->baud = 0;
		break;
	default:
		why = place_16550_from_gas(&s->base, p);
		/* the divisor assumes the PC's 1.8432 MHz clock: another rate
		 * (a precise one, rev 4) is the firmware's to keep */
		if (p->baud && 115200 % p->baud)
			p->baud = 0;
		break;
	}
	if (why)
		return why;
	if (p->space == ACPI_SPACE_IO && !port_io)
		return "SPCR places the UART in system I/O space, and this CPU has no I/O port instructions";
	if (p->space == ACPI_SPACE_IO && p->address > 0xfff8)
		return "SPCR names an I/O port beyond 0xfff8";
	snprintf(p->desc, sizeof(p->desc), "%s:0x%llx (SPCR)",
		 p->kind == UART_PL011	     ? (p->sbsa ? "sbsa" : "pl011")
		 : p->space == ACPI_SPACE_IO ? "io"
					     : "mmio",
		 (unsigned long long)p->address);
	return NULL;
}

const char *uart_place_from_setting(const char *v, bool port_io, struct uart_place *out)
{
	static char msg[240];
	struct uart_place scratch, *p = out ? out : &scratch;
	memset(p, 0, sizeof(*p));
	bool io = strncmp(v, "io:", 3) == 0, wide = strncmp(v, "mmio32:", 7) == 0, pl011 = strncmp(v, "pl011:", 6) == 0;
	if (!io && !wide && !pl011 && strncmp(v, "mmio:", 5) != 0)
		return "must be spcr, io:PORT[,BAUD], mmio:ADDRESS[,BAUD], mmio32:ADDRESS[,BAUD] or "
		       "pl011:ADDRESS[,BAUD,UARTCLK]";
	if (io && !port_io)
		return "this CPU has no I/O port instructions: give the UART's MMIO address";
	const char *rest = strchr(v, ':') + 1;
	char parts[3][24];
	unsigned n = 0;
	for (const char *s = rest;; n++) {
		const char *comma = strchr(s, ',');
		size_t len = comma ? (size_t)(comma - s) : strlen(s);
		if (n == 3 || (n == 2 && !pl011))
			return pl011 ? "too many fields: pl011:ADDRESS[,BAUD,UARTCLK]"
				     : "too many fields: one baud rate";
		if (len == 0 || len >= sizeof(parts[n]))
			return n == 0 ? "the UART address is missing or too long"
				      : "a field after a comma is empty or too long";
		memcpy(parts[n], s, len);
		parts[n][len] = '\0';
		if (!comma) {
			n++;
			break;
		}
		s = comma + 1;
	}
	p->kind = pl011 ? UART_PL011 : UART_16550;
	p->stride = p->width = wide ? 4 : 1;
	p->space = io ? ACPI_SPACE_IO : ACPI_SPACE_MEMORY;
	uint64_t span = uart_place_span(p);
	unsigned long long addr, baud = pl011 ? 0 : 115200, clock = 0;
	const char *why = io ? parse_range(parts[0], 1, 0xfff8, "an I/O port (8 registers)", &addr)
			     : parse_range(parts[0], 1, (1ull << 52) - span, "a physical address (below 2^52)", &addr);
	if (why) {
		snprintf(msg, sizeof(msg), "the UART address: %s", why);
		return msg;
	}
	if ((wide || pl011) && addr % 4)
		return "the UART address must be aligned to 4 bytes for 32-bit registers";
	p->address = addr;
	if (n > 1 && (why = parse_u64_why(parts[1], &baud)) != NULL) {
		snprintf(msg, sizeof(msg), "the baud rate: %s", why);
		return msg;
	}
	if (n > 1 && !pl011 && (baud < 1200 || baud > 115200 || 115200 % baud))
		return "the baud rate must divide 115200 and be 1200 or more (e.g. 115200, 57600, 9600)";
	if (pl011 && n == 2)
		return "a PL011's baud rate is made from its UARTCLK: give pl011:ADDRESS,BAUD,UARTCLK, or the address "
		       "alone to keep the firmware's rate";
	if (pl011 && n == 3) {
		if ((why = parse_range(parts[2], 1000000, 1000000000, "UARTCLK in Hz", &clock)) != NULL) {
			snprintf(msg, sizeof(msg), "the UART clock: %s", why);
			return msg;
		}
		if (baud < 1200 || baud > clock / 16)
			return "the baud rate must be 1200 or more and at most UARTCLK/16";
	}
	p->baud = (uint32_t)baud;
	p->clock_hz = (uint32_t)clock;
	snprintf(p->desc, sizeof(p->desc), "%s", v);
	return NULL;
}

uint64_t uart_place_span(const struct uart_place *p)
{
	return p->kind == UART_PL011 ? PL011_FRAME_SIZE : 8ull * p->stride;
}

uint64_t uart_tx_budget_us(const struct uart_tx *t)
{
	uint32_t baud = t->baud ? t->baud : 9600;
	return (uint64_t)t->fifo_depth * 10 * 1000000 / baud + 1000; /* 10 bits a character */
}

bool uart_tx_wait(struct uart_tx *t, bool (*ready)(void *ctx), void *ctx)
{
	if (t->dead)
		return false;
	/* past a FIFO's worth of character times, nobody is draining it */
	struct deadline dl = deadline_after_us(uart_tx_budget_us(t));
	while (!ready(ctx)) {
		if (deadline_passed(&dl)) {
			if (++t->timeouts >= UART_TX_GIVE_UP)
				t->dead = true;
			return false;
		}
		cpu_relax();
	}
	return true;
}

void uart_tx_drain(const struct uart_tx *t, bool (*idle)(void *ctx), void *ctx)
{
	struct deadline dl = deadline_after_us(uart_tx_budget_us(t));
	while (!t->dead && !idle(ctx) && !deadline_passed(&dl))
		cpu_relax();
}
