/* IBM Calgary / CalIOC2 registers and TCEs in the words of
 * shared/specs/calgary.md: offsets in a chip's 1 MiB window (the registers
 * are big-endian; the register window swaps), the bits of PHB_CONFIG_RW,
 * CSR, PMCR and PMDR, and the fields of TAR and of a TCE with their
 * builders. All the driver knows of the chip's layout is here; the
 * register-level model (iommu/calgary/model.c) keeps its own reading
 * of the spec on purpose and does not include this file. */
#ifndef IOMMON_CALGARY_REGS_H
#define IOMMON_CALGARY_REGS_H

#include <stdbool.h>
#include <stdint.h>

/* ---- chip level (spec: "Register map") ---------------------------------- */
#define CAL_CCR 0x0108				/* 64: split-completion timeouts */
#define CAL_TAR(n) (0x0580 + 8 * (n))		/* 64: PHB n's table address register */
#define CAL_BUSRANGE(n) (0x4020 + 0x1000 * (n)) /* 32: PHB debug "stuff": its bus range */
#define CAL_SPLITQ(n) (0x4870 + 0x1000 * (n))	/* 64: split queue, polled to quiesce */
#define CAL_PHBS 4

/* ---- a PHB's register block: 0x8000 + 0x1000 * n ------------------------ */
#define CAL_PHB(n, reg) (0x8000 + 0x1000 * (n) + (reg))
#define PHB_CSR 0x110
#define PHB_PLSSR 0x120
#define PHB_CONFIG_RW 0x160
#define PHB_MEM1_LOW 0x190
#define PHB_MEM1_HIGH 0x1a0
#define PHB_MEM1_SIZE 0x1c0
#define PHB_AER 0x200
#define PHB_CSMR 0x290 /* CalIOC2 error dump */
#define PHB_MEM2_LOW 0x2b0
#define PHB_MEM2_HIGH 0x2c0
#define PHB_MEM2_SIZE_HIGH 0x2d0
#define PHB_MEM2_SIZE_LOW 0x2e0
#define PHB_MCK 0x800			/* CalIOC2 error dump */
#define PHB_ERR(i) (0x810 + 0x10 * (i)) /* CalIOC2 error dump, i = 0..6 */
#define PHB_ERR_REGS 7
#define PHB_RCSTAT 0xcb0 /* CalIOC2 root complex status */
#define PHB_PMDR 0xda0	 /* page-migration debug */
#define PHB_PMCR 0xda8	 /* page-migration control */
#define PHB_SAVIOR 0xdb0 /* CalIOC2 "savior L2" quirk */

/* A 32-bit register of a chip that does not answer. */
#define CAL_ALL_ONES 0xffffffffu

/* Bus range: start bus in bits 23:16, end bus in 15:8 (0: the start bus only). */
static inline uint8_t cal_busrange_start(uint32_t r)
{
	return (uint8_t)(r >> 16);
}
static inline uint8_t cal_busrange_end(uint32_t r)
{
	return (uint8_t)(r >> 8);
}

/* The split queue is quiet when its raw low byte reads 0xFF (Linux read it
 * without a swap): through a big-endian window that is the top byte. */
static inline bool cal_splitq_quiet(uint64_t v)
{
	return (v >> 56) == 0xff;
}

/* CSR: any bit of the error mask set is an error; bits 20:16 name the agent. */
#define CSR_ERROR_MASK 0xffe0ffffu
static inline bool cal_csr_error(uint32_t csr)
{
	return csr != CAL_ALL_ONES && (csr & CSR_ERROR_MASK);
}
static inline unsigned cal_csr_agent(uint32_t csr)
{
	return (csr >> 16) & 0x1f;
}

/* PHB_CONFIG_RW */
#define CONFIG_TCE_ENABLE 0x20000000u
#define CONFIG_SLOT_DISABLE 0x1c000000u /* fences the PHB's buses */
#define CONFIG_DAC_DISABLE 0x01000000u
#define CONFIG_MEM2_ENABLE 0x00400000u
#define CONFIG_MCSR_ENABLE 0x00100000u
/* what enabling translation sets, and disabling clears */
#define CONFIG_TRANSLATE (CONFIG_TCE_ENABLE | CONFIG_DAC_DISABLE | CONFIG_MCSR_ENABLE)

/* A peripheral window (MEM_1, MEM_2) ends at (limit | 0xFFFFF) + 1. */
static inline uint64_t cal_window_end(uint64_t limit)
{
	return (limit | 0xfffff) + 1;
}

/* PMCR and PMDR (CalIOC2's flush handshake) */
#define PMCR_SOFTSTOP 0x80000000u
#define PMCR_HARDSTOP 0x20000000u
#define PMDR_SOFTSTOPFAULT 0x40000000u
#define SAVIOR_L2 0x00800000u

/* ---- TAR (spec: "TCE table") --------------------------------------------- */
#define TAR_SW_MASK 0x0000ffffffff800full /* the bits software owns */
#define TAR_TABLE 0x0000ffffffff8000ull	  /* table physical address, bits 47:15 */
#define TAR_VALID 0x8ull		  /* never set by Linux [meaning unverified] */
#define TAR_SIZE 0x7ull			  /* size code n: 8192 << n entries */

static inline uint64_t cal_tar(uint64_t table, unsigned size_code)
{
	return (table & TAR_TABLE) | (size_code & TAR_SIZE);
}
/* TAR rewritten: the software bits replaced, the rest kept as read. */
static inline uint64_t cal_tar_replace(uint64_t tar, uint64_t sw)
{
	return (tar & ~TAR_SW_MASK) | (sw & TAR_SW_MASK);
}
static inline uint64_t cal_tce_entries(unsigned size_code)
{
	return 8192ull << size_code;
}
/* The IO space a table covers: 32 MiB << n, as address bits. */
static inline unsigned cal_io_bits(unsigned size_code)
{
	return 25 + size_code;
}

/* IOVAs never handed out (spec: "Enabling translation on a PHB", step 1):
 * page 0 and the emergency pages, and the legacy hole (640 KiB to 1 MiB on
 * Calgary, the whole first MiB on CalIOC2); the peripheral windows too. */
#define CAL_EMERGENCY_END (32 * 4096ull) /* page 0 and 31 more: 128 KiB */
#define CAL_LEGACY_HOLE 0xa0000ull
#define CAL_LEGACY_END 0x100000ull

/* ---- a TCE: 64 bits, big-endian in memory -------------------------------- */
#define TCE_PAGE_SHIFT 12 /* IOVA = TCE index << 12 */
#define TCE_PAGE (1ull << TCE_PAGE_SHIFT)
#define TCE_READ 0x1ull
#define TCE_WRITE 0x2ull
#define TCE_RPN 0x0000fffffffff000ull /* real page number, bits 47:12 */

static inline uint64_t cal_tce(uint64_t phys, bool read, bool write)
{
	return (phys & TCE_RPN) | (read ? TCE_READ : 0) | (write ? TCE_WRITE : 0);
}
static inline uint64_t cal_tce_phys(uint64_t tce)
{
	return tce & TCE_RPN;
}

#endif
