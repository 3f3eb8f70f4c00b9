/* The models the monitor can attach: one at a time, with its driver and the
 * DMA engine behind its bridge. */
#include "models.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/settings.h"
#include "../../iommu/apple_dart.h"
#include "../../iommu/calgary.h"
#include "../../iommu/dart.h"
#include "apple_dart_model.h"
#include "calgary_model.h"
#include "dart_model.h"

const char *const model_kinds[] = { "calgary",	   "calioc2",	  "dart-u3",	 "dart-u4",
				    "apple-t8103", "apple-t6000", "apple-t8110", NULL };
const char *const model_faults[] = {
	"none",
	"split-queue-stuck", /* Calgary/CalIOC2: the split queue never quiesces */
	"softstop-fault",    /* CalIOC2: SoftStopFault on the next 3 attempts (the flush retries) */
	"softstop-forever",  /* CalIOC2: SoftStopFault every time (the flush is abandoned) */
	"flush-deaf",	     /* DART: the first FLUSHTLB set goes unnoticed (cleared and set again) */
	"flush-stuck",	     /* DART: FLUSHTLB never clears */
	"busy-stuck",	     /* Apple DART: an invalidation never finishes */
	"locked",	     /* Apple DART: locked by the firmware (TCRs and TTBRs immutable) */
	"all-ones",	     /* the register window reads all ones */
	NULL,
};

/* The engine sits on the first PHB's bus (Calgary) or behind the bridge (DART). */
#define ENGINE_BUS 0x10
#define APPLE_STREAM 1 /* the engine's stream on Apple's DART */

enum family { CALGARY, DART, APPLE };

static struct {
	char kind[16], fault[24];
	enum family family;
	struct calgary_model cm;
	struct calgary cal;
	struct dart_model dm;
	struct dart dart;
	struct apple_dart_model am;
	struct apple_dart apple;
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

static bool apple_translate(void *m, uint64_t iova, bool write, uint64_t *phys)
{
	return adm_translate(m, APPLE_STREAM, iova, write, phys);
}

static struct iommu *attached_io(void)
{
	return mdl.family == CALGARY ? &mdl.cal.io : mdl.family == DART ? &mdl.dart.io : &mdl.apple.io;
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
	struct iommu *io = attached_io();
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
		snprintf(why, sizeof(why),
			 "unknown model '%s' (calgary, calioc2, dart-u3, dart-u4, apple-t8103, apple-t6000, "
			 "apple-t8110, none)",
			 kind);
		return why;
	}
	if (!listed(model_faults, fault)) {
		snprintf(why, sizeof(why),
			 "unknown fault '%s' (none, split-queue-stuck, softstop-fault, "
			 "softstop-forever, flush-deaf, flush-stuck, busy-stuck, locked, all-ones)",
			 fault);
		return why;
	}
	enum family fam = strncmp(kind, "cal", 3) == 0 ? CALGARY : strncmp(kind, "dart", 4) == 0 ? DART : APPLE;
	enum family fault_fam = fam;
	if (strncmp(fault, "split", 5) == 0 || strncmp(fault, "softstop", 8) == 0)
		fault_fam = CALGARY;
	else if (strncmp(fault, "flush", 5) == 0)
		fault_fam = DART;
	else if (strcmp(fault, "busy-stuck") == 0 || strcmp(fault, "locked") == 0)
		fault_fam = APPLE;
	if (fault_fam != fam || (strncmp(fault, "softstop", 8) == 0 && strcmp(kind, "calioc2") != 0)) {
		snprintf(why, sizeof(why), "the fault '%s' does not apply to %s", fault, kind);
		return why;
	}
	mdl.family = fam;
	snprintf(mdl.kind, sizeof(mdl.kind), "%s", kind);
	snprintf(mdl.fault, sizeof(mdl.fault), "%s", fault);
	const char *e;
	struct pci_addr at = { 0, ENGINE_BUS, 1, 0 };
	if (fam == CALGARY) {
		calm_init(&mdl.cm, strcmp(kind, "calioc2") == 0);
		mdl.cm.split_stuck = strcmp(fault, "split-queue-stuck") == 0;
		mdl.cm.softstop_faults = strcmp(fault, "softstop-fault") == 0	  ? 3
					 : strcmp(fault, "softstop-forever") == 0 ? ~0u
										  : 0;
		e = calgary_init(&mdl.cal, &mdl.cm.win, mdl.cm.ioc2, kind, 3);
		const char *fence = setting_get("calgary.fence");
		mdl.cal.fence = fence && strcmp(fence, "on") == 0;
		model_engine_init(&mdl.eng, "model-engine", at, 32, cal_translate, &mdl.cm);
		mdl.cm.all_ones = strcmp(fault, "all-ones") == 0;
	} else if (fam == APPLE) {
		enum adm_layout l = strcmp(kind, "apple-t8103") == 0   ? ADM_T8103
				    : strcmp(kind, "apple-t6000") == 0 ? ADM_T6000
								       : ADM_T8110;
		adm_init(&mdl.am, l, 14);
		mdl.am.busy_stuck = strcmp(fault, "busy-stuck") == 0;
		mdl.am.locked = strcmp(fault, "locked") == 0;
		struct pci_addr sat = { 0, ENGINE_BUS, 0, APPLE_STREAM };
		e = apple_dart_init(&mdl.apple, &mdl.am.win, (enum apple_dart_layout)l, kind, APPLE_STREAM);
		model_engine_init(&mdl.eng, "model-engine", sat, 36, apple_translate, &mdl.am);
		mdl.am.all_ones = strcmp(fault, "all-ones") == 0;
	} else {
		dartm_init(&mdl.dm, strcmp(kind, "dart-u4") == 0);
		mdl.dm.deaf_sets = strcmp(fault, "flush-deaf") == 0 ? 1 : 0;
		mdl.dm.flush_stuck = strcmp(fault, "flush-stuck") == 0;
		e = dart_init(&mdl.dart, &mdl.dm.win, mdl.dm.u4, kind, 0, false);
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
	if (!mdl.attached || strcmp(backend, attached_io()->backend) != 0) {
		*why = strcmp(backend, "calgary") == 0
			   ? "no Calgary here: 'model calgary' or 'model calioc2' attaches the register-level model"
		       : strcmp(backend, "dart") == 0
			   ? "no DART here: 'model dart-u3' or 'model dart-u4' attaches the register-level model"
			   : "no Apple DART here: 'model apple-t8103', 'apple-t6000' or 'apple-t8110' attaches the "
			     "register-level model";
		return false;
	}
	*io = attached_io();
	*e = &mdl.eng.e;
	return true;
}

struct iommu *model_unit(struct dma_engine **e)
{
	if (!mdl.attached)
		return NULL;
	*e = &mdl.eng.e;
	return attached_io();
}

unsigned model_violations(char *out, size_t n)
{
	unsigned width, reserved, protocol, stray;
	if (!mdl.attached) {
		snprintf(out, n, "no model");
		return 0;
	}
	if (mdl.family == APPLE) {
		width = mdl.am.bad_width, reserved = mdl.am.reserved_writes, protocol = 0;
		stray = mdl.am.win.out_of_window + mdl.apple.w.out_of_window;
	} else if (mdl.family == CALGARY) {
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

const char *model_attached_kind(void)
{
	return mdl.attached ? mdl.kind : NULL;
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
	return mdl.attached && mdl.family == CALGARY ? &mdl.cm : NULL;
}

struct dart_model *model_dart(void)
{
	return mdl.attached && mdl.family == DART ? &mdl.dm : NULL;
}

struct dart *model_dart_driver(void)
{
	return mdl.attached && mdl.family == DART ? &mdl.dart : NULL;
}

struct apple_dart_model *model_apple(void)
{
	return mdl.attached && mdl.family == APPLE ? &mdl.am : NULL;
}
