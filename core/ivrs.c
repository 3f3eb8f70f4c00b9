#include "ivrs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytes.h"

#define IVRS_HEADER_LEN 48 /* ACPI header, IVinfo, 8 reserved */
#define IVHD10_LEN 24
#define IVHD11_LEN 40
#define IVMD_LEN 32
#define IVRS_MAX_BLOCKS 256
#define IVRS_MAX_ENTRIES 8192

/* Entries below 80h carry their length in the type's top bits (4 << t>>6);
 * F0h (ACPI HID) carries it at byte 21; other types are unknown lengths. */
static unsigned entry_length(const uint8_t *p, uint32_t room)
{
	if (p[0] < 0x80)
		return 4u << (p[0] >> 6);
	if (p[0] == IVHD_ACPI_HID)
		return room >= 22 ? 22u + p[21] : 22u;
	return 0;
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

static void parse_entries(struct ivrs *v, const uint8_t *buf, uint32_t off, uint32_t end, struct ivrs_block *b)
{
	b->first_entry = v->ne;
	while (off < end) {
		const uint8_t *p = buf + off;
		unsigned len = entry_length(p, end - off);
		if (len == 0) {
			diag_add(&v->diag, DIAG_WARNING,
				 "IVHD at 0x%x: device entry type 0x%02x at 0x%x has no known length; rest of the "
				 "block skipped",
				 b->offset, p[0], off);
			break;
		}
		if (len > end - off) {
			diag_add(&v->diag, DIAG_ERROR, "IVHD at 0x%x: device entry at 0x%x needs %u bytes, %u left",
				 b->offset, off, len, end - off);
			break;
		}
		struct ivrs_entry e = { .offset = off,
					.type = p[0],
					.length = (uint8_t)(len > 255 ? 255 : len),
					.devid = get16(p + 1),
					.setting = p[3] };
		switch (e.type) {
		case IVHD_PAD4:
		case IVHD_ALL:
		case IVHD_SELECT:
		case IVHD_RANGE_START:
		case IVHD_RANGE_END:
		case IVHD_PAD8:
			break;
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
			diag_add(&v->diag, DIAG_WARNING,
				 "IVHD at 0x%x: unknown device entry type 0x%02x at 0x%x skipped", b->offset, e.type,
				 off);
			break;
		}
		if (!add_entry(v, &e)) {
			diag_add(&v->diag, DIAG_ERROR, "IVRS: too many device entries (or no memory) at 0x%x", off);
			break;
		}
		b->nentries++;
		off += len;
	}
}

int ivrs_parse(const uint8_t *buf, size_t len, struct ivrs *v)
{
	memset(v, 0, sizeof(*v));
	if (!buf || len < IVRS_HEADER_LEN) {
		diag_add(&v->diag, DIAG_ERROR, "IVRS: %zu bytes, shorter than its %d-byte header", len,
			 IVRS_HEADER_LEN);
		return -1;
	}
	if (memcmp(buf, "IVRS", 4) != 0)
		diag_add(&v->diag, DIAG_ERROR, "IVRS: signature is \"%.4s\"", (const char *)buf);
	uint32_t tlen = get32(buf + 4);
	if (tlen > len || tlen < IVRS_HEADER_LEN) {
		diag_add(&v->diag, DIAG_ERROR, "IVRS: length field says %u bytes, %zu are there; reading %zu", tlen,
			 len, len);
		tlen = len > UINT32_MAX ? UINT32_MAX : (uint32_t)len;
	}
	v->ivinfo = get32(buf + 36);

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
		} else {
			b.aux = get16(p + 6);
			b.start = get64(p + 16);
			b.size = get64(p + 24);
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
			printf(" 0x%llx +0x%llx\n", (unsigned long long)b->start, (unsigned long long)b->size);
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
