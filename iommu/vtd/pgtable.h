/* VT-d page tables: second-level (second-stage) tables (spec 3.7, 9.8) and
 * the first-stage tables of scalable mode (3.6, 9.7, the IA-32e format): a
 * domain's tree of 512-entry tables walked in 3, 4 or 5 levels, with leaves
 * of 4 KiB, 2 MiB and 1 GiB. A domain's configuration names its format
 * (cfg->fmt: vtd_pte_fmt or vtd_fs_pte_fmt). This code only writes memory: it touches no register and
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

/* A domain is the shared tree (../io_pgtable.h) in one of VT-d's entry
 * formats: second stage (R and W bits; a write-only page is possible), or
 * first stage (P, RW, US; every present page can be read, so a write-only
 * mapping is refused, UNSUPPORTED; A and D left clear for the unit to set). */
#define vtd_pgtable_cfg io_pgtable_cfg
#define vtd_domain io_pgtable
extern const struct io_pgtable_fmt vtd_pte_fmt, vtd_fs_pte_fmt;
static inline const struct io_pgtable_fmt *vtd_fmt(const struct vtd_domain *d)
{
	return d->cfg && d->cfg->fmt ? d->cfg->fmt : &vtd_pte_fmt;
}

/* An empty tree for domain `did` (whatever `d` held is freed first). NULL
 * or why not (d->err NOMEM). */
static inline const char *vtd_domain_alloc(struct vtd_domain *d, const struct vtd_pgtable_cfg *cfg, uint16_t did)
{
	return io_pgtable_alloc(cfg->fmt ? cfg->fmt : &vtd_pte_fmt, d, cfg, did);
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
	if (vtd_fmt(d) == &vtd_fs_pte_fmt && perm == IOMMU_W) {
		d->err = IOMMU_ERR_UNSUPPORTED;
		return "vtd: a first-stage page cannot be write-only (every present page is readable)";
	}
	return io_pgtable_map(vtd_fmt(d), d, iova, phys, size, perm, page);
}
static inline const char *vtd_pgtable_unmap(struct vtd_domain *d, uint64_t iova, uint64_t size)
{
	return io_pgtable_unmap(vtd_fmt(d), d, iova, size);
}
static inline const char *vtd_pgtable_identity(struct vtd_domain *d, uint64_t base, uint64_t end)
{
	return io_pgtable_identity(vtd_fmt(d), d, base, end);
}
/* The walk the unit makes: where `iova` leads, with what permission
 * (IOMMU_R/W) and the leaf's level (1: 4 KiB, 2: 2 MiB, 3: 1 GiB); false
 * when no leaf is present there. */
static inline bool vtd_pgtable_walk(const struct vtd_domain *d, uint64_t iova, uint64_t *phys, unsigned *perm,
				    unsigned *level)
{
	return io_pgtable_walk(vtd_fmt(d), d, iova, phys, perm, level);
}

/* Bytes a leaf at `level` maps. */
static inline uint64_t vtd_level_size(unsigned level)
{
	return io_pgtable_level_size(level);
}

#endif
