/* Which UART, where and how wired: SPCR's interface types (the 16550
 * kinds, PL011, the SBSA generic UARTs; anything else refused), its GAS
 * (address space, access width), revision 3's clock and revision 4's
 * precise rate, and the forms `set uart` takes, pl011: among them. */
#include "unit.h"

#include "core/serial/uart.h"
#include "core/tables/acpi.h"

static uint8_t buf[128];

/* An SPCR of `rev` and `len` bytes; the checksum is acpi_find's concern. */
static const struct acpi_header *spcr(uint8_t rev, uint32_t len, uint8_t type, struct acpi_gas g, uint8_t baud_code,
				      uint32_t clock, uint32_t precise)
{
	memset(buf, 0, sizeof(buf));
	struct acpi_header *h = (struct acpi_header *)buf;
	memcpy(h->signature, "SPCR", 4);
	h->length = len;
	h->revision = rev;
	buf[36] = type;
	memcpy(buf + 40, &g, sizeof(g));
	buf[58] = baud_code;
	memcpy(buf + 76, &clock, 4);
	memcpy(buf + 80, &precise, 4);
	return h;
}

static const struct acpi_gas mmio32 = {
	.space_id = ACPI_SPACE_MEMORY, .bit_width = 32, .access_size = 3, .address = 0x9000000
};
static const struct acpi_gas io8 = { .space_id = ACPI_SPACE_IO, .bit_width = 8, .access_size = 1, .address = 0x3f8 };

/* QEMU 7.2's virt machine: SPCR revision 2, type 3, the PL011 at
 * 0x09000000, baud code 3 (9600, while its firmware runs the UART at
 * 115200): no clock is given, so the firmware's rate is kept. */
static void pl011_from_spcr(void **state)
{
	(void)state;
	struct acpi_spcr s;
	struct uart_place p;
	const char *why;
	assert_int_equal(acpi_spcr_uart(spcr(2, 80, SPCR_PL011, mmio32, 3, 0, 0), &s, &why), 0);
	assert_int_equal(s.baud, 9600);
	assert_int_equal(s.clock_hz, 0); /* revision 2 has no clock field */
	assert_null(uart_place_from_spcr(&s, false, &p));
	assert_int_equal(p.kind, UART_PL011);
	assert_false(p.sbsa);
	assert_int_equal(p.address, 0x9000000);
	assert_int_equal(p.baud, 0); /* no UARTCLK: kept as the firmware set it */

	/* revision 3 gives the clock: now the rate can be programmed */
	assert_int_equal(acpi_spcr_uart(spcr(3, 88, SPCR_PL011, mmio32, 7, 24000000, 0), &s, &why), 0);
	assert_null(uart_place_from_spcr(&s, false, &p));
	assert_int_equal(p.clock_hz, 24000000);
	assert_int_equal(p.baud, 115200);

	/* revision 4's precise rate overrides the code; revision 3 ignores it */
	assert_int_equal(acpi_spcr_uart(spcr(4, 88, SPCR_PL011, mmio32, 7, 24000000, 1500000), &s, &why), 0);
	assert_int_equal(s.baud, 1500000);
	assert_int_equal(acpi_spcr_uart(spcr(3, 88, SPCR_PL011, mmio32, 7, 24000000, 1500000), &s, &why), 0);
	assert_int_equal(s.baud, 115200);

	/* a table too short for the clock field is read without it */
	assert_int_equal(acpi_spcr_uart(spcr(3, 78, SPCR_PL011, mmio32, 7, 24000000, 0), &s, &why), 0);
	assert_int_equal(s.clock_hz, 0);
}

static void sbsa_generic_uarts(void **state)
{
	(void)state;
	const uint8_t types[] = { SPCR_SBSA_32BIT, SPCR_SBSA_GENERIC };
	for (size_t i = 0; i < sizeof(types); i++) {
		struct acpi_spcr s;
		struct uart_place p;
		const char *why;
		assert_int_equal(acpi_spcr_uart(spcr(3, 88, types[i], mmio32, 7, 24000000, 0), &s, &why), 0);
		assert_null(uart_place_from_spcr(&s, true, &p));
		assert_int_equal(p.kind, UART_PL011);
		assert_true(p.sbsa);
		assert_int_equal(p.baud, 0); /* no divisor: always the firmware's rate */
	}
}

static void the_16550_kinds(void **state)
{
	(void)state;
	struct acpi_spcr s;
	struct uart_place p;
	const char *why;
	/* 0x12: registers 32 bits wide, 4 bytes apart, from the GAS */
	assert_int_equal(acpi_spcr_uart(spcr(2, 80, SPCR_16550_WITH_GAS, mmio32, 7, 0, 0), &s, &why), 0);
	assert_null(uart_place_from_spcr(&s, false, &p));
	assert_int_equal(p.kind, UART_16550);
	assert_int_equal(p.width, 4);
	assert_int_equal(p.stride, 4);
	/* byte registers in I/O space: only where the CPU has port I/O */
	assert_int_equal(acpi_spcr_uart(spcr(2, 80, SPCR_16550, io8, 7, 0, 0), &s, &why), 0);
	assert_null(uart_place_from_spcr(&s, true, &p));
	assert_int_equal(p.space, ACPI_SPACE_IO);
	assert_int_equal(p.width, 1);
	assert_int_equal(p.stride, 1);
	assert_int_equal(p.baud, 115200);
	assert_non_null(uart_place_from_spcr(&s, false, &p)); /* aarch64 */
	/* 16450, 16-bit access: refused */
	struct acpi_gas word = mmio32;
	word.access_size = 2;
	assert_int_equal(acpi_spcr_uart(spcr(2, 80, SPCR_16450, word, 7, 0, 0), &s, &why), 0);
	assert_non_null(uart_place_from_spcr(&s, true, &p));
	/* a PL011 in I/O space is not one */
	assert_int_equal(acpi_spcr_uart(spcr(2, 80, SPCR_PL011, io8, 7, 0, 0), &s, &why), 0);
	assert_non_null(uart_place_from_spcr(&s, true, &p));
}

static void other_types_refused(void **state)
{
	(void)state;
	struct acpi_spcr s;
	const char *why = NULL;
	const uint8_t others[] = { 0x02, 0x0f, 0x10, 0x14, 0x15, 0x7f };
	for (size_t i = 0; i < sizeof(others); i++) {
		assert_int_equal(acpi_spcr_uart(spcr(2, 80, others[i], mmio32, 7, 0, 0), &s, &why), -1);
		assert_int_equal(s.interface_type, others[i]);
	}
	assert_non_null(acpi_spcr_type_name(0x0f));
	assert_null(acpi_spcr_type_name(0x7f));
	struct acpi_gas none = mmio32;
	none.address = 0; /* console redirection disabled */
	assert_int_equal(acpi_spcr_uart(spcr(2, 80, SPCR_PL011, none, 7, 0, 0), &s, &why), -1);
	assert_int_equal(acpi_spcr_uart(spcr(2, 50, SPCR_PL011, mmio32, 7, 0, 0), &s, &why), -1);
}

static void setting_forms(void **state)
{
	(void)state;
	struct uart_place p;
	assert_null(uart_place_from_setting("pl011:0x9000000", false, &p));
	assert_int_equal(p.kind, UART_PL011);
	assert_int_equal(p.address, 0x9000000);
	assert_int_equal(p.baud, 0);
	assert_null(uart_place_from_setting("pl011:0x9000000,115200,24000000", false, &p));
	assert_int_equal(p.baud, 115200);
	assert_int_equal(p.clock_hz, 24000000);
	assert_non_null(uart_place_from_setting("pl011:0x9000000,115200", false, &p));		 /* no UARTCLK */
	assert_non_null(uart_place_from_setting("pl011:0x9000002", false, &p));			 /* unaligned */
	assert_non_null(uart_place_from_setting("pl011:0x9000000,2000000,24000000", false, &p)); /* > clock/16 */
	assert_non_null(uart_place_from_setting("pl011:0x9000000,115200,24000000,1", false, &p));
	assert_non_null(uart_place_from_setting("pl011:", false, &p));
	assert_non_null(uart_place_from_setting("mmio:0x1000,115200,5", true, &p)); /* a 16550 has no clock field */
	assert_null(uart_place_from_setting("mmio32:0xfedc9000,57600", true, &p));
	assert_int_equal(p.kind, UART_16550);
	assert_int_equal(p.width, 4);
	assert_null(uart_place_from_setting("io:0x3f8", true, &p));
	assert_int_equal(p.baud, 115200);
	assert_non_null(uart_place_from_setting("io:0x3f8", false, &p)); /* no port I/O on this CPU */
	assert_null(uart_place_from_setting("mmio:0x1000", true, NULL)); /* the form alone */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(pl011_from_spcr), cmocka_unit_test(sbsa_generic_uarts),
		cmocka_unit_test(the_16550_kinds), cmocka_unit_test(other_types_refused),
		cmocka_unit_test(setting_forms),
	};
	return cmocka_run_group_tests_name("uart_place", tests, NULL, NULL);
}
