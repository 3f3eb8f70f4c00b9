/* How the VT-d backend finds its units: the DMAR's remapping units
 * (DRHD), the devices their scopes name (VT-d spec 8.3), the registers it
 * saves for a replay, and VER, CAP and ECAP decoded for `iommu` and the
 * `info` records. */
#ifndef IOMMON_VTD_DISCOVER_H
#define IOMMON_VTD_DISCOVER_H

#include "core/tables/dmar.h"
#include "iommu/backend.h"
#include "pci/pci.h"

extern const struct iommu_discovery vtd_discovery;

/* The DMAR the units were found in (the discovery's state), or NULL. */
const struct dmar *vtd_units_dmar(const struct iommu_units *u);

/* The device a DMAR device scope names, following its path through the
 * bridges' secondary bus numbers; -1 when a hop is not there. */
int dmar_scope_device(const struct dmar_scope *sc, uint16_t segment, const struct pci_list *pci);

#endif
