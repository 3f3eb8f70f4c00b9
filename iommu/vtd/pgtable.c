/* VT-d second-level page tables (see pgtable.h). An entry with R or W set
 * is present (9.8); above level 1 it is a leaf when PS is set, else it
 * points at the next table. */
#include "pgtable.h"

#include <stdlib.h>
#include <string.h>

#include "../../core/platform.h"
#include "regs.h"

#define PAGE 4096ull
#define ENTRIES (1u << VTD_PTE_LEVEL_BITS)

static const char *fail(struct vtd_domain *d, enum iommu_err code, const char *why)
{
	d->err = code;
	return why;
}

static void sync(const struct vtd_domain *d, const void *p, size_t n)
{
	d->cfg->sync(p, n, d->cfg->ctx);
}

static bool present(uint64_t e)
{
	return e & (VTD_PTE_R | VTD_PTE_W);
}

static unsigned index_at(uint64_t iova, unsigned level)
{
	return (unsigned)(iova >> (12 + VTD_PTE_LEVEL_BITS * (level - 1))) & (ENTRIES - 1);
}

static uint64_t *table_at(uint64_t e)
{
	return (uint64_t *)(uintptr_t)(e & VTD_PTE_ADDR);
}

/* A zeroed table page, visible to the unit, remembered for freeing. */
static uint64_t *table_page(struct vtd_domain *d)
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

void vtd_domain_free(struct vtd_domain *d)
{
	for (size_t i = 0; i < d->npages; i++)
		platform->free_pages(d->pages[i], 1);
	free(d->pages);
	*d = (struct vtd_domain){ .did = d->did, .cfg = d->cfg };
}

const char *vtd_domain_alloc(struct vtd_domain *d, const struct vtd_pgtable_cfg *cfg, uint16_t did)
{
	vtd_domain_free(d);
	d->cfg = cfg;
	d->did = did;
	d->top = table_page(d);
	return d->top ? NULL : fail(d, IOMMU_ERR_NOMEM, "vtd: no memory for a page table");
}

/* The entry for `iova` at `level`, creating the tables above it; NULL
 * with d->err set when a larger leaf is in the way or memory ran out. */
static uint64_t *entry_for(struct vtd_domain *d, uint64_t iova, unsigned level, const char **why)
{
	uint64_t *t = d->top;
	for (unsigned l = d->cfg->levels; l > level; l--) {
		uint64_t *e = &t[index_at(iova, l)];
		if (!present(*e)) {
			uint64_t *n = table_page(d);
			if (!n) {
				*why = fail(d, IOMMU_ERR_NOMEM, "vtd: no memory for a page table");
				return NULL;
			}
			/* tables are reached with both permissions: the leaf decides */
			*e = (uint64_t)(uintptr_t)n | VTD_PTE_R | VTD_PTE_W;
			sync(d, e, 8);
		} else if (*e & VTD_PTE_PS) {
			*why = fail(d, IOMMU_ERR_ARGUMENT, "vtd: a larger page already maps that address");
			return NULL;
		}
		t = table_at(*e);
	}
	return &t[index_at(iova, level)];
}

static unsigned leaf_level(uint64_t page)
{
	for (unsigned l = 1; l <= 3; l++)
		if (page == vtd_level_size(l))
			return l;
	return 0;
}

const char *vtd_pgtable_map(struct vtd_domain *d, uint64_t iova, uint64_t phys, uint64_t size, unsigned perm,
			    uint64_t page)
{
	unsigned level = leaf_level(page);
	if (!level || level > d->cfg->levels || !(d->cfg->page_sizes & page))
		return fail(d, IOMMU_ERR_UNSUPPORTED, "vtd: the unit has no leaves of that size (CAP.SLLPS)");
	if ((iova | phys | size) & (page - 1) || !size)
		return fail(d, IOMMU_ERR_ARGUMENT, "vtd: address or size not aligned to the page size");
	if (iova + size - 1 < iova || (iova + size - 1) >> d->cfg->addr_bits)
		return fail(d, IOMMU_ERR_ARGUMENT, "vtd: IOVA beyond the unit's address width (MGAW)");
	if (phys + size - 1 < phys || ((phys + size - 1) & ~VTD_PTE_ADDR & ~(PAGE - 1)))
		return fail(d, IOMMU_ERR_ARGUMENT, "vtd: physical address beyond what an entry holds (51:12)");
	if (!(perm & IOMMU_RW))
		return fail(d, IOMMU_ERR_ARGUMENT, "vtd: a mapping needs read or write permission");
	uint64_t bits =
	    (perm & IOMMU_R ? VTD_PTE_R : 0) | (perm & IOMMU_W ? VTD_PTE_W : 0) | (level > 1 ? VTD_PTE_PS : 0);
	for (uint64_t off = 0; off < size; off += page) {
		const char *why = NULL;
		uint64_t *e = entry_for(d, iova + off, level, &why);
		if (!e)
			return why;
		if (level > 1 && present(*e) && !(*e & VTD_PTE_PS))
			return fail(d, IOMMU_ERR_ARGUMENT, "vtd: smaller pages already map part of that range");
		*e = ((phys + off) & VTD_PTE_ADDR) | bits;
		sync(d, e, 8);
	}
	return NULL;
}

const char *vtd_pgtable_unmap(struct vtd_domain *d, uint64_t iova, uint64_t size)
{
	if (!size || iova + size - 1 < iova)
		return fail(d, IOMMU_ERR_ARGUMENT, "vtd: unmap of an empty or wrapping range");
	for (uint64_t a = iova; a - iova < size;) {
		uint64_t phys;
		unsigned perm, level;
		if (!vtd_pgtable_walk(d, a, &phys, &perm, &level))
			return fail(d, IOMMU_ERR_ARGUMENT, "vtd: unmap of an address that is not mapped");
		uint64_t page = vtd_level_size(level);
		if (a & (page - 1))
			return fail(d, IOMMU_ERR_ARGUMENT, "vtd: unmap starts inside a larger page");
		if (page > size - (a - iova))
			return fail(d, IOMMU_ERR_ARGUMENT, "vtd: unmap ends inside a larger page");
		const char *why = NULL;
		uint64_t *e = entry_for(d, a, level, &why); /* present all the way: the walk found it */
		*e = 0;
		sync(d, e, 8);
		a += page;
	}
	return NULL;
}

bool vtd_pgtable_walk(const struct vtd_domain *d, uint64_t iova, uint64_t *phys, unsigned *perm, unsigned *level)
{
	const uint64_t *t = d->top;
	if (!t || iova >> d->cfg->addr_bits)
		return false;
	for (unsigned l = d->cfg->levels; l >= 1; l--) {
		uint64_t e = t[index_at(iova, l)];
		if (!present(e))
			return false;
		if (l == 1 || (e & VTD_PTE_PS)) {
			uint64_t mask = vtd_level_size(l) - 1;
			*phys = (e & VTD_PTE_ADDR & ~mask) | (iova & mask);
			*perm = (e & VTD_PTE_R ? IOMMU_R : 0) | (e & VTD_PTE_W ? IOMMU_W : 0);
			*level = l;
			return true;
		}
		t = table_at(e);
	}
	return false;
}

const char *vtd_pgtable_identity(struct vtd_domain *d, uint64_t base, uint64_t end)
{
	base &= ~(PAGE - 1);
	end = (end + PAGE - 1) & ~(PAGE - 1);
	while (base < end) {
		uint64_t phys, page = PAGE;
		unsigned perm, level;
		if (vtd_pgtable_walk(d, base, &phys, &perm, &level)) {
			page = vtd_level_size(level); /* already there (an RMRR inside RAM) */
			base = (base & ~(page - 1)) + page;
			continue;
		}
		/* the largest leaf that fits; a smaller one where a table of
		 * smaller leaves is already in the way */
		const char *e = "";
		for (unsigned l = d->cfg->levels < 3 ? d->cfg->levels : 3; e && l >= 1; l--) {
			page = vtd_level_size(l);
			if (l > 1 && (!(d->cfg->page_sizes & page) || (base & (page - 1)) || end - base < page))
				continue;
			e = vtd_pgtable_map(d, base, base, page, IOMMU_RW, page);
			if (e && (l == 1 || d->err != IOMMU_ERR_ARGUMENT))
				return e;
		}
		base += page;
	}
	return NULL;
}
