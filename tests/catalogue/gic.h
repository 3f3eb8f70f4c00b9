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

/* The MADT's GIC decoded and this CPU's redistributor found; an SGI round
 * trip timed (smmuv3.gic_discover, smmuv3.gic_sgi), and their words. */
void case_gic_discover(struct test_ctx *t);
void case_gic_sgi(struct test_ctx *t);
extern const struct test_doc gic_docs[];

#endif
