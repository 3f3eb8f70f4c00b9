/* 16550-compatible UART, polled, through a register window (I/O ports with
 * a stride of 1, or MMIO with a stride of 1 or 4). The console's direct
 * sink for servers whose firmware does not redirect its console (SPCR
 * interface types 0x00, 0x01 and 0x12). */
#ifndef IOMMON_UART16550_H
#define IOMMON_UART16550_H

#include <stdbool.h>
#include <stdint.h>

#include "core/base/regwin.h"
#include "uart.h"

struct uart16550 {
	struct regwin win;
	unsigned stride;  /* bytes between registers: 1 or 4 */
	unsigned width;	  /* access width: 1 or 4 */
	uint8_t saved[8]; /* IER, LCR, MCR, DLL, DLM as found; FCR to put back (see uart_open) */
	bool saved_valid;
	bool fcr_written;  /* uart_open programmed FCR: close puts the FIFOs back as found */
	struct uart_tx tx; /* tx.baud as programmed; 0: the firmware's, unknown */
	enum uart_err err; /* why it was refused, or UART_ERR_TX_STUCK once THR never emptied */
};

/* Checks that a UART answers (scratch register), saves its state and sets
 * `baud` 8N1 (baud 0: keep the firmware's divisor). NULL, or why not (u->err). */
const char *uart16550_open(struct uart16550 *u, uint32_t baud);
/* Lets the transmitter drain (bounded), then puts back what uart16550_open found. */
void uart16550_close(struct uart16550 *u);
/* Writes one byte, waiting at most the time its 16-byte FIFO takes to
 * empty (uart_tx_wait); a byte it never takes is dropped. */
void uart16550_putc(struct uart16550 *u, uint8_t c);
int uart16550_getc(struct uart16550 *u); /* -1 when none */

/* Register numbers (PC16550D datasheet) */
enum {
	UART_RBR_THR = 0, /* DLL when LCR.DLAB */
	UART_IER = 1,	  /* DLM when LCR.DLAB */
	UART_IIR_FCR = 2,
	UART_LCR = 3,
	UART_MCR = 4,
	UART_LSR = 5,
	UART_MSR = 6,
	UART_SCR = 7,
};
#define UART_LCR_DLAB 0x80
#define UART_LCR_8N1 0x03
#define UART_IIR_FIFOS 0xc0 /* both set: FIFOs enabled */
#define UART_FCR_FIFOE 0x01
#define UART_FCR_CLEAR 0x06 /* clear both FIFOs (self-clearing) */
#define UART_LSR_DR 0x01
#define UART_LSR_THRE 0x20
#define UART_LSR_TEMT 0x40
#define UART_CLOCK_DIVISOR_BASE 115200u /* 1.8432 MHz / 16 */

#endif
