/* Hardware models the monitor itself can attach (`model calgary`, ...):
 * a register-level model of an IOMMU no emulator provides, its driver, and
 * a DMA engine behind the model's bridge that moves data through the
 * model's translation. Each model family is described beside its
 * backend's descriptor (struct model_family, which the descriptor points
 * at); models.c only looks them up and owns the `model` command. Cases run against the attached model; every record
 * they make says "model": true. */
#ifndef IOMMON_MODELS_H
#define IOMMON_MODELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/base/regwin.h"
#include "core/monitor/monitor.h"
#include "iommu/iommu.h"
#include "pci/dma.h"

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
	/* The engine's own MSI through the model's interrupt path (NULL: the
	 * model has none, and the engine sends no MSI): the message `addr`,
	 * `data` written by requester `rid`; true with the vector and local
	 * APIC it is delivered to, false when the model blocks it (and makes
	 * its fault record, as the unit would). */
	bool (*msi)(void *model, uint16_t rid, uint64_t addr, uint32_t data, uint8_t *vector, uint32_t *dest);
	struct msi_message msg; /* as programmed */
	bool msi_enabled;
	unsigned msi_delivered, msi_blocked;
	/* The "escape" fault: the engine's DMA bypasses the unit, IOVA =
	 * physical, as a device the unit keys by another requester id. It
	 * moves data only within buffers of ours (dmabuf_owns) and counts
	 * every write that would have landed anywhere else. */
	bool bypass;
	unsigned strays;
};

void model_engine_init(struct model_engine *m, const char *kind, struct pci_addr addr, unsigned addr_bits,
		       bool (*translate)(void *, uint64_t, bool, uint64_t *), void *model);
/* Gives the engine its MSI through the model's `msi` path: msi_program,
 * msi_raise and msi_off as a device's, a delivered message handed to
 * the monitor's handler by the platform (irq_send) as a local APIC
 * would, a blocked one dropped. */
void model_engine_msi(struct model_engine *m, bool (*msi)(void *, uint16_t, uint64_t, uint32_t, uint8_t *, uint32_t *));
/* Gives the engine an MSI that is only its memory write (RISC-V's IMSIC
 * files): 32 bits of data sent through the model's translation, stored in
 * a buffer of ours where it lands, counted a stray anywhere else. */
void model_engine_msi_write(struct model_engine *m);

/* The engine sits on this bus: the first PHB's (Calgary), behind the
 * bridge (DART), stream 1's requester (Apple DART). */
#define MODEL_ENGINE_BUS 0x10

/* A fault a family can inject, set on the model once its driver is built. */
struct model_fault {
	const char *name; /* "split-queue-stuck" */
	const char *what; /* what it injects, for people */
	const char *only; /* the one kind it applies to, or NULL: every kind of the family */
	void (*inject)(void *model);
	/* What the driver must say of it: its code at take-over, or at the
	 * first operation after (attach, then an invalidation); IOMMU_OK
	 * where the driver rides it out (test_models holds each family to it). */
	enum iommu_err at_take, after;
};

/* One model family: the model's kinds and faults (its model.c) and the
 * driver built on it, defined beside its backend's descriptor (the
 * family's backend.c), the one place that sees both. */
struct model_family {
	const char *const *kinds;	  /* "calgary", "calioc2"; NULL-terminated */
	const struct model_fault *faults; /* ends with a NULL name; "none", "all-ones" and "escape" are implied */
	/* Builds the model of `kind`, its driver on the model's register
	 * window, and the engine `e` behind its bridge. NULL or why not. */
	const char *(*attach)(const char *kind, struct model_engine *e);
	struct iommu *io; /* the driver's unit */
	void *model;	  /* the model's state (struct calgary_model, ...) */
	void *driver;	  /* the driver's state (struct calgary, ...) */
	/* What the model saw the driver do that the hardware forbids: the
	 * model's counters (NULL: it does not count that), and the register
	 * windows whose strays count too. */
	const unsigned *bad_width, *reserved_writes, *protocol_errors;
	const struct regwin *model_win, *driver_win;
	/* The fault every family takes, "all-ones": the window reads all ones. */
	bool *all_ones;
};

/* The fields a family fills from its model `m` and its driver `d` when
 * they use the usual names (the model's counters bad_width and
 * reserved_writes, its window `win` and all_ones flag; the driver's `io`
 * and window `w`). */
#define MODEL_FAMILY_STATE(m, d)                                                              \
	.io = &(d).io, .model = &(m), .driver = &(d), .bad_width = &(m).bad_width,            \
	.reserved_writes = &(m).reserved_writes, .model_win = &(m).win, .driver_win = &(d).w, \
	.all_ones = &(m).all_ones

/* The i-th kind `model` attaches, across the families; NULL past the last. */
const char *model_kind_at(size_t i);

/* Attaches a model of `kind` with an injected `fault` ("none", or one its
 * family offers); NULL, or why not. "none" as the kind detaches. */
const char *model_attach(const char *kind, const char *fault);
/* The attached model's unit and the engine behind it, whichever backend
 * drives it (io->backend says which; NULL when none is attached). */
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

/* The `model` command; release gives the attached model's unit back. */
extern const struct subsystem model_subsystem;

/* The attached family's model state (or, with `driver`, its driver's),
 * for the family's own accessors (model_calgary(), ...); NULL when
 * another family, or none, is attached. */
void *model_attached_state(const struct model_family *f, bool driver);

#endif
