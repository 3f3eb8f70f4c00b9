/* What the platform interface needs from a RISC-V hart in S-mode, where
 * UEFI runs it: interrupt masking for timed regions (sstatus.SIE), the
 * FPU on before the first floating-point instruction (sstatus.FS), and
 * QEMU's exit through the virt machine's test finisher (sifive,test0),
 * else the SBI's system reset (SRST). */
#include <stdio.h>
#include <string.h>

#include "boot/boot.h"
#include "core/base/cpu.h"
#include "core/base/timing.h"

#define SSTATUS_SIE (1ull << 1)
#define SSTATUS_FS (3ull << 13)
#define SSTATUS_FS_INITIAL (1ull << 13)

static uint64_t irq_save(void)
{
	uint64_t s;
	__asm__ volatile("csrrc %0, sstatus, %1" : "=r"(s) : "r"(SSTATUS_SIE) : "memory");
	return s;
}

static void irq_restore(uint64_t s)
{
	if (s & SSTATUS_SIE)
		__asm__ volatile("csrs sstatus, %0" ::"r"(SSTATUS_SIE) : "memory");
}

static unsigned phys_bits(void)
{
	return cpu_pa_bits();
}

void arch_platform(struct platform *p)
{
	/* the FPU on (Initial) before newlib's printf meets a double */
	__asm__ volatile("csrs sstatus, %0" ::"r"(SSTATUS_FS_INITIAL) : "memory");
	p->irq_save = irq_save;
	p->irq_restore = irq_restore;
	p->phys_bits = phys_bits;
	p->paging_levels = NULL;
	p->apic_id_bits = NULL; /* an AIA or PLIC, no local APIC */
	p->apic_x2apic = NULL;
}

/* The SBI's System Reset extension (SBI 1.0 chapter 10): EID "SRST",
 * function 0, type 0 shutdown, reason 0 none or 1 system failure. */
#define SBI_EXT_SRST 0x53525354

/* QEMU's virt machine has a test finisher (sifive,test0, the device tree
 * names its address: core/monitor/early.c): 0x3333 with the code in bits 31:16 ends QEMU with
 * that exit status. The status is (verdict << 1) | 1, as x86's
 * isa-debug-exit makes it. Only under QEMU; elsewhere, or with no
 * finisher, the SBI's shutdown (whose exit status QEMU makes 0). */
const char *qemu_exit(int status)
{
	static char why[160];
	if (strcmp(timing.platform, "qemu-tcg") != 0 && strcmp(timing.platform, "qemu") != 0 &&
	    strcmp(timing.platform, "kvm") != 0)
		return "not under QEMU (platform is not qemu-tcg, qemu or kvm): its test finisher is not written";
	uint64_t base = riscv_test_finisher;
	if (base) {
		*(volatile uint32_t *)(uintptr_t)base = (uint32_t)(((unsigned)status << 1 | 1) << 16 | 0x3333);
		BS->Stall(100000);
		snprintf(why, sizeof(why), "the test finisher at 0x%llx was written and QEMU did not exit",
			 (unsigned long long)base);
		return why;
	}
	unsigned long v;
	long e = riscv_sbi(SBI_EXT_SRST, 0, 0, status ? 1 : 0, &v);
	snprintf(why, sizeof(why), "no sifive,test0 in the device tree, and the SBI's SRST shutdown returned %ld", e);
	return why;
}
