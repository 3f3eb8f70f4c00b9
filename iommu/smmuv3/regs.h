/* Arm SMMUv3 registers, structures, commands and events in the words of
 * the architecture specification (IHI 0070, chapters 5 to 7 and 9). Only
 * what this backend reads or writes is named (IDR2, IDR4, IIDR and
 * STATUSR only for the registers its discovery saves). Register offsets are bytes
 * from the unit's base; EVENTQ_PROD/CONS live in page 1 (6.2). */
#ifndef IOMMON_SMMUV3_REGS_H
#define IOMMON_SMMUV3_REGS_H

#include <stdint.h>

/* ---- registers (6.3) ---------------------------------------------------- */
#define SMMU_IDR0 0x00
#define SMMU_IDR1 0x04
#define SMMU_IDR2 0x08
#define SMMU_IDR3 0x0c
#define SMMU_IDR4 0x10
#define SMMU_IDR5 0x14
#define SMMU_IIDR 0x18
#define SMMU_AIDR 0x1c
#define SMMU_CR0 0x20
#define SMMU_CR0ACK 0x24
#define SMMU_CR1 0x28
#define SMMU_CR2 0x2c
#define SMMU_STATUSR 0x40
#define SMMU_GBPA 0x44
#define SMMU_IRQ_CTRL 0x50
#define SMMU_IRQ_CTRLACK 0x54
#define SMMU_GERROR 0x60
#define SMMU_GERRORN 0x64
#define SMMU_STRTAB_BASE 0x80 /* 64 bits */
#define SMMU_STRTAB_BASE_CFG 0x88
#define SMMU_CMDQ_BASE 0x90 /* 64 bits */
#define SMMU_CMDQ_PROD 0x98
#define SMMU_CMDQ_CONS 0x9c
#define SMMU_EVENTQ_BASE 0xa0 /* 64 bits */
#define SMMU_EVENTQ_PROD 0x100a8
#define SMMU_EVENTQ_CONS 0x100ac
#define SMMU_REG_SPAN 0x20000 /* pages 0 and 1 */

/* SMMU_IDR0 (6.3.1) */
#define IDR0_S2P (1u << 0)
#define IDR0_S1P (1u << 1)
#define IDR0_TTF(v) (((v) >> 2) & 3) /* 2: AArch64 tables, 3: both */
#define IDR0_COHACC (1u << 4)
#define IDR0_ASID16 (1u << 12)
#define IDR0_VMID16 (1u << 18)
#define IDR0_ST_LEVEL(v) (((v) >> 27) & 3) /* 1: 2-level stream table */
/* SMMU_IDR1 (6.3.2) */
#define IDR1_SIDSIZE(v) ((v)&0x3f)
#define IDR1_EVENTQS(v) (((v) >> 16) & 0x1f)
#define IDR1_CMDQS(v) (((v) >> 21) & 0x1f)
#define IDR1_TABLES_PRESET (1u << 30)
#define IDR1_QUEUES_PRESET (1u << 29)
/* SMMU_IDR3 (6.3.4) */
#define IDR3_RIL (1u << 10)
/* SMMU_IDR5 (6.3.6) */
#define IDR5_OAS(v) ((v)&7) /* 32, 36, 40, 42, 44, 48, 52 bits */
#define IDR5_GRAN4K (1u << 4)
#define IDR5_GRAN16K (1u << 5)
#define IDR5_GRAN64K (1u << 6)

/* SMMU_CR0 (6.3.9) */
#define CR0_SMMUEN (1u << 0)
#define CR0_PRIQEN (1u << 1)
#define CR0_EVENTQEN (1u << 2)
#define CR0_CMDQEN (1u << 3)
/* SMMU_CR1 (6.3.11): cacheability and shareability of what it fetches */
#define CR1_QUEUE_IC(v) ((uint32_t)(v) << 0)
#define CR1_QUEUE_OC(v) ((uint32_t)(v) << 2)
#define CR1_QUEUE_SH(v) ((uint32_t)(v) << 4)
#define CR1_TABLE_IC(v) ((uint32_t)(v) << 6)
#define CR1_TABLE_OC(v) ((uint32_t)(v) << 8)
#define CR1_TABLE_SH(v) ((uint32_t)(v) << 10)
#define CR1_CACHE_WB 1u
#define CR1_SH_OSH 2u
#define CR1_SH_ISH 3u
/* SMMU_CR2 (6.3.12) */
#define CR2_RECINVSID (1u << 1)
#define CR2_PTM (1u << 2)
/* SMMU_GBPA (6.3.14) */
#define GBPA_UPDATE (1u << 31)
#define GBPA_ABORT (1u << 20)
/* SMMU_IRQ_CTRL (6.3.21) */
#define IRQ_CTRL_GERROR_IRQEN (1u << 0)
#define IRQ_CTRL_EVENTQ_IRQEN (1u << 2)
/* SMMU_GERROR (6.3.23): an error is active while its bit differs from GERRORN's */
#define GERROR_CMDQ_ERR (1u << 0)
#define GERROR_EVENTQ_ABT_ERR (1u << 2)
#define GERROR_SFM_ERR (1u << 8)

/* SMMU_STRTAB_BASE / _CFG (6.3.24, 6.3.25) */
#define STRTAB_BASE_RA (1ull << 62)
#define STRTAB_BASE_ADDR 0x000fffffffffffc0ull
#define STRTAB_CFG_LOG2SIZE(n) ((uint32_t)(n)&0x3f)
#define STRTAB_CFG_SPLIT(n) ((uint32_t)(n) << 6)
#define STRTAB_CFG_FMT_2LVL (1u << 16)
/* SMMU_CMDQ_BASE / SMMU_EVENTQ_BASE (6.3.26, 6.3.29) */
#define Q_BASE_WA_RA (1ull << 62)
#define Q_BASE_ADDR 0x000fffffffffffe0ull
/* PROD and CONS: an index below 2^LOG2SIZE, its wrap bit just above */
#define CMDQ_CONS_ERR(v) (((v) >> 24) & 0x7f)
#define EVENTQ_PROD_OVFLG (1u << 31)
#define EVENTQ_CONS_OVACKFLG (1u << 31)
/* CMDQ_CONS.ERR (7.1) */
#define CERROR_NONE 0
#define CERROR_ILL 1
#define CERROR_ABT 2
#define CERROR_ATC_INV_SYNC 3

/* ---- the stream table (5.2) ------------------------------------------------ */
#define STE_DWORDS 8 /* 64 bytes */
#define STE0_V (1ull << 0)
#define STE0_CONFIG(c) ((uint64_t)(c) << 1)
#define STE_CONFIG_ABORT 0
#define STE_CONFIG_BYPASS 4
#define STE_CONFIG_S1 5
#define STE_CONFIG_S2 6
#define STE_CONFIG_NESTED 7
#define STE0_S1FMT_LINEAR (0ull << 4)
#define STE0_S1CONTEXTPTR 0x000fffffffffffc0ull
#define STE0_S1CDMAX(n) ((uint64_t)(n) << 59)
#define STE1_S1CIR(v) ((uint64_t)(v) << 2) /* 1: write-back, read/write-allocate */
#define STE1_S1COR(v) ((uint64_t)(v) << 4)
#define STE1_S1CSH(v) ((uint64_t)(v) << 6)
#define STE1_SHCFG_INCOMING (1ull << 44)
/* stage 2 (5.2): doubleword 2, and S2TTB in doubleword 3 */
#define STE2_S2VMID(v) ((uint64_t)(v)&0xffff)
#define STE2_S2T0SZ(n) ((uint64_t)(n) << 32)
#define STE2_S2SL0(n) ((uint64_t)(n) << 38)
#define STE2_S2IR0(v) ((uint64_t)(v) << 40)
#define STE2_S2OR0(v) ((uint64_t)(v) << 42)
#define STE2_S2SH0(v) ((uint64_t)(v) << 44)
#define STE2_S2TG(g) ((uint64_t)(g) << 46) /* as CD.TG0: 0 4K, 1 64K, 2 16K */
#define STE2_S2PS(v) ((uint64_t)(v) << 48)
#define STE2_S2AA64 (1ull << 51)
#define STE2_S2R (1ull << 58) /* record faults */
#define STE3_S2TTB 0x000ffffffffffff0ull
/* a level-1 descriptor of a 2-level table (5.1) */
#define L1STD_SPAN(n) ((uint64_t)(n)&0x1f)
#define L1STD_L2PTR 0x000fffffffffffc0ull

/* ---- the context descriptor (5.4) ------------------------------------------ */
#define CD_DWORDS 8
#define CD0_T0SZ(n) ((uint64_t)(n)&0x3f)
#define CD0_TG0(g) ((uint64_t)(g) << 6) /* 0: 4K, 1: 64K, 2: 16K */
#define CD0_IR0(v) ((uint64_t)(v) << 8)
#define CD0_OR0(v) ((uint64_t)(v) << 10)
#define CD0_SH0(v) ((uint64_t)(v) << 12)
#define CD0_EPD1 (1ull << 30)
#define CD0_V (1ull << 31)
#define CD0_IPS(v) ((uint64_t)(v) << 32)
#define CD0_AA64 (1ull << 41)
#define CD0_R (1ull << 45) /* record faults */
#define CD0_A (1ull << 46) /* abort (not stall) a faulting transaction */
#define CD0_ASET (1ull << 47)
#define CD0_ASID(a) ((uint64_t)(a) << 48)
#define CD1_TTB0 0x000ffffffffffff0ull
/* MAIR in dword 3: attribute 0 normal write-back, read/write-allocate */
#define MAIR_ATTR0_NORMAL_WB 0xffull

/* ---- VMSAv8-64 stage-1 descriptors (Arm ARM D8.3) --------------------------- */
#define PTE_VALID (1ull << 0)
#define PTE_TYPE_TABLE (3ull << 0) /* table (above the last level) or page (at it) */
#define PTE_TYPE_BLOCK (1ull << 0)
#define PTE_TYPE_MASK 3ull
#define PTE_ATTRINDX(i) ((uint64_t)(i) << 2)
#define PTE_AP_UNPRIV (1ull << 6) /* AP[1]: unprivileged accesses allowed */
#define PTE_AP_RDONLY (1ull << 7) /* AP[2] */
#define PTE_SH_INNER (3ull << 8)
#define PTE_AF (1ull << 10)
#define PTE_NG (1ull << 11)
#define PTE_ADDR 0x0000fffffffff000ull /* below 2^48: no 52-bit output here */
/* stage-2 leaves (Arm ARM D8.3, D8.5.5): S2AP and MemAttr in place of AP and AttrIndx */
#define PTE_S2AP_R (1ull << 6)		/* S2AP[0]: reads allowed */
#define PTE_S2AP_W (1ull << 7)		/* S2AP[1]: writes allowed */
#define PTE_S2_MEMATTR_WB (0xfull << 2) /* normal, outer and inner write-back */

/* ---- commands (4) ------------------------------------------------------------ */
#define CMD_DWORDS 2
#define CMD_CFGI_STE 0x03
#define CMD_CFGI_STE_RANGE 0x04
#define CMD_CFGI_CD 0x05
#define CMD_TLBI_NH_ALL 0x10
#define CMD_TLBI_NH_ASID 0x11
#define CMD_TLBI_NH_VA 0x12
#define CMD_TLBI_S12_VMALL 0x28
#define CMD_TLBI_S2_IPA 0x2a
#define CMD_TLBI_NSNH_ALL 0x30
#define CMD_SYNC 0x46
#define CMD_SID(s) ((uint64_t)(s) << 32)
#define CMD_ASID(a) ((uint64_t)(a) << 48)
#define CMD_VMID(v) ((uint64_t)(v) << 32)
#define CMD_LEAF (1ull << 0)
#define CMD_STE_RANGE(n) ((uint64_t)(n)&0x1f) /* 2^(n+1) stream ids; 31: all */
#define CMD_TLBI_NUM(n) ((uint64_t)(n) << 12)
#define CMD_TLBI_SCALE(s) ((uint64_t)(s) << 20)
#define CMD_TLBI_TG(g) ((uint64_t)(g) << 10) /* 1: 4K, 2: 16K, 3: 64K; 0: not a range */
#define CMD_TLBI_ADDR 0xfffffffffffff000ull
#define CMD_SYNC_CS_NONE (0ull << 12)

/* ---- events (7.3) ------------------------------------------------------------- */
#define EVT_DWORDS 4
#define EVT_ID(e0) ((unsigned)((e0)&0xff))
#define EVT_SID(e0) ((uint32_t)((e0) >> 32))
#define EVT1_RNW (1ull << 35) /* 1: a read */
#define EVT1_S2 (1ull << 39)  /* the fault is stage 2's */
#define EVT3_IPA 0x000ffffffffffff8ull
#define EVT_F_UUT 0x01
#define EVT_C_BAD_STREAMID 0x02
#define EVT_F_STE_FETCH 0x03
#define EVT_C_BAD_STE 0x04
#define EVT_F_BAD_ATS_TREQ 0x05
#define EVT_F_STREAM_DISABLED 0x06
#define EVT_F_TRANSL_FORBIDDEN 0x07
#define EVT_C_BAD_SUBSTREAMID 0x08
#define EVT_F_CD_FETCH 0x09
#define EVT_C_BAD_CD 0x0a
#define EVT_F_WALK_EABT 0x0b
#define EVT_F_TRANSLATION 0x10
#define EVT_F_ADDR_SIZE 0x11
#define EVT_F_ACCESS 0x12
#define EVT_F_PERMISSION 0x13
#define EVT_F_TLB_CONFLICT 0x20
#define EVT_F_CFG_CONFLICT 0x21
#define EVT_E_PAGE_REQUEST 0x24
#define EVT_F_VMS_FETCH 0x25

#endif
