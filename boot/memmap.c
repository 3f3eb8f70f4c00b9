/* The firmware's memory map (UEFI 2.10, 7.2 GetMemoryMap), read once and
 * kept in the platform's words (core/base/memmap.h): later allocations only
 * move pages between RAM types, which the checks treat alike. Also the
 * top of RAM for identity maps. */
#include <stdio.h>
#include <stdlib.h>

#include "boot.h"
#include "core/base/memmap.h"

static struct mem_range *ranges;
static size_t nranges;
static bool read_once;

static void read_map(void)
{
	read_once = true;
	UINTN size = 0, key, dsize = 0;
	UINT32 dver;
	uint8_t *buf = NULL;
	EFI_STATUS st = BS->GetMemoryMap(&size, NULL, &key, &dsize, &dver);
	/* the allocation for the map can itself grow the map: a few tries */
	for (int tries = 0; tries < 4 && st == EFI_BUFFER_TOO_SMALL; tries++) {
		free(buf);
		size += 8 * sizeof(EFI_MEMORY_DESCRIPTOR) + 4096;
		buf = malloc(size);
		st = buf ? BS->GetMemoryMap(&size, (EFI_MEMORY_DESCRIPTOR *)buf, &key, &dsize, &dver)
			 : EFI_OUT_OF_RESOURCES;
	}
	if (!buf || EFI_ERROR(st) || dsize < sizeof(EFI_MEMORY_DESCRIPTOR)) {
		/* with no map, every table read is refused as undescribed: say why */
		printf("error: the firmware's memory map could not be read (status 0x%llx): ACPI tables and the "
		       "BIOS data area will be refused\n",
		       (unsigned long long)st);
		free(buf);
		return;
	}
	size_t n = size / dsize;
	ranges = malloc(n * sizeof(*ranges));
	if (!ranges) {
		free(buf);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		const EFI_MEMORY_DESCRIPTOR *d = (const EFI_MEMORY_DESCRIPTOR *)(buf + i * dsize);
		/* a descriptor whose pages run past 2^52 is cut there */
		uint64_t start = d->PhysicalStart, pages = d->NumberOfPages, limit = 1ull << 52;
		uint64_t end = start < limit && pages <= (limit - start) >> 12 ? start + (pages << 12) : limit;
		if (start >= end)
			continue;
		/* OEM and OS types (0x70000000 and up) are the firmware's own: reserved */
		enum mem_type t = d->Type < MEM_TYPES ? (enum mem_type)d->Type : MEM_RESERVED;
		ranges[nranges++] = (struct mem_range){ start, end, t };
	}
	free(buf);
}

size_t memory_map(const struct mem_range **map)
{
	if (!read_once)
		read_map();
	*map = ranges;
	return nranges;
}

uint64_t memory_top(void)
{
	const struct mem_range *m;
	size_t n = memory_map(&m);
	uint64_t top = 0;
	for (size_t i = 0; i < n; i++) {
		enum mem_type t = m[i].type;
		if (t == MEM_MMIO || t == MEM_MMIO_PORT || t == MEM_RESERVED || t == MEM_UNUSABLE)
			continue;
		if (m[i].end > top)
			top = m[i].end;
	}
	return top;
}
