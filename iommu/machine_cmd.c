/* The commands that show the machine inventory: `pci` (the functions, or
 * one function's details) and `acpi` (the tables, or one decoded). */
#include <stdio.h>
#include <string.h>

#include "core/monitor/monitor.h"
#include "core/tables/acpi.h"
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

static void pci_table(void)
{
	printf("  %-12s %-9s %-6s %-28s %-8s %s\n", "bdf", "id", "class", "", "iommu", "bars");
	for (size_t i = 0; i < machine.pci.n; i++) {
		const struct pci_dev *d = &machine.pci.d[i];
		char bdf[16];
		pci_addr_str(d->addr, bdf, sizeof(bdf));
		printf("  %-12s %04x:%04x %06x %-28.28s %-8s", bdf, d->vendor, d->device, d->class,
		       pci_class_name(d->class), d->iommu >= 0 ? machine.units.u[d->iommu].name : "-");
		for (size_t k = 0; k < d->nbars; k++) {
			char b[48];
			bar_str(&d->bar[k], b, sizeof(b));
			printf(" %s", b);
		}
		printf("\n");
	}
	printf("  %zu functions\n", machine.pci.n);
}

static void pci_details(const struct pci_dev *d)
{
	char bdf[16];
	pci_addr_str(d->addr, bdf, sizeof(bdf));
	printf("  %s %04x:%04x rev %02x class %06x (%s), header type 0x%02x%s\n", bdf, d->vendor, d->device,
	       d->revision, d->class, pci_class_name(d->class), d->header_type & 0x7f,
	       d->header_type & 0x80 ? " multi-function" : "");
	uint16_t cmd = pci_read16(&machine.cfg, d->addr, PCI_COMMAND);
	uint16_t sts = pci_read16(&machine.cfg, d->addr, PCI_STATUS);
	printf("  command 0x%04x (%s%s%s) status 0x%04x\n", cmd, cmd & PCI_COMMAND_IO ? "io " : "",
	       cmd & PCI_COMMAND_MEMORY ? "mem " : "", cmd & PCI_COMMAND_MASTER ? "bus-master" : "", sts);
	if (pci_is_bridge(d))
		printf("  bridge to buses %02x-%02x\n", d->sec_bus, d->sub_bus);
	if (d->parent >= 0) {
		char p[16];
		pci_addr_str(machine.pci.d[d->parent].addr, p, sizeof(p));
		printf("  behind %s\n", p);
	}
	printf("  iommu %s\n", d->iommu >= 0 ? machine.units.u[d->iommu].name : "none covers it");
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

/* The IORT in use, and where each PCI function's requester id leads; or,
 * when none was usable, every IORT there decoded with what is wrong. */
static void acpi_iort(void)
{
	if (machine.units.have_iort) {
		const struct iort *t = &machine.units.iort;
		iort_print(t);
		printf("  requester ids through the root complexes:\n");
		for (size_t i = 0; i < machine.pci.n; i++) {
			const struct pci_dev *d = &machine.pci.d[i];
			char bdf[16];
			size_t smmu;
			uint32_t sid;
			pci_addr_str(d->addr, bdf, sizeof(bdf));
			if (iort_map_rid(t, d->addr.seg, pci_rid(d->addr), &smmu, &sid))
				printf("    %s -> SMMUv3 at 0x%03zx stream id 0x%x\n", bdf, t->smmu[smmu].node_offset,
				       sid);
			else
				printf("    %s -> no SMMUv3 (an ITS only, or not covered)\n", bdf);
		}
		for (size_t r = 0; r < t->nrmr; r++)
			for (size_t k = 0; k < t->rmr[r].nstreams; k++)
				printf("    RMR at 0x%03zx: stream id 0x%x on SMMUv3 at 0x%03zx\n",
				       t->rmr[r].node_offset, t->rmr[r].stream[k].sid,
				       t->smmu[t->rmr[r].stream[k].smmu].node_offset);
		return;
	}
	const struct acpi_header *h = acpi_find(monitor_acpi(), "IORT", 0);
	if (!h)
		printf("  no IORT table\n");
	for (unsigned i = 0; h; h = acpi_find(monitor_acpi(), "IORT", ++i)) {
		struct iort t;
		iort_parse((const uint8_t *)h, h->length, &t);
		printf("  IORT #%u (not used):\n", i);
		iort_print(&t);
		iort_free(&t);
	}
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
	if (argc == 2 && strcmp(argv[1], "dmar") == 0) {
		if (!machine.units.have_dmar) {
			printf("  no usable DMAR table ('run acpi.dmar' checks every one)\n");
			return CMD_OK;
		}
		const struct dmar *d = &machine.units.dmar;
		dmar_print(d);
		printf("  device scopes resolved through the bridges:\n");
		for (size_t i = 0; i < d->n; i++) {
			for (size_t k = 0; k < d->s[i].nscopes; k++) {
				const struct dmar_scope *sc = &d->scopes[d->s[i].first_scope + k];
				if (sc->type != DMAR_SCOPE_ENDPOINT && sc->type != DMAR_SCOPE_BRIDGE)
					continue;
				int idx = dmar_scope_device(sc, d->s[i].segment, &machine.pci);
				char bdf[16] = "not there";
				if (idx >= 0)
					pci_addr_str(machine.pci.d[idx].addr, bdf, sizeof(bdf));
				printf("    %s at 0x%03x %-8s scope at 0x%03x -> %s\n", dmar_type_name(d->s[i].type),
				       d->s[i].offset, dmar_scope_name(sc->type), sc->offset, bdf);
			}
		}
		return CMD_OK;
	}
	if (argc == 2 && strcmp(argv[1], "ivrs") == 0) {
		if (!machine.units.have_ivrs)
			printf("  no IVRS table\n");
		else
			ivrs_print(&machine.units.ivrs);
		return CMD_OK;
	}
	if (argc == 2 && strcmp(argv[1], "iort") == 0) {
		acpi_iort();
		return CMD_OK;
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

const struct command machine_commands[MACHINE_NCOMMANDS] = {
	{ "pci", "pci [bdf]", "PCI functions, or one function's details and capabilities", cmd_pci },
	{ "acpi", "acpi [dmar|ivrs|iort|gtdt|mcfg]", "ACPI tables and checksums, or one table decoded", cmd_acpi },
};
