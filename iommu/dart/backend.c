/* The DART backend as the registry sees it: driven on its model only (a
 * DART is described by a device tree, not by ACPI), and its model's
 * family, the one place that builds the driver on the model. */
#include <string.h>

#include "dart.h"
#include "iommu/models/models.h"
#include "model.h"

/* ---- the family: what `model dart-u3` and `model dart-u4` attach ---------- */

static struct dart_model family_model;
static struct dart family_driver;

static bool family_translate(void *m, uint64_t iova, bool write, uint64_t *phys)
{
	return dartm_translate(m, iova, write, phys);
}

/* the invalid-entry scheme: stray DMA faults and shows in EXCP */
static const char *family_attach(const char *kind, struct model_engine *e)
{
	bool u4 = strcmp(kind, "dart-u4") == 0;
	dartm_init(&family_model, u4);
	const char *err = dart_init(&family_driver, &family_model.win, u4, kind, 0, false);
	model_engine_init(e, "model-engine", (struct pci_addr){ 0, MODEL_ENGINE_BUS, 1, 0 }, 32, family_translate,
			  &family_model);
	return err;
}

const struct model_family dart_family = {
	.kinds = dartm_kind_names,
	.faults = dartm_faults,
	.attach = family_attach,
	MODEL_FAMILY_STATE(family_model, family_driver),
};

struct dart_model *model_dart(void)
{
	return model_attached_state(&dart_family, false);
}

struct dart *model_dart_driver(void)
{
	return model_attached_state(&dart_family, true);
}

/* ---- the descriptor ------------------------------------------------------- */

const struct iommu_backend dart_backend = {
	.name = "dart",
	.title = "DART (Apple U3/U4)",
	.family = &dart_family,
	.found_by = "DARTs are described by a device tree (PowerMac G5), not by ACPI",
};
