/* Generated device trees: from a fixed seed, trees shaped as a riscv64
 * SoC's (harts, UARTs, a test finisher, one or two ECAM hosts, RISC-V
 * IOMMUs, some behind a bus of their own) with a random status on every
 * node the monitor reads, and iommu-maps with random defects (a phandle
 * leading to no node, to a disabled unit, to a node that is no IOMMU, to
 * one of two #iommu-cells; a length of 0, ids past 0xffff, an entry over
 * an earlier one's ids; a map or mask of the wrong size) beside good
 * entries and entries to an IOMMU of another kind. The generator knows
 * what it made; each tree is read (fdt_platform_read) and discovered (the
 * RISC-V backend over a PCI function at each entry's ids) and held to:
 * no node its status rules out is read or made a unit, each is said once;
 * every defect is named (in the map as read, and at discovery), and
 * nothing else is; each device is covered by the unit its entry names,
 * or says why it has none. A failing seed is printed: it is the
 * regression test. */
#include "unit.h"

#include <stdbool.h>
#include <string.h>

#include "core/base/claims.h"
#include "core/base/platform.h"
#include "core/monitor/early.h"
#include "fdt_build.h"
#include "iommu/machine.h"
#include "iommu/riscv/rvi.h"
#include "iommu/units.h"
#include "tests/host/platform_host.h"

#define TREES 400

static struct platform dt_platform;
static const void *tree;

static const void *dt(void)
{
	return tree;
}

/* Statuses, usable or not: the specification's values, another
 * spelling, one it does not name. */
static const char *const statuses[] = { NULL,	    NULL,   "okay",	"ok",	    "disabled",
					"reserved", "fail", "fail-sss", "disabled", "broken" };

static bool usable(const char *s)
{
	return !s || strcmp(s, "okay") == 0 || strcmp(s, "ok") == 0;
}

enum entry_kind { GOOD, OTHER, DISABLED, NO_NODE, NOT_IOMMU, CELLS, ZERO, PAST, OVERLAP, NKINDS };
static const char *const kind_name[] = { "good",  "other", "disabled", "no node", "not an IOMMU",
					 "cells", "zero",  "past",     "overlap" };

#define MAX_IOMMU 3
#define MAX_ENTRIES 6
#define PH_IOMMU 0x10
#define PH_SYSCON 0x40
#define PH_SMMU 0x41
#define PH_CELLS2 0x42

/* What the generator made. */
static struct gen {
	uint64_t rng;
	size_t nharts, niommu, nhosts, nentries;
	const char *hart[3], *uart[2], *finisher, *host[2], *iommu[MAX_IOMMU];
	bool in_bus[MAX_IOMMU];
	const char *bus[MAX_IOMMU];
	enum { MAP_OK, MAP_LENGTH, MAP_MASK } map_defect;
	struct {
		enum entry_kind kind;
		uint32_t rid, len, ph;
		int iommu; /* GOOD: its index in iommu[] */
	} e[MAX_ENTRIES];
} g;

static uint32_t draw(uint32_t n)
{
	return (uint32_t)(unit_xorshift(&g.rng) % n);
}

static bool iommu_usable(size_t i)
{
	return usable(g.iommu[i]) && (!g.in_bus[i] || usable(g.bus[i]));
}

static const char *pick_status(void)
{
	return statuses[draw(sizeof(statuses) / sizeof(statuses[0]))];
}

/* The entries of a map, each of a random kind, given what the tree has. */
static void gen_map(void)
{
	g.nentries = 1 + draw(MAX_ENTRIES);
	uint32_t cursor = draw(0x100);
	for (size_t k = 0; k < g.nentries; k++) {
		enum entry_kind kind = (enum entry_kind)draw(NKINDS);
		int good = -1, bad = -1;
		for (size_t i = 0; i < g.niommu; i++) {
			if (iommu_usable(i) && (good < 0 || draw(2)))
				good = (int)i;
			if (!iommu_usable(i) && (bad < 0 || draw(2)))
				bad = (int)i;
		}
		if (kind == GOOD && good < 0)
			kind = NO_NODE;
		if (kind == DISABLED && bad < 0)
			kind = NOT_IOMMU;
		bool over = false; /* an earlier entry read (not a defect) to overlap */
		size_t j = 0;
		for (size_t i = 0; i < k; i++)
			if (g.e[i].kind == GOOD || g.e[i].kind == OTHER)
				over = true, j = i;
		if (kind == OVERLAP && !over)
			kind = ZERO;
		typeof(g.e[0]) *e = &g.e[k];
		*e = (typeof(*e)){ .kind = kind, .len = 1 + draw(0x300), .iommu = -1 };
		e->rid = cursor;
		switch (kind) {
		case GOOD:
			e->ph = PH_IOMMU + (uint32_t)good, e->iommu = good;
			break;
		case OTHER:
			e->ph = PH_SMMU;
			break;
		case DISABLED:
			e->ph = PH_IOMMU + (uint32_t)bad;
			break;
		case NO_NODE:
			e->ph = 0x999;
			break;
		case NOT_IOMMU:
			e->ph = PH_SYSCON;
			break;
		case CELLS:
			e->ph = PH_CELLS2;
			break;
		case ZERO:
			e->ph = PH_IOMMU, e->len = 0;
			break;
		case PAST:
			e->ph = PH_IOMMU, e->rid = 0xff00 + draw(0x100), e->len = 0x101 + draw(0x100);
			break;
		case OVERLAP:
			e->ph = PH_IOMMU, e->rid = g.e[j].rid + draw(g.e[j].len);
			break;
		default:
			break;
		}
		if (kind != PAST && kind != OVERLAP)
			cursor += e->len + draw(0x40);
		if (cursor + 0x400 > 0xff00)
			g.nentries = k + 1; /* room for no more */
	}
	g.map_defect = draw(10) == 0 ? MAP_LENGTH : draw(10) == 0 ? MAP_MASK : MAP_OK;
}

static void node_iommu(size_t i)
{
	char name[32];
	snprintf(name, sizeof(name), "iommu@%x", 0x3010000 + 0x1000 * (unsigned)i);
	fdtb_begin(name);
	fdtb_str("compatible", "riscv,iommu");
	FDTB_CELLS("reg", 0, 0x3010000u + 0x1000 * (uint32_t)i, 0, 0x1000);
	FDTB_CELLS("#iommu-cells", 1);
	FDTB_CELLS("phandle", PH_IOMMU + (uint32_t)i);
	fdtb_status(g.iommu[i]);
	fdtb_end();
}

static size_t gen_tree(uint64_t seed)
{
	memset(&g, 0, sizeof(g));
	g.rng = seed * 0x9e3779b97f4a7c15ull | 1;
	g.nharts = 1 + draw(3), g.niommu = 1 + draw(MAX_IOMMU), g.nhosts = 1 + draw(2);
	for (size_t i = 0; i < g.nharts; i++)
		g.hart[i] = pick_status();
	for (size_t i = 0; i < 2; i++)
		g.uart[i] = pick_status(), g.host[i] = pick_status();
	g.finisher = pick_status();
	for (size_t i = 0; i < g.niommu; i++) {
		g.iommu[i] = pick_status();
		g.in_bus[i] = draw(4) == 0;
		g.bus[i] = g.in_bus[i] ? pick_status() : NULL;
	}
	gen_map();

	fdtb_reset();
	fdtb_begin("");
	FDTB_CELLS("#address-cells", 2);
	FDTB_CELLS("#size-cells", 2);
	fdtb_begin("chosen");
	fdtb_str("stdout-path", "/soc/serial@10000000");
	fdtb_end();
	fdtb_begin("cpus");
	FDTB_CELLS("#address-cells", 1);
	FDTB_CELLS("#size-cells", 0);
	for (size_t i = 0; i < g.nharts; i++) {
		char name[16];
		snprintf(name, sizeof(name), "cpu@%zu", i);
		fdtb_begin(name);
		fdtb_str("device_type", "cpu");
		FDTB_CELLS("reg", (uint32_t)i);
		FDTB_CELLS("timebase-frequency", 1000000 * (uint32_t)(i + 1));
		fdtb_status(g.hart[i]);
		fdtb_end();
	}
	fdtb_end();
	fdtb_begin("soc");
	FDTB_CELLS("#address-cells", 2);
	FDTB_CELLS("#size-cells", 2);
	fdtb_begin("test@100000");
	fdtb_str("compatible", "sifive,test0");
	FDTB_CELLS("reg", 0, 0x100000u, 0, 0x1000);
	fdtb_status(g.finisher);
	fdtb_end();
	for (size_t i = 0; i < 2; i++) {
		char name[32];
		snprintf(name, sizeof(name), "serial@%x", 0x10000000 + 0x1000 * (unsigned)i);
		fdtb_begin(name);
		fdtb_str("compatible", "ns16550a");
		FDTB_CELLS("reg", 0, 0x10000000u + 0x1000 * (uint32_t)i, 0, 0x100);
		fdtb_status(g.uart[i]);
		fdtb_end();
	}
	fdtb_begin("plic@c000000"); /* an interrupt controller: never read, whatever its status */
	fdtb_str("compatible", "riscv,plic0");
	fdtb_prop("interrupt-controller", "", 0);
	fdtb_status(pick_status());
	fdtb_end();
	for (size_t i = 0; i < g.niommu; i++) {
		if (!g.in_bus[i]) {
			node_iommu(i);
			continue;
		}
		char name[32];
		snprintf(name, sizeof(name), "bus@%zx", 0x3010000 + 0x1000 * i);
		fdtb_begin(name);
		FDTB_CELLS("#address-cells", 2);
		FDTB_CELLS("#size-cells", 2);
		fdtb_status(g.bus[i]);
		node_iommu(i);
		fdtb_end();
	}
	fdtb_begin("syscon@1000");
	fdtb_str("compatible", "syscon");
	FDTB_CELLS("reg", 0, 0x1000, 0, 0x1000);
	FDTB_CELLS("phandle", PH_SYSCON);
	fdtb_end();
	fdtb_begin("smmu@d000000");
	fdtb_str("compatible", "arm,smmu-v3");
	FDTB_CELLS("reg", 0, 0xd000000u, 0, 0x20000);
	FDTB_CELLS("#iommu-cells", 1);
	FDTB_CELLS("phandle", PH_SMMU);
	fdtb_end();
	fdtb_begin("iommu@e000000"); /* a usable unit, its specifier two cells */
	fdtb_str("compatible", "riscv,iommu");
	FDTB_CELLS("reg", 0, 0xe000000u, 0, 0x1000);
	FDTB_CELLS("#iommu-cells", 2);
	FDTB_CELLS("phandle", PH_CELLS2);
	fdtb_end();
	uint32_t cells[4 * MAX_ENTRIES + 1];
	size_t n = 0;
	for (size_t k = 0; k < g.nentries; k++) {
		cells[n++] = g.e[k].rid, cells[n++] = g.e[k].ph;
		cells[n++] = g.e[k].rid, cells[n++] = g.e[k].len;
	}
	if (g.map_defect == MAP_LENGTH)
		cells[n++] = 0;
	for (size_t h = 0; h < g.nhosts; h++) {
		char name[32];
		snprintf(name, sizeof(name), "pci@%x", 0x30000000u + 0x10000000u * (unsigned)h);
		fdtb_begin(name);
		fdtb_str("compatible", "pci-host-ecam-generic");
		FDTB_CELLS("reg", 0, 0x30000000u + 0x10000000u * (uint32_t)h, 0, 0x10000000u);
		fdtb_cells("iommu-map", cells, n);
		if (g.map_defect == MAP_MASK)
			FDTB_CELLS("iommu-map-mask", 0xffff, 0xffff);
		fdtb_status(g.host[h]);
		fdtb_end();
	}
	fdtb_end();
	fdtb_end();
	return fdtb_finish();
}

static void adopt(void *arg)
{
	(void)arg;
	const struct iommu_backend *list[] = { &riscv_backend };
	units_adopt(&machine.units, list, NULL, 1, &machine.pci);
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *p = hay; (p = strstr(p, needle)) != NULL; p++)
		n++;
	return n;
}

/* A claim about tree `seed`: when it does not hold, the seed and what. */
#define CHECK(cond, ...)                                                                         \
	do {                                                                                     \
		if (!(cond)) {                                                                   \
			print_error("seed %llu: not so: %s\n", (unsigned long long)seed, #cond); \
			fail_msg(__VA_ARGS__);                                                   \
		}                                                                                \
	} while (0)

/* The first entry read (not a defect) that holds `rid`, or -1. */
static int read_entry(uint16_t rid)
{
	for (size_t k = 0; k < g.nentries; k++)
		if ((g.e[k].kind == GOOD || g.e[k].kind == OTHER) && rid >= g.e[k].rid && rid - g.e[k].rid < g.e[k].len)
			return (int)k;
	return -1;
}

static void check_tree(uint64_t seed, size_t len)
{
	struct fdt f;
	CHECK(fdt_parse(fdtb_blob, len, &f) == 0, "the tree does not parse");
	struct fdt_platform p;
	fdt_platform_read(&f, &p);

	/* nothing ruled out is read, each is listed once */
	size_t off = 0, usable_units = 1; /* iommu@e000000 */
	for (size_t i = 0; i < g.nharts; i++)
		off += !usable(g.hart[i]);
	for (size_t i = 0; i < 2; i++)
		off += !usable(g.uart[i]) + (i < g.nhosts && !usable(g.host[i]));
	off += !usable(g.finisher);
	for (size_t i = 0; i < g.niommu; i++) {
		off += !iommu_usable(i);
		usable_units += iommu_usable(i);
		bool read = false;
		for (size_t k = 0; k < p.niommus; k++)
			read |= p.iommu[k].base == 0x3010000u + 0x1000 * i;
		CHECK(read == iommu_usable(i), "iommu %zu (status %s, bus %s)", i, g.iommu[i] ? g.iommu[i] : "-",
		      g.bus[i] ? g.bus[i] : "-");
	}
	CHECK(p.noff == off, "%zu nodes listed as ruled out, %zu made so", p.noff, off);
	CHECK(p.niommus == usable_units, "%zu units read", p.niommus);
	int hart = -1;
	for (size_t i = 0; i < g.nharts && hart < 0; i++)
		if (usable(g.hart[i]))
			hart = (int)i;
	CHECK(p.timebase_hz == (hart < 0 ? 0 : 1000000u * (uint64_t)(hart + 1)), "timebase %llu",
	      (unsigned long long)p.timebase_hz);
	CHECK(p.test_finisher == (usable(g.finisher) ? 0x100000u : 0), "finisher");
	int uart = usable(g.uart[0]) ? 0 : usable(g.uart[1]) ? 1 : -1;
	CHECK(p.uart.found == (uart >= 0), "uart found");
	CHECK(uart < 0 || p.uart.base == 0x10000000u + 0x1000 * (unsigned)uart, "uart 0x%llx",
	      (unsigned long long)p.uart.base);
	CHECK(p.uart.chosen == (uart == 0), "uart chosen");
	int host = usable(g.host[0]) ? 0 : g.nhosts > 1 && usable(g.host[1]) ? 1 : -1;
	CHECK(p.ecam.found == (host >= 0), "ecam found");
	CHECK(host < 0 || p.ecam.base == 0x30000000u + 0x10000000u * (unsigned)host, "ecam");

	/* every defect named in the map as read, and only those */
	if (host >= 0 && g.map_defect != MAP_OK) {
		CHECK(p.map_bad[0] && p.nmap == 0, "a map of the wrong size read");
	} else if (host >= 0) {
		CHECK(p.nmap == g.nentries, "%zu entries read of %zu", p.nmap, g.nentries);
		for (size_t k = 0; k < g.nentries; k++) {
			bool defect = g.e[k].kind != GOOD && g.e[k].kind != OTHER;
			CHECK(defect == (p.map[k].bad[0] != 0), "entry %zu (%s): bad '%s'", k, kind_name[g.e[k].kind],
			      p.map[k].bad);
			CHECK(g.e[k].kind != GOOD || (p.map[k].iommu >= 0 && p.iommu[p.map[k].iommu].base ==
										 0x3010000u + 0x1000u * g.e[k].iommu),
			      "entry %zu leads to the wrong unit", k);
		}
	}
	fdt_free(&f);

	/* discovery over a function at each entry's first and last ids, and one in none */
	static struct pci_dev d[2 * MAX_ENTRIES + 1];
	size_t nd = 0;
	for (size_t k = 0; k < g.nentries; k++)
		for (size_t end = 0; end < 2; end++) {
			uint32_t rid = g.e[k].rid + (end ? g.e[k].len - 1 : 0);
			bool dup = !g.e[k].len || rid > 0xffff;
			for (size_t i = 0; i < nd; i++)
				dup |= pci_rid(d[i].addr) == rid;
			if (!dup)
				d[nd++] = (struct pci_dev){ .addr = { 0, (uint8_t)(rid >> 8), (uint8_t)(rid >> 3 & 31),
								      (uint8_t)(rid & 7) },
							    .vendor = 0x1b36,
							    .device = 0x0010,
							    .class = 0x010802,
							    .parent = -1 };
		}
	d[nd++] = (struct pci_dev){ .addr = { 0, 0xfe, 31, 7 }, .vendor = 0x1b36, .device = 0x0010, .parent = -1 };
	memset(&machine, 0, sizeof(machine));
	machine.pci.d = d, machine.pci.n = nd;
	tree = fdtb_blob;
	early_fdt_forget();
	claims_reset();
	const char *out = capture_stdout(adopt, NULL);
	CHECK(machine.units.n == usable_units, "%zu units made", machine.units.n);
	for (size_t i = 0; i < g.niommu; i++) {
		bool made = false;
		for (size_t u = 0; u < machine.units.n; u++)
			made |= machine.units.u[u].base == 0x3010000u + 0x1000 * i;
		CHECK(made == iommu_usable(i), "iommu %zu made a unit: %d", i, made);
		char note[96];
		snprintf(note, sizeof(note), "/iommu@%zx is not driven: ", 0x3010000 + 0x1000 * i);
		CHECK(count(out, note) == !iommu_usable(i), "iommu %zu noted %zu times", i, count(out, note));
	}
	if (host < 0) {
		units_free(&machine.units);
		return;
	}
	if (g.map_defect != MAP_OK) {
		CHECK(count(out, "  warning: the device tree's iommu-map: ") == 1, "the map's defect said");
		for (size_t i = 0; i < nd; i++)
			CHECK(d[i].iommu < 0 && units_why_missing(&machine.units, &d[i]), "device %zu", i);
		units_free(&machine.units);
		return;
	}
	for (size_t k = 0; k < g.nentries; k++) {
		char warning[64];
		snprintf(warning, sizeof(warning), "  warning: the device tree's iommu-map entry %zu ", k);
		bool defect = g.e[k].kind != GOOD && g.e[k].kind != OTHER;
		CHECK(count(out, warning) == defect, "entry %zu (%s) said %zu times", k, kind_name[g.e[k].kind],
		      count(out, warning));
	}
	for (size_t i = 0; i < nd; i++) {
		uint16_t rid = pci_rid(d[i].addr);
		int k = read_entry(rid);
		const char *why = units_why_missing(&machine.units, &d[i]);
		if (k >= 0 && g.e[k].kind == GOOD) {
			CHECK(d[i].iommu >= 0 &&
				  machine.units.u[d[i].iommu].base == 0x3010000u + 0x1000u * (uint32_t)g.e[k].iommu,
			      "rid 0x%04x: entry %d's unit", rid, k);
			continue;
		}
		CHECK(d[i].iommu < 0, "rid 0x%04x covered by %d", rid, d[i].iommu);
		if (k >= 0) {
			CHECK(why && strstr(why, "which iommon does not find"), "rid 0x%04x: %s", rid, why ? why : "-");
			continue;
		}
		int bad = -1;
		for (size_t j = 0; j < g.nentries && bad < 0; j++)
			if (rid >= g.e[j].rid && rid - g.e[j].rid < g.e[j].len)
				bad = (int)j;
		if (bad < 0) {
			CHECK(!why, "rid 0x%04x in no entry says '%s'", rid, why);
			continue;
		}
		char entry[32];
		snprintf(entry, sizeof(entry), "entry %d is not used: ", bad);
		CHECK(why && strstr(why, entry), "rid 0x%04x behind entry %d (%s) says '%s'", rid, bad,
		      kind_name[g.e[bad].kind], why ? why : "-");
	}
	units_free(&machine.units);
}

static void generated_trees(void **state)
{
	(void)state;
	dt_platform = host_platform;
	dt_platform.device_tree = dt;
	platform = &dt_platform;
	size_t kinds[NKINDS] = { 0 };
	for (uint64_t seed = 1; seed <= TREES; seed++) {
		size_t len = gen_tree(seed);
		for (size_t k = 0; k < g.nentries; k++)
			kinds[g.e[k].kind]++;
		check_tree(seed, len);
	}
	/* the draws reached every kind of entry */
	for (size_t k = 0; k < NKINDS; k++)
		if (kinds[k] < 20)
			fail_msg("only %zu entries of kind %s in %u trees", kinds[k], kind_name[k], TREES);
	memset(&machine, 0, sizeof(machine));
	tree = NULL;
	early_fdt_forget();
	claims_reset();
	platform = &host_platform;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(generated_trees),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
