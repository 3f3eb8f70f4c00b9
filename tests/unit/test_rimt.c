/* The RIMT parser on tables built byte by byte: QEMU 10.0 virt's with
 * riscv-iommu-pci (the unit a PCIe function, its own requester id left
 * out of the root complex's two ranges), a platform unit with a platform
 * device, then one broken table per check, each asserting its own problem
 * bit (the valid tables set none, so a test fails when its check is taken
 * out), and every prefix of the valid table. */
#include "unit.h"

#include "rimt_build.h"

#define IOMMU_BDF 0x0008 /* 00:01.0 */
/* where build_qemu() puts its root complex and the two mappings */
#define RC_AT 0x58
#define MAP0 (RC_AT + 20)
#define MAP1 (MAP0 + 20)

/* QEMU 10.0 virt with riscv-iommu-pci: the IOMMU node, then the root
 * complex's ids below and above the unit's own, as counts. */
static uint32_t qemu_iommu;
static void build_qemu(void)
{
	header(2);
	qemu_iommu = iommu(0, true, 0, IOMMU_BDF, 0);
	rc(1, 0, 2);
	map(0, IOMMU_BDF, 0, qemu_iommu);
	map(IOMMU_BDF + 1, 0xffff - IOMMU_BDF, IOMMU_BDF + 1, qemu_iommu);
	seal();
}

static struct rimt parsed;

static void parse(void)
{
	assert_int_equal(rimt_parse(t, tl, &parsed), 0);
}

static void qemu_virt(void **state)
{
	(void)state;
	build_qemu();
	parse();
	assert_int_equal(parsed.problems, 0);
	assert_int_equal(parsed.diag.errors + parsed.diag.warnings, 0);
	assert_int_equal(parsed.niommu, 1);
	assert_int_equal(parsed.nsrc, 1);
	assert_int_equal(parsed.nmap, 2);
	assert_string_equal(parsed.iommu[0].hid, "RSCV0004");
	assert_true(parsed.iommu[0].flags & RIMT_IOMMU_PCIE);
	assert_int_equal(parsed.iommu[0].bdf, IOMMU_BDF);
	assert_int_equal(parsed.src[0].flags, RIMT_RC_ATS);
	size_t u = 99;
	uint32_t dev = 0;
	assert_true(rimt_map_rid(&parsed, 0, 0x0010, &u, &dev)); /* 00:02.0 */
	assert_int_equal(u, 0);
	assert_int_equal(dev, 0x10);
	assert_true(rimt_map_rid(&parsed, 0, 0x0007, &u, &dev));
	assert_int_equal(dev, 7);
	assert_true(rimt_map_rid(&parsed, 0, 0xffff, &u, &dev));
	assert_int_equal(dev, 0xffff);
	assert_false(rimt_map_rid(&parsed, 0, IOMMU_BDF, &u, &dev)); /* the unit's own id, left out as counts say */
	assert_false(rimt_map_rid(&parsed, 1, 0x0010, &u, &dev));    /* no segment 1 */
	rimt_free(&parsed);
}

/* A platform unit at 0x3010000 with two wires, a second segment's root
 * complex shifted by 0x10000 in device ids, and a platform device. */
static void platform_unit(void **state)
{
	(void)state;
	header(4);
	uint32_t a = iommu(0, false, 0x3010000, 0, 2);
	uint32_t b = iommu(1, false, 0x3020000, 0, 0);
	rc(2, 1, 1);
	map(0, 0x10000, 0x10000, b);
	uint32_t dev = node(RIMT_PLATFORM, 12 + 16 + 20, 3);
	put16(28), put16(1);
	put("\\_SB.DMA0\0\0\0\0\0\0\0", 16);
	map(0, 4, 0x200, a);
	seal();
	parse();
	assert_int_equal(parsed.problems, 0);
	assert_int_equal(parsed.niommu, 2);
	assert_int_equal(parsed.iommu[0].base, 0x3010000);
	assert_int_equal(parsed.iommu[0].nwires, 2);
	assert_int_equal(parsed.nsrc, 2);
	assert_string_equal(parsed.src[1].name, "\\_SB.DMA0");
	assert_int_equal(parsed.src[1].offset, dev);
	assert_int_equal(parsed.map[1].iommu, 0);
	size_t u = 99;
	uint32_t id = 0;
	assert_true(rimt_map_rid(&parsed, 1, 0x0100, &u, &id));
	assert_int_equal(u, 1);
	assert_int_equal(id, 0x10100);
	assert_false(rimt_map_rid(&parsed, 0, 0x0100, &u, &id));
	rimt_free(&parsed);
}

/* Parses what the test broke and asserts the problem it names. */
static void expect(enum rimt_problem p)
{
	rimt_parse(t, tl, &parsed);
	if (!rimt_has(&parsed, p))
		fail_msg("expected [%s], got problems 0x%llx", rimt_problem_name(p),
			 (unsigned long long)parsed.problems);
	assert_true(parsed.diag.n > 0);
	rimt_free(&parsed);
}

static void broken_header(void **state)
{
	(void)state;
	build_qemu();
	assert_int_equal(rimt_parse(t, 40, &parsed), -1);
	assert_true(rimt_has(&parsed, RIMT_P_HEADER));
	build_qemu(), memcpy(t, "IORT", 4), fix_checksum(t, tl);
	expect(RIMT_P_HEADER);
	build_qemu(), set32(4, (uint32_t)tl + 1), fix_checksum(t, tl);
	expect(RIMT_P_LENGTH);
	build_qemu(), t[9]++;
	expect(RIMT_P_CHECKSUM);
	build_qemu(), t[8] = 2, fix_checksum(t, tl);
	expect(RIMT_P_REVISION);
	build_qemu(), set32(40, 0x20), fix_checksum(t, tl);
	expect(RIMT_P_NODE_OFFSET);
	build_qemu(), set32(40, (uint32_t)tl + 8), fix_checksum(t, tl);
	expect(RIMT_P_NODE_OFFSET);
}

static void broken_nodes(void **state)
{
	(void)state;
	build_qemu(), set32(36, 3), fix_checksum(t, tl);
	expect(RIMT_P_NODE_COUNT);
	build_qemu(), t[48 + 2] = 0, t[48 + 3] = 0, fix_checksum(t, tl); /* IOMMU node of 0 bytes */
	expect(RIMT_P_NODE_LENGTH);
	build_qemu(), t[48 + 2] = 0xff, t[48 + 3] = 0x0f, fix_checksum(t, tl); /* past the table */
	expect(RIMT_P_NODE_LENGTH);
	build_qemu(), t[48 + 1] = 2, fix_checksum(t, tl);
	expect(RIMT_P_REVISION);
	/* an IOMMU node too short for its fixed part, its room kept */
	header(1), node(RIMT_IOMMU, 32, 0), put("RSCV0004", 8), put64(0x3010000), put64(0), seal();
	expect(RIMT_P_NODE_LENGTH);
	/* stray bytes after the last node */
	build_qemu(), tl += 4, seal();
	expect(RIMT_P_NODE_LENGTH);
	/* an unknown type is skipped, the rest still read */
	header(3), node(9, 12, 0), put32(0);
	uint32_t u = iommu(1, false, 0x3010000, 0, 0);
	rc(2, 0, 1), map(0, 0x10000, 0, u), seal();
	expect(RIMT_P_NODE_TYPE);
	parse();
	assert_int_equal(parsed.niommu, 1);
	assert_int_equal(parsed.nmap, 1);
	assert_int_equal(parsed.map[0].iommu, 0);
}

static void broken_mappings(void **state)
{
	(void)state;
	build_qemu(), set32(MAP0 + 12, RC_AT), fix_checksum(t, tl); /* the root complex's own offset */
	expect(RIMT_P_MAP_TARGET);
	parse();
	size_t u;
	uint32_t dev;
	assert_false(rimt_map_rid(&parsed, 0, 0x0007, &u, &dev)); /* a mapping to no unit takes nobody */
	build_qemu(), set32(MAP0 + 4, 0), fix_checksum(t, tl);
	expect(RIMT_P_MAP_WRAP);
	build_qemu(), set32(MAP1, 0xffffff00), fix_checksum(t, tl);
	expect(RIMT_P_MAP_WRAP);
	build_qemu(), set32(MAP1, 4), fix_checksum(t, tl); /* second range from 4: over the first */
	expect(RIMT_P_MAP_OVERLAP);
	/* ranges that touch, their device ids not continuous: the two
	 * readings of Number of IDs send the shared id apart */
	header(2);
	uint32_t a = iommu(0, false, 0x3010000, 0, 0);
	rc(1, 0, 2), map(0, 0x100, 0, a), map(0x100, 0x100, 0x1000, a), seal();
	expect(RIMT_P_MAP_OFF_BY_ONE);
	/* continuous device ids: the readings agree, nothing said */
	header(2), a = iommu(0, false, 0x3010000, 0, 0);
	rc(1, 0, 2), map(0, 0x100, 0, a), map(0x100, 0x100, 0x100, a), seal();
	parse();
	assert_int_equal(parsed.problems, 0);
	/* the mappings' array past its node, and over its fixed part */
	build_qemu(), t[RC_AT + 18] = 3, fix_checksum(t, tl);
	expect(RIMT_P_MAP_ARRAY);
	build_qemu(), t[RC_AT + 16] = 8, fix_checksum(t, tl);
	expect(RIMT_P_MAP_ARRAY);
	build_qemu(), t[RC_AT + 8] = 0x4, fix_checksum(t, tl); /* a reserved root complex flag */
	expect(RIMT_P_FIELD);
}

static void broken_units(void **state)
{
	(void)state;
	header(1), iommu(0, false, 0x3010800, 0, 0), seal();
	expect(RIMT_P_IOMMU_BASE);
	header(1), iommu(0, false, 0, 0, 0), seal();
	expect(RIMT_P_IOMMU_BASE);
	header(2), iommu(0, false, 0x3010000, 0, 0), iommu(1, false, 0x3010000, 0, 0), seal();
	expect(RIMT_P_IOMMU_DUP);
	header(2), iommu(0, true, 0, 8, 0), iommu(1, true, 0, 8, 0), seal();
	expect(RIMT_P_IOMMU_DUP);
	header(2), iommu(0, true, 0, 8, 0), iommu(1, true, 0, 0x10, 0), seal();
	parse();
	assert_int_equal(parsed.problems, 0);
	header(1), iommu(0, false, 0x3010000, 0, 2), t[48 + 36] = 3, seal(); /* three wires in room for two */
	expect(RIMT_P_WIRE_ARRAY);
	header(1), iommu(0, false, 0x3010000, 0, 0), t[48 + 24] = 0x10, seal(); /* reserved flag */
	expect(RIMT_P_FIELD);
	header(RIMT_MAX_IOMMUS + 1);
	for (unsigned i = 0; i <= RIMT_MAX_IOMMUS; i++)
		iommu((uint16_t)i, false, 0x3010000 + 0x1000ull * i, 0, 0);
	seal();
	expect(RIMT_P_LIMIT);
	/* a platform device's name running into its mappings */
	header(2);
	uint32_t a = iommu(0, false, 0x3010000, 0, 0);
	node(RIMT_PLATFORM, 12 + 4 + 20, 1), put16(16), put16(1), put("DMA0", 4), map(0, 1, 0, a), seal();
	expect(RIMT_P_FIELD);
}

/* Every prefix of the valid table (its length field kept) is refused or
 * read within its bytes, never past them: the fuzz target's promise, here
 * on the cases a person would try first. */
static void truncated_everywhere(void **state)
{
	(void)state;
	build_qemu();
	for (size_t n = 0; n < tl; n++) {
		uint8_t *copy = malloc(n ? n : 1);
		memcpy(copy, t, n);
		int rc = rimt_parse(copy, n, &parsed);
		assert_true(rc == -1 || parsed.problems);
		rimt_free(&parsed);
		free(copy);
	}
}

static void print_decode(void *arg)
{
	rimt_print(arg);
}

static void decode_printed(void **state)
{
	(void)state;
	build_qemu();
	parse();
	const char *out = capture_stdout(print_decode, &parsed);
	assert_non_null(strstr(out, "IOMMU at 0x030 id 0 RSCV0004: PCIe 0000:00:01.0"));
	assert_non_null(strstr(out, "ids 0x9 +65527 -> device ids 0x9 of the IOMMU at 0x30"));
	set32(MAP0 + 12, RC_AT), fix_checksum(t, tl);
	parse();
	out = capture_stdout(print_decode, &parsed);
	assert_non_null(strstr(out, "(no IOMMU)"));
	assert_non_null(strstr(out, "error: RIMT mapping at 0x"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(qemu_virt),
		cmocka_unit_test(platform_unit),
		cmocka_unit_test(broken_header),
		cmocka_unit_test(broken_nodes),
		cmocka_unit_test(broken_mappings),
		cmocka_unit_test(broken_units),
		cmocka_unit_test(truncated_everywhere),
		cmocka_unit_test(decode_printed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
