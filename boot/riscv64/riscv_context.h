/* What the riscv64 trap vector (cpu_arch.c) saves and its handlers read
 * and change (exceptions.c): x1-x31 by number (x[2] is the interrupted
 * sp; x[0], which needs no saving, holds what sscratch is to be on the
 * return), then the trap's CSRs. The offsets are the
 * vector's, in its assembly. */
#ifndef IOMMON_BOOT_RISCV_CONTEXT_H
#define IOMMON_BOOT_RISCV_CONTEXT_H

#include <stdint.h>

struct riscv_context {
	uint64_t x[32];
	uint64_t sepc, sstatus, scause, stval;
};
#define RISCV_CONTEXT_SIZE 288
#define RISCV_CONTEXT_SIZE_S "288"
_Static_assert(sizeof(struct riscv_context) == RISCV_CONTEXT_SIZE, "the vector's frame");
_Static_assert(__builtin_offsetof(struct riscv_context, sepc) == 256, "sepc after x31");

#endif
