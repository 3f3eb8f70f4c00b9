#include "rimt.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acpi.h"
#include "bytes.h"

#define RIMT_HEADER_LEN 48 /* ACPI header, node count, node array offset, reserved */
#define NODE_HEADER_LEN 8  /* type, revision, length, reserved, id */
#define IOMMU_FIXED 40	   /* through the interrupt wire array's offset */
#define RC_FIXED 20	   /* through the number of ID mappings */
#define PLATFORM_FIXED 12  /* the mappings' offset and count; the object name follows */
#define MAP_LEN 20
#define WIRE_LEN 8
#define RIMT_REVISION 1

static const char *const type_names[] = { "IOMMU", "PCIe root complex", "platform device" };

const char *rimt_type_name(unsigned type)
{
	return type < 3 ? type_names[type] : "unknown";
}

static const char *const problem_names[RIMT_NPROBLEMS] = {
	[RIMT_P_HEADER] = "header",
	[RIMT_P_LENGTH] = "length",
	[RIMT_P_CHECKSUM] = "checksum",
	[RIMT_P_REVISION] = "revision",
	[RIMT_P_NODE_OFFSET] = "node-offset",
	[RIMT_P_NODE_LENGTH] = "node-length",
	[RIMT_P_NODE_COUNT] = "node-count",
	[RIMT_P_NODE_TYPE] = "node-type",
	[RIMT_P_MAP_ARRAY] = "map-array",
	[RIMT_P_MAP_TARGET] = "map-target",
	[RIMT_P_MAP_WRAP] = "map-wrap",
	[RIMT_P_MAP_OVERLAP] = "map-overlap",
	[RIMT_P_MAP_OFF_BY_ONE] = "map-off-by-one",
	[RIMT_P_IOMMU_BASE] = "iommu-base",
	[RIMT_P_IOMMU_DUP] = "iommu-dup",
	[RIMT_P_WIRE_ARRAY] = "wire-array",
	[RIMT_P_FIELD] = "field",
	[RIMT_P_LIMIT] = "limit",
};

const char *rimt_problem_name(enum rimt_problem p)
{
	return p < RIMT_NPROBLEMS ? problem_names[p] : "unknown";
}

static void problem(struct rimt *t, enum rimt_problem p, enum diag_level level, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void problem(struct rimt *t, enum rimt_problem p, enum diag_level level, const char *fmt, ...)
{
	char text[100];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	t->problems |= 1ull << p;
	diag_add(&t->diag, level, "RIMT %s [%s]", text, problem_names[p]);
}

static void header_problem(void *ctx, enum acpi_header_fault fault, const char *text)
{
	enum rimt_problem p = fault == ACPI_HEADER_LENGTH     ? RIMT_P_LENGTH
			      : fault == ACPI_HEADER_CHECKSUM ? RIMT_P_CHECKSUM
							      : RIMT_P_HEADER;
	problem(ctx, p, DIAG_ERROR, "%s", text);
}

/* Printable: an ID that is not text (a PCIe unit's may be vendor and
 * device ids) comes out with '?' for each byte that is not. */
static void copy_printable(char *dst, size_t room, const uint8_t *src, size_t n)
{
	size_t k = 0;
	for (; k < n && k + 1 < room && src[k]; k++)
		dst[k] = src[k] >= 0x20 && src[k] <= 0x7e ? (char)src[k] : '?';
	dst[k] = '\0';
}

static void read_iommu(struct rimt *t, const uint8_t *p, uint32_t off, uint16_t len, uint16_t id)
{
	if (t->niommu == RIMT_MAX_IOMMUS) {
		problem(t, RIMT_P_LIMIT, DIAG_ERROR, "more than %d IOMMU nodes: 0x%x not kept", RIMT_MAX_IOMMUS, off);
		return;
	}
	struct rimt_iommu u = { .offset = off,
				.id = id,
				.base = get64(p + 16),
				.flags = get32(p + 24),
				.proximity = get32(p + 28),
				.segment = get16(p + 32),
				.bdf = get16(p + 34),
				.nwires = get16(p + 36) };
	copy_printable(u.hid, sizeof(u.hid), p + 8, 8);
	uint16_t wires = get16(p + 38);
	if (u.nwires && (wires < IOMMU_FIXED || (uint32_t)wires + (uint32_t)u.nwires * WIRE_LEN > len))
		problem(t, RIMT_P_WIRE_ARRAY, DIAG_ERROR,
			"IOMMU at 0x%x: %u interrupt wires at +0x%x, node is %u bytes", off, u.nwires, wires, len);
	if (!(u.flags & RIMT_IOMMU_PCIE) && (u.base == 0 || u.base % RIMT_IOMMU_ALIGN))
		problem(t, RIMT_P_IOMMU_BASE, DIAG_ERROR,
			"IOMMU at 0x%x: base 0x%llx (a platform unit's, 4 KiB aligned)", off,
			(unsigned long long)u.base);
	if (u.flags & ~(uint32_t)(RIMT_IOMMU_PCIE | RIMT_IOMMU_PXM_VALID))
		problem(t, RIMT_P_FIELD, DIAG_WARNING, "IOMMU at 0x%x: reserved flags 0x%x", off, u.flags);
	for (size_t i = 0; i < t->niommu; i++) {
		const struct rimt_iommu *o = &t->iommu[i];
		bool pcie = u.flags & RIMT_IOMMU_PCIE;
		if (pcie != !!(o->flags & RIMT_IOMMU_PCIE))
			continue;
		if (pcie ? o->segment == u.segment && o->bdf == u.bdf : o->base == u.base)
			problem(t, RIMT_P_IOMMU_DUP, DIAG_ERROR, "IOMMU nodes at 0x%x and 0x%x name one unit",
				o->offset, off);
	}
	t->iommu[t->niommu++] = u;
}

/* The mappings `n` at +`at` of a source node of `len` bytes whose fixed
 * part (and name) end at `fixed`. */
static void read_maps(struct rimt *t, const uint8_t *buf, struct rimt_source *s, uint16_t len, uint32_t fixed,
		      uint16_t at, uint16_t n)
{
	s->first_map = t->nmap;
	if (!n)
		return;
	if (at < fixed || (uint32_t)at + (uint32_t)n * MAP_LEN > len) {
		problem(t, RIMT_P_MAP_ARRAY, DIAG_ERROR, "%s at 0x%x: %u ID mappings at +0x%x, node is %u bytes",
			rimt_type_name(s->type), s->offset, n, at, len);
		return;
	}
	for (uint16_t i = 0; i < n; i++) {
		if (t->nmap == RIMT_MAX_MAPS) {
			problem(t, RIMT_P_LIMIT, DIAG_ERROR, "more than %d ID mappings", RIMT_MAX_MAPS);
			return;
		}
		uint32_t off = s->offset + at + (uint32_t)i * MAP_LEN;
		const uint8_t *p = buf + off;
		t->map[t->nmap++] = (struct rimt_map){ .offset = off,
						       .source_base = get32(p),
						       .num_ids = get32(p + 4),
						       .dest_base = get32(p + 8),
						       .dest_offset = get32(p + 12),
						       .flags = get32(p + 16),
						       .iommu = -1,
						       .source = t->nsrc };
		s->nmaps++;
	}
}

static void read_source(struct rimt *t, const uint8_t *buf, uint8_t type, uint32_t off, uint16_t len, uint16_t id)
{
	if (t->nsrc == RIMT_MAX_SOURCES) {
		problem(t, RIMT_P_LIMIT, DIAG_ERROR, "more than %d root complexes and devices: 0x%x not kept",
			RIMT_MAX_SOURCES, off);
		return;
	}
	const uint8_t *p = buf + off;
	struct rimt_source s = { .offset = off, .type = type, .id = id };
	if (type == RIMT_ROOT_COMPLEX) {
		s.flags = get32(p + 8);
		s.segment = get16(p + 14);
		if (s.flags & ~(uint32_t)(RIMT_RC_ATS | RIMT_RC_PRI))
			problem(t, RIMT_P_FIELD, DIAG_WARNING, "root complex at 0x%x: reserved flags 0x%x", off,
				s.flags);
		read_maps(t, buf, &s, len, RC_FIXED, get16(p + 16), get16(p + 18));
	} else {
		uint16_t at = get16(p + 8), n = get16(p + 10);
		/* the name runs from 12 to its NUL, before the mappings */
		uint32_t end = n && at > PLATFORM_FIXED && at <= len ? at : len;
		size_t k = 0;
		while (PLATFORM_FIXED + k < end && p[PLATFORM_FIXED + k])
			k++;
		if (PLATFORM_FIXED + k == end)
			problem(t, RIMT_P_FIELD, DIAG_ERROR, "platform device at 0x%x: object name not terminated",
				off);
		else if (k == 0)
			problem(t, RIMT_P_FIELD, DIAG_WARNING, "platform device at 0x%x: no object name", off);
		copy_printable(s.name, sizeof(s.name), p + PLATFORM_FIXED, k);
		read_maps(t, buf, &s, len, (uint32_t)(PLATFORM_FIXED + k + 1), at, n);
	}
	t->src[t->nsrc++] = s;
}

static void walk_nodes(struct rimt *t, const uint8_t *buf, uint32_t tlen)
{
	static const uint16_t fixed[] = {
		[RIMT_IOMMU] = IOMMU_FIXED, [RIMT_ROOT_COMPLEX] = RC_FIXED, [RIMT_PLATFORM] = PLATFORM_FIXED + 1
	};
	uint32_t off = t->node_array;
	while (off < tlen) {
		if (tlen - off < NODE_HEADER_LEN) {
			problem(t, RIMT_P_NODE_LENGTH, DIAG_ERROR, "%u stray bytes at 0x%x", tlen - off, off);
			break;
		}
		const uint8_t *p = buf + off;
		uint8_t type = p[0], rev = p[1];
		uint16_t len = get16(p + 2), id = get16(p + 6);
		if (len < NODE_HEADER_LEN || len > tlen - off) {
			problem(t, RIMT_P_NODE_LENGTH, DIAG_ERROR, "node at 0x%x (type %u) is %u bytes, room for %u",
				off, type, len, tlen - off);
			break;
		}
		t->nnodes++;
		if (type > RIMT_PLATFORM) {
			problem(t, RIMT_P_NODE_TYPE, DIAG_WARNING, "node type %u at 0x%x unknown: skipped", type, off);
		} else if (len < fixed[type]) {
			problem(t, RIMT_P_NODE_LENGTH, DIAG_ERROR, "%s at 0x%x is %u bytes, needs %u",
				rimt_type_name(type), off, len, fixed[type]);
		} else {
			if (rev != RIMT_REVISION)
				problem(t, RIMT_P_REVISION, DIAG_WARNING, "%s at 0x%x: node revision %u",
					rimt_type_name(type), off, rev);
			if (type == RIMT_IOMMU)
				read_iommu(t, p, off, len, id);
			else
				read_source(t, buf, type, off, len, id);
		}
		off += len;
	}
	if (t->nnodes != t->node_count)
		problem(t, RIMT_P_NODE_COUNT, DIAG_ERROR, "header counts %u nodes, the table holds %zu", t->node_count,
			t->nnodes);
}

static int by_source(const void *a, const void *b)
{
	const struct rimt_map *x = *(const struct rimt_map *const *)a, *y = *(const struct rimt_map *const *)b;
	return x->source_base < y->source_base ? -1 : x->source_base > y->source_base;
}

/* Each mapping's IOMMU by its offset, its ranges inside 32 bits; within a
 * source no id in two ranges. Where two ranges touch (one ends where the
 * next begins) the inclusive reading of "Number of IDs" (Linux's) would
 * give their shared id to the first: said when that disagrees with the
 * second. */
static void check_maps(struct rimt *t)
{
	for (size_t i = 0; i < t->nmap; i++) {
		struct rimt_map *m = &t->map[i];
		for (size_t k = 0; k < t->niommu && m->iommu < 0; k++)
			if (t->iommu[k].offset == m->dest_offset)
				m->iommu = (int)k;
		if (m->iommu < 0)
			problem(t, RIMT_P_MAP_TARGET, DIAG_ERROR, "mapping at 0x%x: IOMMU offset 0x%x is no IOMMU node",
				m->offset, m->dest_offset);
		if (!m->num_ids || (uint64_t)m->source_base + m->num_ids > 1ull << 32 ||
		    (uint64_t)m->dest_base + m->num_ids > 1ull << 32)
			problem(t, RIMT_P_MAP_WRAP, DIAG_ERROR, "mapping at 0x%x: 0x%x/0x%x, %u ids", m->offset,
				m->source_base, m->dest_base, m->num_ids);
	}
	for (size_t s = 0; s < t->nsrc; s++) {
		const struct rimt_source *src = &t->src[s];
		const struct rimt_map *sorted[RIMT_MAX_MAPS];
		for (size_t k = 0; k < src->nmaps; k++)
			sorted[k] = &t->map[src->first_map + k];
		qsort(sorted, src->nmaps, sizeof(*sorted), by_source);
		for (size_t k = 1; k < src->nmaps; k++) {
			const struct rimt_map *a = sorted[k - 1], *b = sorted[k];
			uint64_t end = (uint64_t)a->source_base + a->num_ids;
			if (b->source_base < end)
				problem(t, RIMT_P_MAP_OVERLAP, DIAG_ERROR,
					"%s at 0x%x: mappings at 0x%x and 0x%x overlap", rimt_type_name(src->type),
					src->offset, a->offset, b->offset);
			else if (b->source_base == end &&
				 (a->iommu != b->iommu || (uint64_t)a->dest_base + a->num_ids != b->dest_base))
				problem(t, RIMT_P_MAP_OFF_BY_ONE, DIAG_WARNING,
					"%s at 0x%x: id 0x%x ends 0x%x and begins 0x%x (count or count-1?)",
					rimt_type_name(src->type), src->offset, b->source_base, a->offset, b->offset);
		}
	}
}

int rimt_parse(const uint8_t *buf, size_t len, struct rimt *t)
{
	memset(t, 0, sizeof(*t));
	uint32_t tlen = acpi_table_header(buf, len, "RIMT", RIMT_HEADER_LEN, header_problem, t);
	if (!tlen)
		return -1;
	t->revision = buf[8];
	if (t->revision != RIMT_REVISION)
		problem(t, RIMT_P_REVISION, DIAG_WARNING, "revision %u (v1.0 is %d)", t->revision, RIMT_REVISION);
	t->node_count = get32(buf + 36);
	t->node_array = get32(buf + 40);
	if (t->node_array < RIMT_HEADER_LEN || t->node_array > tlen) {
		problem(t, RIMT_P_NODE_OFFSET, DIAG_ERROR, "node array at 0x%x, outside 0x%x-0x%x", t->node_array,
			RIMT_HEADER_LEN, tlen);
		return 0;
	}
	walk_nodes(t, buf, tlen);
	check_maps(t);
	return 0;
}

void rimt_free(struct rimt *t)
{
	t->niommu = t->nsrc = t->nmap = 0;
}

bool rimt_map_rid(const struct rimt *t, uint16_t segment, uint16_t rid, size_t *iommu, uint32_t *device_id)
{
	for (size_t s = 0; s < t->nsrc; s++) {
		const struct rimt_source *src = &t->src[s];
		if (src->type != RIMT_ROOT_COMPLEX || src->segment != segment)
			continue;
		for (size_t k = 0; k < src->nmaps; k++) {
			const struct rimt_map *m = &t->map[src->first_map + k];
			if (m->iommu >= 0 && rid >= m->source_base && rid - m->source_base < m->num_ids) {
				*iommu = (size_t)m->iommu;
				*device_id = m->dest_base + (rid - m->source_base);
				return true;
			}
		}
		return false; /* one root complex per segment; the first is the one */
	}
	return false;
}

void rimt_print(const struct rimt *t)
{
	printf("  RIMT: revision %u, %u nodes at 0x%x\n", t->revision, t->node_count, t->node_array);
	for (size_t i = 0; i < t->niommu; i++) {
		const struct rimt_iommu *u = &t->iommu[i];
		printf("    IOMMU at 0x%03x id %u %s:", u->offset, u->id, u->hid);
		if (u->flags & RIMT_IOMMU_PCIE)
			printf(" PCIe %04x:%02x:%02x.%u", u->segment, u->bdf >> 8, (u->bdf >> 3) & 0x1f, u->bdf & 7);
		else
			printf(" base 0x%llx", (unsigned long long)u->base);
		if (u->flags & RIMT_IOMMU_PXM_VALID)
			printf(" proximity %u", u->proximity);
		printf(", %u interrupt wires\n", u->nwires);
	}
	for (size_t s = 0; s < t->nsrc; s++) {
		const struct rimt_source *src = &t->src[s];
		printf("    %s at 0x%03x id %u:", rimt_type_name(src->type), src->offset, src->id);
		if (src->type == RIMT_ROOT_COMPLEX)
			printf(" segment %u%s%s", src->segment, src->flags & RIMT_RC_ATS ? " ATS" : "",
			       src->flags & RIMT_RC_PRI ? " PRI" : "");
		else
			printf(" %s", src->name);
		printf(", %zu ID mappings\n", src->nmaps);
		for (size_t k = 0; k < src->nmaps; k++) {
			const struct rimt_map *m = &t->map[src->first_map + k];
			printf("      ids 0x%x +%u -> device ids 0x%x of ", m->source_base, m->num_ids, m->dest_base);
			if (m->iommu >= 0)
				printf("the IOMMU at 0x%x\n", m->dest_offset);
			else
				printf("0x%x (no IOMMU)\n", m->dest_offset);
		}
	}
	for (size_t i = 0; i < t->diag.n; i++)
		printf("    %s: %s\n", t->diag.msg[i].level == DIAG_ERROR ? "error" : "warning", t->diag.msg[i].text);
}
