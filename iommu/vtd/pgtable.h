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

#include "../iommu.h"

struct vtd_pgtable_cfg {
	unsigned levels;     /* 3 or 4 */
	unsigned addr_bits;  /* IOVAs below 2^addr_bits (MGAW cut to the walk) */
	uint64_t page_sizes; /* leaves offered: bit n set for 2^n bytes */
	/* after every table write: make [p, p + n) visible to the unit */
	void (*sync)(const void *p, size_t n, void *ctx);
	void *ctx;
};

/* A second-level page-table tree with its domain id. */
struct vtd_domain {
	uint16_t did;
	const struct vtd_pgtable_cfg *cfg;
	uint64_t *top;
	void **pages; /* every table page, freed with the domain */
	size_t npages, cap;
	enum iommu_err err; /* why the last call that failed did */
};

/* An empty tree for domain `did` (whatever `d` held is freed first). NULL
 * or why not (d->err NOMEM). */
const char *vtd_domain_alloc(struct vtd_domain *d, const struct vtd_pgtable_cfg *cfg, uint16_t did);
/* Every table page back to the platform; the domain id stays. */
void vtd_domain_free(struct vtd_domain *d);

/* [iova, iova + size) -> [phys, ...) in leaves of `page` bytes with
 * `perm` (IOMMU_R/W). A leaf of the same size already there is replaced;
 * a larger leaf over the range, or a table of smaller ones under it, is
 * refused (ARGUMENT). On an error the leaves before it stay. NULL or why
 * not, with d->err: UNSUPPORTED (a leaf size not offered), ARGUMENT
 * (misaligned, empty, beyond the address width, no permission), NOMEM. */
const char *vtd_pgtable_map(struct vtd_domain *d, uint64_t iova, uint64_t phys, uint64_t size, unsigned perm,
			    uint64_t page);
/* Clears the leaves covering [iova, iova + size), which must start and end
 * on leaf boundaries and be mapped throughout (else ARGUMENT, with the
 * leaves before the bad one cleared). Tables left empty stay. */
const char *vtd_pgtable_unmap(struct vtd_domain *d, uint64_t iova, uint64_t size);
/* Identity [base, end) rounded out to 4 KiB, in the largest leaves that
 * fit; what is already mapped there is kept (an RMRR inside RAM). */
const char *vtd_pgtable_identity(struct vtd_domain *d, uint64_t base, uint64_t end);

/* The walk the unit makes: where `iova` leads, with what permission
 * (IOMMU_R/W) and the leaf's level (1: 4 KiB, 2: 2 MiB, 3: 1 GiB); false
 * when no leaf is present there. */
bool vtd_pgtable_walk(const struct vtd_domain *d, uint64_t iova, uint64_t *phys, unsigned *perm, unsigned *level);

/* Bytes a leaf at `level` maps. */
static inline uint64_t vtd_level_size(unsigned level)
{
	return 1ull << (12 + 9 * (level - 1));
}

#endif
