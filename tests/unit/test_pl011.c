/* The PL011 driver against a register model written from the TRM (DDI
 * 0183), not from the driver's header: the divisors latch on the LCR_H
 * write, line settings written while the UART is enabled are counted as
 * misuse, an SBSA generic UART has no divisor or control registers, and
 * the model counts every access it does not expect. */
#include "unit.h"

#include "core/base/timing.h"
#include "core/serial/pl011.h"
#include "tests/host/platform_host.h"

struct model011 {
	bool present, sbsa, tx_stuck;
	uint32_t ibrd, fbrd, lcr_h, cr, imsc; /* as written */
	uint32_t live_ibrd, live_fbrd;	      /* latched by an LCR_H write */
	unsigned fifo;			      /* characters the transmitter holds */
	uint32_t rx[8];			      /* DR values waiting, flags in bits 11:8 */
	unsigned nrx, ecr_writes;
	char tx[256];
	unsigned ntx;
	unsigned line_writes; /* IBRD/FBRD/LCR_H/CR writes */
	unsigned misuse;      /* line settings changed while UARTEN, or an SBSA register that is not there */
	unsigned unexpected;  /* an offset or width the PL011 does not have */
	unsigned fr_reads;
};

#define FIFO 32

static bool line_reg(uint64_t off)
{
	return off == 0x24 || off == 0x28 || off == 0x2c || off == 0x30;
}

static uint64_t m_read(void *ctx, uint64_t off, unsigned width)
{
	struct model011 *m = ctx;
	if (!m->present)
		return 0xffffffffu; /* nothing decodes the address */
	if (width != 4)
		m->unexpected++;
	if (m->sbsa && line_reg(off))
		m->misuse++;
	switch (off) {
	case 0x00: {
		if (!m->nrx)
			return 0;
		uint32_t v = m->rx[0];
		memmove(m->rx, m->rx + 1, --m->nrx * sizeof(m->rx[0]));
		return v;
	}
	case 0x18: /* FR: TXFE 7, TXFF 5, RXFE 4, BUSY 3 */
		m->fr_reads++;
		return (m->fifo == 0 ? 0x80u : 0) | (m->fifo >= FIFO ? 0x20u : 0) | (m->nrx ? 0 : 0x10u) |
		       (m->fifo ? 0x08u : 0);
	case 0x24:
		return m->ibrd;
	case 0x28:
		return m->fbrd;
	case 0x2c:
		return m->lcr_h;
	case 0x30:
		return m->cr;
	case 0x38:
		return m->imsc;
	}
	m->unexpected++;
	return 0;
}

static void m_write(void *ctx, uint64_t off, unsigned width, uint64_t v)
{
	struct model011 *m = ctx;
	if (!m->present)
		return;
	if (width != 4)
		m->unexpected++;
	if (line_reg(off)) {
		m->line_writes++;
		if (m->sbsa || ((m->cr & 1) && off != 0x30))
			m->misuse++;
	}
	uint32_t w = (uint32_t)v;
	switch (off) {
	case 0x00:
		if (m->tx_stuck) {
			if (m->fifo < FIFO)
				m->fifo++;
		} else if (m->ntx < sizeof(m->tx)) {
			m->tx[m->ntx++] = (char)w;
		}
		return;
	case 0x04:
		m->ecr_writes++;
		return;
	case 0x24:
		m->ibrd = w & 0xffff;
		return;
	case 0x28:
		m->fbrd = w & 0x3f;
		return;
	case 0x2c: /* 3.3.7: the divisors take effect with this write */
		m->lcr_h = w & 0xff;
		m->live_ibrd = m->ibrd;
		m->live_fbrd = m->fbrd;
		return;
	case 0x30:
		m->cr = w & 0xffff;
		return;
	case 0x38:
		m->imsc = w & 0x7ff;
		return;
	}
	m->unexpected++;
}

static const struct regwin_model_ops ops = { m_read, m_write };

static void attach(struct pl011 *u, struct model011 *m, uint32_t clock_hz)
{
	memset(u, 0, sizeof(*u));
	u->sbsa = m->sbsa;
	u->clock_hz = clock_hz;
	regwin_init_model(&u->win, "pl011", PL011_FRAME_SIZE, false, &ops, m);
}

/* As EDK II's PL011 library leaves it on QEMU's virt machine: 115200 from
 * a 24 MHz UARTCLK, 8N1 with FIFOs, enabled. */
static struct model011 firmware_set_up(void)
{
	struct model011 m = { .present = true, .ibrd = 13, .fbrd = 1, .lcr_h = 0x70, .cr = 0x301, .imsc = 0x10 };
	m.live_ibrd = m.ibrd;
	m.live_fbrd = m.fbrd;
	return m;
}

static int setup(void **state)
{
	(void)state;
	platform = &host_platform;
	timing.tsc_hz = calibrate_stall(10000, 3);
	return 0;
}

static void divisors(void **state)
{
	(void)state;
	uint32_t i, f;
	assert_true(pl011_divisors(24000000, 115200, &i, &f)); /* 13.02 */
	assert_int_equal(i, 13);
	assert_int_equal(f, 1);
	assert_true(pl011_divisors(24000000, 9600, &i, &f)); /* 156.25 */
	assert_int_equal(i, 156);
	assert_int_equal(f, 16);
	assert_true(pl011_divisors(7372800, 115200, &i, &f)); /* exactly 4 */
	assert_int_equal(i, 4);
	assert_int_equal(f, 0);
	assert_false(pl011_divisors(24000000, 3000000, &i, &f)); /* IBRD 0 */
	assert_false(pl011_divisors(100000000, 50, &i, &f));	 /* beyond 65535 */
	assert_false(pl011_divisors(24000000, 0, &i, &f));
}

static void programs_and_restores(void **state)
{
	(void)state;
	struct model011 m = firmware_set_up();
	struct pl011 u;
	attach(&u, &m, 24000000);
	assert_null(pl011_open(&u, 9600));
	assert_int_equal(m.live_ibrd, 156); /* latched: LCR_H came after the divisors */
	assert_int_equal(m.live_fbrd, 16);
	assert_int_equal(m.lcr_h, PL011_LCR_H_WLEN_8 | PL011_LCR_H_FEN);
	assert_int_equal(m.cr & 0x301, 0x301); /* UARTEN, TXE, RXE */
	assert_int_equal(m.imsc, 0);	       /* polled */
	pl011_putc(&u, 'h');
	pl011_putc(&u, 'i');
	assert_int_equal(m.ntx, 2);
	assert_memory_equal(m.tx, "hi", 2);
	pl011_close(&u);
	assert_int_equal(m.live_ibrd, 13);
	assert_int_equal(m.live_fbrd, 1);
	assert_int_equal(m.lcr_h, 0x70);
	assert_int_equal(m.cr, 0x301);
	assert_int_equal(m.imsc, 0x10);
	assert_int_equal(m.misuse, 0); /* never reprogrammed while enabled */
	assert_int_equal(m.unexpected, 0);
	assert_int_equal(u.win.out_of_window, 0);
	assert_int_equal(u.err, UART_OK);
}

/* baud 0: the firmware's rate and line settings stay untouched; only the
 * interrupt mask is ours while open. */
static void keeps_firmware_setup(void **state)
{
	(void)state;
	struct model011 m = firmware_set_up();
	struct pl011 u;
	attach(&u, &m, 0);
	assert_null(pl011_open(&u, 0));
	assert_int_equal(m.imsc, 0);
	pl011_putc(&u, 'k');
	assert_int_equal(m.ntx, 1);
	pl011_close(&u);
	assert_int_equal(m.line_writes, 0);
	assert_int_equal(m.imsc, 0x10);
	assert_int_equal(m.unexpected, 0);
}

static void refusals(void **state)
{
	(void)state;
	struct model011 m = { .present = false };
	struct pl011 u;
	attach(&u, &m, 24000000);
	assert_non_null(pl011_open(&u, 0));
	assert_int_equal(u.err, UART_ERR_ABSENT);

	m = firmware_set_up();
	m.cr = 0; /* the firmware never enabled it: kept as found, it would never send */
	attach(&u, &m, 0);
	assert_non_null(pl011_open(&u, 0));
	assert_int_equal(u.err, UART_ERR_DISABLED);

	m = firmware_set_up();
	attach(&u, &m, 0); /* UARTCLK unknown */
	assert_non_null(pl011_open(&u, 115200));
	assert_int_equal(u.err, UART_ERR_NO_CLOCK);

	attach(&u, &m, 24000000);
	assert_non_null(pl011_open(&u, 3000000));
	assert_int_equal(u.err, UART_ERR_BAUD);
	assert_int_equal(m.line_writes, 0); /* nothing was changed by a refusal */
	assert_int_equal(m.imsc, 0x10);
	pl011_close(&u); /* a refused UART has nothing to put back */
	assert_int_equal(m.line_writes, 0);
}

/* The SBSA generic UART: no IBRD/FBRD/LCR_H/CR at all, the rate is the
 * firmware's. */
static void sbsa_generic_uart(void **state)
{
	(void)state;
	struct model011 m = { .present = true, .sbsa = true, .imsc = 0x30 };
	struct pl011 u;
	attach(&u, &m, 24000000);
	assert_non_null(pl011_open(&u, 115200));
	assert_int_equal(u.err, UART_ERR_FIXED_RATE);
	assert_null(pl011_open(&u, 0));
	pl011_putc(&u, 's');
	assert_int_equal(m.ntx, 1);
	pl011_close(&u);
	assert_int_equal(m.imsc, 0x30);
	assert_int_equal(m.misuse, 0);
	assert_int_equal(m.unexpected, 0);
}

/* A transmit FIFO that never drains: the first 32 bytes fill it, each
 * later one gives up at its deadline with UART_ERR_TX_STUCK, and after 16
 * such the driver stops touching the UART at all. */
static void transmitter_never_drains(void **state)
{
	(void)state;
	struct model011 m = firmware_set_up();
	struct pl011 u;
	attach(&u, &m, 0);
	assert_null(pl011_open(&u, 0));
	m.tx_stuck = true;
	for (int i = 0; i < FIFO; i++)
		pl011_putc(&u, 'x');
	assert_int_equal(u.err, UART_OK);
	for (int i = 0; i < 40; i++)
		pl011_putc(&u, 'x');
	assert_int_equal(u.err, UART_ERR_TX_STUCK);
	assert_int_equal(u.tx.timeouts, UART_TX_GIVE_UP);
	assert_true(u.tx.dead);
	unsigned reads = m.fr_reads;
	pl011_putc(&u, 'x');
	pl011_close(&u); /* no drain wait on a dead transmitter */
	assert_int_equal(m.fr_reads, reads);
	assert_int_equal(m.imsc, 0x10); /* still put back */
}

static void receives(void **state)
{
	(void)state;
	struct model011 m = firmware_set_up();
	struct pl011 u;
	attach(&u, &m, 0);
	assert_null(pl011_open(&u, 0));
	assert_int_equal(pl011_getc(&u), -1); /* RXFE: nothing waiting, never blocks */
	m.rx[0] = 'o';
	m.rx[1] = 'x' | PL011_DR_FE; /* a framing error: not a character */
	m.rx[2] = 'k';
	m.nrx = 3;
	assert_int_equal(pl011_getc(&u), 'o');
	assert_int_equal(pl011_getc(&u), -1);
	assert_int_equal(m.ecr_writes, 1);
	assert_int_equal(pl011_getc(&u), 'k');
	assert_int_equal(pl011_getc(&u), -1);
	pl011_close(&u);
	assert_int_equal(m.unexpected, 0);
	assert_int_equal(u.win.out_of_window, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(divisors),
		cmocka_unit_test(programs_and_restores),
		cmocka_unit_test(keeps_firmware_setup),
		cmocka_unit_test(refusals),
		cmocka_unit_test(sbsa_generic_uart),
		cmocka_unit_test(transmitter_never_drains),
		cmocka_unit_test(receives),
	};
	return cmocka_run_group_tests_name("pl011", tests, setup, NULL);
}
