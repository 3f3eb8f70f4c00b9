/* AMD-Vi (AMD I/O Virtualization Technology, pub. 48882): one IOMMU taken
 * over from the firmware — the device table sized from its IVHD, host page
 * tables for the device under test, interrupt remapping tables, the command
 * buffer with COMPLETION_WAIT as the fence, the event log — behind the iommu interface. The driver is
 * split by concern in this folder:
 *   regs.h      registers, bits, DTE, PTE, commands and events in the spec's words
 *   pgtable.c   the host page tables' entry format (../io_pgtable.c walks them)
 *   devtab.c    the device table from the IVHD and IVMD blocks
 *   cmd.c       the command buffer, the fence, the invalidation kinds
 *   event.c     the event log decoded into faults
 *   intremap.c  interrupt remapping: per-device tables of 32-bit entries
 *   takeover.c  take-over from the firmware and give-back as found
 *   amdvi.c     set-up from EFR, the device under test's domain, the ops
 *   backend.c   the backend descriptor: opening an IVHD unit, settings */
#ifndef IOMMON_AMDVI_H
#define IOMMON_AMDVI_H

#include "core/base/regwin.h"
#include "core/tables/ivrs.h"
#include "discover.h"
#include "iommu/backend.h"
#include "iommu/iommu.h"
#include "iommu/units.h"
#include "pgtable.h"
#include "regs.h"

/* What the firmware left, recorded before the first write. */
/* The command buffer and the event log: one page each. */
#define AMDVI_RING_LOG2 8 /* 256 entries of 16 bytes: one page */
#define AMDVI_RING_BYTES 4096u

struct amdvi_found {
	uint64_t control, devtab, cmdbuf, evtlog, excl_base, excl_limit;
	uint64_t cmd_head, cmd_tail, evt_head, evt_tail;
	bool msi_valid;
	uint16_t msi_ctrl, msi_data;
	uint32_t msi_lo, msi_hi;
};

/* Where the unit's PCI function is, for its MSI capability (cfg NULL: no
 * configuration space, as under a model). */
struct amdvi_pci {
	struct pci_cfg *cfg;
	struct pci_addr fn;
	uint16_t msi;	    /* the usable MSI capability's offset, 0 when none */
	uint16_t iommu_cap; /* the IOMMU capability (IVHD), 0 when unknown */
};

/* One device's interrupt remapping table (2.2.5). */
#define AMDVI_IR_TABLES 4
struct amdvi_irt {
	bool used;
	uint16_t devid;
	uint32_t *t; /* 2^ir_log2 entries of irte_size bytes, page-aligned */
};

struct amdvi {
	struct iommu io;
	struct regwin w;
	struct amdvi_found found;
	bool found_valid;
	uint64_t efr;
	unsigned max_levels, levels; /* 4 + EFR.HATS; the walk chosen */
	bool ia;		     /* INVALIDATE_IOMMU_ALL (EFR.IA) */
	bool np_cache;		     /* may cache not-present entries: a new mapping is invalidated */
	struct iommu_inval_kind kinds[4];
	unsigned want_levels; /* setting amdvi.levels; 0: auto */
	bool want_xt;	      /* setting amdvi.xt on: 32-bit destinations although 8 bits would do */
	struct io_pgtable_cfg pgcfg;
	/* the tables */
	uint64_t *devtab;
	size_t devtab_pages;
	uint32_t ndev; /* entries: the IVHD's highest device id + 1 */
	uint64_t *cmdbuf, *evtlog;
	unsigned cmd_tail, evt_head; /* byte offsets in the rings */
	volatile uint64_t *wait;     /* COMPLETION_WAIT's store target */
	uint64_t wait_seq;
	struct io_pgtable dut;
	bool has_dut;
	struct pci_addr dut_addr;
	/* the device table entries naming its domain: its own, its aliases,
	 * the IVHD's alias entry (amdvi_requester_ids) */
	uint16_t dut_ids[2 + IOMMU_MAX_ALIASES];
	size_t ndut_ids;
	enum iommu_mode dut_mode;
	bool cmd_needs_en;	 /* the buffer runs only while IommuEn is set (QEMU 7.2) */
	unsigned cmd_errors;	 /* command-buffer stops seen and recovered */
	unsigned events_dropped; /* entries found past the log's end */
	/* interrupt remapping: the tables of the devices served */
	bool ir_on;
	unsigned ir_log2;   /* IntTabLen */
	bool ir_xt;	    /* GAEn and XTEn set by us: 128-bit entries, 32-bit destinations */
	unsigned irte_size; /* 4, or 16 with ir_xt */
	struct amdvi_irt irt[AMDVI_IR_TABLES];
	/* what the firmware says about the unit */
	const struct ivrs *ivrs;
	const struct ivrs_block *ivhd;
	struct amdvi_pci pci;
	/* the unit's interrupt (events, completion waits with I) */
	int vector;
	uint32_t apic_id;
};

extern const struct iommu_backend amdvi_backend;

/* Prepares a unit reached through `w` (MMIO on hardware, a model in tests):
 * reads EFR and decides the walk. `ivrs`/`ivhd` (either may be NULL: every
 * device id, 64K entries) size the device table and name aliases and
 * unity ranges; `pci` (may be NULL) reaches its MSI capability. */
const char *amdvi_init(struct amdvi *a, const struct regwin *w, const char *name, const struct ivrs *ivrs,
		       const struct ivrs_block *ivhd, const struct amdvi_pci *pci);
/* The same for an IVHD unit at its register base. */
const char *amdvi_open(struct amdvi *a, const struct iommu_unit *u, const struct iommu_units *all,
		       const struct pci_list *pci, struct pci_cfg *cfg);

/* The state registers now against what the firmware left. */
bool amdvi_as_found(struct amdvi *a, char *out, size_t n);

/* Command-buffer operations the catalogue times or probes (cmd.c): each
 * ends with a COMPLETION_WAIT fence. */
const char *amdvi_fence(struct amdvi *a);
const char *amdvi_inv_devtab(struct amdvi *a, uint16_t devid);
const char *amdvi_inv_interrupt_table(struct amdvi *a, uint16_t devid);
/* A command the unit must refuse (opcode 0), then a fence: NULL when the
 * unit stopped, reported it and the buffer works again; *stopped says
 * whether it stopped at all (QEMU carries on). */
const char *amdvi_illegal_command_probe(struct amdvi *a, bool *stopped, bool *event);

/* Test support for the IOTLB: the present leaf at `iova` rewritten in
 * place to `phys`, nothing invalidated. A present-to-present change is not
 * what NpCache covers, so unlike map it asks for no invalidation: only a
 * cached translation can still lead to the old page. */
const char *amdvi_leaf_repoint(struct amdvi *a, uint64_t iova, uint64_t phys);

/* COMPLETION_WAIT with I=1 and Control.ComWaitIntEn set: the unit's MSI
 * must reach the handler (io.irq_count grows) within 10 ms. NULL when it
 * did; IOMMU_ERR_UNSUPPORTED when the unit has no interrupt here. */
const char *amdvi_completion_interrupt_probe(struct amdvi *a);

/* An event's code in words. */
const char *amdvi_event_name(unsigned code);

#endif
