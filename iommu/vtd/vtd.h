/* Intel VT-d (Intel Virtualization Technology for Directed I/O, rev. 3+):
 * a remapping unit taken over from the firmware in legacy mode — root and
 * context tables, second-level page tables, register-based and queued
 * invalidation, fault recording and the fault event interrupt — behind the
 * iommu interface. The driver is split by concern in this folder:
 *   regs.h      registers, bits, fields and descriptors in the spec's words
 *   caps.c      CAP/ECAP decoded, and what the driver chooses from them
 *   pgtable.c   second-level page tables (memory only, host-tested alone)
 *   inval.c     register-based and queued invalidation, the queue's errors
 *   fault.c     fault recording registers and the fault event interrupt
 *   intremap.c  interrupt remapping: the IRTE table, IRTA, IRE and CFI
 *   takeover.c  take-over from the firmware and give-back as found
 *   vtd.c       set-up, the device under test's domain, the ops table
 *   backend.c   the backend descriptor: opening a DMAR unit, settings */
#ifndef IOMMON_VTD_H
#define IOMMON_VTD_H

#include "core/base/regwin.h"
#include "discover.h"
#include "iommu/backend.h"
#include "iommu/iommu.h"
#include "iommu/units.h"
#include "pgtable.h"
#include "regs.h"

/* What the firmware left, recorded before the first write. */
struct vtd_found {
	uint32_t gsts, fsts, fectl, fedata, feaddr, feuaddr;
	uint64_t rtaddr, iqa, iqh, iqt, irta;
	/* protected memory regions (where CAP.PLMR or PHMR) */
	uint32_t pmen, plmbase, plmlimit;
	uint64_t phmbase, phmlimit;
};

enum vtd_bystanders { VTD_BYSTANDERS_AUTO, VTD_BYSTANDERS_PT, VTD_BYSTANDERS_IDENTITY };

/* How the unit translates (3.4-3.8): legacy root and context entries with
 * second-level tables, or scalable mode (RTADDR.TTM 01) with PASID tables
 * whose entry for RID_PASID gives the device under test second-stage
 * (PGTT 010b), first-stage (001b) or nested (011b) translation. */
enum vtd_mode { VTD_MODE_LEGACY, VTD_MODE_SS, VTD_MODE_FS, VTD_MODE_NESTED, VTD_NMODES };
/* "legacy", "scalable-second-stage", "scalable-first-stage", "scalable-nested" */
extern const char *const vtd_mode_names[VTD_NMODES];

/* A PASID directory and the one PASID table it leads to (the one holding
 * RID_PASID): what a scalable-mode context entry points at. */
struct vtd_pasid_tables {
	uint64_t *dir, *table;
	size_t dir_pages;
};

struct vtd {
	struct iommu io;
	struct regwin w;
	struct vtd_found found;
	bool found_valid;
	uint32_t ver;
	uint64_t cap, ecap;
	/* from CAP/ECAP (caps.h) */
	unsigned mgaw, levels, aw, max_aw, fro, nfr, iro, mamv;
	bool coherent, rwbf, cm, pt, qi, psi, drain_r, drain_w, plmr, phmr;
	struct iommu_inval_kind kinds[6]; /* the kinds this unit can do */
	/* settings for the next take */
	enum vtd_bystanders want_bystanders;
	unsigned want_levels;	    /* 0: the deepest walk SAGAW offers */
	enum vtd_mode default_mode; /* setting vtd.mode: what a take without a mode asked uses */
	enum vtd_mode want_mode;    /* the next take's (ops->mode) */
	unsigned want_fs_levels;    /* setting vtd.fs_levels: 4, 5 (where CAP.FL5LP), 0 the deepest offered */
	bool want_eime;		    /* setting vtd.eime on: IRTA.EIME although the boot CPU's id fits 8 bits */
	/* the modes it offers (caps.c's vtd_modes) and the one taken in */
	bool offers[VTD_NMODES];
	enum vtd_mode mode;
	bool scalable;	     /* mode != legacy: RTADDR.TTM 01, 256-bit descriptors */
	bool fl1gp, fl5lp;   /* first stage: 1 GiB leaves, 5-level walks */
	unsigned pasid_bits; /* ECAP.PSS + 1 where ECAP.PASID, else 0 */
	bool rps;	     /* ECAP.RPS: RID_PASID may be other than 0 */
	uint32_t rid_pasid;  /* the PASID requests without one are translated with */
	unsigned pdts;	     /* context entries' PDTS: directories of 2^(PDTS + 7) entries */
	/* the tables */
	struct vtd_pgtable_cfg pgcfg; /* the second-stage walk */
	struct vtd_pgtable_cfg fscfg; /* the first-stage walk (scalable mode) */
	uint64_t *root, *ctx;	      /* one page; the context tables, bus by bus */
	size_t ctx_pages;	      /* 256 (legacy), 512 (scalable: lower and upper halves) */
	/* scalable mode: the bystanders' PASID tables, the device under
	 * test's, and the second set the context-cache probe moves it to */
	struct vtd_pasid_tables pt_by, pt_dut, pt_alt;
	/* nested: the second-stage domain the first-stage tables and
	 * addresses are translated through (identity over RAM) */
	struct vtd_domain nest;
	struct vtd_domain ident, dut, alt; /* alt: the second domain of the context-cache probe */
	bool alt_cached;		   /* a context-cache entry may still lead to alt's tables */
	bool bystanders_pt;
	uint64_t ident_top; /* the identity domain covers [0, ident_top) */
	bool has_dut;
	struct pci_addr dut_addr;
	enum iommu_mode dut_mode;
	/* the context entries that name the device's domain: its own id
	 * first, then its aliases (struct iommu's alias) */
	uint16_t dut_rid[1 + IOMMU_MAX_ALIASES];
	size_t ndut_rid;
	/* what the firmware left running and the take-over kept (live.c):
	 * translation (its tables, with the device's entries changed in place
	 * and saved in `patch`, its domain ids avoided), its queue (drained, added to, and brought
	 * back to the tail it had), its protected memory regions (lifted once
	 * our tables are live, enforced again before they go), its interrupt
	 * remapping (its entries kept in ours, ours after them) */
	bool live, fw_queue, pmr_lifted, fw_ir;
	bool queue_left_on; /* seen when the mode was set: the firmware's queue running */
	struct vtd_patch {
		uint64_t *at, old[2];
		size_t n;
		void *page; /* a context table of ours the entry (a root entry) pointed at */
	} patch[64];
	size_t npatch;
	uint16_t dids[3]; /* ours: the identity domain's, the device's, the context-cache probe's second */
	/* queued invalidation: the queue in use (ours, or the firmware's),
	 * 2^iq_qs pages */
	uint64_t *iq, *iq_mine;
	unsigned iq_qs;
	volatile uint32_t *wait_status;
	uint32_t wait_seq;
	unsigned iq_tail;
	bool qi_on;
	bool dw;	       /* the queue holds 256-bit descriptors (IQA.DW), as scalable mode needs */
	unsigned queue_errors; /* IQE seen and recovered */
	/* interrupt remapping (intremap.c) */
	bool ir;	   /* ECAP.IR */
	uint64_t *irt;	   /* the interrupt remapping table, 16 bytes an entry */
	unsigned irt_size; /* entries: 2^(IRTA.S + 1) */
	unsigned ir_base;  /* the first entry of ours: the firmware's left on come before it */
	bool ir_on;	   /* IRE set by us */
	bool eime;	   /* IRTA.EIME set by us: x2APIC destinations */
	bool cfi_ignored;  /* GSTS.CFIS never followed GCMD.CFI (QEMU 7.2); kept for the unit's next opens */
	struct iommu_inval_kind ir_kinds[2];
	/* the fault event interrupt */
	int vector;
	uint32_t apic_id;
	/* identity ranges RMRRs ask for, with the devices they name */
	const struct dmar *dmar;
	const struct pci_list *pci;
	uint16_t segment;
};

/* A mode by name (vtd_mode_names), VTD_NMODES when none. */
enum vtd_mode vtd_mode_named(const char *name);

/* The backend descriptor (backend.c) the registry lists. */
extern const struct iommu_backend vtd_backend;

/* Prepares a unit reached through `w` (MMIO on hardware, a model in tests):
 * reads VER/CAP/ECAP and decides what the driver will use. NULL or why the
 * registers are unusable (v->io.err). `dmar` and `pci` (either may be
 * NULL) give the RMRRs and the devices they name. */
const char *vtd_init(struct vtd *v, const struct regwin *w, const char *name, const struct dmar *dmar,
		     const struct pci_list *pci, uint16_t segment);
/* The same for a DMAR unit at its register base. */
const char *vtd_open(struct vtd *v, const struct iommu_unit *u, const struct dmar *dmar, const struct pci_list *pci);

/* What RTADDR holds while the unit is ours: the root table, and TTM 01 in
 * scalable mode. */
uint64_t vtd_root_value(const struct vtd *v);

/* Software walk of a domain of this unit: the physical address and
 * permissions `iova` translates to, and the level of the leaf (1: 4K,
 * 2: 2M, 3: 1G); false when not present. For checks and unit tests. */
bool vtd_walk(const struct vtd *v, const struct vtd_domain *d, uint64_t iova, uint64_t *phys, unsigned *perm,
	      unsigned *level);

/* First stage: the entries on the way to `iova` in the device's domain,
 * how many the unit marked accessed, and whether the leaf is dirty; false
 * when the domain is not first-stage or nothing is mapped there. */
bool vtd_fs_accessed_dirty(const struct vtd *v, uint64_t iova, unsigned *levels, unsigned *accessed, bool *dirty);

/* Queued invalidation with a descriptor the hardware must refuse: the
 * queue error it raises is reported, cleared and the queue recovered.
 * Returns NULL when that happened, else what went wrong. Test support. */
const char *vtd_queue_error_probe(struct vtd *v, unsigned *iqe_seen);

/* Test support for the context cache. vtd_context_swap moves the device
 * under test to a second domain in which `iova` maps to `phys` (and `keep`
 * is identity-mapped as before) by rewriting its context entry WITHOUT
 * invalidating the context cache; the old domain's IOTLB entries are
 * invalidated, so only a cached context entry can still lead to the old
 * tables. vtd_context_invalidate then invalidates the device's context
 * entry (device-selective) and the old domain's IOTLB (where a stale
 * context entry put its translations), by register or through the queue. */
struct dma_range;
const char *vtd_context_swap(struct vtd *v, uint64_t iova, uint64_t phys, const struct dma_range *keep, size_t nkeep);
const char *vtd_context_invalidate(struct vtd *v, bool queued);
/* The same for the PASID cache (scalable mode): the device's RID_PASID
 * entry rewritten to lead to a second domain WITHOUT a PASID-cache
 * invalidation (the old domain's IOTLB invalidated); then the PASID-cache
 * invalidation of granularity `g` (all, the old domain's, its PASID) and
 * the old domain's IOTLBs. */
const char *vtd_pasid_swap(struct vtd *v, uint64_t iova, uint64_t phys, const struct dma_range *keep, size_t nkeep);
const char *vtd_pasid_invalidate(struct vtd *v, enum vtd_pc_g g);

/* The state registers now against what the firmware left: true when they
 * agree; `out` says which differ. */
bool vtd_as_found(struct vtd *v, char *out, size_t n);

/* The fault reason in words (spec, appendix A). */
const char *vtd_fault_reason(unsigned reason);

/* The kinds of invalidation this driver offers (some may be unsupported
 * by a given unit: vtd_kind_usable says). */
bool vtd_kind_usable(const struct vtd *v, size_t kind);

/* Interrupt remapping as this unit has it now, in words: the table's
 * entries and IRTA.S, and which destination format (IRTA.EIME) for which
 * local APIC mode. Returns buf. */
const char *vtd_ir_describe(const struct vtd *v, char *buf, size_t n);

#endif
