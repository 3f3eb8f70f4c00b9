/* ACPI IVRS (AMD I/O Virtualization Technology specification, "IVRS"):
 * IVHD blocks of types 10h, 11h and 40h with every device entry form
 * (select, range, alias, extended, special, ACPI HID), and IVMD blocks.
 * Bounded like the DMAR parser: nothing is read past the table. */
#ifndef IOMMON_IVRS_H
#define IOMMON_IVRS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"

enum ivrs_entry_type {
	IVHD_PAD4 = 0x00,
	IVHD_ALL = 0x01,
	IVHD_SELECT = 0x02,
	IVHD_RANGE_START = 0x03,
	IVHD_RANGE_END = 0x04,
	IVHD_PAD8 = 0x40,
	IVHD_ALIAS_SELECT = 0x42,
	IVHD_ALIAS_RANGE = 0x43,
	IVHD_EXT_SELECT = 0x46,
	IVHD_EXT_RANGE = 0x47,
	IVHD_SPECIAL = 0x48,
	IVHD_ACPI_HID = 0xf0,
};

enum ivrs_special_variety { IVHD_SPECIAL_IOAPIC = 1, IVHD_SPECIAL_HPET = 2 };
enum ivrs_uid_format { IVHD_UID_NONE = 0, IVHD_UID_INTEGER = 1, IVHD_UID_STRING = 2 };
/* IVMD flags */
enum { IVMD_UNITY = 0x01, IVMD_IR = 0x02, IVMD_IW = 0x04, IVMD_EXCLUSION = 0x08 };

struct ivrs_entry {
	uint32_t offset;
	uint8_t type, length;
	uint16_t devid;
	uint8_t setting;
	uint16_t source;     /* alias: the requester id DMA appears with; special: its id */
	uint8_t handle;	     /* special: IOAPIC id or HPET number */
	uint8_t variety;     /* special */
	uint32_t ext;	     /* extended entries */
	char hid[9], cid[9]; /* ACPI HID entries */
	uint8_t uid_format, uid_length;
	char uid[32];
};

struct ivrs_block {
	uint32_t offset;
	uint8_t type, flags;
	uint16_t length;
	uint16_t devid; /* IVHD: the IOMMU's own requester id; IVMD: the device (select) or first (range) */
	uint16_t cap_offset;
	uint64_t base;
	uint16_t segment; /* IVHD; IVMD (offset 8) */
	uint16_t info;
	uint32_t feature;     /* 10h: IOMMU feature reporting */
	uint32_t attributes;  /* 11h/40h */
	uint64_t efr;	      /* 11h/40h: image of the EFR register */
	uint16_t aux;	      /* IVMD auxiliary data; range end for 22h */
	uint64_t start, size; /* IVMD */
	bool refused;	      /* IVMD: start+size refused (core/tables/range.h); not to be mapped */
	size_t first_entry, nentries;
};

struct ivrs {
	uint32_t ivinfo;
	struct ivrs_block *b;
	size_t n;
	struct ivrs_entry *e;
	size_t ne;
	struct diag diag;
};

static inline bool ivrs_is_ivhd(uint8_t type)
{
	return type == 0x10 || type == 0x11 || type == 0x40;
}
static inline bool ivrs_is_ivmd(uint8_t type)
{
	return type == 0x20 || type == 0x21 || type == 0x22;
}

int ivrs_parse(const uint8_t *buf, size_t len, struct ivrs *v);
void ivrs_free(struct ivrs *v);
/* Does this IVHD's device entry list name requester id `bdf`? */
bool ivrs_covers(const struct ivrs *v, const struct ivrs_block *ivhd, uint16_t bdf);
/* The IVHD to use for each IOMMU: of the blocks describing the same unit
 * (segment, id, base), the highest type; false for the others. */
bool ivrs_preferred(const struct ivrs *v, size_t i);
void ivrs_print(const struct ivrs *v);

#endif
