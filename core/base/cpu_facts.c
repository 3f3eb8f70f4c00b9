/* What the CPU layer needs to know that the CPU itself does not say, set
 * once at boot from the firmware's tables (core/monitor/early.c): on
 * riscv64, the Zicbom block size (cpu_riscv64.h) and QEMU's test finisher
 * (boot/riscv64/cpu.c). Nothing on the other architectures. */
#include "cpu.h"

#if defined(__riscv)
unsigned riscv_cbom_block;
uint64_t riscv_test_finisher;
#else
typedef int cpu_facts_none; /* an empty unit is not ISO C */
#endif
