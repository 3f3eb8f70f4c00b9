/* How the SMMUv3 backend finds its units: the IORT's SMMUv3 nodes
 * (register pages 0 and 1), the devices whose requester ids the IORT maps
 * to one of them (iort_map_rid: a device whose RID goes to an ITS only
 * stays uncovered) and the stream ids they become, the registers it saves
 * for a replay, and IDR0-5 and AIDR decoded for `iommu` and the `info`
 * records. */
#ifndef IOMMON_SMMUV3_DISCOVER_H
#define IOMMON_SMMUV3_DISCOVER_H

#include "core/tables/iort.h"
#include "iommu/backend.h"

extern const struct iommu_discovery smmuv3_discovery;

/* The IORT the units were found in (the discovery's state), or NULL. */
const struct iort *smmuv3_units_iort(const struct iommu_units *u);

#endif
