#include "machine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/acpi.h"
#include "../core/memmap.h"
#include "../core/results.h"
#include "../core/settings.h"
#include "../core/timing.h"
#include "../pci/dma.h"
#include "../tests/catalogue/catalogue.h"
#include "../tests/models/models.h"
#include "calgary.h"
#include "vtd.h"

struct machine machine;

static void unit_bdfs(const struct iommu_unit *u, size_t idx, const char **out, char (*store)[16])
{
	size_t k = 0;
	for (size_t i = 0; i < machine.pci.n && k < u->ndevices; i++) {
		if (machine.pci.d[i].iommu != (int)idx)
			continue;
		pci_addr_str(machine.pci.d[i].addr, store[k], sizeof(store[k]));
		out[k] = store[k];
		k++;
	}
}

static void info_records(void)
{
	char buf[RECORD_MAX];
	struct json j;
	for (size_t i = 0; i < machine.pci.n; i++) {
		const struct pci_dev *d = &machine.pci.d[i];
		char bdf[16];
		pci_addr_str(d->addr, bdf, sizeof(bdf));
		record_begin(&j, buf, sizeof(buf), "info");
		json_str(&j, "what", "pci");
		json_str(&j, "bdf", bdf);
		char hex[12];
		snprintf(hex, sizeof(hex), "0x%04x", d->vendor);
		json_str(&j, "vendor", hex);
		snprintf(hex, sizeof(hex), "0x%04x", d->device);
		json_str(&j, "device", hex);
		snprintf(hex, sizeof(hex), "0x%06x", d->class);
		json_str(&j, "class", hex);
		json_str(&j, "class_name", pci_class_name(d->class));
		json_str(&j, "iommu", d->iommu >= 0 ? machine.units.u[d->iommu].name : NULL);
		if (d->parent >= 0) {
			char p[16];
			pci_addr_str(machine.pci.d[d->parent].addr, p, sizeof(p));
			json_str(&j, "parent", p);
		}
		if (d->range_refused) {
			char range[8];
			snprintf(range, sizeof(range), "%02x-%02x", d->sec_bus, d->sub_bus);
			json_str(&j, "buses_refused", range);
			json_str(&j, "why", d->range_refused);
		}
		json_u64(&j, "bars", d->nbars);
		json_u64(&j, "caps", d->ncaps);
		record_emit(&j);
	}
	for (size_t i = 0; i < machine.units.n; i++) {
		const struct iommu_unit *u = &machine.units.u[i];
		size_t cap = 512 + 20 * u->ndevices;
		char *big = malloc(cap);
		const char **list = malloc((u->ndevices + 1) * sizeof(*list));
		char(*store)[16] = malloc((u->ndevices + 1) * sizeof(*store));
		if (!big || !list || !store) {
			free(big), free(list), free(store);
			printf("error: no memory for the record of %s\n", u->name);
			continue;
		}
		unit_bdfs(u, i, list, store);
		record_begin(&j, big, cap, "info");
		json_str(&j, "what", "iommu");
		json_str(&j, "name", u->name);
		json_str(&j, "type", iommu_type_name(u->type));
		json_u64(&j, "segment", u->segment);
		json_hex(&j, "base", u->base);
		json_bool(&j, "include_all", u->include_all);
		if (u->refused[0])
			json_str(&j, "refused", u->refused);
		struct unit_regs r;
		if (platform->hardware && !u->refused[0] && units_read_regs(u, &r)) {
			json_hex(&j, u->type == IOMMU_VTD ? "cap" : "efr", r.cap);
			if (u->type == IOMMU_VTD)
				json_hex(&j, "ecap", r.ecap);
		}
		json_strs(&j, "devices", list, u->ndevices);
		record_emit(&j);
		free(big), free(list), free(store);
	}
}

static const struct acpi_header *table(const char *sig)
{
	return acpi_find(monitor_acpi(), sig, 0);
}

/* The first instance of `sig` that parses without an error: a corrupt one
 * is reported here (and by its acpi.* check) and not used. */
static const struct acpi_header *usable(const char *sig)
{
	for (unsigned i = 0;; i++) {
		const struct acpi_header *h = acpi_find(monitor_acpi(), sig, i);
		if (!h)
			return NULL;
		unsigned errors;
		if (sig[0] == 'D') {
			struct dmar d;
			dmar_parse((const uint8_t *)h, h->length, &d);
			errors = d.diag.errors;
			dmar_free(&d);
		} else {
			struct ivrs v;
			ivrs_parse((const uint8_t *)h, h->length, &v);
			errors = v.diag.errors;
			ivrs_free(&v);
		}
		if (!errors)
			return h;
		printf("  warning: %.4s #%u at 0x%llx has %u errors: not used ('acpi %s' and 'run acpi' say what)\n",
		       sig, i, (unsigned long long)(uintptr_t)h, errors, sig[0] == 'D' ? "dmar" : "ivrs");
	}
}

static void engine_close(void)
{
	if (machine.engine)
		machine.engine->close(machine.engine);
	machine.engine = NULL;
}

static struct vtd vtd;

struct iommu *machine_iommu(struct pci_addr dev, const char **why)
{
	int i = pci_find(&machine.pci, dev);
	int u = i >= 0 ? machine.pci.d[i].iommu : -1;
	if (u < 0) {
		*why = "no IOMMU unit covers the device under test";
		return NULL;
	}
	const struct iommu_unit *unit = &machine.units.u[u];
	if (unit->type != IOMMU_VTD) {
		*why = "the unit covering the device is AMD-Vi: no backend for it yet";
		return NULL;
	}
	if (vtd.io.taken && strcmp(vtd.io.name, unit->name) == 0)
		return &vtd.io;
	if ((*why = machine_iommu_give_back()) != NULL)
		return NULL;
	const char *lv = setting_get("vtd.levels"), *by = setting_get("vtd.bystanders");
	vtd.want_levels = strcmp(lv, "auto") == 0 ? 0 : (unsigned)atoi(lv);
	vtd.want_bystanders = strcmp(by, "passthrough") == 0 ? VTD_BYSTANDERS_PT
			      : strcmp(by, "identity") == 0  ? VTD_BYSTANDERS_IDENTITY
							     : VTD_BYSTANDERS_AUTO;
	*why = vtd_open(&vtd, unit, &machine.units.dmar, &machine.pci);
	return *why ? NULL : &vtd.io;
}

const char *machine_iommu_give_back(void)
{
	if (!vtd.io.taken)
		return NULL;
	const char *e = vtd.io.ops->give_back(&vtd.io);
	printf("    %s given back: %s%s%s\n", vtd.io.name, vtd.io.restore_note, e ? "; " : "", e ? e : "");
	return e;
}

static const char *check_levels(const char *v)
{
	return strcmp(v, "auto") == 0 || strcmp(v, "3") == 0 || strcmp(v, "4") == 0
		   ? NULL
		   : "must be auto, 3 or 4 (second-level walk depth; auto: the deepest the unit offers)";
}

static const char *check_on_off(const char *v)
{
	return strcmp(v, "on") == 0 || strcmp(v, "off") == 0 ? NULL : "must be on or off";
}

static const char *check_bystanders(const char *v)
{
	return strcmp(v, "auto") == 0 || strcmp(v, "passthrough") == 0 || strcmp(v, "identity") == 0
		   ? NULL
		   : "must be auto, passthrough or identity";
}

/* Before exit: the IOMMU as found first (the devices then reach memory
 * untranslated again), then the device under test back to its driver. */
static void machine_release(void)
{
	model_detach();
	machine_iommu_give_back();
	engine_close();
	if (!vtd.found_valid)
		return;
	/* what automation checks: the unit's registers as the firmware left them */
	char note[200], buf[RECORD_MAX];
	bool same = vtd_as_found(&vtd, note, sizeof(note));
	printf("  %s at exit: %s\n", vtd.io.name, note);
	struct json j;
	record_begin(&j, buf, sizeof(buf), "info");
	json_str(&j, "what", "iommu-exit");
	json_str(&j, "name", vtd.io.name);
	json_bool(&j, "as_found", same);
	json_str(&j, "registers", note);
	record_emit(&j);
}

/* "auto": the first NVMe controller with a driver, else the first edu */
static int pick_device(const char *want, const char **why)
{
	if (strcmp(want, "auto") != 0) {
		struct pci_addr a;
		pci_parse_addr(want, &a);
		int i = pci_find(&machine.pci, a);
		if (i < 0)
			*why = "no PCI function there";
		else if (!dma_has_driver(&machine.pci.d[i]))
			*why = "no DMA engine driver for that function (edu and NVMe have one)";
		return i >= 0 && dma_has_driver(&machine.pci.d[i]) ? i : -1;
	}
	int edu = -1;
	for (size_t i = 0; i < machine.pci.n; i++) {
		if (!dma_has_driver(&machine.pci.d[i]))
			continue;
		if (machine.pci.d[i].class == 0x010802)
			return (int)i;
		if (edu < 0)
			edu = (int)i;
	}
	if (edu < 0)
		*why = "no function with a DMA engine driver (edu, NVMe) on this machine";
	return edu;
}

struct dma_engine *machine_engine(const char **why)
{
	if (machine.engine)
		return machine.engine;
	const char *want = setting_get("device");
	int i = pick_device(want, why);
	if (i < 0)
		return NULL;
	machine.engine = dma_open(&machine.cfg, &machine.pci.d[i], why);
	/* auto: a device that refuses (the boot disk) gives way to the next */
	for (size_t k = 0; !machine.engine && strcmp(want, "auto") == 0 && k < machine.pci.n; k++) {
		if (k == (size_t)i || !dma_has_driver(&machine.pci.d[k]))
			continue;
		char bdf[16];
		pci_addr_str(machine.pci.d[i].addr, bdf, sizeof(bdf));
		printf("    %s: %s; trying the next device\n", bdf, *why);
		i = (int)k;
		machine.engine = dma_open(&machine.cfg, &machine.pci.d[k], why);
	}
	return machine.engine;
}

static const char *check_device(const char *v)
{
	static char msg[160];
	struct pci_addr a;
	const char *why = strcmp(v, "auto") == 0 ? NULL : pci_parse_addr_why(v, &a);
	if (why)
		snprintf(msg, sizeof(msg), "%s; must be auto or a PCI address (0000:01:00.0)", why);
	return why ? msg : NULL;
}

static const char *apply_device(const char *v)
{
	static const char *why;
	why = NULL;
	if (pick_device(v, &why) < 0)
		return why ? why : "no such device";
	engine_close(); /* the next DMA opens the new one */
	return NULL;
}

static const char *check_samples(const char *v)
{
	unsigned long long n;
	return parse_range(v, 1, 100000, "a count", &n);
}

/* "none", or "BDF,SERIAL": the address and the serial number the engine
 * line shows, so a config moved to another server cannot write there. */
static const char *check_scratch(const char *v)
{
	if (strcmp(v, "none") == 0)
		return NULL;
	const char *comma = strchr(v, ',');
	char bdf[24];
	struct pci_addr a;
	if (!comma || comma == v || (size_t)(comma - v) >= sizeof(bdf) || !comma[1])
		return "must be none, or ADDRESS,SERIAL (the serial 'run dma' shows for the controller)";
	memcpy(bdf, v, (size_t)(comma - v));
	bdf[comma - v] = '\0';
	static char msg[160];
	const char *why = pci_parse_addr_why(bdf, &a);
	if (why)
		snprintf(msg, sizeof(msg), "the address before the comma: %s", why);
	else if (strlen(comma + 1) > 20) /* NVMe Identify Controller SN: 20 ASCII characters */
		return "the serial after the comma is longer than an NVMe serial number (20 characters)";
	return why ? msg : NULL;
}

static const char *apply_scratch(const char *v)
{
	(void)v;
	engine_close(); /* reopened with the new permission */
	return NULL;
}

void machine_settings(void)
{
	setting_add("device", "auto", "device under test for DMA: auto (first NVMe, else edu) or a PCI address",
		    check_device, apply_device);
	setting_add("dma.samples", "200", "DMAs per size and direction in dma.latency", check_samples, NULL);
	setting_add("nvme.scratch", "none",
		    "ADDRESS,SERIAL of an NVMe controller whose LBA 0 may be overwritten (DMA to it uses Write)",
		    check_scratch, apply_scratch);
	setting_add("vtd.levels", "auto", "VT-d second-level walk: auto (deepest SAGAW offers), 3 or 4", check_levels,
		    NULL);
	setting_add("vtd.bystanders", "auto",
		    "VT-d devices not under test: auto (pass-through if ECAP.PT, else identity), passthrough, identity",
		    check_bystanders, NULL);
	setting_add("calgary.fence", "off",
		    "Calgary: on an error, disable the faulting PHB's slots as Linux did (on) or leave them (off)",
		    check_on_off, NULL);
}

void machine_discover(void)
{
	machine_release();
	if (machine.discovered) {
		units_free(&machine.units);
		pci_list_free(&machine.pci);
	}
	const struct acpi_header *mcfg = table("MCFG");
	machine.have_mcfg = mcfg && mcfg_parse((const uint8_t *)mcfg, mcfg->length, &machine.mcfg) == 0;
	pci_cfg_init(&machine.cfg, machine.have_mcfg ? &machine.mcfg : NULL, platform->hardware);
	uint64_t t0 = cycles_begin();
	pci_enumerate(&machine.cfg, &machine.pci);
	uint64_t t1 = cycles_end();
	const struct acpi_header *dmar = usable("DMAR"), *ivrs = usable("IVRS");
	units_build(&machine.units, (const uint8_t *)dmar, dmar ? dmar->length : 0, (const uint8_t *)ivrs,
		    ivrs ? ivrs->length : 0, &machine.pci);
	machine.discovered = true;
	for (size_t i = 0; i < machine.units.n; i++)
		if (machine.units.u[i].refused[0])
			printf("error: %s; %s is not used\n", machine.units.u[i].refused, machine.units.u[i].name);

	size_t covered = 0;
	for (size_t i = 0; i < machine.pci.n; i++)
		covered += machine.pci.d[i].iommu >= 0;
	printf("  pci        %zu functions through %s%s in %.1f ms\n", machine.pci.n,
	       machine.cfg.n	    ? "ECAM"
	       : machine.cfg.legacy ? "CF8/CFC"
				    : "nothing",
	       machine.cfg.n && machine.cfg.legacy ? " (CF8/CFC where ECAM does not reach)" : "",
	       cycles_to_ns(t1 - t0) / 1e6);
	printf("  iommu      %zu units (%s%s%s), covering %zu of the functions\n", machine.units.n,
	       machine.units.have_dmar ? "DMAR" : "", machine.units.have_dmar && machine.units.have_ivrs ? ", " : "",
	       machine.units.have_ivrs	 ? "IVRS"
	       : machine.units.have_dmar ? ""
					 : "no DMAR or IVRS",
	       covered);
	info_records();
}

/* ---- commands ---------------------------------------------------------- */

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
	if (argc == 2 && strcmp(argv[1], "mcfg") == 0) {
		if (!machine.have_mcfg)
			printf("  no usable MCFG table\n");
		for (size_t i = 0; machine.have_mcfg && i < machine.mcfg.n; i++)
			printf("  segment %u buses %02x-%02x ECAM at 0x%llx\n", machine.mcfg.r[i].segment,
			       machine.mcfg.r[i].start_bus, machine.mcfg.r[i].end_bus,
			       (unsigned long long)machine.mcfg.r[i].base);
		return CMD_OK;
	}
	cmd_error("usage: acpi [dmar|ivrs|mcfg]");
	return CMD_ERROR;
}

/* The EBDA is RAM the BIOS keeps (its segment in the BIOS data area's word
 * at 0x40E, its size in KiB in its first byte), not a register window: it
 * is read as memory, and only where the memory map describes RAM there. */
static size_t read_rio_bbars(uint32_t *bbar, size_t max, const char **why)
{
	const char *no = memmap_read_refusal(0x40e, 2);
	if (no) {
		static char msg[200];
		snprintf(msg, sizeof(msg), "the BIOS data area cannot be read: %s", no);
		*why = msg;
		return 0;
	}
	/* the compiler must not judge a pointer into page 0: it is RAM here */
	uintptr_t bda = 0x400;
	__asm__("" : "+r"(bda));
	const volatile uint8_t *p = (const volatile uint8_t *)bda;
	uint64_t ebda = (uint64_t)(p[0x0e] | p[0x0f] << 8) << 4;
	if (ebda < 0x80000 || ebda >= 0xa0000 || memmap_read_refusal(ebda, 1)) {
		*why = "no EBDA (BDA word 0x40E is outside 0x80000-0x9FFFF, or the memory map has no RAM there)";
		return 0;
	}
	size_t len = (size_t) * (const volatile uint8_t *)(uintptr_t)ebda * 1024;
	if (!len || ebda + len > 0xa0000 || (no = memmap_read_refusal(ebda, len)) != NULL) {
		*why = "the EBDA's length runs past 640 KiB or into memory the map does not give as RAM";
		return 0;
	}
	return calgary_rio_bbars((const uint8_t *)(uintptr_t)ebda, len, bbar, max, why);
}

static enum cmd_status cmd_iommu(int argc, char **argv)
{
	(void)argv;
	if (argc != 1) {
		cmd_error("usage: iommu");
		return CMD_ERROR;
	}
	if (machine.units.n == 0)
		printf("  no VT-d or AMD-Vi unit: the firmware describes none (no DMAR or IVRS table%s)\n",
		       machine.units.have_dmar || machine.units.have_ivrs ? " with a unit in it" : "");
	/* Calgary and DART are not in ACPI: Calgary is a PCI function (IBM
	 * 1014:02a1, CalIOC2 1014:0308) whose registers the EBDA names; DART
	 * is found in a device tree, which a UEFI x86 machine does not have */
	size_t calgaries = 0;
	for (size_t i = 0; i < machine.pci.n; i++) {
		const struct pci_dev *d = &machine.pci.d[i];
		if (d->vendor != 0x1014 || (d->device != 0x02a1 && d->device != 0x0308))
			continue;
		char bdf[16];
		pci_addr_str(d->addr, bdf, sizeof(bdf));
		printf("  %s at %s\n", d->device == 0x02a1 ? "Calgary" : "CalIOC2", bdf);
		calgaries++;
	}
	if (calgaries && platform->hardware) {
		uint32_t bbar[8];
		const char *why = NULL;
		size_t n = read_rio_bbars(bbar, 8, &why);
		for (size_t k = 0; k < n; k++) {
			const char *no = memmap_mmio_refusal(bbar[k], 0x1000);
			printf("  Calgary register window (BBAR) at 0x%08x, from the EBDA's Rio Grande table%s%s\n",
			       bbar[k], no ? ": not a register window, " : "", no ? no : "");
		}
		if (!n)
			printf("  no Calgary register window found: %s\n", why ? why : "no Calgary in the Rio table");
		printf("  (iommon drives Calgary on its model only: 'model calgary' or 'model calioc2')\n");
	}
	if (!calgaries)
		printf("  no Calgary or CalIOC2: no PCI function 1014:02a1 or 1014:0308\n");
	printf("  no DART: DARTs are described by a device tree (PowerMac G5, Apple Silicon), not by ACPI\n");
	printf("  %s\n", model_describe());
	if (machine.units.n == 0)
		return CMD_OK;
	for (size_t i = 0; i < machine.units.n; i++) {
		const struct iommu_unit *u = &machine.units.u[i];
		printf("  %-7s %-5s segment %u base 0x%llx%s, %zu devices\n", u->name, iommu_type_name(u->type),
		       u->segment, (unsigned long long)u->base, u->include_all ? " (all other devices)" : "",
		       u->ndevices);
		units_describe(u);
		for (size_t k = 0; k < machine.pci.n; k++) {
			if (machine.pci.d[k].iommu != (int)i)
				continue;
			char bdf[16];
			pci_addr_str(machine.pci.d[k].addr, bdf, sizeof(bdf));
			printf("      %s %s\n", bdf, pci_class_name(machine.pci.d[k].class));
		}
	}
	return CMD_OK;
}

static enum cmd_status cmd_model(int argc, char **argv)
{
	if (argc == 1) {
		printf("  %s\n", model_describe());
		printf("  models: calgary, calioc2, dart-u3, dart-u4, apple-t8103, apple-t6000, apple-t8110 (or none)\n"
		       "  faults: none, split-queue-stuck, softstop-fault, softstop-forever (CalIOC2), flush-deaf,\n"
		       "  flush-stuck (DART), busy-stuck, locked (Apple DART), all-ones\n");
		return CMD_OK;
	}
	if (argc > 3) {
		cmd_error(
		    "usage: model [calgary|calioc2|dart-u3|dart-u4|apple-t8103|apple-t6000|apple-t8110|none [fault]]");
		return CMD_ERROR;
	}
	const char *e = model_attach(argv[1], argc == 3 ? argv[2] : "none");
	if (e) {
		cmd_error("%s", e);
		return CMD_ERROR;
	}
	printf("  %s\n", model_describe());
	return CMD_OK;
}

static const struct command commands[] = {
	{ "pci", "pci [bdf]", "PCI functions, or one function's details and capabilities", cmd_pci },
	{ "acpi", "acpi [dmar|ivrs|mcfg]", "ACPI tables and checksums, or one table decoded", cmd_acpi },
	{ "iommu", "iommu", "IOMMU units: type, registers, devices in scope", cmd_iommu },
	{ "model", "model [kind [fault]]",
	  "attach a register-level model (calgary, calioc2, dart-u3, dart-u4, apple-*) for 'run calgary|dart|apple'",
	  cmd_model },
};

const struct subsystem machine_subsystem = {
	.name = "machine",
	.settings = machine_settings,
	.commands = commands,
	.ncommands = sizeof(commands) / sizeof(commands[0]),
	.discover = machine_discover,
	.release = machine_release,
};
