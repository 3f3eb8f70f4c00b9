/* The AMD-Vi backend as the registry sees it: IVRS IVHD units, opened with
 * the settings that belong to this driver (amdvi.levels, amdvi.xt), which
 * live here beside it. */
#include <string.h>

#include "amdvi.h"
#include "core/monitor/settings.h"
#include "iommu/machine.h"

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

static const char *const models[] = { "amdvi", NULL };

const struct iommu_backend amdvi_backend = {
	.name = "amdvi",
	.title = "AMD-Vi",
	.unit_types = 1u << IOMMU_AMDVI,
	.models = models,
	.open = open_unit,
	.settings = settings,
};
