/* CPU exceptions on riscv64, through the firmware's CPU architecture
 * protocol (EDK II) or the monitor's own trap vector (U-Boot: cpu_arch.c):
 * the types it registers, the trap worded from scause (the handler's
 * type under both), sepc and stval (privileged ISA 4.1.8-4.1.9: the
 * exception codes and what stval holds for each), and the return sent to
 * the crash landing (the shared half is boot/cpu_exceptions.c). */
#include <stdio.h>

#include "boot/boot.h"
#include "boot/exceptions.h"
#include "riscv_context.h"

/* The synchronous exceptions S-mode code can take (8 and 9, the
 * environment calls from U- and S-mode, go to the SBI in M-mode; the
 * hypervisor's 20-23 need the H extension, which UEFI does not use), and
 * the interrupts, which only the own vector takes: under EDK II they run
 * the firmware's timer and are never the monitor's. */
const uint8_t exception_types[] = { 0, 1, 2, 3, 4, 5, 6, 7, 12, 13, 15, 18, 19, RISCV_TYPE_INTERRUPTS };
const unsigned exception_ntypes = sizeof(exception_types);

#define SCAUSE_INTERRUPT (1ull << 63)
#define SSTATUS_SIE (1ull << 1)
#define SSTATUS_SPIE (1ull << 5)
#define SSTATUS_SPP (1ull << 8)

static const char *cause_name(uint64_t scause)
{
	static const char *const sync[] = {
		[0] = "instruction address misaligned",
		[1] = "instruction access fault",
		[2] = "illegal instruction",
		[3] = "breakpoint",
		[4] = "load address misaligned",
		[5] = "load access fault",
		[6] = "store/AMO address misaligned",
		[7] = "store/AMO access fault",
		[8] = "environment call from U-mode",
		[9] = "environment call from S-mode",
		[12] = "instruction page fault",
		[13] = "load page fault",
		[15] = "store/AMO page fault",
		[18] = "software check",
		[19] = "hardware error",
	};
	static const char *const irq[] = {
		[1] = "supervisor software interrupt",
		[5] = "supervisor timer interrupt",
		[9] = "supervisor external interrupt",
		[13] = "counter-overflow interrupt",
	};
	uint64_t code = scause << 1 >> 1;
	const char *n = NULL;
	if ((int64_t)scause < 0)
		n = code < sizeof(irq) / sizeof(irq[0]) ? irq[code] : NULL;
	else
		n = code < sizeof(sync) / sizeof(sync[0]) ? sync[code] : NULL;
	return n		     ? n
	       : (int64_t)scause < 0 ? "an interrupt of a reserved or custom code"
				     : "a reserved or custom exception";
}

void exception_describe(unsigned type, const void *context, char *out, size_t cap)
{
	/* the type is scause (cut to unsigned: under EDK II only synchronous
	 * codes are registered, so none is cut); the own vector's context
	 * holds all of it */
	const struct riscv_context *c = context;
	uint64_t scause = riscv_own_vector() ? c->scause : type;
	bool irq = (scause & SCAUSE_INTERRUPT) != 0;
	/* EDK II saves no sp: the interrupted one is just above its frame */
	uint64_t sp = riscv_own_vector() ? c->x[2] : (uintptr_t)c + RISCV_FIRMWARE_FRAME;
	size_t n = 0;
	int k = snprintf(out, cap, "CPU exception (%s%s, scause 0x%llx) at sepc 0x%llx", cause_name(scause),
			 irq ? ", which nothing in the firmware expected" : "", (unsigned long long)scause,
			 (unsigned long long)c->sepc);
	n = k > 0 ? (size_t)k : 0;
	if (n < cap)
		n += exception_in_image(c->sepc, out + n, cap - n);
	if (n < cap && !irq)
		n += (size_t)snprintf(out + n, cap - n, ", stval 0x%llx", (unsigned long long)c->stval);
	if (n < cap)
		snprintf(out + n, cap - n, ", sp 0x%llx", (unsigned long long)sp);
}

/* The landing is reached through a trampoline: EDK II's return reloads
 * sepc, sstatus and the registers but not sp (it pops its own frame), so
 * the context's sp cannot carry the crash stack there; a0 and a1 carry
 * the landing and its stack instead, on both firmwares. sret restores
 * the program counter and, from SPIE, the interrupt enable, staying in
 * S-mode (SPP): SPIE is cleared so that no interrupt is taken on the
 * faulting stack; the trampoline enables them once on the crash stack.
 * The return address and frame pointer are cleared. */
void riscv_landing_trampoline(void) __attribute__((visibility("hidden")));
__asm__(".text\n"
	".balign 4\n"
	"riscv_landing_trampoline:\n"
	"	mv sp, a1\n"
	"	csrsi sstatus, 2\n" /* SIE, on the crash stack */
	"	jr a0\n");

void exception_return_to(void *context, void (*landing)(void), uint8_t *stack_top)
{
	struct riscv_context *c = context;
	c->sepc = (uintptr_t)riscv_landing_trampoline;
	c->x[10] = (uintptr_t)landing;	 /* a0 */
	c->x[11] = (uintptr_t)stack_top; /* a1 */
	c->x[1] = 0;			 /* ra */
	c->x[8] = 0;			 /* s0, the frame pointer */
	c->sstatus = (c->sstatus | SSTATUS_SPP) & ~SSTATUS_SPIE;
}

void exception_idle_forever(void)
{
	for (;;)
		__asm__ volatile("csrs sstatus, %0\n\twfi" ::"r"(SSTATUS_SIE) : "memory");
}
