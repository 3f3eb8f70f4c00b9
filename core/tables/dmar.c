#include "dmar.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acpi.h"
#include "bytes.h"
#include "range.h"

#define DMAR_HEADER_LEN 48 /* ACPI header, host address width, flags, 10 reserved */
#define SCOPE_HEADER_LEN 6
/* A table has at most a few hundred structures; more means a corrupt one
 * that we refuse to follow further. */
#define DMAR_MAX_STRUCTS 1024
#define DMAR_MAX_SCOPES 4096

static const char *const type_names[] = { "DRHD", "RMRR", "ATSR", "RHSA", "ANDD", "SATC" };
static const char *const scope_names[] = { "?", "endpoint", "bridge", "ioapic", "hpet", "namespace" };

const char *dmar_type_name(unsigned type)
{
	return type < 6 ? type_names[type] : "unknown";
}
const char *dmar_scope_name(unsigned type)
{
	return type >= 1 && type <= 5 ? scope_names[type] : "unknown";
}

/* Per known structure: the fixed part it needs, and where its device
 * scopes begin (0: it has none). VT-d spec 8.3-8.8. */
static const struct {
	uint8_t min_length, scopes_at;
} layout[] = {
	[DMAR_DRHD] = { 16, 16 }, [DMAR_RMRR] = { 24, 24 }, [DMAR_ATSR] = { 8, 8 },
	[DMAR_RHSA] = { 20, 0 },  [DMAR_ANDD] = { 8, 0 },   [DMAR_SATC] = { 8, 8 },
};

static size_t scopes_at(unsigned type)
{
	return layout[type].scopes_at;
}
static size_t min_length(unsigned type)
{
	return layout[type].min_length;
}

static bool add_scope(struct dmar *d, const struct dmar_scope *sc)
{
	if (d->nscopes == DMAR_MAX_SCOPES)
		return false;
	if (d->nscopes % 64 == 0) {
		struct dmar_scope *s = realloc(d->scopes, (d->nscopes + 64) * sizeof(*s));
		if (!s)
			return false;
		d->scopes = s;
	}
	d->scopes[d->nscopes++] = *sc;
	return true;
}

static void parse_scopes(struct dmar *d, const uint8_t *buf, uint32_t start, uint32_t end, struct dmar_struct *st)
{
	st->first_scope = d->nscopes;
	uint32_t off = start;
	while (off < end) {
		if (end - off < SCOPE_HEADER_LEN) {
			diag_add(&d->diag, DIAG_ERROR, "%s at 0x%x: %u stray bytes after its device scopes",
				 dmar_type_name(st->type), st->offset, end - off);
			break;
		}
		const uint8_t *p = buf + off;
		struct dmar_scope sc = {
			.offset = off, .type = p[0], .length = p[1], .enum_id = p[4], .start_bus = p[5]
		};
		if (sc.length < SCOPE_HEADER_LEN || sc.length > end - off) {
			diag_add(&d->diag, DIAG_ERROR, "%s at 0x%x: device scope at 0x%x has length %u (room for %u)",
				 dmar_type_name(st->type), st->offset, off, sc.length, end - off);
			break;
		}
		if ((sc.length - SCOPE_HEADER_LEN) % 2)
			diag_add(&d->diag, DIAG_ERROR, "device scope at 0x%x: a path of odd length %u", off,
				 sc.length - SCOPE_HEADER_LEN);
		unsigned npath = (sc.length - SCOPE_HEADER_LEN) / 2;
		if (npath > DMAR_MAX_PATH) {
			diag_add(&d->diag, DIAG_ERROR, "device scope at 0x%x: path of %u hops, more than %u", off,
				 npath, DMAR_MAX_PATH);
			npath = DMAR_MAX_PATH;
		}
		if (npath == 0 && sc.type != DMAR_SCOPE_NAMESPACE)
			diag_add(&d->diag, DIAG_ERROR, "device scope at 0x%x: no path", off);
		sc.npath = (uint8_t)npath;
		for (unsigned i = 0; i < npath; i++) {
			sc.path[i].dev = p[SCOPE_HEADER_LEN + 2 * i];
			sc.path[i].fn = p[SCOPE_HEADER_LEN + 2 * i + 1];
			if (sc.path[i].dev > 31 || sc.path[i].fn > 7)
				diag_add(&d->diag, DIAG_ERROR, "device scope at 0x%x: path hop %02x.%x is not a device",
					 off, sc.path[i].dev, sc.path[i].fn);
		}
		if (sc.type < DMAR_SCOPE_ENDPOINT || sc.type > DMAR_SCOPE_NAMESPACE)
			diag_add(&d->diag, DIAG_WARNING, "device scope at 0x%x: unknown type %u", off, sc.type);
		if (!add_scope(d, &sc)) {
			diag_add(&d->diag, DIAG_ERROR, "too many device scopes (or no memory): stopped at 0x%x", off);
			break;
		}
		st->nscopes++;
		off += sc.length;
	}
}

static void decode_fixed(struct dmar *d, const uint8_t *p, struct dmar_struct *st)
{
	switch (st->type) {
	case DMAR_DRHD:
		st->flags = p[4];
		st->size = p[5] & 0x0f;
		st->segment = get16(p + 6);
		st->base = get64(p + 8);
		break;
	case DMAR_RMRR: {
		st->segment = get16(p + 6);
		st->base = get64(p + 8);
		st->limit = get64(p + 16);
		struct range r;
		enum range_fault f = range_from_limit(st->base, st->limit, &r);
		st->refused = f != RANGE_OK;
		if (st->refused)
			diag_add(&d->diag, DIAG_ERROR, "RMRR at 0x%x: 0x%llx-0x%llx %s; not mapped", st->offset,
				 (unsigned long long)st->base, (unsigned long long)st->limit, range_fault_text(f));
		break;
	}
	case DMAR_ATSR:
	case DMAR_SATC:
		st->flags = p[4];
		st->segment = get16(p + 6);
		break;
	case DMAR_RHSA:
		st->base = get64(p + 8);
		st->proximity = get32(p + 16);
		break;
	case DMAR_ANDD: {
		st->device_number = p[7];
		size_t room = (size_t)st->length - 8;
		size_t n = room < sizeof(st->name) - 1 ? room : sizeof(st->name) - 1;
		memcpy(st->name, p + 8, n);
		st->name[n] = '\0';
		for (char *c = st->name; *c; c++)
			if ((unsigned char)*c < 0x20 || (unsigned char)*c > 0x7e)
				*c = '?';
		if (n == 0)
			diag_add(&d->diag, DIAG_ERROR, "ANDD at 0x%x: no object name", st->offset);
		break;
	}
	default:
		break;
	}
}

/* Two DRHDs at one register base are one unit described twice: taken over
 * as two, the second take-over would save the first's state as the
 * firmware's and give that back; an error, so the table is not used. One
 * INCLUDE_PCI_ALL unit per segment (VT-d 8.3): with two, which one the
 * unlisted devices sit behind is a guess, but each unit can still be
 * driven: a warning. */
static void check_units(struct dmar *d)
{
	for (size_t i = 0; i < d->n; i++) {
		const struct dmar_struct *a = &d->s[i];
		if (a->type != DMAR_DRHD)
			continue;
		for (size_t k = i + 1; k < d->n; k++) {
			const struct dmar_struct *b = &d->s[k];
			if (b->type != DMAR_DRHD)
				continue;
			if (b->base == a->base)
				diag_add(&d->diag, DIAG_ERROR, "DRHDs at 0x%x and 0x%x: one register base 0x%llx",
					 a->offset, b->offset, (unsigned long long)a->base);
			if (b->segment == a->segment && (a->flags & b->flags & DMAR_DRHD_INCLUDE_PCI_ALL))
				diag_add(&d->diag, DIAG_WARNING,
					 "DRHDs at 0x%x and 0x%x: both INCLUDE_PCI_ALL in segment %u", a->offset,
					 b->offset, a->segment);
		}
	}
}

int dmar_parse(const uint8_t *buf, size_t len, struct dmar *d)
{
	memset(d, 0, sizeof(*d));
	uint32_t tlen = acpi_table_header(buf, len, "DMAR", DMAR_HEADER_LEN, NULL, &d->diag);
	if (!tlen)
		return -1;
	d->host_addr_width = buf[36];
	d->flags = buf[37];

	uint32_t off = DMAR_HEADER_LEN;
	while (off < tlen) {
		if (tlen - off < 4) {
			diag_add(&d->diag, DIAG_ERROR, "DMAR: %u stray bytes at 0x%x", tlen - off, off);
			break;
		}
		const uint8_t *p = buf + off;
		struct dmar_struct st = { .offset = off, .type = get16(p), .length = get16(p + 2) };
		if (st.length < 4 || st.length > tlen - off) {
			diag_add(&d->diag, DIAG_ERROR,
				 "DMAR: structure at 0x%x (type %u) has length %u (room for %u); stopped", off, st.type,
				 st.length, tlen - off);
			break;
		}
		if (st.type > DMAR_SATC) {
			diag_add(&d->diag, DIAG_WARNING, "DMAR: unknown structure type %u at 0x%x skipped", st.type,
				 off);
			off += st.length;
			continue;
		}
		if (st.length < min_length(st.type)) {
			diag_add(&d->diag, DIAG_ERROR, "DMAR: %s at 0x%x is %u bytes, needs %zu; skipped",
				 dmar_type_name(st.type), off, st.length, min_length(st.type));
			off += st.length;
			continue;
		}
		if (d->n == DMAR_MAX_STRUCTS) {
			diag_add(&d->diag, DIAG_ERROR, "DMAR: more than %d structures; stopped", DMAR_MAX_STRUCTS);
			break;
		}
		decode_fixed(d, p, &st);
		if (scopes_at(st.type))
			parse_scopes(d, buf, off + (uint32_t)scopes_at(st.type), off + st.length, &st);
		if (d->n % 16 == 0) {
			struct dmar_struct *s = realloc(d->s, (d->n + 16) * sizeof(*s));
			if (!s) {
				diag_add(&d->diag, DIAG_ERROR, "DMAR: out of memory at 0x%x", off);
				break;
			}
			d->s = s;
		}
		d->s[d->n++] = st;
		off += st.length;
	}
	check_units(d);
	return 0;
}

void dmar_free(struct dmar *d)
{
	free(d->s);
	free(d->scopes);
	d->s = NULL;
	d->scopes = NULL;
	d->n = d->nscopes = 0;
}

static void print_scopes(const struct dmar *d, const struct dmar_struct *st)
{
	for (size_t i = 0; i < st->nscopes; i++) {
		const struct dmar_scope *sc = &d->scopes[st->first_scope + i];
		printf("      scope %-9s enum %-3u bus %02x path", dmar_scope_name(sc->type), sc->enum_id,
		       sc->start_bus);
		for (unsigned k = 0; k < sc->npath; k++)
			printf(" %02x.%x", sc->path[k].dev, sc->path[k].fn);
		printf("\n");
	}
}

void dmar_print(const struct dmar *d)
{
	printf("  DMAR: host address width %u bits, flags 0x%02x%s%s%s\n", d->host_addr_width + 1u, d->flags,
	       d->flags & DMAR_FLAG_INTR_REMAP ? " INTR_REMAP" : "",
	       d->flags & DMAR_FLAG_X2APIC_OPT_OUT ? " X2APIC_OPT_OUT" : "",
	       d->flags & DMAR_FLAG_DMA_CTRL_OPT_IN ? " DMA_CTRL_PLATFORM_OPT_IN" : "");
	for (size_t i = 0; i < d->n; i++) {
		const struct dmar_struct *st = &d->s[i];
		printf("    %s at 0x%03x:", dmar_type_name(st->type), st->offset);
		switch (st->type) {
		case DMAR_DRHD:
			printf(" segment %u base 0x%llx%s\n", st->segment, (unsigned long long)st->base,
			       st->flags & DMAR_DRHD_INCLUDE_PCI_ALL ? " INCLUDE_PCI_ALL" : "");
			break;
		case DMAR_RMRR:
			printf(" segment %u 0x%llx-0x%llx%s\n", st->segment, (unsigned long long)st->base,
			       (unsigned long long)st->limit, st->refused ? " (refused)" : "");
			break;
		case DMAR_ATSR:
			printf(" segment %u%s\n", st->segment, st->flags & DMAR_ATSR_ALL_PORTS ? " ALL_PORTS" : "");
			break;
		case DMAR_SATC:
			printf(" segment %u%s\n", st->segment,
			       st->flags & DMAR_SATC_ATC_REQUIRED ? " ATC_REQUIRED" : "");
			break;
		case DMAR_RHSA:
			printf(" unit 0x%llx proximity domain %u\n", (unsigned long long)st->base, st->proximity);
			break;
		case DMAR_ANDD:
			printf(" device %u %s\n", st->device_number, st->name);
			break;
		}
		print_scopes(d, st);
	}
	for (size_t i = 0; i < d->diag.n; i++)
		printf("    %s: %s\n", d->diag.msg[i].level == DIAG_ERROR ? "error" : "warning", d->diag.msg[i].text);
}
