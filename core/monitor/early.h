/* What the boot takes from the firmware's tables before the enumeration
 * and hands down to the floor (core/base), which reads no table itself:
 * the ECAM windows to claim (MCFG) and the reference clocks the counter is
 * calibrated against (the FADT's PM timer, the HPET table's). */
#ifndef IOMMON_EARLY_H
#define IOMMON_EARLY_H

#include <stdbool.h>
#include <stdint.h>

struct acpi;
struct mcfg;
struct timing_refs;

/* The ECAM windows an MCFG gives, claimed (core/base/claims.h) before the
 * enumeration (which claims them again): what the console and the timers a
 * table names are checked against before their first access. */
void early_claim_ecam(const struct mcfg *m);

/* The reference clocks `acpi` describes (NULL: none). */
void early_timing_refs(const struct acpi *acpi, struct timing_refs *out);
/* early_timing_refs takes the timebase from the device tree, else from
 * the RHCT (ACPI on a RISC-V server). */
/* The device tree's /cpus timebase-frequency (the RISC-V time CSR's), or
 * 0 when the firmware installed no tree or it has none. */
uint64_t early_fdt_timebase(void);
/* The firmware's device tree read (fdt_platform_read), bounded by its
 * header's size (at most 4 MiB), once for each tree the platform gives;
 * NULL when the firmware installed none or it does not parse. */
struct fdt_platform;
const struct fdt_platform *early_fdt(void);
/* The next early_fdt reads the platform's tree anew, even at the same
 * address (a test's next tree). */
void early_fdt_forget(void);
/* What the CPU layer needs from the device tree (riscv64: the Zicbom
 * block size and QEMU's test finisher: core/base/cpu_facts.c), or where
 * the firmware installed none from the ACPI tables `acpi` (the RHCT's
 * CMO node), set before the first table is written. */
void early_cpu_facts(const struct acpi *acpi);

/* timing_init (monitor.h) is timing_calibrate over early_timing_refs. */

#endif
