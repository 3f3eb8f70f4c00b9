/* The exception handlers' registry on riscv64, under either firmware.
 *
 * EDK II (a RISC-V server's firmware) has the CPU architecture protocol
 * (UEFI PI spec, DXE volume): its RegisterInterruptHandler takes scause
 * as the type, and its trap vector runs the firmware's timer on the
 * supervisor timer interrupt, so the monitor registers synchronous
 * exception types there and never touches stvec. Its RISC-V library
 * cannot remove a handler: the NULL handler of a removal is answered
 * EFI_ALREADY_STARTED while one is registered (EDK II 2025.02, seen on
 * QEMU). A handler in the monitor's image would then outlive the image
 * (freed at its exit; the firmware goes on running boot options), so what
 * is registered is a small forwarder copied into a page of its own
 * (EfiLoaderCode, which outlives the image): while the monitor holds
 * the machine it jumps to the monitor's dispatcher, after the give-back
 * it stops the hart with interrupts off, as the firmware's own handler
 * would (it prints the registers, then loops). Where a removal works it
 * is made, and the forwarder goes unused.
 *
 * U-Boot's UEFI has no such protocol: the monitor installs its own S-mode
 * trap vector (stvec, privileged ISA 4.1.2) for as long as a handler of
 * ours is registered, and puts the firmware's stvec and sscratch back
 * when the last is removed. That vector takes the same types and also
 * RISCV_TYPE_INTERRUPTS (U-Boot runs with interrupts off: one arriving
 * is reported, not served).
 *
 * The own vector runs on a trap stack of its own (sscratch holds its top
 * while ours is installed), so a fault on an exhausted stack is still
 * reported; it saves every register and sepc, sstatus, stval and scause
 * in a struct riscv_context, calls the handler with scause as the type,
 * as EDK II does, and returns through the context (sret), which the
 * handler may have changed. While a handler runs sscratch is 0, so a trap
 * inside it takes a frame below the handler's own stack, not over it. */
#include <stdio.h>

#include "boot/boot.h"
#include "riscv_context.h"

typedef void(EFIAPI *handler_fn)(INTN type, void *context);

/* Indexed by synchronous exception code; the last for every interrupt. */
static handler_fn handlers[RISCV_SYNC_CODES + 1];

static int slot_of(unsigned type)
{
	if (type == RISCV_TYPE_INTERRUPTS)
		return RISCV_SYNC_CODES;
	return type < RISCV_SYNC_CODES ? (int)type : -1;
}

/* The firmware's protocol: its layout, of which only
 * RegisterInterruptHandler is called. */
struct cpu_arch {
	void *flush_data_cache, *enable_interrupt, *disable_interrupt, *get_interrupt_state, *init;
	EFI_STATUS(EFIAPI *register_interrupt_handler)(struct cpu_arch *self, INTN type, handler_fn h);
	void *get_timer_value, *set_memory_attributes;
	UINT32 number_of_timers, dma_buffer_alignment;
};

static struct {
	bool probed;
	struct cpu_arch *cpu; /* NULL: none (U-Boot), the own vector */
	uint32_t registered;  /* codes whose forwarder the firmware holds and would not give back */
	uint32_t live;	      /* of those, the ones a handler of ours takes now */
	uint8_t *forwarder;   /* the forwarder's code in its copy, NULL until the first registration */
	volatile uint64_t *forwarder_slot;
	bool told; /* the note on a removal refused is printed */
} fw;

static struct cpu_arch *firmware_cpu(void)
{
	static EFI_GUID guid = { 0x26baccb1, 0x6f42, 0x11d4, { 0xbc, 0xe7, 0x00, 0x80, 0xc7, 0x3c, 0x88, 0x81 } };
	if (!fw.probed) {
		void *p = NULL;
		fw.probed = true;
		/* a protocol without its one function is no protocol here */
		if (!EFI_ERROR(BS->LocateProtocol(&guid, NULL, &p)) && p &&
		    ((struct cpu_arch *)p)->register_interrupt_handler)
			fw.cpu = p;
	}
	return fw.cpu;
}

bool riscv_own_vector(void)
{
	return firmware_cpu() == NULL;
}

/* ---- under EDK II: the forwarder and the dispatcher ---- */

/* The forwarder the firmware is given (position independent: it is copied):
 * its slot, the dispatcher's address or 0, then its code, which the
 * firmware calls as a C function (t0 is the callee's to clobber). The
 * slot comes first so that the code finds it at a fixed offset. */
extern const uint8_t riscv_forwarder[], riscv_forwarder_code[], riscv_forwarder_end[];
__asm__(".text\n"
	".option push\n"
	".option norelax\n"
	".option norvc\n"
	".balign 8\n"
	"riscv_forwarder:\n"
	"	.dword 0\n"
	"riscv_forwarder_code:\n"
	"	auipc t0, 0\n"
	"	ld t0, -8(t0)\n"
	"	beqz t0, 1f\n"
	"	jr t0\n"	    /* the dispatcher, a0 and a1 (type, context) untouched */
	"1:	csrci sstatus, 2\n" /* given back: stop here, interrupts off */
	"2:	wfi\n"
	"	j 2b\n"
	"riscv_forwarder_end:\n"
	".option pop\n");

static void EFIAPI firmware_dispatch(INTN type, void *context)
{
	uint64_t code = (uint64_t)type;
	if (code < RISCV_SYNC_CODES && (fw.live & (1u << code)) && handlers[code]) {
		handlers[code](type, context);
		return;
	}
	/* a type given back while another is still ours: the firmware can no
	 * longer take it (it kept the forwarder), so stop as its handler would */
	static const char line[] = "\r\ncrash: a CPU exception of a type iommon gave back and the firmware can no "
				   "longer take: the hart stops\r\n";
	console_write(line, sizeof(line) - 1);
	for (;;)
		__asm__ volatile("csrci sstatus, 2\n\twfi" ::: "memory");
}

/* The forwarder's page, made once; NULL when no page can be had. */
static volatile uint64_t *forwarder_page(void)
{
	if (fw.forwarder_slot)
		return fw.forwarder_slot;
	EFI_PHYSICAL_ADDRESS a = 0;
	size_t n = (size_t)(riscv_forwarder_end - riscv_forwarder);
	if (EFI_ERROR(BS->AllocatePages(AllocateAnyPages, EfiLoaderCode, 1, &a)) || !a)
		return NULL;
	uint8_t *p = (uint8_t *)(uintptr_t)a;
	for (size_t i = 0; i < n; i++)
		p[i] = riscv_forwarder[i];
	fw.forwarder = p + (riscv_forwarder_code - riscv_forwarder);
	fw.forwarder_slot = (volatile uint64_t *)p;
	*fw.forwarder_slot = 0;
	__asm__ volatile("fence rw, rw\n\tfence.i" ::: "memory"); /* the copy is code from here */
	return fw.forwarder_slot;
}

static EFI_STATUS firmware_register(struct cpu_arch *cpu, unsigned type, handler_fn handler)
{
	/* the interrupts are the firmware's (its timer runs on them) */
	if (type == RISCV_TYPE_INTERRUPTS)
		return EFI_ALREADY_STARTED;
	if (type >= RISCV_SYNC_CODES)
		return EFI_UNSUPPORTED;
	uint32_t bit = 1u << type;
	if (handler) {
		if (fw.live & bit)
			return EFI_ALREADY_STARTED;
		if (!(fw.registered & bit)) {
			volatile uint64_t *slot = forwarder_page();
			if (!slot)
				return EFI_OUT_OF_RESOURCES;
			EFI_STATUS st =
			    cpu->register_interrupt_handler(cpu, (INTN)type, (handler_fn)(uintptr_t)fw.forwarder);
			if (EFI_ERROR(st))
				return st; /* the firmware's own handler stays */
			fw.registered |= bit;
		}
		handlers[type] = handler;
		fw.live |= bit;
		*fw.forwarder_slot = (uintptr_t)firmware_dispatch;
		return EFI_SUCCESS;
	}
	if (!(fw.live & bit))
		return EFI_INVALID_PARAMETER;
	fw.live &= ~bit;
	handlers[type] = NULL;
	if (!fw.live)
		*fw.forwarder_slot = 0; /* from here the forwarder stops the hart */
	/* a firmware that can remove a handler gets its own back */
	EFI_STATUS st = cpu->register_interrupt_handler(cpu, (INTN)type, NULL);
	if (st == EFI_SUCCESS) {
		fw.registered &= ~bit;
	} else if (!fw.told) {
		fw.told = true;
		printf(
		    "note: the firmware keeps the CPU exception handlers iommon registered (removing one answered %s):"
		    " from here they stop the hart, as its own would\n",
		    st == EFI_ALREADY_STARTED ? "EFI_ALREADY_STARTED" : "an error");
	}
	return EFI_SUCCESS;
}

/* ---- under U-Boot: the own vector ---- */

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
	int slot = (int64_t)c->scause < 0 ? RISCV_SYNC_CODES : c->scause < RISCV_SYNC_CODES ? (int)c->scause : -1;
	if (slot >= 0 && handlers[slot]) {
		handlers[slot]((INTN)c->scause, c); /* scause as the type, as EDK II calls */
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
	"	sd t0, 280(sp)\n"
	"	csrr t0, stval\n"
	"	sd t0, 272(sp)\n"
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

static bool any_handler(void)
{
	for (unsigned i = 0; i <= RISCV_SYNC_CODES; i++)
		if (handlers[i])
			return true;
	return false;
}

/* As EDK II's RegisterInterruptHandler answers: a type already taken is
 * EFI_ALREADY_STARTED, removing one not taken EFI_INVALID_PARAMETER. */
EFI_STATUS cpu_register(unsigned type, void(EFIAPI *handler)(INTN type, void *context))
{
	struct cpu_arch *cpu = firmware_cpu();
	if (cpu)
		return firmware_register(cpu, type, handler);
	int slot = slot_of(type);
	if (slot < 0)
		return EFI_UNSUPPORTED;
	if (handler && handlers[slot])
		return EFI_ALREADY_STARTED;
	if (!handler && !handlers[slot])
		return EFI_INVALID_PARAMETER;
	handlers[slot] = handler;
	install(any_handler());
	return EFI_SUCCESS;
}
