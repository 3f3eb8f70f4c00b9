/* RISC-V (RV64) instructions the monitor needs, as static inlines (through
 * cpu.h). References: the unprivileged ISA (Zicntr's rdtime, the FENCE
 * instruction and its predecessor/successor sets, Zihintpause), the
 * privileged ISA (sstatus), and the Zicbom extension (cbo.clean,
 * cbo.flush) for harts whose devices do not snoop. Everything here runs
 * in S-mode, where UEFI runs on RISC-V. */
#ifndef IOMMON_CPU_RISCV64_H
#define IOMMON_CPU_RISCV64_H

#include <stdbool.h>
#include <stdint.h>

/* The `time` CSR (rdtime): a constant-rate counter at the platform's
 * timebase frequency (the device tree's /cpus timebase-frequency). Named
 * rdtsc like x86's counter read so that every timed region and deadline
 * reads "the counter" the same way. */
static inline uint64_t rdtsc(void)
{
	uint64_t v;
	__asm__ volatile("rdtime %0" : "=r"(v)::"memory");
	return v;
}

/* Every memory and I/O access before completes before any after (stores
 * to tables a device reads, then the register write that tells it to
 * look): FENCE with every predecessor and successor set. */
static inline void mfence(void)
{
	__asm__ volatile("fence iorw, iorw" ::: "memory");
}

/* Zicbom's cache-block size in bytes, set by the platform layer from the
 * device tree (the hart's riscv,isa or riscv,isa-extensions naming
 * zicbom, and riscv,cbom-block-size: core/monitor/early.c); 0 when the hart has no Zicbom, and
 * then the harts are taken to be coherent with the devices (the
 * platforms UEFI runs on are): only ordering is needed. */
extern unsigned riscv_cbom_block;
/* QEMU's test finisher (sifive,test0 in the device tree), 0 when none:
 * what `exit qemu` writes (boot/riscv64/cpu.c). */
extern uint64_t riscv_test_finisher;

/* Writes the blocks holding [p, p + n) back to memory (cbo.clean), for a
 * device that does not snoop; ordered before what follows. */
static inline void cache_flush(const void *p, uint64_t n)
{
	mfence();
	if (riscv_cbom_block) {
		uintptr_t a = (uintptr_t)p & ~(uintptr_t)(riscv_cbom_block - 1), end = (uintptr_t)p + n;
		for (; a < end; a += riscv_cbom_block)
			__asm__ volatile(".insn i 0x0f, 2, x0, %0, 1" ::"r"(a) : "memory"); /* cbo.clean (a) */
	}
	mfence();
}

/* Before reading what a device that does not snoop wrote to [p, p + n):
 * cbo.flush writes back and invalidates each block, so the next load goes
 * to memory and nothing the CPU dirtied is lost. */
static inline void cache_invalidate(const void *p, uint64_t n)
{
	mfence();
	if (riscv_cbom_block) {
		uintptr_t a = (uintptr_t)p & ~(uintptr_t)(riscv_cbom_block - 1), end = (uintptr_t)p + n;
		for (; a < end; a += riscv_cbom_block)
			__asm__ volatile(".insn i 0x0f, 2, x0, %0, 2" ::"r"(a) : "memory"); /* cbo.flush (a) */
	}
	mfence();
}

/* Zihintpause's PAUSE is a FENCE hint (fence w, 0): a hart without the
 * extension executes it as a no-op fence. */
static inline void cpu_relax(void)
{
	__asm__ volatile(".insn i 0x0f, 0, x0, x0, 0x010" ::: "memory");
}

/* An SBI call (SBI 1.0 chapter 3): extension `eid`, function `fid`, two
 * arguments; the error (a0, 0 on success) and the value in *value. */
static inline long riscv_sbi(unsigned long eid, unsigned long fid, unsigned long arg0, unsigned long arg1,
			     unsigned long *value)
{
	register unsigned long a0 __asm__("a0") = arg0;
	register unsigned long a1 __asm__("a1") = arg1;
	register unsigned long a6 __asm__("a6") = fid;
	register unsigned long a7 __asm__("a7") = eid;
	__asm__ volatile("ecall" : "+r"(a0), "+r"(a1) : "r"(a6), "r"(a7) : "memory");
	*value = a1;
	return (long)a0;
}

/* The base extension (EID 0x10), function `fid`: its value, or 0 when the
 * call fails (SBI 1.0 chapter 4). */
static inline uint64_t riscv_sbi_base(unsigned long fid)
{
	unsigned long v;
	return riscv_sbi(0x10, fid, 0, 0, &v) == 0 ? v : 0;
}

/* The physical address width: S-mode cannot read it from the hart; Sv39
 * and up carry 56-bit physical addresses (the privileged ISA's PPN), the
 * most any RV64 hart has. */
static inline unsigned cpu_pa_bits(void)
{
	return 56;
}

#endif
