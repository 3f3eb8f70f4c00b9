/* Arm SMMUv3 (IHI 0070): one SMMU taken over from the firmware — a stream
 * table (linear or 2-level) with every bystander bypassing, the device
 * under test's stream translated at stage 1 through one context
 * descriptor, at stage 2 through the STE alone (IDR0.S2P), or nested
 * (stage 1 behind a stage-2 identity, both stages offered), as
 * smmuv3.stage or ops->mode say, with VMSAv8-64 tables at a granule IDR5 offers,
 * the command queue with CMD_SYNC polled as the fence, the event queue —
 * behind the iommu interface. The driver is split by concern in this folder:
 *   regs.h      registers, STE, CD, descriptors, commands and events in the spec's words
 *   pgtable.c   the stage-1 and stage-2 descriptor formats (../io_pgtable.c walks them)
 *   strtab.c    the stream table and the context descriptor
 *   cmdq.c      the command queue, CMD_SYNC, command errors, the invalidation kinds
 *   evtq.c      the event queue decoded into faults
 *   takeover.c  take-over from the firmware and give-back as found
 *   smmuv3.c    set-up from the ID registers, the device under test, the ops
 *   backend.c   the backend descriptor: opening an IORT unit, settings */
#ifndef IOMMON_SMMUV3_H
#define IOMMON_SMMUV3_H

#include "core/base/regwin.h"
#include "discover.h"
#include "iommu/backend.h"
#include "iommu/io_pgtable.h"
#include "iommu/iommu.h"
#include "regs.h"

/* What the firmware left, recorded before the first write. */
struct smmuv3_found {
	uint32_t cr0, cr1, cr2, gbpa, irq_ctrl, gerror, gerrorn, strtab_cfg;
	uint32_t cmdq_prod, cmdq_cons, evtq_prod, evtq_cons;
	uint64_t strtab_base, cmdq_base, evtq_base;
};

enum smmuv3_strtab_choice { SMMUV3_STRTAB_AUTO, SMMUV3_STRTAB_LINEAR, SMMUV3_STRTAB_2LEVEL };
/* auto: stage 1 where IDR0.S1P, else stage 2 */
enum smmuv3_stage_choice { SMMUV3_STAGE_AUTO, SMMUV3_STAGE_1, SMMUV3_STAGE_2, SMMUV3_STAGE_NESTED };
/* How the device under test translates (ops->mode's names: "stage-1",
 * "stage-2", "nested"): STE.Config 0b101 through a CD, 0b110 through
 * S2TTB, 0b111 through both, the CD and stage 1's tables addressed by IPA. */
enum smmuv3_mode { SMMUV3_MODE_S1, SMMUV3_MODE_S2, SMMUV3_MODE_NESTED, SMMUV3_NMODES };
extern const char *const smmuv3_mode_names[SMMUV3_NMODES];

/* A device behind the unit and its stream id (from the IORT). */
struct smmuv3_stream {
	struct pci_addr dev;
	uint32_t sid;
};

/* An identity range a device must keep through translation (an IORT RMR). */
struct smmuv3_rmr {
	uint64_t base, end; /* [base, end) */
	uint32_t sid;
};

#define SMMUV3_MAX_STREAMS 256
#define SMMUV3_MAX_RMR 16
#define SMMUV3_NKINDS 8

/* Memory from the platform, aligned as the spec asks: what to free. */
struct smmuv3_mem {
	void *raw;
	size_t pages;
};

struct smmuv3 {
	struct iommu io;
	struct regwin w;
	struct smmuv3_found found;
	bool found_valid;
	bool had_2level; /* a 2-level stream table was given to this unit in this session */
	uint32_t idr0, idr1, idr3, idr5, aidr;
	bool coherent;			/* IDR0.COHACC, unless the firmware says the unit is not coherent */
	uint32_t gsiv_event, gsiv_gerr; /* the IORT's wired interrupts (0: none) */
	bool noncoherent_fw;		/* the IORT node says so */
	unsigned sid_bits;		/* IDR1.SIDSIZE */
	unsigned oas_bits;		/* IDR5.OAS */
	unsigned asid;			/* the device under test's (stage 1) */
	unsigned vmid;			/* the device under test's (stage 2) */
	bool ril;			/* IDR3.RIL: TLBI_NH_VA ranges */
	/* settings (backend.c): what was asked for */
	enum smmuv3_strtab_choice want_strtab;
	unsigned want_granule_bits; /* 0: the smallest offered */
	enum smmuv3_stage_choice want_stage;
	bool want_s2_fewest; /* smmuv3.s2_concat always: concatenated start tables wherever they save a level */
	/* what was chosen */
	bool offers[SMMUV3_NMODES]; /* from IDR0.S1P and S2P */
	enum smmuv3_mode mode;
	unsigned stage;			  /* of the device's own tables: 1 (through the CD; nested too) or 2 (S2TTB) */
	bool nested;			  /* stage 1 behind the stage-2 identity s2id (STE.Config 0b111) */
	const struct io_pgtable_fmt *fmt; /* the stage's descriptors (pgtable.c) */
	bool two_level;
	unsigned strtab_log2, split; /* stream ids covered; level-2 tables of 2^split STEs */
	unsigned granule_bits, levels;
	struct iommu_inval_kind kinds[SMMUV3_NKINDS];
	char variant[24]; /* "2level-4k", "linear-64k-nested": every record names the choices */
	struct io_pgtable_cfg pgcfg;
	/* nested: the stage-2 tables under stage 1's (an identity of every IPA
	 * the CPU's physical addresses reach), of their own walk */
	struct io_pgtable_cfg s2cfg;
	struct io_pgtable s2id;
	unsigned s2id_bits; /* it maps [0, 2^s2id_bits) */
	/* the tables */
	uint64_t *strtab; /* linear STEs, or the level-1 descriptors */
	uint64_t **l2;	  /* 2-level: each level-1 descriptor's table, or NULL */
	size_t nl1;
	uint64_t *cd;
	uint64_t *cmdq, *evtq;
	struct smmuv3_mem strtab_mem, cd_mem, cmdq_mem, evtq_mem, *l2_mem;
	unsigned cmdq_log2, evtq_log2;
	uint32_t cmdq_prod, evtq_cons; /* index and wrap bit, as in the registers */
	struct io_pgtable dut, alt;    /* alt: a fork for the stale-configuration probe */
	bool has_dut, alt_live;
	struct pci_addr dut_addr;
	uint32_t dut_sid;
	/* every stream id the device's DMA carries (its own first, then its
	 * aliases'): each STE names its domain */
	uint32_t dut_sids[1 + IOMMU_MAX_ALIASES];
	size_t ndut_sids;
	enum iommu_mode dut_mode;
	/* the devices behind the unit (they bypass but for the device under
	 * test), and the RMR ranges */
	struct smmuv3_stream stream[SMMUV3_MAX_STREAMS];
	size_t nstreams;
	struct smmuv3_rmr rmr[SMMUV3_MAX_RMR];
	size_t nrmr;
	/* what the queues reported */
	unsigned cmd_errors, last_cerror; /* command errors recovered, the last CMDQ_CONS.ERR */
	unsigned events_lost;		  /* overflows seen */
};

extern const struct iommu_backend smmuv3_backend;

/* Prepares a unit reached through `w` (MMIO on hardware, a model in
 * tests): reads the ID registers and decides the stream table and the
 * granule from them and the settings already in `s` (want_*). NULL or why
 * not (UNUSABLE: all ones, neither stage or no AArch64 tables;
 * UNSUPPORTED: a stage, granule or table format asked for and not offered). */
const char *smmuv3_init(struct smmuv3 *s, const struct regwin *w, const char *name);
/* Before take-over: a device behind the unit with its stream id (its STE
 * bypasses until it is the device under test; a device not named has its
 * BDF as stream id, as on QEMU's virt), and an RMR range of `sid`, which
 * stays identity-mapped when that stream translates. */
void smmuv3_add_stream(struct smmuv3 *s, struct pci_addr dev, uint32_t sid);
void smmuv3_add_rmr(struct smmuv3 *s, uint32_t sid, uint64_t base, uint64_t end);

/* smmuv3.granule, smmuv3.strtab and smmuv3.stage into s->want_*
 * (backend.c), for the next smmuv3_init. */
void smmuv3_settings_apply(struct smmuv3 *s);

/* Whether the machine's unit (the backend's) was given a 2-level stream
 * table in this session (QEMU 7.2 keeps reading it as 2-level after). */
bool smmuv3_backend_had_2level(void);
/* The driver the model family builds on the SMMUv3 model (backend.c),
 * whether or not the model is attached. */
struct smmuv3 *smmuv3_model_driver(void);

/* The state registers now against what the firmware left. */
bool smmuv3_as_found(struct smmuv3 *s, char *out, size_t n);

/* Command-queue operations the catalogue times or probes (cmdq.c). */
const char *smmuv3_sync(struct smmuv3 *s);
const char *smmuv3_cfgi_ste(struct smmuv3 *s, uint32_t sid);
const char *smmuv3_cfgi_cd(struct smmuv3 *s, uint32_t sid);
const char *smmuv3_cfgi_all(struct smmuv3 *s);
const char *smmuv3_tlbi_asid(struct smmuv3 *s);
/* TLBI_S12_VMALL of the device's VMID: both stages' entries of it. */
const char *smmuv3_tlbi_vmall(struct smmuv3 *s);
/* The domain's invalidation (below) for another tag: TLBI_NH_ASID of
 * `asid` within `vmid` where the device's own tables are stage 1's,
 * TLBI_S12_VMALL of `vmid` at stage 2; for the probes of what a tag
 * scopes. */
const char *smmuv3_tlbi_tag(struct smmuv3 *s, unsigned asid, unsigned vmid);
/* TLBI_NH_ALL within `vmid`: every stage-1 entry of that VMID (4.4.2.1). */
const char *smmuv3_tlbi_nh_all(struct smmuv3 *s, unsigned vmid);
/* Everything cached of the device's translations: TLBI_NH_ASID at stage
 * 1, TLBI_S12_VMALL of its VMID at stage 2. */
const char *smmuv3_tlbi_domain(struct smmuv3 *s);
/* The configuration invalidation that covers the pointer to the device's
 * tables: CFGI_CD at stage 1 (CD.TTB0), CFGI_STE at stage 2 (STE.S2TTB). */
const char *smmuv3_cfgi_ttb(struct smmuv3 *s);
/* An opcode the architecture does not define, then CMD_SYNC: NULL when
 * the unit reported CERROR_ILL, the driver skipped it and the queue ran
 * on; *reported says whether the error was seen at all. */
const char *smmuv3_illegal_command_probe(struct smmuv3 *s, bool *reported);

/* The stale-configuration probe (strtab.c): the pointer to the tables
 * (CD.TTB0 at stage 1, STE.S2TTB at stage 2) moved to a copy of them in
 * which `iova` leads to `phys`, nothing invalidated; and back to the
 * domain's own tables, with smmuv3_cfgi_ttb and smmuv3_tlbi_domain. */
const char *smmuv3_ttb_fork(struct smmuv3 *s, uint64_t iova, uint64_t phys);
const char *smmuv3_ttb_unfork(struct smmuv3 *s);

/* The event queue's and global errors' wired interrupts on (IRQ_CTRL
 * EVENTQ_IRQEN and GERROR_IRQEN, IRQ_CTRLACK polled) or off again; the
 * take-over leaves them off (events are polled) and give-back puts
 * IRQ_CTRL back as found. */
const char *smmuv3_irq_enable(struct smmuv3 *s, bool on);

/* GBPA written (Update set, then polled clear): what the unit does with
 * DMA while SMMUEN is clear (ABORT, or bypass). Give-back writes the
 * firmware's value again. */
const char *smmuv3_gbpa_set(struct smmuv3 *s, uint32_t v);

/* The access flag of the device's leaf at `iova` cleared (`set`: set
 * again), then the page invalidated: with no hardware update asked for
 * (CD.HA, STE.S2HA clear) and AFFD clear, an access to it is an F_ACCESS
 * at the stage of the device's tables (Arm ARM D8.5). */
const char *smmuv3_access_flag(struct smmuv3 *s, uint64_t iova, bool set);
/* Nested: the last leaf of the stage-2 identity unmapped (`make`; else
 * mapped again), its IPA in *ipa, then TLBI_S12_VMALL: stage 1's output
 * there faults at stage 2. Only the device's STE uses those tables. */
const char *smmuv3_s2_hole(struct smmuv3 *s, bool make, uint64_t *ipa);

/* The STE of `sid` (NULL: beyond the table); in a 2-level table its
 * level-2 table is made when missing (NULL when no memory). */
uint64_t *smmuv3_ste(struct smmuv3 *s, uint32_t sid);

/* An event's type in words. */
const char *smmuv3_event_name(unsigned id);
/* A granule's name: "4K", "16K", "64K". */
const char *smmuv3_granule_name(unsigned bits);

#endif
