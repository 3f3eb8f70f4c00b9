/* AArch64 instructions the monitor needs, as static inlines (through cpu.h).
 * References: Arm ARM (DDI 0487) D11 "The Generic Timer" for CNTVCT_EL0 and
 * CNTFRQ_EL0, D7.4 / D7.5 for cache maintenance to the point of coherency,
 * B2.3 for DSB/ISB. EL0-readable registers only, except ID_AA64MMFR0_EL1
 * and CurrentEL, which UEFI's EL2/EL1 may always read. */
#ifndef IOMMON_CPU_AARCH64_H
#define IOMMON_CPU_AARCH64_H

#include <stdint.h>

#include "core/base/macros.h"

/* The generic timer's virtual count. Named rdtsc like x86's counter read so
 * that every timed region and deadline reads "the counter" the same way;
 * the ISBs around it are in cycles_begin/cycles_end (core/base/timing.h). */
static inline uint64_t rdtsc(void)
{
	uint64_t v;
	__asm__ volatile("mrs %0, cntvct_el0" : "=r"(v)::"memory");
	return v;
}

/* CNTFRQ_EL0: what the firmware programmed as the counter's frequency. */
static inline uint64_t cntfrq(void)
{
	uint64_t v;
	__asm__ volatile("mrs %0, cntfrq_el0" : "=r"(v));
	return v;
}

static inline void isb(void)
{
	__asm__ volatile("isb" ::: "memory");
}

/* Every memory access before completes before any after (stores to tables
 * a device reads, then the register write that tells it to look). */
static inline void mfence(void)
{
	__asm__ volatile("dsb sy" ::: "memory");
}

/* CTR_EL0.DminLine (bits 19:16): log2 of the smallest data cache line in
 * words. */
static inline uint64_t dcache_line(void)
{
	uint64_t ctr;
	__asm__ volatile("mrs %0, ctr_el0" : "=r"(ctr));
	return 4ull << ((ctr >> 16) & 0xf);
}

/* Cleans the lines holding [p, p + n) to the point of coherency (DC CVAC),
 * for a device that does not snoop (an SMMU with IDR0.COHACC = 0, Apple's
 * DART); ordered before what follows by the DSB. */
static inline void cache_flush(const void *p, uint64_t n)
{
	uint64_t line = dcache_line();
	uintptr_t a = (uintptr_t)p & ~(uintptr_t)(line - 1), end = (uintptr_t)p + n;
	__asm__ volatile("dsb ish" ::: "memory");
	for (; a < end; a += line)
		__asm__ volatile("dc cvac, %0" ::"r"(a) : "memory");
	__asm__ volatile("dsb sy" ::: "memory");
}

/* Before reading what a device that does not snoop wrote to [p, p + n)
 * (an event record of an SMMU with IDR0.COHACC = 0): clean and invalidate
 * each line to the point of coherency (DC CIVAC), so that the next load
 * goes to memory; clean as well as invalidate, because a line the CPU
 * dirtied must not be lost (Arm ARM D7.5.9). */
static inline void cache_invalidate(const void *p, uint64_t n)
{
	uint64_t line = dcache_line();
	uintptr_t a = (uintptr_t)p & ~(uintptr_t)(line - 1), end = (uintptr_t)p + n;
	__asm__ volatile("dsb sy" ::: "memory");
	for (; a < end; a += line)
		__asm__ volatile("dc civac, %0" ::"r"(a) : "memory");
	__asm__ volatile("dsb sy" ::: "memory");
}

static inline void cpu_relax(void)
{
	__asm__ volatile("yield" ::: "memory");
}

/* ID_AA64MMFR0_EL1.PARange (bits 3:0), Arm ARM D19.2: the physical address
 * width; encodings past the table are reserved: the largest known. */
static inline unsigned cpu_pa_bits(void)
{
	static const unsigned bits[] = { 32, 36, 40, 42, 44, 48, 52, 56 };
	uint64_t mmfr0;
	__asm__ volatile("mrs %0, id_aa64mmfr0_el1" : "=r"(mmfr0));
	unsigned r = mmfr0 & 0xf;
	return r < ARRAY_SIZE(bits) ? bits[r] : 52;
}

/* CurrentEL.EL (bits 3:2), Arm ARM C5.2.1: the exception level the monitor
 * runs at, 1 or 2 under UEFI. At EL2 nothing sits above it but EL3's
 * firmware: an HVC would be taken by its own level. */
static inline unsigned current_el(void)
{
	uint64_t v;
	__asm__ volatile("mrs %0, CurrentEL" : "=r"(v));
	return (unsigned)(v >> 2) & 3;
}

#endif
