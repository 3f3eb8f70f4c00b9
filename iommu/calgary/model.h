/* A register-level model of one IBM Calgary (PCI-X) or CalIOC2 (PCIe)
 * chip, from shared/specs/calgary.md: a 1 MiB big-endian register window
 * with four PHBs, TCE tables read big-endian from RAM, a TCE cache per PHB
 * that keeps serving entries until TAR is written again, the CSR error
 * register set by a forbidden DMA, and the flush handshakes (AER and the
 * split queue on Calgary; SoftStop, SoftStopFault and HardStop on CalIOC2).
 *
 * Where the spec marks a fact [unverified], the model makes a choice and
 * says so here: a translation fault sets CSR bit 31 with agent id 1 in bits
 * 20:16; nothing records the faulting address.
 *
 * The model keeps its own reading of the spec on purpose and never
 * includes iommu/calgary/regs.h: a shared header would let a wrong offset
 * pass both the driver and the model. */
#ifndef IOMMON_CALGARY_MODEL_H
#define IOMMON_CALGARY_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "core/base/regwin.h"
#include "iommu/models/models.h"

#define CALM_PHBS 4
#define CALM_WINDOW 0x100000
#define CALM_CSR_FAULT 0x80010000u /* the model's fault code: bit 31, agent 1 */

struct calm_phb {
	uint64_t tar;
	uint32_t config, csr, plssr, aer, pmcr, pmdr;
	uint32_t mem1_lo, mem1_hi, mem1_size, savior;
	uint8_t start_bus, end_bus;
	enum { CALM_RUNNING, CALM_SOFTSTOP, CALM_HARDSTOP } stop;
	struct {
		bool valid;
		uint64_t index, tce;
	} cache[64];
	unsigned cache_size, cache_next; /* entries in use (configurable, at most 64) */
	unsigned blasts;		 /* TAR writes that dropped the cache */
};

struct calgary_model {
	bool ioc2;
	uint64_t ccr;
	struct calm_phb phb[CALM_PHBS];
	/* faults injected */
	bool split_stuck;	  /* the split queue never quiesces */
	unsigned softstop_faults; /* PMDR reports SoftStopFault this many more times */
	bool all_ones;		  /* nothing answers */
	/* what the driver did wrong */
	unsigned bad_width, reserved_writes, protocol_errors;
	unsigned splitq_reads;
	struct regwin win;
};

void calm_init(struct calgary_model *m, bool ioc2);
/* A DMA from behind PHB `phb`: the physical address, or false after
 * setting CSR (an invalid or forbidding TCE, or an IOVA past the table). */
bool calm_translate(struct calgary_model *m, unsigned phb, uint64_t iova, bool write, uint64_t *phys);

/* ---- the family: what `model calgary` and `model calioc2` attach ---- */

/* What the model offers its family: the faults `model` can inject and the
 * kinds it models. The family itself (iommu/models/models.h) is defined
 * beside the backend's descriptor (backend.c), which builds the model, the
 * engine behind its bridge and the driver on the model's window: this
 * model sees nothing of its driver. */
extern const struct model_fault calm_faults[];
extern const char *const calm_kind_names[];
extern const struct model_family calgary_family;

/* The attached model, for cases that reach into it (NULL when another
 * kind, or none, is attached); backend.c. */
struct calgary_model *model_calgary(void);

#endif
