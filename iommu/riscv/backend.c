/* The RISC-V IOMMU backend as the registry sees it: units found as PCI
 * functions or in the device tree (discover.c), opened on their register
 * window with the machine's PCI buses as the bystanders' device ids; and
 * its model's family, the one place that builds the driver on the model. */
#include <string.h>

#include "discover.h"
#include "iommu/backend.h"
#include "iommu/models/models.h"
#include "model.h"
#include "rvi.h"

/* One unit is open at a time: the registry's open hands out this one. */
static struct rvi unit;

static struct iommu *open_unit(const struct iommu_unit *u, const struct iommu_units *all, const struct pci_list *pci,
			       const char **why)
{
	(void)all;
	if (iommu_backend_holds(&unit.io, u->name, why) || *why)
		return *why ? NULL : &unit.io;
	if (u->backend != &riscv_backend) {
		*why = "not a RISC-V IOMMU unit";
		return NULL;
	}
	if (u->refused[0]) {
		*why = u->refused;
		return NULL;
	}
	struct regwin w;
	if ((*why = units_open_window(u, &w)) != NULL)
		return NULL;
	/* every bus the machine has, in full: the bystanders' device ids */
	unsigned top = 0;
	for (size_t i = 0; pci && i < pci->n; i++) {
		unsigned b = pci->d[i].header_type & 0x7f ? pci->d[i].sub_bus : pci->d[i].addr.bus;
		if (pci->d[i].addr.seg == u->segment && b > top)
			top = b;
	}
	*why = rvi_init(&unit, &w, u->name, (top + 1u) << 8);
	return *why ? NULL : &unit.io;
}

/* ---- the family: what `model riscv` attaches ------------------------------ */

static struct rvi_model family_model;
static struct rvi family_driver;

/* the engine's requests carry its requester id as their device id */
static bool family_translate(void *m, uint64_t iova, bool write, uint64_t *phys)
{
	return rvim_translate(m, ((struct rvi_model *)m)->engine_did, iova, write, phys);
}

/* The model out of reset (ddtp Off), offering the G stage alone for kind
 * riscv-g, its engine, and a driver of its own on the model's window whose
 * bystanders are every id up to the engine's bus. */
static const char *family_attach(const char *kind, struct model_engine *e)
{
	const struct pci_addr at = { 0, MODEL_ENGINE_BUS, 1, 0 };
	rvim_init(&family_model);
	if (strcmp(kind, "riscv-g") == 0)
		rvim_offer_stages(&family_model, false, true);
	family_model.engine_did = pci_rid(at);
	model_engine_init(e, "model-engine", at, 64, family_translate, &family_model);
	model_engine_msi_write(e); /* an MSI is a write to an interrupt file's page */
	return rvi_init(&family_driver, &family_model.win, "riscv-model", (MODEL_ENGINE_BUS + 1u) << 8);
}

const struct model_family riscv_family = {
	.kinds = rvim_kind_names,
	.faults = rvim_faults,
	.attach = family_attach,
	MODEL_FAMILY_STATE(family_model, family_driver),
	.protocol_errors = &family_model.protocol_errors,
};

struct rvi_model *model_riscv(void)
{
	return model_attached_state(&riscv_family, false);
}

struct rvi *model_riscv_driver(void)
{
	return model_attached_state(&riscv_family, true);
}

/* ---- the descriptor ------------------------------------------------------- */

static const struct iommu_pci_id riscv_pci_ids[] = {
	{ 0x1b36, 0x0014, "QEMU riscv-iommu-pci" },
	{ 0 },
};

const struct iommu_backend riscv_backend = {
	.name = "riscv",
	.title = "RISC-V IOMMU",
	.discovery = &riscv_discovery,
	.pci_ids = riscv_pci_ids,
	.family = &riscv_family,
	.open = open_unit,
	.release = riscv_release,
};
