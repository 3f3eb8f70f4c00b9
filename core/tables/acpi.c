#include "acpi.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "bytes.h"
#include "core/base/macros.h"
#include "core/base/memmap.h"

struct rsdp {
	char signature[8];
	uint8_t checksum;
	char oem_id[6];
	uint8_t revision;
	uint32_t rsdt_address;
	/* ACPI 2.0+ */
	uint32_t length;
	uint64_t xsdt_address;
	uint8_t extended_checksum;
	uint8_t reserved[3];
} __attribute__((packed));

bool acpi_checksum_ok(const void *p, size_t len)
{
	uint8_t sum = 0;
	for (size_t i = 0; i < len; i++)
		sum = (uint8_t)(sum + ((const uint8_t *)p)[i]);
	return sum == 0;
}

static void header_fault(const char *sig, acpi_header_report *report, void *ctx, enum acpi_header_fault fault,
			 const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static void header_fault(const char *sig, acpi_header_report *report, void *ctx, enum acpi_header_fault fault,
			 const char *fmt, ...)
{
	char text[100];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (report)
		report(ctx, fault, text);
	else
		diag_add(ctx, DIAG_ERROR, "%.4s: %s", sig, text);
}

uint32_t acpi_table_header(const uint8_t *buf, size_t len, const char sig[4], uint32_t fixed,
			   acpi_header_report *report, void *ctx)
{
	if (!buf || len < fixed) {
		header_fault(sig, report, ctx, ACPI_HEADER_SHORT, "%zu bytes, shorter than its %u-byte fixed part", len,
			     fixed);
		return 0;
	}
	if (memcmp(buf, sig, 4) != 0)
		header_fault(sig, report, ctx, ACPI_HEADER_SIGNATURE, "signature is \"%.4s\"", (const char *)buf);
	uint32_t tlen = get32(buf + 4);
	if (tlen > len || tlen < fixed) {
		uint32_t all = len > UINT32_MAX ? UINT32_MAX : (uint32_t)len;
		header_fault(sig, report, ctx, ACPI_HEADER_LENGTH,
			     "length field says %u bytes, %zu are there; reading %u", tlen, len, all);
		return all;
	}
	if (!acpi_checksum_ok(buf, tlen))
		header_fault(sig, report, ctx, ACPI_HEADER_CHECKSUM, "checksum: the %u bytes do not sum to 0", tlen);
	return tlen;
}

/* A table is believed only where the memory map says it can be read
 * (memmap_read_refusal): its header first, then its whole length. NULL
 * with *why when not. */
static const struct acpi_header *header_at(uint64_t phys, const char **why)
{
	if ((*why = memmap_read_refusal(phys, sizeof(struct acpi_header))) != NULL)
		return NULL;
	const struct acpi_header *h = (const struct acpi_header *)(uintptr_t)phys;
	if (h->length < sizeof(*h) || h->length > ACPI_TABLE_MAX) {
		static char msg[64];
		snprintf(msg, sizeof(msg), "its length %u is not a table's", h->length);
		*why = msg;
		return NULL;
	}
	if ((*why = memmap_read_refusal(phys, h->length)) != NULL)
		return NULL;
	return h;
}

static void add_table(struct acpi *a, const char *root, size_t idx, uint64_t phys)
{
	const char *why;
	const struct acpi_header *h = header_at(phys, &why);
	if (!h) {
		a->refused++;
		diag_add(&a->diag, DIAG_ERROR, "%s entry %zu (0x%llx) refused: %s", root, idx, (unsigned long long)phys,
			 why);
		return;
	}
	if (a->n == ACPI_MAX_TABLES) {
		a->dropped++;
		diag_add(&a->diag, DIAG_ERROR, "%s entry %zu (%.4s at 0x%llx) dropped: more than %d tables", root, idx,
			 h->signature, (unsigned long long)phys, ACPI_MAX_TABLES);
		return;
	}
	a->tables[a->n].hdr = h;
	a->tables[a->n].checksum_ok = acpi_checksum_ok(h, h->length);
	a->n++;
}

/* Root table entries: 8 bytes (XSDT) or 4 (RSDT), read unaligned. The
 * count follows from the root's length, which header_at checked. */
static bool walk_root(struct acpi *a, const struct acpi_header *root, size_t entry_size)
{
	if (!root || !acpi_checksum_ok(root, root->length))
		return false;
	const uint8_t *e = (const uint8_t *)root + sizeof(*root);
	size_t count = (root->length - sizeof(*root)) / entry_size;
	for (size_t i = 0; i < count; i++) {
		uint64_t phys = 0;
		memcpy(&phys, e + i * entry_size, entry_size);
		add_table(a, entry_size == 8 ? "XSDT" : "RSDT", i, phys);
	}
	return true;
}

void acpi_init(struct acpi *a, const void *rsdp_ptr)
{
	memset(a, 0, sizeof(*a));
	const struct rsdp *r = rsdp_ptr;
	if (!r) {
		strcpy(a->error, "no RSDP in the EFI configuration table");
		return;
	}
	const char *why = memmap_read_refusal((uintptr_t)r, 20);
	if (why) {
		snprintf(a->error, sizeof(a->error), "RSDP at 0x%llx refused: %s", (unsigned long long)(uintptr_t)r,
			 why);
		return;
	}
	if (memcmp(r->signature, "RSD PTR ", 8) != 0 || !acpi_checksum_ok(r, 20)) {
		snprintf(a->error, sizeof(a->error), "the RSDP at 0x%llx %s", (unsigned long long)(uintptr_t)r,
			 memcmp(r->signature, "RSD PTR ", 8) != 0 ? "has no \"RSD PTR \" signature"
								  : "fails its checksum");
		return;
	}
	a->rsdp_revision = r->revision;
	memcpy(a->oem_id, r->oem_id, 6);
	/* the ACPI 2.0 part (length, XSDT) only where the map has it too */
	bool ext_ok = r->revision >= 2 && !memmap_read_refusal((uintptr_t)r, sizeof(*r)) && r->length >= sizeof(*r) &&
		      r->length <= 4096 && !memmap_read_refusal((uintptr_t)r, r->length) &&
		      acpi_checksum_ok(r, r->length);
	if (r->revision >= 2 && !ext_ok)
		diag_add(&a->diag, DIAG_ERROR,
			 "the RSDP's ACPI 2.0 part (revision %u, length %u) is not sound (length or extended "
			 "checksum): its XSDT is not used",
			 r->revision, memmap_read_refusal((uintptr_t)r, sizeof(*r)) ? 0 : r->length);
	if (ext_ok && r->xsdt_address) {
		const struct acpi_header *x = header_at(r->xsdt_address, &why);
		if (!x)
			diag_add(&a->diag, DIAG_ERROR, "the RSDP's XSDT address 0x%llx is refused: %s",
				 (unsigned long long)r->xsdt_address, why);
		if (x && memcmp(x->signature, "XSDT", 4) == 0 && walk_root(a, x, 8)) {
			a->xsdt = true;
			a->root = x;
			a->present = true;
			return;
		}
		if (x)
			diag_add(&a->diag, DIAG_ERROR, "the XSDT at 0x%llx is not used: %s; the RSDT is used",
				 (unsigned long long)r->xsdt_address,
				 memcmp(x->signature, "XSDT", 4) != 0 ? "its signature is not XSDT"
								      : "its checksum is wrong");
	}
	const struct acpi_header *rsdt = r->rsdt_address ? header_at(r->rsdt_address, &why) : NULL;
	if (r->rsdt_address && !rsdt)
		diag_add(&a->diag, DIAG_ERROR, "the RSDP's RSDT address 0x%llx is refused: %s",
			 (unsigned long long)r->rsdt_address, why);
	if (rsdt && memcmp(rsdt->signature, "RSDT", 4) == 0 && walk_root(a, rsdt, 4)) {
		a->root = rsdt;
		a->present = true;
		return;
	}
	strcpy(a->error, "neither XSDT nor RSDT is usable (address, length or checksum)");
}

const struct acpi_header *acpi_find(const struct acpi *a, const char sig[4], unsigned idx)
{
	for (size_t i = 0; i < a->n; i++) {
		const struct acpi_table_ref *t = &a->tables[i];
		if (t->checksum_ok && memcmp(t->hdr->signature, sig, 4) == 0 && idx-- == 0)
			return t->hdr;
	}
	return NULL;
}

/* Copy `n` bytes at `off` if the table is long enough to hold them. */
static bool field(const struct acpi_header *h, size_t off, void *out, size_t n)
{
	if (off > h->length || n > h->length - off)
		return false;
	memcpy(out, (const uint8_t *)h + off, n);
	return true;
}

/* FADT offsets: ACPI 6.5 table 5.9 */
#define FADT_PM_TMR_BLK 76
#define FADT_PM_TMR_LEN 91
#define FADT_FLAGS 112
#define FADT_ARM_BOOT_ARCH 129
#define FADT_X_PM_TMR_BLK 208
#define FADT_TMR_VAL_EXT (1u << 8)
#define FADT_HW_REDUCED_ACPI (1u << 20)

int acpi_fadt_pmtimer(const struct acpi_header *fadt, struct acpi_pmtimer *out)
{
	uint32_t port = 0, flags = 0;
	uint8_t len = 0;
	if (!fadt || !field(fadt, FADT_PM_TMR_BLK, &port, 4) || !field(fadt, FADT_PM_TMR_LEN, &len, 1))
		return -1;
	if (field(fadt, FADT_FLAGS, &flags, 4) && (flags & FADT_HW_REDUCED_ACPI))
		return -1;
	out->bits32 = (flags & FADT_TMR_VAL_EXT) != 0;

	struct acpi_gas x;
	if (field(fadt, FADT_X_PM_TMR_BLK, &x, sizeof(x)) && x.address &&
	    (x.space_id == ACPI_SPACE_IO || x.space_id == ACPI_SPACE_MEMORY)) {
		out->space = x.space_id;
		out->address = x.address;
		return 0;
	}
	if (port == 0 || len < 4)
		return -1;
	out->space = ACPI_SPACE_IO;
	out->address = port;
	return 0;
}

int acpi_fadt_arm_boot(const struct acpi_header *fadt, uint16_t *flags)
{
	return fadt && field(fadt, FADT_ARM_BOOT_ARCH, flags, 2) ? 0 : -1;
}

int acpi_hpet_base(const struct acpi_header *hpet, uint64_t *base)
{
	struct acpi_gas g;
	if (!hpet || !field(hpet, 40, &g, sizeof(g)) || g.space_id != ACPI_SPACE_MEMORY || g.address == 0 ||
	    (g.address & 0x3ff))
		return -1;
	*base = g.address;
	return 0;
}

/* RHCT offsets: after the header, Flags (4), Time Base Frequency (8),
 * Number of Nodes (4), Offset to the node array (4); each node starts
 * with its type, length and revision (2 bytes each). The CMO node (type
 * 1) then holds a reserved byte and the log2 of the CBOM, CBOP and CBOZ
 * block sizes. */
#define RHCT_TIMEBASE 40
#define RHCT_NODES 48
#define RHCT_NODE_OFFSET 52
#define RHCT_NODE_CMO 1
#define RHCT_CMO_CBOM 7

int acpi_rhct(const struct acpi_header *rhct, uint64_t *timebase_hz, unsigned *cbom_block)
{
	uint64_t hz;
	uint32_t count, off;
	*cbom_block = 0;
	if (!rhct || !field(rhct, RHCT_TIMEBASE, &hz, sizeof(hz)))
		return -1;
	*timebase_hz = hz;
	if (!field(rhct, RHCT_NODES, &count, sizeof(count)) || !field(rhct, RHCT_NODE_OFFSET, &off, sizeof(off)))
		return 0;
	/* each node at least its 6-byte head long, and inside the table: a
	 * bad length ends the walk instead of looping or reading past it */
	for (uint32_t i = 0; i < count && off < rhct->length; i++) {
		uint16_t head[2];
		if (!field(rhct, off, head, sizeof(head)) || head[1] < 6 || head[1] > rhct->length - off)
			break;
		uint8_t log2;
		if (head[0] == RHCT_NODE_CMO && field(rhct, off + RHCT_CMO_CBOM, &log2, 1)) {
			if (log2 >= 4 && log2 <= 12) /* 16 bytes to a page: anything else is not believed */
				*cbom_block = 1u << log2;
			break;
		}
		off += head[1];
	}
	return 0;
}

/* SPCR: Microsoft "Serial Port Console Redirection Table" rev 2+ (rev 3
 * adds the UART clock frequency, rev 4 the precise baud rate). */
#define SPCR_INTERFACE_TYPE 36
#define SPCR_BASE_ADDRESS 40
#define SPCR_BAUD_RATE 58
#define SPCR_UART_CLOCK 76   /* rev 3+ */
#define SPCR_PRECISE_BAUD 80 /* rev 4+ */

/* The DBG2 serial port subtypes SPCR's interface type takes. */
static const char *const spcr_types[] = {
	[0x00] = "16550",
	[0x01] = "16450 (16550 subset)",
	[0x02] = "MAX311xE SPI UART",
	[0x03] = "ARM PL011",
	[0x04] = "Qualcomm MSM8x60",
	[0x05] = "NVIDIA 16550",
	[0x06] = "TI OMAP",
	[0x08] = "APM88xxxx",
	[0x09] = "Qualcomm MSM8974",
	[0x0a] = "Samsung 5250",
	[0x0b] = "Intel USIF",
	[0x0c] = "NXP i.MX6",
	[0x0d] = "ARM SBSA generic UART (2.x, 32-bit access only)",
	[0x0e] = "ARM SBSA generic UART",
	[0x0f] = "ARM DCC",
	[0x10] = "BCM2835",
	[0x11] = "Qualcomm SDM845 at 1.8432 MHz",
	[0x12] = "16550-compatible with parameters from the GAS",
	[0x13] = "Qualcomm SDM845 at 7.372 MHz",
	[0x14] = "Intel LPSS",
	[0x15] = "RISC-V SBI console",
};

const char *acpi_spcr_type_name(uint8_t type)
{
	return type < ARRAY_SIZE(spcr_types) ? spcr_types[type] : NULL;
}

int acpi_spcr_uart(const struct acpi_header *spcr, struct acpi_spcr *out, const char **why)
{
	static const uint32_t bauds[8] = { 0, 0, 0, 9600, 19200, 0, 57600, 115200 };
	static char msg[120];
	uint8_t type, baud_code;
	memset(out, 0, sizeof(*out));
	if (!spcr || !field(spcr, SPCR_INTERFACE_TYPE, &type, 1) ||
	    !field(spcr, SPCR_BASE_ADDRESS, &out->base, sizeof(out->base)) ||
	    !field(spcr, SPCR_BAUD_RATE, &baud_code, 1)) {
		*why = "SPCR is too short";
		return -1;
	}
	out->revision = spcr->revision;
	out->interface_type = type;
	switch (type) {
	case SPCR_16550:
	case SPCR_16450:
	case SPCR_PL011:
	case SPCR_SBSA_32BIT:
	case SPCR_SBSA_GENERIC:
	case SPCR_16550_WITH_GAS:
		break;
	default: {
		const char *name = acpi_spcr_type_name(type);
		snprintf(msg, sizeof(msg), "SPCR names interface type 0x%02x (%s), not a 16550 or a PL011", type,
			 name ? name : "not in the SPCR spec");
		*why = msg;
		return -1;
	}
	}
	if (out->base.address == 0 ||
	    (out->base.space_id != ACPI_SPACE_IO && out->base.space_id != ACPI_SPACE_MEMORY)) {
		*why = "SPCR base address is zero or in an unknown address space";
		return -1;
	}
	out->baud = baud_code < 8 ? bauds[baud_code] : 0;
	uint32_t v;
	if (out->revision >= 3 && field(spcr, SPCR_UART_CLOCK, &v, 4))
		out->clock_hz = v;
	if (out->revision >= 4 && field(spcr, SPCR_PRECISE_BAUD, &v, 4) && v)
		out->baud = v;
	return 0;
}
