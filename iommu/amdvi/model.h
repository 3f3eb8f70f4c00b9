/* A register-level model of one AMD-Vi IOMMU, from the AMD I/O
 * Virtualization Technology (IOMMU) Specification (pub. 48882): the 16 KiB
 * MMIO window (section 3.4), the device table read from memory with a DTE
 * cache (2.2.2), the host page-table walk of 1 to 6 levels with level
 * skipping and large pages (2.2.3), an IOTLB tagged by domain that keeps
 * serving an entry until the invalidation that covers it, the command
 * buffer (2.4) and the event log (2.5). It behaves as the spec says where
 * QEMU 7.2 does not (shared/specs/qemu-iommus.md section 1): events are
 * logged, Status W1C bits clear, INVALIDATE_IOMMU_PAGES honours its address
 * and S, CmdHead wraps to 0, ComWaitInt interrupts only with ComWaitIntEn.
 *
 * Addresses are the host's pointers, as in the other models. Physical
 * address 0 stands for a place nothing answers: a table, buffer or store
 * there is a master abort, reported with the spec's hardware-error events.
 *
 * Where the spec left the model a choice, or where this reading is not
 * sure of the spec, the model says so here:
 * - V=1, TV=0 and Mode 0 pass the request untranslated within the DTE's
 *   IR/IW (2.2.2); a refused one is an IO_PAGE_FAULT with PR and PE.
 * - A device id past the table's size is an ILLEGAL_DEV_TABLE_ENTRY.
 * - Commands run only while IommuEn and CmdBufEn are both set (3.4.4),
 *   synchronously at the CmdTail write or when the enables are set; an
 *   illegal command or a command hardware error leaves CmdHead on it and
 *   CmdBufRun clear until software clears CmdBufEn (3.4.11).
 * - An overflow discards the event and clears EventLogRun; nothing more is
 *   logged until software clears EventLogEn and EventOverflow (3.4.11).
 * - EventLogInt is set by every entry written; the interrupt (m->msi, and
 *   m->msis) only with EventIntEn. ComWaitInt likewise with ComWaitIntEn.
 * - No PDE cache: the PDE bit of INVALIDATE_IOMMU_PAGES changes nothing.
 * - No device IOTLBs: INVALIDATE_IOTLB_PAGES is accepted and does nothing.
 * - The low 12 bits of the Exclusion Range Limit are taken as ones.
 * - Interrupt remapping (2.2.5) is always there (no EFR bit announces it;
 *   the IVHD does): with IV=1 and IntCtl=10b every message to 0xFEExxxxx
 *   is remapped with data 10:0 as the index, whatever data 10:8 says
 *   (the pass bits for NMI, INIT, ExtInt, Lint are not modelled); 32-bit
 *   entries, unless the unit is made to offer x2APIC interrupts (`xt`:
 *   EFR.XTSup and GASup, Control.GAEn and XTEn writable): then with GAEn
 *   the entries are 128 bits (2.2.5.3, GuestMode 0 only: GuestMode set is
 *   a reserved encoding here), the vector in 71:64 and the destination in
 *   31:8 and 127:120, all 32 bits with XTEn and the low 8 without (the
 *   model's reading; QEMU 10.0 does the same). IntCtl=00b blocks without
 *   an event.
 * - A blocked interrupt is an IO_PAGE_FAULT with I=1: PR=0 for an entry
 *   with RemapEn=0, PR=1 for an index past IntTabLen (the table was there,
 *   the entry is not), PR=1 and RZ=1 for reserved bits (31:24, GuestMode)
 *   or an IntType other than fixed or arbitrated;
 *   Address is the message's address. This reading of PR is the model's
 *   (the spec's table does not say what PR means for interrupts).
 * - The interrupt remapping cache holds entries with RemapEn=1 only,
 *   tagged by device id and index, until INVALIDATE_INTERRUPT_TABLE for
 *   the device or INVALIDATE_IOMMU_ALL.
 *
 * The model keeps its own reading of the spec on purpose and never
 * includes the AMD-Vi driver's register header: a shared header would let
 * a wrong offset or bit pass both the driver and the model. */
#ifndef IOMMON_AMDVI_MODEL_H
#define IOMMON_AMDVI_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "core/base/regwin.h"
#include "iommu/models/models.h"

#define AMDVIM_WINDOW 0x4000 /* 16 KiB (3.4) */

/* The Extended Feature Register this unit reports (3.4.5): IASup (bit 6,
 * INVALIDATE_IOMMU_ALL is accepted) and HATS = 10b (bits 11:10, host
 * tables up to 6 levels). Nothing else: the model has no PPR log, guest
 * translation, guest virtual APIC, prefetch, performance counters or
 * hardware-error registers, and a feature bit it set would promise them. */
#define AMDVIM_EFR 0x0000000000000840ull

#define AMDVIM_IOTLB 64
#define AMDVIM_DTE_CACHE 16
#define AMDVIM_IRT_CACHE 16

/* Event codes (2.5), in bits 31:28 of an entry's second dword. */
enum amdvim_event {
	AMDVIM_EV_ILLEGAL_DEV_TABLE_ENTRY = 0x1,
	AMDVIM_EV_IO_PAGE_FAULT = 0x2,
	AMDVIM_EV_DEV_TAB_HARDWARE_ERROR = 0x3,
	AMDVIM_EV_PAGE_TAB_HARDWARE_ERROR = 0x4,
	AMDVIM_EV_ILLEGAL_COMMAND_ERROR = 0x5,
	AMDVIM_EV_COMMAND_HARDWARE_ERROR = 0x6,
};

/* Event flags (2.5.2/2.5.3), bits 27:16 of the second dword. */
#define AMDVIM_EVF_I (1u << 19)	 /* an interrupt request */
#define AMDVIM_EVF_PR (1u << 20) /* the translation was present: a permission fault */
#define AMDVIM_EVF_RW (1u << 21) /* a write */
#define AMDVIM_EVF_PE (1u << 22) /* permission denied */
#define AMDVIM_EVF_RZ (1u << 23) /* a reserved field non-zero, or an invalid encoding */

struct amdvim_tlb {
	bool valid;
	uint16_t domain;
	uint64_t iova, size, phys; /* the whole leaf: 4 KiB, 2 MiB, an encoded size ... */
	unsigned perm;		   /* bit 0 read (IR), bit 1 write (IW) */
};

struct amdvim_dtc {
	bool valid;
	uint16_t devid;
	uint64_t dte[4];
};

struct amdvim_irtc {
	bool valid;
	uint16_t devid, index;
	uint64_t lo, hi; /* a 32-bit entry in lo */
};

struct amdvi_model {
	/* MMIO registers (3.4) */
	uint64_t devtab, cmdbuf, evtlog, control, excl_base, excl_limit;
	uint64_t cmd_head, cmd_tail, evt_head, evt_tail;
	uint64_t status;
	bool cmd_halted;  /* an error stopped the command buffer until CmdBufEn is cleared */
	bool evt_stopped; /* an overflow stopped the event log until EventLogEn is cleared */
	/* caches: they serve what they hold until the command that covers them */
	struct amdvim_dtc dtc[AMDVIM_DTE_CACHE];
	struct amdvim_tlb tlb[AMDVIM_IOTLB];
	struct amdvim_irtc irtc[AMDVIM_IRT_CACHE];
	unsigned dtc_next, tlb_next, irtc_next;
	/* the engine behind the model (its requester id) and the unit's MSI */
	uint16_t engine_devid;
	void (*msi)(void *ctx);
	void *msi_ctx;
	/* faults injected */
	bool cwait_stuck;  /* COMPLETION_WAIT never completes: no store, no ComWaitInt */
	bool log_full;	   /* the event log has no free entry: every event overflows */
	bool illegal_next; /* the next command fetched is illegal */
	bool all_ones;	   /* nothing answers */
	/* an option: EFR.XTSup and GASup, with GAEn and XTEn (set before use) */
	bool xt;
	/* what happened, for tests */
	unsigned msis, events, events_dropped, commands, waits_stored, tlb_hits, walks;
	unsigned dte_invalidations, page_invalidations, all_invalidations, irt_invalidations;
	unsigned irte_hits, interrupts_remapped, interrupts_blocked;
	/* what the driver did wrong */
	unsigned bad_width;	  /* not a 4- or 8-byte access aligned to its size */
	unsigned reserved_writes; /* reserved or read-only bits written, an undefined register written */
	unsigned protocol_errors; /* a base or head moved while its ring runs, IommuEn with no table, ... */
	struct regwin win;
};

/* A unit out of reset: everything off, EFR as above (with XTSup and
 * GASup where m->xt is set after this). */
void amdvim_init(struct amdvi_model *m);

/* A DMA by requester `devid` at `iova`: the physical address, or false
 * after logging the event the spec gives for the refusal (when the event
 * log takes it). `model` is a struct amdvi_model (the engine's callback
 * type). */
bool amdvim_translate(void *model, uint16_t devid, uint64_t iova, bool write, uint64_t *phys);

/* An MSI write by requester `devid` (2.2.5): true with the vector and
 * destination (APIC id) it reaches, or false when it is blocked (after
 * logging the event, unless SupIOPF or the DTE's IG suppresses it). With
 * IommuEn clear, or IV=0, or IntCtl=01b the message passes as sent. A
 * write outside 0xFEExxxxx is not an interrupt: false, nothing logged. */
bool amdvim_msi(struct amdvi_model *m, uint16_t devid, uint64_t addr, uint32_t data, uint8_t *vector, uint32_t *dest);

/* ---- inside the model: shared by amdvi_model.c and amdvi_model_walk.c ---- */

/* Appends one event (four dwords) to the log, or counts it dropped. */
void amdvim_log_event(struct amdvi_model *m, uint32_t dw0, uint32_t dw1, uint64_t addr);
/* The caches' invalidations: one device's DTE (all: every DTE), the IOTLB
 * entries of `domain` overlapping [first, first + size) (all: every one). */
void amdvim_drop_dte(struct amdvi_model *m, bool all, uint16_t devid);
void amdvim_drop_irt(struct amdvi_model *m, bool all, uint16_t devid);
void amdvim_drop_pages(struct amdvi_model *m, bool all, uint16_t domain, uint64_t first, uint64_t size);

/* ---- the family: what `model amdvi` attaches ---- */

/* What the model offers its family: the faults `model` can inject and the
 * kinds it models. The family itself (iommu/models/models.h) is defined
 * beside the backend's descriptor (backend.c), which builds the model, the
 * engine behind its bridge and the driver on the model's window: this
 * model sees nothing of its driver. */
extern const struct model_fault amdvim_faults[];
extern const char *const amdvim_kind_names[];
extern const struct model_family amdvi_family;

/* The attached model, for cases that reach into it (NULL when another
 * kind, or none, is attached); backend.c. */
struct amdvi_model *model_amdvi(void);

#endif
