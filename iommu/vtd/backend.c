/* The VT-d backend as the registry sees it: DMAR remapping units, opened
 * with the settings that belong to this driver (vtd.levels,
 * vtd.bystanders, vtd.eime), which live here beside it. */
#include <stdlib.h>
#include <string.h>

#include "core/monitor/settings.h"
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

static void settings(void)
{
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
	unit.want_bystanders = !by				? VTD_BYSTANDERS_AUTO
			       : strcmp(by, "passthrough") == 0 ? VTD_BYSTANDERS_PT
			       : strcmp(by, "identity") == 0	? VTD_BYSTANDERS_IDENTITY
								: VTD_BYSTANDERS_AUTO;
	*why = vtd_open(&unit, u, &all->dmar, pci);
	return *why ? NULL : &unit.io;
}

static const char *const models[] = { "vtd", NULL };

const struct iommu_backend vtd_backend = {
	.name = "vtd",
	.title = "Intel VT-d",
	.unit_types = 1u << IOMMU_VTD,
	.models = models,
	.open = open_unit,
	.settings = settings,
};
