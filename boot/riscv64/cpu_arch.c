/* The exception handlers' registry on riscv64. U-Boot's UEFI, which runs
 * the monitor here, has no CPU architecture protocol (EDK II's would take
 * RegisterInterruptHandler): the monitor installs its own S-mode trap
 * vector instead (stvec, privileged ISA 4.1.2), for as long as a handler
 * of ours is registered, and puts the firmware's stvec and sscratch back
 * when the last is removed. Two types, as boot/riscv64/exceptions.c
 * names them: 0 synchronous exceptions, 1 interrupts (scause's top bit).
 *
 * The vector runs on a trap stack of its own (sscratch holds its top
 * while ours is installed), so a fault on an exhausted stack is still
 * reported; it saves every register and sepc, sstatus, scause and stval
 * in a struct riscv_context, calls the handler, and returns through the
 * context (sret), which the handler may have changed. While a handler
 * runs sscratch is 0, so a trap inside it takes a frame below the
 * handler's own stack, not over it. */
#include "boot/boot.h"
#include "riscv_context.h"

static void(EFIAPI *handlers[2])(INTN type, void *context);
static uint64_t firmware_stvec, firmware_sscratch;
static bool installed;
static uint8_t trap_stack[16 * 1024] __attribute__((aligned(16)));

void riscv_trap(struct riscv_context *c) __attribute__((used, visibility("hidden")));
void riscv_trap(struct riscv_context *c)
{
	/* x[0] holds what sscratch must be on the return: the trap stack's
	 * top when this frame is its first, 0 when the trap came inside a
	 * handler (which goes on running on its own stack) */
	uint8_t *top = trap_stack + sizeof(trap_stack);
	c->x[0] = (uint8_t *)c + RISCV_CONTEXT_SIZE == top ? (uintptr_t)top : 0;
	unsigned type = (int64_t)c->scause < 0 ? 1 : 0;
	if (handlers[type]) {
		handlers[type](type, c);
		return;
	}
	/* a trap of a type nobody registered, while another type is ours:
	 * the firmware's vector would have taken it; nothing here can */
	static const char line[] = "\r\ncrash: a trap of a type iommon has no handler for: resetting\r\n";
	console_write(line, sizeof(line) - 1);
	RT->ResetSystem(EfiResetCold, EFI_ABORTED, 0, NULL);
	for (;;)
		__asm__ volatile("wfi");
}

/* The vector: 4-byte aligned (stvec's MODE 0, direct). */
void riscv_trap_entry(void) __attribute__((visibility("hidden")));
__asm__(".text\n"
	".balign 4\n"
	".type riscv_trap_entry, @function\n"
	"riscv_trap_entry:\n"
	"	csrrw sp, sscratch, sp\n" /* sp: the trap stack; sscratch: the interrupted sp */
	"	bnez sp, 1f\n"
	"	csrr sp, sscratch\n" /* sscratch was 0: a trap inside a handler goes below its sp */
	"1:\n"
	"	addi sp, sp, -" RISCV_CONTEXT_SIZE_S "\n"
	"	sd x1, 8(sp)\n"
	"	sd x3, 24(sp)\n"
	"	sd x4, 32(sp)\n"
	"	sd x5, 40(sp)\n"
	"	sd x6, 48(sp)\n"
	"	sd x7, 56(sp)\n"
	"	sd x8, 64(sp)\n"
	"	sd x9, 72(sp)\n"
	"	sd x10, 80(sp)\n"
	"	sd x11, 88(sp)\n"
	"	sd x12, 96(sp)\n"
	"	sd x13, 104(sp)\n"
	"	sd x14, 112(sp)\n"
	"	sd x15, 120(sp)\n"
	"	sd x16, 128(sp)\n"
	"	sd x17, 136(sp)\n"
	"	sd x18, 144(sp)\n"
	"	sd x19, 152(sp)\n"
	"	sd x20, 160(sp)\n"
	"	sd x21, 168(sp)\n"
	"	sd x22, 176(sp)\n"
	"	sd x23, 184(sp)\n"
	"	sd x24, 192(sp)\n"
	"	sd x25, 200(sp)\n"
	"	sd x26, 208(sp)\n"
	"	sd x27, 216(sp)\n"
	"	sd x28, 224(sp)\n"
	"	sd x29, 232(sp)\n"
	"	sd x30, 240(sp)\n"
	"	sd x31, 248(sp)\n"
	"	csrr t0, sscratch\n"
	"	sd t0, 16(sp)\n"
	"	csrr t0, sepc\n"
	"	sd t0, 256(sp)\n"
	"	csrr t0, sstatus\n"
	"	sd t0, 264(sp)\n"
	"	csrr t0, scause\n"
	"	sd t0, 272(sp)\n"
	"	csrr t0, stval\n"
	"	sd t0, 280(sp)\n"
	"	csrw sscratch, zero\n" /* in a handler: a nested trap's frame goes below its sp */
	"	mv a0, sp\n"
	"	call riscv_trap\n"
	"	ld t0, 0(sp)\n" /* sscratch as riscv_trap left it for the return */
	"	csrw sscratch, t0\n"
	"	ld t0, 256(sp)\n"
	"	csrw sepc, t0\n"
	"	ld t0, 264(sp)\n"
	"	csrw sstatus, t0\n"
	"	ld x1, 8(sp)\n"
	"	ld x3, 24(sp)\n"
	"	ld x4, 32(sp)\n"
	"	ld x5, 40(sp)\n"
	"	ld x6, 48(sp)\n"
	"	ld x7, 56(sp)\n"
	"	ld x8, 64(sp)\n"
	"	ld x9, 72(sp)\n"
	"	ld x10, 80(sp)\n"
	"	ld x11, 88(sp)\n"
	"	ld x12, 96(sp)\n"
	"	ld x13, 104(sp)\n"
	"	ld x14, 112(sp)\n"
	"	ld x15, 120(sp)\n"
	"	ld x16, 128(sp)\n"
	"	ld x17, 136(sp)\n"
	"	ld x18, 144(sp)\n"
	"	ld x19, 152(sp)\n"
	"	ld x20, 160(sp)\n"
	"	ld x21, 168(sp)\n"
	"	ld x22, 176(sp)\n"
	"	ld x23, 184(sp)\n"
	"	ld x24, 192(sp)\n"
	"	ld x25, 200(sp)\n"
	"	ld x26, 208(sp)\n"
	"	ld x27, 216(sp)\n"
	"	ld x28, 224(sp)\n"
	"	ld x29, 232(sp)\n"
	"	ld x30, 240(sp)\n"
	"	ld x31, 248(sp)\n"
	"	ld sp, 16(sp)\n" /* the context's sp last: the interrupted one, or the one the handler chose */
	"	sret\n"
	".size riscv_trap_entry, . - riscv_trap_entry\n");

static void install(bool on)
{
	if (on && !installed) {
		__asm__ volatile("csrr %0, stvec" : "=r"(firmware_stvec));
		__asm__ volatile("csrr %0, sscratch" : "=r"(firmware_sscratch));
		__asm__ volatile("csrw sscratch, %0" ::"r"(trap_stack + sizeof(trap_stack)));
		__asm__ volatile("csrw stvec, %0" ::"r"((uintptr_t)riscv_trap_entry) : "memory");
		installed = true;
	} else if (!on && installed) {
		__asm__ volatile("csrw stvec, %0" ::"r"(firmware_stvec) : "memory");
		__asm__ volatile("csrw sscratch, %0" ::"r"(firmware_sscratch));
		installed = false;
	}
}

/* As EDK II's RegisterInterruptHandler answers: a type already taken is
 * EFI_ALREADY_STARTED, removing one not taken EFI_INVALID_PARAMETER. */
EFI_STATUS cpu_register(unsigned vector, void(EFIAPI *handler)(INTN vector, void *context))
{
	if (vector >= 2)
		return EFI_UNSUPPORTED;
	if (handler && handlers[vector])
		return EFI_ALREADY_STARTED;
	if (!handler && !handlers[vector])
		return EFI_INVALID_PARAMETER;
	handlers[vector] = handler;
	install(handlers[0] || handlers[1]);
	return EFI_SUCCESS;
}
