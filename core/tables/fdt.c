/* The flattened device tree (see fdt.h). Layout from the Devicetree
 * Specification v0.4, 5.2-5.4: a 40-byte big-endian header, the memory
 * reservation block (pairs of 64-bit address and size, ended by a zero
 * pair), the structure block (32-bit tokens: BEGIN_NODE with its name,
 * END_NODE, PROP with length and an offset into the strings block, NOP,
 * END), the strings block. Nothing is read outside the blob: the header's
 * offsets and sizes are checked against its total size, and that against
 * the bytes given. */
#include "fdt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOK_BEGIN_NODE 1u
#define TOK_END_NODE 2u
#define TOK_PROP 3u
#define TOK_NOP 4u
#define TOK_END 9u
#define HEADER_LEN 40u
#define MAX_DEPTH 64

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint64_t be64(const uint8_t *p)
{
	return (uint64_t)be32(p) << 32 | be32(p + 4);
}

/* A NUL-terminated string at `at` within [0, end) of `base`: its length,
 * or -1. */
static long str_in(const uint8_t *base, size_t at, size_t end)
{
	for (size_t i = at; i < end; i++)
		if (!base[i])
			return (long)(i - at);
	return -1;
}

static bool grow(void **arr, size_t *cap, size_t n, size_t each)
{
	if (n < *cap)
		return true;
	size_t c = *cap ? *cap * 2 : 64;
	void *p = realloc(*arr, c * each);
	if (!p)
		return false;
	*arr = p, *cap = c;
	return true;
}

static int header(const uint8_t *b, size_t len, struct fdt *f, size_t *total, size_t *st, size_t *st_len, size_t *str,
		  size_t *str_len, size_t *rsv)
{
	if (len < HEADER_LEN) {
		diag_add(&f->diag, DIAG_ERROR, "%zu bytes: shorter than the 40-byte header", len);
		return -1;
	}
	if (be32(b) != FDT_MAGIC) {
		diag_add(&f->diag, DIAG_ERROR, "magic 0x%08x, not 0xd00dfeed: not a flattened device tree", be32(b));
		return -1;
	}
	*total = be32(b + 4);
	f->version = be32(b + 20);
	uint32_t last_comp = be32(b + 24);
	f->boot_cpuid = be32(b + 28);
	if (*total < HEADER_LEN || *total > len) {
		diag_add(&f->diag, DIAG_ERROR, "totalsize %zu outside the %zu bytes given", *total, len);
		return -1;
	}
	if (f->version < 16 || last_comp > 17) {
		diag_add(&f->diag, DIAG_ERROR, "version %u, compatible back to %u: only 16 and 17 are read", f->version,
			 last_comp);
		return -1;
	}
	*st = be32(b + 8), *str = be32(b + 12), *rsv = be32(b + 16);
	*str_len = be32(b + 32);
	/* version 16 has no size_dt_struct: the block runs to the end */
	*st_len = f->version >= 17 ? be32(b + 36) : *total - (*st < *total ? *st : *total);
	if (*st % 4 || *st > *total || *st_len > *total - *st) {
		diag_add(&f->diag, DIAG_ERROR, "structure block at %zu (%zu bytes) outside the tree or unaligned", *st,
			 *st_len);
		return -1;
	}
	if (*str > *total || *str_len > *total - *str) {
		diag_add(&f->diag, DIAG_ERROR, "strings block at %zu (%zu bytes) outside the tree", *str, *str_len);
		return -1;
	}
	if (*rsv % 8 || *rsv > *total) {
		diag_add(&f->diag, DIAG_ERROR, "memory reservation block at %zu outside the tree or unaligned", *rsv);
		return -1;
	}
	return 0;
}

static void reservations(const uint8_t *b, size_t total, size_t rsv, struct fdt *f)
{
	for (size_t at = rsv;; at += 16) {
		if (at + 16 > total) {
			diag_add(&f->diag, DIAG_WARNING, "memory reservation block runs off the tree without its end");
			return;
		}
		if (!be64(b + at) && !be64(b + at + 8))
			return;
		f->nrsv++;
	}
}

int fdt_parse(const uint8_t *b, size_t len, struct fdt *f)
{
	memset(f, 0, sizeof(*f));
	size_t total, st, st_len, str, str_len, rsv;
	if (!b || header(b, len, f, &total, &st, &st_len, &str, &str_len, &rsv))
		return -1;
	reservations(b, total, rsv, f);
	size_t ncap = 0, pcap = 0, end = st + st_len;
	int stack[MAX_DEPTH + 1];
	unsigned depth = 0;
	bool done = false;
	for (size_t at = st; !done;) {
		if (at + 4 > end) {
			diag_add(&f->diag, DIAG_ERROR, "the structure block ends at %zu without an END token", at - st);
			return -1;
		}
		uint32_t tok = be32(b + at);
		at += 4;
		switch (tok) {
		case TOK_BEGIN_NODE: {
			long n = str_in(b, at, end);
			if (n < 0) {
				diag_add(&f->diag, DIAG_ERROR, "a node name at %zu runs off the structure block",
					 at - st);
				return -1;
			}
			if (depth >= MAX_DEPTH) {
				diag_add(&f->diag, DIAG_ERROR, "nodes nested deeper than %u", MAX_DEPTH);
				return -1;
			}
			if ((depth == 0) != (f->nnodes == 0)) {
				diag_add(&f->diag, DIAG_ERROR, "a second root node at %zu", at - 4 - st);
				return -1;
			}
			if (!grow((void **)&f->nodes, &ncap, f->nnodes, sizeof(*f->nodes)))
				return diag_add(&f->diag, DIAG_ERROR, "no memory for the nodes"), -1;
			f->nodes[f->nnodes] = (struct fdt_node){ (const char *)b + at, depth ? stack[depth - 1] : -1,
								 depth, f->nprops, 0 };
			stack[depth++] = (int)f->nnodes++;
			at += ((size_t)n + 1 + 3) & ~(size_t)3;
			break;
		}
		case TOK_END_NODE:
			if (!depth) {
				diag_add(&f->diag, DIAG_ERROR, "END_NODE at %zu closes no node", at - 4 - st);
				return -1;
			}
			depth--;
			break;
		case TOK_PROP: {
			if (!depth) {
				diag_add(&f->diag, DIAG_ERROR, "a property outside every node at %zu", at - 4 - st);
				return -1;
			}
			if (at + 8 > end) {
				diag_add(&f->diag, DIAG_ERROR, "a property header runs off the structure block");
				return -1;
			}
			uint32_t plen = be32(b + at), nameoff = be32(b + at + 4);
			at += 8;
			if (plen > end - at) {
				diag_add(&f->diag, DIAG_ERROR, "a property's %u bytes run off the structure block",
					 plen);
				return -1;
			}
			long n = nameoff < str_len ? str_in(b, str + nameoff, str + str_len) : -1;
			if (n < 0) {
				diag_add(&f->diag, DIAG_ERROR,
					 "a property name at strings offset %u is outside the block", nameoff);
				return -1;
			}
			int node = stack[depth - 1];
			if (f->nodes[node].first_prop + f->nodes[node].nprops != f->nprops)
				diag_add(&f->diag, DIAG_WARNING, "a property of '%s' after its child nodes",
					 f->nodes[node].name);
			else if (!grow((void **)&f->props, &pcap, f->nprops, sizeof(*f->props)))
				return diag_add(&f->diag, DIAG_ERROR, "no memory for the properties"), -1;
			else {
				f->props[f->nprops++] =
				    (struct fdt_prop){ (const char *)b + str + nameoff, b + at, plen };
				f->nodes[node].nprops++;
			}
			at += ((size_t)plen + 3) & ~(size_t)3;
			break;
		}
		case TOK_NOP:
			break;
		case TOK_END:
			if (depth) {
				diag_add(&f->diag, DIAG_ERROR, "END with %u nodes still open", depth);
				return -1;
			}
			done = true;
			break;
		default:
			diag_add(&f->diag, DIAG_ERROR, "unknown token 0x%x at %zu", tok, at - 4 - st);
			return -1;
		}
	}
	if (!f->nnodes) {
		diag_add(&f->diag, DIAG_ERROR, "no root node");
		return -1;
	}
	return 0;
}

void fdt_free(struct fdt *f)
{
	free(f->nodes);
	free(f->props);
	f->nodes = NULL, f->props = NULL;
	f->nnodes = f->nprops = 0;
}

const struct fdt_prop *fdt_prop(const struct fdt *f, int node, const char *name)
{
	if (node < 0 || (size_t)node >= f->nnodes)
		return NULL;
	const struct fdt_node *n = &f->nodes[node];
	for (size_t i = 0; i < n->nprops; i++)
		if (strcmp(f->props[n->first_prop + i].name, name) == 0)
			return &f->props[n->first_prop + i];
	return NULL;
}

bool fdt_cell(const struct fdt_prop *p, size_t i, uint32_t *out)
{
	if (!p || i >= p->len / 4)
		return false;
	*out = be32(p->val + 4 * i);
	return true;
}

bool fdt_has_string(const struct fdt_prop *p, const char *s)
{
	size_t want = strlen(s);
	for (size_t at = 0; p && at < p->len;) {
		size_t n = strnlen((const char *)p->val + at, p->len - at);
		if (n == want && memcmp(p->val + at, s, n) == 0)
			return true;
		at += n + 1;
	}
	return false;
}

int fdt_compatible(const struct fdt *f, int from, const char *compat)
{
	for (size_t i = (size_t)(from + 1); i < f->nnodes; i++)
		if (fdt_has_string(fdt_prop(f, (int)i, "compatible"), compat))
			return (int)i;
	return -1;
}

int fdt_phandle(const struct fdt *f, uint32_t ph)
{
	for (size_t i = 0; ph && ph != 0xffffffffu && i < f->nnodes; i++) {
		uint32_t v;
		if ((fdt_cell(fdt_prop(f, (int)i, "phandle"), 0, &v) ||
		     fdt_cell(fdt_prop(f, (int)i, "linux,phandle"), 0, &v)) &&
		    v == ph)
			return (int)i;
	}
	return -1;
}

int fdt_path(const struct fdt *f, const char *path)
{
	if (!f->nnodes || path[0] != '/')
		return -1;
	int at = 0;
	for (const char *p = path + 1; *p;) {
		size_t n = strcspn(p, "/");
		int found = -1;
		for (size_t i = 0; i < f->nnodes && found < 0; i++) {
			const char *name = f->nodes[i].name;
			/* "cpus" names "cpus" and a unit-addressed "serial@1" names itself */
			if (f->nodes[i].parent == at && strncmp(name, p, n) == 0 && (name[n] == '\0' || name[n] == '@'))
				found = (int)i;
		}
		if (found < 0)
			return -1;
		at = found;
		p += n;
		while (*p == '/')
			p++;
	}
	return at;
}

static unsigned cells(const struct fdt *f, int node, const char *name, unsigned dflt)
{
	uint32_t v;
	return fdt_cell(fdt_prop(f, node, name), 0, &v) ? v : dflt;
}

unsigned fdt_address_cells(const struct fdt *f, int node)
{
	return cells(f, node, "#address-cells", 2);
}

unsigned fdt_size_cells(const struct fdt *f, int node)
{
	return cells(f, node, "#size-cells", 1);
}

/* `n` cells from cell `at` as one number (false past 64 bits or the end). */
static bool number(const struct fdt_prop *p, size_t at, unsigned n, uint64_t *out)
{
	*out = 0;
	if (n > 2)
		return false;
	for (unsigned k = 0; k < n; k++) {
		uint32_t c;
		if (!fdt_cell(p, at + k, &c))
			return false;
		*out = *out << 32 | c;
	}
	return true;
}

bool fdt_reg(const struct fdt *f, int node, size_t i, uint64_t *addr, uint64_t *size)
{
	if (node < 0 || (size_t)node >= f->nnodes)
		return false;
	int parent = f->nodes[node].parent;
	unsigned ac = parent >= 0 ? fdt_address_cells(f, parent) : 2;
	unsigned sc = parent >= 0 ? fdt_size_cells(f, parent) : 1;
	/* no cells, or more than 64 bits in either: nothing to read (zero
	 * cells would make every entry index a match) */
	if (ac + sc == 0 || ac > 2 || sc > 2)
		return false;
	const struct fdt_prop *p = fdt_prop(f, node, "reg");
	size_t at = i * (ac + sc);
	return p && number(p, at, ac, addr) && number(p, at + ac, sc, size);
}

void fdt_node_path(const struct fdt *f, int node, char *out, size_t cap)
{
	int chain[MAX_DEPTH + 1];
	size_t n = 0, at = 0;
	if (!cap)
		return;
	out[0] = '\0';
	if (node < 0 || (size_t)node >= f->nnodes)
		return;
	/* a parent is always an earlier node: the walk ends at the root */
	for (int k = node; k > 0 && n < MAX_DEPTH; k = f->nodes[k].parent)
		chain[n++] = k;
	if (!n)
		snprintf(out, cap, "/");
	while (n-- && at < cap) {
		int w = snprintf(out + at, cap - at, "/%s", f->nodes[chain[n]].name);
		at += w > 0 ? (size_t)w : 0;
	}
}

/* A status value as the message shows it: printable ASCII, the rest '?'. */
static void status_text(const struct fdt_prop *s, char *out, size_t cap)
{
	size_t n = 0;
	for (size_t i = 0; i < s->len && s->val[i] && n + 1 < cap && n < 24; i++)
		out[n++] = s->val[i] >= 0x20 && s->val[i] < 0x7f ? (char)s->val[i] : '?';
	out[n] = '\0';
}

bool fdt_usable(const struct fdt *f, int node, char *why, size_t cap)
{
	if (node < 0 || (size_t)node >= f->nnodes)
		return false;
	for (int k = node; k >= 0; k = f->nodes[k].parent) {
		const struct fdt_prop *s = fdt_prop(f, k, "status");
		if (!s)
			continue;
		bool string = strnlen((const char *)s->val, s->len) < s->len; /* its first string is read */
		const char *v = (const char *)s->val;
		if (string && (strcmp(v, "okay") == 0 || strcmp(v, "ok") == 0))
			continue;
		if (!why || !cap)
			return false;
		char text[32], path[80];
		status_text(s, text, sizeof(text));
		bool named = string && (strcmp(v, "disabled") == 0 || strcmp(v, "reserved") == 0 ||
					strcmp(v, "fail") == 0 || strncmp(v, "fail-", 5) == 0);
		const char *odd = named ? "" : string ? " (no value the specification names)" : " (not a string)";
		if (k == node) {
			snprintf(why, cap, "status \"%s\"%s", text, odd);
		} else {
			fdt_node_path(f, k, path, sizeof(path));
			snprintf(why, cap, "under %s, whose status is \"%s\"%s", path, text, odd);
		}
		return false;
	}
	return true;
}
