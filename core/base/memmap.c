#include "memmap.h"

#include <stdio.h>

#include "claims.h"
#include "cpu.h"
#include "platform.h"

static const char *const names[MEM_TYPES] = {
	[MEM_RESERVED] = "reserved",
	[MEM_LOADER_CODE] = "loader code (RAM)",
	[MEM_LOADER_DATA] = "loader data (RAM)",
	[MEM_BOOT_CODE] = "boot-services code (RAM)",
	[MEM_BOOT_DATA] = "boot-services data (RAM)",
	[MEM_RUNTIME_CODE] = "runtime-services code (RAM)",
	[MEM_RUNTIME_DATA] = "runtime-services data (RAM)",
	[MEM_CONVENTIONAL] = "conventional RAM",
	[MEM_UNUSABLE] = "unusable RAM",
	[MEM_ACPI_RECLAIM] = "ACPI reclaim (RAM)",
	[MEM_ACPI_NVS] = "ACPI NVS (RAM)",
	[MEM_MMIO] = "MMIO",
	[MEM_MMIO_PORT] = "MMIO port space",
	[MEM_PAL_CODE] = "PAL code",
	[MEM_PERSISTENT] = "persistent memory",
	[MEM_UNACCEPTED] = "unaccepted RAM",
};

const char *mem_type_name(enum mem_type t)
{
	return t < MEM_TYPES ? names[t] : "not described";
}

unsigned cpu_phys_bits(void)
{
	unsigned b = platform && platform->phys_bits ? platform->phys_bits() : 0;
	return b >= 32 && b <= 52 ? b : 36;
}

static size_t map(const struct mem_range **m)
{
	*m = NULL;
	size_t n = platform && platform->memory_map ? platform->memory_map(m) : 0;
	return *m ? n : 0;
}

enum mem_type memmap_type_at(uint64_t addr)
{
	const struct mem_range *m;
	size_t n = map(&m);
	for (size_t i = 0; i < n; i++)
		if (addr >= m[i].base && addr < m[i].end)
			return m[i].type < MEM_TYPES ? m[i].type : MEM_RESERVED;
	return MEM_TYPES;
}

enum mem_type memmap_os_ram_in(uint64_t base, uint64_t size, uint64_t *at)
{
	const struct mem_range *m;
	size_t n = map(&m);
	uint64_t end = base + size < base ? ~0ull : base + size;
	enum mem_type found = MEM_TYPES;
	for (size_t i = 0; i < n; i++) {
		enum mem_type t = m[i].type;
		bool os_ram = t == MEM_CONVENTIONAL || t == MEM_LOADER_CODE || t == MEM_LOADER_DATA ||
			      t == MEM_BOOT_CODE || t == MEM_BOOT_DATA;
		if (!os_ram || m[i].end <= base || m[i].base >= end)
			continue;
		uint64_t from = m[i].base > base ? m[i].base : base;
		if (found == MEM_TYPES || from < *at) {
			found = t;
			*at = from;
		}
	}
	return found;
}

static char why[240];

/* The checks every dereferenced range passes, whatever it holds. */
unsigned mem_identity_bits(void)
{
	return platform && platform->paging_levels && platform->paging_levels() == 5 ? 56 : 47;
}

static const char *reach_refusal(uint64_t base, uint64_t size)
{
	if (base == 0)
		return "the address is 0";
	if (size == 0)
		return "the length is 0";
	if (base + size < base) {
		snprintf(why, sizeof(why), "0x%llx + 0x%llx wraps past 2^64", (unsigned long long)base,
			 (unsigned long long)size);
		return why;
	}
	unsigned bits = cpu_phys_bits(), vbits = mem_identity_bits();
	if ((base >> vbits) != 0 && (base >> vbits) != ~0ull >> vbits) {
		snprintf(why, sizeof(why), "0x%llx is not a canonical address", (unsigned long long)base);
		return why;
	}
	if (bits < 64 && (base + size - 1) >> bits) {
		snprintf(why, sizeof(why), "0x%llx-0x%llx is past the CPU's %u address bits (MAXPHYADDR)",
			 (unsigned long long)base, (unsigned long long)(base + size - 1), bits);
		return why;
	}
	if (base + size > 1ull << vbits) {
		snprintf(why, sizeof(why),
			 "0x%llx-0x%llx lies above 2^%u, where an identity-mapped address is not canonical (%u-level "
			 "paging)",
			 (unsigned long long)base, (unsigned long long)(base + size - 1), vbits, vbits == 56 ? 5 : 4);
		return why;
	}
	return NULL;
}

static bool mmio_type_ok(enum mem_type t)
{
	return t == MEM_MMIO || t == MEM_MMIO_PORT || t == MEM_RESERVED;
}

const char *memmap_mmio_refusal(uint64_t base, uint64_t size)
{
	const char *e = reach_refusal(base, size);
	if (e)
		return e;
	const struct mem_range *m;
	size_t n = map(&m);
	uint64_t end = base + size;
	for (size_t i = 0; i < n; i++) {
		if (m[i].end <= base || m[i].base >= end || mmio_type_ok(m[i].type))
			continue;
		snprintf(why, sizeof(why), "the memory map says %s at 0x%llx-0x%llx", mem_type_name(m[i].type),
			 (unsigned long long)m[i].base, (unsigned long long)(m[i].end - 1));
		return why;
	}
	return NULL;
}

/* The legacy BIOS area: ROM or shadow RAM, where the ACPI spec (5.2.5.1)
 * has an RSDP found on legacy systems. UEFI maps often leave it out. */
#define LEGACY_BIOS_BASE 0xe0000ull
#define LEGACY_BIOS_END 0x100000ull

/* [pos, end) through the map, entry by entry: true when every byte lies in
 * an entry whose type `ok` takes (with `bios_gap`, the undescribed legacy
 * BIOS area too); else false with the entry that is not (*bad), or n when
 * *at is described by none. Each round moves pos to the end of the entry
 * holding it, or past a gap in the legacy BIOS area: at most 2n + 1
 * rounds, even when entries overlap. */
static bool walk(const struct mem_range *m, size_t n, uint64_t pos, uint64_t end, bool bios_gap,
		 bool (*ok)(enum mem_type), size_t *bad, uint64_t *at)
{
	for (size_t round = 0; pos < end && round <= 2 * n + 1; round++) {
		size_t i = 0;
		while (i < n && !(pos >= m[i].base && pos < m[i].end))
			i++;
		if (i == n && bios_gap && pos >= LEGACY_BIOS_BASE && pos < LEGACY_BIOS_END) {
			/* undescribed legacy BIOS area: readable up to the next entry */
			uint64_t next = LEGACY_BIOS_END;
			for (size_t k = 0; k < n; k++)
				if (m[k].base > pos && m[k].base < next)
					next = m[k].base;
			pos = next;
			continue;
		}
		if (i == n || !ok(m[i].type)) {
			*bad = i, *at = pos;
			return false;
		}
		pos = m[i].end;
	}
	*bad = n, *at = pos;
	return pos >= end;
}

static bool readable(enum mem_type t)
{
	return t != MEM_MMIO && t != MEM_MMIO_PORT && t != MEM_UNUSABLE && t < MEM_TYPES;
}

const char *memmap_read_refusal(uint64_t base, uint64_t size)
{
	const char *e = reach_refusal(base, size);
	if (e)
		return e;
	const struct mem_range *m;
	size_t n = map(&m), bad;
	uint64_t at;
	if (walk(m, n, base, base + size, true, readable, &bad, &at))
		return NULL;
	if (bad == n)
		snprintf(why, sizeof(why), "0x%llx is not described by the memory map", (unsigned long long)at);
	else
		snprintf(why, sizeof(why), "the memory map says %s at 0x%llx-0x%llx", mem_type_name(m[bad].type),
			 (unsigned long long)m[bad].base, (unsigned long long)(m[bad].end - 1));
	return why;
}

/* Ranges a model playing the firmware filled: a ring of the latest. */
#define STANDIN_MAX 256
static struct {
	uint64_t base, end;
} standin[STANDIN_MAX];
static unsigned nstandin;

void memmap_firmware_standin(uint64_t base, uint64_t size)
{
	if (!size || base + size < base)
		return;
	standin[nstandin % STANDIN_MAX].base = base;
	standin[nstandin % STANDIN_MAX].end = base + size;
	nstandin++;
}

static bool in_standin(uint64_t base, uint64_t end)
{
	unsigned n = nstandin < STANDIN_MAX ? nstandin : STANDIN_MAX;
	for (unsigned i = 0; i < n; i++)
		if (base >= standin[i].base && end <= standin[i].end)
			return true;
	return false;
}

static bool firmware_keeps(enum mem_type t)
{
	/* (types past the spec's are the OEM's and the OS's: the firmware's, as reserved) */
	return t == MEM_RESERVED || t == MEM_BOOT_CODE || t == MEM_BOOT_DATA || t == MEM_RUNTIME_CODE ||
	       t == MEM_RUNTIME_DATA || t == MEM_ACPI_RECLAIM || t == MEM_ACPI_NVS || t >= MEM_TYPES;
}

const char *memmap_firmware_table_refusal(uint64_t base, uint64_t size, uint64_t align)
{
	if (align > 1 && (base & (align - 1))) {
		snprintf(why, sizeof(why), "0x%llx is not aligned to %llu bytes", (unsigned long long)base,
			 (unsigned long long)align);
		return why;
	}
	const char *e = reach_refusal(base, size);
	if (e)
		return e;
	uint64_t end = base + size;
	const char *owner = claims_owner(base, size, false);
	if (owner) {
		snprintf(why, sizeof(why), "0x%llx-0x%llx lies in %s", (unsigned long long)base,
			 (unsigned long long)(end - 1), owner);
		return why;
	}
	if (in_standin(base, end))
		return NULL;
	const struct mem_range *m;
	size_t n = map(&m), bad;
	uint64_t at;
	if (walk(m, n, base, end, false, firmware_keeps, &bad, &at))
		return NULL;
	if (bad == n) {
		snprintf(why, sizeof(why),
			 n ? "0x%llx: no memory map entry" : "0x%llx: no memory map to check it against",
			 (unsigned long long)at);
		return why;
	}
	enum mem_type t = m[bad].type;
	const char *whose = t == MEM_CONVENTIONAL			   ? ", free"
			    : t == MEM_LOADER_CODE || t == MEM_LOADER_DATA ? ", the monitor's"
									   : "";
	snprintf(why, sizeof(why), "%s at 0x%llx-0x%llx%s", mem_type_name(t), (unsigned long long)m[bad].base,
		 (unsigned long long)(m[bad].end - 1), whose);
	return why;
}
