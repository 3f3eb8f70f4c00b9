/* libFuzzer: the ACPI root walk (RSDP, XSDT or RSDT, every entry) with
 * pointers into a fuzzed arena. The input is the arena's bytes, placed at a
 * fixed address (ARENA) so that pointers inside it can be found; the memory
 * map describes exactly those bytes as ACPI reclaim, and a page at
 * 0xfed00000 as MMIO. Past the input the arena is poisoned: a read the map
 * did not allow is an ASan report. The first byte, when odd, has the
 * harness fix the RSDP's and the root table's checksums, so the walk gets
 * past them; even, the checksums are the fuzzer's. The seed
 * (seeds/acpi/root.bin) is such an arena: an ACPI 2.0 RSDP at its start,
 * an RSDT at 0x40 and an XSDT at 0x80 listing a FADT at 0x100, an SSDT at
 * 0x140 whose length runs past the arena, MMIO and an undescribed address.
 * The legacy BIOS area (0xE0000-0xFFFFF) is readable, as on a PC, and not
 * described by the map, which the walk accepts there (core/base/memmap.h); it
 * holds the input's first bytes too, so pointers into it find tables. */
#include <sanitizer/asan_interface.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "core/tables/acpi.h"
#include "fuzz_platform.h"

#define ARENA 0x10000000ull
#define ARENA_SIZE (68u << 10)
#define LEGACY 0xe0000ull
#define LEGACY_SIZE 0x20000u

static uint8_t *arena, *legacy;

/* [p, p + len) inside the input's bytes, or inside the legacy area */
static bool inside(uint64_t p, uint64_t len, size_t size)
{
	return (p >= ARENA && p - ARENA <= size && len <= size - (p - ARENA)) ||
	       (p >= LEGACY && p - LEGACY <= LEGACY_SIZE && len <= LEGACY_SIZE - (p - LEGACY));
}

static void fix(uint8_t *p, size_t len, size_t at)
{
	uint8_t sum = 0;
	p[at] = 0;
	for (size_t i = 0; i < len; i++)
		sum = (uint8_t)(sum + p[i]);
	p[at] = (uint8_t)-sum;
}

/* the root table at phys, when all of it lies in the input */
static void fix_root(uint64_t phys, size_t size)
{
	if (phys < ARENA || phys - ARENA + 36 > size)
		return;
	uint8_t *t = arena + (phys - ARENA);
	uint32_t len;
	memcpy(&len, t + 4, 4);
	if (len >= 36 && phys - ARENA + len <= size)
		fix(t, len, 9);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!arena) {
		arena = mmap((void *)(uintptr_t)ARENA, ARENA_SIZE, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
		if (arena != (uint8_t *)(uintptr_t)ARENA)
			abort();
		legacy = mmap((void *)(uintptr_t)LEGACY, LEGACY_SIZE, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
		if (legacy != (uint8_t *)(uintptr_t)LEGACY)
			abort();
	}
	if (size < 1)
		return 0;
	bool fix_sums = data[0] & 1;
	data++, size--;
	if (size > ARENA_SIZE)
		size = ARENA_SIZE;
	ASAN_UNPOISON_MEMORY_REGION(arena, ARENA_SIZE);
	memcpy(arena, data, size);
	ASAN_POISON_MEMORY_REGION(arena + size, ARENA_SIZE - size);
	memset(legacy, 0, LEGACY_SIZE);
	memcpy(legacy, data, size < LEGACY_SIZE ? size : LEGACY_SIZE);
	if (fix_sums && size >= 36) {
		fix(arena, 20, 8);
		uint32_t len;
		memcpy(&len, arena + 20, 4);
		if (len >= 36 && len <= size)
			fix(arena, len, 32);
		uint32_t rsdt;
		uint64_t xsdt;
		memcpy(&rsdt, arena + 16, 4);
		memcpy(&xsdt, arena + 24, 8);
		fix_root(xsdt, size);
		fix_root(rsdt, size);
	}
	fuzz_map[0] = (struct mem_range){ ARENA, ARENA + size, MEM_ACPI_RECLAIM };
	fuzz_map[1] = (struct mem_range){ 0xfed00000, 0xfed01000, MEM_MMIO };
	fuzz_map_n = 2;
	static struct acpi a;
	acpi_init(&a, size ? arena : NULL);
	/* every table kept lies inside the input, and lookups stay inside them */
	for (size_t i = 0; i < a.n; i++) {
		if (!inside((uintptr_t)a.tables[i].hdr, a.tables[i].hdr->length, size))
			abort();
	}
	if (a.n > ACPI_MAX_TABLES)
		abort();
	acpi_find(&a, "FACP", 0);
	return 0;
}
