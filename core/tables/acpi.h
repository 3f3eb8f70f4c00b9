/* ACPI: finding tables and the few fields the boot path needs (FADT PM
 * timer, HPET, SPCR). Every table is checksummed and every read is checked
 * against the table's own length before it happens. */
#ifndef IOMMON_ACPI_H
#define IOMMON_ACPI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"

struct acpi_header {
	char signature[4];
	uint32_t length;
	uint8_t revision;
	uint8_t checksum;
	char oem_id[6];
	char oem_table_id[8];
	uint32_t oem_revision;
	char creator_id[4];
	uint32_t creator_revision;
} __attribute__((packed));

/* Generic Address Structure (ACPI 6.5 §5.2.3.2) */
struct acpi_gas {
	uint8_t space_id; /* 0 system memory, 1 system I/O */
	uint8_t bit_width;
	uint8_t bit_offset;
	uint8_t access_size; /* 1 byte, 2 word, 3 dword, 4 qword */
	uint64_t address;
} __attribute__((packed));

#define ACPI_SPACE_MEMORY 0
#define ACPI_SPACE_IO 1

/* Largest table we believe: anything longer is a corrupt length field. */
#define ACPI_TABLE_MAX (16u << 20)

struct acpi_table_ref {
	const struct acpi_header *hdr;
	bool checksum_ok;
};

/* Servers list 100 and more (one SSDT per CPU package and device); more
 * than this are dropped, each by name, in `diag`. */
#define ACPI_MAX_TABLES 512

struct acpi {
	bool present;
	uint8_t rsdp_revision;
	bool xsdt;			/* false: RSDT fallback */
	char oem_id[7];			/* the RSDP's */
	const struct acpi_header *root; /* the XSDT or RSDT walked, or NULL */
	size_t n;
	struct acpi_table_ref tables[ACPI_MAX_TABLES];
	char error[160]; /* why the root could not be used, or "" */
	/* root entries refused (memory map, length) or dropped (too many),
	 * each named by root, index and address in `diag` */
	unsigned refused, dropped;
	struct diag diag;
};

bool acpi_checksum_ok(const void *p, size_t len);

/* What acpi_table_header finds wrong with a table's header. */
enum acpi_header_fault {
	ACPI_HEADER_SHORT,     /* fewer bytes than the fixed part: nothing is read */
	ACPI_HEADER_SIGNATURE, /* not the table asked for: read as it anyway */
	ACPI_HEADER_LENGTH,    /* the length field disagrees with the bytes there: they are all read */
	ACPI_HEADER_CHECKSUM,  /* reported, and the parse goes on (as ACPICA's table load does) */
};
typedef void acpi_header_report(void *ctx, enum acpi_header_fault fault, const char *text);

/* The header check every table parser makes before its body: `len` bytes
 * at `buf` holding the `fixed`-byte fixed part of table `sig` (header and
 * the fields after it), its length field and its checksum. Each fault goes
 * to report(ctx, ...), or with report NULL to the struct diag at ctx as an
 * error "SIG: text". Returns the bytes to walk: the length field when it is
 * sound, else all there are; 0 when the table is shorter than its fixed part. */
uint32_t acpi_table_header(const uint8_t *buf, size_t len, const char sig[4], uint32_t fixed,
			   acpi_header_report *report, void *ctx);
/* Reads the RSDP and its XSDT (RSDT when there is no usable XSDT). Every
 * pointer is checked against the firmware's memory map through the platform
 * seam (memmap_read_refusal) before it is read: the RSDP, the root, and
 * each entry's header and then its whole length. */
void acpi_init(struct acpi *a, const void *rsdp);
/* The idx-th table with this signature whose checksum is good, or NULL. */
const struct acpi_header *acpi_find(const struct acpi *a, const char sig[4], unsigned idx);

struct acpi_pmtimer {
	uint8_t space; /* ACPI_SPACE_IO or ACPI_SPACE_MEMORY */
	uint64_t address;
	bool bits32; /* FADT TMR_VAL_EXT: 32-bit counter, else 24-bit */
};
/* 0, or -1 when the FADT has no PM timer (hardware-reduced, zero block). */
int acpi_fadt_pmtimer(const struct acpi_header *fadt, struct acpi_pmtimer *out);

/* FADT ARM_BOOT_ARCH (ACPI 6.5 §5.2.9.4, table 5.12): PSCI_COMPLIANT says
 * the firmware implements PSCI, PSCI_USE_HVC that its conduit is HVC rather
 * than SMC. Only with PSCI_COMPLIANT may an SMC Calling Convention call be
 * made at all. */
#define ACPI_ARM_PSCI_COMPLIANT (1u << 0)
#define ACPI_ARM_PSCI_USE_HVC (1u << 1)
/* 0 with the flags, or -1 when there is no FADT or it is too short to hold
 * them (before ACPI 5.1). */
int acpi_fadt_arm_boot(const struct acpi_header *fadt, uint16_t *flags);

/* What the RHCT (RISC-V Hart Capabilities Table, ACPI 6.6 §5.2.37) says
 * of the harts: the time CSR's frequency (Time Base Frequency, the
 * device tree's timebase-frequency) and the Zicbom cache-block size in
 * bytes of its first CMO node (0: none, or a size not a power of two in
 * range). 0, or -1 when the table is absent or too short for the
 * frequency; a malformed node list only leaves cbom_block 0. */
int acpi_rhct(const struct acpi_header *rhct, uint64_t *timebase_hz, unsigned *cbom_block);

/* HPET base address (ACPI HPET table, IA-PC HPET spec 1.0a §3.2.4). */
int acpi_hpet_base(const struct acpi_header *hpet, uint64_t *base);

/* SPCR interface types (Microsoft SPCR spec, "Interface Type"; the DBG2
 * serial port subtypes) that iommon drives. */
#define SPCR_16550 0x00		 /* full 16550 */
#define SPCR_16450 0x01		 /* 16550 subset (16450) */
#define SPCR_PL011 0x03		 /* ARM PL011 */
#define SPCR_SBSA_32BIT 0x0d	 /* ARM SBSA generic UART (SBSA 2.x), 32-bit access only */
#define SPCR_SBSA_GENERIC 0x0e	 /* ARM SBSA generic UART (a PL011 subset) */
#define SPCR_16550_WITH_GAS 0x12 /* 16550-compatible, access width from the GAS */

struct acpi_spcr {
	uint8_t revision;
	uint8_t interface_type;
	struct acpi_gas base;
	uint32_t baud;	   /* 0: leave as firmware set it; the precise rate (rev 4) over the code */
	uint32_t clock_hz; /* UART clock frequency (rev 3+), 0 when not given */
};
/* 0 when SPCR describes a UART of a type above at a non-zero address in
 * system memory or system I/O; else -1 with *why (the type named). */
int acpi_spcr_uart(const struct acpi_header *spcr, struct acpi_spcr *out, const char **why);
/* The interface type in words, or NULL for one the SPCR spec does not list. */
const char *acpi_spcr_type_name(uint8_t type);

#endif
