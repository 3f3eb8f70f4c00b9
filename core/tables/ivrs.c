#include "ivrs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acpi.h"
#include "bytes.h"
#include "range.h"

#define IVRS_HEADER_LEN 48 /* ACPI header, IVinfo, 8 reserved */
#define IVHD10_LEN 24
#define IVHD11_LEN 40
#define IVMD_LEN 32
#define IVRS_MAX_BLOCKS 256
#define IVRS_MAX_ENTRIES 8192

/* Entry lengths (AMD IOMMU spec, IVHD device entries): below 80h the type's
 * top two bits say 4 (00b) or 8 (01b) bytes; from 80h only F0h (ACPI
 * device) is defined, 22 bytes and its UID. Linux knows no other length
 * either: it would not get past such an entry. */
static unsigned entry_length(const uint8_t *p, uint32_t room)
{
	if (p[0] < 0x80)
		return 4u << (p[0] >> 6);
	if (p[0] == IVHD_ACPI_HID)
		return room >= 22 ? 22u + p[21] : 22u;
	return 0;
}

/* The types the spec defines; the rest of 00h-7Fh is reserved (of a known
 * length, so skipped). 00h and 40h are padding. */
static bool entry_defined(uint8_t type)
{
	switch (type) {
	case IVHD_PAD4:
	case IVHD_ALL:
	case IVHD_SELECT:
	case IVHD_RANGE_START:
	case IVHD_RANGE_END:
	case IVHD_PAD8:
	case IVHD_ALIAS_SELECT:
	case IVHD_ALIAS_RANGE:
	case IVHD_EXT_SELECT:
	case IVHD_EXT_RANGE:
	case IVHD_SPECIAL:
	case IVHD_ACPI_HID:
		return true;
	}
	return false;
}

static void copy_id(char *out, const uint8_t *p, size_t n)
{
	memcpy(out, p, n);
	out[n] = '\0';
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)out[i] < 0x20 || (unsigned char)out[i] > 0x7e)
			out[i] = out[i] ? '?' : '\0';
}

static bool add_entry(struct ivrs *v, const struct ivrs_entry *e)
{
	if (v->ne == IVRS_MAX_ENTRIES)
		return false;
	if (v->ne % 64 == 0) {
		struct ivrs_entry *n = realloc(v->e, (v->ne + 64) * sizeof(*n));
		if (!n)
			return false;
		v->e = n;
	}
	v->e[v->ne++] = *e;
	return true;
}

/* A range opens with 03h, 43h or 47h and closes with the next 04h (the spec
 * pairs them; Linux keeps one open start, so a second start silently drops
 * the first, and an end with no start reuses whatever start came before). */
struct range_walk {
	bool open;
	uint32_t at;
	uint16_t from;
};

static void check_range(struct ivrs *v, const struct ivrs_block *b, struct range_walk *r, const struct ivrs_entry *e)
{
	bool start = e->type == IVHD_RANGE_START || e->type == IVHD_ALIAS_RANGE || e->type == IVHD_EXT_RANGE;
	if (start) {
		if (r->open)
			diag_add(&v->diag, DIAG_ERROR,
				 "IVHD at 0x%x: range start at 0x%x inside the range opened at 0x%x", b->offset,
				 e->offset, r->at);
		*r = (struct range_walk){ true, e->offset, e->devid };
	} else if (e->type == IVHD_RANGE_END) {
		if (!r->open)
			diag_add(&v->diag, DIAG_ERROR, "IVHD at 0x%x: range end at 0x%x has no start", b->offset,
				 e->offset);
		else if (e->devid < r->from)
			diag_add(&v->diag, DIAG_ERROR,
				 "IVHD at 0x%x: range at 0x%x ends (0x%04x) before it starts (0x%04x)", b->offset,
				 e->offset, e->devid, r->from);
		r->open = false;
	}
}

/* What Linux does with entries it cannot use, and the spec's values. */
static void check_entry(struct ivrs *v, const struct ivrs_block *b, const struct ivrs_entry *e)
{
	if (e->type == IVHD_SPECIAL && e->variety != IVHD_SPECIAL_IOAPIC && e->variety != IVHD_SPECIAL_HPET)
		/* Linux fails the whole IOMMU initialisation on it */
		diag_add(&v->diag, DIAG_ERROR, "IVHD at 0x%x: special entry at 0x%x has variety %u (1 IOAPIC, 2 HPET)",
			 b->offset, e->offset, e->variety);
	if (e->type != IVHD_ACPI_HID)
		return;
	if (b->type != 0x40)
		diag_add(&v->diag, DIAG_WARNING, "IVHD %02xh at 0x%x: ACPI device entry at 0x%x (only 40h has them)",
			 b->type, b->offset, e->offset);
	if (!e->hid[0])
		diag_add(&v->diag, DIAG_WARNING, "IVHD at 0x%x: ACPI device entry at 0x%x has no HID", b->offset,
			 e->offset);
	if (e->uid_format > IVHD_UID_STRING || (e->uid_format == IVHD_UID_NONE && e->uid_length))
		diag_add(&v->diag, DIAG_WARNING, "IVHD at 0x%x: ACPI device entry at 0x%x: UID format %u, length %u",
			 b->offset, e->offset, e->uid_format, e->uid_length);
}

static void parse_entries(struct ivrs *v, const uint8_t *buf, uint32_t off, uint32_t end, struct ivrs_block *b)
{
	struct range_walk range = { 0 };
	b->first_entry = v->ne;
	while (off < end) {
		const uint8_t *p = buf + off;
		unsigned len = entry_length(p, end - off);
		if (len == 0) {
			diag_add(&v->diag, DIAG_ERROR,
				 "IVHD at 0x%x: entry type 0x%02x at 0x%x has no defined length; rest of block unread",
				 b->offset, p[0], off);
			return;
		}
		if (len > end - off) {
			diag_add(&v->diag, DIAG_ERROR,
				 "IVHD at 0x%x (length %u): entry at 0x%x needs %u bytes, %u left", b->offset,
				 b->length, off, len, end - off);
			return;
		}
		struct ivrs_entry e = { .offset = off,
					.type = p[0],
					.length = (uint8_t)(len > 255 ? 255 : len),
					.devid = get16(p + 1),
					.setting = p[3] };
		switch (e.type) {
		case IVHD_ALIAS_SELECT:
		case IVHD_ALIAS_RANGE:
			e.source = get16(p + 5);
			break;
		case IVHD_EXT_SELECT:
		case IVHD_EXT_RANGE:
			e.ext = get32(p + 4);
			break;
		case IVHD_SPECIAL:
			e.handle = p[4];
			e.source = get16(p + 5);
			e.variety = p[7];
			break;
		case IVHD_ACPI_HID:
			copy_id(e.hid, p + 4, 8);
			copy_id(e.cid, p + 12, 8);
			e.uid_format = p[20];
			e.uid_length = p[21];
			copy_id(e.uid, p + 22, e.uid_length < sizeof(e.uid) ? e.uid_length : sizeof(e.uid) - 1);
			break;
		default:
			if (!entry_defined(e.type))
				diag_add(&v->diag, DIAG_WARNING,
					 "IVHD at 0x%x: reserved entry type 0x%02x at 0x%x skipped", b->offset, e.type,
					 off);
			break;
		}
		check_range(v, b, &range, &e);
		check_entry(v, b, &e);
		if (!add_entry(v, &e)) {
			diag_add(&v->diag, DIAG_ERROR, "IVRS: too many device entries (or no memory) at 0x%x", off);
			return;
		}
		b->nentries++;
		off += len;
	}
	if (range.open)
		diag_add(&v->diag, DIAG_ERROR, "IVHD at 0x%x: range opened at 0x%x has no end", b->offset, range.at);
}

/* One device named twice in one IVHD: two selects of one id, or two ranges
 * sharing ids. Linux writes the device table entry once per entry, so the
 * later entry's settings win (AMD firmware uses that: a range over every
 * bus, then an alias range over bus FFh); the unit can still be driven, so
 * these are warnings. Sorted, so that a long list costs n log n. */
struct span {
	uint16_t from, to;
	uint32_t at;
};

static int span_order(const void *x, const void *y)
{
	const struct span *a = x, *b = y;
	if (a->from != b->from)
		return a->from < b->from ? -1 : 1;
	return a->at < b->at ? -1 : a->at > b->at;
}

#define BDF_FMT "%02x:%02x.%x"
#define BDF_ARG(id) (id) >> 8, ((id) >> 3) & 0x1f, (id)&7

static void check_repeats(struct ivrs *v, const struct ivrs_block *b)
{
	if (!b->nentries)
		return;
	struct span *sel = malloc(b->nentries * sizeof(*sel)), *rng = malloc(b->nentries * sizeof(*rng));
	size_t ns = 0, nr = 0;
	struct span open = { 0 };
	bool in_range = false;
	for (size_t i = 0; sel && rng && i < b->nentries; i++) {
		const struct ivrs_entry *e = &v->e[b->first_entry + i];
		switch (e->type) {
		case IVHD_SELECT:
		case IVHD_ALIAS_SELECT:
		case IVHD_EXT_SELECT:
			sel[ns++] = (struct span){ e->devid, e->devid, e->offset };
			break;
		case IVHD_RANGE_START:
		case IVHD_ALIAS_RANGE:
		case IVHD_EXT_RANGE: /* a second start replaces the first (check_range) */
			open = (struct span){ e->devid, e->devid, e->offset };
			in_range = true;
			break;
		case IVHD_RANGE_END:
			if (in_range && e->devid >= open.from) {
				open.to = e->devid;
				rng[nr++] = open;
			}
			in_range = false;
			break;
		default:
			break;
		}
	}
	if (!sel || !rng)
		diag_add(&v->diag, DIAG_WARNING, "IVHD at 0x%x: no memory to look for repeated entries", b->offset);
	qsort(sel, ns, sizeof(*sel), span_order);
	for (size_t i = 1; i < ns; i++)
		if (sel[i].from == sel[i - 1].from)
			diag_add(&v->diag, DIAG_WARNING,
				 "IVHD at 0x%x: select of " BDF_FMT " at 0x%x repeats the one at 0x%x", b->offset,
				 BDF_ARG(sel[i].from), sel[i].at, sel[i - 1].at);
	qsort(rng, nr, sizeof(*rng), span_order);
	for (size_t i = 1, reach = 0; i < nr; i++) {
		const struct span *a = &rng[reach], *c = &rng[i];
		if (c->from <= a->to) {
			if (c->from == a->from && c->to == a->to)
				diag_add(&v->diag, DIAG_WARNING,
					 "IVHD at 0x%x: range " BDF_FMT "-" BDF_FMT " at 0x%x repeats the one at 0x%x",
					 b->offset, BDF_ARG(c->from), BDF_ARG(c->to), c->at, a->at);
			else
				diag_add(&v->diag, DIAG_WARNING,
					 "IVHD at 0x%x: range " BDF_FMT "-" BDF_FMT " at 0x%x overlaps " BDF_FMT
					 "-" BDF_FMT " at 0x%x; the one at 0x%x wins",
					 b->offset, BDF_ARG(c->from), BDF_ARG(c->to), c->at, BDF_ARG(a->from),
					 BDF_ARG(a->to), a->at, c->at > a->at ? c->at : a->at);
		}
		if (c->to > a->to)
			reach = i;
	}
	free(sel);
	free(rng);
}

/* IVinfo (IVRS header, offset 36): bits 21:15 VA size, 14:8 PA size, 7:5
 * GVA size (010b 48 bits, 011b 57 bits); 4:2 and 31:23 reserved (FWTS
 * checks them). The 8 bytes after it are reserved too. */
static void check_header(struct ivrs *v, const uint8_t *buf)
{
	unsigned rev = buf[8], va = (v->ivinfo >> 15) & 0x7f, pa = (v->ivinfo >> 8) & 0x7f, gva = (v->ivinfo >> 5) & 7;
	if (rev != 1 && rev != 2)
		diag_add(&v->diag, DIAG_WARNING, "IVRS: revision %u (the spec knows 1 and 2)", rev);
	if (v->ivinfo & 0xff80001c)
		diag_add(&v->diag, DIAG_WARNING, "IVRS: IVinfo 0x%08x sets reserved bits", v->ivinfo);
	if (get64(buf + 40))
		diag_add(&v->diag, DIAG_WARNING, "IVRS: reserved bytes at 0x28 are not zero");
	if (pa < 32 || pa > 52)
		diag_add(&v->diag, DIAG_WARNING, "IVRS: IVinfo says %u physical address bits (x86 has 32 to 52)", pa);
	if (va > 64 || (va && va < 32)) /* 0: Linux takes 64 */
		diag_add(&v->diag, DIAG_WARNING, "IVRS: IVinfo says %u virtual address bits", va);
	if (gva != 0 && gva != 2 && gva != 3)
		diag_add(&v->diag, DIAG_WARNING, "IVRS: IVinfo GVA size %u is reserved (2: 48 bits, 3: 57 bits)", gva);
}

static void check_ivhd(struct ivrs *v, const struct ivrs_block *b, unsigned revision)
{
	if (b->info & 0xe0e0) /* IOMMU info: 15:13 and 7:5 reserved */
		diag_add(&v->diag, DIAG_WARNING, "IVHD at 0x%x: IOMMU info 0x%04x sets reserved bits", b->offset,
			 b->info);
	if (b->cap_offset < 0x40 || (b->cap_offset & 3))
		diag_add(&v->diag, DIAG_WARNING, "IVHD at 0x%x: capability offset 0x%x is not a capability's",
			 b->offset, b->cap_offset);
	if (b->type == 0x10)
		return;
	if (revision < 2)
		/* the spec's IVRS revision field: 1 for tables of fixed-length
		 * (type 10h) IVHDs only, 2 once 11h or 40h appear. The block is
		 * still read, as the OSes read it (they key on the block type) */
		diag_add(
		    &v->diag, DIAG_WARNING,
		    "IVHD %02xh at 0x%x in a revision %u IVRS (the spec: 1 for 10h-only tables); read as %02xh anyway",
		    b->type, b->offset, revision, b->type);
	if (((b->efr >> 10) & 3) == 3) /* EFR HATS 11b: Linux turns host translation off */
		diag_add(&v->diag, DIAG_WARNING, "IVHD at 0x%x: EFR image's HATS is 11b (reserved)", b->offset);
}

/* IVMD flags: 0 unity, 1 IR, 2 IW, 3 exclusion range; 7:4 reserved. Linux
 * ignores an IVMD with neither unity nor exclusion. 22h covers the
 * requester ids from DeviceID to the auxiliary data. */
static void check_ivmd(struct ivrs *v, struct ivrs_block *b)
{
	if (b->length != IVMD_LEN)
		diag_add(&v->diag, DIAG_WARNING, "IVMD at 0x%x is %u bytes (the spec says %d)", b->offset, b->length,
			 IVMD_LEN);
	if (b->flags & 0xf0)
		diag_add(&v->diag, DIAG_WARNING, "IVMD at 0x%x: flags 0x%02x set reserved bits", b->offset, b->flags);
	if (!(b->flags & (IVMD_UNITY | IVMD_EXCLUSION)))
		diag_add(&v->diag, DIAG_WARNING, "IVMD at 0x%x: flags 0x%02x neither unity nor exclusion: no effect",
			 b->offset, b->flags);
	else if ((b->flags & (IVMD_IR | IVMD_IW)) && !(b->flags & IVMD_UNITY))
		diag_add(&v->diag, DIAG_WARNING, "IVMD at 0x%x: flags 0x%02x: IR/IW without unity mean nothing",
			 b->offset, b->flags);
	struct range r;
	enum range_fault f = range_from_length(b->start, b->size, &r);
	b->refused = f != RANGE_OK;
	/* an empty one maps nothing and harms nothing; the rest cannot be mapped */
	if (b->refused)
		diag_add(&v->diag, f == RANGE_EMPTY ? DIAG_WARNING : DIAG_ERROR, "IVMD at 0x%x: 0x%llx +0x%llx %s%s",
			 b->offset, (unsigned long long)b->start, (unsigned long long)b->size, range_fault_text(f),
			 f == RANGE_EMPTY ? "" : "; not mapped");
	if (b->type == 0x22 && b->aux < b->devid)
		diag_add(&v->diag, DIAG_ERROR, "IVMD at 0x%x: device range 0x%04x-0x%04x ends before it starts",
			 b->offset, b->devid, b->aux);
}

/* One IOMMU is one (segment, requester id) at one register base; it may be
 * described once per IVHD type. Linux picks one type for the whole table,
 * the last one given for the first block's unit (walking until a block type
 * above 40h), and uses only blocks of that type: a unit without one is not
 * used at all. */
static void check_units(struct ivrs *v, uint8_t linux_type)
{
	for (size_t i = 0; i < v->n; i++) {
		const struct ivrs_block *a = &v->b[i];
		if (!ivrs_is_ivhd(a->type))
			continue;
		bool linux_sees = false;
		for (size_t k = 0; k < v->n; k++) {
			const struct ivrs_block *b = &v->b[k];
			if (!ivrs_is_ivhd(b->type) || b->segment != a->segment)
				continue;
			if (b->devid == a->devid || b->base == a->base)
				linux_sees |= b->type == linux_type;
			if (k <= i)
				continue;
			if (b->devid == a->devid && b->type == a->type)
				diag_add(&v->diag, DIAG_ERROR, "IVHD %02xh at 0x%x and at 0x%x: the same IOMMU twice",
					 a->type, a->offset, b->offset);
			else if (b->devid == a->devid && b->base != a->base)
				diag_add(&v->diag, DIAG_ERROR,
					 "IVHDs at 0x%x and 0x%x: one IOMMU, bases 0x%llx and 0x%llx", a->offset,
					 b->offset, (unsigned long long)a->base, (unsigned long long)b->base);
			else if (b->devid != a->devid && b->base == a->base)
				diag_add(&v->diag, DIAG_ERROR, "IVHDs at 0x%x and 0x%x: two IOMMUs at base 0x%llx",
					 a->offset, b->offset, (unsigned long long)a->base);
		}
		if (!linux_sees && ivrs_preferred(v, i))
			diag_add(&v->diag, DIAG_WARNING,
				 "IVHD %02xh at 0x%x: no %02xh block for this IOMMU; Linux skips it", a->type,
				 a->offset, linux_type);
	}
}

int ivrs_parse(const uint8_t *buf, size_t len, struct ivrs *v)
{
	memset(v, 0, sizeof(*v));
	uint32_t tlen = acpi_table_header(buf, len, "IVRS", IVRS_HEADER_LEN, NULL, &v->diag);
	if (!tlen)
		return -1;
	v->ivinfo = get32(buf + 36);
	check_header(v, buf);

	/* Linux's IVHD type: see check_units */
	uint8_t linux_type = 0;
	uint16_t first_unit = 0;
	bool linux_walk = true;
	uint32_t off = IVRS_HEADER_LEN;
	while (off < tlen) {
		if (tlen - off < 4) {
			diag_add(&v->diag, DIAG_ERROR, "IVRS: %u stray bytes at 0x%x", tlen - off, off);
			break;
		}
		const uint8_t *p = buf + off;
		struct ivrs_block b = { .offset = off, .type = p[0], .flags = p[1], .length = get16(p + 2) };
		if (b.length < 4 || b.length > tlen - off) {
			diag_add(&v->diag, DIAG_ERROR,
				 "IVRS: block at 0x%x (type 0x%02x) has length %u (room for %u); stopped", off, b.type,
				 b.length, tlen - off);
			break;
		}
		size_t need = b.type == 0x10 ? IVHD10_LEN : ivrs_is_ivhd(b.type) ? IVHD11_LEN : IVMD_LEN;
		linux_walk &= b.type <= 0x40;
		if (!ivrs_is_ivhd(b.type) && !ivrs_is_ivmd(b.type)) {
			diag_add(&v->diag, DIAG_WARNING, "IVRS: unknown block type 0x%02x at 0x%x skipped", b.type,
				 off);
			off += b.length;
			continue;
		}
		if (b.length < need) {
			diag_add(&v->diag, DIAG_ERROR,
				 "IVRS: block type 0x%02x at 0x%x is %u bytes, needs %zu; skipped", b.type, off,
				 b.length, need);
			off += b.length;
			continue;
		}
		if (v->n == IVRS_MAX_BLOCKS) {
			diag_add(&v->diag, DIAG_ERROR, "IVRS: more than %d blocks; stopped", IVRS_MAX_BLOCKS);
			break;
		}
		b.devid = get16(p + 4);
		if (ivrs_is_ivhd(b.type)) {
			b.cap_offset = get16(p + 6);
			b.base = get64(p + 8);
			b.segment = get16(p + 16);
			b.info = get16(p + 18);
			if (b.type == 0x10) {
				b.feature = get32(p + 20);
			} else {
				b.attributes = get32(p + 20);
				b.efr = get64(p + 24);
			}
			parse_entries(v, buf, off + (uint32_t)need, off + b.length, &b);
			check_repeats(v, &b);
			check_ivhd(v, &b, buf[8]);
			if (linux_walk && (!linux_type || b.devid == first_unit)) {
				first_unit = linux_type ? first_unit : b.devid;
				linux_type = b.type;
			}
		} else {
			b.aux = get16(p + 6);
			b.segment = get16(p + 8); /* Linux reads it here; FWTS calls it reserved */
			b.start = get64(p + 16);
			b.size = get64(p + 24);
			check_ivmd(v, &b);
		}
		if (v->n % 16 == 0) {
			struct ivrs_block *nb = realloc(v->b, (v->n + 16) * sizeof(*nb));
			if (!nb) {
				diag_add(&v->diag, DIAG_ERROR, "IVRS: out of memory at 0x%x", off);
				break;
			}
			v->b = nb;
		}
		v->b[v->n++] = b;
		off += b.length;
	}
	check_units(v, linux_type);
	return 0;
}

void ivrs_free(struct ivrs *v)
{
	free(v->b);
	free(v->e);
	v->b = NULL;
	v->e = NULL;
	v->n = v->ne = 0;
}

bool ivrs_covers(const struct ivrs *v, const struct ivrs_block *h, uint16_t bdf)
{
	uint32_t range_from = 0;
	bool in_range = false;
	for (size_t i = 0; i < h->nentries; i++) {
		const struct ivrs_entry *e = &v->e[h->first_entry + i];
		switch (e->type) {
		case IVHD_ALL:
			return true;
		case IVHD_SELECT:
		case IVHD_ALIAS_SELECT:
		case IVHD_EXT_SELECT:
			if (e->devid == bdf)
				return true;
			break;
		case IVHD_RANGE_START:
		case IVHD_ALIAS_RANGE:
		case IVHD_EXT_RANGE:
			range_from = e->devid;
			in_range = true;
			break;
		case IVHD_RANGE_END:
			if (in_range && bdf >= range_from && bdf <= e->devid)
				return true;
			in_range = false;
			break;
		default:
			break;
		}
	}
	return false;
}

bool ivrs_preferred(const struct ivrs *v, size_t i)
{
	const struct ivrs_block *a = &v->b[i];
	if (!ivrs_is_ivhd(a->type))
		return false;
	for (size_t k = 0; k < v->n; k++) {
		const struct ivrs_block *b = &v->b[k];
		if (k == i || !ivrs_is_ivhd(b->type) || b->segment != a->segment || b->devid != a->devid ||
		    b->base != a->base)
			continue;
		if (b->type > a->type || (b->type == a->type && k < i))
			return false;
	}
	return true;
}

static const char *entry_name(uint8_t type)
{
	switch (type) {
	case IVHD_PAD4:
	case IVHD_PAD8:
		return "pad";
	case IVHD_ALL:
		return "all";
	case IVHD_SELECT:
		return "select";
	case IVHD_RANGE_START:
		return "range-start";
	case IVHD_RANGE_END:
		return "range-end";
	case IVHD_ALIAS_SELECT:
		return "alias";
	case IVHD_ALIAS_RANGE:
		return "alias-range";
	case IVHD_EXT_SELECT:
		return "ext";
	case IVHD_EXT_RANGE:
		return "ext-range";
	case IVHD_SPECIAL:
		return "special";
	case IVHD_ACPI_HID:
		return "acpi-hid";
	}
	return "unknown";
}

static void print_bdf(uint16_t id)
{
	printf("%02x:%02x.%x", id >> 8, (id >> 3) & 0x1f, id & 7);
}

void ivrs_print(const struct ivrs *v)
{
	printf("  IVRS: IVinfo 0x%08x (VA size %u, PA size %u, GVA size %u%s)\n", v->ivinfo, (v->ivinfo >> 15) & 0x7f,
	       (v->ivinfo >> 8) & 0x7f, (v->ivinfo >> 5) & 0x7, v->ivinfo & 1 ? ", EFR supported" : "");
	for (size_t i = 0; i < v->n; i++) {
		const struct ivrs_block *b = &v->b[i];
		if (ivrs_is_ivmd(b->type)) {
			printf("    IVMD %02xh at 0x%03x: flags 0x%02x device ", b->type, b->offset, b->flags);
			print_bdf(b->devid);
			printf(" 0x%llx +0x%llx%s\n", (unsigned long long)b->start, (unsigned long long)b->size,
			       b->refused ? " (refused)" : "");
			continue;
		}
		printf("    IVHD %02xh at 0x%03x: segment %u iommu ", b->type, b->offset, b->segment);
		print_bdf(b->devid);
		printf(" base 0x%llx cap 0x%02x flags 0x%02x%s\n", (unsigned long long)b->base, b->cap_offset, b->flags,
		       ivrs_preferred(v, i) ? "" : " (superseded by a later type)");
		for (size_t k = 0; k < b->nentries; k++) {
			const struct ivrs_entry *e = &v->e[b->first_entry + k];
			printf("      %-11s ", entry_name(e->type));
			print_bdf(e->devid);
			printf(" setting 0x%02x", e->setting);
			if (e->type == IVHD_ALIAS_SELECT || e->type == IVHD_ALIAS_RANGE) {
				printf(" as ");
				print_bdf(e->source);
			} else if (e->type == IVHD_SPECIAL) {
				printf(" %s %u is ",
				       e->variety == IVHD_SPECIAL_IOAPIC ? "ioapic"
				       : e->variety == IVHD_SPECIAL_HPET ? "hpet"
									 : "variety",
				       e->handle);
				print_bdf(e->source);
			} else if (e->type == IVHD_ACPI_HID) {
				printf(" hid %s cid %s uid %s", e->hid, e->cid, e->uid);
			}
			printf("\n");
		}
	}
	for (size_t i = 0; i < v->diag.n; i++)
		printf("    %s: %s\n", v->diag.msg[i].level == DIAG_ERROR ? "error" : "warning", v->diag.msg[i].text);
}
