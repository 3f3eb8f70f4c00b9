/* The RISC-V IOMMU (RISC-V IOMMU Architecture Specification 1.0): one
 * unit taken over — a device directory of iommon's, the device under test
 * in a context with an S-stage page table (Sv39/48/57) under a PSCID of
 * its own, or (mode "g") a G-stage one (Sv39x4/48x4/57x4) under a GSCID
 * with, where asked, a flat MSI page table; the command queue with
 * IOFENCE.C as the fence, the fault queue read into faults — behind the
 * iommu interface. The driver is split by
 * concern in this folder:
 *   regs.h      registers, bits, contexts, commands and records in the spec's words
 *   riscv.h     the in-memory side: page tables, the directory, the records (pgtable.c, ddt.c, records.c)
 *   queues.c    the command queue, the fence, the invalidation kinds, the fault queue
 *   takeover.c  take-over from the firmware and give-back as found
 *   driver.c    set-up from the capabilities, contexts, the device under test, the ops
 *   msi.c       the device under test's MSI page table (MSI address translation)
 *   model*.c    the register-level model (its own reading of the spec)
 *
 * Device ids are PCI requester ids (bus << 8 | devfn), as QEMU's
 * riscv-iommu-pci and a platform unit without an iommu-map offset give
 * them. The devices iommon does not test keep what the firmware gave
 * them: with ddtp found Bare, a context each that passes their DMA
 * through; with ddtp found Off (the reset state), no valid context, so
 * their DMA stays blocked as it was. Turning translation off for the
 * baseline (enable false) puts ddtp in Bare: every device's DMA passes
 * then, as on any unit turned off. */
#ifndef IOMMON_RISCV_RVI_H
#define IOMMON_RISCV_RVI_H

#include "core/base/regwin.h"
#include "iommu/io_pgtable.h"
#include "iommu/iommu.h"
#include "riscv.h"

#define RVI_CQ_LOG2 8 /* 256 commands of 16 bytes: one page */
#define RVI_FQ_LOG2 7 /* 128 records of 32 bytes: one page */
#define RVI_DUT_PSCID 1
#define RVI_DUT_GSCID 1
#define RVI_MAX_IDS (1 + IOMMU_MAX_ALIASES)

/* The registers as the firmware left them, read before the first write. */
struct rvi_found {
	uint64_t caps, ddtp, cqb, fqb, icvec;
	uint32_t fctl, cqh, cqt, fqh, fqt, cqcsr, fqcsr, ipsr;
};

struct rvi {
	struct iommu io;
	struct regwin w;
	struct rvi_found found;
	bool found_valid;
	uint64_t caps;
	uint32_t fctl;
	bool extended;	 /* 64-byte contexts (caps.MSI_FLAT) */
	uint64_t limit;	 /* memory the unit reaches: below 2^caps.PAS */
	unsigned s_mode; /* RVI_ATP_SV39/48/57: the S stage's when offered (0: none) */
	/* The stage the device under test translates through (ops->mode:
	 * "s", the default, or "g": the G stage alone, Sv39x4/48x4/57x4,
	 * under GSCID 1, the default of a unit that offers no S stage), and
	 * the G stage's mode when offered (0: none). */
	bool gstage;
	unsigned g_mode;
	uint32_t bystander_ids; /* device ids below this get the bystanders' context at take-over */
	struct io_pgtable_cfg pgcfg;
	struct iommu_inval_kind kinds[3];
	/* the tables and queues */
	struct rvi_ddt ddt;
	unsigned ddt_mode; /* the mode ddtp runs in while taken */
	struct rvi_cmd *cq;
	uint32_t cq_tail;
	struct rvi_fault *fq;
	uint32_t fq_head;
	volatile uint32_t *fence; /* IOFENCE.C's store target */
	uint32_t fence_seq;
	unsigned cmd_errors; /* queue stops seen and recovered */
	/* the device under test: its contexts (its id and its aliases') */
	struct io_pgtable dut;
	bool has_dut;
	enum iommu_mode dut_mode;
	struct pci_addr dut_addr;
	uint32_t dut_ids[RVI_MAX_IDS];
	size_t ndut_ids;
	/* its MSI page table (msi.c): one page of RVI_MSI_PT_FILES entries,
	 * NULL while msiptp is Off; the mask and pattern as its contexts hold
	 * them (page-number bits) */
	uint64_t *msi_pt;
	uint64_t msi_mask, msi_pattern;
};

/* Prepares a unit reached through `w` (MMIO on hardware, the model in
 * tests): reads the capabilities and chooses each stage's mode; a unit
 * that offers neither stage in Sv39 and up is refused, saying so.
 * `bystander_ids`: the device ids below it are the machine's (every PCI
 * bus the machine has, in full). NULL or why not. */
const char *rvi_init(struct rvi *r, const struct regwin *w, const char *name, uint32_t bystander_ids);

/* The state registers now against what the firmware left. */
bool rvi_as_found(struct rvi *r, char *out, size_t n);

/* queues.c: `n` commands then IOFENCE.C, done when its store lands
 * (100 ms, else a named time-out; an illegal command stops the queue,
 * which is restarted and the stop reported). */
const char *rvi_submit(struct rvi *r, const struct rvi_cmd *c, size_t n);
const char *rvi_fence(struct rvi *r);

/* Test support for the IOTLB: the present leaf at `iova` rewritten in
 * place to `phys`, nothing invalidated. */
const char *rvi_leaf_repoint(struct rvi *r, uint64_t iova, uint64_t phys);

/* Test support for the device-context cache: the device under test's
 * contexts given PSCID `pscid` in place (one store each), nothing
 * invalidated; and IODIR.INVAL_DDT of exactly those contexts, fenced
 * (no IOTINVAL). A unit that still uses the old PSCID after the store
 * still uses the context it cached. */
const char *rvi_context_pscid(struct rvi *r, uint32_t pscid);
const char *rvi_context_invalidate(struct rvi *r);

/* msi.c: MSI address translation for the device under test (2.3.3), this
 * family's interrupt remapping, in the G stage only (2.1.4: msiptp must be
 * Off under a Bare iohgatp). A write whose guest physical address A has
 * (A >> 12) & ~mask equal to the pattern's is an MSI to interrupt file
 * extract(A >> 12, mask), translated by that file's entry instead of the
 * G stage. rvi_msi_on: msiptp Flat with every entry not valid, for files
 * at `base` (page-aligned, none of mask's bits set) spread over the
 * page-number bits of `mask` (at most 8 of them, below bit 52); NULL or
 * why not (UNSUPPORTED without caps.MSI_FLAT or the G stage). */
const char *rvi_msi_on(struct rvi *r, uint64_t base, uint64_t mask);
/* File `file`'s entry: basic translate to the page at `target` (0: not
 * valid), then IOTINVAL.GVMA of its address under the GSCID (software
 * guidelines, changing an MSI PTE), fenced. */
const char *rvi_msi_file(struct rvi *r, unsigned file, uint64_t target);
/* The guest physical address of interrupt file `file` (its page). */
uint64_t rvi_msi_addr(const struct rvi *r, unsigned file);
/* msiptp Off again and the table freed (kept, and said, when the contexts
 * could not be rewritten: the unit may still read it). */
const char *rvi_msi_off(struct rvi *r);

extern const struct iommu_backend riscv_backend;

#endif
