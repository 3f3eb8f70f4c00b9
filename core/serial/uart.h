/* What the two direct UART drivers (uart16550.c, pl011.c) share: where a
 * UART is and how it is wired (from ACPI's SPCR or from `set uart`), the
 * errors they name, and the transmitter's deadline. The console (boot/)
 * picks the driver from uart_place.kind. */
#ifndef IOMMON_UART_H
#define IOMMON_UART_H

#include <stdbool.h>
#include <stdint.h>

#include "core/tables/acpi.h"

enum uart_kind { UART_16550, UART_PL011 };

/* x86 has I/O port instructions; Arm and the rest reach UARTs through MMIO only. */
#if defined(__x86_64__) || defined(__i386__)
#define UART_PORT_IO true
#else
#define UART_PORT_IO false
#endif

/* Why a UART was refused or stopped; tests check these, people read the text. */
enum uart_err {
	UART_OK,
	UART_ERR_ABSENT,     /* nothing answers at the address */
	UART_ERR_BAUD,	     /* the rate cannot be made from the clock */
	UART_ERR_NO_CLOCK,   /* a rate was asked of a PL011 whose UARTCLK is unknown */
	UART_ERR_FIXED_RATE, /* a rate was asked of an SBSA generic UART, which has no divisor */
	UART_ERR_DISABLED,   /* kept as found, but the firmware left it off */
	UART_ERR_TX_STUCK,   /* the transmitter never took a byte within its deadline */
};
const char *uart_err_name(enum uart_err e);

struct uart_place {
	enum uart_kind kind;
	uint8_t space; /* ACPI_SPACE_MEMORY or ACPI_SPACE_IO (16550 only) */
	uint64_t address;
	unsigned stride;   /* 16550: bytes between registers, 1 or 4 */
	unsigned width;	   /* 16550: access width, 1 or 4 (a PL011 is always 32-bit) */
	bool sbsa;	   /* PL011: an SBSA generic UART (no divisor, no line control) */
	uint32_t baud;	   /* 0: the firmware's rate, kept */
	uint32_t clock_hz; /* PL011: UARTCLK, 0 when unknown */
	char desc[64];	   /* for `info` and the console line */
};

/* The console's UART as the monitor resolved it (core/monitor/console.c:
 * the SPCR's, or the place `set uart` names), handed to the platform's
 * console_route (core/base/platform.h), which drives it. */
#define UART_FROM_SPCR "ACPI SPCR"
#define UART_FROM_SETTING "set uart"
struct console_uart {
	bool from_spcr;	    /* the SPCR's, else `set uart`'s */
	const char *source; /* UART_FROM_SPCR or UART_FROM_SETTING: named in a refusal and in the claim */
	/* The boot's offer, not an order: the platform leaves it to the
	 * firmware when the firmware's console already reaches a UART. */
	bool offered;
	const char *why; /* NULL, or why there is no place (place is then not set) */
	struct uart_place place;
};

/* The UART an SPCR describes (acpi_spcr_uart has checked its type). port_io:
 * this CPU has I/O port instructions (x86); elsewhere a UART in system I/O
 * space is refused. NULL, or why not. */
const char *uart_place_from_spcr(const struct acpi_spcr *s, bool port_io, struct uart_place *p);
/* "io:PORT[,BAUD]", "mmio:ADDR[,BAUD]", "mmio32:ADDR[,BAUD]" or
 * "pl011:ADDR[,BAUD,UARTCLK]" ("spcr" is the console's to resolve). NULL, or
 * why the text is not one; p may be NULL to check the form only. */
const char *uart_place_from_setting(const char *v, bool port_io, struct uart_place *p);
/* The bytes of its register window: 8 registers a stride apart, or a PL011's 4 KiB frame. */
uint64_t uart_place_span(const struct uart_place *p);

/* The transmitter's health, shared by both drivers: each byte waits at most
 * the time a FIFO's worth of characters takes at the rate (9600 baud when
 * unknown) plus 1 ms; after UART_TX_GIVE_UP such timeouts the sink stops. */
#define UART_TX_GIVE_UP 16
struct uart_tx {
	uint32_t baud;	     /* 0: unknown */
	unsigned fifo_depth; /* characters */
	unsigned timeouts;   /* bytes dropped because the transmitter never took them */
	bool dead;	     /* stopped trying */
};
uint64_t uart_tx_budget_us(const struct uart_tx *t);
/* Polls ready(ctx) until it holds (true) or the budget passes (false: one
 * more timeout counted, perhaps the last). Never waits once dead. */
bool uart_tx_wait(struct uart_tx *t, bool (*ready)(void *ctx), void *ctx);
/* Before the line settings change under the last characters: waits, at
 * most the budget and uncounted, for idle(ctx). */
void uart_tx_drain(const struct uart_tx *t, bool (*idle)(void *ctx), void *ctx);

#endif
