/* The replay folder: what an unattended run read of its machine, saved
 * beside its results file so that the host monitor (build/host/iommon
 * --replay DIR, tests/host/replay.c) can judge the same tables again.
 *
 *   iommon/results/<machine>/<stem>.jsonl      the run's records
 *   iommon/results/<machine>/<stem>.replay/    this folder:
 *     manifest.txt   who saved it, the ACPI root, one line per table
 *     <sig>[N].dat   each ACPI table the root listed, raw (acpidump -b's
 *                    names: dmar.dat, ssdt.dat, ssdt2.dat, ...)
 *     smbios-entry.dat, smbios.dat   the SMBIOS entry point and table
 *     memmap.txt     the firmware's memory map: base end type name
 *     iommu.txt      each unit's registers as found (iommu/found_regs.c)
 *     pci.txt        the PCI functions enumerated (pci/saved.h)
 *
 * Bounded: REPLAY_CAP bytes a folder; a file that would pass it is left
 * out and named. A write that fails is reported once and the folder stops
 * there; the run goes on either way. */
#ifndef IOMMON_REPLAY_H
#define IOMMON_REPLAY_H

#include <stdbool.h>
#include <stddef.h>

#include "core/tables/acpi.h"
#include "core/tables/smbios.h"

#define REPLAY_CAP (16u << 20)
#define REPLAY_MANIFEST "manifest.txt"
#define REPLAY_MEMMAP "memmap.txt"
#define REPLAY_IOMMU "iommu.txt"
#define REPLAY_SMBIOS_ENTRY "smbios-entry.dat"
#define REPLAY_SMBIOS_TABLE "smbios.dat"

struct subsystem;

/* Saves the folder for the results file `results` (its ".jsonl" becomes
 * ".replay"): the tables and SMBIOS the monitor read, the memory map,
 * then each subsystem's part (subsystem.replay_save). Prints where it
 * went, or why not: `results` NULL (no results file could be made, a
 * write-protected stick) or a replay running saves nothing. */
void replay_save(const char *results, const struct acpi *a, const struct smbios *s,
		 const struct subsystem *const *subs);
/* One file of the folder being saved: false when it was left out (the
 * cap) or could not be written (said on the console). */
bool replay_put(const char *name, const void *buf, size_t len);
/* The file name of the idx-th table with this signature: "dmar.dat",
 * then "dmar2.dat", ... (characters that are not letters or digits
 * become '_'). */
void replay_table_name(char out[16], const char sig[4], unsigned idx);

#endif
