/* The replay folder (core/monitor/replay.c) and the two texts in it that are read
 * back on the host: iommu.txt (iommu/found_regs.c) and pci.txt
 * (pci/saved.c). */
#include "unit.h"

#include "core/monitor/monitor.h"
#include "core/monitor/replay.h"
#include "iommu/found_regs.h"
#include "iommu/vtd/vtd.h"
#include "pci/saved.h"
#include "tests/host/platform_host.h"

/* A volume of a few files in memory; file_create can be made to fail. */
#define NFILES 16
static struct {
	char name[NFILES][200];
	char data[NFILES][4096];
	size_t len[NFILES];
	unsigned n;
	int fail_at; /* the create that fails (1-based), 0: none */
} vol;

struct platform_file {
	unsigned idx;
};
static struct platform_file handles[NFILES];

static struct platform_file *mem_create(const char *path, const char **why)
{
	if (vol.n == NFILES || (vol.fail_at && (int)vol.n + 1 == vol.fail_at)) {
		*why = "the volume is full";
		return NULL;
	}
	snprintf(vol.name[vol.n], sizeof(vol.name[0]), "%s", path);
	vol.len[vol.n] = 0;
	handles[vol.n].idx = vol.n;
	return &handles[vol.n++];
}

static bool mem_append(struct platform_file *f, const void *buf, size_t n, const char **why)
{
	size_t put = n < sizeof(vol.data[0]) - vol.len[f->idx] ? n : sizeof(vol.data[0]) - vol.len[f->idx];
	memcpy(vol.data[f->idx] + vol.len[f->idx], buf, put);
	vol.len[f->idx] += put;
	*why = "full";
	return put == n;
}

static void mem_close(struct platform_file *f)
{
	(void)f;
}

static struct platform fake;

static const char *file_named(const char *suffix)
{
	for (unsigned i = 0; i < vol.n; i++) {
		size_t a = strlen(vol.name[i]), b = strlen(suffix);
		if (a >= b && strcmp(vol.name[i] + a - b, suffix) == 0) {
			vol.data[i][vol.len[i] < sizeof(vol.data[0]) ? vol.len[i] : sizeof(vol.data[0]) - 1] = '\0';
			return vol.data[i];
		}
	}
	return NULL;
}

/* A table of `len` bytes with its signature; only the header is real. */
static struct acpi_header *table(const char *sig, uint32_t len)
{
	struct acpi_header *h = calloc(1, len < 4096 ? len : sizeof(*h));
	memcpy(h->signature, sig, 4);
	h->length = len;
	return h;
}

static struct acpi acpi;
static struct smbios smbios;

static void setup_acpi(void)
{
	memset(&acpi, 0, sizeof(acpi));
	acpi.present = acpi.xsdt = true;
	acpi.rsdp_revision = 2;
	memcpy(acpi.oem_id, "BOCHS ", 6);
	const char *sigs[] = { "FACP", "SSDT", "DMAR", "SSDT" };
	for (unsigned i = 0; i < 4; i++) {
		acpi.tables[acpi.n].hdr = table(sigs[i], 40 + i);
		acpi.tables[acpi.n++].checksum_ok = i != 2; /* the DMAR's sum is bad */
	}
}

static void save(void *arg)
{
	(void)arg;
	replay_save("iommon/results/M1/20260101-000000.jsonl", &acpi, &smbios, NULL);
}

static void fresh(int fail_at)
{
	memset(&vol, 0, sizeof(vol));
	vol.fail_at = fail_at;
	fake = host_platform;
	fake.file_create = mem_create;
	fake.file_append = mem_append;
	fake.file_close = mem_close;
	platform = &fake;
	setup_acpi();
}

static void table_names(void **state)
{
	(void)state;
	char n[16];
	replay_table_name(n, "DMAR", 0);
	assert_string_equal(n, "dmar.dat");
	replay_table_name(n, "SSDT", 1);
	assert_string_equal(n, "ssdt2.dat");
	replay_table_name(n, "A\x01/ ", 0);
	assert_string_equal(n, "a___.dat");
}

/* Each table under acpidump's name, in the root's order in the manifest,
 * a bad checksum said there, beside the results file's stem. */
static void folder_saved(void **state)
{
	(void)state;
	fresh(0);
	const char *out = capture_stdout(save, NULL);
	assert_non_null(strstr(out, "saved to iommon/results/M1/20260101-000000.replay/"));
	assert_string_equal(vol.name[0], "iommon/results/M1/20260101-000000.replay/facp.dat");
	assert_string_equal(vol.name[3], "iommon/results/M1/20260101-000000.replay/ssdt2.dat");
	assert_int_equal(vol.len[2], 42); /* the DMAR's own length */
	const char *m = file_named("/manifest.txt");
	assert_non_null(m);
	assert_non_null(strstr(m, "acpi xsdt 2 BOCHS \n"));
	assert_non_null(strstr(m, "table facp.dat FACP 40\ntable ssdt.dat SSDT 41\ntable dmar.dat DMAR 42 "
				  "checksum-bad\ntable ssdt2.dat SSDT 43\n"));
	assert_non_null(strstr(m, "file ssdt2.dat 43\n"));
}

/* A write that fails is said once, nothing more is tried, and no manifest
 * claims a folder that is not whole. */
static void write_fails(void **state)
{
	(void)state;
	fresh(2);
	const char *out = capture_stdout(save, NULL);
	assert_non_null(strstr(out, "error: replay: iommon/results/M1/20260101-000000.replay/ssdt.dat could not be "
				    "saved: the volume is full"));
	assert_null(strstr(out, "saved to"));
	assert_int_equal(vol.n, 1);
	assert_null(file_named("/manifest.txt"));
}

/* A table past the folder's cap is left out by name (its bytes are never
 * read), and the rest saved. */
static void cap_reached(void **state)
{
	(void)state;
	fresh(0);
	acpi.tables[1].hdr = table("SSDT", REPLAY_CAP + 1);
	const char *out = capture_stdout(save, NULL);
	assert_non_null(strstr(out, "replay: ssdt.dat (16777217 bytes) left out: the folder's cap of 16 MiB"));
	assert_non_null(strstr(out, "some left out at the cap"));
	assert_null(strstr(file_named("/manifest.txt"), "table ssdt.dat"));
	assert_non_null(strstr(file_named("/manifest.txt"), "table ssdt2.dat SSDT 43"));
}

/* Nothing to save (the host): no folder at all. */
static void nothing_to_save(void **state)
{
	(void)state;
	fresh(0);
	acpi.n = 0;
	acpi.present = false;
	const char *out = capture_stdout(save, NULL);
	assert_non_null(strstr(out, "replay: nothing to save"));
	assert_int_equal(vol.n, 0);
}

/* iommu.txt: what found_regs_read read through the unit's window comes
 * back through found_regs_window in a replay; bad lines are left out. */
static uint8_t regs[4096] __attribute__((aligned(4096)));

static void registers_round_trip(void **state)
{
	(void)state;
	platform = &host_platform;
	static struct iommu_units u;
	memset(&u, 0, sizeof(u));
	u.n = 1;
	u.u[0] = (struct iommu_unit){ .name = "dmar0", .backend = &vtd_backend, .base = (uintptr_t)regs, .size = 4096 };
	uint64_t cap = 0x00d2008c22260206ull, irta = 0x12345000ull;
	memcpy(regs + 0x08, &cap, 8);
	memcpy(regs + 0xb8, &irta, 8);
	regs[0] = 0x10;
	found_regs_read(&u);
	regs[0] = 0x11;
	found_regs_read(&u); /* a second discovery keeps what was found first */
	size_t len;
	char *t = found_regs_text(&len);
	assert_non_null(t);
	char line[96];
	snprintf(line, sizeof(line), "dmar0 vtd 0x%llx 0x00008 8 CAP 0x00d2008c22260206\n",
		 (unsigned long long)(uintptr_t)regs);
	assert_non_null(strstr(t, line));
	char *bad = malloc(len + 200);
	snprintf(bad, len + 200, "%sjunk\ndmar0 vtd 0x1000 0x00008 4 CAP 0x1\ndmar0 nope 0x1000 0x0 4 VER 0x1\n", t);
	memset(regs, 0xff, sizeof(regs)); /* the live unit changed: the saved values must answer */
	size_t taken = found_regs_load(bad, strlen(bad), "iommu.txt");
	assert_int_equal(taken, 16);
	struct regwin w;
	assert_true(found_regs_window(&u.u[0], &w));
	assert_int_equal(regwin_read64(&w, 0x08), cap);
	assert_int_equal(regwin_read64(&w, 0xb8), irta);
	assert_int_equal(regwin_read32(&w, 0x00), 0x10);
	assert_int_equal(regwin_read32(&w, 0x300), 0xffffffffu); /* not saved */
	regwin_write32(&w, 0x18, 1);				 /* dropped */
	assert_int_equal(regwin_read64(&w, 0x08), cap);
	u.u[0].base += 4096; /* another unit of the same name */
	assert_false(found_regs_window(&u.u[0], &w));
	free(t);
	free(bad);
}

/* pci.txt: the fields the table checks use come back; bad lines are left
 * out, and a parent that is not a bridge is not believed. */
static void pci_round_trip(void **state)
{
	(void)state;
	struct pci_dev d[3] = {
		{ .addr = { 0, 0, 2, 0 },
		  .vendor = 0x1b36,
		  .device = 0xc,
		  .class = 0x060400,
		  .header_type = 1,
		  .sec_bus = 1,
		  .sub_bus = 1,
		  .parent = -1,
		  .ncaps = 2,
		  .cap = { { 0x10, 0x54, false, 0 }, { 0x1, 0x100, true, 0 } } },
		{ .addr = { 0, 1, 0, 0 },
		  .vendor = 0x1234,
		  .device = 0x11e8,
		  .class = 0xff00,
		  .revision = 0x10,
		  .parent = 0 },
		{ .addr = { 0, 1, 0, 1 }, .vendor = 0x1234, .device = 0x1, .parent = 1 },
	};
	struct pci_list l = { .d = d, .n = 3 };
	size_t len;
	char *t = pci_saved_text(&l, &len);
	assert_non_null(t);
	char *text = malloc(len + 1200);
	char long_caps[800];
	memset(long_caps, 0, sizeof(long_caps));
	for (unsigned i = 0; i < 100; i++)
		strcat(long_caps, " 10@40 ");
	/* a capability past the id range, a line too long to be read whole */
	snprintf(text, len + 1200,
		 "%s0000:00:20.0 1 2 3 4 5 6 7 -1 caps\nnonsense\n0000:00:03.0 1 2 3 4 0 0 0 -1 caps%s\n", t,
		 long_caps);
	assert_int_equal(pci_saved_load(text, strlen(text), "pci.txt"), 3);
	struct pci_list back;
	assert_true(pci_saved_take(&back));
	assert_false(pci_saved_take(&l)); /* handed over once */
	assert_int_equal(back.n, 3);
	assert_int_equal(back.d[0].sec_bus, 1);
	assert_int_equal(back.d[0].ncaps, 2);
	assert_true(back.d[0].cap[1].ext);
	assert_int_equal(back.d[0].cap[1].offset, 0x100);
	assert_int_equal(back.d[1].class, 0xff00);
	assert_int_equal(back.d[1].revision, 0x10);
	assert_int_equal(back.d[1].parent, 0);
	assert_int_equal(back.d[2].parent, -1); /* its parent is no bridge */
	assert_int_equal(back.d[1].iommu, -1);
	pci_list_free(&back);
	free(t);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(table_names),	   cmocka_unit_test(folder_saved),
		cmocka_unit_test(write_fails),	   cmocka_unit_test(cap_reached),
		cmocka_unit_test(nothing_to_save), cmocka_unit_test(registers_round_trip),
		cmocka_unit_test(pci_round_trip),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
