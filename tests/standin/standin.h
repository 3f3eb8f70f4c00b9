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

/* (text.c) `a` appended to the text s[0..k) of at most STANDIN_TEXT
 * bytes, or `v` in hex: the new length. */
#define STANDIN_TEXT 200
unsigned say(char *s, unsigned k, const char *a);
unsigned say_hex(char *s, unsigned k, uint64_t v);
/* A decimal or 0x number at *p (spaces skipped before it), *p moved past. */
uint64_t number(const char **p);
/* The ACPI table's checksum set over the length its header claims, at
 * most `len` + 64 bytes. */
void checksum(uint8_t *t, uint32_t len);
/* The fw_cfg file `name` (QEMU's docs/specs/fw_cfg.rst) in pool memory,
 * its size in *size; NULL when there is none. */
void *fwcfg_file(const char *name, UINTN *size);

/* The hostile campaign (hostile.c): `args` after the word "hostile". */
EFI_STATUS hostile_main(EFI_HANDLE image, EFI_LOADED_IMAGE *li, const char *args);

#endif
