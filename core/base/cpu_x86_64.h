/* x86-64 instructions the monitor needs, as static inlines (through
 * cpu.h). They compile on the host too; the privileged ones (port I/O,
 * cli/sti) are only executed on the firmware platform or behind a model. */
#ifndef IOMMON_CPU_X86_64_H
#define IOMMON_CPU_X86_64_H

#include <stdint.h>

struct cpuid_regs {
	uint32_t eax, ebx, ecx, edx;
};

static inline struct cpuid_regs cpuid(uint32_t leaf, uint32_t subleaf)
{
	struct cpuid_regs r;
	__asm__ volatile("cpuid" : "=a"(r.eax), "=b"(r.ebx), "=c"(r.ecx), "=d"(r.edx) : "a"(leaf), "c"(subleaf));
	return r;
}

/* MAXPHYADDR: CPUID 0x80000008 EAX[7:0], or 36 bits where the leaf is
 * missing (Intel SDM vol. 3A, 4.1.4). */
static inline unsigned cpuid_phys_bits(void)
{
	if (cpuid(0x80000000, 0).eax < 0x80000008)
		return 36;
	return cpuid(0x80000008, 0).eax & 0xff;
}

static inline void lfence(void)
{
	__asm__ volatile("lfence" ::: "memory");
}
static inline void mfence(void)
{
	__asm__ volatile("mfence" ::: "memory");
}
/* Writes the cache lines holding [p, p + n) back to memory, for hardware
 * that does not snoop the caches; ordered before what follows. */
static inline void cache_flush(const void *p, uint64_t n)
{
	uintptr_t a = (uintptr_t)p & ~(uintptr_t)63, end = (uintptr_t)p + n;
	mfence();
	for (; a < end; a += 64)
		__asm__ volatile("clflush (%0)" ::"r"(a) : "memory");
	mfence();
}
/* Before reading what a device that does not snoop wrote to [p, p + n):
 * no line of it stays in the caches to be read instead. CLFLUSH writes a
 * line back and invalidates it, so this is cache_flush. */
static inline void cache_invalidate(const void *p, uint64_t n)
{
	cache_flush(p, n);
}
static inline void cpu_relax(void)
{
	__asm__ volatile("pause" ::: "memory");
}

static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

static inline uint64_t rdtscp(void)
{
	uint32_t lo, hi, aux;
	__asm__ volatile("rdtscp" : "=a"(lo), "=d"(hi), "=c"(aux));
	return ((uint64_t)hi << 32) | lo;
}

static inline uint8_t inb(uint16_t port)
{
	uint8_t v;
	__asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port) : "memory");
	return v;
}
static inline uint16_t inw(uint16_t port)
{
	uint16_t v;
	__asm__ volatile("inw %1, %0" : "=a"(v) : "Nd"(port) : "memory");
	return v;
}
static inline uint32_t inl(uint16_t port)
{
	uint32_t v;
	__asm__ volatile("inl %1, %0" : "=a"(v) : "Nd"(port) : "memory");
	return v;
}
static inline void outb(uint16_t port, uint8_t v)
{
	__asm__ volatile("outb %0, %1" ::"a"(v), "Nd"(port) : "memory");
}
static inline void outw(uint16_t port, uint16_t v)
{
	__asm__ volatile("outw %0, %1" ::"a"(v), "Nd"(port) : "memory");
}
static inline void outl(uint16_t port, uint32_t v)
{
	__asm__ volatile("outl %0, %1" ::"a"(v), "Nd"(port) : "memory");
}

#endif
