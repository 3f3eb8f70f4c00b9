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
	assert_string_equal(p.map[0].bad, "phandle 0x63 leads to no node");
	assert_int_equal(p.timebase_hz, 0);
	assert_int_equal(p.cbom_block, 0);
	assert_int_equal(p.test_finisher, 0);
	assert_false(p.uart.found);
	assert_true(f.diag.warnings >= 2); /* bus-range, a short window */
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

/* ---- status (Devicetree Specification v0.4, 2.3.4) ---------------------- */

/* The values that allow a node and those that do not, a value that is no
 * string, and a node under a disabled bus: each said as it is. */
static void status_values(void **state)
{
	(void)state;
	const struct {
		const char *name;
		const void *val;
		uint32_t len;
		const char *why; /* NULL: usable */
	} cases[] = {
		{ "absent", NULL, 0, NULL },
		{ "okay", "okay", 5, NULL },
		{ "ok", "ok", 3, NULL },
		{ "disabled", "disabled", 9, "status \"disabled\"" },
		{ "reserved", "reserved", 9, "status \"reserved\"" },
		{ "fail", "fail", 5, "status \"fail\"" },
		{ "fail-sss", "fail-overheat", 14, "status \"fail-overheat\"" },
		{ "odd", "okayish", 8, "status \"okayish\" (no value the specification names)" },
		{ "bytes", "ok", 2, "status \"ok\" (not a string)" },
		{ "empty", "", 0, "status \"\" (not a string)" },
	};
	size_t n = sizeof(cases) / sizeof(cases[0]);
	fdtb_reset();
	fdtb_begin("");
	for (size_t i = 0; i < n; i++) {
		fdtb_begin(cases[i].name);
		if (cases[i].val)
			fdtb_prop("status", cases[i].val, cases[i].len);
		fdtb_end();
	}
	fdtb_begin("bus");
	fdtb_str("status", "disabled");
	fdtb_begin("dev@1");
	fdtb_str("status", "okay");
	fdtb_end();
	fdtb_end();
	fdtb_end();
	size_t len = fdtb_finish();
	struct fdt f;
	assert_int_equal(fdt_parse(fdtb_blob, len, &f), 0);
	char why[96];
	for (size_t i = 0; i < n; i++) {
		char path[32];
		snprintf(path, sizeof(path), "/%s", cases[i].name);
		int node = fdt_path(&f, path);
		assert_true(node > 0);
		strcpy(why, "unchanged");
		bool usable = fdt_usable(&f, node, why, sizeof(why));
		if (!cases[i].why) {
			assert_true(usable);
			assert_string_equal(why, "unchanged");
		} else {
			assert_false(usable);
			assert_string_equal(why, cases[i].why);
		}
	}
	int dev = fdt_path(&f, "/bus/dev@1");
	assert_false(fdt_usable(&f, dev, why, sizeof(why)));
	assert_string_equal(why, "under /bus, whose status is \"disabled\"");
	assert_false(fdt_usable(&f, dev, NULL, 0));
	fdt_node_path(&f, dev, why, sizeof(why));
	assert_string_equal(why, "/bus/dev@1");
	fdt_free(&f);
}

static void second_iommu_disabled(void)
{
	fdtb_begin("iommu@9000000");
	fdtb_str("compatible", "riscv,iommu");
	FDTB_CELLS("reg", 0, 0x9000000u, 0, 0x1000);
	FDTB_CELLS("#iommu-cells", 1);
	FDTB_CELLS("phandle", 8);
	fdtb_str("status", "disabled");
	fdtb_end();
}

/* The finding of issue 45: a second riscv,iommu node, disabled, where
 * nothing answers, was read as a unit. It is not, and `fdt` says so once. */
struct printed {
	struct fdt *f;
	struct fdt_platform *p;
};

static void print_it(void *arg)
{
	struct printed *w = arg;
	fdt_platform_print(w->f, w->p);
}

static void disabled_iommu_left_out(void **state)
{
	(void)state;
	size_t len = fdtb_virt(&(struct fdtb_virt){ .soc = second_iommu_disabled });
	struct fdt f;
	assert_int_equal(fdt_parse(fdtb_blob, len, &f), 0);
	struct fdt_platform p;
	fdt_platform_read(&f, &p);
	assert_int_equal(p.niommus, 1);
	assert_int_equal(p.iommu[0].base, 0x3010000u);
	assert_string_equal(p.iommu[0].path, "/soc/iommu@3010000");
	assert_int_equal(p.noff, 1);
	assert_int_equal(p.off[0].kind, FDT_IOMMU);
	assert_int_equal(p.off[0].rid, -1);
	assert_string_equal(p.off[0].path, "/soc/iommu@9000000");
	assert_string_equal(p.off[0].why, "status \"disabled\"");
	const char *out = capture_stdout(print_it, &(struct printed){ &f, &p });
	if (!strstr(out, "  not used   /soc/iommu@9000000 (a RISC-V IOMMU): status \"disabled\"\n"))
		fail_msg("fdt printed:\n%s", out);
	assert_null(strstr(out, "0x9000000\n"));
	fdt_free(&f);
}

/* A second UART and a second ECAM host, usable, a disabled hart beside a
 * usable one, a disabled memory node and interrupt controller. */
static void more_of_each(void)
{
	fdtb_begin("serial@10001000");
	fdtb_str("compatible", "ns16550a");
	FDTB_CELLS("reg", 0, 0x10001000u, 0, 0x100);
	fdtb_end();
	fdtb_begin("pci@40000000");
	fdtb_str("compatible", "pci-host-ecam-generic");
	FDTB_CELLS("reg", 0, 0x40000000u, 0, 0x1000000u);
	FDTB_CELLS("bus-range", 0, 0xf);
	fdtb_str("status", "okay");
	fdtb_end();
	fdtb_begin("plic@c000000");
	fdtb_str("compatible", "riscv,plic0");
	fdtb_prop("interrupt-controller", "", 0);
	FDTB_CELLS("reg", 0, 0xc000000u, 0, 0x600000);
	fdtb_str("status", "disabled");
	fdtb_end();
}

/* Every kind the monitor reads, disabled where virt has it: the UART
 * /chosen names, the first ECAM host, hart 0 (with its own timebase, as
 * the specification allows a hart to have) and the test finisher are
 * passed over for the usable ones, a disabled memory node is not memory;
 * each is listed once, and the interrupt controller, which the monitor
 * never reads, is not. */
static size_t harts_tree(void)
{
	fdtb_reset();
	fdtb_begin("");
	fdtb_begin("cpus");
	FDTB_CELLS("#address-cells", 1);
	FDTB_CELLS("#size-cells", 0);
	fdtb_begin("cpu@0");
	fdtb_str("device_type", "cpu");
	fdtb_str("riscv,isa", "rv64imac_zicbom");
	FDTB_CELLS("riscv,cbom-block-size", 32);
	FDTB_CELLS("timebase-frequency", 1000000);
	fdtb_str("status", "disabled");
	fdtb_end();
	fdtb_begin("cpu@1");
	fdtb_str("device_type", "cpu");
	fdtb_str("riscv,isa", "rv64imafdc_zicbom");
	FDTB_CELLS("riscv,cbom-block-size", 64);
	FDTB_CELLS("timebase-frequency", 10000000);
	fdtb_end();
	fdtb_begin("cpu-map");
	fdtb_end();
	fdtb_end();
	fdtb_end();
	return fdtb_finish();
}

static void disabled_nodes_of_each_kind(void **state)
{
	(void)state;
	size_t len = fdtb_virt(&(struct fdtb_virt){ .memory = "disabled",
						    .finisher = "disabled",
						    .uart = "disabled",
						    .ecam = "disabled",
						    .soc = more_of_each });
	struct fdt f;
	assert_int_equal(fdt_parse(fdtb_blob, len, &f), 0);
	struct fdt_platform p;
	fdt_platform_read(&f, &p);
	assert_true(p.uart.found);
	assert_int_equal(p.uart.base, 0x10001000u);
	assert_false(p.uart.chosen);
	assert_true(p.ecam.found);
	assert_int_equal(p.ecam.base, 0x40000000u);
	assert_int_equal(p.ecam.bus_end, 0xf);
	assert_false(p.has_map); /* the disabled host's map is not the usable one's */
	assert_int_equal(p.nmemory, 0);
	assert_int_equal(p.test_finisher, 0);
	const char *listed[] = { "/memory@80000000", "/soc/test@100000", "/soc/serial@10000000", "/soc/pci@30000000" };
	const enum fdt_kind kinds[] = { FDT_MEMORY, FDT_FINISHER, FDT_UART, FDT_ECAM };
	assert_int_equal(p.noff, 4);
	for (size_t i = 0; i < 4; i++) {
		assert_string_equal(p.off[i].path, listed[i]);
		assert_int_equal(p.off[i].kind, kinds[i]);
	}
	fdt_free(&f);

	len = harts_tree();
	assert_int_equal(fdt_parse(fdtb_blob, len, &f), 0);
	fdt_platform_read(&f, &p);
	assert_int_equal(p.timebase_hz, 10000000);
	assert_int_equal(p.cbom_block, 64);
	assert_int_equal(p.noff, 1);
	assert_string_equal(p.off[0].path, "/cpus/cpu@0");
	assert_int_equal(p.off[0].kind, FDT_CPU);
	fdt_free(&f);
}

static void failed_and_under_a_disabled_bus(void)
{
	fdtb_begin("iommu@9000000");
	fdtb_str("compatible", "riscv,iommu");
	FDTB_CELLS("reg", 0, 0x9000000u, 0, 0x1000);
	fdtb_str("status", "fail");
	fdtb_end();
	fdtb_begin("serial@10002000");
	fdtb_str("compatible", "snps,dw-apb-uart");
	FDTB_CELLS("reg", 0, 0x10002000u, 0, 0x100);
	fdtb_str("status", "fail-sss");
	fdtb_end();
	fdtb_begin("bus@a000000");
	FDTB_CELLS("#address-cells", 2);
	FDTB_CELLS("#size-cells", 2);
	fdtb_str("status", "disabled");
	fdtb_begin("iommu@a000000");
	fdtb_str("compatible", "riscv,iommu");
	FDTB_CELLS("reg", 0, 0xa000000u, 0, 0x1000);
	fdtb_end();
	fdtb_begin("iommu@a001000");
	fdtb_str("compatible", "riscv,iommu");
	FDTB_CELLS("reg", 0, 0xa001000u, 0, 0x1000);
	fdtb_str("status", "reserved");
	fdtb_end();
	fdtb_end();
}

/* "fail", "fail-sss" and "reserved" rule a node out as "disabled" does,
 * and a bus's status its children; the virt UART, named by /chosen and
 * usable, stays the console whatever the others say. */
static void fail_and_disabled_bus(void **state)
{
	(void)state;
	size_t len = fdtb_virt(&(struct fdtb_virt){ .soc = failed_and_under_a_disabled_bus });
	struct fdt f;
	assert_int_equal(fdt_parse(fdtb_blob, len, &f), 0);
	struct fdt_platform p;
	fdt_platform_read(&f, &p);
	assert_int_equal(p.niommus, 1);
	assert_int_equal(p.iommu[0].base, 0x3010000u);
	assert_true(p.uart.chosen);
	assert_int_equal(p.uart.base, 0x10000000u);
	assert_int_equal(p.noff, 4);
	assert_string_equal(p.off[0].why, "status \"fail\"");
	assert_string_equal(p.off[1].why, "status \"fail-sss\"");
	assert_int_equal(p.off[1].kind, FDT_UART);
	assert_string_equal(p.off[2].path, "/soc/bus@a000000/iommu@a000000");
	assert_string_equal(p.off[2].why, "under /soc/bus@a000000, whose status is \"disabled\"");
	assert_string_equal(p.off[3].why, "status \"reserved\"");
	fdt_free(&f);
}

/* ---- iommu-map (pci-iommu.yaml) ----------------------------------------- */

/* Nodes an iommu-map may lead to: a disabled RISC-V IOMMU (phandle 8), a
 * node that is no IOMMU (9), RISC-V IOMMUs without #iommu-cells (10) and
 * with two (11), an IOMMU of another kind (12). */
static void map_targets(void)
{
	second_iommu_disabled();
	fdtb_begin("syscon@1000");
	fdtb_str("compatible", "syscon");
	FDTB_CELLS("reg", 0, 0x1000, 0, 0x1000);
	FDTB_CELLS("phandle", 9);
	fdtb_end();
	fdtb_begin("iommu@a000000");
	fdtb_str("compatible", "riscv,iommu");
	FDTB_CELLS("reg", 0, 0xa000000u, 0, 0x1000);
	FDTB_CELLS("phandle", 10);
	fdtb_end();
	fdtb_begin("iommu@b000000");
	fdtb_str("compatible", "riscv,iommu");
	FDTB_CELLS("reg", 0, 0xb000000u, 0, 0x1000);
	FDTB_CELLS("#iommu-cells", 2);
	FDTB_CELLS("phandle", 11);
	fdtb_end();
	fdtb_begin("smmu@c000000");
	fdtb_str("compatible", "arm,smmu-v3");
	FDTB_CELLS("reg", 0, 0xc000000u, 0, 0x20000);
	FDTB_CELLS("#iommu-cells", 1);
	FDTB_CELLS("phandle", 12);
	fdtb_end();
}

/* Each entry that cannot be followed says why, and only those: the map's
 * first match holds an id, so an entry over ids an earlier one holds is
 * the defect; one leading to another kind of IOMMU is named, not one. */
static void iommu_map_entries(void **state)
{
	(void)state;
	static const uint32_t map[] = {
		0x0000, 7,  0x0000, 0x100, /* 0: good */
		0x0100, 99, 0x0100, 0x100, /* 1: no node */
		0x0200, 8,  0x0200, 0x100, /* 2: disabled */
		0x0300, 9,  0x0300, 0x100, /* 3: no IOMMU */
		0x0400, 10, 0x0400, 0x100, /* 4: no #iommu-cells */
		0x0500, 11, 0x0500, 0x100, /* 5: two cells */
		0x0600, 7,  0x0600, 0,	   /* 6: length 0 */
		0xff00, 7,  0xff00, 0x200, /* 7: past 0xffff */
		0x0080, 7,  0x0080, 0x100, /* 8: over entry 0's */
		0x0700, 12, 0x0700, 0x100, /* 9: an SMMUv3 */
	};
	const char *want[] = {
		"",
		"phandle 0x63 leads to no node",
		"phandle 0x8 leads to /soc/iommu@9000000: status \"disabled\"",
		"phandle 0x9 leads to /soc/syscon@1000 (syscon), not an IOMMU (no #iommu-cells)",
		"/soc/iommu@a000000 has #iommu-cells none: an iommu-map entry gives its IOMMU one specifier cell "
		"(iommu-base)",
		"/soc/iommu@b000000 has #iommu-cells 2: an iommu-map entry gives its IOMMU one specifier cell "
		"(iommu-base)",
		"length 0: it covers no requester id",
		"requester ids 0xff00+0x200 run past 0xffff",
		"requester ids 0x0080-0x017f overlap entry 0's (0x0000-0x00ff)",
		"",
	};
	size_t len = fdtb_virt(&(struct fdtb_virt){ .map = map, .nmap = 40, .soc = map_targets });
	struct fdt f;
	assert_int_equal(fdt_parse(fdtb_blob, len, &f), 0);
	struct fdt_platform p;
	fdt_platform_read(&f, &p);
	assert_true(p.has_map);
	assert_string_equal(p.map_bad, "");
	assert_int_equal(p.nmap, 10);
	for (size_t k = 0; k < 10; k++)
		if (strcmp(p.map[k].bad, want[k]) != 0)
			fail_msg("entry %zu: '%s', not '%s'", k, p.map[k].bad, want[k]);
	assert_int_equal(p.map[0].iommu, 0);
	assert_string_equal(p.map[0].target, "/soc/iommu@3010000");
	assert_int_equal(p.map[9].iommu, -1);
	assert_string_equal(p.map[9].target, "/soc/smmu@c000000 (arm,smmu-v3)");
	const char *out = capture_stdout(print_it, &(struct printed){ &f, &p });
	if (!strstr(out, "  iommu-map  entry 2, requester ids 0x0200+0x100: not used: phandle 0x8 leads to "
			 "/soc/iommu@9000000: status \"disabled\"\n"))
		fail_msg("fdt printed:\n%s", out);
	fdt_free(&f);

	/* the mask: a rid-base with bits it clears, a mask of two cells */
	static const uint32_t one[] = { 0x0001, 7, 0x0001, 0x100 };
	len = fdtb_virt(&(struct fdtb_virt){ .map = one, .nmap = 4, .mask = 0xfff8 });
	assert_int_equal(fdt_parse(fdtb_blob, len, &f), 0);
	fdt_platform_read(&f, &p);
	assert_int_equal(p.map_mask, 0xfff8);
	assert_string_equal(p.map[0].bad,
			    "rid-base 0x1 has bits iommu-map-mask 0xfff8 clears: no masked requester id reaches it");
	fdt_free(&f);
	/* a map of 5 cells, and an empty one: not read at all */
	static const uint32_t five[] = { 0, 7, 0, 0x100, 0 };
	len = fdtb_virt(&(struct fdtb_virt){ .map = five, .nmap = 5 });
	assert_int_equal(fdt_parse(fdtb_blob, len, &f), 0);
	fdt_platform_read(&f, &p);
	assert_int_equal(p.nmap, 0);
	assert_non_null(strstr(p.map_bad, "iommu-map of 20 bytes is not whole entries of 4 cells"));
	fdt_free(&f);
	len = fdtb_virt(&(struct fdtb_virt){ .map = five, .nmap = 0 });
	assert_int_equal(fdt_parse(fdtb_blob, len, &f), 0);
	fdt_platform_read(&f, &p);
	assert_non_null(strstr(p.map_bad, "iommu-map of 0 bytes"));
	fdt_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(reads_qemu_virt),
		cmocka_unit_test(cells_and_warnings),
		cmocka_unit_test(broken_blobs_refused),
		cmocka_unit_test(absurd_cells),
		cmocka_unit_test(every_truncation),
		cmocka_unit_test(zicbom_rules),
		cmocka_unit_test(status_values),
		cmocka_unit_test(disabled_iommu_left_out),
		cmocka_unit_test(disabled_nodes_of_each_kind),
		cmocka_unit_test(fail_and_disabled_bus),
		cmocka_unit_test(iommu_map_entries),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
