/* A register-level model of Apple's DART (the IOMMU of Apple Silicon) from
 * shared/specs/dart.md section 2: the T8020 register layout (t8103 M1 with
 * DART1 page-table entries, t6000 M1 Pro/Max with DART2 entries) and the
 * T8110 layout (DART2 entries), little-endian 32-bit registers, stream
 * control and TTBRs per stream, a two-level walk from RAM below each TTBR
 * with a 16 KiB (or 4 KiB) granule, a TLB that serves stale entries until
 * the stream's or the global invalidation runs, and the ERROR register
 * with the faulting address.
 *
 * The model keeps its own reading of the spec on purpose and never
 * includes iommu/apple_dart/regs.h: a shared header would let a wrong
 * offset pass both the driver and the model. */
#ifndef IOMMON_APPLE_DART_MODEL_H
#define IOMMON_APPLE_DART_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "core/base/regwin.h"
#include "iommu/models/models.h"

#define ADM_WINDOW 0x4000
#define ADM_STREAMS 16

enum adm_layout { ADM_T8103, ADM_T6000, ADM_T8110 };

struct apple_dart_model {
	enum adm_layout layout;
	unsigned page_shift; /* 14 (16 KiB) or 12 */
	uint32_t tcr[ADM_STREAMS], ttbr[ADM_STREAMS][4];
	uint32_t enabled; /* stream enable bitmap */
	uint32_t select;  /* T8020 STREAM_SELECT */
	uint32_t error, error_mask;
	uint64_t error_addr;
	bool locked;
	struct {
		bool valid;
		unsigned sid;
		uint64_t vpn, pte;
	} tlb[32];
	unsigned tlb_size, tlb_next;
	/* faults injected */
	bool busy_stuck; /* invalidations never finish */
	bool all_ones;
	/* what the driver did wrong */
	unsigned bad_width, reserved_writes, invalidations;
	struct regwin win;
};

void adm_init(struct apple_dart_model *m, enum adm_layout layout, unsigned page_shift);
bool adm_translate(struct apple_dart_model *m, unsigned sid, uint64_t iova, bool write, uint64_t *phys);

/* ---- the family: what `model apple-t8103`, `apple-t6000` and `apple-t8110` attach ---- */

/* What the model offers its family: the faults `model` can inject and the
 * kinds it models. The family itself (iommu/models/models.h) is defined
 * beside the backend's descriptor (backend.c), which builds the model, the
 * engine behind its bridge and the driver on the model's window: this
 * model sees nothing of its driver. */
extern const struct model_fault adm_faults[];
extern const char *const adm_kind_names[];
extern const struct model_family apple_family;

/* The attached model, for cases that reach into it (NULL when another
 * kind, or none, is attached); backend.c. */
struct apple_dart_model *model_apple(void);

#endif
