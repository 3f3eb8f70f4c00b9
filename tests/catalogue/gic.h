/* The machine's GIC opened for a case (tests/catalogue/gic.c): the MADT's
 * distributor, redistributor ranges and this CPU's GICC entry handed to
 * core/base/gic.c. */
#ifndef IOMMON_CATALOGUE_GIC_H
#define IOMMON_CATALOGUE_GIC_H

#include <stdbool.h>

#include "core/base/gic.h"
#include "core/monitor/report.h"

/* NULL, or why the GIC cannot be driven here (*reason: how to skip). */
const char *gic_setup(struct gic *g, enum skip_reason *reason);

#endif
