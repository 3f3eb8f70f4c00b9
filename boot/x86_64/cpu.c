/* What the platform interface needs from an x86-64 CPU: interrupt masking
 * for timed regions, the physical address width, the paging depth, and
 * QEMU's isa-debug-exit port. */
#include "core/base/cpu.h"
#include "boot/boot.h"

#define QEMU_DEBUG_EXIT_PORT 0xf4

static uint64_t irq_save(void)
{
	uint64_t flags;
	__asm__ volatile("pushfq; popq %0; cli" : "=r"(flags)::"memory");
	return flags;
}

static void irq_restore(uint64_t flags)
{
	if (flags & (1u << 9)) /* IF */
		__asm__ volatile("sti" ::: "memory");
}

static unsigned phys_bits(void)
{
	return cpuid_phys_bits();
}

/* CR4.LA57 (bit 12): the firmware's paging is 5-level (Intel SDM vol. 3A, 4.5) */
static unsigned paging_levels(void)
{
	uint64_t cr4;
	__asm__ volatile("mov %%cr4, %0" : "=r"(cr4));
	return cr4 & (1ull << 12) ? 5 : 4;
}

void arch_platform(struct platform *p)
{
	p->irq_save = irq_save;
	p->irq_restore = irq_restore;
	p->phys_bits = phys_bits;
	p->paging_levels = paging_levels;
	p->apic_id_bits = apic_id_bits; /* irq.c */
	p->apic_x2apic = apic_x2apic;
}

/* QEMU's isa-debug-exit device ends QEMU with (status << 1) | 1; without
 * one the write goes nowhere and we are still here. */
const char *qemu_exit(int status)
{
	outb(QEMU_DEBUG_EXIT_PORT, (uint8_t)status);
	BS->Stall(100000);
	return "no QEMU isa-debug-exit device at port 0xf4 (add -device isa-debug-exit,iobase=0xf4,iosize=4)";
}
