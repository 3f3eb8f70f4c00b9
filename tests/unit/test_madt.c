/* The MADT parser on iasl-compiled fixtures (tests/unit/data/madt: QEMU
 * q35's table and iasl's template) and on tables built byte by byte to be
 * wrong in one way each. */
#include "core/tables/madt.h"
#include "table_bytes.h"
#include "unit.h"

static char data_dir[512] = "tests/unit/data";

static size_t load(const char *name, uint8_t *buf, size_t cap)
{
	char path[600];
	snprintf(path, sizeof(path), "%s/madt/%s", data_dir, name);
	FILE *f = fopen(path, "rb");
	if (!f)
		fail_msg("no fixture %s", path);
	size_t n = fread(buf, 1, cap, f);
	fclose(f);
	return n;
}

static void qemu_q35(void **state)
{
	(void)state;
	static uint8_t buf[4096];
	size_t n = load("qemu-q35.bin", buf, sizeof(buf));
	struct madt m;
	assert_int_equal(madt_parse(buf, n, &m), 0);
	assert_int_equal(m.diag.errors + m.diag.warnings, 0);
	assert_int_equal(m.lapic_address, 0xfee00000);
	assert_int_equal(m.nioapics, 1);
	assert_int_equal(m.ioapic[0].id, 0);
	assert_int_equal(m.ioapic[0].address, 0xfec00000);
	assert_int_equal(m.ioapic[0].gsi_base, 0);
	assert_int_equal(m.nisos, 5);
	assert_int_equal(m.iso[0].source, 0);
	assert_int_equal(m.iso[0].gsi, 2);
	assert_int_equal(m.iso[2].source, 9);
	assert_int_equal(m.iso[2].flags, 0xd);
	unsigned pins[1] = { 24 };
	assert_int_equal(madt_check_ranges(&m, pins), 0);
	assert_int_equal(madt_ioapic_of(&m, pins, 23), 0);
	assert_int_equal(madt_ioapic_of(&m, pins, 24), -1);
	/* every cut short of the whole table is named, never read past */
	for (size_t cut = 0; cut < n; cut++) {
		uint8_t *c = malloc(cut ? cut : 1);
		memcpy(c, buf, cut);
		madt_parse(c, cut, &m);
		assert_true(m.diag.errors > 0);
		free(c);
	}
}

/* iasl's template leaves the I/O APIC's address 0, the GIC distributor's
 * base 0 and a redistributor range of base 0 and length 0: each named */
static void template(void **state)
{
	(void)state;
	static uint8_t buf[4096];
	size_t n = load("template.bin", buf, sizeof(buf));
	struct madt m;
	assert_int_equal(madt_parse(buf, n, &m), 0);
	assert_int_equal(m.nioapics, 1);
	assert_int_equal(m.ioapic[0].id, 1);
	assert_int_equal(m.diag.errors, 3);
	assert_non_null(strstr(m.diag.msg[0].text, "address 0"));
	assert_non_null(strstr(m.diag.msg[1].text, "GICD at 0x"));
	assert_non_null(strstr(m.diag.msg[2].text, "GICR range at 0x"));
	assert_true(m.gic.has_gicd);
	assert_int_equal(m.gic.ngicc, 1);
	madt_free(&m);
}

static void header(void)
{
	tl = 0;
	put("APIC", 4);
	put32(0);
	put8(5), put8(0);
	put("OEMID ", 6), put("TABLEID ", 8);
	put32(1), put("TEST", 4), put32(1);
	put32(0xfee00000), put32(1);
}

static void ioapic(uint8_t id, uint32_t addr, uint32_t gsi)
{
	put8(MADT_IOAPIC), put8(12), put8(id), put8(0), put32(addr), put32(gsi);
}

static void overlapping_ranges(void **state)
{
	(void)state;
	header();
	ioapic(0, 0xfec00000, 0);
	ioapic(1, 0xfec01000, 16); /* 0's 24 pins reach GSI 23 */
	seal();
	struct madt m;
	assert_int_equal(madt_parse(t, tl, &m), 0);
	assert_int_equal(m.diag.errors, 0);
	unsigned pins[2] = { 24, 24 };
	assert_int_equal(madt_check_ranges(&m, pins), 1);
	assert_int_equal(m.diag.errors, 1);
	pins[0] = 16; /* 0-15 and 16-39 meet, no more */
	madt_parse(t, tl, &m);
	assert_int_equal(madt_check_ranges(&m, pins), 0);
	assert_int_equal(madt_ioapic_of(&m, pins, 16), 1);
}

static void bad_structures(void **state)
{
	(void)state;
	struct madt m;
	/* an I/O APIC of the wrong length: named, not read */
	header();
	put8(MADT_IOAPIC), put8(10), put8(0), put8(0), put32(0xfec00000), put16(0);
	seal();
	madt_parse(t, tl, &m);
	assert_int_equal(m.nioapics, 0);
	assert_int_equal(m.diag.errors, 1);
	/* a length running past the table stops the walk */
	header();
	ioapic(0, 0xfec00000, 0);
	put8(MADT_ISO), put8(40), put16(0);
	seal();
	madt_parse(t, tl, &m);
	assert_int_equal(m.nioapics, 1);
	assert_int_equal(m.nisos, 0);
	assert_int_equal(m.diag.errors, 1);
	/* a zero length would loop forever */
	header();
	put8(0x7f), put8(0);
	ioapic(0, 0xfec00000, 0);
	seal();
	madt_parse(t, tl, &m);
	assert_int_equal(m.diag.errors, 1);
	/* the same id twice; a bad checksum; a length field past the bytes */
	header();
	ioapic(2, 0xfec00000, 0);
	ioapic(2, 0xfec01000, 24);
	seal();
	madt_parse(t, tl, &m);
	assert_int_equal(m.diag.errors, 1);
	t[9]++;
	madt_parse(t, tl, &m);
	assert_int_equal(m.diag.errors, 2);
	assert_int_equal(madt_parse(t, 20, &m), -1);
}

int main(int argc, char **argv)
{
	(void)argc;
	/* the fixtures from the top of the tree, or from the binary's place (build/host/unit/) */
	const char *slash = strrchr(argv[0], '/');
	if (access("tests/unit/data/madt", R_OK) != 0 && slash)
		snprintf(data_dir, sizeof(data_dir), "%.*s/../../../tests/unit/data", (int)(slash - argv[0]), argv[0]);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(qemu_q35),
		cmocka_unit_test(template),
		cmocka_unit_test(overlapping_ranges),
		cmocka_unit_test(bad_structures),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
