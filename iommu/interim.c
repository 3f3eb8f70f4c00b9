/* INTERIM (see interim.h). */
#include "interim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/monitor.h"
#include "../core/settings.h"
#include "../tests/models/models.h"
#include "vtd.h"

static struct vtd vtd;
static const struct iommu_ops *base_ops;
static struct iommu_ops ops;

static const char *interim_give_back(struct iommu *io)
{
	const char *e = base_ops->give_back(io);
	snprintf(io->restore_note, sizeof(io->restore_note), "%s", vtd.restore_note);
	return e;
}

static bool interim_as_found(struct iommu *io, char *out, size_t n)
{
	(void)io;
	return vtd_as_found(&vtd, out, n);
}

static struct iommu *vtd_open_unit(const struct iommu_unit *unit, const struct iommu_units *all,
				   const struct pci_list *pci, const char **why)
{
	const char *lv = setting_get("vtd.levels"), *by = setting_get("vtd.bystanders");
	vtd.want_levels = strcmp(lv, "auto") == 0 ? 0 : (unsigned)atoi(lv);
	vtd.want_bystanders = strcmp(by, "passthrough") == 0 ? VTD_BYSTANDERS_PT
			      : strcmp(by, "identity") == 0  ? VTD_BYSTANDERS_IDENTITY
							     : VTD_BYSTANDERS_AUTO;
	*why = vtd_open(&vtd, unit, &all->dmar, pci);
	if (*why)
		return NULL;
	base_ops = vtd.io.ops;
	ops = *base_ops;
	ops.give_back = interim_give_back;
	ops.as_found = interim_as_found;
	vtd.io.ops = &ops;
	return &vtd.io;
}

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

static void vtd_settings(void)
{
	setting_add("vtd.levels", "auto", "VT-d second-level walk: auto (deepest SAGAW offers), 3 or 4", check_levels,
		    NULL);
	setting_add("vtd.bystanders", "auto",
		    "VT-d devices not under test: auto (pass-through if ECAP.PT, else identity), passthrough, identity",
		    check_bystanders, NULL);
}

const struct iommu_backend vtd_backend = {
	.name = "vtd",
	.title = "Intel VT-d",
	.unit_types = 1u << IOMMU_VTD,
	.open = vtd_open_unit,
	.settings = vtd_settings,
};

static const char *check_samples(const char *v)
{
	unsigned long long n;
	return parse_range(v, 1, 100000, "a count", &n);
}

static void interim_settings(void)
{
	setting_add("dma.samples", "200", "DMAs per size and direction in dma.latency", check_samples, NULL);
}

const struct subsystem interim_subsystem = {
	.name = "interim",
	.settings = interim_settings,
};
