#include "uart16550.h"

static uint8_t rd(struct uart16550 *u, unsigned reg)
{
	uint64_t off = (uint64_t)reg * u->stride;
	return u->width == 4 ? (uint8_t)regwin_read32(&u->win, off) : regwin_read8(&u->win, off);
}

static void wr(struct uart16550 *u, unsigned reg, uint8_t v)
{
	uint64_t off = (uint64_t)reg * u->stride;
	if (u->width == 4)
		regwin_write32(&u->win, off, v);
	else
		regwin_write8(&u->win, off, v);
}

const char *uart16550_open(struct uart16550 *u, uint32_t baud)
{
	u->err = UART_OK;
	if (baud && (baud > UART_CLOCK_DIVISOR_BASE || UART_CLOCK_DIVISOR_BASE % baud)) {
		u->err = UART_ERR_BAUD;
		return "baud rate does not divide 115200";
	}
	/* Something must be there: the scratch register holds what we write. */
	uint8_t scr = rd(u, UART_SCR);
	wr(u, UART_SCR, 0x5a);
	bool answers = rd(u, UART_SCR) == 0x5a;
	wr(u, UART_SCR, 0xa5);
	answers = answers && rd(u, UART_SCR) == 0xa5;
	wr(u, UART_SCR, scr);
	if (!answers) {
		u->err = UART_ERR_ABSENT;
		return "no UART answers there (scratch register test failed)";
	}

	u->saved[0] = rd(u, UART_IER);
	u->saved[1] = rd(u, UART_LCR);
	u->saved[2] = rd(u, UART_MCR);
	wr(u, UART_LCR, u->saved[1] | UART_LCR_DLAB);
	u->saved[3] = rd(u, UART_RBR_THR);
	u->saved[4] = rd(u, UART_IER);
	wr(u, UART_LCR, u->saved[1]);
	/* FCR is write-only. IIR[7:6] reads 11 when the FIFOs are on; the
	 * trigger level and DMA mode cannot be read back, so close puts back
	 * the FIFOs on or off with the 1-byte trigger and DMA mode 0, which is
	 * what EDK II's 16550 serial library programs. */
	u->saved[5] = (rd(u, UART_IIR_FCR) & UART_IIR_FIFOS) == UART_IIR_FIFOS ? UART_FCR_FIFOE : 0;
	u->fcr_written = false;
	u->saved_valid = true;
	u->tx = (struct uart_tx){ .baud = baud, .fifo_depth = 16 };

	wr(u, UART_IER, 0); /* polled: no interrupts of ours */
	if (baud) {
		uint16_t div = (uint16_t)(UART_CLOCK_DIVISOR_BASE / baud);
		wr(u, UART_LCR, UART_LCR_DLAB);
		wr(u, UART_RBR_THR, div & 0xff);
		wr(u, UART_IER, div >> 8);
		wr(u, UART_LCR, UART_LCR_8N1);
		wr(u, UART_IIR_FCR, UART_FCR_FIFOE | UART_FCR_CLEAR); /* FIFOs on and cleared */
		u->fcr_written = true;
		wr(u, UART_MCR, 0x03); /* DTR, RTS */
	}
	return NULL;
}

static bool temt(void *ctx)
{
	return rd(ctx, UART_LSR) & UART_LSR_TEMT;
}

static bool thre(void *ctx)
{
	return rd(ctx, UART_LSR) & UART_LSR_THRE;
}

void uart16550_close(struct uart16550 *u)
{
	if (!u->saved_valid)
		return;
	/* the last line must leave before the divisor changes under it */
	uart_tx_drain(&u->tx, temt, u);
	wr(u, UART_LCR, UART_LCR_DLAB);
	wr(u, UART_RBR_THR, u->saved[3]);
	wr(u, UART_IER, u->saved[4]);
	wr(u, UART_LCR, u->saved[1]);
	wr(u, UART_MCR, u->saved[2]);
	if (u->fcr_written)
		wr(u, UART_IIR_FCR, u->saved[5]);
	wr(u, UART_IER, u->saved[0]);
	u->saved_valid = false;
}

void uart16550_putc(struct uart16550 *u, uint8_t c)
{
	if (uart_tx_wait(&u->tx, thre, u))
		wr(u, UART_RBR_THR, c);
	else
		u->err = UART_ERR_TX_STUCK;
}

int uart16550_getc(struct uart16550 *u)
{
	if (rd(u, UART_LSR) & UART_LSR_DR)
		return rd(u, UART_RBR_THR);
	return -1;
}
