/* Addresses from firmware tables and BARs against the firmware's memory
 * map: the one checked way to open an MMIO window (regwin_open_mmio)
 * refuses every address that is not a device's, names where it came from
 * and why, and the unit, clock or device is skipped without a byte read or
 * written there. The class: a base in RAM of every kind, 0, not canonical,
 * past MAXPHYADDR, wrapping, empty; and the paths that take addresses from
 * tables (DMAR DRHD, HPET, MCFG, a BAR). */
#include "unit.h"

#include "core/base/macros.h"
#include "core/base/memmap.h"
#include "core/base/timing.h"
#include "core/monitor/monitor.h"
#include "core/tables/acpi.h"
#include "iommu/units.h"
#include "iommu/vtd/vtd.h"
#include "pci/dma.h"
#include "pci/pci.h"
#include "tests/host/platform_host.h"

/* RAM pages the host hands out stand in for the machine's RAM: the map
 * says they are conventional memory. */
#define RAM_PAGES 300
static uint8_t *ram;
static uint8_t before[RAM_PAGES * 4096];
static struct mem_range map[4];

static int setup(void **state)
{
	(void)state;
	platform = &host_platform;
	timing.tsc_hz = 3000000000ull;
	ram = platform->alloc_pages(RAM_PAGES, 1ull << 32);
	assert_non_null(ram);
	map[0] = (struct mem_range){ (uintptr_t)ram, (uintptr_t)ram + RAM_PAGES * 4096, MEM_CONVENTIONAL };
	map[1] = (struct mem_range){ 0xfed00000, 0xfed01000, MEM_MMIO };
	map[2] = (struct mem_range){ 0xe0000000, 0xf0000000, MEM_RESERVED };
	map[3] = (struct mem_range){ 0x100000000ull, 0x100001000ull, MEM_ACPI_NVS };
	host_set_memory_map(map, 4);
	host_set_phys_bits(39);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	host_set_memory_map(NULL, 0);
	host_set_phys_bits(0);
	platform->free_pages(ram, RAM_PAGES);
	return 0;
}

static void snapshot(void)
{
	memcpy(before, ram, sizeof(before));
}

static size_t bytes_changed(void)
{
	size_t n = 0;
	for (size_t i = 0; i < sizeof(before); i++)
		n += ram[i] != before[i];
	return n;
}

static void refused(uint64_t base, uint64_t size, const char *reason)
{
	struct regwin w;
	const char *why = regwin_open_mmio(&w, "dev", base, size, false, "TEST table");
	if (!why || !strstr(why, reason))
		fail_msg("0x%llx +0x%llx: want a refusal with \"%s\", got \"%s\"", (unsigned long long)base,
			 (unsigned long long)size, reason, why ? why : "(accepted)");
	assert_non_null(strstr(why, "TEST table gives dev registers at"));
	/* a refused window touches nothing */
	assert_int_equal(w.size, 0);
	assert_int_equal(regwin_read32(&w, 0), 0xffffffffu);
	regwin_write32(&w, 0, 0);
	assert_int_equal(w.out_of_window, 2);
}

static void accepted(uint64_t base, uint64_t size)
{
	struct regwin w;
	const char *why = regwin_open_mmio(&w, "dev", base, size, false, "TEST table");
	if (why)
		fail_msg("0x%llx +0x%llx refused: %s", (unsigned long long)base, (unsigned long long)size, why);
	assert_int_equal(w.base, base);
	assert_int_equal(w.size, size);
}

static void the_class(void **state)
{
	(void)state;
	uint64_t r = (uintptr_t)ram;
	refused(r + 0x1000, 0x1000, "the memory map says conventional RAM at");
	refused(0, 0x1000, "the address is 0");
	refused(0xfed00000, 0, "the length is 0");
	refused(0x0000800000000000ull, 0x1000, "not a canonical address");
	refused(0xdead000000000000ull, 0x400, "not a canonical address");
	refused(1ull << 39, 0x1000, "past the CPU's 39 address bits (MAXPHYADDR)");
	refused((1ull << 39) - 0x1000, 0x2000, "past the CPU's 39 address bits");
	refused(0xfffffffffffff000ull, 0x2000, "wraps past 2^64");
	refused(0x100000000ull, 0x1000, "ACPI NVS");
	/* a window that starts in MMIO and runs into RAM */
	refused(r - 0x1000, 0x2000, "conventional RAM");
	/* every kind of RAM, and what is not RAM but not a device's either */
	static const enum mem_type not_mmio[] = {
		MEM_LOADER_CODE,  MEM_LOADER_DATA, MEM_BOOT_CODE,    MEM_BOOT_DATA, MEM_RUNTIME_CODE, MEM_RUNTIME_DATA,
		MEM_CONVENTIONAL, MEM_UNUSABLE,	   MEM_ACPI_RECLAIM, MEM_ACPI_NVS,  MEM_PERSISTENT,   MEM_UNACCEPTED
	};
	for (size_t i = 0; i < ARRAY_SIZE(not_mmio); i++) {
		map[0].type = not_mmio[i];
		refused(r, 8, mem_type_name(not_mmio[i]));
	}
	map[0].type = MEM_CONVENTIONAL;
	/* MMIO, reserved, and what the map does not describe */
	accepted(0xfed00000, 0x400);
	accepted(0xe0000000, 0x100000);
	accepted(0xfed90000, 0x1000);
	accepted((1ull << 39) - 0x1000, 0x1000);
}

/* A DMAR whose DRHD puts a VT-d unit's registers in RAM that holds what a
 * unit's would (VER, CAP, ECAP as QEMU's). A host experiment had the old
 * code take this unit over and give it back, writing 131 bytes there. */
static void drhd_in_ram(void **state)
{
	(void)state;
	uint8_t *regs = ram + 8 * 4096;
	memset(ram, 0, RAM_PAGES * 4096);
	uint32_t ver = 0x10;
	uint64_t cap = 0x00d2008c22260206ull, ecap = 0xf00f4a;
	memcpy(regs, &ver, 4);
	memcpy(regs + 8, &cap, 8);
	memcpy(regs + 0x10, &ecap, 8);
	uint8_t dmar[64] = "DMAR";
	dmar[4] = 64, dmar[36] = 38;
	uint8_t drhd[16] = { 0, 0, 16, 0, 1 };
	uint64_t base = (uintptr_t)regs;
	memcpy(drhd + 8, &base, 8);
	memcpy(dmar + 48, drhd, 16);
	struct iommu_units u;
	units_build(&u, &(struct units_table){ &vtd_backend, dmar, sizeof(dmar) }, 1, NULL);
	assert_int_equal(u.n, 1);
	snapshot();
	static struct vtd v;
	memset(&v, 0, sizeof(v));
	const char *why = vtd_open(&v, &u.u[0], vtd_units_dmar(&u), NULL);
	if (!why) { /* the old code's path: take over and give back */
		v.io.ops->take(&v.io);
		v.io.ops->give_back(&v.io);
	}
	struct unit_regs r;
	bool readable = units_read_regs(&u.u[0], &r);
	size_t changed = bytes_changed();
	char refusal[sizeof(u.u[0].refused)];
	memcpy(refusal, u.u[0].refused, sizeof(refusal));
	units_free(&u);
	assert_int_equal(changed, 0);
	assert_non_null(strstr(refusal, "DMAR DRHD at 0x30 gives dmar0 registers at"));
	assert_non_null(strstr(refusal, "conventional RAM"));
	assert_false(readable);
	assert_non_null(why);
	assert_non_null(strstr(why, "conventional RAM"));
}

/* An HPET table pointing at RAM that reads like a stopped HPET: the old
 * code turned "counting" on by writing there. Calibration must fall back. */
static void hpet_in_ram(void **state)
{
	(void)state;
	memset(ram, 0, RAM_PAGES * 4096);
	uint64_t gcap = 10000000ull << 32 | 1u << 13; /* 10 ns period, 64-bit */
	memcpy(ram, &gcap, 8);
	static uint8_t hpet[56] = "HPET";
	hpet[4] = 56;
	struct acpi_gas g = { .space_id = ACPI_SPACE_MEMORY, .bit_width = 64, .address = (uintptr_t)ram };
	memcpy(hpet + 40, &g, sizeof(g));
	static struct acpi a;
	memset(&a, 0, sizeof(a));
	a.present = true;
	a.n = 1;
	a.tables[0] = (struct acpi_table_ref){ (const struct acpi_header *)hpet, true };
	snapshot();
	timing_init(&a, "hpet");
	assert_int_equal(bytes_changed(), 0);
	assert_string_equal(timing.source, "stall");
	assert_non_null(strstr(timing.note, "ACPI HPET gives hpet registers at"));
	assert_non_null(strstr(timing.note, "conventional RAM"));
	timing_fini();
}

/* An MCFG region in RAM is not opened: its buses are left to CF8/CFC. */
static void mcfg_in_ram(void **state)
{
	(void)state;
	struct mcfg m = { .n = 2 };
	m.r[0] = (struct mcfg_region){ .base = (uintptr_t)ram, .segment = 1, .start_bus = 0, .end_bus = 0 };
	m.r[1] = (struct mcfg_region){ .base = 0xe0000000, .segment = 0, .start_bus = 0, .end_bus = 0 };
	struct pci_cfg c;
	pci_cfg_init(&c, &m, false);
	assert_int_equal(c.n, 1);
	assert_int_equal(c.ecam[0].win.base, 0xe0000000);
	assert_int_equal(c.nrefused, 1);
	assert_non_null(strstr(c.refused[0], "MCFG region 0 (segment 1, buses 00-00) gives ecam registers at"));
	assert_non_null(strstr(c.refused[0], "conventional RAM"));
	assert_false(pci_has_ecam(&c, (struct pci_addr){ 1, 0, 0, 0 }));

	/* a base so high that the window for its first bus wraps past 2^64,
	 * to 1 MiB, an address the map does not describe: refused for the
	 * firmware's base, not opened at the wrapped one */
	m.n = 1;
	m.r[0] =
	    (struct mcfg_region){ .base = 0xffffffffff000000ull, .segment = 0, .start_bus = 0x11, .end_bus = 0x11 };
	pci_cfg_init(&c, &m, false);
	assert_int_equal(c.n, 0);
	assert_int_equal(c.nrefused, 1);
	assert_non_null(strstr(c.refused[0], "MCFG region 0 (segment 0, buses 11-11) gives ecam registers at "
					     "0xffffffffff000000 + bus 0x11: refused, wraps past 2^64"));
}

/* Configuration space with one function, QEMU's edu, whose BAR0 the test
 * points where it likes. */
static uint32_t bar0;
static uint64_t cfg_read(void *ctx, uint64_t off, unsigned width)
{
	(void)ctx, (void)width;
	switch (off & 0xffffc) {
	case 0x00000:
		return 0x11e81234;
	case 0x00010:
		return bar0;
	default:
		return 0;
	}
}
static void cfg_write(void *ctx, uint64_t off, unsigned width, uint64_t v)
{
	(void)ctx, (void)off, (void)width, (void)v;
}

static void bar_in_ram(void **state)
{
	(void)state;
	static const struct regwin_model_ops ops = { cfg_read, cfg_write };
	struct pci_cfg c;
	pci_cfg_init(&c, NULL, false);
	c.n = 1;
	c.ecam[0].end_bus = 0;
	regwin_init_model(&c.ecam[0].win, "ecam", 1ull << 20, false, &ops, NULL);
	memset(ram, 0, RAM_PAGES * 4096);
	uint32_t edu_id = 0x010000ed; /* what edu's ID register reads */
	memcpy(ram, &edu_id, 4);
	struct pci_dev d = { .addr = { 0, 0, 0, 0 }, .vendor = 0x1234, .device = 0x11e8, .nbars = 1 };
	d.bar[0] = (struct pci_bar){ .index = 0, .base = (uintptr_t)ram, .size = 1 << 20 };
	snapshot();
	const char *why = NULL;
	struct dma_engine *e = dma_open(&c, &d, &why);
	if (e)
		e->close(e);
	assert_int_equal(bytes_changed(), 0);
	assert_null(e);
	assert_non_null(why);
	assert_non_null(strstr(why, "BAR0 of 0000:00:00.0 gives edu registers at"));
	assert_non_null(strstr(why, "conventional RAM"));
}

/* ACPI tables and the BIOS data area are read as memory: only where the
 * map describes something other than MMIO or unusable memory, all of it. */
static void readable_memory(void **state)
{
	(void)state;
	uint64_t r = (uintptr_t)ram;
	assert_null(memmap_read_refusal(r, 4096));
	assert_null(memmap_read_refusal(0xe0000000, 36));
	assert_non_null(strstr(memmap_read_refusal(0xfed00000, 36), "MMIO"));
	assert_non_null(strstr(memmap_read_refusal(0xfee00000, 36), "not described"));
	assert_non_null(strstr(memmap_read_refusal(r + RAM_PAGES * 4096 - 8, 36), "not described"));
	assert_non_null(strstr(memmap_read_refusal(0, 36), "the address is 0"));
	uint64_t at = 0;
	assert_int_equal(memmap_os_ram_in(r - 0x2000, 0x4000, &at), MEM_CONVENTIONAL);
	assert_int_equal(at, r);
	assert_int_equal(memmap_os_ram_in(0xe0000000, 0x1000, &at), MEM_TYPES);
}

/* A CPU with 52 physical address bits: under the firmware's 4-level paging
 * an address from 2^47 up is not identity-mapped (and an identity-mapped
 * address there would not be canonical); under 5-level paging (CR4.LA57)
 * it is, up to 2^56, and a device window there is a device window. */
static void five_level_paging(void **state)
{
	(void)state;
	host_set_phys_bits(52);
	refused(1ull << 47, 0x1000, "not a canonical address");
	refused((1ull << 47) - 0x1000, 0x2000, "lies above 2^47");
	host_set_paging_levels(5);
	const char *at48 = memmap_mmio_refusal(1ull << 48, 0x1000);
	const char *top = memmap_mmio_refusal((1ull << 52) - 0x1000, 0x1000);
	const char *past = memmap_mmio_refusal(1ull << 52, 0x1000);
	const char *upper = memmap_mmio_refusal(0xff00000000000000ull, 0x1000);
	host_set_paging_levels(4);
	host_set_phys_bits(39);
	assert_null(at48);
	assert_null(top);
	assert_non_null(past);
	assert_non_null(strstr(past, "past the CPU's 52 address bits"));
	assert_non_null(upper);
}

/* The legacy BIOS area (0xE0000-0xFFFFF) is ROM or shadow RAM, and the
 * ACPI spec (5.2.5.1) names it as where an RSDP may be; UEFI maps on real
 * machines often leave 0xA0000-0xFFFFF out, while firmware with a
 * compatibility module points the configuration table at an RSDP copy
 * there (0xF05B0 and the like). Reading it harms nothing: undescribed bytes
 * there are read; below it (VGA) and past 1 MiB they still are not. */
static void legacy_bios_area(void **state)
{
	(void)state;
	assert_null(memmap_read_refusal(0xf05b0, 36));
	assert_null(memmap_read_refusal(0xe0000, 0x20000));
	assert_non_null(strstr(memmap_read_refusal(0xdfff0, 36), "0xdfff0 is not described"));
	assert_non_null(strstr(memmap_read_refusal(0xfffe0, 0x40), "0x100000 is not described"));
	/* what the map does say there still counts: MMIO is not read */
	struct mem_range m[2] = { map[0], { 0xf0000, 0xf1000, MEM_MMIO } };
	host_set_memory_map(m, 2);
	const char *why = memmap_read_refusal(0xf05b0, 36);
	host_set_memory_map(map, 4);
	assert_non_null(why);
	assert_non_null(strstr(why, "MMIO"));
	/* and it is never a register window for that */
	assert_null(memmap_mmio_refusal(0xf05b0, 36));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_class),	    cmocka_unit_test(drhd_in_ram),
		cmocka_unit_test(hpet_in_ram),	    cmocka_unit_test(mcfg_in_ram),
		cmocka_unit_test(bar_in_ram),	    cmocka_unit_test(readable_memory),
		cmocka_unit_test(legacy_bios_area), cmocka_unit_test(five_level_paging),
	};
	return cmocka_run_group_tests_name("memmap", tests, setup, teardown);
}
