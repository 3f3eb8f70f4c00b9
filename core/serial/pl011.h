/* Arm PrimeCell UART (PL011), polled, through a register window: the
 * console's direct sink on Arm servers (SPCR interface type 0x03), and the
 * SBSA generic UART, its subset (types 0x0d and 0x0e: data, flags and
 * interrupt registers only, the rate fixed by the firmware). Registers and
 * bits from the PL011 Technical Reference Manual (Arm DDI 0183), chapter 3;
 * every access is 32 bits wide, which both allow. */
#ifndef IOMMON_PL011_H
#define IOMMON_PL011_H

#include <stdbool.h>
#include <stdint.h>

#include "core/base/regwin.h"
#include "uart.h"

struct pl011 {
	struct regwin win; /* the 4 KiB frame */
	bool sbsa;	   /* SBSA generic UART: no IBRD/FBRD/LCR_H/CR */
	uint32_t clock_hz; /* UARTCLK; 0: unknown */
	struct uart_tx tx; /* tx.baud as programmed; 0: the firmware's */
	enum uart_err err; /* why it was refused, or UART_ERR_TX_STUCK */
	struct {
		uint32_t ibrd, fbrd, lcr_h, cr, imsc;
	} saved; /* as found */
	bool saved_valid;
	bool programmed; /* open changed IBRD/FBRD/LCR_H/CR: close puts them back */
};

/* Checks that something answers, saves what the firmware set up, masks
 * the UART's interrupts (polled). baud 0 keeps the firmware's rate and
 * line settings (refused when the firmware left the UART or its
 * transmitter off); otherwise programs baud, 8N1, FIFOs on, from
 * clock_hz, which must be known. NULL, or why not (u->err). */
const char *pl011_open(struct pl011 *u, uint32_t baud);
/* Lets the transmitter drain (bounded), then puts back what open found. */
void pl011_close(struct pl011 *u);
/* Waits at most the time its 32-byte FIFO takes to empty while TXFF is set
 * (uart_tx_wait); a byte it never takes is dropped and u->err says why. */
void pl011_putc(struct pl011 *u, uint8_t c);
int pl011_getc(struct pl011 *u); /* -1 when RXFE, or the byte came with a framing, parity or break error */

/* Integer and fractional divisors for baud from clock_hz (DDI 0183
 * 3.3.6: BAUDDIV = UARTCLK / (16 x baud), FBRD the fraction in 64ths,
 * rounded); false when IBRD would be outside 1..65535. */
bool pl011_divisors(uint32_t clock_hz, uint32_t baud, uint32_t *ibrd, uint32_t *fbrd);

/* Register offsets (DDI 0183 table 3-1) */
#define PL011_DR 0x00
#define PL011_RSR_ECR 0x04
#define PL011_FR 0x18
#define PL011_IBRD 0x24
#define PL011_FBRD 0x28
#define PL011_LCR_H 0x2c
#define PL011_CR 0x30
#define PL011_IMSC 0x38
#define PL011_FRAME_SIZE 0x1000 /* to the PrimeCell identification registers at 0xfe0-0xffc */

#define PL011_DR_FE (1u << 8)  /* framing error */
#define PL011_DR_PE (1u << 9)  /* parity error */
#define PL011_DR_BE (1u << 10) /* break */
#define PL011_FR_BUSY (1u << 3)
#define PL011_FR_RXFE (1u << 4)
#define PL011_FR_TXFF (1u << 5)
#define PL011_FR_TXFE (1u << 7)
#define PL011_LCR_H_FEN (1u << 4)
#define PL011_LCR_H_WLEN_8 (3u << 5)
#define PL011_CR_UARTEN (1u << 0)
#define PL011_CR_TXE (1u << 8)
#define PL011_CR_RXE (1u << 9)
#define PL011_CR_DTR (1u << 10)
#define PL011_CR_RTS (1u << 11)
#define PL011_FIFO_DEPTH 32

#endif
