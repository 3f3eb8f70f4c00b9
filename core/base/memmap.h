/* What the firmware says about physical memory, and the two questions the
 * monitor asks of it before touching an address a table or a device gave:
 * may this range be opened as a register window (MMIO), and may this range
 * be read as memory (ACPI tables, the BIOS data area).
 *
 * The types are UEFI's (UEFI 2.10, 7.2 "EFI_MEMORY_TYPE"), numbered as
 * there, since that is where the map comes from; the host build describes
 * its map in the same words. */
#ifndef IOMMON_MEMMAP_H
#define IOMMON_MEMMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum mem_type {
	MEM_RESERVED = 0,
	MEM_LOADER_CODE = 1,
	MEM_LOADER_DATA = 2,
	MEM_BOOT_CODE = 3,
	MEM_BOOT_DATA = 4,
	MEM_RUNTIME_CODE = 5,
	MEM_RUNTIME_DATA = 6,
	MEM_CONVENTIONAL = 7,
	MEM_UNUSABLE = 8,
	MEM_ACPI_RECLAIM = 9,
	MEM_ACPI_NVS = 10,
	MEM_MMIO = 11,
	MEM_MMIO_PORT = 12,
	MEM_PAL_CODE = 13,
	MEM_PERSISTENT = 14,
	MEM_UNACCEPTED = 15,
	MEM_TYPES
};

/* One entry of the map: [base, end), end exclusive. */
struct mem_range {
	uint64_t base, end;
	enum mem_type type;
};

const char *mem_type_name(enum mem_type t);

/* The widest physical address this CPU can form, in bits (CPUID
 * 0x80000008 EAX[7:0]); 36 when the CPU does not say. */
unsigned cpu_phys_bits(void);

/* Addresses the monitor dereferences are identity-mapped by the firmware's
 * paging: a physical address is reachable only where it is also a canonical
 * virtual address, below 2^47 with 4 levels, below 2^56 with 5 (CR4.LA57,
 * platform->paging_levels). This returns that bound's exponent, 47 or 56. */
unsigned mem_identity_bits(void);

/* NULL when [base, base + size) may be opened as a register window, else
 * why not (static, valid until the next call): zero, empty, wrapping, not
 * canonical, beyond the CPU's physical address width, or any byte of it
 * described by the memory map as anything but MMIO or reserved (RAM of any
 * kind, ACPI reclaim or NVS, persistent or unusable memory). Undescribed
 * addresses are accepted: firmware leaves many device windows out of the
 * map. */
const char *memmap_mmio_refusal(uint64_t base, uint64_t size);

/* NULL when [base, base + size) may be read as memory, else why not:
 * every byte must be described by the map, canonical and within the
 * physical address width, and none of it MMIO or unusable (a read there
 * could fault, or have a device's side effects). Firmware puts ACPI tables
 * in ACPI reclaim, ACPI NVS, reserved or runtime data, and the BIOS data
 * area in conventional or boot-services memory: every RAM type is
 * accepted, since reading RAM harms nothing. One exception to "described":
 * the legacy BIOS area 0xE0000-0xFFFFF (ROM or shadow RAM, where ACPI
 * 5.2.5.1 puts a legacy RSDP), which UEFI maps often leave out while
 * firmware with a compatibility module points at an RSDP copy there. */
const char *memmap_read_refusal(uint64_t base, uint64_t size);

/* The first part of [base, base + size) that the map gives to the next
 * owner as RAM (conventional, loader, boot-services): its type, and its
 * address in *at; MEM_TYPES when there is none. */
enum mem_type memmap_os_ram_in(uint64_t base, uint64_t size, uint64_t *at);

/* NULL when [base, base + size) may be followed as a table, queue or log
 * the firmware left in a unit's registers (a root table, an invalidation
 * queue, an event log), else why not (static, valid until the next call).
 * It must be aligned to `align` (a power of two; 0 or 1: any), reachable
 * as memory (the checks of memmap_read_refusal's first half), inside no
 * window a device or a unit claims (core/base/claims.h: ECAM, BARs,
 * register windows: writing there is writing another device's
 * registers), and described byte for byte by the map as memory the
 * firmware keeps: boot-services or runtime code and data, ACPI reclaim or
 * NVS, reserved. Refused: conventional memory (free: a firmware that turned
 * translation on and then freed its tables left these pointers, and EDK II
 * fills freed pages with 0xAF), loader memory (the monitor's own), MMIO,
 * unusable, persistent, unaccepted, and whatever the map leaves out or a
 * platform with no map cannot say. A range registered with
 * memmap_firmware_standin passes the map's part: a register model playing
 * the firmware (`model vtd fw-on`) put its tables in memory the monitor
 * allocated for it. */
const char *memmap_firmware_table_refusal(uint64_t base, uint64_t size, uint64_t align);
/* [base, base + size) holds tables a model playing the firmware wrote
 * (the last 256 such ranges are kept). */
void memmap_firmware_standin(uint64_t base, uint64_t size);

/* The map's type at `addr` (MEM_TYPES when the map does not describe it). */
enum mem_type memmap_type_at(uint64_t addr);

#endif
