/* Everything iommon knows about the AMD-Vi register file and the structures
 * the unit reads and writes in memory, in the words of the AMD I/O
 * Virtualization Technology (IOMMU) Specification (pub. 48882): the MMIO
 * registers (3.4), Control and Status bits, the Extended Feature Register,
 * the device table entry (2.2.2), page directory and page table entries
 * (2.2.3), the commands (2.4) and the event log entries (2.5), with
 * builders and decoders.
 *
 * The driver uses these; the register model (model.c) keeps its own
 * reading of the spec on purpose. */
#ifndef IOMMON_AMDVI_REGS_H
#define IOMMON_AMDVI_REGS_H

#include <stdbool.h>
#include <stdint.h>

/* The bits hi..lo of v (inclusive), shifted down. */
static inline uint64_t amdvi_field(uint64_t v, unsigned hi, unsigned lo)
{
	return (v >> lo) & (~0ull >> (63 - (hi - lo)));
}

/* ---- MMIO registers (3.4), all 64-bit ------------------------------------ */
#define AMDVI_MMIO_SIZE 0x4000	     /* the register set spans 16 KiB */
#define AMDVI_REG_DEVTAB_BASE 0x00   /* Device Table Base Address */
#define AMDVI_REG_CMDBUF_BASE 0x08   /* Command Buffer Base Address */
#define AMDVI_REG_EVTLOG_BASE 0x10   /* Event Log Base Address */
#define AMDVI_REG_CONTROL 0x18	     /* IOMMU Control */
#define AMDVI_REG_EXCL_BASE 0x20     /* IOMMU Exclusion Base */
#define AMDVI_REG_EXCL_LIMIT 0x28    /* IOMMU Exclusion Range Limit */
#define AMDVI_REG_EFR 0x30	     /* IOMMU Extended Feature */
#define AMDVI_REG_CMDBUF_HEAD 0x2000 /* Command Buffer Head Pointer */
#define AMDVI_REG_CMDBUF_TAIL 0x2008 /* Command Buffer Tail Pointer */
#define AMDVI_REG_EVTLOG_HEAD 0x2010 /* Event Log Head Pointer */
#define AMDVI_REG_EVTLOG_TAIL 0x2018 /* Event Log Tail Pointer */
#define AMDVI_REG_STATUS 0x2020	     /* IOMMU Status */

/* Base registers: the address in 51:12; DevTab's Size (8:0) is the table's
 * length in 4 KiB pages minus one; CmdBuf's ComLen and EvtLog's EventLen
 * (59:56) are log2 of the entries (at least 8: 256 entries, one page). */
#define AMDVI_BASE_ADDR 0x000ffffffffff000ull
#define AMDVI_DEVTAB_SIZE(pages) ((uint64_t)(pages)-1)
#define AMDVI_RING_LEN(log2n) ((uint64_t)(log2n) << 56)
/* Head and tail pointers: a byte offset in the ring, 18:4. */
#define AMDVI_PTR_MASK 0x7fff0ull

/* ---- Control (3.4.3) ----------------------------------------------------- */
#define AMDVI_CTRL_IOMMU_EN (1ull << 0)
#define AMDVI_CTRL_HT_TUN_EN (1ull << 1)
#define AMDVI_CTRL_EVENT_LOG_EN (1ull << 2)
#define AMDVI_CTRL_EVENT_INT_EN (1ull << 3)
#define AMDVI_CTRL_COM_WAIT_INT_EN (1ull << 4)
#define AMDVI_CTRL_COHERENT (1ull << 10)
#define AMDVI_CTRL_CMDBUF_EN (1ull << 12)
#define AMDVI_CTRL_PPR_LOG_EN (1ull << 13)
#define AMDVI_CTRL_PPR_EN (1ull << 15)
#define AMDVI_CTRL_GT_EN (1ull << 16)
#define AMDVI_CTRL_GA_EN (1ull << 17)
#define AMDVI_CTRL_GA_LOG_EN (1ull << 28)
#define AMDVI_CTRL_DEVTBL_SEG_EN (7ull << 34) /* a segmented device table */
#define AMDVI_CTRL_XT_EN (1ull << 50)	      /* x2APIC interrupts */

/* ---- Status (3.4.13): the low bits are write-1-to-clear --------------------- */
#define AMDVI_STATUS_EVENT_OVERFLOW (1ull << 0)
#define AMDVI_STATUS_EVENT_LOG_INT (1ull << 1)
#define AMDVI_STATUS_COM_WAIT_INT (1ull << 2)
#define AMDVI_STATUS_EVENT_LOG_RUN (1ull << 3)
#define AMDVI_STATUS_CMDBUF_RUN (1ull << 4)

/* ---- Exclusion range (3.4.4, 3.4.5) -------------------------------------- */
#define AMDVI_EXCL_EX_EN (1ull << 0)
#define AMDVI_EXCL_ALLOW (1ull << 1)

/* ---- Extended Feature Register (3.4.6) ------------------------------------ */
#define AMDVI_EFR_PREF_SUP (1ull << 0)
#define AMDVI_EFR_PPR_SUP (1ull << 1)
#define AMDVI_EFR_XT_SUP (1ull << 2)
#define AMDVI_EFR_NX_SUP (1ull << 3)
#define AMDVI_EFR_GT_SUP (1ull << 4)
#define AMDVI_EFR_IA_SUP (1ull << 6) /* INVALIDATE_IOMMU_ALL */
#define AMDVI_EFR_GA_SUP (1ull << 7)
#define AMDVI_EFR_HE_SUP (1ull << 8)
#define AMDVI_EFR_PC_SUP (1ull << 9)
#define AMDVI_EFR_SNP_SUP (1ull << 63)
/* HATS: host page table levels beyond 4 (0: 4, 1: 5, 2: 6; 3 reserved). */
static inline unsigned amdvi_efr_hats(uint64_t efr)
{
	return (unsigned)amdvi_field(efr, 11, 10);
}

/* ---- Device table entry (2.2.2): 256 bits, four quadwords ------------------ */
#define AMDVI_DTE_SIZE 32
#define AMDVI_DEVTAB_MAX 0x10000u /* device ids are 16 bits */
/* quadword 0 */
#define AMDVI_DTE_V (1ull << 0)
#define AMDVI_DTE_TV (1ull << 1)
#define AMDVI_DTE_MODE_SHIFT 9 /* 11:9: levels of the walk; 0: no translation */
#define AMDVI_DTE_PT_ROOT 0x000ffffffffff000ull
#define AMDVI_DTE_IR (1ull << 61)
#define AMDVI_DTE_IW (1ull << 62)
/* quadword 1 */
#define AMDVI_DTE_DOMAIN_ID 0xffffull
#define AMDVI_DTE_SYSMGT_SHIFT 40 /* 41:40 */
/* quadword 2 (interrupt remapping) */
#define AMDVI_DTE_IV (1ull << 0)
#define AMDVI_DTE_INT_TAB_LEN_SHIFT 1		 /* 4:1: the table holds 2^IntTabLen entries (at most 2^11) */
#define AMDVI_DTE_INT_ROOT 0x000fffffffffffc0ull /* 51:6: IntTableRootPtr, 128-byte aligned */
#define AMDVI_DTE_INT_CTL_SHIFT 60		 /* 61:60: IntCtl */
#define AMDVI_DTE_INT_CTL_MASK (3ull << AMDVI_DTE_INT_CTL_SHIFT)
#define AMDVI_INT_CTL_ABORT 0ull   /* fixed and arbitrated interrupts target-aborted */
#define AMDVI_INT_CTL_FORWARD 1ull /* passed through unremapped */
#define AMDVI_INT_CTL_REMAP 2ull   /* remapped through the table */
#define AMDVI_DTE_INIT_PASS (1ull << 56)
#define AMDVI_DTE_EINT_PASS (1ull << 57)
#define AMDVI_DTE_NMI_PASS (1ull << 58)
#define AMDVI_DTE_LINT0_PASS (1ull << 62)
#define AMDVI_DTE_LINT1_PASS (1ull << 63)

/* Interrupt remapping in the DTE's third quadword (2.2.5): the table at
 * `root` of 2^log2n entries, IV=1, IntCtl=10b, the pass bits of `q2` kept. */
static inline uint64_t amdvi_dte_remapped(uint64_t q2, uint64_t root, unsigned log2n)
{
	uint64_t keep = AMDVI_DTE_INIT_PASS | AMDVI_DTE_EINT_PASS | AMDVI_DTE_NMI_PASS | AMDVI_DTE_LINT0_PASS |
			AMDVI_DTE_LINT1_PASS;
	return (q2 & keep) | AMDVI_DTE_IV | (uint64_t)log2n << AMDVI_DTE_INT_TAB_LEN_SHIFT |
	       (root & AMDVI_DTE_INT_ROOT) | AMDVI_INT_CTL_REMAP << AMDVI_DTE_INT_CTL_SHIFT;
}

/* ---- Interrupt remapping table entries, 32-bit format (2.2.5.2) ------------
 * RemapEn 0, SupIOPF 1, IntType 4:2 (000b fixed), RqEoi 5, DM 6 (0:
 * physical), GuestMode 7, Destination 15:8, Vector 23:16; 31:24 reserved.
 * Used while Control.GAEn is clear; with GAEn the entries are 128 bits. */
#define AMDVI_IRTE_SIZE 4
#define AMDVI_IRTE_REMAP_EN (1u << 0)
#define AMDVI_IRTE_SUP_IOPF (1u << 1)

static inline uint32_t amdvi_irte(uint8_t vector, uint8_t dest)
{
	return AMDVI_IRTE_REMAP_EN | (uint32_t)dest << 8 | (uint32_t)vector << 16;
}

/* ---- 128-bit entries, GuestMode 0 (2.2.5.3), used while Control.GAEn ------
 * Low quadword: RemapEn 0, SupIOPF 1, IntType 4:2, RqEoi 5, DM 6,
 * GuestMode 7 (0: remapped, not posted), Destination[23:0] 31:8, 63:32
 * reserved. High quadword: Vector 7:0, Destination[31:24] 63:56, the rest
 * reserved. All 32 destination bits count with Control.XTEn (x2APIC). */
#define AMDVI_IRTE_GA_SIZE 16

static inline uint64_t amdvi_irte_ga_lo(uint32_t dest)
{
	return AMDVI_IRTE_REMAP_EN | (uint64_t)(dest & 0xffffffu) << 8;
}

static inline uint64_t amdvi_irte_ga_hi(uint8_t vector, uint32_t dest)
{
	return vector | (uint64_t)(dest >> 24) << 56;
}

static inline uint64_t amdvi_dte_mode(unsigned levels)
{
	return (uint64_t)levels << AMDVI_DTE_MODE_SHIFT;
}

/* IVHD device entry settings (IVRS, "DTE setting") carried into the DTE:
 * Lint1Pass 7, Lint0Pass 6, SysMgt 5:4, NMIPass 2, EIntPass 1, INITPass 0. */
static inline void amdvi_dte_from_ivhd(uint8_t setting, uint64_t *q1, uint64_t *q2)
{
	*q1 |= amdvi_field(setting, 5, 4) << AMDVI_DTE_SYSMGT_SHIFT;
	*q2 |= (setting & 1 ? AMDVI_DTE_INIT_PASS : 0) | (setting & 2 ? AMDVI_DTE_EINT_PASS : 0) |
	       (setting & 4 ? AMDVI_DTE_NMI_PASS : 0) | (setting & 0x40 ? AMDVI_DTE_LINT0_PASS : 0) |
	       (setting & 0x80 ? AMDVI_DTE_LINT1_PASS : 0);
}

/* ---- Page directory and page table entries (2.2.3) ------------------------- */
#define AMDVI_PTE_PR (1ull << 0)
#define AMDVI_PTE_NL_SHIFT 9 /* 11:9 Next Level: 0 is a leaf at any level */
#define AMDVI_PTE_NL_MASK (7ull << AMDVI_PTE_NL_SHIFT)
#define AMDVI_PTE_ADDR 0x000ffffffffff000ull
#define AMDVI_PTE_FC (1ull << 60) /* force coherent */
#define AMDVI_PTE_IR (1ull << 61)
#define AMDVI_PTE_IW (1ull << 62)

static inline unsigned amdvi_pte_nl(uint64_t e)
{
	return (unsigned)amdvi_field(e, 11, 9);
}

/* ---- Commands (2.4): 128 bits, the opcode in 63:60 ---------------------------- */
enum amdvi_cmd_op {
	AMDVI_CMD_COMPLETION_WAIT = 0x1,
	AMDVI_CMD_INVALIDATE_DEVTAB_ENTRY = 0x2,
	AMDVI_CMD_INVALIDATE_IOMMU_PAGES = 0x3,
	AMDVI_CMD_INVALIDATE_IOTLB_PAGES = 0x4,
	AMDVI_CMD_INVALIDATE_INTERRUPT_TABLE = 0x5,
	AMDVI_CMD_PREFETCH_IOMMU_PAGES = 0x6,
	AMDVI_CMD_COMPLETE_PPR_REQUEST = 0x7,
	AMDVI_CMD_INVALIDATE_IOMMU_ALL = 0x8,
};
#define AMDVI_CMD_SIZE 16
#define AMDVI_CW_S (1ull << 0)	/* COMPLETION_WAIT: store the data */
#define AMDVI_CW_I (1ull << 1)	/* and interrupt */
#define AMDVI_INV_S (1ull << 0) /* INVALIDATE_IOMMU_PAGES: a range, not a page */
#define AMDVI_INV_PDE (1ull << 1)
/* S=1 with every address bit set: all pages of the domain (2.4.3). */
#define AMDVI_INV_ALL_PAGES 0x7ffffffffffff000ull

struct amdvi_cmd {
	uint64_t lo, hi;
};

static inline uint64_t amdvi_cmd_op(enum amdvi_cmd_op op)
{
	return (uint64_t)op << 60;
}

/* COMPLETION_WAIT with a store of `data` to the 8-byte aligned `addr`. */
static inline struct amdvi_cmd amdvi_cmd_completion_wait(uint64_t addr, uint64_t data)
{
	return (struct amdvi_cmd){
		(addr & 0x000ffffffffffff8ull) | amdvi_cmd_op(AMDVI_CMD_COMPLETION_WAIT) | AMDVI_CW_S, data
	};
}

static inline struct amdvi_cmd amdvi_cmd_inv_devtab(uint16_t devid)
{
	return (struct amdvi_cmd){ devid | amdvi_cmd_op(AMDVI_CMD_INVALIDATE_DEVTAB_ENTRY), 0 };
}

static inline struct amdvi_cmd amdvi_cmd_inv_interrupt_table(uint16_t devid)
{
	return (struct amdvi_cmd){ devid | amdvi_cmd_op(AMDVI_CMD_INVALIDATE_INTERRUPT_TABLE), 0 };
}

/* `addr` already carries the range encoding when `s` (see cmd.c). */
static inline struct amdvi_cmd amdvi_cmd_inv_pages(uint16_t domain, uint64_t addr, bool s, bool pde)
{
	return (struct amdvi_cmd){ (uint64_t)domain << 32 | amdvi_cmd_op(AMDVI_CMD_INVALIDATE_IOMMU_PAGES),
				   (addr & ~0xfffull) | (s ? AMDVI_INV_S : 0) | (pde ? AMDVI_INV_PDE : 0) };
}

static inline struct amdvi_cmd amdvi_cmd_inv_all(void)
{
	return (struct amdvi_cmd){ amdvi_cmd_op(AMDVI_CMD_INVALIDATE_IOMMU_ALL), 0 };
}

/* ---- Event log entries (2.5): 128 bits, the code in 63:60 -------------------- */
enum amdvi_event_code {
	AMDVI_EVT_ILLEGAL_DEV_TABLE_ENTRY = 0x1,
	AMDVI_EVT_IO_PAGE_FAULT = 0x2,
	AMDVI_EVT_DEV_TAB_HARDWARE_ERROR = 0x3,
	AMDVI_EVT_PAGE_TAB_HARDWARE_ERROR = 0x4,
	AMDVI_EVT_ILLEGAL_COMMAND_ERROR = 0x5,
	AMDVI_EVT_COMMAND_HARDWARE_ERROR = 0x6,
	AMDVI_EVT_IOTLB_INV_TIMEOUT = 0x7,
	AMDVI_EVT_INVALID_DEVICE_REQUEST = 0x8,
	AMDVI_EVT_INVALID_PPR_REQUEST = 0x9,
	AMDVI_EVT_EVENT_COUNTER_ZERO = 0xa,
};
#define AMDVI_EVT_SIZE 16
/* IO_PAGE_FAULT flags in the second doubleword (2.5.3). */
#define AMDVI_EVT_GN (1ull << 48)
#define AMDVI_EVT_NX (1ull << 49)
#define AMDVI_EVT_US (1ull << 50)
#define AMDVI_EVT_I (1ull << 51)
#define AMDVI_EVT_PR (1ull << 52) /* the entry was present */
#define AMDVI_EVT_RW (1ull << 53) /* a write */
#define AMDVI_EVT_PE (1ull << 54) /* permission denied */
#define AMDVI_EVT_RZ (1ull << 55) /* a reserved bit was set */
#define AMDVI_EVT_TR (1ull << 56) /* a translation request */

static inline unsigned amdvi_evt_code(uint64_t lo)
{
	return (unsigned)amdvi_field(lo, 63, 60);
}
static inline uint16_t amdvi_evt_devid(uint64_t lo)
{
	return (uint16_t)amdvi_field(lo, 15, 0);
}
/* IO_PAGE_FAULT: the domain (GN=0) in 47:32. */
static inline uint16_t amdvi_evt_domain(uint64_t lo)
{
	return (uint16_t)amdvi_field(lo, 47, 32);
}

/* ---- the MSI capability of the IOMMU's PCI function ------------------------- */
#define AMDVI_MSI_CTRL 2 /* Message Control, from the capability's start */
#define AMDVI_MSI_CTRL_EN 0x0001
#define AMDVI_MSI_CTRL_64 0x0080
#define AMDVI_MSI_ADDR_LO 4
#define AMDVI_MSI_ADDR_HI 8
#define AMDVI_MSI_DATA_32 8
#define AMDVI_MSI_DATA_64 12
/* x86 MSI address: the local APIC's, physical destination (Intel SDM 11.11.1) */
#define AMDVI_MSI_ADDR(apic_id) (0xfee00000u | ((apic_id)&0xffu) << 12)

#endif
