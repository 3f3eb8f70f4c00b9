/* AMD-Vi host page tables (spec 2.2.3): a domain's tree of 512-entry
 * tables walked in 3 to 6 levels (the DTE's Mode), with leaves of 4 KiB,
 * 2 MiB and 1 GiB: an entry with Next Level 0 is a leaf at whatever level
 * it sits. This code only writes memory: it touches no register and
 * invalidates nothing. The driver hands in the depth, the leaf sizes and
 * how a table write is made visible to the unit. */
#ifndef IOMMON_AMDVI_PGTABLE_H
#define IOMMON_AMDVI_PGTABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../iommu.h"

struct amdvi_pgtable_cfg {
	unsigned levels;     /* 3 to 6 */
	unsigned addr_bits;  /* IOVAs below 2^addr_bits: 12 + 9 * levels, at most 64 */
	uint64_t page_sizes; /* leaves offered: bit n set for 2^n bytes */
	void (*sync)(const void *p, size_t n, void *ctx);
	void *ctx;
};

struct amdvi_domain {
	uint16_t id;
	const struct amdvi_pgtable_cfg *cfg;
	uint64_t *top;
	void **pages;
	size_t npages, cap;
	enum iommu_err err;
};

/* An empty tree for domain `id` (whatever `d` held is freed first). */
const char *amdvi_domain_alloc(struct amdvi_domain *d, const struct amdvi_pgtable_cfg *cfg, uint16_t id);
void amdvi_domain_free(struct amdvi_domain *d);
/* [iova, iova + size) -> [phys, ...) in leaves of `page` bytes with
 * `perm`; the same contract as the VT-d tables (d->err on failure). */
const char *amdvi_pgtable_map(struct amdvi_domain *d, uint64_t iova, uint64_t phys, uint64_t size, unsigned perm,
			      uint64_t page);
const char *amdvi_pgtable_unmap(struct amdvi_domain *d, uint64_t iova, uint64_t size);
/* Identity [base, end) in the largest leaves that fit; kept where mapped. */
const char *amdvi_pgtable_identity(struct amdvi_domain *d, uint64_t base, uint64_t end);
/* The walk the unit makes (Next Level drives it, so skipped levels are
 * followed too): the address, permission and leaf level; false when the
 * walk ends at a non-present entry. */
bool amdvi_pgtable_walk(const struct amdvi_domain *d, uint64_t iova, uint64_t *phys, unsigned *perm, unsigned *level);

static inline uint64_t amdvi_level_size(unsigned level)
{
	return level >= 7 ? 0 : 1ull << (12 + 9 * (level - 1));
}

#endif
