/* The IOMMU units' registers as the monitor found them at discovery, read
 * once before any take-over: saved in the replay folder (iommu.txt, one
 * register a line) and, in a replay, read back as the units' registers
 * (units_read_regs answers from them, so `iommu` decodes the saved CAP and
 * ECAP, IDRs or EFR).
 *
 * Which registers: each backend's list (struct iommu_discovery's regs:
 * those its take-over records before its first write and the identity
 * registers the `info` records carry), each once, in its order. A backend
 * that discovers no unit (Calgary and the DARTs) saves none. */
#ifndef IOMMON_FOUND_REGS_H
#define IOMMON_FOUND_REGS_H

#include <stdbool.h>
#include <stddef.h>

#include "core/base/regwin.h"
#include "units.h"

/* The most registers a unit keeps: at least the longest backend's list
 * (SMMUv3's 25; test_registry holds every backend to it). It was 24, one
 * short, so SMMUv3's EVENTQ_CONS was never saved. */
#define FOUND_REGS_MAX 32

/* Reads every listed register of each unit whose window is not refused,
 * unless they were read before in this session. */
void found_regs_read(const struct iommu_units *u);
/* iommu.txt's text, malloc'd, one register a line; NULL when none were
 * found (or no memory). */
char *found_regs_text(size_t *len);
/* A replay's iommu.txt: each line that is not understood is named
 * (file:line) and left out, and the others are kept. Returns how many
 * registers were taken. */
size_t found_regs_load(const char *text, size_t len, const char *file);
/* A window whose reads answer the registers found for this unit (same
 * name and base), all ones for any not saved; writes are dropped. False
 * when none were found for it. */
bool found_regs_window(const struct iommu_unit *u, struct regwin *w);

#endif
