/* A register-level model of the PowerPC DART (Apple U3 and U4 northbridges)
 * from shared/specs/dart.md: 32-bit big-endian registers, a table of
 * 32-bit big-endian entries read from RAM, a TLB that keeps serving
 * entries until FLUSHTLB (or, on U4, invalidate-one) runs, and EXCP.
 *
 * [unverified] in the spec, so the model's own choices: an access through
 * an invalid entry or past the table sets EXCP to 0x80000000 | page index
 * (low 27 bits); EXCP keeps the first exception until software writes it.
 *
 * The model keeps its own reading of the spec on purpose and never
 * includes iommu/dart/regs.h: a shared header would let a wrong offset
 * pass both the driver and the model. */
#ifndef IOMMON_DART_MODEL_H
#define IOMMON_DART_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "core/base/regwin.h"
#include "iommu/models/models.h"

#define DARTM_WINDOW 0x2000

struct dart_model {
	bool u4;
	uint32_t cntl, base, size, excp;
	struct {
		bool valid;
		uint32_t index, entry;
	} tlb[64];
	unsigned tlb_size, tlb_next;
	unsigned busy_reads; /* reads before FLUSHTLB / IONE clear */
	unsigned busy_left;
	/* faults injected */
	unsigned deaf_sets; /* this many FLUSHTLB sets go unnoticed (the bit just stays set) */
	bool flush_stuck;   /* FLUSHTLB never clears */
	bool all_ones;	    /* nothing answers */
	/* what the driver did wrong */
	unsigned bad_width, reserved_writes;
	unsigned flushes, ione;
	struct regwin win;
};

void dartm_init(struct dart_model *m, bool u4);
bool dartm_translate(struct dart_model *m, uint64_t iova, bool write, uint64_t *phys);

/* ---- the family: what `model dart-u3` and `model dart-u4` attach ---- */

/* What the model offers its family: the faults `model` can inject and the
 * kinds it models. The family itself (iommu/models/models.h) is defined
 * beside the backend's descriptor (backend.c), which builds the model, the
 * engine behind its bridge and the driver on the model's window: this
 * model sees nothing of its driver. */
extern const struct model_fault dartm_faults[];
extern const char *const dartm_kind_names[];
extern const struct model_family dart_family;

/* The attached model and its driver, for cases that reach into it (NULL when another
 * kind, or none, is attached); backend.c. */
struct dart_model *model_dart(void);
struct dart;
struct dart *model_dart_driver(void);

#endif
