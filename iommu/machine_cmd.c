/* The commands that show the machine inventory: `pci` (the functions, or
 * one function's details) and `acpi` (the tables, or one decoded). */
#include <stdio.h>
#include <string.h>

#include "backend.h"
#include "core/base/platform.h"
#include "core/monitor/monitor.h"
#include "core/tables/acpi.h"
#include "core/tables/fdt.h"
#include "core/tables/gtdt.h"
#include "machine.h"

static void bar_str(const struct pci_bar *b, char *out, size_t n)
{
	uint64_t s = b->size;
	const char *unit = "";
	if (s >= (1ull << 30) && !(s & ((1ull << 30) - 1)))
		s >>= 30, unit = "G";
	else if (s >= (1u << 20) && !(s & ((1u << 20) - 1)))
		s >>= 20, unit = "M";
	else if (s >= 1024 && !(s & 1023))
		s >>= 10, unit = "K";
	snprintf(out, n, "%u:%s%s0x%llx/%llu%s", b->index,
		 b->io	    ? "io "
		 : b->mem64 ? "m64 "
			    : "m32 ",
		 b->prefetch ? "pf " : "", (unsigned long long)b->base, (unsigned long long)s, unit);
}

/* Does the function still answer? The list is what the boot found; on a
 * live machine each is asked again (a replay has no configuration space
 * to ask: what it saved stands). */
static bool answers(const struct pci_dev *d)
{
	return !platform->hardware || platform->replay || pci_answers(&machine.cfg, d->addr);
}

#define GONE_WORDS "no longer answers (its configuration space reads all ones: removed)"

static void pci_table(void)
{
	printf("  %-12s %-9s %-6s %-28s %-8s %s\n", "bdf", "id", "class", "", "iommu", "bars");
	size_t gone = 0;
	for (size_t i = 0; i < machine.pci.n; i++) {
		const struct pci_dev *d = &machine.pci.d[i];
		char bdf[16];
		pci_addr_str(d->addr, bdf, sizeof(bdf));
		printf("  %-12s %04x:%04x %06x %-28.28s %-8s", bdf, d->vendor, d->device, d->class,
		       pci_class_name(d->class), d->iommu >= 0 ? machine.units.u[d->iommu].name : "-");
		if (!answers(d)) {
			gone++;
			printf(" %s\n", GONE_WORDS);
			continue;
		}
		for (size_t k = 0; k < d->nbars; k++) {
			char b[48];
			bar_str(&d->bar[k], b, sizeof(b));
			printf(" %s", b);
		}
		printf("\n");
	}
	printf("  %zu functions", machine.pci.n);
	if (gone)
		printf(" (%zu no longer answer%s: removed since the boot found them)", gone, gone == 1 ? "s" : "");
	printf("\n");
}

static void pci_details(const struct pci_dev *d)
{
	char bdf[16];
	pci_addr_str(d->addr, bdf, sizeof(bdf));
	printf("  %s %04x:%04x rev %02x class %06x (%s), header type 0x%02x%s\n", bdf, d->vendor, d->device,
	       d->revision, d->class, pci_class_name(d->class), d->header_type & 0x7f,
	       d->header_type & 0x80 ? " multi-function" : "");
	if (!answers(d)) {
		printf("  %s; what follows is what the boot found\n", GONE_WORDS);
	} else {
		uint16_t cmd = pci_read16(&machine.cfg, d->addr, PCI_COMMAND);
		uint16_t sts = pci_read16(&machine.cfg, d->addr, PCI_STATUS);
		printf("  command 0x%04x (%s%s%s) status 0x%04x\n", cmd, cmd & PCI_COMMAND_IO ? "io " : "",
		       cmd & PCI_COMMAND_MEMORY ? "mem " : "", cmd & PCI_COMMAND_MASTER ? "bus-master" : "", sts);
	}
	if (pci_is_bridge(d))
		printf("  bridge to buses %02x-%02x\n", d->sec_bus, d->sub_bus);
	if (d->parent >= 0) {
		char p[16];
		pci_addr_str(machine.pci.d[d->parent].addr, p, sizeof(p));
		printf("  behind %s\n", p);
	}
	const char *missing = units_why_missing(&machine.units, d);
	printf("  iommu %s%s%s\n", d->iommu >= 0 ? machine.units.u[d->iommu].name : "none covers it",
	       missing ? ": " : "", missing ? missing : "");
	struct pci_aliases al;
	units_dma_aliases(&machine.units, &machine.pci, (size_t)(d - machine.pci.d), &al);
	char ids[PCI_ALIAS_MAX * 96];
	pci_aliases_str(&machine.pci, &al, ids, sizeof(ids));
	printf("  dma aliases %s%s\n", al.n > 1 ? ids : "none (its DMA carries its own requester id only)",
	       al.cut ? " (and more: the list is cut)" : "");
	for (size_t k = 0; k < d->nbars; k++) {
		char b[48];
		bar_str(&d->bar[k], b, sizeof(b));
		printf("  bar %s\n", b);
	}
	for (size_t k = 0; k < d->ncaps; k++) {
		const struct pci_cap *c = &d->cap[k];
		printf("  cap %s 0x%03x %-14s (id 0x%02x%s)\n", c->ext ? "ext" : "   ", c->offset,
		       pci_cap_name(c->id, c->ext), c->id, c->ext ? "" : "");
	}
	if (!pci_has_ecam(&machine.cfg, d->addr))
		printf("  (no ECAM for this function: extended capabilities not read)\n");
}

static enum cmd_status cmd_pci(int argc, char **argv)
{
	if (argc == 1) {
		pci_table();
		return CMD_OK;
	}
	struct pci_addr a;
	const char *why = argc == 2 ? pci_parse_addr_why(argv[1], &a) : NULL;
	if (argc != 2 || why) {
		cmd_error("%s%susage: pci [SSSS:BB:DD.F | BB:DD.F]", why ? why : "", why ? "; " : "");
		return CMD_ERROR;
	}
	int i = pci_find(&machine.pci, a);
	if (i < 0) {
		cmd_error("no PCI function at %s", argv[1]);
		return CMD_ERROR;
	}
	pci_details(&machine.pci.d[i]);
	return CMD_OK;
}

static void acpi_list(void)
{
	const struct acpi *a = monitor_acpi();
	if (!a->present) {
		printf("  no ACPI tables: %s\n", a->error);
		return;
	}
	printf("  %s, RSDP revision %u, OEM \"%s\"\n", a->xsdt ? "XSDT" : "RSDT", a->rsdp_revision, a->oem_id);
	for (size_t i = 0; i < a->n; i++) {
		const struct acpi_header *h = a->tables[i].hdr;
		printf("  %.4s at 0x%09llx length %6u rev %u OEM \"%.6s\" \"%.8s\" checksum %s\n", h->signature,
		       (unsigned long long)(uintptr_t)h, h->length, h->revision, h->oem_id, h->oem_table_id,
		       a->tables[i].checksum_ok ? "ok" : "BAD (table skipped)");
	}
	for (size_t i = 0; i < a->diag.n; i++)
		printf("  %s\n", a->diag.msg[i].text);
}

/* "dmar" names the DMAR */
static bool table_named(const char *sig, const char *name)
{
	for (unsigned k = 0; k < 4; k++)
		if (!name[k] || (char)(sig[k] | 0x20) != name[k])
			return false;
	return name[4] == '\0';
}

static void acpi_gtdt(void)
{
	const struct acpi_header *h = acpi_find(monitor_acpi(), "GTDT", 0);
	if (!h) {
		printf("  no GTDT table\n");
		return;
	}
	struct gtdt g;
	gtdt_parse((const uint8_t *)h, h->length, &g);
	gtdt_print(&g);
}

static enum cmd_status cmd_acpi(int argc, char **argv)
{
	if (argc == 1) {
		acpi_list();
		return CMD_OK;
	}
	/* a backend's table, decoded by its backend */
	const struct iommu_backend *b;
	for (size_t i = 0; argc == 2 && (b = iommu_backend_at(i)) != NULL; i++) {
		const struct iommu_discovery *d = b->discovery;
		if (d && d->table && d->acpi_show && table_named(d->table, argv[1])) {
			d->acpi_show(units_state(&machine.units, b), &machine.pci);
			return CMD_OK;
		}
	}
	if (argc == 2 && strcmp(argv[1], "gtdt") == 0) {
		acpi_gtdt();
		return CMD_OK;
	}
	if (argc == 2 && strcmp(argv[1], "mcfg") == 0) {
		if (!machine.have_mcfg)
			printf("  no usable MCFG table\n");
		for (size_t i = 0; machine.have_mcfg && i < machine.mcfg.n; i++)
			printf("  segment %u buses %02x-%02x ECAM at 0x%llx\n", machine.mcfg.r[i].segment,
			       machine.mcfg.r[i].start_bus, machine.mcfg.r[i].end_bus,
			       (unsigned long long)machine.mcfg.r[i].base);
		return CMD_OK;
	}
	cmd_error("usage: acpi [dmar|ivrs|iort|gtdt|mcfg]");
	return CMD_ERROR;
}

/* The device tree the firmware installed, bounded before it is read: its
 * header first, its stated size then (at most 4 MiB). */
static enum cmd_status cmd_fdt(int argc, char **argv)
{
	(void)argv;
	if (argc != 1) {
		cmd_error("usage: fdt");
		return CMD_ERROR;
	}
	if (!platform->device_tree) {
		printf("  no device tree on this platform (no firmware)\n");
		return CMD_OK;
	}
	const uint8_t *b = platform->device_tree();
	if (!b) {
		printf("  no device tree: the firmware installed none (it describes the machine by ACPI)\n");
		return CMD_OK;
	}
	size_t total = (size_t)b[4] << 24 | (size_t)b[5] << 16 | (size_t)b[6] << 8 | b[7];
	if (total > (4u << 20)) {
		printf("  the device tree at %p claims %zu bytes: more than 4 MiB, not read\n", (const void *)b, total);
		return CMD_OK;
	}
	struct fdt f;
	struct fdt_platform p;
	if (fdt_parse(b, total, &f) == 0)
		fdt_platform_read(&f, &p);
	else
		memset(&p, 0, sizeof(p));
	fdt_platform_print(&f, &p);
	fdt_free(&f);
	return CMD_OK;
}

const struct command machine_commands[MACHINE_NCOMMANDS] = {
	{ "pci", "pci [bdf]", "PCI functions, or one function's details and capabilities", cmd_pci,
	  "    Every function found through ECAM: its id, class, the unit covering it; with a BDF its\n"
	  "    BARs, capabilities and the requester ids its DMA can carry (bridges alias it).\n"
	  "  examples:\n"
	  "    pci\n"
	  "    pci 0000:00:03.0\n" },
	{ "acpi", "acpi [dmar|ivrs|iort|gtdt|mcfg]", "ACPI tables and checksums, or one table decoded", cmd_acpi,
	  "    Without a name: every table with its length and whether its checksum holds. With one: that\n"
	  "    table decoded, device scopes resolved to BDFs.\n"
	  "  examples:\n"
	  "    acpi\n"
	  "    acpi dmar\n"
	  "    acpi iort\n" },
	{ "fdt", "fdt", "the device tree the firmware installed, and what the monitor reads from it", cmd_fdt,
	  "    The flattened device tree (UEFI's EFI_DTB_TABLE_GUID) checked and decoded: memory, the\n"
	  "    timebase, the console UART, the ECAM PCIe host with its iommu-map, RISC-V IOMMUs, and any\n"
	  "    problem found in the blob. Firmware that describes the machine by ACPI installs none.\n"
	  "  examples:\n"
	  "    fdt\n" },
};
