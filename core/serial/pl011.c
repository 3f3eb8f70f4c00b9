#include "pl011.h"

static uint32_t rd(struct pl011 *u, uint64_t off)
{
	return regwin_read32(&u->win, off);
}

static void wr(struct pl011 *u, uint64_t off, uint32_t v)
{
	regwin_write32(&u->win, off, v);
}

bool pl011_divisors(uint32_t clock_hz, uint32_t baud, uint32_t *ibrd, uint32_t *fbrd)
{
	if (!baud)
		return false;
	/* 64 x UARTCLK / (16 x baud), rounded to the nearest 64th */
	uint64_t div64 = (4ull * clock_hz + baud / 2) / baud;
	*ibrd = (uint32_t)(div64 >> 6);
	*fbrd = (uint32_t)(div64 & 63);
	/* 3.3.6: IBRD 0 is invalid; the largest divisor is 65535 with FBRD 0 */
	return *ibrd >= 1 && (*ibrd < 65535 || (*ibrd == 65535 && *fbrd == 0));
}

static bool tx_room(void *ctx)
{
	return !(rd(ctx, PL011_FR) & PL011_FR_TXFF);
}

/* the FIFO empty and the last character's stop bit sent */
static bool tx_idle(void *ctx)
{
	uint32_t fr = rd(ctx, PL011_FR);
	return (fr & PL011_FR_TXFE) && !(fr & PL011_FR_BUSY);
}

static const char *refuse(struct pl011 *u, enum uart_err e)
{
	u->err = e;
	return uart_err_name(e);
}

const char *pl011_open(struct pl011 *u, uint32_t baud)
{
	u->err = UART_OK;
	u->saved_valid = u->programmed = false;
	/* UARTFR's upper bits are reserved and read as zero: all ones is
	 * nothing decoding the address (a master abort) */
	if (rd(u, PL011_FR) == 0xffffffffu)
		return refuse(u, UART_ERR_ABSENT);
	uint32_t ibrd = 0, fbrd = 0;
	if (baud && u->sbsa)
		return refuse(u, UART_ERR_FIXED_RATE);
	if (baud && !u->clock_hz)
		return refuse(u, UART_ERR_NO_CLOCK);
	if (baud && !pl011_divisors(u->clock_hz, baud, &ibrd, &fbrd))
		return refuse(u, UART_ERR_BAUD);

	u->saved.imsc = rd(u, PL011_IMSC);
	if (!u->sbsa) {
		u->saved.ibrd = rd(u, PL011_IBRD);
		u->saved.fbrd = rd(u, PL011_FBRD);
		u->saved.lcr_h = rd(u, PL011_LCR_H);
		u->saved.cr = rd(u, PL011_CR);
		uint32_t on = PL011_CR_UARTEN | PL011_CR_TXE;
		if (!baud && (u->saved.cr & on) != on)
			return refuse(u, UART_ERR_DISABLED);
	}
	u->saved_valid = true;
	/* the firmware's rate is unknown until ours is set: drain at the slowest */
	u->tx = (struct uart_tx){ .baud = 0, .fifo_depth = PL011_FIFO_DEPTH };
	wr(u, PL011_IMSC, 0); /* polled: no interrupts of ours */
	if (baud) {
		/* 3.3.8: what the firmware queued leaves first, then the UART
		 * is disabled while it is reprogrammed; IBRD and FBRD take
		 * effect with the LCR_H write that follows them (3.3.7), which
		 * also turns the FIFOs back on after LCR_H 0 flushed them. */
		uart_tx_drain(&u->tx, tx_idle, u);
		wr(u, PL011_CR, 0);
		wr(u, PL011_LCR_H, 0);
		wr(u, PL011_IBRD, ibrd);
		wr(u, PL011_FBRD, fbrd);
		wr(u, PL011_LCR_H, PL011_LCR_H_WLEN_8 | PL011_LCR_H_FEN);
		wr(u, PL011_CR, PL011_CR_UARTEN | PL011_CR_TXE | PL011_CR_RXE | PL011_CR_DTR | PL011_CR_RTS);
		u->programmed = true;
	}
	u->tx.baud = baud;
	return NULL;
}

void pl011_close(struct pl011 *u)
{
	if (!u->saved_valid)
		return;
	/* the last line must leave before the rate changes under it */
	uart_tx_drain(&u->tx, tx_idle, u);
	if (u->programmed) {
		wr(u, PL011_CR, 0);
		wr(u, PL011_IBRD, u->saved.ibrd);
		wr(u, PL011_FBRD, u->saved.fbrd);
		wr(u, PL011_LCR_H, u->saved.lcr_h);
		wr(u, PL011_CR, u->saved.cr);
	}
	wr(u, PL011_IMSC, u->saved.imsc);
	u->saved_valid = u->programmed = false;
}

void pl011_putc(struct pl011 *u, uint8_t c)
{
	if (uart_tx_wait(&u->tx, tx_room, u))
		wr(u, PL011_DR, c);
	else
		u->err = UART_ERR_TX_STUCK;
}

int pl011_getc(struct pl011 *u)
{
	if (rd(u, PL011_FR) & PL011_FR_RXFE)
		return -1;
	uint32_t dr = rd(u, PL011_DR);
	if (dr & 0xf00) /* an error flag: cleared through UARTECR (3.3.2) */
		wr(u, PL011_RSR_ECR, 0);
	if (dr & (PL011_DR_FE | PL011_DR_PE | PL011_DR_BE))
		return -1; /* not a character anyone typed */
	return (int)(dr & 0xff);
}
