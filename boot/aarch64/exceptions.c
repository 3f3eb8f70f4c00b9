/* CPU exceptions on AArch64, through the CPU architecture protocol as
 * EDK II's ArmPkg offers it: a handler per exception type (synchronous,
 * IRQ, FIQ, SError), called with the saved context, whose ELR, SPSR and
 * general registers the exception return reloads, but not SP (the
 * shared half and the why are in boot/cpu_exceptions.c).
 *
 * The exception is worded from ESR_ELx by core/base/arm_esr.c: a data abort
 * names its fault (alignment, translation fault at level n, permission,
 * access flag, and the synchronous external abort, which is what an MMIO
 * read nothing answered gives on Arm servers) and FAR; an instruction
 * abort the same; an undefined instruction is EC 0 ("unknown reason"); an
 * SError its error type. */
#include <stdio.h>

#include "boot/boot.h"
#include "boot/exceptions.h"
#include "core/base/arm_esr.h"

/* EDK II's EXCEPT_AARCH64_* types. IRQ (1) is not taken: the GIC driver
 * registered it to dispatch the firmware's timer and interrupts. */
#define EXCEPT_AARCH64_SYNCHRONOUS_EXCEPTIONS 0
#define EXCEPT_AARCH64_IRQ 1
#define EXCEPT_AARCH64_FIQ 2
#define EXCEPT_AARCH64_SERROR 3

const uint8_t exception_types[] = { EXCEPT_AARCH64_SYNCHRONOUS_EXCEPTIONS, EXCEPT_AARCH64_FIQ, EXCEPT_AARCH64_SERROR };
const unsigned exception_ntypes = sizeof(exception_types);

/* EFI_SYSTEM_CONTEXT_AARCH64 (UEFI spec, Debug Support protocol), which
 * gnu-efi's headers do not define: X0-X28, FP (X29), LR (X30), SP, the
 * 128-bit V0-V31, then ELR, SPSR, FPSR, ESR, FAR. */
struct aarch64_context {
	uint64_t x[31];
	uint64_t sp;
	uint64_t v[32][2];
	uint64_t elr, spsr, fpsr, esr, far;
};
_Static_assert(__builtin_offsetof(struct aarch64_context, elr) == 0x300, "ELR follows V31");

#define SPSR_I (1u << 7)   /* IRQ masked */
#define SPSR_SS (1u << 21) /* software step */

void exception_describe(unsigned type, const void *context, char *out, size_t cap)
{
	const struct aarch64_context *c = context;
	size_t n = 0;
	int k;
	if (type == EXCEPT_AARCH64_FIQ) /* an interrupt: ESR is not written for it */
		k = snprintf(out, cap, "CPU exception (FIQ, an interrupt nothing in the firmware expected)");
	else
		k = snprintf(out, cap, "CPU exception (%s: ", type == EXCEPT_AARCH64_SERROR ? "SError" : "synchronous");
	n = k > 0 ? (size_t)k : 0;
	if (type != EXCEPT_AARCH64_FIQ && n < cap) {
		n += esr_describe((uint32_t)c->esr, c->far, out + n, cap - n);
		if (n < cap)
			n += (size_t)snprintf(out + n, cap - n, "), ESR 0x%08x", (unsigned)c->esr);
	}
	if (n < cap)
		n += (size_t)snprintf(out + n, cap - n, " at ELR 0x%llx", (unsigned long long)c->elr);
	if (n < cap)
		n += exception_in_image(c->elr, out + n, cap - n);
	if (n < cap)
		snprintf(out + n, cap - n, ", SP 0x%llx", (unsigned long long)c->sp);
}

/* The exception return restores X0-X30, ELR and SPSR from the context but
 * keeps its own SP: ELR goes to this trampoline, which takes the new stack
 * from X0 and branches to the landing in X1. */
void crash_trampoline(void) __attribute__((visibility("hidden")));
__asm__(".text\n"
	".balign 4\n"
	".type crash_trampoline, %function\n"
	"crash_trampoline:\n"
	"	mov sp, x0\n"
	"	mov x29, xzr\n"
	"	mov x30, xzr\n"
	"	br x1\n"
	".size crash_trampoline, . - crash_trampoline\n");

void exception_return_to(void *context, void (*landing)(void), uint8_t *stack_top)
{
	struct aarch64_context *c = context;
	c->x[0] = (uintptr_t)stack_top;
	c->x[1] = (uintptr_t)landing;
	c->elr = (uintptr_t)crash_trampoline;
	c->spsr &= ~(uint64_t)(SPSR_I | SPSR_SS); /* IRQs on: the firmware's timer and watchdog must run */
}

void exception_idle_forever(void)
{
	for (;;)
		__asm__ volatile("msr daifclr, #2\n\twfi" ::: "memory");
}
