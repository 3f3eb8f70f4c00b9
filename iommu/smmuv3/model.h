/* A register-level model of one Arm SMMUv3, from the Arm System Memory
 * Management Unit Architecture Specification (IHI 0070): register pages 0
 * and 1 (6.2, 6.3), the stream table, linear or 2-level (3.3, 5.1, 5.2),
 * one context descriptor per stream (5.4), the VMSAv8-64 stage-1 walk at
 * 4K, 16K and 64K granules (Arm ARM D8), stage 2 alone (STE.Config 0b110)
 * and nested (0b111) on the kinds with IDR0.S2P through the same walk, a configuration cache
 * and a TLB that keep what they hold until the command that covers them
 * (4.3, 4.4), the command queue with its errors (4.1, 7.1) and the event
 * queue with its overflow (7.3, 7.4). No SubstreamIDs, no
 * MSIs, no ATS or PRI, no stall (STALL_MODEL 01), abort termination only
 * (TERM_MODEL 1). It behaves as the spec says where QEMU 7.2 does not
 * (shared/specs/qemu-iommus.md section 3): AF=0 is an F_ACCESS unless
 * CD.AFFD, AP[1]=0 refuses an unprivileged request, GBPA is present,
 * CR0ACK follows CR0 only once the change took effect.
 *
 * Addresses are the host's pointers, as in the other models. Physical
 * address 0 stands for a place nothing answers: a stream table, CD or
 * translation table there is F_STE_FETCH, F_CD_FETCH or F_WALK_EABT; a
 * queue there is GERROR.EVENTQ_ABT_ERR or CERROR_ABT.
 *
 * Where the spec left the model a choice, or where this reading is not
 * sure of the spec, the model says so here:
 * - CR0ACK and IRQ_CTRLACK take the new value at the second read after
 *   the write (the first read still shows the old one), so that a driver
 *   that does not poll the ACK is caught; a CR0 write while CR0ACK still
 *   differs from CR0 is counted as a protocol error.
 * - A register the spec makes read-only while an enable is set in CR0 or
 *   CR0ACK (STRTAB_BASE(_CFG) and CR2 under SMMUEN, CR1's TABLE_* too, a
 *   queue's BASE and its software-owned pointer and CR1's QUEUE_* under
 *   the queue's enable) ignores a write then; one that would change it
 *   is counted as a protocol error, one rewriting its value is not.
 * - A queue's base is aligned down to the queue's size (at least 32
 *   bytes), the linear stream table's to its size, the 2-level L1
 *   table's to its size (at least 64 bytes), as the spec says the unit
 *   does (6.3.24-26): a driver's misaligned table is read where the
 *   unit reads it. A queue LOG2SIZE beyond IDR1's is counted and capped.
 * - Writes to read-only registers count as reserved writes; so do
 *   non-zero writes to RES0 locations (the MSI configuration registers
 *   without IDR0.MSI, AGBPA, PRIQ, the optional page-0 aliases of
 *   EVENTQ_PROD/CONS at 0xA8/0xAC, which this unit does not have); zero
 *   written there is allowed.
 * - A GBPA write without Update=1 is counted and ignored (the spec makes
 *   it CONSTRAINED UNPREDICTABLE); Update clears at the second read.
 *   GBPA resets to bypass (ABORT=0), as an implementation may choose.
 * - STE.Config 001-011 abort without an event, as 000 (5.2: reserved,
 *   behaves as 000); 101 without IDR0.S1P and 110 without IDR0.S2P are
 *   C_BAD_STE. STE.S1Fmt is
 *   ignored when S1CDMax is 0, as the spec says; S1CDMax non-zero is
 *   C_BAD_STE (SSIDSIZE 0). S1STALLD=1 is C_BAD_STE (5.5: STALL_MODEL !=
 *   00). STRW other than 00 (EL2 without HYP, EL3) is C_BAD_STE. Other
 *   STE fields (attributes, EATS, MEV, ...) are not checked. 111 (nested)
 *   needs S1P and S2P, and is checked as 101 and 110 both are.
 * - A StreamID beyond LOG2SIZE, an L1STD with Span 0, reserved or beyond
 *   SPLIT+1, or beyond its Span record C_BAD_STREAMID only when
 *   CR2.RECINVSID (5.1); QEMU 7.2 may record other types for these.
 * - CMD_RESUME and CMD_STALL_TERM are accepted and do nothing (nothing
 *   ever stalls); the spec may make them CERROR_ILL without stall
 *   support: not sure.
 * - A CD is ILLEGAL (C_BAD_CD) when: V=0, AA64=0, T0SZ outside 16..39
 *   (IDR3.STT=0) for a translated TTB0 half, TG0 reserved or a granule
 *   IDR5 does not offer, ENDI=1 (TTENDIAN little-endian only), A=0
 *   (TERM_MODEL 1), S=1 (no stall), HA or HD set (no HTTU), SH0=01, ASID
 *   non-zero in bits 15:8 without ASID16. The TTB1 half: EPD1=1 faults it
 *   (F_TRANSLATION); EPD1=0 walks TTB1 with T1SZ/TG1 checked alike.
 * - CMD_SYNC with CS=SIG_IRQ raises the model's irq hook (what a wired
 *   sync interrupt would be; IDR0.MSI=0), CS=SIG_SEV is accepted, CS=11
 *   is CERROR_ILL. A command with a non-zero field the spec makes RES0 for
 *   this unit (S2 commands without IDR0.S2P, HYP, ATS, PRI, stall; RIL=0
 *   range fields) is CERROR_ILL: the spec allows an implementation not
 *   to check them.
 * - The TLB caches leaf entries only, tagged by ASID (nG=1) or global
 *   (nG=0, matched by every ASID; TLBI_NH_ASID keeps them, 4.4.2.2). Walk
 *   (table) entries are not cached, so Leaf=0 and Leaf=1 act alike. A
 *   range TLBI (TG != 0) drops only entries of TG's granule and, with a
 *   TTL hint, of that leaf level: what the spec requires and no more
 *   (4.4.1.1), so a wrong TG or TTL leaves entries stale.
 * - The configuration cache holds L1STDs, STEs and CDs as fetched, valid
 *   or not (3.21 permits it): an STE, CD or L1STD made valid is not seen
 *   until the CFGI that covers it; CFGI_STE with Leaf=1 keeps the L1STD.
 *   CFGI_STE and CFGI_STE_RANGE drop the CD cached through the STE too
 *   (4.3.1). A fetch from physical 0 is not cached.
 * - A request is unprivileged (PCIe without a PASID prefix, 13.7) unless
 *   STE.PRIVCFG is 11 (privileged); then CD.PAN applies to AP[1]=1 pages.
 * - Events are recorded only while EVENTQEN; otherwise they are lost and
 *   counted in events_lost (not an overflow).
 * - CLASS and the IPA of stage-1 fault records are 0 (S2=0). A stage-2
 *   fault has S2=1, CLASS IN (0b10) and the IPA (the input address:
 *   stage 1 does not translate), recorded only with STE.S2R.
 * - A stage-2 STE is ILLEGAL (C_BAD_STE) when: S2AA64=0 (TTF AArch64
 *   only), S2ENDI=1, S2HA/S2HD, S2S=1, S2TG reserved or not offered,
 *   S2T0SZ above 39 or an IPA wider than OAS (3.4: IAS is OAS here),
 *   S2SL0 0b11 or a start level whose table would resolve no bits or
 *   more than 16 concatenated tables (Arm ARM D8.2), S2VMID[15:8] non-zero
 *   without VMID16, STRW non-zero. S2PS above OAS is read as OAS.
 * - Stage-2 leaves in the TLB are tagged by VMID and dropped only by
 *   TLBI_S2_IPA (of their VMID and IPA; the range form as TLBI_NH_VA's),
 *   TLBI_S12_VMALL (of their VMID) and TLBI_NSNH_ALL; every TLBI_NH_*
 *   keeps them (4.4). Stage-1 leaves carry the STE's S2VMID on a unit
 *   with stage 2 (0 without): TLBI_NH_* reach only those of the VMID in
 *   the command (non-zero is CERROR_ILL without S2P), TLBI_S12_VMALL
 *   those of its VMID.
 * - Nested (0b111): the CD's address, each stage-1 table descriptor's
 *   and stage 1's output are IPAs, each translated by the STE's stage 2
 *   (a read for the CD and the tables). A stage-2 fault on the way is
 *   recorded as stage 2 alone records it, with CLASS CD (0b00), TT (0b01)
 *   or IN (0b10) and the IPA that faulted. Both stages' leaves are cached
 *   apart (stage 1's IOVA to IPA, stage 2's IPA to PA): no entry combines
 *   them, so TLBI_S2_IPA reaches the stage-2 part of a nested walk, which
 *   the spec does not require of an SMMU that combines them.
 *
 * The model keeps its own reading of the spec on purpose and never
 * includes the SMMUv3 driver's register header: a shared header would let
 * a wrong offset or bit pass both the driver and the model. */
#ifndef IOMMON_SMMUV3_MODEL_H
#define IOMMON_SMMUV3_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "core/base/regwin.h"
#include "iommu/models/models.h"

#define SMMUV3M_WINDOW 0x20000 /* pages 0 and 1, 64 KiB each (6.1) */

#define SMMUV3M_TLB 64
#define SMMUV3M_CFG_CACHE 16
#define SMMUV3M_L1_CACHE 8

/* Event types (7.3), bits 7:0 of an event record's first word. */
enum smmuv3m_event {
	SMMUV3M_C_BAD_STREAMID = 0x02,
	SMMUV3M_F_STE_FETCH = 0x03,
	SMMUV3M_C_BAD_STE = 0x04,
	SMMUV3M_F_CD_FETCH = 0x09,
	SMMUV3M_C_BAD_CD = 0x0a,
	SMMUV3M_F_WALK_EABT = 0x0b,
	SMMUV3M_F_TRANSLATION = 0x10,
	SMMUV3M_F_ADDR_SIZE = 0x11,
	SMMUV3M_F_ACCESS = 0x12,
	SMMUV3M_F_PERMISSION = 0x13,
};

/* CMDQ_CONS.ERR codes (7.1) */
enum { SMMUV3M_CERROR_NONE = 0, SMMUV3M_CERROR_ILL = 1, SMMUV3M_CERROR_ABT = 2 };

/* What the irq hook is told (3.18): which interrupt fired. */
enum smmuv3m_irq { SMMUV3M_IRQ_EVENTQ, SMMUV3M_IRQ_GERROR, SMMUV3M_IRQ_SYNC };

/* One kind: the ID registers it reports. */
struct smmuv3m_kind {
	const char *name;
	uint32_t idr0, idr1, idr3, idr5;
};

struct smmuv3m_tlb {
	bool valid, global;
	bool stage2, noread; /* a stage-2 leaf (tagged by VMID) and its S2AP[0] = 0 */
	uint16_t asid, vmid;
	uint8_t granule, level; /* the walk's granule shift (12, 14, 16) and the leaf's level */
	uint64_t va, size, pa;	/* the whole leaf: a page or a block */
	bool write, unpriv;	/* AP[2]=0 and APTable[1]=0; AP[1]=1 and APTable[0]=0 */
};

struct smmuv3m_cfg {
	bool valid, cd_cached;
	uint32_t sid;
	uint64_t ste[8], cd[8];
};

struct smmuv3m_l1 {
	bool valid;
	uint32_t index;
	uint64_t desc;
};

struct smmuv3_model {
	const struct smmuv3m_kind *kind;
	/* registers (6.3) */
	uint32_t cr0, cr0ack, cr1, cr2, gbpa, irq_ctrl, irq_ctrlack, gerror, gerrorn;
	uint32_t strtab_base_cfg, cmdq_prod, cmdq_cons, eventq_prod, eventq_cons;
	uint32_t gerror_irq_cfg1, gerror_irq_cfg2, eventq_irq_cfg1, eventq_irq_cfg2;
	uint64_t strtab_base, cmdq_base, eventq_base, gerror_irq_cfg0, eventq_irq_cfg0;
	unsigned cr0_reads, irq_reads, gbpa_reads; /* reads since the write, until the ACK follows */
	/* caches: they serve what they hold until the command that covers them */
	struct smmuv3m_cfg cfg[SMMUV3M_CFG_CACHE];
	struct smmuv3m_l1 l1[SMMUV3M_L1_CACHE];
	struct smmuv3m_tlb tlb[SMMUV3M_TLB];
	unsigned cfg_next, l1_next, tlb_next;
	/* the engine behind the model (its StreamID) and the interrupt hook */
	uint32_t engine_sid;
	void (*irq)(void *ctx, enum smmuv3m_irq which);
	void *irq_ctx;
	/* faults injected */
	bool sync_stuck;   /* CMD_SYNC never completes: CONS stops before it */
	bool eventq_full;  /* the event queue has no free slot: every event overflows */
	bool illegal_next; /* the next command fetched is CERROR_ILL */
	bool all_ones;	   /* nothing answers */
	bool cr0ack_stuck; /* CR0ACK never follows CR0 */
	/* what happened, for tests */
	unsigned irqs[3], events, events_lost, overflows, commands, syncs, walks, tlb_hits, cfg_fetches;
	unsigned cfgi_ste, cfgi_ste_range, cfgi_cd, cfgi_cd_all, cfgi_all;
	unsigned tlbi_nh_va, tlbi_nh_va_range, tlbi_nh_vaa, tlbi_nh_asid, tlbi_nh_all, tlbi_nsnh_all;
	unsigned tlbi_s2_ipa, tlbi_s2_ipa_range, tlbi_s12_vmall;
	unsigned command_errors;
	/* what the driver did wrong */
	unsigned bad_width;	  /* not a 32-bit access, or a 64-bit one to a 32-bit register */
	unsigned reserved_writes; /* reserved or read-only bits written, an undefined register written */
	unsigned protocol_errors; /* a base moved while enabled, SMMUEN with no table, PROD past CONS, ... */
	struct regwin win;
};

/* The kinds ("smmuv3", "smmuv3-linear", "smmuv3-64k", "smmuv3-s2",
 * "smmuv3-s2only"), ending with a NULL name. */
extern const struct smmuv3m_kind smmuv3m_kinds[];
/* A unit of `kind` out of reset: everything off; false for an unknown kind. */
bool smmuv3m_init(struct smmuv3_model *m, const char *kind);

/* A DMA by `sid` at `iova`: the physical address, or false after
 * recording the event the spec gives for the refusal (when the queue
 * takes it and the CD's R bit asks for it). `model` is a struct
 * smmuv3_model. */
bool smmuv3m_translate(void *model, uint32_t sid, uint64_t iova, bool write, uint64_t *phys);

/* ---- inside the model: shared by smmuv3_model.c and smmuv3_model_walk.c ---- */

/* Writes one event record (four doublewords) at EVENTQ_PROD, or counts it
 * lost (queue disabled, full: OVFLG toggles, or unwritable). */
void smmuv3m_record(struct smmuv3_model *m, const uint64_t rec[4]);
/* The configuration cache's invalidations (4.3): the STEs (and the CDs
 * cached through them) of StreamIDs [first, first + n), with the L1STDs
 * when `l1`; the CD of one StreamID. */
void smmuv3m_drop_ste(struct smmuv3_model *m, uint64_t first, uint64_t n, bool l1);
void smmuv3m_drop_cd(struct smmuv3_model *m, uint32_t sid);
/* What one TLB invalidation covers (4.4): entries of `asid` (any ASID
 * when `any_asid`; global entries only when `global_too`) overlapping
 * [va, va + size), of the granule and leaf level a range command names
 * (0: any). */
struct smmuv3m_scope {
	bool any_asid, global_too;
	uint16_t asid;
	bool s2, s2_only, any_vmid; /* stage-2 entries too (of `vmid`, or any), or only they */
	uint16_t vmid;
	uint64_t va, size;
	unsigned granule, level;
};
void smmuv3m_drop_tlb(struct smmuv3_model *m, const struct smmuv3m_scope *s);
/* The effective output address size in bits (IDR5.OAS). */
unsigned smmuv3m_oas_bits(unsigned ips);

/* ---- the family: what `model smmuv3` attaches ---- */

/* What the model offers its family: the faults `model` can inject and the
 * kinds it models. The family itself (iommu/models/models.h) is defined
 * beside the backend's descriptor (backend.c), which builds the model, the
 * engine behind its bridge and the driver on the model's window: this
 * model sees nothing of its driver. */
extern const struct model_fault smmuv3m_faults[];
extern const char *const smmuv3m_kind_names[];
extern const struct model_family smmuv3_family;

/* The attached model, for cases that reach into it (NULL when another
 * kind, or none, is attached); backend.c. */
struct smmuv3_model *model_smmuv3(void);

#endif
