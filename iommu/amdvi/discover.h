/* How the AMD-Vi backend finds its units: the IVRS's IVHD blocks (the
 * preferred type of each unit), the devices each covers and the requester
 * ids its alias entries say their DMA carries, the registers it saves for
 * a replay, and EFR decoded for `iommu` and the `info` records. */
#ifndef IOMMON_AMDVI_DISCOVER_H
#define IOMMON_AMDVI_DISCOVER_H

#include "core/tables/ivrs.h"
#include "iommu/backend.h"

extern const struct iommu_discovery amdvi_discovery;

/* The IVRS the units were found in (the discovery's state), or NULL. */
const struct ivrs *amdvi_units_ivrs(const struct iommu_units *u);

/* The requester id an IVHD's alias entries (types 42h, 43h) say DMA from
 * `devid` appears with, or -1. */
int amdvi_ivrs_alias(const struct ivrs *v, const struct ivrs_block *ivhd, uint16_t devid);

#endif
