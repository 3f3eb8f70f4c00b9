/* The bench the IOMMU cases run on: an IOMMU taken over and a DMA engine
 * behind it, the device under test in a domain of its own (iommu/bench.c).
 * Shared by the IOMMU cases (iommu/: the shared ones and each backend's
 * own) and the price of safety (price.c). Nothing here names a backend. */
#ifndef IOMMON_BENCH_H
#define IOMMON_BENCH_H

#include <stdbool.h>
#include <stdint.h>

#include "core/base/dmabuf.h"
#include "core/monitor/runner.h"
#include "iommu/iommu.h"
#include "pci/dma.h"

struct env {
	struct test_ctx *t;
	bool machine; /* the machine's own unit (held and given back by iommu/session.c) */
	struct dma_engine *e;
	struct iommu *io;
	/* Buffers the unit translates for: below this (0: anywhere). The lower
	 * half of the IOVAs the device reaches when RAM lies there, apart from
	 * the upper half the IOVAs come from; anywhere when none does (edu on
	 * Arm's virt machine: 28 bits, RAM from 1 GiB up), which is what an
	 * IOMMU is for. */
	uint64_t limit;
	unsigned bits; /* IOVAs below 2^bits */
	/* What the device reaches with nothing translating (translation off,
	 * pass-through, a bypass entry): below `direct` (0: everything); and
	 * why no buffer can be had there ("" when one can). */
	uint64_t direct;
	char direct_why[112];
	size_t len;	   /* the transfer size the cases use */
	const char *label; /* "nvme", "edu" */
	uint64_t pg;	   /* the unit's smallest page: what the cases map */
	uint64_t t_take;
};

/* Takes over a unit of `backend` ("vtd", "calgary"...): for a backend that
 * drives the units the firmware describes, the machine's unit behind the
 * device under test; for the others, the register-level model `model`
 * attached. NULL: the machine's unit behind the device under test, of
 * whichever backend. False, with the test skipped or failed, when there is
 * none or it could not be taken. */
bool bench_setup(struct test_ctx *t, struct env *v, const char *backend);
/* The same in one of the unit's translation modes (io->modes, ops->mode;
 * NULL: its default): a unit that does not offer it makes the case not
 * applicable, saying so. */
bool bench_setup_mode(struct test_ctx *t, struct env *v, const char *backend, const char *mode);
/* The machine's unit in front of the device at `a`, opened into *io for a
 * case of backend `b` (NULL: any): false, the test skipped for the unit's
 * reason, when it cannot be had: none covers the device, another
 * backend's, one no backend drives, or one refused ("riscv0 refused: ...",
 * whatever refused it). Asked before the device is brought up, so that a
 * device is never made to DMA behind a unit a case cannot have. */
struct iommu_backend;
bool bench_unit_in_front(struct test_ctx *t, const struct iommu_backend *b, struct pci_addr a, struct iommu **io);
/* Gives the unit back (a claim that it went back as found). */
void bench_teardown(struct env *v);
/* What a case needs of the unit it got: true when `have`; else the unit is
 * given back and the test skipped for `reason`, saying why. */
bool bench_needs(struct env *v, bool have, enum skip_reason reason, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* A buffer of `len` bytes for DMA the unit translates through leaves of
 * `leaf` bytes: below v->limit, and where a leaf covers more than the
 * device reaches (one leaf: IOVA = the offset in it), at an offset in its
 * leaf the device reaches. False when none could be had (printed why). */
bool bench_buffer(struct env *v, struct dmabuf *b, size_t len, uint64_t leaf);
/* A buffer the device reaches untranslated: `have` itself when it lies
 * within reach, else a new one in *b (*use points at whichever); false
 * when none can be had (v->direct_why says why). */
bool bench_direct_buffer(struct env *v, struct dmabuf *have, struct dmabuf *b, struct dmabuf **use);
/* Every other DMA-capable function behind the same unit DMAs to a physical
 * buffer while the unit translates: a claim each; returns how many were
 * tried, *fine how many worked. One that reaches no RAM untranslated
 * (its entry bypasses the unit) is not tried: it is named, with why. */
size_t bench_bystanders(struct env *v, size_t *fine);
/* The device under test in its own empty domain, its own queues mapped. */
const char *bench_translate(struct env *v);
/* Whether [base, base+size) meets the device's own queues or the
 * interrupt range (never an IOVA of a case's). */
bool bench_overlaps_own(const struct env *v, uint64_t base, uint64_t size);
/* The proof that the unit translates what the device emits (proof.c):
 * true, or false with the case reported and the bench torn down. */
bool bench_prove_translated(struct env *v);
/* A fault `io` recorded under a requester id that is neither among those
 * the DMA of the device at `a` can carry nor another DMA-mastering
 * function's, with none under the device's own, said before `engine`
 * (what failed); NULL when there is none, and then the first fault under
 * the device's own ids said in `own` (`own_n` bytes; "" when none; NULL
 * not asked). Reads the unit's fault records. */
const char *bench_foreign_id(struct iommu *io, struct pci_addr a, const char *engine, char *own, size_t own_n);
/* The slot-th usable IOVA window of `size`, counting down from the top. */
uint64_t bench_window(const struct env *v, uint64_t size, unsigned slot);
bool bench_dma(struct env *v, enum dma_dir dir, uint64_t iova, size_t len, struct dma_result *r);
/* The fault-queue overflow probe: `fired` forbidden reads of `iova`
 * (where nothing is mapped), none read meanwhile; then every record
 * drained (`drained`, and `lost` when the driver said some were lost);
 * then one more read, whose records (`after`, `after_ovf`) show whether
 * the queue records again. */
struct overflow {
	unsigned fired;
	size_t drained, after;
	bool lost, after_ovf;
};
void bench_overflow(struct env *v, uint64_t iova, unsigned fired, struct overflow *o);
/* The first invalidation kind of a granularity, or (size_t)-1. */
size_t bench_kind_for(const struct iommu *io, const char *gran);
/* The kind named `name` ("queued-page"), or (size_t)-1. */
size_t bench_kind_named(const struct iommu *io, const char *name);
/* The narrowest invalidation the unit offers that covers the range. */
const char *bench_invalidate(struct env *v, const char *gran, uint64_t iova, uint64_t size);
/* DMAs per timed series: dma.samples, or 3 on an engine with a fixed delay. */
size_t bench_samples(const struct env *v);
/* The note a measure on a fixed-delay engine carries (in buf), or NULL. */
const char *bench_note(const struct env *v, char *buf, size_t n);
/* Running under QEMU's TCG (timing.platform), where a finding may be
 * QEMU's rather than the hardware's. */
bool bench_on_qemu(void);

/* The stale-translation probe: map IOVA -> A, DMA (the unit's caches learn
 * it), repoint the IOVA to B without telling the unit, DMA again: which
 * buffer did the device write? Then invalidate (if the way has one) and
 * DMA once more. A backend's own cases bring their own ways (VT-d moves
 * the device to another domain through its context entry). */
struct stale_way {
	const char *(*repoint)(struct env *v, uint64_t iova, uint64_t phys, size_t arg);
	const char *(*invalidate)(struct env *v, uint64_t iova, size_t arg); /* NULL: none (a finding) */
	size_t arg;
};
struct stale {
	int before; /* after the repoint, before invalidating: 'A', 'B', '2' (both), '0' (neither) */
	int after;  /* after invalidating */
	uint64_t inval_cycles;
	const char *err;   /* what stopped the probe, or NULL */
	char err_text[96]; /* err when it came from the engine (dma_result.error) */
};
/* The page entry rewritten, and nothing invalidated. */
extern const struct stale_way bench_stale_entry;
/* The page entry rewritten, then invalidation kind `kind`. */
struct stale_way bench_stale_kind(size_t kind);
void bench_stale(struct env *v, const struct stale_way *way, struct stale *s);
/* The probe without invalidating, as a finding: claims that the DMA landed
 * in one page, and says whether the unit used `what` ("stale translation");
 * `how` says how the IOVA was repointed. */
void bench_stale_finding(struct env *v, const struct stale_way *way, const char *how, const char *what);
/* The probe with the way's invalidation `name`: a claim that the DMA then
 * reached B (returned). */
bool bench_stale_invalidated(struct env *v, const struct stale_way *way, const char *how, const char *name);
/* The probe of an invalidation's precision (the way invalidates the
 * neighbouring page): false when it cannot tell, the unit having cached
 * nothing stale (the test skipped, the env torn down); else *s, the
 * probe's failure reported, for the caller to judge s->after. */
bool bench_stale_precision(struct env *v, const struct stale_way *way, struct stale *s);
/* The way's invalidation (`name`) of `iova`, back to back, each timed end
 * to end: a claim that all completed, and their measure (path
 * "invalidation", the unit's backend, `variant`, or `name` when NULL, and
 * `note` for the reader). */
void bench_time_invalidation(struct env *v, const struct stale_way *way, uint64_t iova, const char *name,
			     const char *variant, const char *note);
/* A command of a backend's own (AMD-Vi's COMPLETION_WAIT, SMMUv3's
 * CMD_SYNC and CFGI_*), timed as an invalidation is: `run` issues it and
 * waits for it to complete. */
struct bench_cmd {
	const char *name, *note;
	const char *(*run)(struct env *v, uint64_t iova, size_t arg);
};
void bench_time_cmd(struct env *v, const struct bench_cmd *c);

/* A fault injected into the flush handshake (set by the caller): the flush
 * (kind 0) must fail with `want` in io->err, in bounded time; `what` names
 * the fault. */
void bench_flush_fault(struct env *v, const char *what, enum iommu_err want);
/* A fault the handshake must ride out (`*left` more failures injected):
 * the flush succeeds, every injected failure used up. */
void bench_flush_rides_out(struct env *v, const unsigned *left, const char *what);
/* With the fault gone the next flush works: a claim, and the test's note. */
void bench_flush_recovers(struct env *v);

static inline bool bench_changed(const struct dmabuf *b, uint32_t seed)
{
	return dmabuf_check_pattern(b, seed) >= 0;
}

#endif
