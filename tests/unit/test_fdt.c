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

/* ---- a small writer of flattened trees ---- */
static uint8_t st[8192], strs[2048], blob[16384];
static size_t nst, nstrs;

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24), p[1] = (uint8_t)(v >> 16), p[2] = (uint8_t)(v >> 8), p[3] = (uint8_t)v;
}

static void tok(uint32_t v)
{
	put32(st + nst, v);
	nst += 4;
}

static void begin(const char *name)
{
	tok(1);
	size_t n = strlen(name) + 1;
	memcpy(st + nst, name, n);
	nst += (n + 3) & ~(size_t)3;
}

static void end(void)
{
	tok(2);
}

static uint32_t name_off(const char *name)
{
	for (size_t i = 0; i < nstrs; i += strlen((char *)strs + i) + 1)
		if (strcmp((char *)strs + i, name) == 0)
			return (uint32_t)i;
	size_t at = nstrs;
	memcpy(strs + at, name, strlen(name) + 1);
	nstrs += strlen(name) + 1;
	return (uint32_t)at;
}

static void prop(const char *name, const void *val, uint32_t len)
{
	tok(3);
	tok(len);
	tok(name_off(name));
	memcpy(st + nst, val, len);
	memset(st + nst + len, 0, ((len + 3) & ~3u) - len);
	nst += (len + 3) & ~3u;
}

static void prop_cells(const char *name, const uint32_t *c, size_t n)
{
	uint8_t v[64];
	for (size_t i = 0; i < n; i++)
		put32(v + 4 * i, c[i]);
	prop(name, v, (uint32_t)(4 * n));
}

#define CELLS(name, ...)                                        \
	do {                                                    \
		const uint32_t c_[] = { __VA_ARGS__ };          \
		prop_cells(name, c_, sizeof(c_) / sizeof(*c_)); \
	} while (0)

static void prop_str(const char *name, const char *s)
{
	prop(name, s, (uint32_t)strlen(s) + 1);
}

/* The header, an empty reservation block, the blocks: the blob's length. */
static size_t finish(void)
{
	tok(9);
	size_t rsv = 40, stoff = rsv + 16, stroff = stoff + nst, total = stroff + nstrs;
	memset(blob, 0, sizeof(blob));
	put32(blob, FDT_MAGIC);
	put32(blob + 4, (uint32_t)total);
	put32(blob + 8, (uint32_t)stoff);
	put32(blob + 12, (uint32_t)stroff);
	put32(blob + 16, (uint32_t)rsv);
	put32(blob + 20, 17);
	put32(blob + 24, 16);
	put32(blob + 32, (uint32_t)nstrs);
	put32(blob + 36, (uint32_t)nst);
	memcpy(blob + stoff, st, nst);
	memcpy(blob + stroff, strs, nstrs);
	return total;
}

/* QEMU's riscv64 virt, as its tree names things. */
static size_t virt_tree(void)
{
	nst = nstrs = 0;
	begin("");
	CELLS("#address-cells", 2);
	CELLS("#size-cells", 2);
	prop_str("compatible", "riscv-virtio");
	begin("chosen");
	prop_str("stdout-path", "/soc/serial@10000000");
	end();
	begin("memory@80000000");
	prop_str("device_type", "memory");
	CELLS("reg", 0, 0x80000000u, 0, 0x10000000u);
	end();
	begin("cpus");
	CELLS("#address-cells", 1);
	CELLS("#size-cells", 0);
	CELLS("timebase-frequency", 10000000);
	begin("cpu@0");
	CELLS("reg", 0);
	prop_str("riscv,isa", "rv64imafdch_zicbom_zicboz_zicntr");
	CELLS("riscv,cbom-block-size", 64);
	end();
	end();
	begin("soc");
	CELLS("#address-cells", 2);
	CELLS("#size-cells", 2);
	begin("test@100000");
	const char test[] = "sifive,test1\0sifive,test0\0syscon";
	prop("compatible", test, sizeof(test));
	CELLS("reg", 0, 0x100000u, 0, 0x1000);
	end();
	begin("serial@10000000");
	prop_str("compatible", "ns16550a");
	CELLS("reg", 0, 0x10000000u, 0, 0x100);
	CELLS("clock-frequency", 3686400);
	end();
	begin("iommu@3010000");
	const char compat[] = "qemu,riscv-iommu\0riscv,iommu";
	prop("compatible", compat, sizeof(compat));
	CELLS("reg", 0, 0x3010000u, 0, 0x1000);
	CELLS("phandle", 7);
	end();
	begin("pci@30000000");
	prop_str("compatible", "pci-host-ecam-generic");
	prop_str("device_type", "pci");
	CELLS("reg", 0, 0x30000000u, 0, 0x10000000u);
	CELLS("bus-range", 0, 0xff);
	CELLS("iommu-map", 0, 7, 0, 0x10000);
	end();
	end();
	end();
	return finish();
}

static void reads_qemu_virt(void **state)
{
	(void)state;
	size_t len = virt_tree();
	struct fdt f;
	assert_int_equal(fdt_parse(blob, len, &f), 0);
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
	nst = nstrs = 0;
	begin("");
	CELLS("#address-cells", 1);
	CELLS("#size-cells", 1);
	begin("memory@40000000");
	prop_str("device_type", "memory");
	CELLS("reg", 0x40000000u, 0x8000000, 0x50000000u, 0x1000000);
	end();
	begin("pcie@20000000");
	prop_str("compatible", "pci-host-ecam-generic");
	CELLS("reg", 0x20000000u, 0x100000);
	CELLS("bus-range", 5, 2);
	CELLS("iommu-map", 0, 99, 0, 0x100);
	end();
	end();
	size_t len = finish();
	struct fdt f;
	assert_int_equal(fdt_parse(blob, len, &f), 0);
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
	nst = nstrs = 0;
	begin("");
	begin("cpus");
	CELLS("#address-cells", 1);
	CELLS("#size-cells", 0);
	begin("cpu@0");
	if (isa)
		prop_str("riscv,isa", isa);
	if (ext) {
		char list[64];
		size_t n = strlen(ext) + 1;
		memcpy(list, ext, n);
		memcpy(list + n, "zicntr", 7);
		prop("riscv,isa-extensions", list, (uint32_t)(n + 7));
	}
	if (block >= 0)
		CELLS("riscv,cbom-block-size", (uint32_t)block);
	end();
	end();
	end();
	return finish();
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
		assert_int_equal(fdt_parse(blob, len, &f), 0);
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
	static uint8_t b[sizeof(blob)];
	refused(blob, 39, "shorter than the 40-byte header");
	memcpy(b, blob, len), put32(b, 0xd00dfeee);
	refused(b, len, "not a flattened device tree");
	refused(blob, len - 1, "totalsize");
	memcpy(b, blob, len), put32(b + 20, 15), put32(b + 24, 15);
	refused(b, len, "only 16 and 17");
	memcpy(b, blob, len), put32(b + 8, (uint32_t)len); /* structure block past the end */
	refused(b, len, "structure block");
	memcpy(b, blob, len), put32(b + 8, 57);
	refused(b, len, "unaligned");
	memcpy(b, blob, len), put32(b + 32, (uint32_t)len);
	refused(b, len, "strings block");
	/* a property naming a strings offset past its block */
	nst = nstrs = 0;
	begin("");
	prop_str("model", "x");
	end();
	len = finish();
	memcpy(b, blob, len);
	put32(b + 56 + 8 + 8, 4096); /* BEGIN_NODE, "" padded, PROP, len, nameoff */
	refused(b, len, "outside the block");
	/* a property running off the structure block */
	memcpy(b, blob, len), put32(b + 56 + 8 + 4, 4096);
	refused(b, len, "run off the structure block");
	/* an END_NODE too many, a node never closed, no END, an unknown token */
	nst = nstrs = 0;
	begin("");
	end();
	end();
	refused(blob, finish(), "closes no node");
	nst = nstrs = 0;
	begin("");
	begin("a");
	end();
	refused(blob, finish(), "still open");
	nst = nstrs = 0;
	begin("");
	end();
	tok(7);
	refused(blob, finish(), "unknown token 0x7");
	nst = nstrs = 0;
	begin("");
	end();
	len = finish();
	memcpy(b, blob, len);
	put32(b + 36, 8); /* size_dt_struct cut before END */
	refused(b, len, "without an END token");
	/* a node name without its NUL inside the block */
	nst = nstrs = 0;
	begin("");
	begin("abcdefg");
	end();
	end();
	len = finish();
	memcpy(b, blob, len);
	put32(b + 36, 12); /* the block ends inside "abcdefg" */
	refused(b, len, "runs off the structure block");
	/* a second root */
	nst = nstrs = 0;
	begin("");
	end();
	begin("");
	end();
	refused(blob, finish(), "a second root");
}

/* Cells of zero or past 64 bits: no reg is read (zero cells would make
 * every index match: a walk over the entries would never end). */
static void absurd_cells(void **state)
{
	(void)state;
	const uint32_t widths[][2] = { { 0, 0 }, { 3, 1 }, { 1, 0xffffffffu } };
	for (size_t w = 0; w < 3; w++) {
		nst = nstrs = 0;
		begin("");
		CELLS("#address-cells", widths[w][0]);
		CELLS("#size-cells", widths[w][1]);
		begin("memory@0");
		prop_str("device_type", "memory");
		CELLS("reg", 0, 0x1000, 0, 0x1000);
		end();
		end();
		size_t len = finish();
		struct fdt f;
		assert_int_equal(fdt_parse(blob, len, &f), 0);
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
		static uint8_t b[sizeof(blob)];
		memcpy(b, blob, cut);
		put32(b + 4, (uint32_t)(cut < 40 ? 40 : cut)); /* claim the cut length */
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
