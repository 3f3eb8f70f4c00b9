/* The SMMUv3 backend as the registry sees it: IORT SMMUv3 nodes (found by
 * discover.c), opened with the settings that belong to this driver
 * (smmuv3.granule, smmuv3.strtab, smmuv3.stage), which live here beside
 * it; and its model's family, the one place that builds the driver on the
 * model. The IORT says which devices' requester ids reach the unit and as
 * which stream ids (every one of them bypasses while the device under test
 * translates), whether the unit's accesses are coherent, and which
 * reserved ranges (RMR) a stream must keep identity-mapped. */
#include <string.h>

#include "core/monitor/settings.h"
#include "iommu/models/models.h"
#include "model.h"
#include "pci/alias.h"
#include "smmuv3.h"

/* One unit is open at a time: the registry's open hands out this one. */
static struct smmuv3 unit;

static const char *check_granule(const char *v)
{
	return strcmp(v, "auto") == 0 || strcmp(v, "4k") == 0 || strcmp(v, "16k") == 0 || strcmp(v, "64k") == 0
		   ? NULL
		   : "must be auto, 4k, 16k or 64k (a granule IDR5 offers; auto: the smallest)";
}

static const char *check_strtab(const char *v)
{
	return strcmp(v, "auto") == 0 || strcmp(v, "linear") == 0 || strcmp(v, "2level") == 0
		   ? NULL
		   : "must be auto, linear or 2level (2level needs IDR0.ST_LEVEL)";
}

static const char *check_stage(const char *v)
{
	return strcmp(v, "auto") == 0 || strcmp(v, "1") == 0 || strcmp(v, "2") == 0 || strcmp(v, "nested") == 0
		   ? NULL
		   : "must be auto, 1, 2 or nested (2 needs IDR0.S2P, nested both stages; auto: stage 1 where "
		     "IDR0.S1P, "
		     "else 2)";
}

static const char *check_concat(const char *v)
{
	return strcmp(v, "auto") == 0 || strcmp(v, "always") == 0
		   ? NULL
		   : "must be auto (concatenated stage-2 start tables only where a walk needs them) or always "
		     "(wherever they save a level)";
}

static const char *check_claim(const char *v)
{
	static const char *const ok[] = { "none", "bsa", "sbsa4", "sbsa5", "sbsa6", "sbsa7", "sbsa-fr" };
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		if (strcmp(v, ok[i]) == 0)
			return NULL;
	return "must be none, bsa, sbsa4, sbsa5, sbsa6, sbsa7 or sbsa-fr";
}

static void settings(void)
{
	setting_add("smmuv3.arm_claim", "none",
		    "the Arm compliance level the machine claims, whose SMMU rules smmuv3.arch.level and "
		    "smmuv3.arch.requesters judge: none (reported only), bsa, sbsa4 ... sbsa7, sbsa-fr",
		    check_claim, NULL);
	setting_add("smmuv3.s2_concat", "auto",
		    "SMMUv3 stage-2 start tables: auto (concatenated only where no start level is deep enough) or "
		    "always (concatenated wherever that saves a level, as a hypervisor builds them)",
		    check_concat, NULL);
	setting_add("smmuv3.stage", "auto",
		    "SMMUv3 stage the device under test translates at: auto (1 where IDR0.S1P, else 2), 1, 2 or nested "
		    "(stage 1 behind a stage-2 identity)",
		    check_stage, NULL);
	setting_add("smmuv3.granule", "auto",
		    "SMMUv3 translation granule: auto (the smallest IDR5 offers), 4k, 16k or 64k", check_granule, NULL);
	setting_add("smmuv3.strtab", "auto",
		    "SMMUv3 stream table: auto (2-level where IDR0.ST_LEVEL offers it and SIDSIZE exceeds 10 bits), "
		    "linear or 2level",
		    check_strtab, NULL);
}

void smmuv3_settings_apply(struct smmuv3 *s)
{
	const char *g = setting_get("smmuv3.granule"), *t = setting_get("smmuv3.strtab"),
		   *st = setting_get("smmuv3.stage"), *cc = setting_get("smmuv3.s2_concat");
	s->want_s2_fewest = cc && strcmp(cc, "always") == 0;
	s->want_stage = !st			    ? SMMUV3_STAGE_AUTO
			: strcmp(st, "1") == 0	    ? SMMUV3_STAGE_1
			: strcmp(st, "2") == 0	    ? SMMUV3_STAGE_2
			: strcmp(st, "nested") == 0 ? SMMUV3_STAGE_NESTED
						    : SMMUV3_STAGE_AUTO;
	s->want_granule_bits = !g		       ? 0
			       : strcmp(g, "4k") == 0  ? 12
			       : strcmp(g, "16k") == 0 ? 14
			       : strcmp(g, "64k") == 0 ? 16
						       : 0;
	s->want_strtab = !t			    ? SMMUV3_STRTAB_AUTO
			 : strcmp(t, "linear") == 0 ? SMMUV3_STRTAB_LINEAR
			 : strcmp(t, "2level") == 0 ? SMMUV3_STRTAB_2LEVEL
						    : SMMUV3_STRTAB_AUTO;
}

/* What the IORT says of SMMU `idx`: the devices behind it and every
 * requester id their DMA carries (pci_dma_aliases: a bridge's id, or its
 * secondary bus with devfn 0, as a function of its own), the RMRs. */
static void from_iort(struct smmuv3 *s, const struct iort *t, size_t idx, const struct pci_list *pci)
{
	for (size_t i = 0; pci && i < pci->n; i++) {
		struct pci_aliases al;
		pci_dma_aliases(pci, i, &al);
		for (size_t k = 0; k < al.n; k++) {
			uint16_t rid = al.a[k].rid;
			struct pci_addr a = { pci->d[i].addr.seg, (uint8_t)(rid >> 8), (rid >> 3) & 0x1f, rid & 7 };
			size_t smmu;
			uint32_t sid;
			bool known = false;
			for (size_t m = 0; m < s->nstreams && !known; m++)
				known = pci_addr_eq(s->stream[m].dev, a);
			if (!known && iort_map_rid(t, a.seg, rid, &smmu, &sid) && smmu == idx)
				smmuv3_add_stream(s, a, sid);
		}
	}
	for (size_t r = 0; r < t->nrmr; r++)
		for (size_t k = 0; k < t->rmr[r].nstreams; k++) {
			if (t->rmr[r].stream[k].smmu != idx)
				continue;
			for (size_t g = 0; g < t->rmr[r].nranges; g++) {
				const struct iort_range *rg = &t->rmr[r].range[g];
				smmuv3_add_rmr(s, t->rmr[r].stream[k].sid, rg->base, rg->base + rg->length);
			}
		}
}

static struct iommu *open_unit(const struct iommu_unit *u, const struct iommu_units *all, const struct pci_list *pci,
			       const char **why)
{
	if (iommu_backend_holds(&unit.io, u->name, why))
		return &unit.io;
	if (*why)
		return NULL;
	const struct iort *iort = smmuv3_units_iort(all);
	if (u->backend != &smmuv3_backend || !iort || u->src >= iort->nsmmu) {
		*why = iommu_fail(&unit.io, IOMMU_ERR_ARGUMENT, "not an IORT SMMUv3 unit");
		return NULL;
	}
	if (u->refused[0]) {
		*why = iommu_fail(&unit.io, IOMMU_ERR_UNUSABLE, u->refused);
		return NULL;
	}
	struct regwin w;
	if ((*why = units_open_window(u, &w)) != NULL) {
		iommu_fail(&unit.io, IOMMU_ERR_UNUSABLE, *why);
		return NULL;
	}
	smmuv3_settings_apply(&unit);
	/* the firmware's word on coherency wins over IDR0.COHACC (IORT
	 * COHACC Override), as it describes how the unit is wired */
	unit.noncoherent_fw = !iort->smmu[u->src].coherent;
	unit.gsiv_event = iort->smmu[u->src].gsiv_event;
	unit.gsiv_gerr = iort->smmu[u->src].gsiv_gerr;
	if ((*why = smmuv3_init(&unit, &w, u->name)) != NULL)
		return NULL;
	from_iort(&unit, iort, u->src, pci);
	return &unit.io;
}

bool smmuv3_backend_had_2level(void)
{
	return unit.had_2level;
}

/* ---- the family: what `model smmuv3` attaches --------------------------- */

/* The model of each kind (iommu/smmuv3/model.c: QEMU 7.2's IDRs, a small
 * non-coherent linear-only unit, a 64K-only unit, a unit with both stages
 * and one with stage 2 alone), the engine behind it and a driver of its
 * own on the model's window, set up from the settings. */
static struct smmuv3_model family_model;
static struct smmuv3 family_driver;

struct smmuv3 *smmuv3_model_driver(void)
{
	return &family_driver;
}

/* the engine's requests carry its StreamID: its requester id (IORT's
 * identity mapping, as on QEMU's virt machine) */
static bool family_translate(void *m, uint64_t iova, bool write, uint64_t *phys)
{
	return smmuv3m_translate(m, ((struct smmuv3_model *)m)->engine_sid, iova, write, phys);
}

static const char *family_attach(const char *kind, struct model_engine *e)
{
	const struct pci_addr at = { 0, MODEL_ENGINE_BUS, 1, 0 };
	if (!smmuv3m_init(&family_model, kind))
		return "no such SMMUv3 model kind";
	family_model.engine_sid = pci_rid(at);
	/* the engine reaches what the unit can output (IDR5.OAS), so that the
	 * bench's buffers lie where a translation may put them: the host's own
	 * pointers run past 2^44 */
	model_engine_init(e, "model-engine", at, smmuv3m_oas_bits(family_model.kind->idr5 & 7), family_translate,
			  &family_model);
	smmuv3_settings_apply(&family_driver);
	return smmuv3_init(&family_driver, &family_model.win, kind);
}

const struct model_family smmuv3_family = {
	.kinds = smmuv3m_kind_names,
	.faults = smmuv3m_faults,
	.attach = family_attach,
	MODEL_FAMILY_STATE(family_model, family_driver),
	.protocol_errors = &family_model.protocol_errors,
};

struct smmuv3_model *model_smmuv3(void)
{
	return model_attached_state(&smmuv3_family, false);
}

const struct iort *smmuv3_units_iort(const struct iommu_units *u)
{
	return units_state(u, &smmuv3_backend);
}

/* ---- the descriptor ------------------------------------------------------- */

const struct iommu_backend smmuv3_backend = {
	.name = "smmuv3",
	.title = "Arm SMMUv3",
	.discovery = &smmuv3_discovery,
	.family = &smmuv3_family,
	.open = open_unit,
	.settings = settings,
};
