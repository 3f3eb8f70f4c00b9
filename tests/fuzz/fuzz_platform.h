/* The platform seam for fuzz targets that reach it: a memory map the
 * harness sets (fuzz_map), a fixed 46-bit physical address width, no
 * interrupts to mask. Include once, in the target's one .c file. */
#ifndef IOMMON_FUZZ_PLATFORM_H
#define IOMMON_FUZZ_PLATFORM_H

#include "core/base/memmap.h"
#include "core/base/platform.h"

static struct mem_range fuzz_map[4];
static size_t fuzz_map_n;

static size_t fuzz_memory_map(const struct mem_range **m)
{
	*m = fuzz_map;
	return fuzz_map_n;
}

static unsigned fuzz_phys_bits(void)
{
	return 46;
}

static uint64_t fuzz_irq_save(void)
{
	return 0;
}

static void fuzz_irq_restore(uint64_t s)
{
	(void)s;
}

static const struct platform fuzz_platform = {
	.name = "fuzz",
	.memory_map = fuzz_memory_map,
	.phys_bits = fuzz_phys_bits,
	.irq_save = fuzz_irq_save,
	.irq_restore = fuzz_irq_restore,
};

const struct platform *platform = &fuzz_platform;

#endif
