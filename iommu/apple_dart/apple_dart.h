/* Apple's DART (Apple Silicon) behind the iommu interface, from
 * shared/specs/dart.md section 2: the T8020 register layout (t8103 with
 * DART1 entries, t6000 with DART2 entries) and the T8110 layout. One
 * stream (the device under test's) is taken: its control register and
 * TTBRs, a two-level table below TTBR 0 with the DART's granule, and its
 * TLB invalidation; other streams are left as found. */
#ifndef IOMMON_APPLE_DART_H
#define IOMMON_APPLE_DART_H

#include "core/base/macros.h"
#include "core/base/regwin.h"
#include "iommu/backend.h"
#include "iommu/iommu.h"

enum apple_dart_layout { APPLE_T8103, APPLE_T6000, APPLE_T8110 };

#define APPLE_DART_DEADLINE_US 100 /* an invalidation, as Linux waited */
#define APPLE_DART_DEADLINE_TEXT STRINGIFY(APPLE_DART_DEADLINE_US) " us"

struct apple_dart {
	struct iommu io;
	struct regwin w;
	enum apple_dart_layout layout;
	unsigned page_shift; /* the granule: 14 (16 KiB) or 12 */
	unsigned sid, nsid;
	bool bypass; /* PARAMS2: the stream can bypass translation */
	uint64_t *l1;
	void **l2;
	size_t nl2, capl2;
	uint32_t found_tcr, found_ttbr[4], found_enabled, found_mask;
	bool found_valid; /* the found_* fields hold a take-over's reading */
	struct iommu_inval_kind kinds[2];
	char variant[24];
};

/* A DART reached through `w` (little-endian), the device under test on
 * stream `sid` (the device tree says which on real machines). */
const char *apple_dart_init(struct apple_dart *d, const struct regwin *w, enum apple_dart_layout layout,
			    const char *name, unsigned sid);

/* The backend ("apple"): its models; a device tree, not ACPI, describes
 * Apple's DARTs. */
extern const struct iommu_backend apple_backend;

#endif
