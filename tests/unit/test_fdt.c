/* The device-tree parser (core/tables/fdt.c, fdt_platform.c) on blobs
 * built here as QEMU's riscv64 `virt` lays its tree out (memory, /cpus'
 * timebase, a 16550 named by /chosen, the generic ECAM host with an
 * iommu-map, a RISC-V IOMMU), and on broken ones: every header field out
 * of bounds, names and properties running off their blocks, nesting that
 * does not close, unknown tokens. A broken blob is refused with a named
 * problem, never read past its end. */
#include "unit.h"

#include <string.h>

#include "core/tables/fdt.h"
#include "fdt_build.h"

static size_t virt_tree(void)
{
	return fdtb_virt(NULL);
}

static void reads_qemu_virt(void **state)
{
	(void)state;
	size_t len = virt_tree();
	struct fdt f;
	assert_int_equal(fdt_parse(fdtb_blob, len, &f), 0);
	assert_int_equal(f.diag.errors, 0);
	assert_int_equal(f.version, 17);
	assert_int_equal(fdt_path(&f, "/soc/serial@10000000"), fdt_compatible(&f, -1, "ns16550a"));
	assert_true(fdt_path(&f, "/cpus") > 0);
	assert_int_equal(fdt_path(&f, "/nowhere"), -1);
	struct fdt_platform p;
	fdt_platform_read(&f, &p);
	assert_int_equal(f.diag.warnings, 0);
	assert_int_equal(p.nmemory, 1);
	assert_int_equal(p.memory[0].base, 0x80000000u);
	assert_int_equal(p.memory[0].size, 0x10000000u);
	assert_int_equal(p.timebase_hz, 10000000);
	assert_int_equal(p.cbom_block, 64);
	assert_int_equal(p.test_finisher, 0x100000u);
	assert_true(p.uart.found && p.uart.chosen);
	assert_int_equal(p.uart.base, 0x10000000u);
	assert_int_equal(p.uart.clock_hz, 3686400);
	assert_int_equal(p.niommus, 1);
	assert_false(p.iommu[0].pci);
	assert_int_equal(p.iommu[0].base, 0x3010000u);
	assert_int_equal(p.iommu[0].phandle, 7);
	assert_int_equal(fdt_phandle(&f, 7), p.iommu[0].node);
	assert_true(p.ecam.found);
	assert_int_equal(p.ecam.base, 0x30000000u);
	assert_int_equal(p.ecam.bus_end, 255);
	assert_int_equal(p.nmap, 1);
	assert_int_equal(p.map[0].iommu, 0);
	assert_int_equal(p.map[0].len, 0x10000);
	fdt_free(&f);
}

/* One-cell addresses inherited from the parent; a map naming no IOMMU and
 * an absurd bus range said, not used. */
static void cells_and_warnings(void **state)
{
	(void)state;
	fdtb_reset();
	fdtb_begin("");
	FDTB_CELLS("#address-cells", 1);
	FDTB_CELLS("#size-cells", 1);
	fdtb_begin("memory@40000000");
	fdtb_str("device_type", "memory");
	FDTB_CELLS("reg", 0x40000000u, 0x8000000, 0x50000000u, 0x1000000);
	fdtb_end();
	fdtb_begin("pcie@20000000");
	fdtb_str("compatible", "pci-host-ecam-generic");
	FDTB_CELLS("reg", 0x20000000u, 0x100000);
	FDTB_CELLS("bus-range", 5, 2);
	FDTB_CELLS("iommu-map", 0, 99, 0, 0x100);
	fdtb_end();
	fdtb_end();
	size_t len = fdtb_finish();
	struct fdt f;
	assert_int_equal(fdt_parse(fdtb_blob, len, &f), 0);
	struct fdt_platform p;
	fdt_platform_read(&f, &p);
	assert_int_equal(p.nmemory, 2);
	assert_int_equal(p.memory[1].base, 0x50000000u);
	assert_int_equal(p.ecam.bus_start, 0);
	assert_int_equal(p.ecam.bus_end, 255);
	assert_int_equal(p.map[0].iommu, -1);
	assert_int_equal(p.timebase_hz, 0);
	assert_int_equal(p.cbom_block, 0);
	assert_int_equal(p.test_finisher, 0);
	assert_false(p.uart.found);
	assert_true(f.diag.warnings >= 3); /* bus-range, a short window, the phandle */
	fdt_free(&f);
}

/* Zicbom is used only with a block size that is a power of two, from
 * either ISA form; one named without a usable size is said, not used; an
 * ISA string without zicbom gives none, whatever the size says. */
static size_t hart(const char *isa, const char *ext, int block)
{
	fdtb_reset();
	fdtb_begin("");
	fdtb_begin("cpus");
	FDTB_CELLS("#address-cells", 1);
	FDTB_CELLS("#size-cells", 0);
	fdtb_begin("cpu@0");
	if (isa)
		fdtb_str("riscv,isa", isa);
	if (ext) {
		char list[64];
		size_t n = strlen(ext) + 1;
		memcpy(list, ext, n);
		memcpy(list + n, "zicntr", 7);
		fdtb_prop("riscv,isa-extensions", list, (uint32_t)(n + 7));
	}
	if (block >= 0)
		FDTB_CELLS("riscv,cbom-block-size", (uint32_t)block);
	fdtb_end();
	fdtb_end();
	fdtb_end();
	return fdtb_finish();
}

static void zicbom_rules(void **state)
{
	(void)state;
	const struct {
		const char *isa, *ext;
		int block;
		unsigned want;
		bool warned;
	} cases[] = {
		{ "rv64gc_zicbom", NULL, 64, 64, false },
		{ NULL, "zicbom", 128, 128, false },
		{ "rv64gc_zicbom", NULL, -1, 0, true },
		{ "rv64gc_zicbom", NULL, 48, 0, true },
		{ "rv64gc_zicboz", NULL, 64, 0, false },
		{ "rv64gc", "zicboz", 64, 0, false },
		{ "rv64gc_zicbomx_zicbom_zba", NULL, 32, 32, false },
		{ "rv64gc_zicbomx", NULL, 64, 0, false },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t len = hart(cases[i].isa, cases[i].ext, cases[i].block);
		struct fdt f;
		assert_int_equal(fdt_parse(fdtb_blob, len, &f), 0);
		struct fdt_platform p;
		fdt_platform_read(&f, &p);
		assert_int_equal(p.cbom_block, cases[i].want);
		bool warned = false;
		for (size_t k = 0; k < f.diag.n; k++)
			warned |= strstr(f.diag.msg[k].text, "Zicbom") != NULL;
		assert_int_equal(warned, cases[i].warned);
		fdt_free(&f);
	}
}

static void refused(const uint8_t *b, size_t len, const char *why)
{
	struct fdt f;
	assert_int_equal(fdt_parse(b, len, &f), -1);
	assert_true(f.diag.errors > 0);
	if (!strstr(f.diag.msg[0].text, why))
		fail_msg("'%s' does not say '%s'", f.diag.msg[0].text, why);
	fdt_free(&f);
}

static void broken_blobs_refused(void **state)
{
	(void)state;
	size_t len = virt_tree();
	static uint8_t b[sizeof(fdtb_blob)];
	refused(fdtb_blob, 39, "shorter than the 40-byte header");
	memcpy(b, fdtb_blob, len), fdtb_put32(b, 0xd00dfeee);
	refused(b, len, "not a flattened device tree");
	refused(fdtb_blob, len - 1, "totalsize");
	memcpy(b, fdtb_blob, len), fdtb_put32(b + 20, 15), fdtb_put32(b + 24, 15);
	refused(b, len, "only 16 and 17");
	memcpy(b, fdtb_blob, len), fdtb_put32(b + 8, (uint32_t)len); /* structure block past the end */
	refused(b, len, "structure block");
	memcpy(b, fdtb_blob, len), fdtb_put32(b + 8, 57);
	refused(b, len, "unaligned");
	memcpy(b, fdtb_blob, len), fdtb_put32(b + 32, (uint32_t)len);
	refused(b, len, "strings block");
	/* a property naming a strings offset past its block */
	fdtb_reset();
	fdtb_begin("");
	fdtb_str("model", "x");
	fdtb_end();
	len = fdtb_finish();
	memcpy(b, fdtb_blob, len);
	fdtb_put32(b + 56 + 8 + 8, 4096); /* BEGIN_NODE, "" padded, PROP, len, nameoff */
	refused(b, len, "outside the block");
	/* a property running off the structure block */
	memcpy(b, fdtb_blob, len), fdtb_put32(b + 56 + 8 + 4, 4096);
	refused(b, len, "run off the structure block");
	/* an END_NODE too many, a node never closed, no END, an unknown token */
	fdtb_reset();
	fdtb_begin("");
	fdtb_end();
	fdtb_end();
	refused(fdtb_blob, fdtb_finish(), "closes no node");
	fdtb_reset();
	fdtb_begin("");
	fdtb_begin("a");
	fdtb_end();
	refused(fdtb_blob, fdtb_finish(), "still open");
	fdtb_reset();
	fdtb_begin("");
	fdtb_end();
	fdtb_tok(7);
	refused(fdtb_blob, fdtb_finish(), "unknown token 0x7");
	fdtb_reset();
	fdtb_begin("");
	fdtb_end();
	len = fdtb_finish();
	memcpy(b, fdtb_blob, len);
	fdtb_put32(b + 36, 8); /* size_dt_struct cut before END */
	refused(b, len, "without an END token");
	/* a node name without its NUL inside the block */
	fdtb_reset();
	fdtb_begin("");
	fdtb_begin("abcdefg");
	fdtb_end();
	fdtb_end();
	len = fdtb_finish();
	memcpy(b, fdtb_blob, len);
	fdtb_put32(b + 36, 12); /* the block ends inside "abcdefg" */
	refused(b, len, "runs off the structure block");
	/* a second root */
	fdtb_reset();
	fdtb_begin("");
	fdtb_end();
	fdtb_begin("");
	fdtb_end();
	refused(fdtb_blob, fdtb_finish(), "a second root");
}

/* Cells of zero or past 64 bits: no reg is read (zero cells would make
 * every index match: a walk over the entries would never end). */
static void absurd_cells(void **state)
{
	(void)state;
	const uint32_t widths[][2] = { { 0, 0 }, { 3, 1 }, { 1, 0xffffffffu } };
	for (size_t w = 0; w < 3; w++) {
		fdtb_reset();
		fdtb_begin("");
		FDTB_CELLS("#address-cells", widths[w][0]);
		FDTB_CELLS("#size-cells", widths[w][1]);
		fdtb_begin("memory@0");
		fdtb_str("device_type", "memory");
		FDTB_CELLS("reg", 0, 0x1000, 0, 0x1000);
		fdtb_end();
		fdtb_end();
		size_t len = fdtb_finish();
		struct fdt f;
		assert_int_equal(fdt_parse(fdtb_blob, len, &f), 0);
		uint64_t a, s;
		assert_false(fdt_reg(&f, 1, 0, &a, &s));
		struct fdt_platform p;
		fdt_platform_read(&f, &p); /* returns: the walk over reg entries ends */
		assert_int_equal(p.nmemory, 0);
		fdt_free(&f);
	}
}

/* Every cut of a good tree is refused or read, never read past. */
static void every_truncation(void **state)
{
	(void)state;
	size_t len = virt_tree();
	for (size_t cut = 0; cut < len; cut++) {
		static uint8_t b[sizeof(fdtb_blob)];
		memcpy(b, fdtb_blob, cut);
		fdtb_put32(b + 4, (uint32_t)(cut < 40 ? 40 : cut)); /* claim the cut length */
		struct fdt f;
		fdt_parse(b, cut, &f);
		struct fdt_platform p;
		fdt_platform_read(&f, &p);
		fdt_free(&f);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(reads_qemu_virt),	cmocka_unit_test(cells_and_warnings),
		cmocka_unit_test(broken_blobs_refused), cmocka_unit_test(absurd_cells),
		cmocka_unit_test(every_truncation),	cmocka_unit_test(zicbom_rules),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
