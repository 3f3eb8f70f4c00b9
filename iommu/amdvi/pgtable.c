/* AMD-Vi host page tables (see pgtable.h). A present entry (PR) with Next
 * Level 0 is a leaf (2.2.3); one with Next Level 1..6 below its own level
 * points at a table of that level, and the levels it skips must be zero in
 * the address. Next Level 7 (a page size encoded in the address) is never
 * written here, and a walk that meets one reports nothing. */
#include "pgtable.h"

#include <stdlib.h>
#include <string.h>

#include "../../core/platform.h"
#include "regs.h"

#define PAGE 4096ull
#define ENTRIES (1u << AMDVI_LEVEL_BITS)

static const char *fail(struct amdvi_domain *d, enum iommu_err code, const char *why)
{
	d->err = code;
	return why;
}

static void sync(const struct amdvi_domain *d, const void *p, size_t n)
{
	d->cfg->sync(p, n, d->cfg->ctx);
}

static unsigned index_at(uint64_t iova, unsigned level)
{
	return (unsigned)(iova >> (12 + AMDVI_LEVEL_BITS * (level - 1))) & (ENTRIES - 1);
}

static uint64_t *table_at(uint64_t e)
{
	return (uint64_t *)(uintptr_t)(e & AMDVI_PTE_ADDR);
}

static uint64_t *table_page(struct amdvi_domain *d)
{
	if (d->npages == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 16;
		void **p = realloc(d->pages, cap * sizeof(*p));
		if (!p)
			return NULL;
		d->pages = p, d->cap = cap;
	}
	uint64_t *t = platform->alloc_pages(1, 0);
	if (!t)
		return NULL;
	memset(t, 0, PAGE);
	sync(d, t, PAGE);
	d->pages[d->npages++] = t;
	return t;
}

void amdvi_domain_free(struct amdvi_domain *d)
{
	for (size_t i = 0; i < d->npages; i++)
		platform->free_pages(d->pages[i], 1);
	free(d->pages);
	*d = (struct amdvi_domain){ .id = d->id, .cfg = d->cfg };
}

const char *amdvi_domain_alloc(struct amdvi_domain *d, const struct amdvi_pgtable_cfg *cfg, uint16_t id)
{
	amdvi_domain_free(d);
	d->cfg = cfg;
	d->id = id;
	d->top = table_page(d);
	return d->top ? NULL : fail(d, IOMMU_ERR_NOMEM, "amdvi: no memory for a page table");
}

/* The entry for `iova` at `level`, creating page directory entries above it
 * (each naming the level just below: nothing skipped in tables we build). */
static uint64_t *entry_for(struct amdvi_domain *d, uint64_t iova, unsigned level, const char **why)
{
	uint64_t *t = d->top;
	for (unsigned l = d->cfg->levels; l > level; l--) {
		uint64_t *e = &t[index_at(iova, l)];
		if (!(*e & AMDVI_PTE_PR)) {
			uint64_t *n = table_page(d);
			if (!n) {
				*why = fail(d, IOMMU_ERR_NOMEM, "amdvi: no memory for a page table");
				return NULL;
			}
			/* directories allow both: the leaf decides (the unit checks
			 * IR/IW at every level) */
			*e = (uint64_t)(uintptr_t)n | (uint64_t)(l - 1) << AMDVI_PTE_NL_SHIFT | AMDVI_PTE_PR |
			     AMDVI_PTE_IR | AMDVI_PTE_IW;
			sync(d, e, 8);
		} else if (amdvi_pte_nl(*e) != l - 1) {
			*why = fail(d, IOMMU_ERR_ARGUMENT, "amdvi: a larger page already maps that address");
			return NULL;
		}
		t = table_at(*e);
	}
	return &t[index_at(iova, level)];
}

static unsigned leaf_level(uint64_t page)
{
	for (unsigned l = 1; l <= 3; l++)
		if (page == amdvi_level_size(l))
			return l;
	return 0;
}

const char *amdvi_pgtable_map(struct amdvi_domain *d, uint64_t iova, uint64_t phys, uint64_t size, unsigned perm,
			      uint64_t page)
{
	unsigned level = leaf_level(page);
	if (!level || level > d->cfg->levels || !(d->cfg->page_sizes & page))
		return fail(d, IOMMU_ERR_UNSUPPORTED, "amdvi: no leaves of that size in this walk");
	if ((iova | phys | size) & (page - 1) || !size)
		return fail(d, IOMMU_ERR_ARGUMENT, "amdvi: address or size not aligned to the page size");
	if (iova + size - 1 < iova || (d->cfg->addr_bits < 64 && (iova + size - 1) >> d->cfg->addr_bits))
		return fail(d, IOMMU_ERR_ARGUMENT, "amdvi: IOVA beyond what the walk's levels cover");
	if (phys + size - 1 < phys || ((phys + size - 1) & ~AMDVI_PTE_ADDR & ~(PAGE - 1)))
		return fail(d, IOMMU_ERR_ARGUMENT, "amdvi: physical address beyond what an entry holds (51:12)");
	if (!(perm & IOMMU_RW))
		return fail(d, IOMMU_ERR_ARGUMENT, "amdvi: a mapping needs read or write permission");
	uint64_t bits =
	    AMDVI_PTE_PR | (perm & IOMMU_R ? AMDVI_PTE_IR : 0) | (perm & IOMMU_W ? AMDVI_PTE_IW : 0); /* NL 0 */
	for (uint64_t off = 0; off < size; off += page) {
		const char *why = NULL;
		uint64_t *e = entry_for(d, iova + off, level, &why);
		if (!e)
			return why;
		if (level > 1 && (*e & AMDVI_PTE_PR) && amdvi_pte_nl(*e) != 0)
			return fail(d, IOMMU_ERR_ARGUMENT, "amdvi: smaller pages already map part of that range");
		*e = ((phys + off) & AMDVI_PTE_ADDR) | bits;
		sync(d, e, 8);
	}
	return NULL;
}

const char *amdvi_pgtable_unmap(struct amdvi_domain *d, uint64_t iova, uint64_t size)
{
	if (!size || iova + size - 1 < iova)
		return fail(d, IOMMU_ERR_ARGUMENT, "amdvi: unmap of an empty or wrapping range");
	for (uint64_t a = iova; a - iova < size;) {
		uint64_t phys;
		unsigned perm, level;
		if (!amdvi_pgtable_walk(d, a, &phys, &perm, &level))
			return fail(d, IOMMU_ERR_ARGUMENT, "amdvi: unmap of an address that is not mapped");
		uint64_t page = amdvi_level_size(level);
		if (a & (page - 1))
			return fail(d, IOMMU_ERR_ARGUMENT, "amdvi: unmap starts inside a larger page");
		if (page > size - (a - iova))
			return fail(d, IOMMU_ERR_ARGUMENT, "amdvi: unmap ends inside a larger page");
		const char *why = NULL;
		uint64_t *e = entry_for(d, a, level, &why); /* present all the way: the walk found it */
		if (!e)
			return why;
		*e = 0;
		sync(d, e, 8);
		a += page;
	}
	return NULL;
}

bool amdvi_pgtable_walk(const struct amdvi_domain *d, uint64_t iova, uint64_t *phys, unsigned *perm, unsigned *level)
{
	const uint64_t *t = d->top;
	if (!t || (d->cfg->addr_bits < 64 && iova >> d->cfg->addr_bits))
		return false;
	unsigned allow = IOMMU_RW;
	for (unsigned l = d->cfg->levels; l >= 1;) {
		uint64_t e = t[index_at(iova, l)];
		unsigned nl = amdvi_pte_nl(e);
		if (!(e & AMDVI_PTE_PR) || nl == 7 || nl >= l)
			return false;
		allow &= (e & AMDVI_PTE_IR ? IOMMU_R : 0) | (e & AMDVI_PTE_IW ? IOMMU_W : 0);
		if (nl == 0) {
			uint64_t mask = amdvi_level_size(l) - 1;
			*phys = (e & AMDVI_PTE_ADDR & ~mask) | (iova & mask);
			*perm = allow;
			*level = l;
			return true;
		}
		/* the levels skipped must index entry 0 (2.2.3) */
		for (unsigned s = l - 1; s > nl; s--)
			if (index_at(iova, s) != 0)
				return false;
		t = table_at(e);
		l = nl;
	}
	return false;
}

const char *amdvi_pgtable_identity(struct amdvi_domain *d, uint64_t base, uint64_t end)
{
	base &= ~(PAGE - 1);
	end = (end + PAGE - 1) & ~(PAGE - 1);
	while (base < end) {
		uint64_t phys, page = PAGE;
		unsigned perm, level;
		if (amdvi_pgtable_walk(d, base, &phys, &perm, &level)) {
			page = amdvi_level_size(level);
			base = (base & ~(page - 1)) + page;
			continue;
		}
		const char *e = "";
		for (unsigned l = 3; e && l >= 1; l--) {
			page = amdvi_level_size(l);
			if (l > 1 && (l > d->cfg->levels || !(d->cfg->page_sizes & page) || (base & (page - 1)) ||
				      end - base < page))
				continue;
			e = amdvi_pgtable_map(d, base, base, page, IOMMU_RW, page);
			if (e && (l == 1 || d->err != IOMMU_ERR_ARGUMENT))
				return e;
		}
		base += page;
	}
	return NULL;
}
