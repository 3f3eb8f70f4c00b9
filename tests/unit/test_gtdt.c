/* The GTDT parser: QEMU virt's table (revision 2, timers at INTIDs 29, 30,
 * 27, 26, no memory-mapped counter, no platform timers), a revision 3
 * table with a GT block and a watchdog, and each check on a broken one. */
#include "unit.h"

#include "core/tables/gtdt.h"
#include "table_bytes.h"

static void fixed(uint8_t revision, uint32_t nplatform, uint32_t platform_at)
{
	memset(t, 0, sizeof(t));
	memcpy(t, "GTDT", 4);
	t[8] = revision;
	tl = 36;
	put64(GTDT_NO_ADDRESS), put32(0);
	put32(29), put32(0), put32(30), put32(GTDT_ALWAYS_ON), put32(27), put32(0), put32(26), put32(0);
	put64(GTDT_NO_ADDRESS), put32(nplatform), put32(platform_at);
}

static void build_qemu(void)
{
	fixed(2, 0, 0);
	seal();
}

/* revision 3 (virtual EL2 timer 28), a GT block with frames 0 and 1, an
 * SBSA watchdog */
static void build_platform(void)
{
	fixed(3, 2, 104);
	put32(28), put32(0);
	put8(0), put16(20 + 80), put8(0), put64(0x2a810000), put32(2), put32(20);
	put8(0), put8(0), put16(0), put64(0x2a820000), put64(GTDT_NO_ADDRESS), put32(90), put32(0), put32(91), put32(0),
	    put32(GTDT_FRAME_ALWAYS_ON);
	put8(1), put8(0), put16(0), put64(0x2a830000), put64(GTDT_NO_ADDRESS), put32(92), put32(0), put32(93), put32(0),
	    put32(GTDT_FRAME_SECURE);
	put8(1), put16(28), put8(0), put64(0x2a440000), put64(0x2a450000), put32(94), put32(GTDT_IRQ_EDGE);
	seal();
}

static void qemu_virt(void **state)
{
	(void)state;
	build_qemu();
	struct gtdt g;
	assert_int_equal(gtdt_parse(t, tl, &g), 0);
	assert_int_equal(g.diag.errors + g.diag.warnings, 0);
	assert_int_equal(g.revision, 2);
	assert_int_equal(g.cnt_control_base, GTDT_NO_ADDRESS);
	assert_int_equal(g.timer[GTDT_NONSECURE_EL1].gsiv, 30);
	assert_int_equal(g.timer[GTDT_NONSECURE_EL1].flags, GTDT_ALWAYS_ON);
	assert_int_equal(g.timer[GTDT_VIRTUAL_EL1].gsiv, 27);
	assert_false(g.have_virtual_el2);
	assert_int_equal(g.nplatform, 0);
}

static void platform_timers(void **state)
{
	(void)state;
	build_platform();
	struct gtdt g;
	gtdt_parse(t, tl, &g);
	assert_int_equal(g.diag.errors + g.diag.warnings, 0);
	assert_true(g.have_virtual_el2);
	assert_int_equal(g.timer[GTDT_VIRTUAL_EL2].gsiv, 28);
	assert_int_equal(g.nplatform, 2);
	assert_int_equal(g.platform[0].base, 0x2a810000);
	assert_int_equal(g.platform[0].nframes, 2);
	assert_int_equal(g.platform[0].frame[1].cntbase, 0x2a830000);
	assert_int_equal(g.platform[0].frame[1].virtual.gsiv, 93);
	assert_int_equal(g.platform[1].type, 1);
	assert_int_equal(g.platform[1].control, 0x2a450000);
	assert_int_equal(g.platform[1].irq.gsiv, 94);
}

static unsigned errors_after(void (*build)(void), size_t off, const void *v, size_t n, bool reseal)
{
	build();
	memcpy(t + off, v, n);
	if (reseal)
		seal();
	struct gtdt g;
	gtdt_parse(t, tl, &g);
	return g.diag.errors;
}

static void broken(void **state)
{
	(void)state;
	struct gtdt g;
	build_qemu();
	assert_int_equal(gtdt_parse(t, 95, &g), -1);
	assert_true(errors_after(build_qemu, 0, "GTDX", 4, true) > 0);
	assert_true(errors_after(build_qemu, 9, "\x01", 1, false) > 0);				/* checksum */
	assert_true(errors_after(build_qemu, 4, &(uint32_t){ 200 }, 4, false) > 0);		/* length */
	assert_true(errors_after(build_qemu, 56, &(uint32_t){ 40 }, 4, true) > 0);		/* NS EL1 not a PPI */
	assert_true(errors_after(build_qemu, 64, &(uint32_t){ 0 }, 4, true) > 0);		/* no virtual timer */
	assert_true(errors_after(build_qemu, 8, "\x03", 1, true) > 0);				/* rev 3 in 96 bytes */
	assert_true(errors_after(build_qemu, 88, &(uint32_t){ 1 }, 4, true) > 0);		/* a timer not there */
	assert_true(errors_after(build_platform, 104 + 12, &(uint32_t){ 9 }, 4, true) > 0);	/* 9 frames */
	assert_true(errors_after(build_platform, 104 + 20 + 40, "\x00", 1, true) > 0);		/* frame 0 twice */
	assert_true(errors_after(build_platform, 104 + 20 + 4, &(uint64_t){ 0 }, 8, true) > 0); /* CntBase 0 */
	assert_true(errors_after(build_platform, 104 + 4, &(uint64_t){ 0 }, 8, true) > 0);	/* CntCtlBase 0 */
	assert_true(errors_after(build_platform, 204 + 12, &(uint64_t){ 0 }, 8, true) > 0);	/* watchdog */
	assert_true(errors_after(build_platform, 204 + 1, &(uint16_t){ 20 }, 2, true) > 0);	/* short */
	assert_true(errors_after(build_platform, 92, &(uint32_t){ 40 }, 4, true) > 0); /* over the fixed part */
	assert_true(errors_after(build_platform, 92, &(uint32_t){ 96 }, 4, true) > 0); /* over virtual EL2 */
	/* platform timers said to start at 0x60, over a revision 3 table's
	 * virtual EL2 fields, which here happen to read as a whole watchdog
	 * (GSIV 0x1c01: type 1, length 28) with non-zero frames: only the
	 * offset check can see it */
	build_platform();
	memcpy(t + 96, &(uint32_t){ 0x1c01 }, 4);
	memcpy(t + 88, &(uint32_t){ 1 }, 4);
	memcpy(t + 92, &(uint32_t){ 96 }, 4);
	seal();
	gtdt_parse(t, tl, &g);
	assert_int_equal(g.diag.errors, 1);
	/* a GT block of 9 frames, all there: refused whole (there are 8 slots) */
	fixed(3, 1, 104);
	put32(28), put32(0);
	put8(0), put16(20 + 9 * 40), put8(0), put64(0x2a810000), put32(9), put32(20);
	for (unsigned i = 0; i < 9; i++)
		put8((uint8_t)i), put8(0), put16(0), put64(0x2a820000 + 0x10000 * i), put64(GTDT_NO_ADDRESS), put32(90),
		    put32(0), put32(91), put32(0), put32(0);
	seal();
	gtdt_parse(t, tl, &g);
	assert_true(g.diag.errors > 0);
	assert_int_equal(g.nplatform, 1);
	assert_int_equal(g.platform[0].nframes, 0);
	build_qemu(), t[8] = 1, seal(); /* a revision before ACPI 5.1's */
	gtdt_parse(t, tl, &g);
	assert_int_equal(g.diag.errors, 0);
	assert_int_equal(g.diag.warnings, 1);
	/* a platform timer type from a later ACPI: skipped with a warning */
	build_platform();
	t[204] = 7;
	seal();
	gtdt_parse(t, tl, &g);
	assert_int_equal(g.diag.errors, 0);
	assert_int_equal(g.diag.warnings, 1);
	assert_int_equal(g.nplatform, 1);
}

static void truncated_everywhere(void **state)
{
	(void)state;
	build_platform();
	size_t full = tl;
	uint8_t whole[512];
	memcpy(whole, t, full);
	for (size_t cut = 0; cut < full; cut++) {
		uint8_t *copy = cut_copy(whole, cut);
		struct gtdt g;
		gtdt_parse(copy, cut, &g);
		assert_true(g.diag.errors > 0);
		free(copy);
	}
}

static void print_decode(void *arg)
{
	gtdt_print(arg);
}

static void decode_printed(void **state)
{
	(void)state;
	build_platform();
	struct gtdt g;
	gtdt_parse(t, tl, &g);
	const char *out = capture_stdout(print_decode, &g);
	assert_non_null(strstr(out, "CntControlBase: not provided"));
	assert_non_null(strstr(out, "frame 1 CntBase 0x2a830000"));
	assert_non_null(strstr(out, "watchdog at 0x0cc"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(qemu_virt),	  cmocka_unit_test(platform_timers),
		cmocka_unit_test(broken),	  cmocka_unit_test(truncated_everywhere),
		cmocka_unit_test(decode_printed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
