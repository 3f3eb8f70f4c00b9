/* The models the monitor can attach: one at a time, with its driver and the
 * DMA engine behind its bridge. */
#include "models.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../iommu/calgary.h"
#include "../../iommu/dart.h"
#include "calgary_model.h"
#include "dart_model.h"

const char *const model_kinds[] = { "calgary", "calioc2", "dart-u3", "dart-u4", NULL };
const char *const model_faults[] = {
	"none",
	"split-queue-stuck", /* Calgary/CalIOC2: the split queue never quiesces */
	"softstop-fault",    /* CalIOC2: SoftStopFault on the next 3 attempts (the flush retries) */
	"softstop-forever",  /* CalIOC2: SoftStopFault every time (the flush is abandoned) */
	"flush-deaf",	     /* DART: the first FLUSHTLB set goes unnoticed (cleared and set again) */
	"flush-stuck",	     /* DART: FLUSHTLB never clears */
	"all-ones",	     /* the register window reads all ones */
	NULL,
};

/* The engine sits on the first PHB's bus (Calgary) or behind the bridge (DART). */
#define ENGINE_BUS 0x10

static struct {
	char kind[16], fault[24];
	bool calgary;
	struct calgary_model cm;
	struct calgary cal;
	struct dart_model dm;
	struct dart dart;
	struct model_engine eng;
	bool attached;
} mdl;

static bool cal_translate(void *m, uint64_t iova, bool write, uint64_t *phys)
{
	return calm_translate(m, 0, iova, write, phys);
}

static bool dart_translate(void *m, uint64_t iova, bool write, uint64_t *phys)
{
	return dartm_translate(m, iova, write, phys);
}

static bool listed(const char *const *list, const char *s)
{
	for (; *list; list++)
		if (strcmp(*list, s) == 0)
			return true;
	return false;
}

void model_detach(void)
{
	if (!mdl.attached)
		return;
	struct iommu *io = mdl.calgary ? &mdl.cal.io : &mdl.dart.io;
	io->ops->give_back(io);
	mdl.attached = false;
}

const char *model_attach(const char *kind, const char *fault)
{
	static char why[160];
	model_detach();
	if (strcmp(kind, "none") == 0)
		return NULL;
	if (!listed(model_kinds, kind)) {
		snprintf(why, sizeof(why), "unknown model '%s' (calgary, calioc2, dart-u3, dart-u4, none)", kind);
		return why;
	}
	if (!listed(model_faults, fault)) {
		snprintf(why, sizeof(why),
			 "unknown fault '%s' (none, split-queue-stuck, softstop-fault, "
			 "softstop-forever, flush-deaf, flush-stuck, all-ones)",
			 fault);
		return why;
	}
	bool calgary = strncmp(kind, "cal", 3) == 0;
	bool cal_fault = strncmp(fault, "split", 5) == 0 || strncmp(fault, "softstop", 8) == 0;
	bool dart_fault = strncmp(fault, "flush", 5) == 0;
	if ((calgary && dart_fault) || (!calgary && cal_fault) ||
	    (strncmp(fault, "softstop", 8) == 0 && strcmp(kind, "calioc2") != 0)) {
		snprintf(why, sizeof(why), "the fault '%s' does not apply to %s", fault, kind);
		return why;
	}
	mdl.calgary = calgary;
	snprintf(mdl.kind, sizeof(mdl.kind), "%s", kind);
	snprintf(mdl.fault, sizeof(mdl.fault), "%s", fault);
	const char *e;
	struct pci_addr at = { 0, ENGINE_BUS, 1, 0 };
	if (calgary) {
		calm_init(&mdl.cm, strcmp(kind, "calioc2") == 0);
		mdl.cm.split_stuck = strcmp(fault, "split-queue-stuck") == 0;
		mdl.cm.softstop_faults = strcmp(fault, "softstop-fault") == 0	  ? 3
					 : strcmp(fault, "softstop-forever") == 0 ? ~0u
										  : 0;
		e = calgary_init(&mdl.cal, &mdl.cm.win, mdl.cm.ioc2, kind, 3);
		model_engine_init(&mdl.eng, "model-engine", at, 32, cal_translate, &mdl.cm);
		mdl.cm.all_ones = strcmp(fault, "all-ones") == 0;
	} else {
		dartm_init(&mdl.dm, strcmp(kind, "dart-u4") == 0);
		mdl.dm.deaf_sets = strcmp(fault, "flush-deaf") == 0 ? 1 : 0;
		mdl.dm.flush_stuck = strcmp(fault, "flush-stuck") == 0;
		e = dart_init(&mdl.dart, &mdl.dm.win, mdl.dm.u4, kind, 512, false);
		model_engine_init(&mdl.eng, "model-engine", at, 32, dart_translate, &mdl.dm);
		mdl.dm.all_ones = strcmp(fault, "all-ones") == 0;
	}
	if (e)
		return e;
	mdl.attached = true;
	return NULL;
}

bool model_bench(const char *backend, struct iommu **io, struct dma_engine **e, const char **why)
{
	if (!mdl.attached || strcmp(backend, mdl.calgary ? "calgary" : "dart") != 0) {
		*why = strcmp(backend, "calgary") == 0
			   ? "no Calgary here: 'model calgary' or 'model calioc2' attaches the register-level model"
			   : "no DART here: 'model dart-u3' or 'model dart-u4' attaches the register-level model";
		return false;
	}
	*io = mdl.calgary ? &mdl.cal.io : &mdl.dart.io;
	*e = &mdl.eng.e;
	return true;
}

unsigned model_violations(char *out, size_t n)
{
	unsigned width, reserved, protocol, stray;
	if (!mdl.attached) {
		snprintf(out, n, "no model");
		return 0;
	}
	if (mdl.calgary) {
		width = mdl.cm.bad_width, reserved = mdl.cm.reserved_writes, protocol = mdl.cm.protocol_errors;
		stray = mdl.cm.win.out_of_window + mdl.cal.w.out_of_window;
	} else {
		width = mdl.dm.bad_width, reserved = mdl.dm.reserved_writes, protocol = 0;
		stray = mdl.dm.win.out_of_window + mdl.dart.w.out_of_window;
	}
	snprintf(out, n,
		 "%u outside the window, %u of the wrong width, %u reserved fields written, %u flushes "
		 "outside the quiet state",
		 stray, width, reserved, protocol);
	return stray + width + reserved + protocol;
}

const char *model_describe(void)
{
	static char line[160];
	if (!mdl.attached)
		return "no model attached";
	snprintf(line, sizeof(line), "%s model attached (fault injected: %s), DMA engine on bus %02x", mdl.kind,
		 mdl.fault, ENGINE_BUS);
	return line;
}

struct calgary_model *model_calgary(void)
{
	return mdl.attached && mdl.calgary ? &mdl.cm : NULL;
}

struct dart_model *model_dart(void)
{
	return mdl.attached && !mdl.calgary ? &mdl.dm : NULL;
}

struct dart *model_dart_driver(void)
{
	return mdl.attached && !mdl.calgary ? &mdl.dart : NULL;
}
