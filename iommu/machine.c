#include "machine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "core/base/claims.h"
#include "core/base/timing.h"
#include "core/base/wrap.h"
#include "core/monitor/early.h"
#include "core/monitor/replay.h"
#include "core/monitor/results.h"
#include "core/monitor/verdict.h"
#include "core/tables/acpi.h"
#include "core/tables/fdt.h"
#include "found_regs.h"
#include "pci/dut.h"
#include "pci/saved.h"

struct machine machine;

/* CF8/CFC configuration access is x86 port I/O; an Arm server reaches
 * configuration space through ECAM only (MCFG, the same table on both). */
#if defined(__x86_64__) || defined(__i386__)
#define CF8_CFC true
#else
#define CF8_CFC false
#endif

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
		const char *missing = units_why_missing(&machine.units, d);
		if (missing) /* the firmware's description sends it to a unit that is not there */
			json_str(&j, "iommu_missing", missing);
		/* what the covering unit knows it as (an SMMUv3's stream id) */
		const struct iommu_unit *by = d->iommu >= 0 ? &machine.units.u[d->iommu] : NULL;
		if (by && by->backend->discovery && by->backend->discovery->device_info)
			by->backend->discovery->device_info(&j, by, units_state(&machine.units, by->backend), d);
		if (d->parent >= 0) {
			char p[16];
			pci_addr_str(machine.pci.d[d->parent].addr, p, sizeof(p));
			json_str(&j, "parent", p);
		}
		/* the other requester ids its DMA carries (bridges, quirks, IVRS) */
		struct pci_aliases al;
		units_dma_aliases(&machine.units, &machine.pci, i, &al);
		if (al.n > 1) {
			char ids[PCI_ALIAS_MAX][12];
			const char *list[PCI_ALIAS_MAX];
			for (size_t k = 1; k < al.n; k++) {
				pci_rid_str(al.a[k].rid, ids[k - 1], sizeof(ids[k - 1]));
				list[k - 1] = ids[k - 1];
			}
			json_strs(&j, "dma_aliases", list, al.n - 1);
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
		json_str(&j, "type", u->backend->name);
		json_u64(&j, "segment", u->segment);
		json_hex(&j, "base", u->base);
		json_bool(&j, "include_all", u->include_all);
		if (u->refused[0])
			json_str(&j, "refused", u->refused);
		struct unit_regs r;
		bool read = ((platform->hardware && !u->refused[0]) || platform->replay) && units_read_regs(u, &r);
		const struct iommu_discovery *disc = u->backend->discovery;
		if (disc && disc->unit_info)
			disc->unit_info(&j, u, units_state(&machine.units, u->backend), read ? &r : NULL);
		json_strs(&j, "devices", list, u->ndevices);
		record_emit(&j);
		free(big), free(list), free(store);
	}
	for (size_t i = 0; i < machine.units.nfound; i++) {
		const struct iommu_backend *b = machine.units.found[i].backend;
		if (b->discovery && b->discovery->info && machine.units.found[i].state)
			b->discovery->info(machine.units.found[i].state);
	}
}

static const struct acpi_header *table(const char *sig)
{
	return acpi_find(monitor_acpi(), sig, 0);
}

/* The first instance of backend's table that parses without an error,
 * parsed once: its state, or NULL. A corrupt one is reported here (and by
 * its acpi.* check), forgotten, and not used. */
static void *first_usable(const struct iommu_discovery *d)
{
	const struct acpi_header *h;
	const char *sig = d->table;
	/* what says more: the acpi group's check of every instance (`run
	 * acpi.dmar`), or `acpi iort`, which decodes every one when none was
	 * usable */
	bool group = d->table_checked;
	char lower[5];
	for (unsigned k = 0; k < 4; k++)
		lower[k] = (char)(sig[k] | 0x20);
	lower[4] = '\0';
	for (unsigned i = 0; (h = acpi_find(monitor_acpi(), sig, i)) != NULL; i++) {
		unsigned errors = 0;
		void *state = d->parse((const uint8_t *)h, h->length, &errors);
		if (!state)
			return NULL;
		if (!errors) {
			/* a table given after it (QEMU's -acpitable comes after
			 * QEMU's own) is not judged by the units: say so */
			unsigned later = 0;
			while (acpi_find(monitor_acpi(), sig, i + 1 + later))
				later++;
			if (later || i)
				printf("  note: %.4s #%u at 0x%llx is the one used (the first without errors); %u "
				       "after it "
				       "not used%s%s%s\n",
				       sig, i, (unsigned long long)(uintptr_t)h, later, group ? " ('run acpi." : "",
				       group ? lower : "", group ? "' checks every one)" : "");
			return state;
		}
		d->forget(state);
		printf("  warning: %.4s #%u at 0x%llx has %u errors: not used ('%s%s%s' says what)\n", sig, i,
		       (unsigned long long)(uintptr_t)h, errors, group ? "run acpi." : "acpi ", lower, "");
	}
	return NULL;
}

/* Every backend's discovery, in registry order: its table, its units and
 * the devices they cover. */
static void discover_units(void)
{
	const struct iommu_backend *b, *all[IOMMU_MAX_BACKENDS];
	void *state[IOMMU_MAX_BACKENDS];
	size_t n = 0;
	for (size_t i = 0; (b = iommu_backend_at(i)) != NULL && n < IOMMU_MAX_BACKENDS; i++) {
		const struct iommu_discovery *d = b->discovery;
		all[n] = b;
		state[n++] = d && d->table && d->parse ? first_usable(d) : NULL;
	}
	units_adopt(&machine.units, all, state, n, &machine.pci);
}

/* A machine described by a device tree (no ACPI, so no MCFG: riscv64
 * under U-Boot): its generic ECAM host (pci-host-ecam-generic) as one
 * region of segment 0, its buses those of "bus-range" that the window's
 * size reaches. False when there is none. */
static bool fdt_ecam(struct mcfg *m)
{
	const struct fdt_platform *p = early_fdt();
	memset(m, 0, sizeof(*m));
	for (size_t i = 0; p && i < p->noff; i++)
		if (p->off[i].kind == FDT_ECAM)
			printf("  note: pci: the device tree's ECAM host %s is not scanned: %s\n", p->off[i].path,
			       p->off[i].why);
	if (!p || !p->ecam.found)
		return false;
	uint64_t buses = p->ecam.size >> 20;
	unsigned end = p->ecam.bus_end;
	if (buses == 0)
		return false;
	if (end - p->ecam.bus_start + 1 > buses) {
		end = p->ecam.bus_start + (unsigned)buses - 1;
		printf("warning: pci: the device tree's ECAM window (0x%llx bytes) reaches buses %02x-%02x of its "
		       "bus-range %02x-%02x: the rest are not scanned\n",
		       (unsigned long long)p->ecam.size, p->ecam.bus_start, end, p->ecam.bus_start, p->ecam.bus_end);
	}
	/* the window starts at bus-range's first bus; an MCFG base is bus 0's */
	m->r[0] = (struct mcfg_region){ .base = p->ecam.base - ((uint64_t)p->ecam.bus_start << 20),
					.segment = 0,
					.start_bus = (uint8_t)p->ecam.bus_start,
					.end_bus = (uint8_t)end };
	m->n = 1;
	m->origin = "device tree";
	return true;
}

static void machine_discover(void)
{
	if (machine.discovered) {
		units_free(&machine.units);
		pci_list_free(&machine.pci);
	}
	claims_reset(); /* the ECAM windows, BARs and units found below claim their MMIO anew */
	const struct acpi_header *mcfg = table("MCFG");
	machine.have_mcfg = mcfg && mcfg_parse((const uint8_t *)mcfg, mcfg->length, &machine.mcfg) == 0;
	if (!mcfg && !platform->replay)
		machine.have_mcfg = fdt_ecam(&machine.mcfg);
	/* a replay has the MCFG but not the configuration space it leads to */
	pci_cfg_init(&machine.cfg, machine.have_mcfg && !platform->replay ? &machine.mcfg : NULL,
		     platform->hardware && CF8_CFC);
	uint64_t t0 = cycles_begin();
	if (!platform->replay || !pci_saved_take(&machine.pci))
		pci_enumerate(&machine.cfg, &machine.pci);
	uint64_t t1 = cycles_end();
	/* the console's UART and the timers were opened before the BARs were
	 * known: one inside another device's BAR is dropped now, named */
	claims_early_audit();
	discover_units();
	dut_bind(&machine.cfg, &machine.pci);
	machine.discovered = true;
	if (platform->hardware) /* before anything is taken over: the replay folder keeps them */
		found_regs_read(&machine.units);
	for (size_t i = 0; i < machine.units.n && !platform->replay; i++)
		if (machine.units.u[i].refused[0])
			printf("error: %s; %s is not used\n", machine.units.u[i].refused, machine.units.u[i].name);

	size_t covered = 0;
	for (size_t i = 0; i < machine.pci.n; i++)
		covered += machine.pci.d[i].iommu >= 0;
	printf("  pci        ");
	table_wrapf(13, "%zu functions through %s%s in %.1f ms", machine.pci.n,
		    platform->replay	 ? "the replay folder's " PCI_SAVED_FILE
		    : machine.cfg.n	 ? "ECAM"
		    : machine.cfg.legacy ? "CF8/CFC"
					 : "nothing",
		    machine.cfg.n && machine.cfg.legacy ? " (CF8/CFC where ECAM does not reach)" : "",
		    cycles_to_ns(t1 - t0) / 1e6);
	const struct iommu_units *u = &machine.units;
	char tables[64] = "", none[72];
	size_t k = 0;
	for (size_t i = 0; i < u->nfound && k < sizeof(tables); i++) {
		const struct iommu_discovery *d = u->found[i].backend->discovery;
		if (d && d->table && u->found[i].state)
			k += (size_t)snprintf(tables + k, sizeof(tables) - k, ", %s", d->table);
	}
	snprintf(none, sizeof(none), "no %s", iommu_backend_tables());
	/* "(DMAR, IORT)", or "(no DMAR, IVRS, IORT or RIMT)" */
	printf("  iommu      %zu units (%s), covering %zu of the functions\n", u->n, tables[0] ? tables + 2 : none,
	       covered);
	size_t refused = 0;
	for (size_t i = 0; i < u->n; i++)
		refused += u->u[i].refused[0] != 0;
	verdict_machine_units(u->n, refused, tables[0] ? tables + 2 : none); /* why a session tested none */
	info_records();
}

static void machine_replay_save(void)
{
	size_t n = 0;
	char *t = pci_saved_text(&machine.pci, &n);
	if (t)
		replay_put(PCI_SAVED_FILE, t, n);
	free(t);
	t = found_regs_text(&n);
	if (t)
		replay_put(REPLAY_IOMMU, t, n);
	else if (machine.units.n)
		printf("replay: no registers of the %zu IOMMU units were read: %s not saved\n", machine.units.n,
		       REPLAY_IOMMU);
	free(t);
}

const struct subsystem machine_subsystem = {
	.name = "machine",
	.commands = machine_commands,
	.ncommands = MACHINE_NCOMMANDS,
	.discover = machine_discover,
	.replay_save = machine_replay_save,
};
