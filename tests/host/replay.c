/* The host monitor's replay: a replay folder (core/monitor/replay.h) stands in for
 * the machine that saved it. Its tables are placed in low memory under a
 * root (RSDP, XSDT) built here, since the machine's own root held the
 * machine's addresses; its SMBIOS entry point is given its table's new
 * address (the checksums keep whatever sum they had, so a bad one stays
 * bad); its memory map is the machine's, with the places taken here
 * listed first as ACPI memory; its registers answer units_read_regs.
 *
 * Whatever is wrong with a file (missing, cut short, not a table, a bad
 * line) is said, and the file or line left out: the replay goes on with
 * the rest, and the acpi cases judge what is there. */
#include "replay.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/memmap.h"
#include "core/base/platform.h"
#include "core/base/textlines.h"
#include "core/monitor/replay.h"
#include "core/tables/acpi.h"
#include "iommu/found_regs.h"
#include "pci/saved.h"
#include "platform_host.h"

#define MAX_FILES ACPI_MAX_TABLES
#define MAP_MAX 1024

static struct {
	char dir[400];
	char oem[7];
	uint8_t revision;
	struct mem_range map[MAP_MAX];
	size_t nmap;
} rp;

/* A whole file of the folder, at most `cap` bytes: NULL with a warning
 * when it cannot be read or is longer. */
static uint8_t *slurp(const char *name, size_t cap, size_t *len, bool quiet_absent)
{
	char path[600];
	snprintf(path, sizeof(path), "%s/%s", rp.dir, name);
	FILE *f = fopen(path, "rb");
	if (!f) {
		if (!quiet_absent)
			printf("warning: replay: %s is missing: left out\n", name);
		return NULL;
	}
	uint8_t *buf = malloc(cap + 1);
	size_t n = buf ? fread(buf, 1, cap + 1, f) : 0;
	bool err = ferror(f);
	fclose(f);
	if (!buf || err || n > cap) {
		printf("warning: replay: %s %s: left out\n", name,
		       !buf  ? "needs more memory than there is"
		       : err ? "could not be read"
			     : "is longer than a table may be");
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	*len = n;
	return buf;
}

/* Pages below 2 GiB (an address every check of the monitor believes),
 * listed in the memory map as ACPI memory. */
static void *place(size_t bytes)
{
	size_t pages = (bytes + PAGE_SIZE - 1) / PAGE_SIZE;
	void *p = host_platform.alloc_pages(pages ? pages : 1, 1ull << 31);
	if (!p || rp.nmap == MAP_MAX)
		return NULL;
	memset(p, 0, pages * PAGE_SIZE);
	rp.map[rp.nmap++] = (struct mem_range){ (uintptr_t)p, (uintptr_t)p + pages * PAGE_SIZE, MEM_ACPI_RECLAIM };
	return p;
}

struct table_file {
	char name[64];
	char sig[5];
	size_t len; /* from the manifest, 0 when none */
};

static struct table_file files[MAX_FILES];
static size_t nfiles;
static uint64_t placed[MAX_FILES];
static size_t nplaced;

/* One table file: refused when shorter than its header says (a table cut
 * short is not padded: the monitor never reads bytes the machine did not
 * give), or when it is not a table at all. */
static void load_table(const struct table_file *tf)
{
	size_t len;
	uint8_t *buf = slurp(tf->name, ACPI_TABLE_MAX, &len, false);
	if (!buf)
		return;
	const struct acpi_header *h = (const struct acpi_header *)buf;
	if (len < sizeof(*h))
		printf("warning: replay: %s holds %zu bytes, less than a table's header: left out\n", tf->name, len);
	else if (tf->sig[0] && memcmp(h->signature, tf->sig, 4) != 0)
		printf("warning: replay: %s holds a %.4s table, manifest.txt says %s: left out\n", tf->name,
		       h->signature, tf->sig);
	else if (h->length < sizeof(*h) || h->length > len)
		printf("warning: replay: %s is cut short: its header says %u bytes, the file holds %zu: left out\n",
		       tf->name, h->length, len);
	else {
		if (h->length < len)
			printf("warning: replay: %s holds %zu bytes past its table's %u: they are ignored\n", tf->name,
			       len - h->length, h->length);
		void *p = nplaced < MAX_FILES ? place(h->length) : NULL;
		if (p) {
			memcpy(p, buf, h->length);
			placed[nplaced++] = (uintptr_t)p;
		} else {
			printf("warning: replay: no room for %s: left out\n", tf->name);
		}
	}
	free(buf);
}

static int by_name(const void *a, const void *b)
{
	const struct table_file *x = a, *y = b;
	size_t lx = strlen(x->name), ly = strlen(y->name);
	return lx != ly ? (lx < ly ? -1 : 1) : strcmp(x->name, y->name); /* dmar.dat before dmar2.dat */
}

/* Without a manifest (a folder from acpidump -b, say): every *.dat but
 * SMBIOS's, in name order. */
static void list_dat_files(void)
{
	DIR *d = opendir(rp.dir);
	struct dirent *e;
	while (d && (e = readdir(d)) != NULL && nfiles < MAX_FILES) {
		size_t n = strlen(e->d_name);
		if (n < 5 || n >= sizeof(files[0].name) || strcmp(e->d_name + n - 4, ".dat") != 0 ||
		    strncmp(e->d_name, "smbios", 6) == 0 || strcmp(e->d_name, "rsdp.dat") == 0 ||
		    strcmp(e->d_name, "xsdt.dat") == 0 || strcmp(e->d_name, "rsdt.dat") == 0)
			continue;
		snprintf(files[nfiles].name, sizeof(files[0].name), "%s", e->d_name);
		files[nfiles++].sig[0] = '\0';
	}
	if (d)
		closedir(d);
	qsort(files, nfiles, sizeof(files[0]), by_name);
}

static void check_listed_file(const char *name, size_t bytes)
{
	char path[600];
	snprintf(path, sizeof(path), "%s/%s", rp.dir, name);
	FILE *f = fopen(path, "rb");
	if (!f) {
		printf("warning: replay: %s, listed in %s, is missing\n", name, REPLAY_MANIFEST);
		return;
	}
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fclose(f);
	if (n != (long)bytes)
		printf("warning: replay: %s holds %ld bytes, %s says %zu\n", name, n, REPLAY_MANIFEST, bytes);
}

static const char *manifest_line(char *line, void *ctx)
{
	(void)ctx;
	char name[64], sig[5], kind[8];
	size_t bytes;
	unsigned rev;
	if (strncmp(line, "saved-by ", 9) == 0)
		printf("replay: %s, saved by %s\n", rp.dir, line + 9);
	else if (sscanf(line, "acpi %7s %u %6[^\n]", kind, &rev, rp.oem) >= 2)
		rp.revision = (uint8_t)rev;
	else if ((sscanf(line, "table %63s %4s %zu", name, sig, &bytes) == 3 ||
		  sscanf(line, "file %63s %zu", name, &bytes) == 2) &&
		 (strpbrk(name, "/\\") || name[0] == '.'))
		return "a file name outside the folder (a '/', '\\' or a leading '.')";
	else if (sscanf(line, "table %63s %4s %zu", name, sig, &bytes) == 3 && nfiles < MAX_FILES) {
		snprintf(files[nfiles].name, sizeof(files[0].name), "%s", name);
		memcpy(files[nfiles].sig, sig, 5);
		files[nfiles++].len = bytes;
	} else if (sscanf(line, "file %63s %zu", name, &bytes) == 2)
		check_listed_file(name, bytes);
	else if (strncmp(line, "smbios ", 7) != 0 && strncmp(line, "memmap ", 7) != 0)
		return "not understood";
	return NULL;
}

static size_t load_manifest(const char *text, size_t len, const char *file)
{
	return text_lines(text, len, file, manifest_line, NULL);
}

static const char *memmap_line(char *line, void *ctx)
{
	(void)ctx;
	unsigned long long base, end;
	unsigned type;
	if (sscanf(line, "%llx %llx %u", &base, &end, &type) != 3 || end <= base || type >= MEM_TYPES)
		return "not 'base end type'";
	if (rp.nmap == MAP_MAX)
		return "more entries than the replay keeps";
	rp.map[rp.nmap++] = (struct mem_range){ base, end, (enum mem_type)type };
	return NULL;
}

static size_t load_memmap(const char *text, size_t len, const char *file)
{
	return text_lines(text, len, file, memmap_line, NULL);
}

static uint8_t sum8(const uint8_t *p, size_t n)
{
	uint8_t s = 0;
	while (n--)
		s = (uint8_t)(s + *p++);
	return s;
}

/* The root: an ACPI 2.0 RSDP and an XSDT listing the tables placed. */
static const void *build_root(void)
{
	size_t xlen = sizeof(struct acpi_header) + 8 * nplaced;
	uint8_t *x = place(xlen + 64);
	if (!x)
		return NULL;
	struct acpi_header *xh = (struct acpi_header *)x;
	memcpy(xh->signature, "XSDT", 4);
	xh->length = (uint32_t)xlen;
	xh->revision = 1;
	memcpy(xh->oem_id, rp.oem[0] ? rp.oem : "REPLAY", 6);
	memcpy(x + sizeof(*xh), placed, 8 * nplaced);
	xh->checksum = (uint8_t)-sum8(x, xlen);
	uint8_t *r = x + ((xlen + 15) & ~(size_t)15);
	memcpy(r, "RSD PTR ", 8);
	memcpy(r + 9, rp.oem[0] ? rp.oem : "REPLAY", 6);
	r[15] = rp.revision >= 2 ? rp.revision : 2;
	uint32_t len = 36;
	uint64_t xaddr = (uintptr_t)x;
	memcpy(r + 20, &len, 4);
	memcpy(r + 24, &xaddr, 8);
	r[8] = (uint8_t)-sum8(r, 20);
	r[32] = (uint8_t)-sum8(r, 36);
	return r;
}

/* The SMBIOS entry point with its table's new address, its checksum moved
 * by what the new address changed (DSP0134 5.2.1, 5.2.2). */
static void load_smbios(void)
{
	size_t elen, tlen = 0;
	uint8_t *ep = slurp(REPLAY_SMBIOS_ENTRY, 32, &elen, true);
	if (!ep)
		return;
	uint8_t *tab = slurp(REPLAY_SMBIOS_TABLE, SMBIOS_TABLE_MAX, &tlen, false);
	bool v3 = elen >= 0x18 && memcmp(ep, "_SM3_", 5) == 0, v2 = elen >= 0x1f && memcmp(ep, "_SM_", 4) == 0;
	/* the length the entry point declares must be in the file: a table cut
	 * short is not padded (the walk would read past it) */
	size_t declared =
	    v3	 ? (size_t)ep[0x0c] | (size_t)ep[0x0d] << 8 | (size_t)ep[0x0e] << 16 | (size_t)ep[0x0f] << 24
	    : v2 ? (size_t)ep[0x16] | (size_t)ep[0x17] << 8
		 : 0;
	if ((v2 || v3) && tab && declared > tlen) {
		printf("warning: replay: %s declares a %zu-byte table and %s holds %zu: SMBIOS left out\n",
		       REPLAY_SMBIOS_ENTRY, declared, REPLAY_SMBIOS_TABLE, tlen);
		free(ep), free(tab);
		return;
	}
	uint8_t *e = place(32), *t = tab ? place(tlen) : NULL;
	if (!e || (tab && !t) || (!v2 && !v3)) {
		printf("warning: replay: %s %s: SMBIOS left out\n", REPLAY_SMBIOS_ENTRY,
		       !v2 && !v3 ? "is no whole SMBIOS 2.x or 3.x entry point" : "found no room");
		free(ep), free(tab);
		return;
	}
	memcpy(e, ep, elen);
	if (t)
		memcpy(t, tab, tlen);
	uint64_t addr = t ? (uintptr_t)t : 0;
	if (v3) {
		uint8_t before = sum8(e, e[6] <= 32 ? e[6] : 32);
		memcpy(e + 0x10, &addr, 8);
		e[5] = (uint8_t)(e[5] + before - sum8(e, e[6] <= 32 ? e[6] : 32));
	} else {
		uint32_t a32 = (uint32_t)addr;
		uint8_t before = sum8(e + 0x10, 0x0f);
		memcpy(e + 0x18, &a32, 4);
		e[0x15] = (uint8_t)(e[0x15] + before - sum8(e + 0x10, 0x0f));
	}
	host_set_smbios_entry(v3 ? 3 : 2, e);
	free(ep), free(tab);
}

/* A text of the folder handed to its loader, line by line: false when
 * the folder has none. */
static bool load_text(const char *name, size_t (*load)(const char *, size_t, const char *), const char *what,
		      const char *without)
{
	size_t len;
	char *t = (char *)slurp(name, 4 << 20, &len, true);
	if (!t) {
		printf("warning: replay: no %s: %s\n", name, without);
		return false;
	}
	size_t n = load(t, len, name);
	if (what)
		printf("replay: %zu %s from %s\n", n, what, name);
	free(t);
	return true;
}

const char *host_replay_load(const char *dir)
{
	static char why[480];
	DIR *d = opendir(dir);
	if (!d) {
		snprintf(why, sizeof(why), "cannot open the replay folder %s", dir);
		return why;
	}
	closedir(d);
	memset(&rp, 0, sizeof(rp));
	nfiles = nplaced = 0;
	snprintf(rp.dir, sizeof(rp.dir), "%s", dir);
	if (!load_text(REPLAY_MANIFEST, load_manifest, NULL, "every *.dat is taken as an ACPI table, in name order"))
		list_dat_files();
	for (size_t i = 0; i < nfiles; i++)
		load_table(&files[i]);
	const void *rsdp = build_root();
	load_smbios();
	/* after every place(): the places come first */
	load_text(REPLAY_MEMMAP, load_memmap, "memory map entries",
		  "addresses are judged without the machine's memory map");
	load_text(REPLAY_IOMMU, found_regs_load, "IOMMU registers", "the units' registers are not known");
	load_text(PCI_SAVED_FILE, pci_saved_load, "PCI functions",
		  "no PCI functions: the units' scopes are not checked");
	host_set_memory_map(rp.map, rp.nmap);
	host_set_acpi_rsdp(rsdp);
	host_platform.replay = rp.dir;
	printf("replay: %zu of %zu tables placed\n", nplaced, nfiles);
	return NULL;
}
