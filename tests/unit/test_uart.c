/* The 16550 driver against a register model: programming, restore on
 * close, a transmitter that never empties, and an absent UART. */
#include "unit.h"

#include "core/base/timing.h"
#include "core/serial/uart16550.h"
#include "tests/host/platform_host.h"

struct model16550 {
	bool present, thre_stuck;
	uint8_t ier, lcr, mcr, scr, dll, dlm, fcr; /* fcr: as last written, write-only */
	unsigned fcr_writes;
	uint8_t rx[8];
	unsigned nrx;
	char tx[256];
	unsigned ntx;
};

static uint64_t m_read(void *ctx, uint64_t off, unsigned width)
{
	(void)width;
	struct model16550 *m = ctx;
	if (!m->present)
		return 0xff; /* nothing decodes the address */
	bool dlab = m->lcr & UART_LCR_DLAB;
	switch (off) {
	case UART_RBR_THR:
		if (dlab)
			return m->dll;
		if (m->nrx) {
			uint8_t c = m->rx[0];
			memmove(m->rx, m->rx + 1, --m->nrx);
			return c;
		}
		return 0;
	case UART_IER:
		return dlab ? m->dlm : m->ier;
	case UART_IIR_FCR: /* IIR: FIFOs enabled in bits 7:6, no interrupt pending */
		return (m->fcr & 0x01 ? 0xc0 : 0x00) | 0x01;
	case UART_LCR:
		return m->lcr;
	case UART_MCR:
		return m->mcr;
	case UART_LSR:
		return (m->thre_stuck ? 0 : UART_LSR_THRE) | (m->nrx ? UART_LSR_DR : 0);
	case UART_SCR:
		return m->scr;
	}
	return 0;
}

static void m_write(void *ctx, uint64_t off, unsigned width, uint64_t v)
{
	(void)width;
	struct model16550 *m = ctx;
	if (!m->present)
		return;
	bool dlab = m->lcr & UART_LCR_DLAB;
	uint8_t b = (uint8_t)v;
	switch (off) {
	case UART_RBR_THR:
		if (dlab)
			m->dll = b;
		else if (m->ntx < sizeof(m->tx))
			m->tx[m->ntx++] = (char)b;
		break;
	case UART_IER:
		if (dlab)
			m->dlm = b;
		else
			m->ier = b;
		break;
	case UART_IIR_FCR: /* FCR: the clear bits act and read as nothing */
		m->fcr = b & ~0x06;
		m->fcr_writes++;
		break;
	case UART_LCR:
		m->lcr = b;
		break;
	case UART_MCR:
		m->mcr = b;
		break;
	case UART_SCR:
		m->scr = b;
		break;
	}
}

static const struct regwin_model_ops ops = { m_read, m_write };

static void attach(struct uart16550 *u, struct model16550 *m)
{
	memset(u, 0, sizeof(*u));
	u->stride = 1;
	u->width = 1;
	regwin_init_model(&u->win, "uart", 8, false, &ops, m);
}

static int setup(void **state)
{
	(void)state;
	platform = &host_platform;
	timing.tsc_hz = calibrate_stall(10000, 3);
	return 0;
}

static void programs_and_restores(void **state)
{
	(void)state;
	/* as a firmware left it: 9600 baud (divisor 12), 7E1, IER on */
	struct model16550 m = { .present = true, .ier = 0x01, .lcr = 0x1a, .mcr = 0x0b, .dll = 12, .dlm = 0 };
	struct uart16550 u;
	attach(&u, &m);
	assert_null(uart16550_open(&u, 115200));
	assert_int_equal(m.dll, 1);
	assert_int_equal(m.dlm, 0);
	assert_int_equal(m.lcr, UART_LCR_8N1);
	assert_int_equal(m.ier, 0); /* polled */
	uart16550_putc(&u, 'h');
	uart16550_putc(&u, 'i');
	assert_int_equal(m.ntx, 2);
	assert_memory_equal(m.tx, "hi", 2);
	m.rx[0] = 'x';
	m.nrx = 1;
	assert_int_equal(uart16550_getc(&u), 'x');
	assert_int_equal(uart16550_getc(&u), -1);
	uart16550_close(&u);
	assert_int_equal(m.dll, 12);
	assert_int_equal(m.lcr, 0x1a);
	assert_int_equal(m.ier, 0x01);
	assert_int_equal(m.mcr, 0x0b);
}

/* FCR cannot be read: the FIFOs are put back on or off as IIR showed
 * them, with the trigger level EDK II's 16550 library programs (1 byte). */
static void fifo_control_put_back(void **state)
{
	(void)state;
	struct model16550 m = { .present = true, .lcr = 0x03, .dll = 1, .fcr = 0xc1 /* on, 14-byte trigger */ };
	struct uart16550 u;
	attach(&u, &m);
	assert_null(uart16550_open(&u, 115200));
	assert_int_equal(m.fcr, 0x01 | 0x00); /* ours: on (and cleared) */
	uart16550_close(&u);
	assert_int_equal(m.fcr, 0x01);

	/* a UART whose firmware left the FIFOs off gets them off again */
	m = (struct model16550){ .present = true, .lcr = 0x03, .dll = 1, .fcr = 0x00 };
	attach(&u, &m);
	assert_null(uart16550_open(&u, 115200));
	assert_int_equal(m.fcr & 0x01, 0x01);
	uart16550_close(&u);
	assert_int_equal(m.fcr, 0x00);

	/* with the firmware's baud kept, FCR is never written, so never put back */
	m = (struct model16550){ .present = true, .lcr = 0x03, .dll = 1, .fcr = 0xc1 };
	attach(&u, &m);
	assert_null(uart16550_open(&u, 0));
	uart16550_close(&u);
	assert_int_equal(m.fcr_writes, 0);
}

static void keeps_firmware_baud(void **state)
{
	(void)state;
	struct model16550 m = { .present = true, .lcr = 0x03, .dll = 12 };
	struct uart16550 u;
	attach(&u, &m);
	assert_null(uart16550_open(&u, 0));
	assert_int_equal(m.dll, 12);
	uart16550_close(&u);
}

static void absent_uart(void **state)
{
	(void)state;
	struct model16550 m = { .present = false };
	struct uart16550 u;
	attach(&u, &m);
	assert_non_null(uart16550_open(&u, 115200));
	assert_int_equal(u.err, UART_ERR_ABSENT);
}

static void bad_baud(void **state)
{
	(void)state;
	struct model16550 m = { .present = true };
	struct uart16550 u;
	attach(&u, &m);
	assert_non_null(uart16550_open(&u, 7));
	assert_int_equal(u.err, UART_ERR_BAUD);
	assert_non_null(uart16550_open(&u, 230400));
	assert_int_equal(u.err, UART_ERR_BAUD);
}

/* A transmitter that never empties: each byte gives up at its deadline,
 * and after 16 such the sink stops trying instead of stalling the monitor. */
static void stuck_transmitter(void **state)
{
	(void)state;
	struct model16550 m = { .present = true };
	struct uart16550 u;
	attach(&u, &m);
	assert_null(uart16550_open(&u, 115200));
	m.thre_stuck = true;
	for (int i = 0; i < 40; i++)
		uart16550_putc(&u, 'x');
	assert_int_equal(m.ntx, 0);
	assert_int_equal(u.tx.timeouts, UART_TX_GIVE_UP);
	assert_true(u.tx.dead);
	assert_int_equal(u.err, UART_ERR_TX_STUCK);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(programs_and_restores),
		cmocka_unit_test(keeps_firmware_baud),
		cmocka_unit_test(fifo_control_put_back),
		cmocka_unit_test(absent_uart),
		cmocka_unit_test(bad_baud),
		cmocka_unit_test(stuck_transmitter),
	};
	return cmocka_run_group_tests_name("uart16550", tests, setup, NULL);
}
