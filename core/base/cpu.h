/* The CPU instructions the monitor needs, for the architecture it is built
 * for. Both headers offer the same common set: rdtsc (the free-running
 * counter every timed region and deadline reads; CNTVCT_EL0 on aarch64),
 * mfence (all earlier memory accesses complete before any later one),
 * cache_flush (write lines back for a device that does not snoop) and
 * cpu_relax (inside a poll). Port I/O and CPUID exist on x86-64 only;
 * cycles_begin/end (core/base/timing.h) order the counter reads for each. */
#ifndef IOMMON_CPU_H
#define IOMMON_CPU_H

#if defined(__x86_64__)
#include "cpu_x86_64.h"
#elif defined(__aarch64__)
#include "cpu_aarch64.h"
#else
#error "iommon builds for x86-64 and aarch64 only"
#endif

#endif
