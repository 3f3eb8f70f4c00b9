/* The RISC-V IOMMU (RISC-V IOMMU Architecture Specification 1.0): its
 * register file (chapter 5, one 4 KiB page) and its in-memory structures
 * (chapters 2 and 3): the device directory, device contexts, the command
 * and fault queues' records, the MSI page table. Field positions are the
 * specification's; names are iommon's. */
#ifndef IOMMON_RISCV_REGS_H
#define IOMMON_RISCV_REGS_H

#include <stdint.h>

#define RVI_BIT(n) (1ull << (n))
/* bits hi..lo of v */
#define RVI_FIELD(v, hi, lo) (((uint64_t)(v) >> (lo)) & ((2ull << ((hi) - (lo))) - 1))

/* ---- registers (chapter 5) ------------------------------------------------ */

#define RVI_REG_CAPS 0x000	  /* 64: capabilities */
#define RVI_REG_FCTL 0x008	  /* 32: features control */
#define RVI_REG_DDTP 0x010	  /* 64: device-directory-table pointer */
#define RVI_REG_CQB 0x018	  /* 64: command queue base */
#define RVI_REG_CQH 0x020	  /* 32: command queue head (the unit's) */
#define RVI_REG_CQT 0x024	  /* 32: command queue tail (software's) */
#define RVI_REG_FQB 0x028	  /* 64: fault queue base */
#define RVI_REG_FQH 0x030	  /* 32: fault queue head (software's) */
#define RVI_REG_FQT 0x034	  /* 32: fault queue tail (the unit's) */
#define RVI_REG_PQB 0x038	  /* 64: page-request queue base */
#define RVI_REG_PQH 0x040	  /* 32 */
#define RVI_REG_PQT 0x044	  /* 32 */
#define RVI_REG_CQCSR 0x048	  /* 32: command queue control and status */
#define RVI_REG_FQCSR 0x04c	  /* 32: fault queue control and status */
#define RVI_REG_PQCSR 0x050	  /* 32: page-request queue control and status */
#define RVI_REG_IPSR 0x054	  /* 32: interrupt pending status (write 1 to clear) */
#define RVI_REG_IOCNTOVF 0x058	  /* 32 */
#define RVI_REG_IOCNTINH 0x05c	  /* 32 */
#define RVI_REG_IOHPMCYCLES 0x060 /* 64 */
#define RVI_REG_TR_REQ_IOVA 0x258 /* 64: the debug translation interface */
#define RVI_REG_TR_REQ_CTL 0x260  /* 64 */
#define RVI_REG_TR_RESPONSE 0x268 /* 64 */
#define RVI_REG_ICVEC 0x2f8	  /* 64: interrupt cause to vector */
#define RVI_REG_MSI_CFG 0x300	  /* 16 entries of 16 bytes: address, data, control */
#define RVI_REG_SIZE 0x1000

/* capabilities */
#define RVI_CAP_VERSION(c) RVI_FIELD(c, 7, 0) /* major in 7:4, minor in 3:0: 0x10 is 1.0 */
#define RVI_CAP_SV32 RVI_BIT(8)
#define RVI_CAP_SV39 RVI_BIT(9)
#define RVI_CAP_SV48 RVI_BIT(10)
#define RVI_CAP_SV57 RVI_BIT(11)
#define RVI_CAP_SVPBMT RVI_BIT(15)
#define RVI_CAP_SV32X4 RVI_BIT(16)
#define RVI_CAP_SV39X4 RVI_BIT(17)
#define RVI_CAP_SV48X4 RVI_BIT(18)
#define RVI_CAP_SV57X4 RVI_BIT(19)
#define RVI_CAP_AMO_MRIF RVI_BIT(21)
#define RVI_CAP_MSI_FLAT RVI_BIT(22) /* and with it the extended device context */
#define RVI_CAP_MSI_MRIF RVI_BIT(23)
#define RVI_CAP_AMO_HWAD RVI_BIT(24) /* A and D updated by the unit */
#define RVI_CAP_ATS RVI_BIT(25)
#define RVI_CAP_T2GPA RVI_BIT(26)
#define RVI_CAP_END RVI_BIT(27)		    /* fctl.BE can be set */
#define RVI_CAP_IGS(c) RVI_FIELD(c, 29, 28) /* 0 MSI, 1 wired, 2 both */
#define RVI_CAP_HPM RVI_BIT(30)
#define RVI_CAP_DBG RVI_BIT(31)
#define RVI_CAP_PAS(c) RVI_FIELD(c, 37, 32) /* physical address bits */
#define RVI_CAP_PD8 RVI_BIT(38)
#define RVI_CAP_PD17 RVI_BIT(39)
#define RVI_CAP_PD20 RVI_BIT(40)

/* fctl */
#define RVI_FCTL_BE RVI_BIT(0)	/* big-endian structures */
#define RVI_FCTL_WSI RVI_BIT(1) /* wired interrupts instead of MSIs */
#define RVI_FCTL_GXL RVI_BIT(2) /* G-stage in Sv32x4 */

/* ddtp: the mode, busy while a write to it takes effect, the root's PPN */
#define RVI_DDTP_MODE(d) RVI_FIELD(d, 3, 0)
#define RVI_DDTP_BUSY RVI_BIT(4)
#define RVI_DDTP_PPN_MASK 0x003ffffffffffc00ull /* bits 53:10 */
enum rvi_ddt_mode { RVI_DDT_OFF = 0, RVI_DDT_BARE = 1, RVI_DDT_1LVL = 2, RVI_DDT_2LVL = 3, RVI_DDT_3LVL = 4 };

/* The PPN field every pointer register and directory entry uses: address
 * bits 55:12 at bits 53:10. */
static inline uint64_t rvi_ppn_field(uint64_t addr)
{
	return (addr >> 2) & RVI_DDTP_PPN_MASK;
}
static inline uint64_t rvi_ppn_addr(uint64_t reg)
{
	return (reg & RVI_DDTP_PPN_MASK) << 2;
}

/* cqb, fqb, pqb: log2(entries) - 1 in 4:0, the PPN in 53:10 */
#define RVI_QB_LOG2SZ(b) RVI_FIELD(b, 4, 0)

/* cqcsr, fqcsr, pqcsr */
#define RVI_QCSR_EN RVI_BIT(0)	      /* software's: enable */
#define RVI_QCSR_IE RVI_BIT(1)	      /* software's: interrupt enable */
#define RVI_QCSR_MF RVI_BIT(8)	      /* memory fault (write 1 to clear) */
#define RVI_CQCSR_CMD_TO RVI_BIT(9)   /* a command timed out */
#define RVI_FQCSR_OF RVI_BIT(9)	      /* the fault queue overflowed */
#define RVI_CQCSR_CMD_ILL RVI_BIT(10) /* an illegal command: the queue stops at it */
#define RVI_CQCSR_FENCE_W_IP RVI_BIT(11)
#define RVI_QCSR_ON RVI_BIT(16)	  /* the unit's: the queue is active */
#define RVI_QCSR_BUSY RVI_BIT(17) /* the unit's: an enable or disable in progress */

/* ipsr */
#define RVI_IPSR_CIP RVI_BIT(0)
#define RVI_IPSR_FIP RVI_BIT(1)
#define RVI_IPSR_PMIP RVI_BIT(2)
#define RVI_IPSR_PIP RVI_BIT(3)

/* ---- the device directory (chapter 2.1) ----------------------------------- */

/* A non-leaf directory entry: valid and the PPN of the next level. */
#define RVI_DDTE_V RVI_BIT(0)

/* A device context: 32 bytes (base format), or 64 with the MSI fields
 * (extended format, when caps.MSI_FLAT). */
struct rvi_dc {
	uint64_t tc;
	uint64_t iohgatp;
	uint64_t ta;
	uint64_t fsc;
	uint64_t msiptp; /* the extended format's from here */
	uint64_t msi_addr_mask;
	uint64_t msi_addr_pattern;
	uint64_t reserved;
};
#define RVI_DC_BASE_BYTES 32u
#define RVI_DC_EXT_BYTES 64u

#define RVI_TC_V RVI_BIT(0)
#define RVI_TC_EN_ATS RVI_BIT(1)
#define RVI_TC_EN_PRI RVI_BIT(2)
#define RVI_TC_T2GPA RVI_BIT(3)
#define RVI_TC_DTF RVI_BIT(4) /* disable translation-fault reporting */
#define RVI_TC_PDTV RVI_BIT(5)
#define RVI_TC_PRPR RVI_BIT(6)
#define RVI_TC_GADE RVI_BIT(7)
#define RVI_TC_SADE RVI_BIT(8)
#define RVI_TC_DPE RVI_BIT(9)
#define RVI_TC_SBE RVI_BIT(10)
#define RVI_TC_SXL RVI_BIT(11)

/* iohgatp and fsc (iosatp): mode in 63:60, the root's PPN in 43:0;
 * iohgatp's GSCID in 59:44 */
#define RVI_ATP_MODE(a) RVI_FIELD(a, 63, 60)
#define RVI_ATP_PPN(a) RVI_FIELD(a, 43, 0)
#define RVI_ATP(mode, root) (((uint64_t)(mode) << 60) | (((root) >> 12) & 0xfffffffffffull))
#define RVI_IOHGATP_GSCID(g) ((uint64_t)((g)&0xffff) << 44)
#define RVI_TA_PSCID(p) ((uint64_t)((p)&0xfffff) << 12)
/* modes: Bare 0; Sv39 (Sv39x4 in iohgatp) 8, Sv48 9, Sv57 10 */
enum rvi_atp_mode { RVI_ATP_BARE = 0, RVI_ATP_SV39 = 8, RVI_ATP_SV48 = 9, RVI_ATP_SV57 = 10 };

/* msiptp: mode in 63:60 (0 off, 1 flat), PPN in 43:0 */
#define RVI_MSIPTP_FLAT 1u

/* ---- the queues' records (chapter 3) -------------------------------------- */

/* A command: 16 bytes; opcode in 6:0, function in 9:7. */
struct rvi_cmd {
	uint64_t dw0, dw1;
};
#define RVI_CMD_OPCODE(c) RVI_FIELD((c)->dw0, 6, 0)
#define RVI_CMD_FUNC(c) RVI_FIELD((c)->dw0, 9, 7)
enum {
	RVI_OP_IOTINVAL = 1, /* func 0 VMA, 1 GVMA */
	RVI_OP_IOFENCE = 2,  /* func 0 C */
	RVI_OP_IODIR = 3,    /* func 0 INVAL_DDT, 1 INVAL_PDT */
	RVI_OP_ATS = 4,	     /* func 0 INVAL, 1 PRGR */
};
#define RVI_IOTINVAL_AV RVI_BIT(10) /* dw1 holds an address */
#define RVI_IOTINVAL_PSCV RVI_BIT(32)
#define RVI_IOTINVAL_GV RVI_BIT(33)
#define RVI_IOFENCE_AV RVI_BIT(10) /* write DATA to the address in dw1 (bits 55:2) */
#define RVI_IOFENCE_WSI RVI_BIT(11)
#define RVI_IOFENCE_PR RVI_BIT(12)
#define RVI_IOFENCE_PW RVI_BIT(13)
#define RVI_IODIR_DV RVI_BIT(33)

/* A fault record: 32 bytes. */
struct rvi_fault {
	uint64_t hdr;	  /* cause 11:0, PID 31:12, PV 32, PRIV 33, TTYP 39:34, DID 63:40 */
	uint64_t custom;  /* 31:0 custom, 63:32 reserved */
	uint64_t iotval;  /* the IOVA, for most causes */
	uint64_t iotval2; /* the guest physical address, for guest-page faults */
};
#define RVI_FAULT_CAUSE(h) ((unsigned)RVI_FIELD(h, 11, 0))
#define RVI_FAULT_TTYP(h) ((unsigned)RVI_FIELD(h, 39, 34))
#define RVI_FAULT_DID(h) ((uint32_t)RVI_FIELD(h, 63, 40))
enum {
	RVI_TTYP_NONE = 0,
	RVI_TTYP_UNTRANSLATED_EXEC = 1,
	RVI_TTYP_UNTRANSLATED_READ = 2,
	RVI_TTYP_UNTRANSLATED_WRITE = 3,
	RVI_TTYP_TRANSLATED_EXEC = 5,
	RVI_TTYP_TRANSLATED_READ = 6,
	RVI_TTYP_TRANSLATED_WRITE = 7,
	RVI_TTYP_ATS_REQUEST = 8,
	RVI_TTYP_MESSAGE = 9,
};
enum {
	RVI_CAUSE_READ_ACCESS = 5,
	RVI_CAUSE_WRITE_ACCESS = 7,
	RVI_CAUSE_READ_PAGE = 13,
	RVI_CAUSE_WRITE_PAGE = 15,
	RVI_CAUSE_READ_GUEST_PAGE = 21,
	RVI_CAUSE_WRITE_GUEST_PAGE = 23,
	RVI_CAUSE_DMA_DISABLED = 256,
	RVI_CAUSE_DDT_LOAD = 257,
	RVI_CAUSE_DDT_INVALID = 258,
	RVI_CAUSE_DDT_MISCONFIGURED = 259,
	RVI_CAUSE_TTYP_BLOCKED = 260,
	RVI_CAUSE_MSI_LOAD = 261,
	RVI_CAUSE_MSI_INVALID = 262,
	RVI_CAUSE_MSI_MISCONFIGURED = 263,
};

/* ---- page-table entries (the privileged architecture's Sv39/48/57) ------- */

#define RVI_PTE_V RVI_BIT(0)
#define RVI_PTE_R RVI_BIT(1)
#define RVI_PTE_W RVI_BIT(2)
#define RVI_PTE_X RVI_BIT(3)
#define RVI_PTE_U RVI_BIT(4)
#define RVI_PTE_G RVI_BIT(5)
#define RVI_PTE_A RVI_BIT(6)
#define RVI_PTE_D RVI_BIT(7)
#define RVI_PTE_PPN_MASK RVI_DDTP_PPN_MASK /* bits 53:10 */
#define RVI_PTE_N RVI_BIT(63)

/* ---- MSI page-table entries (2.3.3): 16 bytes, the first doubleword's ---- */

#define RVI_MSI_PTE_V RVI_BIT(0)
#define RVI_MSI_PTE_M_BASIC (3ull << 1) /* M = 3: basic translate, to PPN << 12 | A[11:0] */
#define RVI_MSI_PTE_C RVI_BIT(63)	/* custom use */
/* the PPN in 53:10 as in a leaf PTE (RVI_PTE_PPN_MASK); the second
 * doubleword is MRIF mode's, reserved (zero) in basic translate */
#define RVI_MSI_PT_FILES 256u /* interrupt files one page of entries holds */

#endif
