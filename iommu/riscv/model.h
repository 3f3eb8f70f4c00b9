/* A register-level model of one RISC-V IOMMU, from the RISC-V IOMMU
 * Architecture Specification 1.0: the 4 KiB register file (chapter 5),
 * the device directory in 1, 2 or 3 levels with base or extended device
 * contexts (2.1, 2.3.1), S-stage Sv39/48/57 and G-stage Sv39x4/48x4/57x4
 * walks (2.3.2, the privileged architecture's algorithm), a device-context
 * cache that keeps serving a context until IODIR.INVAL_DDT covers it, an
 * IOTLB tagged by GSCID and PSCID kept until the IOTINVAL that covers it,
 * the command queue (3.1) and the fault queue (3.2). It is what QEMU 10.0
 * cannot show on demand: a stale context, a full fault queue, a command
 * that never completes, a ddtp that stays busy, all-ones registers.
 *
 * Addresses are the host's pointers.
 *
 * Where the spec leaves a choice, the model's:
 * - capabilities: version 1.0, Sv39/48/57, Sv39x4/48x4/57x4, MSI_FLAT (so
 *   64-byte contexts), AMO_HWAD, IGS = MSI, PAS = 56; no ATS, PRI, T2GPA,
 *   process directories, Sv32, big-endian or debug interface. fctl reads
 *   0 and keeps nothing (BE, WSI and GXL are WARL with one legal value).
 *   rvim_offer_stages takes a stage's modes away (kind riscv-g: the G
 *   stage alone); a context naming a mode the unit does not offer is
 *   misconfigured (2.1.4).
 * - Every write takes effect at once: ddtp.busy, cqcsr.busy and
 *   fqcsr.busy read 0, cqon and fqon follow cqen and fqen, unless a fault
 *   is injected (ddtp-busy: busy stays set and the mode unchanged).
 * - ddtp: a write of a mode above 3LVL is ignored (WARL). What the spec leaves
 *   UNSPECIFIED is counted in protocol_errors and done anyway: 1LVL-3LVL
 *   written over a mode other than Off or Bare, Bare over a mode other
 *   than Off, the PPN changed while going to Off.
 * - Commands run synchronously at the cqt write while cqon and no error
 *   bit is set. An opcode or function not defined, or a reserved bit
 *   set, is illegal (cmd_ill, cqh left on it). IOFENCE.C with AV stores
 *   DATA; PR and PW order nothing more here. IODIR.INVAL_PDT is accepted
 *   and does nothing (no process directories). ATS commands are illegal
 *   (no capabilities.ATS).
 * - A 64-bit register takes an 8-byte access or a 4-byte one at either
 *   half; a 32-bit register a 4-byte one. Anything else is bad_width.
 * - Interrupts: ipsr.cip and ipsr.fip as 5.16 sets them; on a bit's
 *   0-to-1 edge, unless its icvec vector is masked in msi_cfg_tbl, the
 *   model's msi callback is called (the message itself is not written).
 * - MSI remapping: flat MSI page tables in basic-translate mode (2.3.3),
 *   only with a G stage (a context with msiptp Flat over iohgatp Bare is
 *   misconfigured, as the spec recommends); MSI PTEs are not cached.
 * - Physical page 0 stands for memory nothing answers: a directory,
 *   table, queue or MSI page table there is an access fault. */
#ifndef IOMMON_RISCV_MODEL_H
#define IOMMON_RISCV_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "core/base/regwin.h"
#include "iommu/models/models.h"

#define RVIM_WINDOW 0x1000
#define RVIM_DC_CACHE 8
#define RVIM_IOTLB 64

struct rvim_dcc {
	bool valid;
	uint32_t did;
	uint64_t dc[8];
};

struct rvim_tlb {
	bool valid;
	bool gv; /* tagged by a G stage (iohgatp not Bare) */
	uint16_t gscid;
	bool s; /* an S stage was walked (iosatp not Bare) */
	uint32_t pscid;
	uint64_t iova, size, phys; /* the entry: its IOVA, size and output */
	uint64_t gpa, gsize;	   /* the G-stage leaf it came through (IOTINVAL.GVMA matches on it) */
	unsigned perm;		   /* bit 0 read, bit 1 write */
};

struct rvi_model {
	/* registers (chapter 5) */
	uint64_t caps, ddtp, cqb, fqb, icvec;
	uint32_t cqh, cqt, fqh, fqt, cqcsr, fqcsr, ipsr;
	uint64_t msi_cfg[32]; /* 16 vectors: address, then data and control */
	/* caches: they serve what they hold until the command that covers them */
	struct rvim_dcc dcc[RVIM_DC_CACHE];
	struct rvim_tlb tlb[RVIM_IOTLB];
	unsigned dcc_next, tlb_next;
	/* the engine behind the model, and the unit's interrupt */
	uint32_t engine_did;
	void (*msi)(void *ctx);
	void *msi_ctx;
	/* faults injected */
	bool fence_stuck; /* IOFENCE.C never completes: cqh stays on it, nothing stored */
	bool fq_full;	  /* every record finds the fault queue full: fqof */
	bool ddtp_busy;	  /* a ddtp write never completes: busy stays set */
	bool all_ones;	  /* nothing answers */
	/* what happened, for tests */
	unsigned commands, fences_stored, dc_hits, dc_walks, tlb_hits, walks, faults_recorded, faults_dropped, msis;
	unsigned msi_translations;
	unsigned ddt_invalidations, vma_invalidations, gvma_invalidations;
	/* what the driver did wrong */
	unsigned bad_width, reserved_writes, protocol_errors;
	struct regwin win;
};

/* A unit out of reset: ddtp Off (every DMA blocked), queues off. */
void rvim_init(struct rvi_model *m);
/* The translation stages it offers: the S stage's Sv39/48/57 and the G
 * stage's Sv39x4/48x4/57x4, each all or none (capabilities bits 9-11,
 * 17-19). */
void rvim_offer_stages(struct rvi_model *m, bool s, bool g);

/* A DMA by device `did` at `iova`: the physical address, or false after
 * recording the fault the spec gives (where the fault queue takes it).
 * `model` is a struct rvi_model (the engine's callback type). */
bool rvim_translate(void *model, uint32_t did, uint64_t iova, bool write, uint64_t *phys);

/* ---- inside the model: model.c and model_walk.c ---- */

/* One fault record: cause, device, the transaction type (3.2), iotval and
 * iotval2; dropped (counted) where the queue cannot take it. */
void rvim_fault(struct rvi_model *m, unsigned cause, uint32_t did, unsigned ttyp, uint64_t iotval, uint64_t iotval2);
/* The caches' invalidations (3.1.2, 3.1.3). */
void rvim_inval_ddt(struct rvi_model *m, bool one, uint32_t did);
void rvim_inval_vma(struct rvi_model *m, bool gv, uint16_t gscid, bool pscv, uint32_t pscid, bool av, uint64_t addr);
void rvim_inval_gvma(struct rvi_model *m, bool gv, uint16_t gscid, bool av, uint64_t addr);

/* ---- the family: what `model riscv` attaches ---- */

extern const struct model_fault rvim_faults[];
extern const char *const rvim_kind_names[];

/* The attached RISC-V IOMMU model and its driver (iommu/riscv/backend.c),
 * or NULL when another family, or none, is attached. */
struct rvi;
struct rvi_model *model_riscv(void);
struct rvi *model_riscv_driver(void);

#endif
