/* INTERIM, removed when the VT-d split (h1) and the model table (h2) land:
 * backend descriptors and the model subsystem, so main builds meanwhile. */
#ifndef IOMMON_INTERIM_H
#define IOMMON_INTERIM_H
#include "backend.h"
extern const struct subsystem interim_subsystem;
#endif
