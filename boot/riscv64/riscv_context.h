/* What a riscv64 exception handler is handed as its context, under both
 * firmwares: x1-x31 by number, then sepc, sstatus and stval, the layout
 * of EDK II's EFI_SYSTEM_CONTEXT_RISCV64 (its trap entry saves those 35
 * words and nothing else, so a handler registered through its CPU
 * architecture protocol sees no more). The monitor's own vector
 * (cpu_arch.c, under U-Boot) saves the same words and scause after them.
 * Differences a reader of the context must know: EDK II does not save sp
 * (x[2] is stale: the interrupted sp is just above the frame, at the
 * context plus RISCV_FIRMWARE_FRAME) and restores neither sp nor x0 from
 * it; the own vector saves and restores sp, and keeps in x[0] (which
 * needs no saving) what sscratch is to be on the return. Both hand the
 * handler scause as its type. */
#ifndef IOMMON_BOOT_RISCV_CONTEXT_H
#define IOMMON_BOOT_RISCV_CONTEXT_H

#include <stdbool.h>
#include <stdint.h>

struct riscv_context {
	uint64_t x[32];
	uint64_t sepc, sstatus, stval;
	uint64_t scause; /* the own vector's only */
};
#define RISCV_CONTEXT_SIZE 288
#define RISCV_CONTEXT_SIZE_S "288"
#define RISCV_FIRMWARE_FRAME 280 /* EDK II's frame: 35 words */
_Static_assert(sizeof(struct riscv_context) == RISCV_CONTEXT_SIZE, "the vector's frame");
_Static_assert(__builtin_offsetof(struct riscv_context, sepc) == 256, "sepc after x31");
_Static_assert(__builtin_offsetof(struct riscv_context, stval) == 272, "stval after sstatus");

/* The exception types iommon registers (exceptions.c): a synchronous
 * exception's code (scause with its top bit clear, below 24, EDK II's
 * limit), or RISCV_TYPE_INTERRUPTS for every interrupt, which only the
 * own vector takes (under EDK II the interrupts run the firmware's timer). */
#define RISCV_SYNC_CODES 24
#define RISCV_TYPE_INTERRUPTS 0x80

/* True when the monitor's own trap vector takes the exceptions (the
 * firmware has no CPU architecture protocol), false when the firmware's
 * protocol does: which layout of the context a handler reads. */
bool riscv_own_vector(void);

#endif
