/* The one list of the backends the monitor is built with, in the order
 * their units are discovered (which also decides which unit covers a
 * device two families describe: VT-d's scopes, then AMD-Vi's IVHDs, then
 * the IORT) and their catalogue groups run. Each name `x` stands for the
 * descriptor x_backend (iommu/backend.h) its folder defines and the group
 * x_group its cases file (tests/catalogue/iommu/x.c) defines: iommu/backend.c
 * expands the list into the registry, tests/catalogue/catalogue.c into the
 * catalogue. */
#ifndef IOMMON_BACKENDS_H
#define IOMMON_BACKENDS_H

#define IOMMU_BACKENDS(X) X(vtd) X(amdvi) X(smmuv3) X(calgary) X(dart) X(apple) X(riscv)

#endif
