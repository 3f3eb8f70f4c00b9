/* The Apple DART backend as the registry sees it (the list's `apple`):
 * driven on its model only (Apple DARTs are described by the Apple Silicon
 * device tree, not by ACPI), and its model's family, the one place that
 * builds the driver on the model. */
#include <string.h>

#include "apple_dart.h"
#include "iommu/models/models.h"
#include "model.h"

/* ---- the family: what `model apple-t8103|t6000|t8110` attaches ------------ */

#define FAMILY_STREAM 1 /* the engine's stream */

static struct apple_dart_model family_model;
static struct apple_dart family_driver;

static bool family_translate(void *m, uint64_t iova, bool write, uint64_t *phys)
{
	return adm_translate(m, FAMILY_STREAM, iova, write, phys);
}

static const char *family_attach(const char *kind, struct model_engine *e)
{
	enum adm_layout l = strcmp(kind, "apple-t8103") == 0   ? ADM_T8103
			    : strcmp(kind, "apple-t6000") == 0 ? ADM_T6000
							       : ADM_T8110;
	adm_init(&family_model, l, 14);
	const char *err =
	    apple_dart_init(&family_driver, &family_model.win, (enum apple_dart_layout)l, kind, FAMILY_STREAM);
	model_engine_init(e, "model-engine", (struct pci_addr){ 0, MODEL_ENGINE_BUS, 0, FAMILY_STREAM }, 36,
			  family_translate, &family_model);
	return err;
}

const struct model_family apple_family = {
	.kinds = adm_kind_names,
	.faults = adm_faults,
	.attach = family_attach,
	MODEL_FAMILY_STATE(family_model, family_driver),
};

struct apple_dart_model *model_apple(void)
{
	return model_attached_state(&apple_family, false);
}

/* ---- the descriptor ------------------------------------------------------- */

const struct iommu_backend apple_backend = {
	.name = "apple",
	.title = "Apple DART (M1/M2)",
	.family = &apple_family,
	.found_by = "Apple DARTs are described by the Apple Silicon device tree, not by ACPI",
};
