/* AMD-Vi host page tables (spec 2.2.3): a domain is the shared tree
 * (../io_pgtable.h) walked in 3 to 6 levels (the DTE's Mode) in AMD-Vi's
 * entry format, with leaves of 4 KiB, 2 MiB and 1 GiB. */
#ifndef IOMMON_AMDVI_PGTABLE_H
#define IOMMON_AMDVI_PGTABLE_H

#include "iommu/io_pgtable.h"

extern const struct io_pgtable_fmt amdvi_pte_fmt;

#endif
