/* Who owns which MMIO: the ECAM windows, the BARs the enumeration found,
 * the IOMMU register windows taken from tables. A base a table gives
 * (DRHD, IVHD, IORT SMMU, HPET, I/O APIC) is checked here before the
 * first access: one that lies inside another device's window is someone
 * else's registers, and touching it could stop that device (the USB
 * controller of the stick the monitor runs from). */
#ifndef IOMMON_CLAIMS_H
#define IOMMON_CLAIMS_H

#include <stdbool.h>
#include <stdint.h>

#define CLAIMS_MAX 1024

/* Forgets every claim (a new discovery). */
void claims_reset(void);
/* Who claims: a device (an ECAM window, a BAR) or an IOMMU unit a table
 * described. */
enum claim_kind { CLAIM_DEVICE, CLAIM_UNIT };
/* [base, base + size) belongs to the owner the format names ("BAR0 of
 * 0000:00:03.0"). Ignored when empty, wrapping, or the table is full. */
void claims_add(enum claim_kind kind, uint64_t base, uint64_t size, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The owner of the first claim [base, base + size) overlaps, or NULL;
 * with devices_only, a unit's claim does not count. */
const char *claims_owner(uint64_t base, uint64_t size, bool devices_only);

/* A BAR's claim, with its function's class code (base class, subclass,
 * programming interface: 0x070002 a 16550 serial port). */
void claims_add_bar(uint64_t base, uint64_t size, uint32_t class_code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The owner of a device's claim [base, base + size) overlaps, unless it is
 * the thing itself: a BAR whose class code under `mask` is `cls` (a PCI
 * UART's BAR holds the UART an SPCR names, an IOxAPIC's the I/O APIC).
 * mask 0 lets no BAR be the thing. */
const char *claims_other_owner(uint64_t base, uint64_t size, uint32_t mask, uint32_t cls);

/* A window opened from a table before the enumeration found the BARs
 * (the SPCR's UART, the HPET, the FADT's PM timer): claims_early_audit,
 * after it, names each that lies inside another device's BAR and calls
 * its `drop` with why, so nothing touches it again. */
void claims_early(const char *name, uint64_t base, uint64_t size, const char *source, uint32_t mask, uint32_t cls,
		  void (*drop)(const char *why));
/* Forgets an early window (closed by its user). */
void claims_early_forget(const char *name);
/* How many early windows were dropped. */
unsigned claims_early_audit(void);

#endif
