/* A register-level model of one VT-d remapping unit in legacy mode, for
 * the driver's host tests: the registers and their side effects, root,
 * context and second-level walks from memory (addresses are pointers), a
 * translation cache that keeps serving an entry until the invalidation
 * that covers it runs, fault recording with its fault event interrupt
 * (FEDATA to FEADDR, through the platform's irq_send), the invalidation
 * queue, and interrupt remapping: IRTA, IRE/SIRTP/CFI, the IRTE walk of
 * an MSI with its checks, an interrupt entry cache kept until its IEC
 * invalidation, and interrupt faults recorded with their reason, source
 * and index. What it offers its family (what `model vtd` attaches, in
 * backend.c: its faults, the firmware states and the kinds) is model_fw.c's.
 *
 * It is strict where hardware is: a 32-bit register accessed with 64 bits,
 * a GCMD write that sets a one-shot bit by accident, a register-based
 * invalidation while the queue is on, an access outside the window — each
 * is counted, and the tests fail a driver that does any of them.
 *
 * The model keeps its own reading of the spec on purpose: it names its
 * registers and bits itself and does not include iommu/vtd/regs.h. A
 * header shared with the driver would let a wrong offset or bit pass both
 * the driver and its model. */
#ifndef IOMMON_VTD_MODEL_H
#define IOMMON_VTD_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "core/base/regwin.h"
#include "iommu/models/models.h"

/* QEMU 7.2's intel-iommu as it reports itself (CAP, ECAP), the unit the
 * tests and the host bench model: 39- and 48-bit walks, 2M and 1G leaves,
 * PSI, QI, pass-through; vtdm_init moves FRO and IRO to the model's. */
#define VTDM_QEMU_CAP 0x00d2008c22260206ull
#define VTDM_QEMU_ECAP 0x0000000000f00f4aull
/* The same unit with everything scalable mode has (model_sm.c): SMTS with
 * second stage (39 and 48 bits), first stage, nested, 20-bit PASIDs
 * (PSS 19), RID_PASID (RPS); first-stage 1 GiB leaves (FS1GP) and 5-level
 * walks (FL5LP). What
 * `model vtd-sm` attaches. */
#define VTDM_SM_CAP ((VTDM_QEMU_CAP & ~(0x3full << 16)) | 47ull << 16 | 4ull << 8 | 1ull << 56 | 1ull << 60)
#define VTDM_SM_ECAP \
	(VTDM_QEMU_ECAP | 1ull << 26 | 19ull << 35 | 1ull << 40 | 1ull << 43 | 1ull << 46 | 1ull << 47 | 1ull << 49)
#define VTDM_PC 8 /* PASID-cache slots */

#define VTDM_NFR 4
#define VTDM_CACHE 16
#define VTDM_WINDOW 0x1000
#define VTDM_FRO 0x400
#define VTDM_IRO 0x500
#define VTDM_IEC 16 /* interrupt entry cache slots */

struct vtdm_tlb {
	bool valid;
	uint16_t sid, did;
	uint64_t page, phys; /* 4 KiB frames */
	unsigned perm;
	bool first;	/* scalable mode: a first-stage or nested translation (P_IOTLB's), else second stage */
	uint32_t pasid; /* scalable mode: the PASID it was made for */
	bool dirty; /* first stage: made by a write, the leaf's D set (a write through a read's entry walks again) */
};

struct vtd_model {
	uint64_t cap, ecap;
	uint32_t gsts, fsts, fectl, fedata, feaddr, feuaddr;
	uint64_t rtaddr, root, ccmd, iotlb, iva, iqh, iqt, iqa;
	uint64_t frcd[VTDM_NFR][2];
	unsigned next_frcd;
	struct vtdm_tlb tlb[VTDM_CACHE]; /* the IOTLB, keyed by source and page */
	struct {
		bool valid;
		uint64_t lo, hi;
	} ctx_cache[65536 / 64]; /* a few slots: sid % size */
	unsigned tlb_next;
	/* interrupt remapping */
	uint64_t irta, irt; /* the register, and the value SIRTP latched */
	struct {
		bool valid;
		uint16_t index;
		uint64_t lo, hi;
	} iec[VTDM_IEC];
	unsigned iec_next;
	/* scalable mode: the PASID cache, entries kept until a PASID-cache
	 * invalidation covers them (tagged by domain and PASID) */
	struct {
		bool valid;
		uint16_t sid, did;
		uint32_t pasid;
		uint64_t pe[8];
	} pc[VTDM_PC];
	unsigned pc_next;
	/* faults injected */
	uint32_t stuck_gsts; /* GSTS bits that never change */
	bool all_ones;	     /* nothing answers */
	bool ignore_ccmd;    /* ICC never clears */
	bool refuse_queue;   /* every descriptor raises a queue error */
	bool ignore_cfi;     /* QEMU 7.2: GCMD.CFI ignored, compatibility format always passes */
	bool stall_queue;    /* the queue fetches nothing: IQH never reaches IQT */
	bool no_latch;	     /* SRTP never latches: RTPS clears and stays clear */
	/* protected memory regions (CAP.PLMR, PHMR): PMEN, the low and high
	 * region, and the DMAs they blocked */
	uint32_t pmen, plmbase, plmlimit;
	uint64_t phmbase, phmlimit;
	unsigned pmr_blocked;
	/* what the firmware stand-in (model_fw.c) left: its boot device's
	 * page, which its tables or regions let through */
	uint64_t fw_page;
	/* what the driver did wrong */
	unsigned bad_width;	   /* 32-bit register with a 64-bit access or the reverse */
	unsigned oneshot_writes;   /* GCMD write with SRTP/WBF set that was not asked for */
	unsigned reg_while_queued; /* register invalidation with QIE on */
	unsigned writes;	   /* every write, for "touched nothing" checks */
	unsigned ctx_invalidations, iotlb_invalidations, waits, queue_errors;
	unsigned iec_invalidations, iec_global;		 /* all IEC descriptors, and the global ones */
	unsigned ire_unready;				 /* IRE set with the queue off or no table latched */
	unsigned fault_events;				 /* fault event interrupts sent (FEDATA to FEADDR) */
	unsigned pc_invalidations, piotlb_invalidations; /* scalable mode's descriptors */
	unsigned narrow_in_sm; /* 128-bit descriptors while the root table is scalable (invalid, 6.5.2) */
	unsigned forbidden;    /* oneshot_writes, reg_while_queued, ire_unready, narrow_in_sm together */
	uint64_t last_psi_addr;
	unsigned last_psi_am;
	struct regwin win;
};

/* A unit reporting `cap` and `ecap` (VTDM_QEMU_CAP, VTDM_QEMU_ECAP for QEMU's). */
void vtdm_init(struct vtd_model *m, uint64_t cap, uint64_t ecap);

/* A DMA by `sid` at `iova`: the physical address, or a fault recorded the
 * way the hardware records it (returns false). */
bool vtdm_translate(struct vtd_model *m, uint16_t sid, uint64_t iova, bool write, uint64_t *phys);

/* ---- scalable mode (model_sm.c), for model.c ---- */
/* Is the latched root table a scalable-mode one (RTADDR.TTM 01)? */
bool vtdm_scalable(const struct vtd_model *m);
/* The walk in scalable mode: root, context, PASID directory and table
 * (through the PASID cache), then the PASID entry's translation type. */
bool vtdm_sm_translate(struct vtd_model *m, uint16_t sid, uint64_t iova, bool write, uint64_t *phys);
/* PASID-cache (type 7) and PASID-based IOTLB (type 6) descriptors. */
void vtdm_pc_flush(struct vtd_model *m, unsigned g, uint16_t did, uint32_t pasid);
void vtdm_piotlb_flush(struct vtd_model *m, unsigned g, uint16_t did, uint32_t pasid, uint64_t addr, unsigned am);
/* Records a translation fault (model.c): false, as the DMA fails. */
bool vtdm_fault(struct vtd_model *m, uint16_t sid, uint64_t iova, bool write, unsigned reason);
/* The IOTLB: a hit for (did, pasid, page) of the right stage, or a new entry. */
struct vtdm_tlb *vtdm_tlb_find(struct vtd_model *m, uint16_t did, bool first, uint32_t pasid, uint64_t iova);
void vtdm_tlb_add(struct vtd_model *m, const struct vtdm_tlb *t);
/* A second-stage walk of `levels` from `top`: 0 and where `iova` leads
 * with the leaf's R/W, or the legacy fault reason (5, 6, 7, 12). */
unsigned vtdm_ss_walk(uint64_t top, unsigned levels, uint64_t iova, bool write, uint64_t *phys, unsigned *perm);

/* An MSI write by `sid` (address, data) to the unit's interrupt window:
 * true and the vector and local APIC id it is delivered to, or false when
 * it is blocked, with the fault recorded (unless the entry's FPD says
 * not). With IRE off, or a compatibility-format request that CFIS lets
 * through, the message is delivered as it is (xAPIC: destination in
 * address bits 19:12, vector in data 7:0). */
bool vtdm_msi(struct vtd_model *m, uint16_t sid, uint64_t addr, uint32_t data, uint8_t *vector, uint32_t *dest);

/* ---- the firmware (model_fw.c) ---- */
/* What pre-boot DMA protection leaves on the unit, written through its
 * registers as firmware would: translation on with tables mapping only
 * the boot device's page (VTDM_FW_ON), the same with the queue and
 * interrupt remapping on (VTDM_FW_QUEUE), protected memory regions over
 * everything and translation off (VTDM_FW_PMR), or translation on with
 * every source id passed through (VTDM_FW_LIAR: protection promised,
 * none given). */
enum vtdm_fw { VTDM_FW_ON, VTDM_FW_QUEUE, VTDM_FW_PMR, VTDM_FW_LIAR };
#define VTDM_FW_SID 0x0008 /* the boot device: 00:01.0 */
void vtdm_firmware(struct vtd_model *m, enum vtdm_fw what);

/* ---- the family: what `model vtd` attaches ---- */

/* What the model offers its family: the faults `model` can inject and the
 * kinds it models. The family itself (iommu/models/models.h) is defined
 * beside the backend's descriptor (backend.c), which builds the model, the
 * engine behind its bridge and the driver on the model's window: this
 * model sees nothing of its driver. */
extern const struct model_fault vtdm_faults[];
extern const char *const vtdm_kind_names[];
extern const struct model_family vtd_family;

/* The attached model, for cases that reach into it (NULL when another
 * kind, or none, is attached); backend.c. */
struct vtd_model *model_vtd(void);

#endif
