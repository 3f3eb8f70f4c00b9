/* The AMD-Vi backend as the registry sees it: IVRS IVHD units (found by
 * discover.c), opened with the settings that belong to this driver
 * (amdvi.levels, amdvi.xt), which live here beside it; and its model's
 * family, the one place that builds the driver on the model. */
#include <string.h>

#include "amdvi.h"
#include "core/monitor/settings.h"
#include "iommu/machine.h"
#include "iommu/models/models.h"
#include "model.h"

/* One unit is open at a time: the registry's open hands out this one. */
static struct amdvi unit;

static const char *check_levels(const char *v)
{
	return strcmp(v, "auto") == 0 || (strlen(v) == 1 && v[0] >= '3' && v[0] <= '6')
		   ? NULL
		   : "must be auto, 3, 4, 5 or 6 (host page table levels; auto: the fewest that cover RAM)";
}

static const char *check_xt(const char *v)
{
	return strcmp(v, "auto") == 0 || strcmp(v, "on") == 0 ? NULL : "must be auto or on";
}

static void settings(void)
{
	setting_add("amdvi.levels", "auto",
		    "AMD-Vi page table levels: auto (the fewest that cover RAM), 3 to 6 (up to 4 + EFR.HATS)",
		    check_levels, NULL);
	setting_add("amdvi.xt", "auto",
		    "AMD-Vi interrupt remapping's destinations: auto (128-bit entries with GAEn and XTEn, 32-bit, "
		    "only for a boot CPU x2APIC id above 255) or on (wherever EFR.XTSup and GASup, so the 32-bit "
		    "path is tested on a CPU whose id fits 8 bits)",
		    check_xt, NULL);
}

/* 0: auto */
static unsigned levels_wanted(void)
{
	const char *lv = setting_get("amdvi.levels");
	return lv && lv[0] >= '3' && lv[0] <= '6' ? (unsigned)(lv[0] - '0') : 0;
}

static struct iommu *open_unit(const struct iommu_unit *u, const struct iommu_units *all, const struct pci_list *pci,
			       const char **why)
{
	bool held = iommu_backend_holds(&unit.io, u->name, why);
	if (!held && !*why) { /* nothing else of ours is held: set this one up */
		unit.want_levels = levels_wanted();
		unit.want_xt = setting_bool("amdvi.xt");
		/* the unit's PCI function is reached through the machine's
		 * configuration space, for its MSI capability */
		*why = amdvi_open(&unit, u, all, pci, &machine.cfg);
	}
	return *why ? NULL : &unit.io;
}

/* ---- the family: what `model amdvi` attaches ---------------------------- */

static struct amdvi_model family_model;
static struct amdvi family_driver;

/* the engine's requests carry its requester id */
static bool family_translate(void *m, uint64_t iova, bool write, uint64_t *phys)
{
	return amdvim_translate(m, ((struct amdvi_model *)m)->engine_devid, iova, write, phys);
}

/* the engine's MSI through the unit's interrupt remapping */
static bool family_msi(void *m, uint16_t rid, uint64_t addr, uint32_t data, uint8_t *vector, uint32_t *dest)
{
	return amdvim_msi(m, rid, addr, data, vector, dest);
}

/* The model, its engine and a driver of its own on the model's window: no
 * IVRS and no PCI function, the engine is the only device behind it. */
static const char *family_attach(const char *kind, struct model_engine *e)
{
	const struct pci_addr at = { 0, MODEL_ENGINE_BUS, 1, 0 };
	amdvim_init(&family_model);
	family_model.engine_devid = pci_rid(at);
	model_engine_init(e, "model-engine", at, 64, family_translate, &family_model);
	model_engine_msi(e, family_msi);
	return amdvi_init(&family_driver, &family_model.win, kind, NULL, NULL, NULL);
}

const struct model_family amdvi_family = {
	.kinds = amdvim_kind_names,
	.faults = amdvim_faults,
	.attach = family_attach,
	MODEL_FAMILY_STATE(family_model, family_driver),
	.protocol_errors = &family_model.protocol_errors,
};

struct amdvi_model *model_amdvi(void)
{
	return model_attached_state(&amdvi_family, false);
}

const struct ivrs *amdvi_units_ivrs(const struct iommu_units *u)
{
	return units_state(u, &amdvi_backend);
}

/* ---- the descriptor ------------------------------------------------------- */

const struct iommu_backend amdvi_backend = {
	.name = "amdvi",
	.title = "AMD-Vi",
	.discovery = &amdvi_discovery,
	.family = &amdvi_family,
	.open = open_unit,
	.settings = settings,
};
