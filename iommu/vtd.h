/* The VT-d driver's public header moved to iommu/vtd/vtd.h; this line
 * keeps the files that still include the old path building until they
 * name the new one. */
#include "vtd/vtd.h"
