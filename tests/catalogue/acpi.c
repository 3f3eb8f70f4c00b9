/* Groups `acpi` and `pci`: the firmware's tables checked the way a
 * firmware test suite checks them, and the enumeration they lead to. */
#include <stdio.h>
#include <string.h>

#include "catalogue.h"
#include "core/base/claims.h"
#include "core/base/macros.h"
#include "core/base/memmap.h"
#include "core/serial/uart.h"
#include "core/tables/acpi.h"
#include "core/tables/gtdt.h"
#include "core/tables/iort.h"
#include "core/tables/ivrs.h"
#include "iommu/machine.h"
#include "iommu/vtd/discover.h"

static bool need_acpi(struct test_ctx *t)
{
	if (monitor_acpi()->present)
		return true;
	/* a firmware that installs a device tree and no RSDP describes the
	 * machine that way (U-Boot on riscv64): no tables to check */
	if (platform->hardware && platform->device_tree && platform->device_tree() &&
	    (!platform->acpi_rsdp || !platform->acpi_rsdp()))
		test_skip(t, SKIP_UNSUPPORTED, "no ACPI: the firmware describes this machine by a device tree (`fdt`)");
	else if (platform->hardware)
		report(t, false, "no usable ACPI root: %s", monitor_acpi()->error);
	else
		test_skip(t, SKIP_PLATFORM, "no ACPI on this platform (%s)", platform->name);
	return false;
}

/* Configuration space is read live: a replay's folder has the tables, not
 * the devices. */
static bool need_pci(struct test_ctx *t)
{
	if (platform->replay)
		test_skip(t, SKIP_REPLAY, "replay: no live hardware");
	else if (!platform->hardware)
		test_skip(t, SKIP_PLATFORM, "no PCI on this platform (%s)", platform->name);
	return platform->hardware;
}

static void report_diag(struct test_ctx *t, const char *table, const struct diag *d)
{
	for (size_t i = 0; i < d->n; i++) {
		if (d->msg[i].level == DIAG_ERROR)
			report(t, false, "%s", d->msg[i].text);
		else
			printf("    warning: %s\n", d->msg[i].text);
	}
	if (d->errors > d->n || d->warnings > d->n)
		printf("    (%u errors and %u warnings in %s in all; the first %d are shown)\n", d->errors, d->warnings,
		       table, DIAG_MAX);
	report(t, d->errors == 0, "%s parsed: %u errors, %u warnings (unknown entries are skipped)", table, d->errors,
	       d->warnings);
}

/* `mask`/`cls`: the class code of a function whose BAR may hold it (a PCI
 * UART); mask 0: none may. */
static void window(struct test_ctx *t, const char *what, uint64_t base, uint64_t size, uint32_t mask, uint32_t cls)
{
	const char *no = memmap_mmio_refusal(base, size), *owner = claims_other_owner(base, size, mask, cls);
	if (no)
		report(t, false, "%s at 0x%llx is not a register window: %s", what, (unsigned long long)base, no);
	else if (owner)
		report(t, false, "%s at 0x%llx lies inside %s: another device's registers", what,
		       (unsigned long long)base, owner);
}

/* The device windows the small tables name, whether or not the monitor
 * opens them this run (the PM timer in system memory, HPET, SPCR's UART in
 * the span its driver opens: a 16550's registers, a PL011's 4 KiB). */
static void check_windows(struct test_ctx *t, const struct acpi *a)
{
	struct acpi_pmtimer pm;
	if (acpi_fadt_pmtimer(acpi_find(a, "FACP", 0), &pm) == 0 && pm.space == ACPI_SPACE_MEMORY)
		window(t, "FADT PM timer block", pm.address, 4, 0, 0);
	uint64_t base;
	for (unsigned i = 0; acpi_find(a, "HPET", i); i++)
		if (acpi_hpet_base(acpi_find(a, "HPET", i), &base) == 0)
			window(t, "HPET timer block", base, 0x400, 0, 0);
	struct acpi_spcr s;
	const char *why;
	for (unsigned i = 0; acpi_find(a, "SPCR", i); i++)
		if (acpi_spcr_uart(acpi_find(a, "SPCR", i), &s, &why) == 0 && s.base.space_id == ACPI_SPACE_MEMORY) {
			struct uart_place up;
			if (!uart_place_from_spcr(&s, UART_PORT_IO, &up))
				window(t, "SPCR UART", up.address, uart_place_span(&up), 0xff0000u, 0x070000u);
		}
}

static void t_tables(struct test_ctx *t)
{
	if (!need_acpi(t))
		return;
	const struct acpi *a = monitor_acpi();
	unsigned bad = 0;
	for (size_t i = 0; i < a->diag.n; i++)
		report(t, false, "%s", a->diag.msg[i].text);
	report(t, a->refused == 0 && a->dropped == 0, "every root entry read: %u refused, %u dropped", a->refused,
	       a->dropped);
	for (size_t i = 0; i < a->n; i++) {
		const struct acpi_header *h = a->tables[i].hdr;
		if (!a->tables[i].checksum_ok) {
			bad++;
			report(t, false, "%.4s at 0x%llx (%u bytes): checksum bad; the table is skipped", h->signature,
			       (unsigned long long)(uintptr_t)h, h->length);
		}
	}
	report(t, a->n > 0, "%s lists %zu tables", a->xsdt ? "XSDT" : "RSDT", a->n);
	check_windows(t, a);
	report(t, acpi_find(a, "FACP", 0) != NULL, "a FADT is there");
	test_note(t, "%zu tables via %s, %u with a bad checksum", a->n, a->xsdt ? "XSDT" : "RSDT", bad);
}

static void t_mcfg(struct test_ctx *t)
{
	if (!need_acpi(t))
		return;
	if (!acpi_find(monitor_acpi(), "MCFG", 0)) {
		test_skip(t, SKIP_UNSUPPORTED, "no MCFG: configuration space through CF8/CFC only");
		return;
	}
	report_diag(t, "MCFG", &machine.mcfg.diag);
	report(t, machine.mcfg.n > 0, "%zu ECAM regions", machine.mcfg.n);
	for (unsigned i = 0; i < machine.cfg.nrefused && i < PCI_REFUSED_MAX; i++)
		report(t, false, "%s", machine.cfg.refused[i]);
	/* every instance's regions, also those of an MCFG the monitor does not use */
	for (unsigned k = 0;; k++) {
		const struct acpi_header *h = acpi_find(monitor_acpi(), "MCFG", k);
		struct mcfg m;
		if (!h)
			break;
		if (k == 0 || mcfg_parse((const uint8_t *)h, h->length, &m) != 0)
			continue;
		for (size_t i = 0; i < m.n; i++) {
			const struct mcfg_region *r = &m.r[i];
			uint64_t base = r->base + ((uint64_t)r->start_bus << 20);
			const char *no = memmap_mmio_refusal(base, (uint64_t)(r->end_bus - r->start_bus + 1) << 20);
			if (no)
				report(t, false, "MCFG #%u region %zu (segment %u, buses %02x-%02x) at 0x%llx: %s", k,
				       i, r->segment, r->start_bus, r->end_bus, (unsigned long long)base, no);
		}
	}
	/* ECAM and the legacy mechanism must see the same segment-0 devices */
	struct pci_cfg legacy;
	pci_cfg_init(&legacy, NULL, true);
	unsigned compared = 0, differ = 0, seg0 = 0;
	/* no CF8/CFC where there are no I/O ports (aarch64): nothing to compare */
	for (size_t i = 0; legacy.legacy && i < machine.pci.n && compared < 8; i++) {
		struct pci_addr a = machine.pci.d[i].addr;
		seg0 += a.seg == 0;
		if (a.seg != 0 || !pci_has_ecam(&machine.cfg, a))
			continue;
		compared++;
		uint32_t e = pci_read32(&machine.cfg, a, 0), l = pci_read32(&legacy, a, 0);
		if (e != l) {
			differ++;
			report(t, false, "%02x:%02x.%x reads %08x through ECAM, %08x through CF8", a.bus, a.dev, a.fn,
			       e, l);
		}
	}
	/* else every region was refused, and said so above; agreement over no
	 * function is no claim at all */
	if (machine.cfg.n && legacy.legacy && compared)
		report(t, differ == 0, "ECAM and CF8/CFC agree on the first %u segment-0 functions", compared);
	else if (machine.cfg.n && legacy.legacy && !platform->hardware)
		test_skip(t, SKIP_PLATFORM, "ECAM not compared with CF8/CFC: no live PCI on this platform (%s)",
			  platform->name);
	else if (machine.cfg.n && legacy.legacy)
		test_skip(t, SKIP_INCONCLUSIVE,
			  "ECAM not compared with CF8/CFC: of %zu functions found, %u in segment 0, none behind an "
			  "ECAM region",
			  machine.pci.n, seg0);
	if (platform->replay)
		test_note(t, "%zu regions; ECAM not compared with CF8 (replay: no live hardware)", machine.mcfg.n);
	else
		test_note(t, "%zu regions; ECAM matches CF8 on %u functions", machine.mcfg.n, compared);
}

static void check_dmar(struct test_ctx *t, const struct dmar *d, unsigned *units, unsigned *unresolved)
{
	unsigned haw = d->host_addr_width + 1u;
	report(t, haw >= 32 && haw <= 64, "host address width %u bits", haw);
	for (size_t i = 0; i < d->n; i++) {
		const struct dmar_struct *s = &d->s[i];
		if (s->type == DMAR_DRHD) {
			(*units)++;
			report(t, s->base && !(s->base & 0xfff),
			       "DRHD at 0x%x: register base 0x%llx is non-zero and 4 KiB aligned", s->offset,
			       (unsigned long long)s->base);
			const char *no = memmap_mmio_refusal(s->base, 0x1000),
				   *owner = claims_owner(s->base, 0x1000, true);
			if (no)
				report(t, false, "DRHD at 0x%x: register base 0x%llx is not a register window: %s",
				       s->offset, (unsigned long long)s->base, no);
			else if (owner)
				report(t, false,
				       "DRHD at 0x%x: register base 0x%llx lies in %s: another device's registers",
				       s->offset, (unsigned long long)s->base, owner);
		}
		if (s->type == DMAR_RMRR) {
			bool ok = !(s->base & 0xfff) && !((s->limit + 1) & 0xfff) && s->base <= s->limit;
			report(t, ok, "RMRR 0x%llx-0x%llx is 4 KiB aligned and not empty", (unsigned long long)s->base,
			       (unsigned long long)s->limit);
			/* a device keeps DMAing to its RMRR behind the OS's back: RAM the
			 * OS may hand out must not be in one (Linux says the same) */
			uint64_t at;
			enum mem_type mt = ok ? memmap_os_ram_in(s->base, s->limit - s->base + 1, &at) : MEM_TYPES;
			if (mt != MEM_TYPES)
				report(t, false,
				       "firmware: RMRR 0x%llx-0x%llx is not reserved in its own memory map (%s at "
				       "0x%llx): "
				       "an OS may hand that RAM out while the device still DMAs there",
				       (unsigned long long)s->base, (unsigned long long)s->limit, mem_type_name(mt),
				       (unsigned long long)at);
			for (size_t k = 0; k < i; k++) {
				const struct dmar_struct *o = &d->s[k];
				if (o->type == DMAR_RMRR && o->base <= s->limit && s->base <= o->limit)
					report(t, false, "RMRRs 0x%llx-0x%llx and 0x%llx-0x%llx overlap",
					       (unsigned long long)o->base, (unsigned long long)o->limit,
					       (unsigned long long)s->base, (unsigned long long)s->limit);
			}
		}
		for (size_t k = 0; k < s->nscopes; k++) {
			const struct dmar_scope *sc = &d->scopes[s->first_scope + k];
			if (sc->type != DMAR_SCOPE_ENDPOINT && sc->type != DMAR_SCOPE_BRIDGE)
				continue;
			if (dmar_scope_device(sc, s->segment, &machine.pci) >= 0)
				continue;
			if (platform->replay && machine.pci.n == 0) { /* a folder without pci.txt cannot tell */
				(*unresolved)++;
				continue;
			}
			(*unresolved)++;
			if (s->type != DMAR_DRHD) {
				/* RMRRs and ATSRs of devices the firmware switched off
				 * (an iGPU, an EHCI) are common on sound machines */
				printf("    note: %s at 0x%x names %02x:%02x.%x, which is not there\n",
				       dmar_type_name(s->type), s->offset, sc->start_bus,
				       sc->npath ? sc->path[0].dev : 0, sc->npath ? sc->path[0].fn : 0);
				continue;
			}
			report(t, false, "%s at 0x%x: %s scope bus %02x path %02x.%x%s names no device that is there",
			       dmar_type_name(s->type), s->offset, dmar_scope_name(sc->type), sc->start_bus,
			       sc->npath ? sc->path[0].dev : 0, sc->npath ? sc->path[0].fn : 0,
			       sc->npath > 1 ? "..." : "");
		}
	}
}

/* Every DMAR instance is checked; the monitor uses the first sound one. */
static void t_dmar(struct test_ctx *t)
{
	if (!need_acpi(t))
		return;
	unsigned tables = 0, units = 0, unresolved = 0, warnings = 0;
	for (unsigned i = 0;; i++) {
		const struct acpi_header *h = acpi_find(monitor_acpi(), "DMAR", i);
		if (!h)
			break;
		tables++;
		struct dmar d;
		dmar_parse((const uint8_t *)h, h->length, &d);
		char name[32];
		snprintf(name, sizeof(name), "DMAR #%u (OEM \"%.8s\")", i, h->oem_table_id);
		report_diag(t, name, &d.diag);
		warnings += d.diag.warnings;
		check_dmar(t, &d, &units, &unresolved);
		dmar_free(&d);
	}
	if (!tables) {
		test_skip(t, SKIP_NO_UNIT, "no DMAR table (no VT-d described)");
		return;
	}
	report(t, units > 0, "%u remapping units", units);
	if (platform->replay && machine.pci.n == 0 && unresolved)
		printf("    note: %u scopes not checked: the replay folder lists no PCI functions\n", unresolved);
	test_note(t, "%u tables, %u units, %u unresolved scopes, %u warnings", tables, units, unresolved, warnings);
}

/* The IOMMU's own capability in its function's configuration space: ID 0Fh,
 * "secure device" (AMD IOMMU spec, IOMMU capability header). */
#define PCI_CAP_ID_SECURE 0x0f

/* What one IVRS check counted, over every instance. */
struct ivrs_count {
	unsigned units, absent, absent_shown;
};

static struct pci_addr ivrs_addr(uint16_t segment, uint16_t id)
{
	return (struct pci_addr){ segment, (uint8_t)(id >> 8), (id >> 3) & 31, id & 7 };
}

/* Linux needs the IOMMU's own function: it reads the capability header at
 * the IVHD's offset and fails the unit when the function is not there. */
static void check_ivhd_function(struct test_ctx *t, const struct ivrs_block *b)
{
	int i = pci_find(&machine.pci, ivrs_addr(b->segment, b->devid));
	if (i < 0) {
		report(t, false, "IVHD %02xh at 0x%x: the IOMMU's function %04x:%02x:%02x.%x is not there", b->type,
		       b->offset, b->segment, b->devid >> 8, (b->devid >> 3) & 31, b->devid & 7);
		return;
	}
	const struct pci_cap *c = pci_find_cap(&machine.pci.d[i], PCI_CAP_ID_SECURE, false);
	report(t, c && c->offset == b->cap_offset,
	       "IVHD %02xh at 0x%x: the IOMMU's function %02x:%02x.%x has its capability at 0x%x (found at 0x%x)",
	       b->type, b->offset, b->devid >> 8, (b->devid >> 3) & 31, b->devid & 7, b->cap_offset, c ? c->offset : 0);
}

/* Select entries (02h, 42h, 46h) name one function each: one that is not
 * there is worth a line (a device the firmware switched off, or a wrong
 * id), not a failure, as Linux sets the entry up and says nothing. Ranges
 * name buses and slots that may be empty: not checked. */
static void check_ivhd_selects(const struct ivrs *v, const struct ivrs_block *b, struct ivrs_count *c)
{
	for (size_t k = 0; k < b->nentries; k++) {
		const struct ivrs_entry *e = &v->e[b->first_entry + k];
		if (e->type != IVHD_SELECT && e->type != IVHD_ALIAS_SELECT && e->type != IVHD_EXT_SELECT)
			continue;
		if (pci_find(&machine.pci, ivrs_addr(b->segment, e->devid)) >= 0)
			continue;
		if (c->absent++ < 8)
			printf("    note: IVHD %02xh at 0x%x: select entry at 0x%x names %02x:%02x.%x, which is not "
			       "there\n",
			       b->type, b->offset, e->offset, e->devid >> 8, (e->devid >> 3) & 31, e->devid & 7);
	}
}

/* The functions were enumerated: live, or in the replay folder's pci.txt. */
static bool have_enumeration(void)
{
	return platform->hardware || (platform->replay && machine.pci.n);
}

static void check_ivrs(struct test_ctx *t, const struct ivrs *v, struct ivrs_count *c)
{
	for (size_t i = 0; i < v->n; i++) {
		const struct ivrs_block *b = &v->b[i];
		if (ivrs_is_ivmd(b->type)) {
			report(t, !(b->start & 0xfff) && !(b->size & 0xfff) && b->size,
			       "IVMD at 0x%x: 0x%llx +0x%llx is 4 KiB aligned and not empty", b->offset,
			       (unsigned long long)b->start, (unsigned long long)b->size);
			if (have_enumeration() && b->type == 0x21 &&
			    pci_find(&machine.pci, ivrs_addr(b->segment, b->devid)) < 0)
				printf("    note: IVMD at 0x%x names %02x:%02x.%x, which is not there\n", b->offset,
				       b->devid >> 8, (b->devid >> 3) & 31, b->devid & 7);
			continue;
		}
		if (!ivrs_preferred(v, i))
			continue;
		c->units++;
		report(t, b->base && !(b->base & 0x3fff),
		       "IVHD %02xh at 0x%x: base 0x%llx is non-zero and 16 KiB aligned", b->type, b->offset,
		       (unsigned long long)b->base);
		/* the registers up to the performance counters (AMD IOMMU spec, MMIO map) */
		const char *no = memmap_mmio_refusal(b->base, 0x4000), *owner = claims_owner(b->base, 0x4000, true);
		if (no)
			report(t, false, "IVHD %02xh at 0x%x: base 0x%llx is not a register window: %s", b->type,
			       b->offset, (unsigned long long)b->base, no);
		else if (owner)
			report(t, false, "IVHD %02xh at 0x%x: base 0x%llx lies in %s: another device's registers",
			       b->type, b->offset, (unsigned long long)b->base, owner);
		if (have_enumeration()) {
			check_ivhd_function(t, b);
			check_ivhd_selects(v, b, c);
		}
	}
}

/* The IVRS special entry naming IOAPIC `id`, in a block the monitor uses. */
static const struct ivrs_entry *ivrs_ioapic(const struct ivrs *v, unsigned id, uint16_t *segment)
{
	for (size_t i = 0; i < v->n; i++) {
		const struct ivrs_block *b = &v->b[i];
		if (!ivrs_is_ivhd(b->type) || !ivrs_preferred(v, i))
			continue;
		for (size_t k = 0; k < b->nentries; k++) {
			const struct ivrs_entry *e = &v->e[b->first_entry + k];
			if (e->type == IVHD_SPECIAL && e->variety == IVHD_SPECIAL_IOAPIC && e->handle == id) {
				*segment = b->segment;
				return e;
			}
		}
	}
	return NULL;
}

/* Linux (check_ioapic_information) wants every IOAPIC of the MADT named by
 * a special entry, and turns interrupt remapping off when one is not: a
 * firmware bug. It also wants the IOAPIC with GSI base 0 (the
 * southbridge's, where the timer is) named as an SMBus or ISA bridge
 * function; QEMU names 00:14.0, which q35 does not have, so that one is a
 * note: the monitor remaps no interrupts. MADT (ACPI 6.5 5.2.12): entries
 * from byte 44, type 1 an IOAPIC (id at 2, GSI base at 8). */
static void check_ivrs_ioapics(struct test_ctx *t, const struct ivrs *v)
{
	const struct acpi_header *h = acpi_find(monitor_acpi(), "APIC", 0);
	if (!h)
		return;
	const uint8_t *m = (const uint8_t *)h;
	for (uint32_t off = 44; off + 2 <= h->length && m[off + 1] >= 2 && m[off + 1] <= h->length - off;
	     off += m[off + 1]) {
		if (m[off] != 1 || m[off + 1] < 12)
			continue;
		unsigned id = m[off + 2];
		uint32_t gsi_base;
		memcpy(&gsi_base, m + off + 8, 4);
		uint16_t seg = 0;
		const struct ivrs_entry *e = ivrs_ioapic(v, id, &seg);
		report(t, e != NULL, "MADT IOAPIC %u (GSI base %u) is named by an IVRS special entry", id, gsi_base);
		if (!e || gsi_base != 0)
			continue;
		int i = pci_find(&machine.pci, ivrs_addr(seg, e->source));
		uint32_t class = i < 0 ? 0 : machine.pci.d[i].class >> 8;
		if (class != 0x0c05 && class != 0x0601)
			printf("    note: IVRS names the southbridge IOAPIC %u as %02x:%02x.%x, %s (Linux then does "
			       "not remap interrupts)\n",
			       id, e->source >> 8, (e->source >> 3) & 31, e->source & 7,
			       i < 0 ? "which is not there" : "not an SMBus or ISA bridge");
	}
}

/* Every IVRS instance is checked; the monitor uses the first sound one. */
static void t_ivrs(struct test_ctx *t)
{
	if (!need_acpi(t))
		return;
	unsigned tables = 0, warnings = 0;
	struct ivrs_count c = { 0 };
	for (unsigned i = 0;; i++) {
		const struct acpi_header *h = acpi_find(monitor_acpi(), "IVRS", i);
		if (!h)
			break;
		tables++;
		struct ivrs v;
		ivrs_parse((const uint8_t *)h, h->length, &v);
		char name[32];
		snprintf(name, sizeof(name), "IVRS #%u (OEM \"%.8s\")", i, h->oem_table_id);
		report_diag(t, name, &v.diag);
		warnings += v.diag.warnings;
		check_ivrs(t, &v, &c);
		if (have_enumeration())
			check_ivrs_ioapics(t, &v);
		ivrs_free(&v);
	}
	if (!tables) {
		test_skip(t, SKIP_NO_UNIT, "no IVRS table (no AMD-Vi described)");
		return;
	}
	if (c.absent > 8)
		printf("    note: %u select entries name functions that are not there (8 shown)\n", c.absent);
	report(t, c.units > 0, "%u IOMMU units", c.units);
	test_note(t, "%u tables, %u units, %u absent selects, %u warnings", tables, c.units, c.absent, warnings);
}

static void t_enumerate(struct test_ctx *t)
{
	if (!need_pci(t))
		return;
	report(t, machine.pci.n > 0, "%zu functions found", machine.pci.n);
	report(t, pci_find(&machine.pci, (struct pci_addr){ 0, 0, 0, 0 }) >= 0, "a function at 0000:00:00.0");
	report(t, machine.pci.cap_loops == 0, "no capability list loops (%u)", machine.pci.cap_loops);
	unsigned bad = 0, bridges = 0;
	for (size_t i = 0; i < machine.pci.n; i++) {
		const struct pci_dev *d = &machine.pci.d[i];
		if (!pci_is_bridge(d))
			continue;
		bridges++;
		if (d->range_refused) {
			bad++;
			report(t, false, "bridge %04x:%02x:%02x.%x: buses %02x-%02x refused: %s", d->addr.seg,
			       d->addr.bus, d->addr.dev, d->addr.fn, d->sec_bus, d->sub_bus, d->range_refused);
		}
	}
	size_t covered = 0;
	for (size_t i = 0; i < machine.pci.n; i++)
		covered += machine.pci.d[i].iommu >= 0;
	if (machine.pci.ghosts)
		printf("    note: %u functions answering below a one-child PCIe port were device 0 again: dropped\n",
		       machine.pci.ghosts);
	test_note(t, "%zu functions, %u bridges (%u with a bus range refused), %zu covered by an IOMMU unit",
		  machine.pci.n, bridges, bad, covered);
}

/* Sizing wrote all ones to every BAR: each must hold its address again. */
static void t_bars(struct test_ctx *t)
{
	if (!need_pci(t))
		return;
	unsigned checked = 0, wrong = 0;
	for (size_t i = 0; i < machine.pci.n; i++) {
		const struct pci_dev *d = &machine.pci.d[i];
		for (size_t k = 0; k < d->nbars; k++) {
			const struct pci_bar *b = &d->bar[k];
			uint16_t reg = (uint16_t)(PCI_BAR0 + 4 * b->index);
			uint64_t now = pci_read32(&machine.cfg, d->addr, reg) & (b->io ? ~3u : ~0xfu);
			if (b->mem64)
				now |= (uint64_t)pci_read32(&machine.cfg, d->addr, reg + 4) << 32;
			checked++;
			if (now != b->base) {
				wrong++;
				report(t, false, "%02x:%02x.%x BAR%u holds 0x%llx, was 0x%llx", d->addr.bus,
				       d->addr.dev, d->addr.fn, b->index, (unsigned long long)now,
				       (unsigned long long)b->base);
			}
		}
	}
	if (!checked) { /* a virt machine with no PCI device: the host bridge alone */
		test_skip(t, SKIP_UNSUPPORTED, "no function has a BAR: none was sized (%zu function%s)", machine.pci.n,
			  machine.pci.n == 1 ? "" : "s");
		return;
	}
	report(t, wrong == 0, "all %u sized BARs hold their addresses again", checked);
	test_note(t, "%u BARs sized and restored", checked);
}

/* IORT (Arm DEN 0049): every node, mapping and chain checked by the parser;
 * then what a server's IORT must give the monitor: each SMMUv3's register
 * pages 0 and 1 are a device's, not RAM, and where each PCI function's
 * requester id leads (an SMMUv3 and a stream id, or an ITS only). */
static void t_iort(struct test_ctx *t)
{
	if (!need_acpi(t))
		return;
	unsigned tables = 0, smmus = 0, rmrs = 0, warnings = 0, covered = 0, its_only = 0;
	for (unsigned i = 0;; i++) {
		const struct acpi_header *h = acpi_find(monitor_acpi(), "IORT", i);
		if (!h)
			break;
		tables++;
		struct iort v;
		iort_parse((const uint8_t *)h, h->length, &v);
		char name[32];
		snprintf(name, sizeof(name), "IORT #%u (OEM \"%.8s\")", i, h->oem_table_id);
		report_diag(t, name, &v.diag);
		warnings += v.diag.warnings;
		for (size_t k = 0; k < v.nsmmu; k++) {
			char what[48];
			snprintf(what, sizeof(what), "IORT SMMUv3 #%zu", k);
			window(t, what, v.smmu[k].base, 0x20000, 0, 0);
		}
		smmus += (unsigned)v.nsmmu;
		rmrs += (unsigned)v.nrmr;
		for (size_t k = 0; k < machine.pci.n; k++) {
			const struct pci_dev *d = &machine.pci.d[k];
			size_t smmu;
			uint32_t sid;
			uint16_t rid = pci_rid(d->addr);
			if (iort_map_rid(&v, d->addr.seg, rid, &smmu, &sid))
				covered++;
			else if (iort_root_complex(&v, d->addr.seg) >= 0)
				its_only++;
		}
		iort_free(&v);
	}
	if (!tables) {
		test_skip(t, SKIP_NO_UNIT, "no IORT table (no Arm SMMU or ITS described)");
		return;
	}
	test_note(
	    t,
	    "%u tables, %u SMMUv3, %u RMR, %u functions behind an SMMUv3, %u not (ITS only or unmapped), %u warnings",
	    tables, smmus, rmrs, covered, its_only, warnings);
}

/* GTDT: the generic timer's interrupts (per-CPU timers must be PPIs), the
 * memory-mapped counter and the platform timers, checked by the parser. */
static void t_gtdt(struct test_ctx *t)
{
	if (!need_acpi(t))
		return;
	const struct acpi_header *h = acpi_find(monitor_acpi(), "GTDT", 0);
	if (!h) {
#if defined(__aarch64__)
		test_skip(t, SKIP_UNSUPPORTED, "no GTDT table (no Arm generic timer described)");
#else
		test_skip(t, SKIP_PLATFORM, "no GTDT table (no Arm generic timer described)");
#endif
		return;
	}
	struct gtdt g;
	gtdt_parse((const uint8_t *)h, h->length, &g);
	report_diag(t, "GTDT", &g.diag);
	test_note(t, "revision %u, %zu platform timers, %u warnings", g.revision, g.nplatform, g.diag.warnings);
}

static const struct test_doc docs[] = {
	{ t_tables,
	  "the RSDP, the XSDT (or RSDT) and every table they list: signatures, lengths within their mapping and "
	  "checksums that hold",
	  "a bad checksum or a length past the table's memory: the firmware's tables are corrupt, and what the "
	  "OS reads from them is not what the firmware meant" },
	{ t_mcfg,
	  "each MCFG region's ECAM window agrees with legacy CF8/CFC configuration reads of the same functions, "
	  "and lies where the memory map leaves room",
	  "a function that reads differently through ECAM and CF8/CFC, or a window over RAM: the firmware "
	  "describes its configuration space wrongly" },
	{ t_dmar,
	  "the DMAR's remapping units, device scopes, RMRRs and flags decoded with bounded reads: every scope "
	  "resolves to a function or bridge that exists, every RMRR lies in reserved memory, INCLUDE_PCI_ALL "
	  "units last in their segment; promises such as DMA_CTRL_PLATFORM_OPT_IN reported",
	  "a malformed structure, a scope naming nothing, an RMRR over usable RAM: the OS's IOMMU driver would "
	  "build wrong domains from this table" },
	{ t_ivrs,
	  "the IVRS's IVHD blocks, device entries (ranges, aliases, special entries for the I/O APIC and HPET) "
	  "and IVMDs decoded with bounded reads and checked against the functions that exist",
	  "an entry of unknown type or length, a range that does not close, an alias to nothing: the AMD-Vi "
	  "driver would miss devices or map them to the wrong id" },
	{ t_iort,
	  "the IORT's nodes and ID mappings decoded; every PCI function's requester id followed through the "
	  "root complex's mappings to an SMMUv3 or the ITS, and each SMMU's register window within its node",
	  "a mapping that leads nowhere or loops, an SMMU window that overlaps another device: the Arm OS's "
	  "IOMMU setup would not find the SMMU in front of a device" },
	{ t_gtdt, "the GTDT's timer interrupts, counter frames and platform timers decoded with bounded reads",
	  "a malformed GTDT: the Arm generic timer the monitor's counter relies on is described wrongly" },
	{ t_enumerate,
	  "every bus behind every host bridge scanned through ECAM: bridges' secondary and subordinate buses "
	  "consistent, no function found twice, every capability list finite and within its space",
	  "a bus that overlaps another, a capability list that loops or leaves the 256 or 4096 bytes: firmware "
	  "left PCI configured in a way an OS would trip over" },
	{ t_bars,
	  "every BAR sized the standard way (all ones written, read back) is restored to its value, with "
	  "decoding off meanwhile, so no device lost its window",
	  "a BAR that reads differently after sizing: a device (the console, the boot disk) would stop "
	  "answering at its address" },
	{ NULL },
};

static const struct test_case acpi_cases[] = {
	{ "acpi.tables", "root table and every table's checksum", t_tables, true },
	{ "acpi.mcfg", "MCFG regions, ECAM agrees with CF8/CFC", t_mcfg, true },
	{ "acpi.dmar", "DMAR units, scopes, RMRRs, INCLUDE_PCI_ALL", t_dmar, true },
	{ "acpi.ivrs", "IVRS blocks, device entries, IVMDs", t_ivrs, true },
	{ "acpi.iort", "IORT nodes, ID mappings, SMMUv3 windows, where each function's RID leads", t_iort, true },
	{ "acpi.gtdt", "GTDT timer interrupts, counter frames, platform timers", t_gtdt, true },
};

const struct test_group acpi_group = {
	.name = "acpi",
	.summary = "firmware tables checked",
	.cases = acpi_cases,
	.n = ARRAY_SIZE(acpi_cases),
	.docs = (const struct test_doc *const[]){ docs, NULL },
};

static const struct test_case pci_cases[] = {
	{ "pci.enumerate", "every bus scanned, bridges consistent, capability lists sane", t_enumerate, true },
	{ "pci.bars", "BAR sizing gave every BAR back", t_bars, true },
};

const struct test_group pci_group = {
	.name = "pci",
	.summary = "PCI enumeration",
	.cases = pci_cases,
	.n = ARRAY_SIZE(pci_cases),
	.docs = (const struct test_doc *const[]){ docs, NULL },
};
