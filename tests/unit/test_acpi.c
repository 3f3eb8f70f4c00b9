/* ACPI root walk and the boot-path fields, on tables built here with
 * real pointers (the host stands in for physical memory). */
#include "unit.h"

#include "core/base/memmap.h"
#include "core/tables/acpi.h"
#include "tests/host/platform_host.h"

static uint8_t mem[16384] __attribute__((aligned(4096)));

/* The firmware's map as the host stands it in: `mem` holds the tables
 * (ACPI reclaim), a page above it is MMIO, and nothing else is described. */
static struct mem_range map[2];

static int setup(void **state)
{
	(void)state;
	platform = &host_platform;
	map[0] = (struct mem_range){ (uintptr_t)mem, (uintptr_t)mem + sizeof(mem), MEM_ACPI_RECLAIM };
	map[1] = (struct mem_range){ 0xfed00000, 0xfed01000, MEM_MMIO };
	host_set_memory_map(map, 2);
	host_set_phys_bits(46);
	return 0;
}

struct rsdp20 {
	char sig[8];
	uint8_t checksum;
	char oem[6];
	uint8_t rev;
	uint32_t rsdt;
	uint32_t length;
	uint64_t xsdt;
	uint8_t xchecksum;
	uint8_t res[3];
} __attribute__((packed));

static void fix_checksum(void *p, size_t len, uint8_t *field)
{
	*field = 0;
	uint8_t sum = 0;
	for (size_t i = 0; i < len; i++)
		sum = (uint8_t)(sum + ((uint8_t *)p)[i]);
	*field = (uint8_t)-sum;
}

static struct acpi_header *table(size_t off, const char *sig, uint32_t len)
{
	struct acpi_header *h = (struct acpi_header *)(mem + off);
	memset(h, 0, len);
	memcpy(h->signature, sig, 4);
	h->length = len;
	h->revision = 1;
	memcpy(h->oem_id, "IOMMON", 6);
	return h;
}

static void seal(struct acpi_header *h)
{
	fix_checksum(h, h->length, &h->checksum);
}

/* RSDP at 0, XSDT at 256 and RSDT at 512 listing FADT (1024), HPET (2048),
 * SPCR (3072) and a second SPCR with a bad checksum (4096). */
static struct rsdp20 *build(void)
{
	memset(mem, 0, sizeof(mem));
	struct acpi_header *fadt = table(1024, "FACP", 276);
	uint32_t port = 0x608;
	memcpy((uint8_t *)fadt + 76, &port, 4);
	((uint8_t *)fadt)[91] = 4;
	uint32_t flags = 1u << 8; /* TMR_VAL_EXT */
	memcpy((uint8_t *)fadt + 112, &flags, 4);
	seal(fadt);

	struct acpi_header *hpet = table(2048, "HPET", 56);
	struct acpi_gas g = { .space_id = ACPI_SPACE_MEMORY, .bit_width = 64, .address = 0xfed00000 };
	memcpy((uint8_t *)hpet + 40, &g, sizeof(g));
	seal(hpet);

	struct acpi_header *spcr = table(3072, "SPCR", 80);
	struct acpi_gas u = { .space_id = ACPI_SPACE_IO, .bit_width = 8, .access_size = 1, .address = 0x2f8 };
	memcpy((uint8_t *)spcr + 40, &u, sizeof(u));
	((uint8_t *)spcr)[58] = 7; /* 115200 */
	seal(spcr);

	struct acpi_header *bad = table(4096, "SPCR", 80);
	seal(bad);
	bad->checksum ^= 1;

	uint64_t tabs[4] = { (uintptr_t)(mem + 1024), (uintptr_t)(mem + 2048), (uintptr_t)(mem + 3072),
			     (uintptr_t)(mem + 4096) };
	struct acpi_header *xsdt = table(256, "XSDT", 36 + 32);
	memcpy((uint8_t *)xsdt + 36, tabs, 32);
	seal(xsdt);

	struct rsdp20 *r = (struct rsdp20 *)mem;
	memcpy(r->sig, "RSD PTR ", 8);
	memcpy(r->oem, "IOMMON", 6);
	r->rev = 2;
	r->length = sizeof(*r);
	r->xsdt = (uintptr_t)xsdt;
	r->rsdt = 0;
	fix_checksum(r, 20, &r->checksum);
	fix_checksum(r, sizeof(*r), &r->xchecksum);
	return r;
}

static void finds_tables(void **state)
{
	(void)state;
	struct acpi a;
	acpi_init(&a, build());
	assert_true(a.present);
	assert_true(a.xsdt);
	assert_int_equal(a.n, 4);
	assert_ptr_equal(acpi_find(&a, "FACP", 0), mem + 1024);
	assert_ptr_equal(acpi_find(&a, "SPCR", 0), mem + 3072);
	assert_null(acpi_find(&a, "SPCR", 1)); /* the second one has a bad checksum */
	assert_false(a.tables[3].checksum_ok);
	assert_null(acpi_find(&a, "DMAR", 0));
}

static void bad_rsdp(void **state)
{
	(void)state;
	struct acpi a;
	acpi_init(&a, NULL);
	assert_false(a.present);
	struct rsdp20 *r = build();
	r->checksum ^= 0xff;
	acpi_init(&a, r);
	assert_false(a.present);
	char want[80];
	snprintf(want, sizeof(want), "the RSDP at 0x%llx fails its checksum", (unsigned long long)(uintptr_t)r);
	assert_string_equal(a.error, want);
	r->sig[0] = 'X';
	acpi_init(&a, r);
	snprintf(want, sizeof(want), "the RSDP at 0x%llx has no \"RSD PTR \" signature",
		 (unsigned long long)(uintptr_t)r);
	assert_string_equal(a.error, want);
}

/* A broken XSDT falls back to the RSDT. */
static void rsdt_fallback(void **state)
{
	(void)state;
	struct rsdp20 *r = build();
	((struct acpi_header *)(mem + 256))->checksum ^= 1;
	struct acpi_header *rsdt = table(512, "RSDT", 36 + 4);
	uint32_t fadt = (uint32_t)(uintptr_t)(mem + 1024);
	struct acpi a;
	if ((uintptr_t)(mem + 1024) > 0xffffffffu) {
		/* the host put us above 4 GiB: an RSDT cannot point here */
		acpi_init(&a, r);
		assert_false(a.present);
		return;
	}
	memcpy((uint8_t *)rsdt + 36, &fadt, 4);
	seal(rsdt);
	r->rsdt = (uint32_t)(uintptr_t)rsdt;
	fix_checksum(r, 20, &r->checksum);
	fix_checksum(r, sizeof(*r), &r->xchecksum);
	acpi_init(&a, r);
	assert_true(a.present);
	assert_false(a.xsdt);
	assert_ptr_equal(acpi_find(&a, "FACP", 0), mem + 1024);
	/* passing over the XSDT is the firmware's error, and said so */
	assert_int_equal(a.diag.errors, 1);
	assert_non_null(strstr(a.diag.msg[0].text, "the XSDT at 0x"));
	assert_non_null(strstr(a.diag.msg[0].text, "is not used: its checksum is wrong; the RSDT is used"));

	/* an RSDP whose ACPI 2.0 part does not add up: its XSDT is not
	 * believed, and that is said too */
	((struct acpi_header *)(mem + 256))->checksum ^= 1;
	r->xchecksum ^= 1;
	acpi_init(&a, r);
	assert_true(a.present);
	assert_false(a.xsdt);
	assert_int_equal(a.diag.errors, 1);
	assert_non_null(strstr(a.diag.msg[0].text, "the RSDP's ACPI 2.0 part (revision 2, length 36)"));
	assert_non_null(strstr(a.diag.msg[0].text, "its XSDT is not used"));
}

/* A root table whose length lies is not walked past its end. */
static void lying_lengths(void **state)
{
	(void)state;
	struct rsdp20 *r = build();
	struct acpi_header *x = (struct acpi_header *)(mem + 256);
	x->length = 0x7fffffff; /* no seal: a checksum over it would itself read too far */
	struct acpi a;
	acpi_init(&a, r);
	assert_false(a.present);
	r = build();
	x = (struct acpi_header *)(mem + 256);
	x->length = 10; /* shorter than its own header */
	seal(x);
	acpi_init(&a, r);
	assert_false(a.present);
}

/* Entries that point where no table can be: zero, MMIO, memory the map
 * does not describe, not canonical, beyond the physical address width, and
 * a header whose length runs out of the described memory. Each is refused
 * by index and address before anything is read there (the old walk
 * dereferenced them all: a fault at boot); the sound entries still count. */
static void wild_entries(void **state)
{
	(void)state;
	struct rsdp20 *r = build();
	struct acpi_header *longone = table(6000, "SSDT", 64);
	seal(longone);
	longone->length = 0x100000; /* runs past the end of the described memory */
	uint64_t tabs[9] = { (uintptr_t)(mem + 1024),
			     0,
			     0xfed00000,
			     0x3ff000000000ull,
			     0xdead000000000000ull,
			     1ull << 46,
			     (uintptr_t)(mem + 6000),
			     (uintptr_t)(mem + sizeof(mem) - 8),
			     (uintptr_t)(mem + 2048) };
	struct acpi_header *xsdt = table(256, "XSDT", 36 + sizeof(tabs));
	memcpy((uint8_t *)xsdt + 36, tabs, sizeof(tabs));
	seal(xsdt);
	struct acpi a;
	acpi_init(&a, r);
	assert_true(a.present);
	assert_int_equal(a.n, 2);
	assert_ptr_equal(acpi_find(&a, "FACP", 0), mem + 1024);
	assert_ptr_equal(acpi_find(&a, "HPET", 0), mem + 2048);
	assert_int_equal(a.refused, 7);
	assert_int_equal(a.diag.errors, 7);
	assert_non_null(strstr(a.diag.msg[0].text, "XSDT entry 1 (0x0) refused: the address is 0"));
	assert_non_null(strstr(a.diag.msg[1].text, "XSDT entry 2 (0xfed00000) refused: the memory map says MMIO"));
	assert_non_null(
	    strstr(a.diag.msg[2].text, "entry 3 (0x3ff000000000) refused: 0x3ff000000000 is not described"));
	assert_non_null(strstr(a.diag.msg[3].text, "entry 4 (0xdead000000000000) refused"));
	assert_non_null(strstr(a.diag.msg[3].text, "not a canonical address"));
	assert_non_null(strstr(a.diag.msg[4].text, "is past the CPU's 46 address bits (MAXPHYADDR)"));
	assert_non_null(strstr(a.diag.msg[5].text, "entry 6"));
	assert_non_null(strstr(a.diag.msg[5].text, "not described"));
	assert_non_null(strstr(a.diag.msg[6].text, "entry 7"));

	/* an XSDT pointer into MMIO: the RSDT is used instead, and the XSDT named */
	r = build();
	r->xsdt = 0xfed00000;
	fix_checksum(r, 20, &r->checksum);
	fix_checksum(r, sizeof(*r), &r->xchecksum);
	acpi_init(&a, r);
	assert_false(a.present);
	assert_non_null(strstr(a.diag.msg[0].text, "XSDT address 0xfed00000 is refused: the memory map says MMIO"));

	/* the RSDP itself outside the map */
	host_set_memory_map(map + 1, 1);
	acpi_init(&a, build());
	assert_false(a.present);
	assert_non_null(strstr(a.error, "RSDP at"));
	host_set_memory_map(map, 2);
}

/* More root entries than the monitor keeps: every one past the limit is
 * named (the old walk kept 64 and dropped the rest without a word). */
static void many_entries(void **state)
{
	(void)state;
	struct rsdp20 *r = build();
	enum { N = ACPI_MAX_TABLES + 88 };
	struct acpi_header *xsdt = table(8192, "XSDT", 36 + N * 8);
	for (size_t i = 0; i < N; i++) {
		uint64_t t = (uintptr_t)(mem + (i % 2 ? 2048 : 1024));
		memcpy((uint8_t *)xsdt + 36 + 8 * i, &t, 8);
	}
	seal(xsdt);
	r->xsdt = (uintptr_t)xsdt;
	fix_checksum(r, 20, &r->checksum);
	fix_checksum(r, sizeof(*r), &r->xchecksum);
	struct acpi a;
	acpi_init(&a, r);
	assert_true(a.present);
	assert_true(ACPI_MAX_TABLES >= 256);
	assert_int_equal(a.n, ACPI_MAX_TABLES);
	assert_int_equal(a.dropped, 88);
	char want[64];
	snprintf(want, sizeof(want), "XSDT entry %d (FACP at 0x", ACPI_MAX_TABLES);
	assert_non_null(strstr(a.diag.msg[0].text, want));
	assert_non_null(strstr(a.diag.msg[0].text, "dropped: more than"));
}

static void fadt_pmtimer(void **state)
{
	(void)state;
	struct acpi a;
	acpi_init(&a, build());
	struct acpi_pmtimer pm;
	assert_int_equal(acpi_fadt_pmtimer(acpi_find(&a, "FACP", 0), &pm), 0);
	assert_int_equal(pm.space, ACPI_SPACE_IO);
	assert_int_equal(pm.address, 0x608);
	assert_true(pm.bits32);

	/* X_PM_TMR_BLK wins when present */
	struct acpi_header *fadt = (struct acpi_header *)(mem + 1024);
	struct acpi_gas x = { .space_id = ACPI_SPACE_MEMORY, .bit_width = 32, .address = 0xfe000008 };
	memcpy((uint8_t *)fadt + 208, &x, sizeof(x));
	assert_int_equal(acpi_fadt_pmtimer(fadt, &pm), 0);
	assert_int_equal(pm.space, ACPI_SPACE_MEMORY);
	assert_int_equal(pm.address, 0xfe000008);

	/* hardware-reduced ACPI has no PM timer */
	uint32_t flags = 1u << 20;
	memcpy((uint8_t *)fadt + 112, &flags, 4);
	assert_int_equal(acpi_fadt_pmtimer(fadt, &pm), -1);

	/* an ACPI 1.0 FADT too short for the timer field */
	struct acpi_header *tiny = table(5000, "FACP", 80);
	assert_int_equal(acpi_fadt_pmtimer(tiny, &pm), -1);
	assert_int_equal(acpi_fadt_pmtimer(NULL, &pm), -1);
}

static void hpet_and_spcr(void **state)
{
	(void)state;
	struct acpi a;
	acpi_init(&a, build());
	uint64_t base;
	assert_int_equal(acpi_hpet_base(acpi_find(&a, "HPET", 0), &base), 0);
	assert_int_equal(base, 0xfed00000);

	struct acpi_spcr s;
	const char *why = NULL;
	assert_int_equal(acpi_spcr_uart(acpi_find(&a, "SPCR", 0), &s, &why), 0);
	assert_int_equal(s.base.address, 0x2f8);
	assert_int_equal(s.baud, 115200);

	struct acpi_header *spcr = (struct acpi_header *)(mem + 3072);
	((uint8_t *)spcr)[36] = 0x0f; /* ARM DCC: not a UART iommon drives (test_uart_place has the rest) */
	assert_int_equal(acpi_spcr_uart(spcr, &s, &why), -1);
	struct acpi_header *tiny = table(5000, "SPCR", 40);
	assert_int_equal(acpi_spcr_uart(tiny, &s, &why), -1);
	assert_non_null(strstr(why, "short"));
}

/* An RHCT as QEMU's virt machine makes one: the time base, then an ISA
 * string node, a CMO node (CBOM 2^6 = 64 bytes) and a hart info node. */
static struct acpi_header *rhct(size_t at, uint32_t len)
{
	struct acpi_header *h = table(at, "RHCT", len);
	uint8_t *b = (uint8_t *)h;
	uint64_t hz = 10000000;
	uint32_t count = 3, first = 56;
	memcpy(b + 40, &hz, 8);
	memcpy(b + 48, &count, 4);
	memcpy(b + 52, &first, 4);
	uint16_t isa[3] = { 0, 16, 1 }, cmo[3] = { 1, 10, 1 }, hart[3] = { 0xffff, 20, 1 };
	memcpy(b + 56, isa, 6);
	memcpy(b + 72, cmo, 6);
	b[72 + 7] = 6;
	memcpy(b + 82, hart, 6);
	return h;
}

static void rhct_timebase_and_cbom(void **state)
{
	(void)state;
	uint64_t hz = 0;
	unsigned cbom = 99;
	struct acpi_header *h = rhct(6000, 102);
	assert_int_equal(acpi_rhct(h, &hz, &cbom), 0);
	assert_int_equal(hz, 10000000);
	assert_int_equal(cbom, 64);
	/* a block size out of range is not believed */
	((uint8_t *)h)[72 + 7] = 40;
	assert_int_equal(acpi_rhct(h, &hz, &cbom), 0);
	assert_int_equal(cbom, 0);
	/* a node whose length runs past the table, or is shorter than its
	 * head, ends the walk: the frequency stays, no block size */
	h = rhct(6000, 102);
	uint16_t bad = 500;
	memcpy((uint8_t *)h + 58, &bad, 2);
	cbom = 99;
	assert_int_equal(acpi_rhct(h, &hz, &cbom), 0);
	assert_int_equal(cbom, 0);
	bad = 0;
	memcpy((uint8_t *)h + 58, &bad, 2);
	assert_int_equal(acpi_rhct(h, &hz, &cbom), 0);
	assert_int_equal(cbom, 0);
	/* a node count larger than the nodes there: the walk stops at the end */
	h = rhct(6000, 102);
	uint32_t many = 0xffffffffu;
	memcpy((uint8_t *)h + 48, &many, 4);
	((uint8_t *)h)[72] = 7; /* no CMO node at all now */
	assert_int_equal(acpi_rhct(h, &hz, &cbom), 0);
	assert_int_equal(cbom, 0);
	/* too short for the frequency, or absent */
	assert_int_equal(acpi_rhct(table(6000, "RHCT", 44), &hz, &cbom), -1);
	assert_int_equal(acpi_rhct(NULL, &hz, &cbom), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(finds_tables),		  cmocka_unit_test(bad_rsdp),
		cmocka_unit_test(rsdt_fallback),	  cmocka_unit_test(lying_lengths),
		cmocka_unit_test(fadt_pmtimer),		  cmocka_unit_test(hpet_and_spcr),
		cmocka_unit_test(wild_entries),		  cmocka_unit_test(many_entries),
		cmocka_unit_test(rhct_timebase_and_cbom),
	};
	return cmocka_run_group_tests_name("acpi", tests, setup, NULL);
}
