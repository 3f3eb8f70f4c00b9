#include "madt.h"

#include <stdlib.h>
#include <string.h>

#include "acpi.h"
#include "bytes.h"

#define MADT_FIXED_LEN 44 /* the header, Local Interrupt Controller Address, Flags */
#define IOAPIC_LEN 12
#define ISO_LEN 10

static void read_ioapic(struct madt *m, const uint8_t *p, uint32_t off)
{
	if (m->nioapics == MADT_MAX_IOAPICS) {
		diag_add(&m->diag, DIAG_WARNING, "MADT: I/O APIC at 0x%x dropped: more than %d", off, MADT_MAX_IOAPICS);
		return;
	}
	struct madt_ioapic a = { .offset = off, .id = p[2], .address = get32(p + 4), .gsi_base = get32(p + 8) };
	if (a.address == 0)
		diag_add(&m->diag, DIAG_ERROR, "MADT: I/O APIC %u at 0x%x has address 0", a.id, off);
	for (size_t i = 0; i < m->nioapics; i++)
		if (m->ioapic[i].id == a.id)
			diag_add(&m->diag, DIAG_ERROR, "MADT: I/O APIC id %u twice (0x%x and 0x%x)", a.id,
				 m->ioapic[i].offset, off);
	m->ioapic[m->nioapics++] = a;
}

static void read_iso(struct madt *m, const uint8_t *p, uint32_t off)
{
	if (m->nisos == MADT_MAX_ISOS) {
		diag_add(&m->diag, DIAG_WARNING, "MADT: override at 0x%x dropped: more than %d", off, MADT_MAX_ISOS);
		return;
	}
	struct madt_iso o = { .bus = p[2], .source = p[3], .gsi = get32(p + 4), .flags = get16(p + 8) };
	if (o.bus != 0) /* 5.2.12.5: 0, ISA */
		diag_add(&m->diag, DIAG_WARNING, "MADT: override at 0x%x names bus %u, not ISA (0)", off, o.bus);
	m->iso[m->nisos++] = o;
}

#define GICC_MIN_LEN 76 /* ACPI 5.1; 6.0 adds 4 bytes, 6.3 two more */
#define GICD_LEN 24
#define GICR_LEN 16
#define ITS_LEN 20
#define MPIDR_AFF_MASK 0xff00ffffffull

static void read_gicc(struct madt *m, const uint8_t *p, uint8_t len, uint32_t off)
{
	m->gic.gicc_seen++;
	if (len < GICC_MIN_LEN) {
		diag_add(&m->diag, DIAG_ERROR, "MADT: GICC at 0x%x: length %u, below %u", off, len, GICC_MIN_LEN);
		return;
	}
	if (m->gic.ngicc == MADT_MAX_GICC) {
		if (m->gic.gicc_seen == MADT_MAX_GICC + 1)
			diag_add(&m->diag, DIAG_WARNING, "MADT: GICCs past %d not kept (from 0x%x)", MADT_MAX_GICC,
				 off);
		return;
	}
	if (!m->gic.gicc && !(m->gic.gicc = calloc(MADT_MAX_GICC, sizeof(*m->gic.gicc)))) {
		diag_add(&m->diag, DIAG_ERROR, "MADT: no memory for the GICC list");
		return;
	}
	struct madt_gicc c = { .uid = get32(p + 8),
			       .flags = get32(p + 12),
			       .gicc_base = get64(p + 32),
			       .gicr_base = get64(p + 60),
			       .mpidr = get64(p + 68) & MPIDR_AFF_MASK };
	for (size_t i = 0; i < m->gic.ngicc; i++)
		if (m->gic.gicc[i].mpidr == c.mpidr && (c.flags & 1) && (m->gic.gicc[i].flags & 1))
			diag_add(&m->diag, DIAG_ERROR, "MADT: GICC at 0x%x: MPIDR 0x%llx twice", off,
				 (unsigned long long)c.mpidr);
	m->gic.gicc[m->gic.ngicc++] = c;
}

static void read_gicd(struct madt *m, const uint8_t *p, uint32_t off)
{
	if (m->gic.has_gicd) { /* 5.2.12.15: one per system */
		diag_add(&m->diag, DIAG_ERROR, "MADT: a second GICD at 0x%x (one per system): ignored", off);
		return;
	}
	m->gic.has_gicd = true;
	m->gic.gicd_base = get64(p + 8);
	m->gic.version = p[20];
	if (m->gic.version > 4)
		diag_add(&m->diag, DIAG_WARNING, "MADT: GICD at 0x%x: GIC version %u, not known to iommon", off,
			 m->gic.version);
	if (!m->gic.gicd_base)
		diag_add(&m->diag, DIAG_ERROR, "MADT: GICD at 0x%x has base address 0", off);
}

static void read_gicr(struct madt *m, const uint8_t *p, uint32_t off)
{
	if (m->gic.ngicr == MADT_MAX_GICR) {
		diag_add(&m->diag, DIAG_WARNING, "MADT: GICR range at 0x%x dropped: more than %d", off, MADT_MAX_GICR);
		return;
	}
	uint64_t base = get64(p + 4);
	uint32_t length = get32(p + 12);
	if (!base || !length || base + length < base) {
		diag_add(&m->diag, DIAG_ERROR, "MADT: GICR range at 0x%x: base 0x%llx length 0x%x", off,
			 (unsigned long long)base, length);
		return;
	}
	m->gic.gicr[m->gic.ngicr].base = base;
	m->gic.gicr[m->gic.ngicr++].length = length;
}

static void read_its(struct madt *m, const uint8_t *p, uint32_t off)
{
	if (m->gic.nits == MADT_MAX_ITS) {
		diag_add(&m->diag, DIAG_WARNING, "MADT: ITS at 0x%x dropped: more than %d", off, MADT_MAX_ITS);
		return;
	}
	m->gic.its[m->gic.nits].id = get32(p + 4);
	m->gic.its[m->gic.nits++].base = get64(p + 8);
}

void madt_free(struct madt *m)
{
	free(m->gic.gicc);
	m->gic.gicc = NULL;
	m->gic.ngicc = 0;
}

const struct madt_gicc *madt_gicc_of(const struct madt *m, uint64_t mpidr)
{
	for (size_t i = 0; i < m->gic.ngicc; i++)
		if (m->gic.gicc[i].mpidr == (mpidr & MPIDR_AFF_MASK))
			return &m->gic.gicc[i];
	return NULL;
}

/* the table is called MADT, its signature is "APIC" */
static void madt_header_fault(void *diag, enum acpi_header_fault fault, const char *text)
{
	(void)fault;
	diag_add(diag, DIAG_ERROR, "MADT: %s", text);
}

int madt_parse(const uint8_t *buf, size_t len, struct madt *m)
{
	memset(m, 0, sizeof(*m));
	uint32_t tlen = acpi_table_header(buf, len, "APIC", MADT_FIXED_LEN, madt_header_fault, &m->diag);
	if (!tlen)
		return -1;
	m->lapic_address = get32(buf + 36);
	m->flags = get32(buf + 40);
	for (uint32_t off = MADT_FIXED_LEN; off < tlen;) {
		const uint8_t *p = buf + off;
		uint8_t type = p[0], elen = off + 1 < tlen ? p[1] : 0;
		if (elen < 2 || elen > tlen - off) {
			diag_add(&m->diag, DIAG_ERROR, "MADT: structure at 0x%x: length %u in the %u bytes left", off,
				 elen, tlen - off);
			break; /* the rest cannot be walked */
		}
		unsigned want = type == MADT_IOAPIC ? IOAPIC_LEN
				: type == MADT_ISO  ? ISO_LEN
				: type == MADT_GICD ? GICD_LEN
				: type == MADT_GICR ? GICR_LEN
				: type == MADT_ITS  ? ITS_LEN
						    : 0;
		static const char *const what[16] = { [MADT_IOAPIC] = "I/O APIC",
						      [MADT_ISO] = "override",
						      [MADT_GICD] = "GICD",
						      [MADT_GICR] = "GICR range",
						      [MADT_ITS] = "ITS" };
		if (want && elen != want)
			diag_add(&m->diag, DIAG_ERROR, "MADT: %s at 0x%x: length %u, not %u", what[type], off, elen,
				 want);
		else if (type == MADT_IOAPIC)
			read_ioapic(m, p, off);
		else if (type == MADT_ISO)
			read_iso(m, p, off);
		else if (type == MADT_GICC)
			read_gicc(m, p, elen, off);
		else if (type == MADT_GICD)
			read_gicd(m, p, off);
		else if (type == MADT_GICR)
			read_gicr(m, p, off);
		else if (type == MADT_ITS)
			read_its(m, p, off);
		off += elen;
	}
	return 0;
}

unsigned madt_check_ranges(struct madt *m, const unsigned *pins)
{
	unsigned n = 0;
	for (size_t i = 0; i < m->nioapics; i++)
		for (size_t j = i + 1; j < m->nioapics; j++) {
			const struct madt_ioapic *a = &m->ioapic[i], *b = &m->ioapic[j];
			uint64_t a_end = (uint64_t)a->gsi_base + pins[i], b_end = (uint64_t)b->gsi_base + pins[j];
			if (a->gsi_base < b_end && b->gsi_base < a_end) {
				diag_add(&m->diag, DIAG_ERROR,
					 "MADT: I/O APICs %u (GSI %u-%llu) and %u (GSI %u-%llu) overlap", a->id,
					 a->gsi_base, (unsigned long long)a_end - 1, b->id, b->gsi_base,
					 (unsigned long long)b_end - 1);
				n++;
			}
		}
	return n;
}

int madt_ioapic_of(const struct madt *m, const unsigned *pins, uint32_t gsi)
{
	for (size_t i = 0; i < m->nioapics; i++)
		if (gsi >= m->ioapic[i].gsi_base && gsi - m->ioapic[i].gsi_base < pins[i])
			return (int)i;
	return -1;
}
