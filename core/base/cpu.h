/* The CPU instructions the monitor needs, for the architecture it is built
 * for. Both headers offer the same common set: rdtsc (the free-running
 * counter every timed region and deadline reads; CNTVCT_EL0 on aarch64),
 * mfence (all earlier memory accesses complete before any later one),
 * cache_flush (write lines back for a device that does not snoop) and
 * cpu_relax (inside a poll). Port I/O and CPUID exist on x86-64 only;
 * cycles_begin/end (core/base/timing.h) order the counter reads for each.
 * CPU_PORT_IO says whether the architecture has I/O ports (x86-64 only). */
#ifndef IOMMON_CPU_H
#define IOMMON_CPU_H

#if defined(__x86_64__)
#include "cpu_x86_64.h"
#define CPU_PORT_IO 1
#elif defined(__aarch64__)
#include "cpu_aarch64.h"
#define CPU_PORT_IO 0
#elif defined(__riscv) && __riscv_xlen == 64
#include "cpu_riscv64.h"
#define CPU_PORT_IO 0
#else
#error "iommon builds for x86-64, aarch64 and riscv64 only"
#endif

#endif
