/* The platform interface on the host: stdin/stdout console, a folder as
 * the boot volume ($IOMMON_VOLUME, default build/host-volume), no ACPI. */
#ifndef IOMMON_PLATFORM_HOST_H
#define IOMMON_PLATFORM_HOST_H

#include "core/base/platform.h"

extern struct platform host_platform;
/* The ACPI root and SMBIOS entry point (major 2 or 3) the platform
 * gives (a replay's; NULL: none, as on a fresh host). */
void host_set_acpi_rsdp(const void *rsdp);
void host_set_smbios_entry(unsigned major, const void *entry);
/* stdout through the output contract's filter (core/base/contract.h),
 * line-buffered: the host's console, as the machine's sinks are. */
void host_console_open(void);
/* Commands the host monitor was given on its command line. */
void host_set_load_options(const char *opts);
/* The note that outlives a reset (in memory, or $IOMMON_NVRAM): for tests. */
void host_note_put(const char *text);
const char *host_note_text(void);
/* Seconds the watchdog (SIGALRM) was last armed with, 0: off. */
unsigned host_watchdog_armed(void);
/* The memory map core/base/memmap.c checks addresses against (NULL: none, as
 * on a fresh host), and the physical address width (0: the host CPU's). */
struct mem_range;
void host_set_memory_map(const struct mem_range *map, size_t n);
void host_set_phys_bits(unsigned bits);
/* The firmware's paging levels the host stands in (4 until set to 5). */
void host_set_paging_levels(unsigned levels);
/* The local APIC mode the host stands in: 8-bit ids (xAPIC) until set
 * to 32 (x2APIC). */
void host_set_apic_id_bits(unsigned bits);

#endif
