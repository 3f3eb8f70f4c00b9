/* Hardware models the monitor itself can attach (`model calgary`, ...):
 * a register-level model of an IOMMU no emulator provides, its driver, and
 * a DMA engine behind the model's bridge that moves data through the
 * model's translation. The `calgary` and `dart` groups run against the
 * attached model; every record they make says "model": true. */
#ifndef IOMMON_MODELS_H
#define IOMMON_MODELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../iommu/iommu.h"
#include "../../pci/dma.h"

/* A model engine: moves data between RAM and its own buffer through a
 * translate callback (the model's bridge). A refused translation is a
 * master abort: the device gets an error, a write is dropped, a read
 * returns all ones. */
struct model_engine {
	struct dma_engine e;
	bool (*translate)(void *model, uint64_t iova, bool write, uint64_t *phys);
	void *model;
	uint8_t buf[65536];
	unsigned aborts;
};

void model_engine_init(struct model_engine *m, const char *kind, struct pci_addr addr, unsigned addr_bits,
		       bool (*translate)(void *, uint64_t, bool, uint64_t *), void *model);

/* The kinds `model` attaches, with the faults each can be given. */
extern const char *const model_kinds[];
extern const char *const model_faults[];

/* Attaches a model of `kind` with an injected `fault` ("none", or one of
 * model_faults); NULL, or why not. "none" as the kind detaches. */
const char *model_attach(const char *kind, const char *fault);
/* The attached model, if its backend is `backend` ("calgary", "dart"). */
bool model_bench(const char *backend, struct iommu **io, struct dma_engine **e, const char **why);
/* The attached model's unit and the engine behind it, whichever backend
 * drives it (NULL when none is attached). */
struct iommu *model_unit(struct dma_engine **e);
/* Detaches (the model's unit given back first). */
void model_detach(void);
/* What the driver did that the hardware forbids, since the model was
 * attached: accesses outside the window or of the wrong width, reserved
 * fields written, flushes outside the quiet state. 0 when none; `out`
 * says which. */
unsigned model_violations(char *out, size_t n);
/* The kind attached ("calgary", ...), or NULL. */
const char *model_attached_kind(void);
/* One line describing what is attached, for `model` without arguments. */
const char *model_describe(void);

/* The attached model's internals, for cases that inject faults or change
 * the entry scheme (NULL when another kind, or none, is attached). */
struct calgary_model;
struct dart_model;
struct dart;
struct calgary_model *model_calgary(void);
struct dart_model *model_dart(void);
struct dart *model_dart_driver(void);
struct apple_dart_model;
struct apple_dart_model *model_apple(void);

#endif
