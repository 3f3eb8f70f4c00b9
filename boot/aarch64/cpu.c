/* What the platform interface needs from an AArch64 CPU: interrupt masking
 * for timed regions (DAIF), the physical address width, and QEMU's exit
 * through semihosting. */
#include <stdio.h>
#include <string.h>

#include "../../core/cpu.h"
#include "../../core/timing.h"
#include "../boot.h"

/* PSTATE.I and PSTATE.F: DAIFSet/DAIFClr immediate bits 1 and 0 (Arm ARM
 * C5.2.2). The whole DAIF value is saved and put back. */
static uint64_t irq_save(void)
{
	uint64_t daif;
	__asm__ volatile("mrs %0, daif\n\tmsr daifset, #3" : "=r"(daif)::"memory");
	return daif;
}

static void irq_restore(uint64_t daif)
{
	__asm__ volatile("msr daif, %0" ::"r"(daif) : "memory");
}

static unsigned phys_bits(void)
{
	return cpu_pa_bits();
}

void arch_platform(struct platform *p)
{
	p->irq_save = irq_save;
	p->irq_restore = irq_restore;
	p->phys_bits = phys_bits;
	/* the identity map's reach is the PA width itself: no LA57 question */
	p->paging_levels = NULL;
	p->apic_id_bits = NULL; /* a GIC, no local APIC */
	p->apic_x2apic = NULL;
}

/* Semihosting (Arm "Semihosting for AArch32 and AArch64", 2.0): HLT #0xF000
 * with the operation in W0 and a parameter block's address in X1.
 * SYS_EXIT_EXTENDED (0x20) takes {reason, subcode}; reason
 * ADP_Stopped_ApplicationExit (0x20026) with the subcode as exit status
 * makes QEMU exit with it. The status is (verdict << 1) | 1, as x86's
 * isa-debug-exit makes it, so that a pass (1) is not QEMU's ordinary 0
 * and both architectures' harnesses read it alike. */
#define SEMIHOSTING_SYS_EXIT_EXTENDED 0x20
#define ADP_STOPPED_APPLICATION_EXIT 0x20026

/* The firmware's AArch64 exception context (EDK2 EFI_SYSTEM_CONTEXT_AARCH64,
 * UEFI PI spec): X0-X28, FP, LR, SP; V0-V31; then ELR, SPSR, FPSR, ESR, FAR.
 * Only ELR and ESR are used. */
struct aarch64_context {
	uint64_t x[32];
	uint64_t v[64];
	uint64_t elr, spsr, fpsr, esr, far;
};

#define EXCEPT_AARCH64_SYNCHRONOUS 0
#define ESR_EC(esr) (((esr) >> 26) & 0x3f)
#define ESR_EC_UNKNOWN 0x00 /* an undefined instruction: HLT with no semihosting */

static volatile bool hlt_refused;
static volatile uint64_t hlt_esr;

/* Registered only around the HLT, so the HLT is what raised it. */
static void EFIAPI on_hlt_refused(INTN type, void *context)
{
	struct aarch64_context *c = context;
	(void)type;
	hlt_refused = true;
	hlt_esr = c->esr;
	c->elr += 4; /* past the HLT */
}

/* Without semihosting, QEMU (TCG or KVM) treats the HLT as an undefined
 * instruction; on hardware with an external debugger attached and halting
 * enabled it would stop the CPU. So: only when the platform is QEMU
 * (core/timing.c), and with a handler of ours for synchronous exceptions
 * in place, which steps over the HLT and reports that semihosting is off.
 * With semihosting on, QEMU never returns from the HLT. */
const char *qemu_exit(int status)
{
	static char why[200];
	if (strcmp(timing.platform, "qemu-tcg") != 0 && strcmp(timing.platform, "kvm") != 0)
		return "not under QEMU (platform is not qemu-tcg or kvm): semihosting's HLT is not risked";
	/* the crash reporting's handler, if any, gives way to the probe */
	exceptions_remove();
	EFI_STATUS st = cpu_register(EXCEPT_AARCH64_SYNCHRONOUS, on_hlt_refused);
	if (EFI_ERROR(st)) {
		exceptions_install();
		snprintf(why, sizeof(why),
			 "no handler for an undefined HLT could be registered (status 0x%llx): semihosting not tried",
			 (unsigned long long)st);
		return why;
	}
	static uint64_t block[2];
	block[0] = ADP_STOPPED_APPLICATION_EXIT;
	block[1] = ((uint64_t)status << 1) | 1;
	hlt_refused = false;
	register uint64_t x0 __asm__("x0") = SEMIHOSTING_SYS_EXIT_EXTENDED;
	register uint64_t x1 __asm__("x1") = (uintptr_t)block;
	__asm__ volatile("hlt #0xf000" : "+r"(x0) : "r"(x1) : "memory");
	cpu_register(EXCEPT_AARCH64_SYNCHRONOUS, NULL);
	exceptions_install();
	if (hlt_refused && ESR_EC(hlt_esr) == ESR_EC_UNKNOWN)
		snprintf(why, sizeof(why),
			 "QEMU runs without semihosting: HLT #0xF000 was an undefined instruction (ESR 0x%llx); "
			 "add -semihosting-config enable=on,target=native",
			 (unsigned long long)hlt_esr);
	else if (hlt_refused)
		snprintf(why, sizeof(why), "semihosting's HLT #0xF000 raised exception class 0x%llx (ESR 0x%llx)",
			 (unsigned long long)ESR_EC(hlt_esr), (unsigned long long)hlt_esr);
	else
		snprintf(why, sizeof(why), "semihosting SYS_EXIT_EXTENDED returned: QEMU did not exit");
	return why;
}
