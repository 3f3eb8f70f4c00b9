/* Everything iommon knows about the VT-d register file and the structures
 * the unit reads from memory, in the words of the Intel Virtualization
 * Technology for Directed I/O Architecture Specification (rev. 3.x/4.x):
 * register offsets (11.4), their bits and fields, the root and context
 * entries (9.1, 9.3), second-level paging entries (9.8), fault records
 * (9.9, 11.4.9.6) and the queued-invalidation descriptors (6.5.2).
 *
 * The driver and the `iommu` command use these; the register model
 * (model.c) keeps its own reading of the spec on purpose. */
#ifndef IOMMON_VTD_REGS_H
#define IOMMON_VTD_REGS_H

#include <stdint.h>

/* The bits hi..lo of v (inclusive), shifted down. */
static inline uint64_t vtd_field(uint64_t v, unsigned hi, unsigned lo)
{
	return (v >> lo) & (~0ull >> (63 - (hi - lo)));
}

/* ---- register offsets (11.4) -------------------------------------------- */
#define VTD_REG_VER 0x00     /* 11.4.1, 32-bit */
#define VTD_REG_CAP 0x08     /* 11.4.2 */
#define VTD_REG_ECAP 0x10    /* 11.4.3 */
#define VTD_REG_GCMD 0x18    /* 11.4.4, 32-bit */
#define VTD_REG_GSTS 0x1c    /* 11.4.5, 32-bit */
#define VTD_REG_RTADDR 0x20  /* 11.4.6 */
#define VTD_REG_CCMD 0x28    /* 11.4.7 */
#define VTD_REG_FSTS 0x34    /* 11.4.9.1, 32-bit */
#define VTD_REG_FECTL 0x38   /* 11.4.9.2, 32-bit */
#define VTD_REG_FEDATA 0x3c  /* 11.4.9.3, 32-bit */
#define VTD_REG_FEADDR 0x40  /* 11.4.9.4, 32-bit */
#define VTD_REG_FEUADDR 0x44 /* 11.4.9.5, 32-bit */
#define VTD_REG_PMEN 0x64    /* Protected Memory Enable, 32-bit (11.4.13) */
#define VTD_REG_PLMBASE 0x68 /* Protected Low-Memory Base, 32-bit */
#define VTD_REG_PLMLIMIT 0x6c
#define VTD_REG_PHMBASE 0x70 /* Protected High-Memory Base, 64-bit */
#define VTD_REG_PHMLIMIT 0x78
#define VTD_REG_IQH 0x80  /* Invalidation Queue Head */
#define VTD_REG_IQT 0x88  /* Invalidation Queue Tail */
#define VTD_REG_IQA 0x90  /* Invalidation Queue Address */
#define VTD_REG_ICS 0x9c  /* Invalidation Completion Status, 32-bit */
#define VTD_REG_IRTA 0xb8 /* Interrupt Remapping Table Address (11.4.10.1) */
/* The IOTLB registers sit at ECAP.IRO (11.4.8): IVA first, IOTLB after it. */
#define VTD_REG_IVA(iro) (iro)
#define VTD_REG_IOTLB(iro) ((iro) + 8)
/* Fault-recording register i at CAP.FRO (11.4.9.6): 128 bits, read as a
 * 64-bit low half and two 32-bit words above it. */
#define VTD_REG_FRCD_LO(fro, i) ((fro) + 16ull * (i))
#define VTD_REG_FRCD_SID(fro, i) ((fro) + 16ull * (i) + 8)
#define VTD_REG_FRCD_HI(fro, i) ((fro) + 16ull * (i) + 12)

/* ---- VER (11.4.1) ------------------------------------------------------- */
#define vtd_ver_max(v) ((unsigned)vtd_field((v), 7, 4))
#define vtd_ver_min(v) ((unsigned)vtd_field((v), 3, 0))

/* ---- CAP (11.4.2) ------------------------------------------------------- */
#define vtd_cap_nd(c) ((unsigned)vtd_field((c), 2, 0)) /* 2^(4+2*ND) domains */
#define vtd_cap_rwbf(c) ((unsigned)vtd_field((c), 4, 4))
#define vtd_cap_plmr(c) ((unsigned)vtd_field((c), 5, 5))
#define vtd_cap_phmr(c) ((unsigned)vtd_field((c), 6, 6))
#define vtd_cap_cm(c) ((unsigned)vtd_field((c), 7, 7))
/* SAGAW bit n: an n+2-level walk (bit 1: 39-bit, bit 2: 48-bit, bit 3: 57-bit) */
#define vtd_cap_sagaw(c) ((unsigned)vtd_field((c), 12, 8))
#define vtd_cap_mgaw(c) ((unsigned)vtd_field((c), 21, 16) + 1) /* bits */
/* FRO is in 16-byte units; the offset in bytes */
#define vtd_cap_fro(c) ((unsigned)vtd_field((c), 33, 24) * 16)
/* SLLPS bit 0: 2 MiB leaves, bit 1: 1 GiB leaves */
#define vtd_cap_sllps(c) ((unsigned)vtd_field((c), 37, 34))
#define vtd_cap_psi(c) ((unsigned)vtd_field((c), 39, 39))
#define vtd_cap_nfr(c) ((unsigned)vtd_field((c), 47, 40) + 1) /* records */
#define vtd_cap_mamv(c) ((unsigned)vtd_field((c), 53, 48))
#define vtd_cap_dwd(c) ((unsigned)vtd_field((c), 54, 54))
#define vtd_cap_drd(c) ((unsigned)vtd_field((c), 55, 55))
#define vtd_cap_fl1gp(c) ((unsigned)vtd_field((c), 56, 56)) /* first stage: 1 GiB leaves */
#define vtd_cap_fl5lp(c) ((unsigned)vtd_field((c), 60, 60)) /* first stage: 5-level walks */
#define VTD_SAGAW_39 (1u << 1)
#define VTD_SAGAW_48 (1u << 2)
#define VTD_SAGAW_57 (1u << 3)
#define VTD_SLLPS_2M (1u << 0)
#define VTD_SLLPS_1G (1u << 1)

/* ---- ECAP (11.4.3) ------------------------------------------------------ */
#define vtd_ecap_c(e) ((unsigned)vtd_field((e), 0, 0)) /* page-walk coherency */
#define vtd_ecap_qi(e) ((unsigned)vtd_field((e), 1, 1))
#define vtd_ecap_dt(e) ((unsigned)vtd_field((e), 2, 2))
#define vtd_ecap_ir(e) ((unsigned)vtd_field((e), 3, 3))
#define vtd_ecap_eim(e) ((unsigned)vtd_field((e), 4, 4))
#define vtd_ecap_pt(e) ((unsigned)vtd_field((e), 6, 6))
#define vtd_ecap_sc(e) ((unsigned)vtd_field((e), 7, 7))
/* IRO is in 16-byte units; the offset in bytes */
#define vtd_ecap_iro(e) ((unsigned)vtd_field((e), 17, 8) * 16)
#define vtd_ecap_nest(e) ((unsigned)vtd_field((e), 26, 26))   /* nested: first stage behind second */
#define vtd_ecap_pss(e) ((unsigned)vtd_field((e), 39, 35))    /* PASID bits: PSS + 1 */
#define vtd_ecap_pasid(e) ((unsigned)vtd_field((e), 40, 40))  /* requests with a PASID */
#define vtd_ecap_smts(e) ((unsigned)vtd_field((e), 43, 43))   /* scalable-mode translation */
#define vtd_ecap_slads(e) ((unsigned)vtd_field((e), 45, 45))  /* second stage: A/D bits */
#define vtd_ecap_slts(e) ((unsigned)vtd_field((e), 46, 46))   /* scalable mode: second stage */
#define vtd_ecap_flts(e) ((unsigned)vtd_field((e), 47, 47))   /* scalable mode: first stage */
#define vtd_ecap_smpwcs(e) ((unsigned)vtd_field((e), 48, 48)) /* scalable mode: walks coherent */
#define vtd_ecap_rps(e) ((unsigned)vtd_field((e), 49, 49))    /* RID_PASID in the context entry */

/* ---- GCMD (11.4.4) and GSTS (11.4.5) ------------------------------------ */
#define VTD_GCMD_TE (1u << 31)	  /* translation enable */
#define VTD_GCMD_SRTP (1u << 30)  /* set root table pointer (one-shot) */
#define VTD_GCMD_SFL (1u << 29)	  /* set fault log (one-shot) */
#define VTD_GCMD_EAFL (1u << 28)  /* enable advanced fault logging */
#define VTD_GCMD_WBF (1u << 27)	  /* write buffer flush (one-shot) */
#define VTD_GCMD_QIE (1u << 26)	  /* queued invalidation enable */
#define VTD_GCMD_IRE (1u << 25)	  /* interrupt remapping enable */
#define VTD_GCMD_SIRTP (1u << 24) /* set interrupt remap table pointer (one-shot) */
#define VTD_GCMD_CFI (1u << 23)	  /* compatibility format interrupt */
#define VTD_GSTS_TES (1u << 31)
#define VTD_GSTS_RTPS (1u << 30)
#define VTD_GSTS_FLS (1u << 29)
#define VTD_GSTS_AFLS (1u << 28)
#define VTD_GSTS_WBFS (1u << 27)
#define VTD_GSTS_QIES (1u << 26)
#define VTD_GSTS_IRES (1u << 25)
#define VTD_GSTS_IRTPS (1u << 24)
#define VTD_GSTS_CFIS (1u << 23)
/* GSTS read back as the base of a GCMD write: the one-shot commands'
 * status bits masked, so that none of them is issued by accident (11.4.4) */
#define VTD_GSTS_KEEP (~(VTD_GSTS_RTPS | VTD_GSTS_FLS | VTD_GSTS_WBFS | VTD_GSTS_IRTPS))

/* ---- RTADDR (11.4.6) ---------------------------------------------------- */
#define VTD_RTADDR_RTA 0xfffffffffffff000ull /* root table, 4 KiB aligned */
#define VTD_RTADDR_TTM (3ull << 10)	     /* translation table mode: 00 legacy */
#define VTD_RTADDR_TTM_SCALABLE (1ull << 10) /* 01: scalable-mode root and context entries */

/* ---- CCMD (11.4.7) ------------------------------------------------------ */
#define VTD_CCMD_ICC (1ull << 63)
/* CIRG (62:61) asked and CAIG (60:59) granted: 1 global, 2 domain, 3 device */
enum vtd_ccmd_g { VTD_CCMD_GLOBAL = 1, VTD_CCMD_DOMAIN = 2, VTD_CCMD_DEVICE = 3 };
static inline uint64_t vtd_ccmd(enum vtd_ccmd_g cirg, uint16_t did, uint16_t sid)
{
	return VTD_CCMD_ICC | (uint64_t)cirg << 61 | (uint64_t)sid << 16 | did;
}
#define vtd_ccmd_caig(v) ((unsigned)vtd_field((v), 60, 59))

/* ---- IOTLB and IVA (11.4.8) --------------------------------------------- */
#define VTD_IOTLB_IVT (1ull << 63)
#define VTD_IOTLB_DR (1ull << 49) /* drain reads */
#define VTD_IOTLB_DW (1ull << 48) /* drain writes */
/* IIRG (61:60) asked and IAIG (58:57) granted: 1 global, 2 domain, 3 page */
enum vtd_iotlb_g { VTD_IOTLB_GLOBAL = 1, VTD_IOTLB_DOMAIN = 2, VTD_IOTLB_PAGE = 3 };
static inline uint64_t vtd_iotlb(enum vtd_iotlb_g iirg, uint16_t did, int dr, int dw)
{
	return VTD_IOTLB_IVT | (uint64_t)iirg << 60 | (uint64_t)did << 32 | (dr ? VTD_IOTLB_DR : 0) |
	       (dw ? VTD_IOTLB_DW : 0);
}
#define vtd_iotlb_iaig(v) ((unsigned)vtd_field((v), 58, 57))
/* IVA: the page address (63:12) and the address mask AM (5:0): 2^AM pages */
static inline uint64_t vtd_iva(uint64_t addr, unsigned am)
{
	return (addr & ~0xfffull) | (am & 0x3f);
}

/* ---- fault logging (11.4.9) --------------------------------------------- */
#define VTD_FSTS_PFO (1u << 0) /* primary fault overflow */
#define VTD_FSTS_PPF (1u << 1) /* primary pending fault */
#define VTD_FSTS_IQE (1u << 4) /* invalidation queue error */
#define VTD_FSTS_ICE (1u << 5) /* invalidation completion error */
#define VTD_FSTS_ITE (1u << 6) /* invalidation time-out error */
/* FRI: the fault-recording register to read first */
#define vtd_fsts_fri(f) ((unsigned)vtd_field((f), 15, 8))
#define VTD_FECTL_IM (1u << 31) /* interrupt mask */
#define VTD_FECTL_IP (1u << 30) /* interrupt pending */
/* FEADDR: the local APIC's MSI address with its destination id (19:12) */
#define vtd_feaddr(apic_id) (0xfee00000u | ((apic_id)&0xff) << 12)

/* A fault record (9.9): F and T in the top word, FR its low byte, SID in
 * the word below, the faulting page (FI, 63:12) in the low half. */
#define VTD_FRCD_F (1u << 31) /* fault; write 1 to clear */
#define VTD_FRCD_T (1u << 30) /* 1: a read request, 0: a write */
#define vtd_frcd_fr(hi) ((unsigned)vtd_field((hi), 7, 0))
#define vtd_frcd_sid(w) ((uint16_t)vtd_field((w), 15, 0))
/* scalable mode: PP (95) a PASID came with the request, PV (123:104) its value */
#define vtd_frcd_pp(w) ((unsigned)vtd_field((w), 31, 31))
#define vtd_frcd_pv(hi) ((uint32_t)vtd_field((hi), 27, 8))
#define vtd_frcd_fi(lo) ((lo) & ~0xfffull)
/* Fault reasons (appendix A) the iommu interface names */
#define VTD_FR_WRITE 5 /* write to a page without write permission */
#define VTD_FR_READ 6  /* read of a page without read permission */
/* scalable-mode fault reasons (appendix A, 30h-90h) the interface names */
#define VTD_FR_SM_FS_NOT_PRESENT 0x71 /* first-stage entry not present */
#define VTD_FR_SM_NEST_FS_WRITE 0x77  /* nested: no write in a first-stage entry */
#define VTD_FR_SM_SS_RW 0x79	      /* second-stage entry denies the read or write */
#define VTD_FR_SM_WRITE 0x85	      /* no write permission for a write request */
#define VTD_FR_SM_READ 0x86	      /* no read permission for a read request */
/* interrupt-remapping fault reasons (appendix A, 20h-26h) */
#define VTD_FR_IR_REQ_RSVD 0x20	   /* reserved field set in the interrupt request */
#define VTD_FR_IR_INDEX 0x21	   /* interrupt_index beyond the table's size (IRTA.S) */
#define VTD_FR_IR_NOT_PRESENT 0x22 /* IRTE.P clear */
#define VTD_FR_IR_FETCH 0x23	   /* the table could not be read */
#define VTD_FR_IR_IRTE_RSVD 0x24   /* reserved field set in the IRTE */
#define VTD_FR_IR_COMPAT 0x25	   /* compatibility format blocked (IRE set, CFIS clear) */
#define VTD_FR_IR_SID 0x26	   /* source-id verification failed */
/* for interrupt-remapping faults FI's bits 63:48 hold the interrupt_index
 * and 47:12 are clear (9.9) */
#define vtd_frcd_ir_index(lo) ((unsigned)vtd_field((lo), 63, 48))

/* ---- PMEN --------------------------------------------------------------- */
#define VTD_PMEN_EPM (1u << 31) /* protected memory regions enabled */
#define VTD_PMEN_PRS (1u << 0)	/* protected region status: the regions are enforced */

/* ---- the invalidation queue: IQH, IQT, IQA ------------------------------ */
/* IQH/IQT hold the byte offset of a descriptor in 18:4 (QH, QT): a
 * 128-bit descriptor's index << 4, a 256-bit one's << 5 (bit 4 clear) */
#define vtd_iq_offset(index, dw) ((uint64_t)(index) << ((dw) ? 5 : 4))
#define vtd_iq_index(v, dw) ((unsigned)vtd_field((v), 18, (dw) ? 5 : 4))
/* IQA: the queue's base (63:12); DW (11) 0 for 128-bit descriptors, 1 for
 * 256-bit ones (which scalable mode requires: it treats a 128-bit
 * descriptor as invalid, 6.5.2); QS (2:0) 2^QS pages */
#define VTD_IQA_DW (1ull << 11)
#define vtd_iqa_qs(iqa) ((unsigned)vtd_field((iqa), 2, 0))
static inline uint64_t vtd_iqa(uint64_t base, unsigned qs)
{
	return (base & ~0xfffull) | (qs & 7);
}

/* ---- queued-invalidation descriptors (6.5.2), 128 bits ------------------ */
struct vtd_desc {
	uint64_t lo, hi;
};
#define VTD_DESC_CC 0x1	   /* context-cache invalidate (6.5.2.1) */
#define VTD_DESC_IOTLB 0x2 /* IOTLB invalidate (6.5.2.3) */
#define VTD_DESC_IEC 0x4   /* interrupt entry cache invalidate (6.5.2.7) */
#define VTD_DESC_WAIT 0x5  /* invalidation wait (6.5.2.8) */
/* context-cache: G (5:4) as CCMD.CIRG, DID (31:16), SID (47:32) */
static inline struct vtd_desc vtd_desc_cc(enum vtd_ccmd_g g, uint16_t did, uint16_t sid)
{
	return (struct vtd_desc){ VTD_DESC_CC | (uint64_t)g << 4 | (uint64_t)did << 16 | (uint64_t)sid << 32, 0 };
}
/* IOTLB: G (5:4) as IOTLB.IIRG, DW (6), DR (7), DID (31:16); the upper
 * half as IVA: ADDR (127:76) and AM (69:64) */
#define VTD_DESC_IOTLB_DW (1ull << 6)
#define VTD_DESC_IOTLB_DR (1ull << 7)
static inline struct vtd_desc vtd_desc_iotlb(enum vtd_iotlb_g g, uint16_t did, int dr, int dw, uint64_t addr,
					     unsigned am)
{
	return (struct vtd_desc){ VTD_DESC_IOTLB | (uint64_t)g << 4 | (dw ? VTD_DESC_IOTLB_DW : 0) |
				      (dr ? VTD_DESC_IOTLB_DR : 0) | (uint64_t)did << 16,
				  vtd_iva(addr, am) };
}
/* IEC: G (4) 0 global, 1 index-selective; IM (31:27) 2^IM entries from
 * IIDX (47:32) */
#define VTD_DESC_IEC_INDEX (1ull << 4)
static inline struct vtd_desc vtd_desc_iec(bool by_index, unsigned iidx, unsigned im)
{
	return (struct vtd_desc){ VTD_DESC_IEC | (by_index ? VTD_DESC_IEC_INDEX | (uint64_t)(im & 0x1f) << 27 |
								 (uint64_t)(iidx & 0xffff) << 32
							   : 0),
				  0 };
}
/* wait: IF (4) interrupt, SW (5) status write, FN (6) fence; the status
 * data (63:32) written to the status address (127:66, 4-byte aligned) */
#define VTD_DESC_WAIT_IF (1ull << 4)
#define VTD_DESC_WAIT_SW (1ull << 5)
#define VTD_DESC_WAIT_FN (1ull << 6)
static inline struct vtd_desc vtd_desc_wait_sw(uint32_t data, uint64_t status_addr)
{
	return (struct vtd_desc){ VTD_DESC_WAIT | VTD_DESC_WAIT_SW | (uint64_t)data << 32, status_addr & ~3ull };
}

/* PASID-based IOTLB invalidate (6.5.2.4), first-stage and nested entries
 * of one PASID: G (5:4) 2 every page of the PASID, 3 the pages from ADDR
 * (127:76) by AM (69:64); DID (31:16), PASID (51:32); IH (70). */
#define VTD_DESC_PIOTLB 0x6
enum vtd_piotlb_g { VTD_PIOTLB_PASID = 2, VTD_PIOTLB_PAGE = 3 };
static inline struct vtd_desc vtd_desc_piotlb(enum vtd_piotlb_g g, uint16_t did, uint32_t pasid, uint64_t addr,
					      unsigned am)
{
	return (struct vtd_desc){ VTD_DESC_PIOTLB | (uint64_t)g << 4 | (uint64_t)did << 16 |
				      (uint64_t)(pasid & 0xfffff) << 32,
				  g == VTD_PIOTLB_PAGE ? vtd_iva(addr, am) : 0 };
}
/* PASID-cache invalidate (6.5.2.2): G (5:4) 0 every PASID of the domain,
 * 1 one PASID of it, 3 everything; DID (31:16), PASID (51:32). */
#define VTD_DESC_PC 0x7
enum vtd_pc_g { VTD_PC_DOMAIN = 0, VTD_PC_PASID = 1, VTD_PC_GLOBAL = 3 };
static inline struct vtd_desc vtd_desc_pc(enum vtd_pc_g g, uint16_t did, uint32_t pasid)
{
	return (struct vtd_desc){
		VTD_DESC_PC | (uint64_t)g << 4 | (uint64_t)did << 16 | (uint64_t)(pasid & 0xfffff) << 32, 0
	};
}

/* ---- root and context entries (9.1, 9.3), 128 bits each ----------------- */
#define VTD_ROOT_P 1ull			      /* present */
#define VTD_ROOT_CTP 0xfffffffffffff000ull    /* context table */
#define VTD_CTX_P 1ull			      /* lower half: present */
#define VTD_CTX_SLPTPTR 0xfffffffffffff000ull /* second-level page table */
/* TT (3:2): 0 untranslated requests through the second-level tables,
 * 2 pass-through */
#define VTD_CTX_TT_SL (0ull << 2)
#define VTD_CTX_TT_PT (2ull << 2)
/* the upper half: AW (2:0) the walk's AGAW (1: 3 levels, 2: 4 levels),
 * DID (23:8) */
static inline uint64_t vtd_ctx_hi(unsigned aw, uint16_t did)
{
	return (uint64_t)(aw & 7) | (uint64_t)did << 8;
}
#define vtd_ctx_did(hi) ((uint16_t)vtd_field((hi), 23, 8))

/* ---- scalable mode (9.2, 9.4, 9.5, 9.6) --------------------------------- */
/* A scalable-mode root entry: the lower half LP (0) and LCTP (63:12), the
 * context table of devfns 0-127; the upper half UP and UCTP, of 128-255.
 * Each context table: 128 entries of 256 bits. */
#define VTD_SM_CTX_PER_TABLE 128
#define VTD_SM_CTX_QWORDS 4
/* A scalable-mode context entry, first qword: P (0), FPD (1), DTE (2),
 * PASIDE (3), PRE (4), PDTS (11:9) a directory of 2^(PDTS + 7) entries,
 * PASIDDIRPTR (63:12); second: RID_PASID (19:0), RID_PRIV (20). */
#define VTD_SMCTX_P 1ull
#define VTD_SMCTX_PDTS(p) ((uint64_t)((p)&7) << 9)
#define VTD_SMCTX_DIR 0xfffffffffffff000ull
#define vtd_smctx_pdts(q0) ((unsigned)vtd_field((q0), 11, 9))
#define vtd_smctx_rid_pasid(q1) ((uint32_t)vtd_field((q1), 19, 0))
/* A PASID directory entry (64 bits): P (0), FPD (1), SMPTBLPTR (63:12) a
 * PASID table of 64 entries of 512 bits. PASID bits 19:6 index the
 * directory, 5:0 the table. */
#define VTD_PASID_DIR_P 1ull
#define VTD_PASID_PER_TABLE 64
#define VTD_PASID_QWORDS 8
/* A PASID table entry (9.6), 8 qwords. The first: P (0), FPD (1), AW
 * (4:2) the second-stage walk, SSADE (9), PGTT (8:6) the translation type,
 * SSPTPTR (63:12); the second: DID (15:0), PGSNP (24); the third: SRE (0),
 * FSPM (3:2) 0 a 4-level, 1 a 5-level first-stage walk, FSPTPTR (63:12). */
#define VTD_PE_P 1ull
#define VTD_PE_AW(aw) ((uint64_t)((aw)&7) << 2)
#define VTD_PE_PGTT(t) ((uint64_t)((t)&7) << 6)
#define VTD_PE_PTR 0xfffffffffffff000ull
#define VTD_PE_FSPM_5LEVEL (1ull << 2)
#define vtd_pe_pgtt(q0) ((unsigned)vtd_field((q0), 8, 6))
#define vtd_pe_did(q1) ((uint16_t)vtd_field((q1), 15, 0))
enum vtd_pgtt { VTD_PGTT_FS = 1, VTD_PGTT_SS = 2, VTD_PGTT_NESTED = 3, VTD_PGTT_PT = 4 };

/* ---- first-stage paging entries (9.7): the IA-32e format ---------------- */
#define VTD_FS_P 1ull	      /* present */
#define VTD_FS_RW (1ull << 1) /* writes allowed */
#define VTD_FS_US (1ull << 2) /* user: requests without PASID are user requests */
#define VTD_FS_A (1ull << 5)  /* accessed: set by the unit on every level it walks */
#define VTD_FS_D (1ull << 6)  /* dirty: set by the unit on a leaf written through */
#define VTD_FS_PS (1ull << 7) /* page size: a leaf at level 2 or 3 */
#define VTD_FS_ADDR 0x000ffffffffff000ull

/* ---- second-level paging entries (9.8) ---------------------------------- */
#define VTD_PTE_R 1ull			   /* read */
#define VTD_PTE_W 2ull			   /* write */
#define VTD_PTE_PS (1ull << 7)		   /* page size: a leaf above level 1 */
#define VTD_PTE_ADDR 0x000ffffffffff000ull /* 51:12, the next table or the page */
#define VTD_PTE_LEVEL_BITS 9		   /* 512 entries a table */

/* ---- interrupt remapping (9.10, 11.4.10.1, 5.1.2) ------------------------ */
/* IRTA: the table's base (63:12), EIME (11) x2APIC mode, S (3:0) 2^(S+1)
 * entries */
#define VTD_IRTA_EIME (1ull << 11)
static inline uint64_t vtd_irta(uint64_t base, unsigned s)
{
	return (base & ~0xfffull) | (s & 0xf);
}
/* An IRTE (9.10), 128 bits, remapped format: the low half P (0), FPD (1),
 * DM (2) logical destination, RH (3), TM (4) level, DLM (7:5) 0 fixed,
 * V (23:16) the vector, DST (63:32); in xAPIC mode the 8-bit APIC id sits
 * in DST bits 15:8. The high half SID (15:0), SQ (17:16), SVT (19:18). */
#define VTD_IRTE_P 1ull
static inline uint64_t vtd_irte_lo(uint8_t vector, uint32_t dst, bool x2apic)
{
	uint64_t d = x2apic ? dst : (uint64_t)(dst & 0xff) << 8;
	return VTD_IRTE_P | (uint64_t)vector << 16 | d << 32;
}
#define VTD_IRTE_SVT_SID 1ull /* SVT 01: the request's SID against SID and SQ */
static inline uint64_t vtd_irte_hi(bool verify, uint16_t sid)
{
	return verify ? VTD_IRTE_SVT_SID << 18 | sid : 0;
}
/* A remappable-format MSI (5.1.2.2): address 0xFEE, handle[14:0] (19:5),
 * interrupt format (4) 1, SHV (3) 0, handle[15] (2); the data unused. */
#define VTD_MSI_IF (1u << 4)
static inline uint32_t vtd_msi_addr(unsigned handle)
{
	return 0xfee00000u | (handle & 0x7fffu) << 5 | VTD_MSI_IF | ((handle >> 15) & 1u) << 2;
}

#endif
