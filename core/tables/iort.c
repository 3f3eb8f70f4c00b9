#include "iort.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acpi.h"
#include "bytes.h"
#include "range.h"

#define IORT_HEADER_LEN 48 /* ACPI header, node count, node array offset, reserved */
#define NODE_HEADER_LEN 16 /* type, length, revision, identifier, mappings, their offset */
#define MAP_LEN 20
#define RANGE_LEN 20 /* RMR memory range descriptor: base, length, reserved */
#define SMMU_IRQ_LEN 8
#define IORT_REVISION_MAX 7 /* E.f */

static const char *const type_names[] = { "ITS group", "named component", "root complex", "SMMUv1/v2", "SMMUv3", "PMCG",
					  "RMR" };

const char *iort_type_name(unsigned type)
{
	return type < 7 ? type_names[type] : "unknown";
}

static const char *const problem_names[IORT_NPROBLEMS] = {
	[IORT_P_HEADER] = "header",
	[IORT_P_LENGTH] = "length",
	[IORT_P_CHECKSUM] = "checksum",
	[IORT_P_REVISION] = "revision",
	[IORT_P_NODE_OFFSET] = "node-offset",
	[IORT_P_NODE_LENGTH] = "node-length",
	[IORT_P_NODE_COUNT] = "node-count",
	[IORT_P_NODE_TYPE] = "node-type",
	[IORT_P_MAP_ARRAY] = "map-array",
	[IORT_P_MAP_TARGET] = "map-target",
	[IORT_P_MAP_TARGET_TYPE] = "map-target-type",
	[IORT_P_MAP_WRAP] = "map-wrap",
	[IORT_P_MAP_OVERLAP] = "map-overlap",
	[IORT_P_MAP_OFF_BY_ONE] = "map-off-by-one",
	[IORT_P_CHAIN_LOOP] = "chain-loop",
	[IORT_P_CHAIN_LONG] = "chain-long",
	[IORT_P_SMMU_BASE_ZERO] = "smmu-base-zero",
	[IORT_P_SMMU_BASE_ALIGN] = "smmu-base-align",
	[IORT_P_SMMU_OVERLAP] = "smmu-overlap",
	[IORT_P_RMR_ZERO] = "rmr-zero",
	[IORT_P_RMR_ALIGN] = "rmr-align",
	[IORT_P_RMR_WRAP] = "rmr-wrap",
	[IORT_P_RMR_ARRAY] = "rmr-array",
	[IORT_P_ITS_ARRAY] = "its-array",
	[IORT_P_FIELD] = "field",
	[IORT_P_LIMIT] = "limit",
};

const char *iort_problem_name(enum iort_problem p)
{
	return p < IORT_NPROBLEMS ? problem_names[p] : "unknown";
}

static void problem(struct iort *t, enum iort_problem p, enum diag_level level, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void problem(struct iort *t, enum iort_problem p, enum diag_level level, const char *fmt, ...)
{
	char text[100];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	t->problems |= 1ull << p;
	diag_add(&t->diag, level, "IORT %s [%s]", text, problem_names[p]);
}

static void header_problem(void *ctx, enum acpi_header_fault fault, const char *text)
{
	enum iort_problem p = fault == ACPI_HEADER_LENGTH     ? IORT_P_LENGTH
			      : fault == ACPI_HEADER_CHECKSUM ? IORT_P_CHECKSUM
							      : IORT_P_HEADER;
	problem(ctx, p, DIAG_ERROR, "%s", text);
}

/* The fixed part each node type needs before anything optional (DEN 0049
 * E.f, the node formats; older revisions are the shorter prefixes). */
static uint32_t min_length(uint8_t type)
{
	static const uint8_t len[] = {
		[IORT_ITS_GROUP] = 20, [IORT_NAMED_COMPONENT] = 30, [IORT_ROOT_COMPLEX] = 32,
		[IORT_SMMU_V1V2] = 60, [IORT_SMMU_V3] = 60,	    [IORT_PMCG] = 32,
		[IORT_RMR] = 28,
	};
	return type < sizeof(len) ? len[type] : NODE_HEADER_LEN;
}

/* Types an ID mapping may lead to: the ones that take IDs in. */
static bool receives_ids(uint8_t type)
{
	return type == IORT_ITS_GROUP || type == IORT_SMMU_V1V2 || type == IORT_SMMU_V3;
}

static bool grow(void **arr, size_t n, size_t step, size_t size)
{
	if (n % step)
		return true;
	void *p = realloc(*arr, (n + step) * size);
	if (!p)
		return false;
	*arr = p;
	return true;
}

static void read_maps(struct iort *t, const uint8_t *buf, struct iort_node *nd)
{
	nd->first_map = t->nmap;
	if (!nd->nmaps_field)
		return;
	uint64_t end = (uint64_t)nd->maps_ref + (uint64_t)nd->nmaps_field * MAP_LEN;
	if (nd->type == IORT_ITS_GROUP) {
		problem(t, IORT_P_FIELD, DIAG_WARNING, "ITS group at 0x%x has %u ID mappings (it takes none)",
			nd->offset, nd->nmaps_field);
		return;
	}
	if (nd->maps_ref < min_length(nd->type) || end > nd->length) {
		problem(t, IORT_P_MAP_ARRAY, DIAG_ERROR, "%s at 0x%x: %u ID mappings at +0x%x, node is 0x%x bytes",
			iort_type_name(nd->type), nd->offset, nd->nmaps_field, nd->maps_ref, nd->length);
		return;
	}
	for (uint32_t i = 0; i < nd->nmaps_field; i++) {
		if (t->nmap == IORT_MAX_MAPS || !grow((void **)&t->map, t->nmap, 64, sizeof(*t->map))) {
			problem(t, IORT_P_LIMIT, DIAG_ERROR, "more than %d ID mappings (or no memory)", IORT_MAX_MAPS);
			return;
		}
		const uint8_t *p = buf + nd->offset + nd->maps_ref + i * MAP_LEN;
		t->map[t->nmap++] = (struct iort_map){ .offset = nd->offset + nd->maps_ref + i * MAP_LEN,
						       .input_base = get32(p),
						       .num_ids = get32(p + 4),
						       .output_base = get32(p + 8),
						       .output_ref = get32(p + 12),
						       .flags = get32(p + 16),
						       .target = -1 };
		nd->nmaps++;
	}
}

static void copy_name(struct iort *t, const uint8_t *p, size_t room, struct iort_node *nd)
{
	size_t n = 0;
	while (n < room && p[n])
		n++;
	if (n == room)
		problem(t, IORT_P_FIELD, DIAG_ERROR, "named component at 0x%x: object name not terminated", nd->offset);
	if (n == 0)
		problem(t, IORT_P_FIELD, DIAG_WARNING, "named component at 0x%x: no object name", nd->offset);
	if (n > sizeof(nd->name) - 1)
		n = sizeof(nd->name) - 1;
	memcpy(nd->name, p, n);
	nd->name[n] = '\0';
	for (char *c = nd->name; *c; c++)
		if ((unsigned char)*c < 0x20 || (unsigned char)*c > 0x7e)
			*c = '?';
}

/* Interrupt arrays of an SMMUv1/v2 node (global: two entries) inside it. */
static void check_irq_array(struct iort *t, const struct iort_node *nd, const char *what, uint32_t ref, uint32_t n)
{
	if (n && ((uint64_t)ref + (uint64_t)n * SMMU_IRQ_LEN > nd->length || ref < min_length(nd->type)))
		problem(t, IORT_P_FIELD, DIAG_ERROR, "SMMUv1/v2 at 0x%x: %u %s interrupts at +0x%x outside the node",
			nd->offset, n, what, ref);
}

static void decode_node(struct iort *t, const uint8_t *buf, struct iort_node *nd)
{
	const uint8_t *p = buf + nd->offset;
	switch (nd->type) {
	case IORT_ITS_GROUP:
		nd->its_count = get32(p + 16);
		if (nd->its_count == 0 || (uint64_t)nd->its_count * 4 > nd->length - 20u)
			problem(t, IORT_P_ITS_ARRAY, DIAG_ERROR, "ITS group at 0x%x: %u ITS identifiers in %u bytes",
				nd->offset, nd->its_count, nd->length - 20u);
		break;
	case IORT_NAMED_COMPONENT: {
		nd->flags = get32(p + 16);
		nd->cca = get32(p + 20), nd->ah = p[24], nd->maf = p[27];
		nd->addr_limit = p[28];
		uint32_t end =
		    nd->maps_ref > 29 && nd->maps_ref <= nd->length && nd->nmaps_field ? nd->maps_ref : nd->length;
		copy_name(t, p + 29, end - 29, nd);
		break;
	}
	case IORT_ROOT_COMPLEX:
		nd->cca = get32(p + 16), nd->ah = p[20], nd->maf = p[23];
		nd->ats = get32(p + 24);
		nd->segment = get32(p + 28);
		/* revision 1+; read whenever the mappings leave the byte alone */
		if (nd->length >= 33 && (nd->maps_ref >= 33 || !nd->nmaps_field))
			nd->addr_limit = p[32];
		if (nd->length >= 35 && nd->revision >= 4)
			nd->pasid_caps = get16(p + 33);
		if (nd->length >= 40 && nd->revision >= 4)
			nd->flags = get32(p + 36);
		if (nd->segment > 0xffff)
			problem(t, IORT_P_FIELD, DIAG_ERROR, "root complex at 0x%x: segment %u (PCI has 16 bits)",
				nd->offset, nd->segment);
		break;
	case IORT_SMMU_V1V2:
		nd->base = get64(p + 16), nd->span = get64(p + 24);
		nd->model = get32(p + 32), nd->flags = get32(p + 36);
		check_irq_array(t, nd, "global", get32(p + 40), 2);
		nd->ctx_irqs = get32(p + 44);
		check_irq_array(t, nd, "context", get32(p + 48), nd->ctx_irqs);
		nd->pmu_irqs = get32(p + 52);
		check_irq_array(t, nd, "PMU", get32(p + 56), nd->pmu_irqs);
		if (nd->base == 0 || nd->span == 0)
			problem(t, IORT_P_FIELD, DIAG_ERROR, "SMMUv1/v2 at 0x%x: base 0x%llx span 0x%llx", nd->offset,
				(unsigned long long)nd->base, (unsigned long long)nd->span);
		break;
	case IORT_SMMU_V3:
		nd->base = get64(p + 16), nd->flags = get32(p + 24);
		nd->model = get32(p + 40);
		break;
	case IORT_PMCG:
		nd->base = get64(p + 16), nd->gsiv = get32(p + 24), nd->node_ref = get32(p + 28);
		if (nd->length >= 40 && nd->revision >= 1)
			nd->page1 = get64(p + 32);
		break;
	case IORT_RMR:
		nd->flags = get32(p + 16), nd->nranges = get32(p + 20), nd->ranges_ref = get32(p + 24);
		if (nd->revision < 3)
			problem(t, IORT_P_REVISION, DIAG_WARNING, "RMR at 0x%x: node revision %u (E.c, deprecated)",
				nd->offset, nd->revision);
		break;
	}
}

static bool add_smmu(struct iort *t, const uint8_t *buf, struct iort_node *nd, size_t idx)
{
	if (!grow((void **)&t->smmu, t->nsmmu, 8, sizeof(*t->smmu)))
		return false;
	const uint8_t *p = buf + nd->offset;
	struct iort_smmu s = { .base = nd->base,
			       .flags = nd->flags,
			       .coherent = nd->flags & IORT_SMMUV3_COHACC_OVERRIDE,
			       .vatos = get64(p + 32),
			       .model = nd->model,
			       .gsiv_event = get32(p + 44),
			       .gsiv_pri = get32(p + 48),
			       .gsiv_gerr = get32(p + 52),
			       .gsiv_sync = get32(p + 56),
			       .identifier = nd->identifier,
			       .node_offset = nd->offset,
			       .node = idx };
	/* node revision 0 ends at 60 and may put its mappings there: the later
	 * fields are read only where the node has room and no mapping sits */
	bool pxm = nd->length >= 64 && (nd->maps_ref >= 64 || !nd->nmaps_field);
	bool devid = nd->length >= 68 && (nd->maps_ref >= 68 || !nd->nmaps_field);
	if (pxm)
		s.proximity = get32(p + 60), s.proximity_valid = nd->flags & IORT_SMMUV3_PXM_VALID;
	else if (nd->flags & IORT_SMMUV3_PXM_VALID)
		problem(t, IORT_P_FIELD, DIAG_ERROR, "SMMUv3 at 0x%x: proximity domain valid, node too short for it",
			nd->offset);
	if (devid)
		s.deviceid_index = get32(p + 64);
	if ((nd->flags & IORT_SMMUV3_DEVICEID_VALID) && s.deviceid_index >= nd->nmaps)
		problem(t, IORT_P_FIELD, DIAG_ERROR, "SMMUv3 at 0x%x: DeviceID mapping index %u of %zu mappings",
			nd->offset, s.deviceid_index, nd->nmaps);
	if (s.model > IORT_SMMUV3_CAVIUM_CN99XX)
		problem(t, IORT_P_FIELD, DIAG_WARNING, "SMMUv3 at 0x%x: model %u unknown", nd->offset, s.model);
	nd->smmu = t->nsmmu;
	t->smmu[t->nsmmu++] = s;
	return true;
}

/* The node array: walked by length from its offset to the table's end. */
static void walk_nodes(struct iort *t, const uint8_t *buf, uint32_t tlen)
{
	uint32_t off = t->node_array;
	while (off < tlen) {
		if (tlen - off < NODE_HEADER_LEN) {
			problem(t, IORT_P_NODE_LENGTH, DIAG_ERROR, "%u stray bytes at 0x%x", tlen - off, off);
			break;
		}
		const uint8_t *p = buf + off;
		struct iort_node nd = { .offset = off,
					.type = p[0],
					.length = get16(p + 1),
					.revision = p[3],
					.identifier = get32(p + 4),
					.nmaps_field = get32(p + 8),
					.maps_ref = get32(p + 12) };
		if (nd.length < NODE_HEADER_LEN || nd.length > tlen - off) {
			problem(t, IORT_P_NODE_LENGTH, DIAG_ERROR, "node at 0x%x (type %u) is %u bytes, room for %u",
				off, nd.type, nd.length, tlen - off);
			break;
		}
		if (t->n == IORT_MAX_NODES || !grow((void **)&t->node, t->n, 16, sizeof(*t->node))) {
			problem(t, IORT_P_LIMIT, DIAG_ERROR, "more than %d nodes (or no memory)", IORT_MAX_NODES);
			break;
		}
		off += nd.length;
		if (nd.type > IORT_RMR) {
			/* forward compatibility: kept (a mapping may name it) but not decoded */
			problem(t, IORT_P_NODE_TYPE, DIAG_WARNING, "node type %u at 0x%x unknown: skipped", nd.type,
				nd.offset);
			t->node[t->n++] = nd;
			continue;
		}
		if (nd.length < min_length(nd.type)) {
			problem(t, IORT_P_NODE_LENGTH, DIAG_ERROR, "%s at 0x%x is %u bytes, needs %u",
				iort_type_name(nd.type), nd.offset, nd.length, min_length(nd.type));
			nd.type = IORT_NODE_BROKEN;
			t->node[t->n++] = nd;
			continue;
		}
		decode_node(t, buf, &nd);
		read_maps(t, buf, &nd);
		size_t idx = t->n;
		t->node[t->n++] = nd;
		if (nd.type == IORT_SMMU_V3 && !add_smmu(t, buf, &t->node[idx], idx)) {
			problem(t, IORT_P_LIMIT, DIAG_ERROR, "no memory for SMMUv3 at 0x%x", nd.offset);
			break;
		}
	}
	if (t->n != t->node_count)
		problem(t, IORT_P_NODE_COUNT, DIAG_ERROR, "header counts %u nodes, the table holds %zu", t->node_count,
			t->n);
}

static int node_at(const struct iort *t, uint32_t offset)
{
	size_t lo = 0, hi = t->n;
	while (lo < hi) { /* nodes are in offset order */
		size_t mid = (lo + hi) / 2;
		if (t->node[mid].offset == offset)
			return (int)mid;
		if (t->node[mid].offset < offset)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

static void check_targets(struct iort *t)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct iort_node *nd = &t->node[i];
		for (size_t k = 0; k < nd->nmaps; k++) {
			struct iort_map *m = &t->map[nd->first_map + k];
			if ((uint64_t)m->input_base + m->num_ids > UINT32_MAX ||
			    (uint64_t)m->output_base + m->num_ids > UINT32_MAX)
				problem(t, IORT_P_MAP_WRAP, DIAG_ERROR, "mapping at 0x%x: 0x%x/0x%x +0x%x passes 2^32",
					m->offset, m->input_base, m->output_base, m->num_ids);
			m->target = node_at(t, m->output_ref);
			if (m->target < 0) {
				problem(t, IORT_P_MAP_TARGET, DIAG_ERROR,
					"mapping at 0x%x: output reference 0x%x is no node", m->offset, m->output_ref);
				continue;
			}
			uint8_t ty = t->node[m->target].type;
			if (ty <= IORT_RMR && !receives_ids(ty))
				problem(t, IORT_P_MAP_TARGET_TYPE, DIAG_ERROR,
					"mapping at 0x%x leads to a %s (takes no IDs)", m->offset, iort_type_name(ty));
			else if (ty > IORT_RMR)
				problem(t, IORT_P_MAP_TARGET_TYPE, DIAG_WARNING,
					"mapping at 0x%x leads to node type %u", m->offset, ty);
		}
		if (nd->type == IORT_PMCG && node_at(t, nd->node_ref) < 0 && nd->node_ref)
			problem(t, IORT_P_MAP_TARGET, DIAG_ERROR, "PMCG at 0x%x: node reference 0x%x is no node",
				nd->offset, nd->node_ref);
	}
}

static int by_input(const void *a, const void *b)
{
	const struct iort_map *x = *(const struct iort_map *const *)a, *y = *(const struct iort_map *const *)b;
	return x->input_base < y->input_base ? -1 : x->input_base > y->input_base;
}

/* Within one node, the input ranges of its (non-single) mappings must not
 * overlap: an ID would have two outputs. Ranges that share exactly one ID
 * are what a "Number of IDs" written as the count (not count - 1) gives, as
 * QEMU before 8.0 wrote its root complex mappings: said apart. */
static void check_overlaps(struct iort *t)
{
	const struct iort_map **s = malloc((t->nmap ? t->nmap : 1) * sizeof(*s));
	if (!s) {
		problem(t, IORT_P_LIMIT, DIAG_ERROR, "no memory to check mapping overlaps");
		return;
	}
	for (size_t i = 0; i < t->n; i++) {
		const struct iort_node *nd = &t->node[i];
		size_t n = 0;
		for (size_t k = 0; k < nd->nmaps; k++)
			if (!(t->map[nd->first_map + k].flags & IORT_MAP_SINGLE))
				s[n++] = &t->map[nd->first_map + k];
		qsort(s, n, sizeof(*s), by_input);
		const struct iort_map *reach = NULL; /* the range reaching furthest so far */
		for (size_t k = 0; k < n; k++) {
			uint64_t end = (uint64_t)s[k]->input_base + s[k]->num_ids;
			if (reach) {
				uint64_t rend = (uint64_t)reach->input_base + reach->num_ids;
				if (s[k]->input_base <= rend) {
					uint64_t shared = (end < rend ? end : rend) - s[k]->input_base + 1;
					problem(t, shared == 1 ? IORT_P_MAP_OFF_BY_ONE : IORT_P_MAP_OVERLAP,
						shared == 1 ? DIAG_WARNING : DIAG_ERROR,
						"%s at 0x%x: mappings at 0x%x and 0x%x share %llu IDs%s",
						iort_type_name(nd->type), nd->offset, reach->offset, s[k]->offset,
						(unsigned long long)shared,
						shared == 1 ? " (count, not count-1?)" : "");
				}
				if (end <= rend)
					continue;
			}
			reach = s[k];
		}
	}
	free(s);
}

/* Node-level: every mapping is an edge to its target. A cycle is a loop
 * (Kahn's algorithm leaves its nodes); without one, the longest chain must
 * stay within IORT_MAX_CHAIN hops. */
static void check_chains(struct iort *t)
{
	size_t *out = calloc(t->n + 1, sizeof(*out)), *depth = calloc(t->n + 1, sizeof(*depth));
	size_t *queue = calloc(t->n + 1, sizeof(*queue));
	bool *done = calloc(t->n + 1, sizeof(*done));
	if (!out || !depth || !queue || !done) {
		problem(t, IORT_P_LIMIT, DIAG_ERROR, "no memory to check mapping chains");
		goto out;
	}
	for (size_t i = 0; i < t->n; i++)
		for (size_t k = 0; k < t->node[i].nmaps; k++)
			out[i] += t->map[t->node[i].first_map + k].target >= 0;
	size_t head = 0, tail = 0;
	for (size_t i = 0; i < t->n; i++)
		if (!out[i])
			queue[tail++] = i, done[i] = true;
	/* a node leaves once all its targets have: reverse edges found by scan
	 * (nodes and mappings are bounded, so this stays small) */
	while (head < tail) {
		size_t v = queue[head++];
		for (size_t i = 0; i < t->n; i++) {
			if (done[i])
				continue;
			for (size_t k = 0; k < t->node[i].nmaps; k++) {
				const struct iort_map *m = &t->map[t->node[i].first_map + k];
				if (m->target != (int)v)
					continue;
				if (depth[v] + 1 > depth[i])
					depth[i] = depth[v] + 1;
				if (--out[i] == 0)
					queue[tail++] = i, done[i] = true;
			}
		}
	}
	for (size_t i = 0; i < t->n; i++) {
		if (!done[i]) {
			problem(t, IORT_P_CHAIN_LOOP, DIAG_ERROR, "%s at 0x%x: its mappings lead back in a loop",
				iort_type_name(t->node[i].type), t->node[i].offset);
			break;
		}
		if (depth[i] > IORT_MAX_CHAIN) {
			problem(t, IORT_P_CHAIN_LONG, DIAG_ERROR, "%s at 0x%x: a chain of %zu mappings (at most %d)",
				iort_type_name(t->node[i].type), t->node[i].offset, depth[i], IORT_MAX_CHAIN);
			break;
		}
	}
out:
	free(out), free(depth), free(queue), free(done);
}

static void check_smmus(struct iort *t)
{
	for (size_t i = 0; i < t->nsmmu; i++) {
		const struct iort_smmu *s = &t->smmu[i];
		if (s->base == 0)
			problem(t, IORT_P_SMMU_BASE_ZERO, DIAG_ERROR, "SMMUv3 at 0x%zx: base address 0",
				s->node_offset);
		else if (s->base & (IORT_SMMUV3_ALIGN - 1))
			problem(t, IORT_P_SMMU_BASE_ALIGN, DIAG_ERROR,
				"SMMUv3 at 0x%zx: base 0x%llx not 64 KiB aligned", s->node_offset,
				(unsigned long long)s->base);
	}
	/* every SMMU's register space against every other's */
	for (size_t i = 0; i < t->n; i++) {
		const struct iort_node *a = &t->node[i];
		if (a->type != IORT_SMMU_V3 && a->type != IORT_SMMU_V1V2)
			continue;
		uint64_t alen = a->type == IORT_SMMU_V3 ? IORT_SMMUV3_SPAN : a->span;
		for (size_t k = i + 1; k < t->n; k++) {
			const struct iort_node *b = &t->node[k];
			if (b->type != IORT_SMMU_V3 && b->type != IORT_SMMU_V1V2)
				continue;
			uint64_t blen = b->type == IORT_SMMU_V3 ? IORT_SMMUV3_SPAN : b->span;
			if (a->base && b->base && a->base < b->base + blen && b->base < a->base + alen)
				problem(t, IORT_P_SMMU_OVERLAP, DIAG_ERROR, "SMMUs at 0x%x and 0x%x: registers overlap",
					a->offset, b->offset);
		}
	}
}

static void add_streams(struct iort *t, struct iort_rmr *r, const struct iort_map *m)
{
	if (m->target < 0 || t->node[m->target].type != IORT_SMMU_V3)
		return;
	uint64_t n = m->flags & IORT_MAP_SINGLE ? 1 : (uint64_t)m->num_ids + 1;
	for (uint64_t i = 0; i < n; i++) {
		if (r->nstreams == IORT_RMR_MAX_STREAMS) {
			r->streams_cut = true;
			return;
		}
		if (!grow((void **)&r->stream, r->nstreams, 16, sizeof(*r->stream)))
			return;
		r->stream[r->nstreams++] =
		    (struct iort_stream){ t->node[m->target].smmu, (uint32_t)(m->output_base + i) };
	}
}

static void read_rmr(struct iort *t, const uint8_t *buf, const struct iort_node *nd)
{
	if ((uint64_t)nd->ranges_ref + (uint64_t)nd->nranges * RANGE_LEN > nd->length ||
	    (nd->nranges && nd->ranges_ref < min_length(IORT_RMR))) {
		problem(t, IORT_P_RMR_ARRAY, DIAG_ERROR, "RMR at 0x%x: %u ranges at +0x%x, node is 0x%x bytes",
			nd->offset, nd->nranges, nd->ranges_ref, nd->length);
		return;
	}
	if (nd->nranges == 0)
		problem(t, IORT_P_FIELD, DIAG_WARNING, "RMR at 0x%x: no memory ranges", nd->offset);
	if (!grow((void **)&t->rmr, t->nrmr, 8, sizeof(*t->rmr)))
		return;
	struct iort_rmr r = { .node_offset = nd->offset, .flags = nd->flags };
	r.range = calloc(nd->nranges ? nd->nranges : 1, sizeof(*r.range));
	if (!r.range)
		return;
	for (uint32_t i = 0; i < nd->nranges; i++) {
		const uint8_t *p = buf + nd->offset + nd->ranges_ref + i * RANGE_LEN;
		struct iort_range g = { .base = get64(p), .length = get64(p + 8) };
		uint32_t at = nd->offset + nd->ranges_ref + i * RANGE_LEN;
		struct range rg;
		enum range_fault f = range_from_length(g.base, g.length, &rg);
		g.refused = f != RANGE_OK;
		if (g.refused)
			problem(t, f == RANGE_EMPTY ? IORT_P_RMR_ZERO : IORT_P_RMR_WRAP, DIAG_ERROR,
				"RMR at 0x%x: range at 0x%x, 0x%llx +0x%llx %s; not mapped", nd->offset, at,
				(unsigned long long)g.base, (unsigned long long)g.length, range_fault_text(f));
		else if ((g.base | g.length) & (IORT_RMR_ALIGN - 1))
			problem(t, IORT_P_RMR_ALIGN, DIAG_ERROR, "RMR at 0x%x: 0x%llx +0x%llx not 64 KiB aligned",
				nd->offset, (unsigned long long)g.base, (unsigned long long)g.length);
		r.range[r.nranges++] = g;
	}
	for (size_t k = 0; k < nd->nmaps; k++)
		add_streams(t, &r, &t->map[nd->first_map + k]);
	if (r.streams_cut)
		problem(t, IORT_P_LIMIT, DIAG_WARNING, "RMR at 0x%x: more than %d stream ids; the rest not kept",
			nd->offset, IORT_RMR_MAX_STREAMS);
	t->rmr[t->nrmr++] = r;
}

/* Each SMMUv3's segment: that of the first root complex mapping to it. */
static void assign_segments(struct iort *t)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct iort_node *nd = &t->node[i];
		if (nd->type != IORT_ROOT_COMPLEX)
			continue;
		for (size_t k = i + 1; k < t->n; k++)
			if (t->node[k].type == IORT_ROOT_COMPLEX && t->node[k].segment == nd->segment)
				problem(t, IORT_P_FIELD, DIAG_WARNING,
					"root complexes at 0x%x and 0x%x: both segment %u", nd->offset,
					t->node[k].offset, nd->segment);
		for (size_t k = 0; k < nd->nmaps; k++) {
			const struct iort_map *m = &t->map[nd->first_map + k];
			if (m->target < 0 || t->node[m->target].type != IORT_SMMU_V3)
				continue;
			struct iort_smmu *s = &t->smmu[t->node[m->target].smmu];
			if (!s->have_segment)
				s->have_segment = true, s->segment = (uint16_t)nd->segment;
		}
	}
}

int iort_parse(const uint8_t *buf, size_t len, struct iort *t)
{
	memset(t, 0, sizeof(*t));
	uint32_t tlen = acpi_table_header(buf, len, "IORT", IORT_HEADER_LEN, header_problem, t);
	if (!tlen)
		return -1;
	t->revision = buf[8];
	if (t->revision > IORT_REVISION_MAX)
		problem(t, IORT_P_REVISION, DIAG_WARNING, "revision %u (E.f is %d)", t->revision, IORT_REVISION_MAX);
	t->node_count = get32(buf + 36);
	t->node_array = get32(buf + 40);
	if (t->node_array < IORT_HEADER_LEN || t->node_array > tlen) {
		problem(t, IORT_P_NODE_OFFSET, DIAG_ERROR, "node array at 0x%x, outside 0x%x-0x%x", t->node_array,
			IORT_HEADER_LEN, tlen);
		return 0;
	}
	walk_nodes(t, buf, tlen);
	check_targets(t);
	check_overlaps(t);
	check_chains(t);
	check_smmus(t);
	for (size_t i = 0; i < t->n; i++)
		if (t->node[i].type == IORT_RMR)
			read_rmr(t, buf, &t->node[i]);
	assign_segments(t);
	return 0;
}

void iort_free(struct iort *t)
{
	for (size_t i = 0; i < t->nrmr; i++)
		free(t->rmr[i].range), free(t->rmr[i].stream);
	free(t->node), free(t->map), free(t->smmu), free(t->rmr);
	t->node = NULL, t->map = NULL, t->smmu = NULL, t->rmr = NULL;
	t->n = t->nmap = t->nsmmu = t->nrmr = 0;
}

int iort_root_complex(const struct iort *t, uint16_t segment)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->node[i].type == IORT_ROOT_COMPLEX && t->node[i].segment == segment)
			return (int)i;
	return -1;
}

bool iort_map_rid(const struct iort *t, uint16_t segment, uint16_t rid, size_t *smmu, uint32_t *sid)
{
	int at = iort_root_complex(t, segment);
	uint32_t id = rid;
	for (int hop = 0; at >= 0 && hop < IORT_MAX_CHAIN; hop++) {
		const struct iort_node *nd = &t->node[at];
		const struct iort_map *m = NULL;
		for (size_t k = 0; k < nd->nmaps && !m; k++) {
			const struct iort_map *c = &t->map[nd->first_map + k];
			if (!(c->flags & IORT_MAP_SINGLE) && id >= c->input_base &&
			    (uint64_t)id <= (uint64_t)c->input_base + c->num_ids)
				m = c;
		}
		if (!m || m->target < 0)
			return false;
		id = m->output_base + (id - m->input_base);
		at = m->target;
		if (t->node[at].type == IORT_SMMU_V3) {
			*smmu = t->node[at].smmu;
			*sid = id;
			return true;
		}
		if (t->node[at].type == IORT_ITS_GROUP || t->node[at].type == IORT_SMMU_V1V2)
			return false;
	}
	return false;
}
