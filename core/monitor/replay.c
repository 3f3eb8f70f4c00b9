#include "replay.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/memmap.h"
#include "core/base/platform.h"
#include "core/base/timing.h"
#include "monitor.h"

/* The text files are built in a buffer that grows, then put whole. */
struct text {
	char *p;
	size_t n, cap;
};

static void text_add(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static struct {
	char dir[160];
	struct text files_list; /* "file NAME BYTES" for the manifest, one a file saved */
	size_t used;
	unsigned files, left_out;
	bool failed; /* a write failed: nothing more is tried */
} rp;

void replay_table_name(char out[16], const char sig[4], unsigned idx)
{
	char s[5];
	for (unsigned k = 0; k < 4; k++) {
		char c = sig[k];
		if (c >= 'A' && c <= 'Z')
			c = (char)(c | 0x20);
		s[k] = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ? c : '_';
	}
	s[4] = '\0';
	if (idx == 0)
		snprintf(out, 16, "%s.dat", s);
	else
		snprintf(out, 16, "%s%u.dat", s, idx + 1);
}

bool replay_put(const char *name, const void *buf, size_t len)
{
	if (rp.failed)
		return false;
	if (len > REPLAY_CAP - rp.used) {
		rp.left_out++;
		printf("replay: %s (%zu bytes) left out: the folder's cap of %u MiB is reached\n", name, len,
		       REPLAY_CAP >> 20);
		return false;
	}
	char path[200];
	snprintf(path, sizeof(path), "%s/%s", rp.dir, name);
	const char *why = "?";
	struct platform_file *f = platform->file_create(path, &why);
	bool ok = f && (len == 0 || platform->file_append(f, buf, len, &why));
	if (f)
		platform->file_close(f);
	if (!ok) {
		rp.failed = true;
		printf("error: replay: %s could not be saved: %s; the replay folder ends here (%u files), the run goes "
		       "on\n",
		       path, why, rp.files);
		return false;
	}
	rp.used += len;
	rp.files++;
	text_add(&rp.files_list, "file %s %zu\n", name, len);
	return true;
}

static void text_add(struct text *t, const char *fmt, ...)
{
	va_list ap;
	for (;;) {
		va_start(ap, fmt);
		int k = t->p ? vsnprintf(t->p + t->n, t->cap - t->n, fmt, ap) : -1;
		va_end(ap);
		if (k >= 0 && (size_t)k < t->cap - t->n) {
			t->n += (size_t)k;
			return;
		}
		size_t cap = t->cap ? t->cap * 2 : 4096;
		char *p = realloc(t->p, cap);
		if (!p)
			return; /* out of memory: the line is left out, the file ends short */
		t->p = p;
		t->cap = cap;
	}
}

static void save_tables(const struct acpi *a, struct text *manifest)
{
	for (size_t i = 0; i < a->n; i++) {
		const struct acpi_header *h = a->tables[i].hdr;
		unsigned idx = 0;
		for (size_t k = 0; k < i; k++)
			idx += memcmp(a->tables[k].hdr->signature, h->signature, 4) == 0;
		char name[16];
		replay_table_name(name, h->signature, idx);
		if (replay_put(name, h, h->length))
			text_add(manifest, "table %s %.4s %u%s\n", name, h->signature, h->length,
				 a->tables[i].checksum_ok ? "" : " checksum-bad");
	}
}

/* The entry point as its own length field gives it (DSP0134 5.2.1:
 * byte 5 of "_SM_", byte 6 of "_SM3_"), never more than 32 bytes. */
static void save_smbios(const struct smbios *s, struct text *manifest)
{
	if (!s->entry_ok || !s->entry_addr)
		return;
	const uint8_t *ep = (const uint8_t *)(uintptr_t)s->entry_addr;
	size_t len = s->ep64 ? ep[6] : ep[5];
	if (!s->ep64 && len < 0x1f)
		len = 0x1f; /* a 2.1 entry point saying 0x1e is 0x1f bytes all the same */
	if (len > 32)
		len = 32;
	if (!replay_put(REPLAY_SMBIOS_ENTRY, ep, len))
		return;
	text_add(manifest, "smbios %s %u.%u\n", REPLAY_SMBIOS_ENTRY, s->major, s->minor);
	if (s->walked && s->table_len && s->table_len <= SMBIOS_TABLE_MAX &&
	    replay_put(REPLAY_SMBIOS_TABLE, (const void *)(uintptr_t)s->table_addr, s->table_len))
		text_add(manifest, "smbios %s %u\n", REPLAY_SMBIOS_TABLE, s->table_len);
}

static void save_memmap(struct text *manifest)
{
	const struct mem_range *m = NULL;
	size_t n = platform->memory_map ? platform->memory_map(&m) : 0;
	if (!m || !n)
		return;
	struct text t = { 0 };
	text_add(&t, "# base end type name: the firmware's memory map (UEFI types, core/base/memmap.h)\n");
	for (size_t i = 0; i < n; i++)
		text_add(&t, "0x%016llx 0x%016llx %u %s\n", (unsigned long long)m[i].base, (unsigned long long)m[i].end,
			 (unsigned)m[i].type, mem_type_name(m[i].type));
	if (t.p && replay_put(REPLAY_MEMMAP, t.p, t.n))
		text_add(manifest, "memmap %s %zu\n", REPLAY_MEMMAP, n);
	free(t.p);
}

void replay_save(const char *results, const struct acpi *a, const struct smbios *s, const struct subsystem *const *subs)
{
	if (platform->replay) {
		printf("replay: the replayed folder is not saved again\n");
		return;
	}
	if (!results) {
		printf("replay: no replay folder either: its tables and registers go nowhere\n");
		return;
	}
	size_t len = strlen(results);
	const char *ext = ".jsonl";
	if (len < strlen(ext) || strcmp(results + len - strlen(ext), ext) != 0 || len >= sizeof(rp.dir)) {
		printf("replay: no folder saved: the results file %s has no .jsonl name\n", results);
		return;
	}
	free(rp.files_list.p);
	memset(&rp, 0, sizeof(rp));
	snprintf(rp.dir, sizeof(rp.dir), "%.*s.replay", (int)(len - strlen(ext)), results);
	struct text manifest = { 0 };
	struct wallclock wc = { 0 };
	bool clock = platform->wallclock(&wc);
	text_add(&manifest, "# iommon replay folder (core/monitor/replay.h): build/host/iommon --replay THIS-FOLDER\n");
	text_add(&manifest, "saved-by iommon %s on %s", IOMMON_VERSION, timing.platform);
	if (clock)
		text_add(&manifest, " at %04u-%02u-%02u %02u:%02u:%02u", wc.year, wc.month, wc.day, wc.hour, wc.minute,
			 wc.second);
	text_add(&manifest, "\n");
	if (a->present)
		text_add(&manifest, "acpi %s %u %.6s\n", a->xsdt ? "xsdt" : "rsdt", a->rsdp_revision, a->oem_id);
	save_tables(a, &manifest);
	save_smbios(s, &manifest);
	save_memmap(&manifest);
	for (size_t i = 0; subs && subs[i]; i++)
		if (subs[i]->replay_save)
			subs[i]->replay_save();
	if (rp.files_list.p)
		text_add(&manifest, "%.*s", (int)rp.files_list.n, rp.files_list.p);
	if (!rp.files && !rp.failed && !rp.left_out) {
		/* the host monitor, say: a folder with a manifest only would be a
		 * replay of nothing */
		printf("replay: nothing to save: no ACPI tables, SMBIOS, memory map or IOMMU registers here\n");
		free(manifest.p);
		return;
	}
	if (manifest.p)
		replay_put(REPLAY_MANIFEST, manifest.p, manifest.n);
	free(manifest.p);
	if (!rp.failed)
		printf("replay: %u files (%zu bytes%s) saved to %s/\n", rp.files, rp.used,
		       rp.left_out ? ", some left out at the cap" : "", rp.dir);
}
