/* The models the monitor can attach: one at a time, with its driver and the
 * DMA engine behind its bridge. Each family (kinds, faults, how to attach,
 * what it counts) is defined beside its backend; this file only looks them
 * up, and owns the `model` command. */
#include "models.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/macros.h"
#include "core/base/wrap.h"
#include "core/monitor/script.h"
#include "iommu/backend.h"

static struct {
	char kind[16], fault[24];
	const struct model_family *family; /* NULL: nothing attached */
	struct model_engine eng;
} mdl;

static bool listed(const char *const *list, const char *s)
{
	for (; *list; list++)
		if (strcmp(*list, s) == 0)
			return true;
	return false;
}

static const struct model_family *family_of(const char *kind)
{
	for (size_t i = 0; iommu_registry_model(i); i++)
		if (listed(iommu_registry_model(i)->kinds, kind))
			return iommu_registry_model(i);
	return NULL;
}

static void inject_all_ones(void *flag)
{
	*(bool *)flag = true;
}

/* "all-ones" is every family's: the family's own flag, set through this. */
static const struct model_fault all_ones_fault = {
	"all-ones", "the register window reads all ones", NULL, inject_all_ones, IOMMU_ERR_UNUSABLE, IOMMU_OK
};

static void inject_escape(void *engine)
{
	struct model_engine *m = engine; /* model_attach hands the escape fault its engine */
	m->bypass = true;
}

/* "escape" is every family's too, set on the engine: its DMA bypasses the
 * unit, so a case must see the data land untranslated and stop. */
static const struct model_fault escape_fault = {
	"escape", "the engine's DMA bypasses the unit (IOVA = physical), as one the unit keys by another requester id",
	NULL,	  inject_escape,
	IOMMU_OK, IOMMU_OK
};

static const struct model_fault *fault_in(const struct model_family *f, const char *name)
{
	if (strcmp(name, all_ones_fault.name) == 0)
		return &all_ones_fault;
	if (strcmp(name, escape_fault.name) == 0)
		return &escape_fault;
	for (const struct model_fault *x = f->faults; x->name; x++)
		if (strcmp(x->name, name) == 0)
			return x;
	return NULL;
}

const char *model_kind_at(size_t i)
{
	for (size_t k = 0; iommu_registry_model(k); k++)
		for (const char *const *kind = iommu_registry_model(k)->kinds; *kind; kind++)
			if (i-- == 0)
				return *kind;
	return NULL;
}

/* Is `name` a fault some family offers, before family `upto` (to list each once)? */
static bool fault_offered(const char *name, size_t upto)
{
	for (size_t k = 0; iommu_registry_model(k) && k < upto; k++)
		if (fault_in(iommu_registry_model(k), name))
			return true;
	return false;
}

/* "a, b, c" (sep ", ") of every kind, or of every fault once. */
static const char *joined(bool faults, const char *sep)
{
	static char out[2][256];
	char *o = out[faults];
	size_t k = 0;
	o[0] = '\0';
	if (faults)
		k = (size_t)snprintf(o, sizeof(out[0]), "none%s%s%s%s", sep, all_ones_fault.name, sep,
				     escape_fault.name);
	for (size_t f = 0; iommu_registry_model(f); f++) {
		if (!faults) {
			for (const char *const *kind = iommu_registry_model(f)->kinds; *kind && k < sizeof(out[0]);
			     kind++)
				k += (size_t)snprintf(o + k, sizeof(out[0]) - k, "%s%s", k ? sep : "", *kind);
			continue;
		}
		for (const struct model_fault *x = iommu_registry_model(f)->faults; x->name && k < sizeof(out[0]); x++)
			if (!fault_offered(x->name, f))
				k += (size_t)snprintf(o + k, sizeof(out[0]) - k, "%s%s", sep, x->name);
	}
	return o;
}

void model_detach(void)
{
	if (!mdl.family)
		return;
	struct iommu *io = mdl.family->io;
	io->ops->give_back(io);
	mdl.family = NULL;
}

const char *model_attach(const char *kind, const char *fault)
{
	static char why[320];
	model_detach();
	if (strcmp(kind, "none") == 0)
		return NULL;
	const struct model_family *fam = family_of(kind);
	if (!fam) {
		snprintf(why, sizeof(why), "unknown model '%s' (%s, none)", kind, joined(false, ", "));
		return why;
	}
	const struct model_fault *f = strcmp(fault, "none") == 0 ? NULL : fault_in(fam, fault);
	if (strcmp(fault, "none") != 0 && !f && !fault_offered(fault, (size_t)-1)) {
		snprintf(why, sizeof(why), "unknown fault '%s' (%s)", fault, joined(true, ", "));
		return why;
	}
	if (strcmp(fault, "none") != 0 && (!f || (f->only && strcmp(f->only, kind) != 0))) {
		snprintf(why, sizeof(why), "the fault '%s' does not apply to %s", fault, kind);
		return why;
	}
	const char *e = fam->attach(kind, &mdl.eng);
	if (e)
		return e;
	if (f)
		f->inject(f == &all_ones_fault ? (void *)fam->all_ones
			  : f == &escape_fault ? (void *)&mdl.eng
					       : fam->model);
	snprintf(mdl.kind, sizeof(mdl.kind), "%s", kind);
	snprintf(mdl.fault, sizeof(mdl.fault), "%s", fault);
	mdl.family = fam;
	return NULL;
}

struct iommu *model_unit(struct dma_engine **e)
{
	if (!mdl.family)
		return NULL;
	*e = &mdl.eng.e;
	return mdl.family->io;
}

static unsigned count(const unsigned *counter)
{
	return counter ? *counter : 0;
}

unsigned model_violations(char *out, size_t n)
{
	if (!mdl.family) {
		snprintf(out, n, "no model");
		return 0;
	}
	const struct model_family *f = mdl.family;
	unsigned stray = f->model_win->out_of_window + f->driver_win->out_of_window;
	unsigned width = count(f->bad_width), reserved = count(f->reserved_writes),
		 protocol = count(f->protocol_errors);
	unsigned escaped = mdl.eng.strays;
	snprintf(out, n,
		 "%u outside the window, %u of the wrong width, %u reserved fields written, %u flushes "
		 "outside the quiet state, %u DMA writes past the unit to memory not ours",
		 stray, width, reserved, protocol, escaped);
	return stray + width + reserved + protocol + escaped;
}

const char *model_attached_kind(void)
{
	return mdl.family ? mdl.kind : NULL;
}

const char *model_describe(void)
{
	static char line[200];
	if (!mdl.family)
		return "no model attached";
	const struct iommu_backend *b = iommu_backend_for_model(mdl.kind);
	snprintf(line, sizeof(line),
		 "%s model attached (fault injected: %s), DMA engine on bus %02x; its cases: run %s", mdl.kind,
		 mdl.fault, mdl.eng.e.addr.bus, b ? b->name : "?");
	return line;
}

/* ---- a family's internals, for the cases that reach into them ------------- */

void *model_attached_state(const struct model_family *f, bool driver)
{
	return mdl.family == f ? (driver ? f->driver : f->model) : NULL;
}

/* ---- the `model` command --------------------------------------------------- */

static void list_faults(void)
{
	printf("  faults (none, or one of):\n    %-18s %s (every kind)\n    %-18s %s (every kind)\n",
	       all_ones_fault.name, all_ones_fault.what, escape_fault.name, escape_fault.what);
	for (size_t k = 0; iommu_registry_model(k); k++) {
		for (const struct model_fault *x = iommu_registry_model(k)->faults; x->name; x++) {
			printf("    %-18s %s (", x->name, x->what);
			if (x->only)
				printf("%s", x->only);
			for (const char *const *kind = iommu_registry_model(k)->kinds; !x->only && *kind; kind++)
				printf("%s%s", kind == iommu_registry_model(k)->kinds ? "" : ", ", *kind);
			printf(")\n");
		}
	}
}

static enum cmd_status cmd_model(int argc, char **argv)
{
	if (argc == 1) {
		printf("  %s\n", model_describe());
		printf("  models: ");
		table_wrapf(10, "%s (or none)", joined(false, ", "));
		list_faults();
		return CMD_OK;
	}
	if (argc > 3) {
		cmd_error("usage: model [%s|none [fault]]", joined(false, "|"));
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
	{ "model", "model [kind [fault]]",
	  "attach a register-level model of an IOMMU no emulator has ('model' lists the kinds and faults)", cmd_model,
	  "    The calgary, dart and apple groups run on the model attached; 'model none' detaches it.\n"
	  "    A fault makes the model misbehave as broken silicon would, for the driver to survive.\n"
	  "  examples:\n"
	  "    model\n"
	  "    model calioc2\n"
	  "    model dart-u4 flush-stuck; run dart\n"
	  "    model none\n" },
};

const struct subsystem model_subsystem = {
	.name = "model",
	.commands = commands,
	.ncommands = ARRAY_SIZE(commands),
	.release = model_detach,
};
