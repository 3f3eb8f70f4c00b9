/* ACPI DMAR (Intel VT-d specification, chapter 8): remapping units, device
 * scopes, reserved memory, ATS, affinity, namespace devices, SoC ATC.
 *
 * The parser reads a byte buffer of known length and trusts nothing in it:
 * every length and offset is checked against the table before it is read;
 * a structure that does not fit is reported and the walk stops there. */
#ifndef IOMMON_DMAR_H
#define IOMMON_DMAR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"

enum dmar_type {
	DMAR_DRHD = 0, /* DMA remapping hardware unit */
	DMAR_RMRR = 1, /* reserved memory region */
	DMAR_ATSR = 2, /* root port ATS capability */
	DMAR_RHSA = 3, /* remapping hardware static affinity */
	DMAR_ANDD = 4, /* ACPI namespace device declaration */
	DMAR_SATC = 5, /* SoC integrated address translation cache */
};

enum dmar_scope_type {
	DMAR_SCOPE_ENDPOINT = 1,
	DMAR_SCOPE_BRIDGE = 2, /* the bridge and everything below it */
	DMAR_SCOPE_IOAPIC = 3,
	DMAR_SCOPE_HPET = 4,
	DMAR_SCOPE_NAMESPACE = 5,
};

#define DMAR_DRHD_INCLUDE_PCI_ALL 0x01
#define DMAR_ATSR_ALL_PORTS 0x01
#define DMAR_SATC_ATC_REQUIRED 0x01
#define DMAR_MAX_PATH 16

struct dmar_scope {
	uint32_t offset; /* within the table */
	uint8_t type, length, enum_id, start_bus;
	uint8_t npath;
	struct {
		uint8_t dev, fn;
	} path[DMAR_MAX_PATH];
};

struct dmar_struct {
	uint32_t offset;
	uint16_t type, length;
	uint8_t flags;	       /* DRHD, ATSR, SATC */
	uint8_t size;	       /* DRHD: register set is 2^size pages (VT-d 3.3+; 0 before) */
	uint16_t segment;      /* DRHD, RMRR, ATSR, SATC */
	uint64_t base;	       /* DRHD register base, RMRR base, RHSA base */
	uint64_t limit;	       /* RMRR end address (inclusive) */
	bool refused;	       /* RMRR: base-limit refused (core/tables/range.h); not to be mapped */
	uint32_t proximity;    /* RHSA */
	uint8_t device_number; /* ANDD */
	char name[64];	       /* ANDD object name */
	size_t first_scope, nscopes;
};

struct dmar {
	uint8_t host_addr_width; /* the field: width - 1 */
	uint8_t flags;
	struct dmar_struct *s;
	size_t n;
	struct dmar_scope *scopes;
	size_t nscopes;
	struct diag diag;
};

#define DMAR_FLAG_INTR_REMAP 0x01
#define DMAR_FLAG_X2APIC_OPT_OUT 0x02
#define DMAR_FLAG_DMA_CTRL_OPT_IN 0x04

/* Parses `len` bytes (the table's own length field must not exceed it).
 * Returns 0, or -1 when not even the header could be read; in both cases
 * d->diag says what was wrong and dmar_free() must be called. */
int dmar_parse(const uint8_t *buf, size_t len, struct dmar *d);
void dmar_free(struct dmar *d);

const char *dmar_type_name(unsigned type);
const char *dmar_scope_name(unsigned type);
/* Prints the decode for people. */
void dmar_print(const struct dmar *d);

#endif
