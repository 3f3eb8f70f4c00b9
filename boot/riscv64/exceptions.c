/* CPU exceptions on riscv64, through the monitor's own trap vector
 * (cpu_arch.c: U-Boot's UEFI has no CPU architecture protocol): the two
 * types it registers, the trap worded from scause, sepc and stval
 * (privileged ISA 4.1.8-4.1.9: the exception codes and what stval holds
 * for each), and the return sent to the crash landing (the shared half is
 * boot/cpu_exceptions.c). */
#include <stdio.h>

#include "boot/boot.h"
#include "boot/exceptions.h"
#include "riscv_context.h"

#define RISCV_TRAP_SYNC 0
#define RISCV_TRAP_INTERRUPT 1
const uint8_t exception_types[] = { RISCV_TRAP_SYNC, RISCV_TRAP_INTERRUPT };
const unsigned exception_ntypes = sizeof(exception_types);

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
	const struct riscv_context *c = context;
	size_t n = 0;
	int k = snprintf(out, cap, "CPU exception (%s%s, scause 0x%llx) at sepc 0x%llx", cause_name(c->scause),
			 type == RISCV_TRAP_INTERRUPT ? ", which nothing in the firmware expected" : "",
			 (unsigned long long)c->scause, (unsigned long long)c->sepc);
	n = k > 0 ? (size_t)k : 0;
	if (n < cap)
		n += exception_in_image(c->sepc, out + n, cap - n);
	if (n < cap && type == RISCV_TRAP_SYNC)
		n += (size_t)snprintf(out + n, cap - n, ", stval 0x%llx", (unsigned long long)c->stval);
	if (n < cap)
		snprintf(out + n, cap - n, ", sp 0x%llx", (unsigned long long)c->x[2]);
}

/* sret restores the program counter from sepc and the interrupt enable
 * from SPIE, staying in S-mode (SPP): the landing runs on its own stack
 * with interrupts enabled, its return address and frame pointer cleared. */
void exception_return_to(void *context, void (*landing)(void), uint8_t *stack_top)
{
	struct riscv_context *c = context;
	c->sepc = (uintptr_t)landing;
	c->x[2] = (uintptr_t)stack_top;
	c->x[1] = 0; /* ra */
	c->x[8] = 0; /* s0, the frame pointer */
	c->sstatus |= SSTATUS_SPIE | SSTATUS_SPP;
}

void exception_idle_forever(void)
{
	for (;;)
		__asm__ volatile("csrs sstatus, %0\n\twfi" ::"r"(SSTATUS_SIE) : "memory");
}
