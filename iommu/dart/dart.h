/* The PowerPC DART (Apple U3 and U4 northbridges; the seed paper's other
 * IOMMU) behind the iommu interface, from shared/specs/dart.md. One table
 * for everything behind the bridge; entries are valid or not (no
 * permissions). Two entry schemes: "invalid" (unmapped entries are 0, so
 * stray DMA faults and shows in EXCP) and "dummy" (Linux's: unmapped
 * entries point at a dummy page, so stray DMA is silently absorbed). */
#ifndef IOMMON_DART_H
#define IOMMON_DART_H

#include "core/base/regwin.h"
#include "iommu/backend.h"
#include "iommu/iommu.h"

#define DART_FLUSH_ATTEMPTS 5 /* 1, 2, 4, 8 and 16 reads, as Linux escalated */

struct dart {
	struct iommu io;
	struct regwin w;
	bool u4, dummy_scheme;
	uint32_t *table; /* big-endian entries */
	size_t pages;	 /* table pages (1024 entries each) */
	uint8_t *dummy;	 /* the dummy page */
	uint32_t found_cntl, found_base, found_size;
	bool found_valid; /* the found_* fields hold a take-over's reading */
	unsigned flush_retries;
	struct iommu_inval_kind kinds[2];
	char variant[24];
};

/* A DART reached through `w` (big-endian); `pages` of table (Linux: 512,
 * 2 GiB of DVA); the scheme for unmapped entries. NULL or why not. */
const char *dart_init(struct dart *d, const struct regwin *w, bool u4, const char *name, size_t pages, bool dummy);
/* Changes the scheme for the next take-over. */
void dart_set_scheme(struct dart *d, bool dummy);

/* The backend: its models; a device tree, not ACPI, describes DARTs. */
extern const struct iommu_backend dart_backend;

#endif
