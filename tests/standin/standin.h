/* What the stand-in firmware's two programs share (dmafw.c, hostile.c):
 * the first DMAR unit's registers and the ACPI tables. */
#ifndef IOMMON_STANDIN_H
#define IOMMON_STANDIN_H

#include <efi.h>
#include <stdbool.h>
#include <stdint.h>

extern uint8_t *reg; /* the unit's register window */
extern uint64_t cap, ecap;

uint32_t r32(unsigned off);
uint64_t r64(unsigned off);
void w32(unsigned off, uint32_t v);
void w64(unsigned off, uint64_t v);
/* Until (off & mask) is set (or clear): false after 1 s. */
bool wait_bits(unsigned off, uint64_t mask, bool set, bool wide);
/* One GCMD command with the persistent bits kept; false when GSTS never
 * showed it. */
bool command(uint32_t bit, uint32_t status_bit, bool set);
/* The ACPI table with this signature from the XSDT, or NULL. */
uint8_t *find_table(const char *sig);

/* The hostile campaign (hostile.c): `args` after the word "hostile". */
EFI_STATUS hostile_main(EFI_HANDLE image, EFI_LOADED_IMAGE *li, const char *args);

#endif
