/* The Calgary backend as the registry sees it: Calgary's PCI functions
 * and the register windows the EBDA names (what `iommu` says of them; it
 * is driven on its model only), its setting (calgary.fence), and its
 * model's family, the one place that builds the driver on the model. */
#include <stdio.h>
#include <string.h>

#include "calgary.h"
#include "core/base/memmap.h"
#include "core/base/platform.h"
#include "core/monitor/settings.h"
#include "iommu/models/models.h"
#include "model.h"

/* ---- the family: what `model calgary` and `model calioc2` attach -------- */

static struct calgary_model family_model;
static struct calgary family_driver;

/* the engine is on PHB 0's buses */
static bool family_translate(void *m, uint64_t iova, bool write, uint64_t *phys)
{
	return calm_translate(m, 0, iova, write, phys);
}

static const char *family_attach(const char *kind, struct model_engine *e)
{
	bool ioc2 = strcmp(kind, "calioc2") == 0;
	calm_init(&family_model, ioc2);
	const char *err = calgary_init(&family_driver, &family_model.win, ioc2, kind, 3);
	family_driver.fence = setting_bool("calgary.fence");
	model_engine_init(e, "model-engine", (struct pci_addr){ 0, MODEL_ENGINE_BUS, 1, 0 }, 32, family_translate,
			  &family_model);
	return err;
}

const struct model_family calgary_family = {
	.kinds = calm_kind_names,
	.faults = calm_faults,
	.attach = family_attach,
	MODEL_FAMILY_STATE(family_model, family_driver),
	.protocol_errors = &family_model.protocol_errors,
};

struct calgary_model *model_calgary(void)
{
	return model_attached_state(&calgary_family, false);
}

/* ---- the descriptor ------------------------------------------------------- */

static const struct iommu_pci_id calgary_pci_ids[] = {
	{ 0x1014, 0x02a1, "Calgary" },
	{ 0x1014, 0x0308, "CalIOC2" },
	{ 0 },
};

/* Calgary is a PCI function whose registers the EBDA names, not an ACPI
 * unit: `iommu` shows the register windows the Rio Grande table gives. */
static void calgary_describe(const struct pci_list *pci)
{
	(void)pci; /* the functions themselves: listed by `iommu` from calgary_pci_ids */
	if (!platform->hardware)
		return;
	uint32_t bbar[8];
	const char *why = NULL;
	size_t n = calgary_ebda_bbars(bbar, 8, &why);
	for (size_t k = 0; k < n; k++) {
		const char *no = memmap_mmio_refusal(bbar[k], 0x1000);
		printf("  Calgary register window (BBAR) at 0x%08x, from the EBDA's Rio Grande table%s%s\n", bbar[k],
		       no ? ": not a register window, " : "", no ? no : "");
	}
	if (!n)
		printf("  no Calgary register window found: %s\n", why ? why : "no Calgary in the Rio table");
}

static void calgary_settings(void)
{
	setting_add("calgary.fence", "off",
		    "Calgary: on an error, disable the faulting PHB's slots as Linux did (on) or leave them (off)",
		    setting_check_on_off, NULL);
}

const struct iommu_backend calgary_backend = {
	.name = "calgary",
	.title = "IBM Calgary / CalIOC2",
	.pci_ids = calgary_pci_ids,
	.family = &calgary_family,
	.describe = calgary_describe,
	.settings = calgary_settings,
};
