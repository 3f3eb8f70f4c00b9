/* The page-table tree (see io_pgtable.h). */
#include "io_pgtable.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/platform.h"

/* `why` with the format's name in front and its register after (`what`:
 * NULL, or the one that sets the limit), in d->err's company. */
static const char *fail_by(const struct io_pgtable_fmt *f, struct io_pgtable *d, enum iommu_err code, const char *why,
			   const char *what)
{
	static char msg[128];
	snprintf(msg, sizeof(msg), "%s: %s%s%s%s", f->name, why, what ? " (" : "", what ? what : "", what ? ")" : "");
	d->err = code;
	return msg;
}

static const char *fail(const struct io_pgtable_fmt *f, struct io_pgtable *d, enum iommu_err code, const char *why)
{
	return fail_by(f, d, code, why, NULL);
}

static void sync(const struct io_pgtable *d, const void *p, size_t n)
{
	d->cfg->sync(p, n, d->cfg->ctx);
}

static uint64_t granule(const struct io_pgtable *d)
{
	return 1ull << io_pgtable_granule_bits(d->cfg);
}

static unsigned index_at(const struct io_pgtable *d, uint64_t iova, unsigned level)
{
	unsigned g = io_pgtable_granule_bits(d->cfg), bits = g - 3;
	unsigned shift = g + bits * (level - 1);
	if (level == d->cfg->levels)
		bits += d->cfg->top_extra_bits; /* concatenated top tables */
	return shift < 64 ? (unsigned)(iova >> shift) & ((1u << bits) - 1) : 0;
}

/* Bytes of the top table: one granule, or the concatenated ones. */
static uint64_t top_bytes(const struct io_pgtable *d)
{
	return granule(d) << d->cfg->top_extra_bits;
}

static uint64_t leaf_size(const struct io_pgtable *d, unsigned level)
{
	return io_pgtable_leaf_size(d->cfg, level);
}

void *io_pgtable_pages(size_t n, uint64_t align, uint64_t limit, void **raw, size_t *rawn)
{
	uint8_t *p = platform->alloc_pages(n, limit);
	*raw = p, *rawn = n;
	if (!p || ((uintptr_t)p & (align - 1)) == 0)
		return p;
	platform->free_pages(p, n);
	size_t more = n + (size_t)(align / PAGE_SIZE) - 1;
	p = platform->alloc_pages(more, limit);
	*raw = p, *rawn = more;
	if (!p)
		return NULL;
	return p + ((align - ((uintptr_t)p & (align - 1))) & (align - 1));
}

static uint64_t *table_at(const struct io_pgtable_fmt *f, uint64_t e)
{
	return (uint64_t *)(uintptr_t)io_pgtable_entry_addr(f, e);
}

static bool grow(struct io_pgtable *d)
{
	size_t cap = d->cap ? d->cap * 2 : 16;
	void **p = realloc(d->pages, cap * sizeof(*p));
	if (p)
		d->pages = p;
	void **r = p ? realloc(d->raw, cap * sizeof(*r)) : NULL;
	if (r)
		d->raw = r;
	size_t *rn = r ? realloc(d->rawn, cap * sizeof(*rn)) : NULL;
	if (!rn)
		return false;
	d->rawn = rn, d->cap = cap;
	return true;
}

/* A zeroed table of `g` bytes (a granule, or concatenated top tables),
 * aligned to them (VMSA tables are; the x86 formats' 4 KiB ones are by
 * allocation), visible to the unit, remembered for freeing. */
static uint64_t *table_of(struct io_pgtable *d, uint64_t g)
{
	if (d->npages == d->cap && !grow(d))
		return NULL;
	uint64_t *t =
	    io_pgtable_pages((size_t)(g / PAGE_SIZE), g, d->cfg->limit, &d->raw[d->npages], &d->rawn[d->npages]);
	if (!t)
		return NULL;
	memset(t, 0, g);
	sync(d, t, g);
	d->pages[d->npages++] = t;
	return t;
}

static uint64_t *table_page(struct io_pgtable *d)
{
	return table_of(d, granule(d));
}

void io_pgtable_free(struct io_pgtable *d)
{
	for (size_t i = 0; i < d->npages; i++)
		platform->free_pages(d->raw[i], d->rawn[i]);
	free(d->pages);
	free(d->raw);
	free(d->rawn);
	*d = (struct io_pgtable){ .did = d->did, .cfg = d->cfg };
}

const char *io_pgtable_alloc(const struct io_pgtable_fmt *f, struct io_pgtable *d, const struct io_pgtable_cfg *cfg,
			     uint16_t did)
{
	io_pgtable_free(d);
	d->cfg = cfg;
	d->did = did;
	d->top = table_of(d, top_bytes(d));
	return d->top ? NULL : fail(f, d, IOMMU_ERR_NOMEM, "no memory for a page table");
}

/* The entry for `iova` at `level`, creating the tables above it, each
 * naming the level just below; NULL with d->err set when a larger leaf is
 * in the way or memory ran out. */
static uint64_t *entry_for(const struct io_pgtable_fmt *f, struct io_pgtable *d, uint64_t iova, unsigned level,
			   const char **why)
{
	uint64_t *t = d->top;
	for (unsigned l = d->cfg->levels; l > level; l--) {
		uint64_t *e = &t[index_at(d, iova, l)];
		if (!f->present(*e)) {
			uint64_t *n = table_page(d);
			if (!n) {
				*why = fail(f, d, IOMMU_ERR_NOMEM, "no memory for a page table");
				return NULL;
			}
			*e = f->dir((uint64_t)(uintptr_t)n, l);
			sync(d, e, 8);
		} else if (f->next(*e, l) != l - 1) {
			*why = fail(f, d, IOMMU_ERR_ARGUMENT, "a larger page already maps that address");
			return NULL;
		}
		t = table_at(f, *e);
	}
	return &t[index_at(d, iova, level)];
}

static unsigned leaf_level(const struct io_pgtable *d, uint64_t page)
{
	for (unsigned l = 1; l <= d->cfg->levels; l++)
		if (page == leaf_size(d, l))
			return l;
	return 0;
}

const char *io_pgtable_map(const struct io_pgtable_fmt *f, struct io_pgtable *d, uint64_t iova, uint64_t phys,
			   uint64_t size, unsigned perm, uint64_t page)
{
	unsigned level = leaf_level(d, page);
	if (!level || level > d->cfg->levels || !(d->cfg->page_sizes & page))
		return fail_by(f, d, IOMMU_ERR_UNSUPPORTED, "the unit has no leaves of that size", f->sizes);
	if ((iova | phys | size) & (page - 1) || !size)
		return fail(f, d, IOMMU_ERR_ARGUMENT, "address or size not aligned to the page size");
	if (iova + size - 1 < iova || (iova + size - 1) >> d->cfg->addr_bits)
		return fail_by(f, d, IOMMU_ERR_ARGUMENT, "IOVA beyond the unit's address width", f->width);
	if (phys + size - 1 < phys || ((phys + size - 1) & ~(f->addr << f->addr_shift) & ~(granule(d) - 1)))
		return fail(f, d, IOMMU_ERR_ARGUMENT, "physical address beyond what an entry holds");
	if (!(perm & IOMMU_RW))
		return fail(f, d, IOMMU_ERR_ARGUMENT, "a mapping needs read or write permission");
	for (uint64_t off = 0; off < size; off += page) {
		const char *why = NULL;
		uint64_t *e = entry_for(f, d, iova + off, level, &why);
		if (!e)
			return why;
		if (level > 1 && f->present(*e) && f->next(*e, level) != 0)
			return fail(f, d, IOMMU_ERR_ARGUMENT, "smaller pages already map part of that range");
		*e = f->leaf(phys + off, perm, level);
		sync(d, e, 8);
	}
	return NULL;
}

const char *io_pgtable_unmap(const struct io_pgtable_fmt *f, struct io_pgtable *d, uint64_t iova, uint64_t size)
{
	if (!size || iova + size - 1 < iova)
		return fail(f, d, IOMMU_ERR_ARGUMENT, "unmap of an empty or wrapping range");
	for (uint64_t a = iova; a - iova < size;) {
		uint64_t phys;
		unsigned perm, level;
		if (!io_pgtable_walk(f, d, a, &phys, &perm, &level))
			return fail(f, d, IOMMU_ERR_ARGUMENT, "unmap of an address that is not mapped");
		uint64_t page = leaf_size(d, level);
		if (a & (page - 1))
			return fail(f, d, IOMMU_ERR_ARGUMENT, "unmap starts inside a larger page");
		if (page > size - (a - iova))
			return fail(f, d, IOMMU_ERR_ARGUMENT, "unmap ends inside a larger page");
		const char *why = NULL;
		uint64_t *e = entry_for(f, d, a, level, &why); /* present all the way: the walk found it */
		if (!e)
			return why;
		*e = 0;
		sync(d, e, 8);
		a += page;
	}
	return NULL;
}

uint64_t *io_pgtable_leaf_entry(const struct io_pgtable_fmt *f, const struct io_pgtable *d, uint64_t iova,
				unsigned *level)
{
	uint64_t phys;
	unsigned perm;
	if (!io_pgtable_walk(f, d, iova, &phys, &perm, level))
		return NULL;
	/* present all the way down: followed as the walk followed them */
	uint64_t *t = d->top;
	for (unsigned l = d->cfg->levels; l > *level;) {
		uint64_t e = t[index_at(d, iova, l)];
		l = f->next(e, l);
		t = table_at(f, e);
	}
	return &t[index_at(d, iova, *level)];
}

bool io_pgtable_walk(const struct io_pgtable_fmt *f, const struct io_pgtable *d, uint64_t iova, uint64_t *phys,
		     unsigned *perm, unsigned *level)
{
	const uint64_t *t = d->top;
	if (!t || iova >> d->cfg->addr_bits)
		return false;
	unsigned allow = IOMMU_RW;
	for (unsigned l = d->cfg->levels; l >= 1;) {
		uint64_t e = t[index_at(d, iova, l)];
		if (!f->present(e))
			return false;
		unsigned n = f->next(e, l);
		if (n >= l)
			return false;
		allow &= f->perm(e);
		if (n == 0) {
			uint64_t mask = leaf_size(d, l) - 1;
			*phys = (io_pgtable_entry_addr(f, e) & ~mask) | (iova & mask);
			*perm = allow;
			*level = l;
			return true;
		}
		for (unsigned s = l - 1; s > n; s--)
			if (index_at(d, iova, s) != 0)
				return false;
		t = table_at(f, e);
		l = n;
	}
	return false;
}

const char *io_pgtable_identity(const struct io_pgtable_fmt *f, struct io_pgtable *d, uint64_t base, uint64_t end)
{
	uint64_t g = granule(d);
	base &= ~(g - 1);
	end = (end + g - 1) & ~(g - 1);
	while (base < end) {
		uint64_t phys, page = g;
		unsigned perm, level;
		if (io_pgtable_walk(f, d, base, &phys, &perm, &level)) {
			page = leaf_size(d, level); /* already there (a reserved range inside RAM) */
			base = (base & ~(page - 1)) + page;
			continue;
		}
		/* the largest leaf that fits; a smaller one where a table of
		 * smaller leaves is already in the way */
		const char *e = "";
		for (unsigned l = d->cfg->levels < 3 ? d->cfg->levels : 3; e && l >= 1; l--) {
			page = leaf_size(d, l);
			if (l > 1 &&
			    (!page || !(d->cfg->page_sizes & page) || (base & (page - 1)) || end - base < page))
				continue;
			e = io_pgtable_map(f, d, base, base, page, IOMMU_RW, page);
			if (e && (l == 1 || d->err != IOMMU_ERR_ARGUMENT))
				return e;
		}
		base += page;
	}
	return NULL;
}

const char *io_pgtable_fork(const struct io_pgtable_fmt *f, struct io_pgtable *d, const struct io_pgtable *from,
			    uint64_t iova, uint64_t phys)
{
	uint64_t old;
	unsigned perm, level;
	if (!io_pgtable_walk(f, from, iova, &old, &perm, &level))
		return fail(f, d, IOMMU_ERR_ARGUMENT, "nothing mapped there to fork the tables at");
	const char *e = io_pgtable_alloc(f, d, from->cfg, from->did);
	if (e)
		return e;
	uint64_t g = top_bytes(d);
	const uint64_t *src = from->top;
	uint64_t *dst = d->top;
	for (unsigned l = d->cfg->levels;; l--, g = granule(d)) {
		memcpy(dst, src, g);
		uint64_t *slot = &dst[index_at(d, iova, l)];
		if (l == level) {
			*slot = f->leaf(phys & ~(leaf_size(d, l) - 1), perm, l);
			sync(d, dst, g);
			return NULL;
		}
		uint64_t *copy = table_page(d);
		if (!copy)
			return fail(f, d, IOMMU_ERR_NOMEM, "no memory for a page table");
		src = table_at(f, *slot);
		*slot = f->dir((uint64_t)(uintptr_t)copy, l);
		sync(d, dst, g);
		dst = copy;
	}
}
