#include "session.h"

#include <stdio.h>
#include <string.h>

#include "backend.h"
#include "core/base/ioapic.h"
#include "core/base/macros.h"
#include "core/base/wrap.h"
#include "core/monitor/monitor.h"
#include "core/monitor/results.h"
#include "machine.h"
#include "pci/dut.h"

static struct {
	struct iommu *io;  /* valid until its backend opens another */
	bool taken_once;   /* since it was opened: the exit record compares */
	bool open_refused; /* the last iommu_for_device failed in its backend's open */
} held;

/* Every requester id function `i`'s DMA carries, in `al`; NULL, or why
 * the device cannot be isolated: another DMA-capable function shares one
 * of its ids (isolation is per alias group, and that one would be
 * translated with it), or it carries more ids than are followed. */
static const char *alias_refusal(size_t i, struct pci_aliases *al)
{
	static char msg[480];
	units_dma_aliases(&machine.units, &machine.pci, i, al);
	char bdf[16];
	pci_addr_str(machine.pci.d[i].addr, bdf, sizeof(bdf));
	if (al->cut) {
		snprintf(msg, sizeof(msg), "%s carries more than %d requester ids: not all could be translated", bdf,
			 PCI_ALIAS_MAX);
		return msg;
	}
	size_t group[4];
	size_t n = units_alias_group(&machine.units, &machine.pci, i, al, group, 4);
	if (!n)
		return NULL;
	char other[16], ids[200];
	pci_addr_str(machine.pci.d[group[0]].addr, other, sizeof(other));
	pci_aliases_str(&machine.pci, al, ids, sizeof(ids));
	snprintf(msg, sizeof(msg),
		 "isolation is per alias group: %s (%s)%s shares a requester id with %s, whose DMA also carries %s; "
		 "it would be translated with it, so the case does not run",
		 other, pci_class_name(machine.pci.d[group[0]].class), n > 1 ? " and others" : "", bdf, ids);
	return msg;
}

/* "riscv0 refused: <reason>": a refused unit is the reason a case that
 * needs it does not run, named, whatever refused it (its register window
 * at discovery, or its backend when it was opened). */
static const char *refused(const struct iommu_unit *unit, const char *reason)
{
	static char msg[IOMMU_REFUSAL_MAX];
	snprintf(msg, sizeof(msg), "%s refused: %s", unit->name, reason);
	return msg;
}

struct iommu *iommu_for_device(struct pci_addr dev, const char **why)
{
	held.open_refused = false;
	int i = pci_find(&machine.pci, dev);
	int u = i >= 0 ? machine.pci.d[i].iommu : -1;
	if (u < 0) {
		static char msg[300];
		const char *missing = i >= 0 ? units_why_missing(&machine.units, &machine.pci.d[i]) : NULL;
		snprintf(msg, sizeof(msg), "no IOMMU unit covers the device under test%s%s", missing ? ": " : "",
			 missing ? missing : "");
		*why = msg;
		return NULL;
	}
	const struct iommu_unit *unit = &machine.units.u[u];
	if (unit->refused[0]) {
		*why = refused(unit, unit->refused);
		return NULL;
	}
	const struct iommu_backend *b = unit->backend;
	if (!b || !b->open) {
		static char msg[96];
		snprintf(msg, sizeof(msg), "the unit covering the device is %s: no backend drives it yet",
			 b ? b->name : "of no backend");
		*why = msg;
		return NULL;
	}
	struct pci_aliases al;
	if ((*why = alias_refusal((size_t)i, &al)) != NULL)
		return NULL;
	struct iommu *io = held.io;
	if (!io || !io->taken || strcmp(io->name, unit->name) != 0) {
		if ((*why = iommu_give_back_held()) != NULL)
			return NULL;
		/* the same unit opened again (its next case) keeps what was
		 * said of it: a case that opens it and does not take it (not
		 * applicable in the mode it asks for) must not hide that an
		 * earlier one did */
		bool same = held.io && strcmp(held.io->name, unit->name) == 0;
		/* the unit held was given back above: what open refuses is
		 * this unit (what its registers say it is or does) */
		io = b->open(unit, &machine.units, &machine.pci, why);
		if (!io) {
			*why = refused(unit, *why ? *why : "its backend did not say why");
			held.open_refused = true;
			return NULL;
		}
		held.taken_once = same && held.taken_once && held.io == io;
		held.io = io;
	}
	io->alias_rid = pci_rid(dev);
	io->nalias = 0;
	for (size_t k = 1; k < al.n; k++)
		io->alias[io->nalias++] = al.a[k].rid;
	return io;
}

const char *iommu_refusal(struct pci_addr dev)
{
	int i = pci_find(&machine.pci, dev);
	int u = i >= 0 ? machine.pci.d[i].iommu : -1;
	if (u < 0)
		return NULL;
	const struct iommu_unit *unit = &machine.units.u[u];
	if (unit->refused[0])
		return refused(unit, unit->refused);
	const char *why;
	if (!unit->backend || !unit->backend->open || iommu_for_device(dev, &why) || !held.open_refused)
		return NULL;
	return why;
}

const struct iommu *iommu_opened(struct pci_addr dev)
{
	int i = pci_find(&machine.pci, dev);
	int u = i >= 0 ? machine.pci.d[i].iommu : -1;
	if (u < 0 || !held.io || held.open_refused || strcmp(held.io->name, machine.units.u[u].name) != 0)
		return NULL;
	return held.io;
}

const char *iommu_give_back_held(void)
{
	if (!held.io || !held.io->taken)
		return NULL;
	held.taken_once = true;
	const char *e = held.io->ops->give_back(held.io);
	printf("    %s given back: %s%s%s\n", held.io->name, held.io->restore_note, e ? "; " : "", e ? e : "");
	return e;
}

/* A device under test brought up passed through a unit that blocks every
 * DMA as found (io->take_first: tests/catalogue/iommu/bench.c) is idle
 * behind it in that state, where its driver's last commands (deleting its
 * queues) would reach no memory. It is passed through again while it is
 * closed; the unit then goes back as found with the rest. */
static void close_dut_behind_blocking_unit(void)
{
	struct dma_engine *e = dut_current();
	const char *why;
	if (!e || !held.io || !held.io->take_first)
		return; /* no such unit was opened: nothing to open now */
	struct iommu *io = iommu_for_device(e->addr, &why);
	if (!io || !io->take_first)
		return;
	const char *err = io->taken ? NULL : io->ops->take(io);
	if (!err)
		err = io->ops->attach(io, e->addr, IOMMU_PASSTHROUGH);
	if (err)
		printf("  %s: the device under test is closed with its DMA blocked: %s\n", io->name, err);
	dut_close();
}

/* A setting changed the device under test between cases: closed as at
 * exit, the unit given back as found again if it had to be taken. */
static void close_dut_for_change(void)
{
	close_dut_behind_blocking_unit();
	iommu_give_back_held();
}

static void session_settings(void)
{
	iommu_backends_settings();
	dut_set_closer(close_dut_for_change);
}

/* Before exit: the device under test closed, the unit as the firmware
 * left it, and a record that says whether its registers agree (what
 * automation checks). */
static void session_release(void)
{
	/* I/O APIC entries a case left naming the unit's remapping table go
	 * back first (a crash in tests/catalogue/iommu/ir_ioapic.c) */
	unsigned bad = ioapic_restore_held();
	if (bad)
		printf("  %u I/O APIC redirection entries do not read back as found\n", bad);
	close_dut_behind_blocking_unit();
	iommu_give_back_held();
	struct iommu *io = held.io;
	if (!io || !held.taken_once || !io->ops->as_found) {
		iommu_backends_release();
		return;
	}
	char note[200], buf[RECORD_MAX];
	bool same = io->ops->as_found(io, note, sizeof(note));
	printf("  %s at exit: %s\n", io->name, note);
	struct json j;
	record_begin(&j, buf, sizeof(buf), "info");
	json_str(&j, "what", "iommu-exit");
	json_str(&j, "name", io->name);
	json_bool(&j, "as_found", same);
	json_str(&j, "registers", note);
	record_emit(&j);
	iommu_backends_release(); /* after the comparison, which reads the registers */
}

/* "; 'model a' or 'model b' attaches its register-level model" */
/* `line` so far, then the kinds that attach b's model, wrapped to the
 * console (core/base/wrap.h). */
static void models_tail(const struct iommu_backend *b, char *line, size_t cap)
{
	const char *const *models = iommu_backend_models(b);
	size_t n = strlen(line);
	if (models && models[0]) {
		n += (size_t)snprintf(line + n, n < cap ? cap - n : 0, ";");
		for (const char *const *m = models; *m && n < cap; m++)
			n += (size_t)snprintf(line + n, cap - n, "%s 'model %s'",
					      m == models ? "" : (m[1] ? "," : " or"), *m);
		if (n < cap)
			snprintf(line + n, cap - n, " attaches its register-level model");
	}
	printf("  ");
	table_wrap(4, line);
}

/* What each backend finds among the PCI functions (those with its ids,
 * and what its describe hook reads), or, where it found nothing at all,
 * how its units would be found. A unit found another way (a table, the
 * device tree) is its own line below, not an absence. */
static void describe_backend(const struct iommu_backend *b)
{
	char line[320];
	size_t found = 0;
	for (const struct iommu_pci_id *id = b->pci_ids; id && id->vendor; id++)
		for (size_t i = 0; i < machine.pci.n; i++) {
			const struct pci_dev *d = &machine.pci.d[i];
			if (d->vendor != id->vendor || d->device != id->device)
				continue;
			char bdf[16];
			pci_addr_str(d->addr, bdf, sizeof(bdf));
			printf("  %s at %s\n", id->name, bdf);
			found++;
		}
	if (found) {
		if (b->describe)
			b->describe(&machine.pci);
		if (!b->open) {
			snprintf(line, sizeof(line), "iommon drives %s on its model only", b->title);
			models_tail(b, line, sizeof(line));
		}
	} else if (units_of(&machine.units, b)) {
		return;
	} else if (b->pci_ids) {
		size_t n = (size_t)snprintf(line, sizeof(line), "no %s: no PCI function", b->title);
		for (const struct iommu_pci_id *id = b->pci_ids; id->vendor && n < sizeof(line); id++)
			n += (size_t)snprintf(line + n, sizeof(line) - n, "%s %04x:%04x",
					      id == b->pci_ids ? "" : (id[1].vendor ? "," : " or"), id->vendor,
					      id->device);
		models_tail(b, line, sizeof(line));
	} else if (!b->open && b->found_by) {
		snprintf(line, sizeof(line), "no %s: %s", b->title, b->found_by);
		models_tail(b, line, sizeof(line));
	}
}

static enum cmd_status cmd_iommu(int argc, char **argv)
{
	(void)argv;
	if (argc != 1) {
		cmd_error("usage: iommu");
		return CMD_ERROR;
	}
	if (machine.units.n == 0)
		printf("  no IOMMU unit: the firmware describes none (no %s table%s)\n", iommu_backend_tables(),
		       units_any_table(&machine.units) ? " with a unit in it" : "");
	const struct iommu_backend *b;
	for (size_t i = 0; (b = iommu_backend_at(i)) != NULL; i++)
		describe_backend(b);
	for (size_t i = 0; i < machine.units.n; i++) {
		const struct iommu_unit *u = &machine.units.u[i];
		printf("  %-7s %-6s segment %u base 0x%llx%s, %zu devices%s\n", u->name, u->backend->name, u->segment,
		       (unsigned long long)u->base, u->include_all ? " (all other devices)" : "", u->ndevices,
		       u->backend->open ? "" : " (no backend drives it yet)");
		units_describe(u);
		for (size_t k = 0; k < machine.pci.n; k++) {
			if (machine.pci.d[k].iommu != (int)i)
				continue;
			char bdf[16], ids[PCI_ALIAS_MAX * 12];
			pci_addr_str(machine.pci.d[k].addr, bdf, sizeof(bdf));
			struct pci_aliases al;
			units_dma_aliases(&machine.units, &machine.pci, k, &al);
			size_t len = 0;
			ids[0] = '\0';
			for (size_t m = 1; m < al.n && len < sizeof(ids); m++) {
				char one[12];
				pci_rid_str(al.a[m].rid, one, sizeof(one));
				len += (size_t)snprintf(ids + len, sizeof(ids) - len, "%s%s", m > 1 ? ", " : "", one);
			}
			printf("      %s %s%s%s%s\n", bdf, pci_class_name(machine.pci.d[k].class),
			       al.n > 1 ? " (its DMA also as " : "", ids, al.n > 1 ? ")" : "");
		}
	}
	return CMD_OK;
}

static const struct command commands[] = {
	{ "iommu", "iommu", "IOMMU units: type, registers, devices in scope, and the backends that drive them",
	  cmd_iommu,
	  "    Each unit the firmware's tables describe (DMAR, IVRS, IORT, RIMT): its register base, capability\n"
	  "    registers decoded, the devices in its scope, and a unit refused with why; then Calgary and\n"
	  "    DART if present, and the model attached.\n"
	  "  examples:\n"
	  "    iommu\n" },
};

const struct subsystem iommu_subsystem = {
	.name = "iommu",
	.settings = session_settings,
	.commands = commands,
	.ncommands = ARRAY_SIZE(commands),
	.release = session_release,
};
