/* The VT-d backend as the registry sees it: DMAR remapping units (found by
 * discover.c), opened with the settings that belong to this driver
 * (vtd.levels, vtd.bystanders, vtd.eime), which live here beside it; and
 * its model's family, the one place that builds the driver on the model. */
#include <stdlib.h>
#include <string.h>

#include "core/monitor/settings.h"
#include "iommu/models/models.h"
#include "model.h"
#include "vtd.h"

/* One unit is open at a time: the registry's open hands out this one. */
static struct vtd unit;

static const char *check_levels(const char *v)
{
	return strcmp(v, "auto") == 0 || strcmp(v, "3") == 0 || strcmp(v, "4") == 0
		   ? NULL
		   : "must be auto, 3 or 4 (second-level walk depth; auto: the deepest the unit offers)";
}

static const char *check_bystanders(const char *v)
{
	return strcmp(v, "auto") == 0 || strcmp(v, "passthrough") == 0 || strcmp(v, "identity") == 0
		   ? NULL
		   : "must be auto, passthrough or identity";
}

static const char *check_eime(const char *v)
{
	return strcmp(v, "auto") == 0 || strcmp(v, "on") == 0 ? NULL : "must be auto or on";
}

static const char *check_mode(const char *v)
{
	return vtd_mode_named(v) != VTD_NMODES ? NULL
					       : "must be legacy, scalable-second-stage, scalable-first-stage or "
						 "scalable-nested";
}

static const char *check_fs_levels(const char *v)
{
	return strcmp(v, "auto") == 0 || strcmp(v, "4") == 0 || strcmp(v, "5") == 0
		   ? NULL
		   : "must be auto, 4 or 5 (first-stage walk; auto: 5 where CAP.FL5LP, else 4)";
}

/* vtd.fs_levels: 4, 5, or 0 for auto */
static unsigned fs_levels(void)
{
	const char *v = setting_get("vtd.fs_levels");
	return v && strcmp(v, "4") == 0 ? 4 : v && strcmp(v, "5") == 0 ? 5 : 0;
}

static void settings(void)
{
	setting_add("vtd.mode", "legacy",
		    "VT-d translation for cases that name no mode (the vtd.ss.* and vtd.fs.* cases name theirs): "
		    "legacy, scalable-second-stage, scalable-first-stage, scalable-nested",
		    check_mode, NULL);
	setting_add("vtd.fs_levels", "auto",
		    "VT-d first-stage walk in scalable mode: auto (5 levels where CAP.FL5LP, else 4), 4 or 5",
		    check_fs_levels, NULL);
	setting_add("vtd.levels", "auto", "VT-d second-level walk: auto (deepest SAGAW offers), 3 or 4", check_levels,
		    NULL);
	setting_add("vtd.bystanders", "auto",
		    "VT-d devices not under test: auto (pass-through if ECAP.PT, else identity), passthrough, identity",
		    check_bystanders, NULL);
	setting_add("vtd.eime", "auto",
		    "VT-d interrupt remapping's destinations: auto (IRTA.EIME, 32-bit, only for a boot CPU x2APIC id "
		    "above 255) or on (EIME whenever the unit has ECAP.EIM, so the 32-bit path is tested on a CPU "
		    "whose id fits 8 bits; EIME blocks compatibility-format interrupts whatever CFI says, 5.1.4)",
		    check_eime, NULL);
}

static struct iommu *open_unit(const struct iommu_unit *u, const struct iommu_units *all, const struct pci_list *pci,
			       const char **why)
{
	if (iommu_backend_holds(&unit.io, u->name, why))
		return &unit.io;
	if (*why) /* another unit still ours could not be given back */
		return NULL;
	const char *lv = setting_get("vtd.levels"), *by = setting_get("vtd.bystanders");
	unit.want_levels = lv && strcmp(lv, "auto") != 0 ? (unsigned)atoi(lv) : 0;
	unit.want_eime = setting_bool("vtd.eime");
	const char *mode = setting_get("vtd.mode");
	unit.default_mode = mode && vtd_mode_named(mode) != VTD_NMODES ? vtd_mode_named(mode) : VTD_MODE_LEGACY;
	unit.want_fs_levels = fs_levels();
	unit.want_bystanders = !by				? VTD_BYSTANDERS_AUTO
			       : strcmp(by, "passthrough") == 0 ? VTD_BYSTANDERS_PT
			       : strcmp(by, "identity") == 0	? VTD_BYSTANDERS_IDENTITY
								: VTD_BYSTANDERS_AUTO;
	*why = vtd_open(&unit, u, vtd_units_dmar(all), pci);
	return *why ? NULL : &unit.io;
}

/* ---- the family: what `model vtd` attaches ------------------------------ */

/* The model as QEMU 7.2 reports itself (`model vtd`), or with everything
 * scalable mode has (`model vtd-sm`), its engine on MODEL_ENGINE_BUS
 * (translated and interrupt-remapped by the model) and a driver of its
 * own on the model's window: no DMAR and no PCI list, the model's engine
 * is the only device behind it. */
static struct vtd_model family_model;
static struct vtd family_driver;
static uint16_t family_sid; /* the engine's requester id */

static bool family_translate(void *m, uint64_t iova, bool write, uint64_t *phys)
{
	return vtdm_translate(m, family_sid, iova, write, phys);
}

/* the engine's MSI through the unit's interrupt window */
static bool family_msi(void *m, uint16_t rid, uint64_t addr, uint32_t data, uint8_t *vector, uint32_t *dest)
{
	return vtdm_msi(m, rid, addr, data, vector, dest);
}

static const char *family_attach(const char *kind, struct model_engine *e)
{
	const struct pci_addr at = { 0, MODEL_ENGINE_BUS, 1, 0 };
	bool sm = strcmp(kind, "vtd-sm") == 0;
	/* vtd-pmr: QEMU's unit with protected memory regions, low and high
	 * (CAP.PLMR, PHMR), which QEMU does not model */
	uint64_t pmr = strcmp(kind, "vtd-pmr") == 0 ? 3ull << 5 : 0;
	vtdm_init(&family_model, (sm ? VTDM_SM_CAP : VTDM_QEMU_CAP) | pmr, sm ? VTDM_SM_ECAP : VTDM_QEMU_ECAP);
	/* a new model is a new unit: nothing recorded of its firmware yet */
	memset(&family_driver, 0, sizeof(family_driver));
	family_driver.want_fs_levels = fs_levels();
	family_sid = pci_rid(at);
	model_engine_init(e, "model-engine", at, 64, family_translate, &family_model);
	model_engine_msi(e, family_msi);
	return vtd_init(&family_driver, &family_model.win, kind, NULL, NULL, 0);
}

const struct model_family vtd_family = {
	.kinds = vtdm_kind_names,
	.faults = vtdm_faults,
	.attach = family_attach,
	.io = &family_driver.io,
	.model = &family_model,
	.driver = &family_driver,
	.bad_width = &family_model.bad_width,
	.protocol_errors = &family_model.forbidden,
	.model_win = &family_model.win,
	.driver_win = &family_driver.w,
	.all_ones = &family_model.all_ones,
};

struct vtd_model *model_vtd(void)
{
	return model_attached_state(&vtd_family, false);
}

const struct dmar *vtd_units_dmar(const struct iommu_units *u)
{
	return units_state(u, &vtd_backend);
}

/* ---- the descriptor ------------------------------------------------------- */

const struct iommu_backend vtd_backend = {
	.name = "vtd",
	.title = "Intel VT-d",
	.discovery = &vtd_discovery,
	.family = &vtd_family,
	.open = open_unit,
	.settings = settings,
};
