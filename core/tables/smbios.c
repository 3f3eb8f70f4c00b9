#include "smbios.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "bytes.h"
#include "core/base/macros.h"
#include "core/base/memmap.h"
#include "core/base/wrap.h"

static const char *const problem_names[] = {
	[SMBIOS_P_ANCHOR] = "anchor",
	[SMBIOS_P_EP_LENGTH] = "entry-length",
	[SMBIOS_P_EP_CHECKSUM] = "entry-checksum",
	[SMBIOS_P_VERSION] = "version",
	[SMBIOS_P_TABLE_LENGTH] = "table-length",
	[SMBIOS_P_TABLE_ADDRESS] = "table-address",
	[SMBIOS_P_TRUNCATED] = "truncated",
	[SMBIOS_P_STRINGS] = "strings-unterminated",
	[SMBIOS_P_STRING_INDEX] = "string-index",
	[SMBIOS_P_SHORT] = "short",
	[SMBIOS_P_NO_END] = "no-end",
	[SMBIOS_P_COUNT] = "count",
};

const char *smbios_problem_name(enum smbios_problem p)
{
	return p < SMBIOS_NPROBLEMS ? problem_names[p] : "unknown";
}

static void problem(struct smbios *s, enum smbios_problem p, enum diag_level level, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void problem(struct smbios *s, enum smbios_problem p, enum diag_level level, const char *fmt, ...)
{
	char text[100];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	s->problems |= 1u << p;
	diag_add(&s->diag, level, "SMBIOS %s [%s]", text, problem_names[p]);
}

static bool sums_to_zero(const uint8_t *p, size_t n)
{
	uint8_t sum = 0;
	for (size_t i = 0; i < n; i++)
		sum = (uint8_t)(sum + p[i]);
	return sum == 0;
}

/* DSP0134 5.2.2, the 64-bit entry point. */
#define EP3_LEN 0x18
/* DSP0134 5.2.1, the 32-bit entry point; 0x1E is what SMBIOS 2.1 itself
 * wrote in the field, and firmware of that age still says so. */
#define EP2_LEN 0x1f
#define EP2_LEN_OLD 0x1e
#define EP2_DMI_AT 0x10 /* the intermediate ("_DMI_") part, 15 bytes */

static int entry3(const uint8_t *b, size_t len, struct smbios *s)
{
	if (len < 7 || b[6] < EP3_LEN || b[6] > len) {
		problem(s, SMBIOS_P_EP_LENGTH, DIAG_ERROR, "3.x entry point: length field %u, %zu bytes there",
			len < 7 ? 0u : b[6], len);
		return -1;
	}
	if (!sums_to_zero(b, b[6])) {
		problem(s, SMBIOS_P_EP_CHECKSUM, DIAG_ERROR, "3.x entry point: its %u bytes do not sum to 0", b[6]);
		return -1;
	}
	s->ep64 = true;
	s->major = b[7], s->minor = b[8], s->docrev = b[9];
	if (s->major < 3 || b[10] != 1) {
		problem(s, SMBIOS_P_VERSION, DIAG_ERROR, "3.x entry point: version %u.%u, entry point revision %u",
			s->major, s->minor, b[10]);
		return -1;
	}
	s->table_len = get32(b + 12);
	s->table_addr = get64(b + 16);
	return 0;
}

static int entry2(const uint8_t *b, size_t len, struct smbios *s)
{
	/* 0x1e is a length some 2.1 firmware gives (the spec's typo); the
	 * structure is 0x1f bytes all the same, "_DMI_" part included */
	if (len < 6 || (b[5] != EP2_LEN && b[5] != EP2_LEN_OLD) || len < EP2_LEN) {
		problem(s, SMBIOS_P_EP_LENGTH, DIAG_ERROR, "2.x entry point: length field %u, %zu bytes there",
			len < 6 ? 0u : b[5], len);
		return -1;
	}
	if (!sums_to_zero(b, b[5])) {
		problem(s, SMBIOS_P_EP_CHECKSUM, DIAG_ERROR, "2.x entry point: its %u bytes do not sum to 0", b[5]);
		return -1;
	}
	if (memcmp(b + EP2_DMI_AT, "_DMI_", 5) != 0) {
		problem(s, SMBIOS_P_ANCHOR, DIAG_ERROR, "2.x entry point: no \"_DMI_\" at 0x%x", EP2_DMI_AT);
		return -1;
	}
	if (!sums_to_zero(b + EP2_DMI_AT, 15)) {
		problem(s, SMBIOS_P_EP_CHECKSUM, DIAG_ERROR, "2.x entry point: its \"_DMI_\" part does not sum to 0");
		return -1;
	}
	s->major = b[6], s->minor = b[7];
	/* the 32-bit entry point carries the version its structures follow:
	 * 2.1 and later, and 3.x too, beside or instead of the 64-bit one
	 * (DSP0134 3.0 5.2.1; U-Boot writes only this one, as 3.0) */
	if (s->major < 2 || (s->major == 2 && s->minor == 0)) {
		problem(s, SMBIOS_P_VERSION, DIAG_ERROR, "2.x entry point: version %u.%u (2.1 or later)", s->major,
			s->minor);
		return -1;
	}
	s->table_len = get16(b + 0x16);
	s->table_addr = get32(b + 0x18);
	s->nstructs_field = get16(b + 0x1c);
	return 0;
}

int smbios_entry_parse(const uint8_t *buf, size_t len, struct smbios *s)
{
	memset(s, 0, sizeof(*s));
	int r;
	if (buf && len >= 5 && memcmp(buf, "_SM3_", 5) == 0)
		r = entry3(buf, len, s);
	else if (buf && len >= 4 && memcmp(buf, "_SM_", 4) == 0)
		r = entry2(buf, len, s);
	else {
		problem(s, SMBIOS_P_ANCHOR, DIAG_ERROR, "entry point: no \"_SM3_\" or \"_SM_\" anchor");
		return -1;
	}
	if (r == 0 && (s->table_len == 0 || s->table_len > SMBIOS_TABLE_MAX)) {
		problem(s, SMBIOS_P_TABLE_LENGTH, DIAG_ERROR, "entry point: table length %u (0, or past %u)",
			s->table_len, SMBIOS_TABLE_MAX);
		r = -1;
	}
	s->entry_ok = r == 0;
	return r;
}

/* ---- the structure table ------------------------------------------------------------------ */

struct strset {
	const uint8_t *p; /* the first string */
	size_t len;	  /* the set's bytes before its final NUL */
};

/* String `n` (1-based; 0 means none) of a set, cleaned into out. */
static void take_string(struct smbios *s, const struct strset *set, uint32_t at, uint8_t n, char *out)
{
	out[0] = '\0';
	if (n == 0)
		return;
	size_t off = 0;
	for (unsigned i = 1; i < n && off < set->len; i++)
		off += strnlen((const char *)set->p + off, set->len - off) + 1;
	if (off >= set->len) {
		problem(s, SMBIOS_P_STRING_INDEX, DIAG_ERROR, "structure at 0x%x names string %u of a set of fewer", at,
			n);
		return;
	}
	size_t k = 0;
	for (const uint8_t *c = set->p + off; *c && k < SMBIOS_STR_MAX; c++)
		out[k++] = *c >= 0x20 && *c < 0x7f ? (char)*c : '?';
	while (k && out[k - 1] == ' ') /* firmware pads fixed-width fields with spaces */
		k--;
	out[k] = '\0';
}

/* DSP0134 7.2.1: the first three fields little-endian from 2.6 on,
 * network order before. */
static void take_uuid(struct smbios *s, const uint8_t *u)
{
	bool zeros = true, ones = true;
	for (int i = 0; i < 16; i++)
		zeros = zeros && u[i] == 0, ones = ones && u[i] == 0xff;
	if (zeros || ones)
		return;
	bool le = s->major > 2 || (s->major == 2 && s->minor >= 6);
	uint8_t b[16];
	memcpy(b, u, 16);
	if (le) {
		static const uint8_t order[8] = { 3, 2, 1, 0, 5, 4, 7, 6 };
		for (int i = 0; i < 8; i++)
			b[i] = u[order[i]];
	}
	snprintf(s->uuid, sizeof(s->uuid), "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
		 b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
}

/* The fields read, by type: where each string number sits in the
 * formatted area, and the length the type had in its first version
 * (DSP0134 7.1, 7.2, 7.3, 7.5). */
struct field {
	uint8_t type, at;
	size_t offset; /* in struct smbios */
};
static const struct field fields[] = {
	{ 0, 0x04, offsetof(struct smbios, bios_vendor) },
	{ 0, 0x05, offsetof(struct smbios, bios_version) },
	{ 0, 0x08, offsetof(struct smbios, bios_date) },
	{ 1, 0x04, offsetof(struct smbios, manufacturer) },
	{ 1, 0x05, offsetof(struct smbios, product) },
	{ 1, 0x07, offsetof(struct smbios, serial) },
	{ 2, 0x04, offsetof(struct smbios, board_manufacturer) },
	{ 2, 0x05, offsetof(struct smbios, board_product) },
	{ 2, 0x07, offsetof(struct smbios, board_serial) },
	{ 4, 0x10, offsetof(struct smbios, processor_version) },
};
static const uint8_t first_length[5] = { 0x12, 0x08, 0x08, 0, 0x1a };
#define TYPE1_UUID_AT 0x08
#define TYPE_END 127

static void decode(struct smbios *s, const uint8_t *p, uint32_t at, const struct strset *set, bool *seen)
{
	uint8_t type = p[0], length = p[1];
	if (type > 4 || type == 3 || seen[type])
		return; /* the first of each type: a second processor repeats the first's name */
	seen[type] = true;
	if (length < first_length[type])
		problem(s, SMBIOS_P_SHORT, DIAG_WARNING, "type %u at 0x%x is %u bytes, its first version has %u", type,
			at, length, first_length[type]);
	for (size_t i = 0; i < ARRAY_SIZE(fields); i++)
		if (fields[i].type == type && fields[i].at < length)
			take_string(s, set, at, p[fields[i].at], (char *)s + fields[i].offset);
	if (type == 1 && length >= TYPE1_UUID_AT + 16)
		take_uuid(s, p + TYPE1_UUID_AT);
}

void smbios_walk(const uint8_t *table, size_t len, struct smbios *s)
{
	uint32_t end = s->table_len;
	if (len < end) {
		problem(s, SMBIOS_P_TABLE_LENGTH, DIAG_ERROR, "table: %u bytes declared, %zu there", end, len);
		end = (uint32_t)len;
	}
	s->walked = true;
	bool seen[5] = { false }, ended = false;
	uint32_t off = 0;
	while (off < end && !ended) {
		const uint8_t *p = table + off;
		if (end - off < 4 || p[1] < 4 || p[1] > end - off) {
			problem(s, SMBIOS_P_TRUNCATED, DIAG_ERROR,
				"structure at 0x%x: formatted area of %u bytes, %u left in the table", off,
				end - off < 4 ? 0u : p[1], end - off);
			return;
		}
		/* the string set: NUL-terminated strings, then one more NUL
		 * (two NULs when there are none) */
		uint32_t str = off + p[1], k = str;
		while (k + 1 < end && !(table[k] == 0 && table[k + 1] == 0))
			k++;
		if (k + 1 >= end) {
			problem(s, SMBIOS_P_STRINGS, DIAG_ERROR,
				"structure at 0x%x (type %u): its strings run past the table's %u bytes", off, p[0],
				end);
			return;
		}
		/* a set holding strings ends at the NUL after its last one */
		struct strset set = { table + str, k > str ? k - str + 1 : 0 };
		s->nstructs++;
		if (p[0] == TYPE_END)
			ended = true;
		else
			decode(s, p, off, &set, seen);
		off = k + 2;
	}
	if (!ended)
		problem(s, SMBIOS_P_NO_END, s->ep64 ? DIAG_ERROR : DIAG_WARNING,
			"table: no end-of-table structure (type 127) in its %u bytes", end);
	if (!s->ep64 && s->nstructs != s->nstructs_field)
		problem(s, SMBIOS_P_COUNT, DIAG_WARNING, "table: %u structures, the entry point says %u", s->nstructs,
			s->nstructs_field);
}

/* ---- the firmware's table ------------------------------------------------------------------ */

/* The entry point at `ep`: its anchor and length byte are read before the
 * whole of it, each only where the memory map allows. */
static int read_entry(struct smbios *s, const uint8_t *ep)
{
	uint64_t at = (uintptr_t)ep;
	const char *why = memmap_read_refusal(at, 7);
	if (why) {
		memset(s, 0, sizeof(*s));
		problem(s, SMBIOS_P_EP_LENGTH, DIAG_ERROR, "entry point at 0x%llx refused: %s", (unsigned long long)at,
			why);
		return -1;
	}
	bool ep64 = memcmp(ep, "_SM3_", 5) == 0;
	size_t len = ep64 ? ep[6] : ep[5];
	if (!ep64 && len == EP2_LEN_OLD)
		len = EP2_LEN; /* the structure's real size (entry2) */
	if (len < 7 || memmap_read_refusal(at, len))
		len = 7; /* what is readable: the parser names the length */
	int r = smbios_entry_parse(ep, len, s);
	s->entry_addr = at;
	return r;
}

void smbios_read(struct smbios *s, const void *ep3, const void *ep2)
{
	struct smbios first;
	memset(s, 0, sizeof(*s));
	if (!ep3 && !ep2)
		return;
	if (ep3 && read_entry(s, ep3) != 0 && ep2) {
		first = *s; /* say why the 64-bit one was passed over */
		read_entry(s, ep2);
		for (size_t i = 0; i < first.diag.n; i++)
			diag_add(&s->diag, first.diag.msg[i].level, "%s", first.diag.msg[i].text);
		s->problems |= first.problems;
	} else if (!ep3) {
		read_entry(s, ep2);
	}
	if (!s->entry_ok)
		return;
	const char *why = memmap_read_refusal(s->table_addr, s->table_len);
	if (why) {
		problem(s, SMBIOS_P_TABLE_ADDRESS, DIAG_ERROR, "table at 0x%llx (%u bytes) refused: %s",
			(unsigned long long)s->table_addr, s->table_len, why);
		return;
	}
	smbios_walk((const uint8_t *)(uintptr_t)s->table_addr, s->table_len, s);
}

/* ---- names, records, lines ------------------------------------------------------------------ */

/* What firmware leaves in fields nobody filled in (lower case). */
static const char *const placeholders[] = {
	"to be filled by o.e.m.",
	"default string",
	"not specified",
	"not applicable",
	"none",
	"n/a",
	"unknown",
	"system product name",
	"system serial number",
	"base board serial number",
	"default",
	"123456789",
	"0123456789",
	"0",
	"oem",
	"empty",
	"invalid",
};

bool smbios_file_name(const char *in, char *out, size_t cap)
{
	out[0] = '\0';
	if (cap == 0)
		return false;
	char lower[SMBIOS_STR_MAX + 1];
	size_t n = 0;
	for (const char *c = in; *c && n < SMBIOS_STR_MAX; c++)
		lower[n++] = *c >= 'A' && *c <= 'Z' ? (char)(*c - 'A' + 'a') : *c;
	lower[n] = '\0';
	for (size_t i = 0; i < ARRAY_SIZE(placeholders); i++)
		if (strcmp(lower, placeholders[i]) == 0)
			return false;
	size_t k = 0, max = cap - 1 < SMBIOS_NAME_MAX ? cap - 1 : SMBIOS_NAME_MAX;
	for (const char *c = in; *c && k < max; c++) {
		bool keep = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
			    *c == '.' || *c == '_' || *c == '-';
		if (keep)
			out[k++] = *c;
		else if (k && out[k - 1] != '-')
			out[k++] = '-';
	}
	while (k && (out[k - 1] == '-' || out[k - 1] == '.'))
		k--;
	out[k] = '\0';
	size_t lead = strspn(out, "-.");
	memmove(out, out + lead, k - lead + 1);
	return out[0] != '\0';
}

void smbios_version(const struct smbios *s, char *out, size_t cap)
{
	if (s->entry_ok)
		snprintf(out, cap, "%u.%u", s->major, s->minor);
	else
		snprintf(out, cap, "%s", s->problems ? "refused" : "none");
}

void smbios_print(const struct smbios *s)
{
	char v[16];
	smbios_version(s, v, sizeof(v));
	if (!s->walked) {
		printf("  smbios     %s\n", s->entry_ok ? v : s->problems ? "refused (see the error above)" : "none");
		return;
	}
	/* each line within the console's width (core/base/wrap.h) */
	printf("  smbios     ");
	table_wrapf(13, "%s (%s entry point at 0x%llx, table at 0x%llx, %u structures)", v,
		    s->ep64 ? "64-bit" : "32-bit", (unsigned long long)s->entry_addr, (unsigned long long)s->table_addr,
		    s->nstructs);
	printf("  system     ");
	table_wrapf(13, "%s %s, serial %s, uuid %s", s->manufacturer[0] ? s->manufacturer : "?",
		    s->product[0] ? s->product : "?", s->serial[0] ? s->serial : "(none)",
		    s->uuid[0] ? s->uuid : "(none)");
	printf("  board      ");
	table_wrapf(13, "%s %s, serial %s", s->board_manufacturer[0] ? s->board_manufacturer : "?",
		    s->board_product[0] ? s->board_product : "?", s->board_serial[0] ? s->board_serial : "(none)");
	printf("  bios       ");
	table_wrapf(13, "%s %s (%s)", s->bios_vendor[0] ? s->bios_vendor : "?",
		    s->bios_version[0] ? s->bios_version : "?", s->bios_date[0] ? s->bios_date : "no date");
	if (s->processor_version[0]) {
		printf("  processor  ");
		table_wrap(13, s->processor_version);
	}
}
