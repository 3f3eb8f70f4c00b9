/* VT-d second-level page tables (spec 3.7, 9.8): a domain's tree of
 * 512-entry tables walked in 3 or 4 levels, with leaves of 4 KiB, 2 MiB
 * and 1 GiB. This code only writes memory: it touches no register and
 * invalidates nothing. The driver hands in how deep the walk is, the
 * address width and leaf sizes the unit offers, and how a table write is
 * made visible to a unit that may not snoop (as Linux's io-pgtable takes
 * its flush callbacks). Table pages come from the platform. */
#ifndef IOMMON_VTD_PGTABLE_H
#define IOMMON_VTD_PGTABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "iommu/io_pgtable.h"

/* A domain is the shared tree (../io_pgtable.h) in VT-d's entry format. */
#define vtd_pgtable_cfg io_pgtable_cfg
#define vtd_domain io_pgtable
extern const struct io_pgtable_fmt vtd_pte_fmt;

/* An empty tree for domain `did` (whatever `d` held is freed first). NULL
 * or why not (d->err NOMEM). */
static inline const char *vtd_domain_alloc(struct vtd_domain *d, const struct vtd_pgtable_cfg *cfg, uint16_t did)
{
	return io_pgtable_alloc(&vtd_pte_fmt, d, cfg, did);
}
/* Every table page back to the platform; the domain id stays. */
static inline void vtd_domain_free(struct vtd_domain *d)
{
	io_pgtable_free(d);
}
/* The tree's map, unmap and identity (io_pgtable.h has their contract). */
static inline const char *vtd_pgtable_map(struct vtd_domain *d, uint64_t iova, uint64_t phys, uint64_t size,
					  unsigned perm, uint64_t page)
{
	return io_pgtable_map(&vtd_pte_fmt, d, iova, phys, size, perm, page);
}
static inline const char *vtd_pgtable_unmap(struct vtd_domain *d, uint64_t iova, uint64_t size)
{
	return io_pgtable_unmap(&vtd_pte_fmt, d, iova, size);
}
static inline const char *vtd_pgtable_identity(struct vtd_domain *d, uint64_t base, uint64_t end)
{
	return io_pgtable_identity(&vtd_pte_fmt, d, base, end);
}
/* The walk the unit makes: where `iova` leads, with what permission
 * (IOMMU_R/W) and the leaf's level (1: 4 KiB, 2: 2 MiB, 3: 1 GiB); false
 * when no leaf is present there. */
static inline bool vtd_pgtable_walk(const struct vtd_domain *d, uint64_t iova, uint64_t *phys, unsigned *perm,
				    unsigned *level)
{
	return io_pgtable_walk(&vtd_pte_fmt, d, iova, phys, perm, level);
}

/* Bytes a leaf at `level` maps. */
static inline uint64_t vtd_level_size(unsigned level)
{
	return io_pgtable_level_size(level);
}

#endif
