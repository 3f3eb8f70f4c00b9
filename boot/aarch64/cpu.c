/* What the platform interface needs from an AArch64 CPU: interrupt masking
 * for timed regions (DAIF), the physical address width, SMC Calling
 * Convention calls, and QEMU's exit through semihosting. */
#include <stdio.h>
#include <string.h>

#include "boot/boot.h"
#include "core/base/cpu.h"
#include "core/base/timing.h"

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

#define ESR_EC_HVC64 0x16 /* an HVC taken at the level it was issued from returns past it */

/* A guard around one instruction that may raise a synchronous exception
 * (an HLT without semihosting, an HVC or SMC with nothing at the level it
 * targets): the crash reporting's handler gives way to ours, which notes
 * the syndrome and steps over the instruction. An undefined instruction
 * (EC 0) and a trapped SMC return to the instruction itself; an HVC
 * exception returns past it already. */
static volatile bool guard_raised;
static volatile uint64_t guard_esr;

static void EFIAPI on_guarded_exception(INTN type, void *context)
{
	struct aarch64_context *c = context;
	(void)type;
	guard_raised = true;
	guard_esr = c->esr;
	if (ESR_EC(c->esr) != ESR_EC_HVC64)
		c->elr += 4;
}

/* 0, or the firmware's status when no handler could be registered (the
 * crash reporting's is back in place then). */
static EFI_STATUS guard_begin(void)
{
	exceptions_remove();
	EFI_STATUS st = cpu_register(EXCEPT_AARCH64_SYNCHRONOUS, on_guarded_exception);
	if (EFI_ERROR(st))
		exceptions_install();
	guard_raised = false;
	return st;
}

static void guard_end(void)
{
	cpu_register(EXCEPT_AARCH64_SYNCHRONOUS, NULL);
	exceptions_install();
}

/* SMCCC (DEN0028 2.6, 2.7): the function id in W0, results in X0-X3; a
 * v1.0 implementation may also corrupt X4-X17, so all of them are
 * clobbered here. */
static bool smccc(bool hvc, uint32_t fid, uint64_t res[4], const char **why)
{
	static char msg[160];
	EFI_STATUS st = guard_begin();
	if (EFI_ERROR(st)) {
		snprintf(msg, sizeof(msg),
			 "no handler for a refused %s could be registered (status 0x%llx): not issued",
			 hvc ? "HVC" : "SMC", (unsigned long long)st);
		*why = msg;
		return false;
	}
	register uint64_t x0 __asm__("x0") = fid;
	register uint64_t x1 __asm__("x1") = 0;
	register uint64_t x2 __asm__("x2") = 0;
	register uint64_t x3 __asm__("x3") = 0;
	if (hvc)
		__asm__ volatile("hvc #0"
				 : "+r"(x0), "+r"(x1), "+r"(x2), "+r"(x3)
				 :
				 : "x4", "x5", "x6", "x7", "x8", "x9", "x10", "x11", "x12", "x13", "x14", "x15", "x16",
				   "x17", "memory");
	else
		__asm__ volatile("smc #0"
				 : "+r"(x0), "+r"(x1), "+r"(x2), "+r"(x3)
				 :
				 : "x4", "x5", "x6", "x7", "x8", "x9", "x10", "x11", "x12", "x13", "x14", "x15", "x16",
				   "x17", "memory");
	res[0] = x0, res[1] = x1, res[2] = x2, res[3] = x3;
	guard_end();
	if (!guard_raised)
		return true;
	snprintf(msg, sizeof(msg), "%s raised exception class 0x%llx (ESR 0x%llx)%s", hvc ? "HVC" : "SMC",
		 (unsigned long long)ESR_EC(guard_esr), (unsigned long long)guard_esr,
		 ESR_EC(guard_esr) == ESR_EC_UNKNOWN ? ": undefined, nothing answers at that level" : "");
	*why = msg;
	return false;
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
	p->smccc = smccc;
	p->gic_sysreg = aarch64_gic_sysreg;
	p->arm_id_reg = aarch64_arm_id_reg;
}

/* Without semihosting, QEMU (TCG or KVM) treats the HLT as an undefined
 * instruction; on hardware with an external debugger attached and halting
 * enabled it would stop the CPU. So: only when the platform is QEMU
 * (core/monitor/platform_id.c), and with a handler of ours for synchronous exceptions
 * in place, which steps over the HLT and reports that semihosting is off.
 * With semihosting on, QEMU never returns from the HLT. */
const char *qemu_exit(int status)
{
	static char why[200];
	if (strcmp(timing.platform, "qemu-tcg") != 0 && strcmp(timing.platform, "qemu") != 0 &&
	    strcmp(timing.platform, "kvm") != 0)
		return "not under QEMU (platform is not qemu-tcg, qemu or kvm): semihosting's HLT is not risked";
	EFI_STATUS st = guard_begin();
	if (EFI_ERROR(st)) {
		snprintf(why, sizeof(why),
			 "no handler for an undefined HLT could be registered (status 0x%llx): semihosting not tried",
			 (unsigned long long)st);
		return why;
	}
	static uint64_t block[2];
	block[0] = ADP_STOPPED_APPLICATION_EXIT;
	block[1] = ((uint64_t)status << 1) | 1;
	register uint64_t x0 __asm__("x0") = SEMIHOSTING_SYS_EXIT_EXTENDED;
	register uint64_t x1 __asm__("x1") = (uintptr_t)block;
	__asm__ volatile("hlt #0xf000" : "+r"(x0) : "r"(x1) : "memory");
	guard_end();
	if (guard_raised && ESR_EC(guard_esr) == ESR_EC_UNKNOWN)
		snprintf(why, sizeof(why),
			 "QEMU runs without semihosting: HLT #0xF000 was an undefined instruction (ESR 0x%llx); "
			 "add -semihosting-config enable=on,target=native",
			 (unsigned long long)guard_esr);
	else if (guard_raised)
		snprintf(why, sizeof(why), "semihosting's HLT #0xF000 raised exception class 0x%llx (ESR 0x%llx)",
			 (unsigned long long)ESR_EC(guard_esr), (unsigned long long)guard_esr);
	else
		snprintf(why, sizeof(why), "semihosting SYS_EXIT_EXTENDED returned: QEMU did not exit");
	return why;
}
