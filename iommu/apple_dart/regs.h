/* Apple's DART (Apple Silicon) registers and page-table entries in the
 * words of shared/specs/dart.md section 2: the T8020 layout (t8103 M1,
 * t6000 M1 Pro/Max) and the T8110 layout, little-endian 32-bit registers;
 * the DART1 (t8103) and DART2 (t6000, t8110) entry formats with their
 * builders. All the driver knows of the DART's layout is here; the
 * register-level model (iommu/apple_dart/model.c) keeps its own
 * reading of the spec on purpose and does not include this file. */
#ifndef IOMMON_APPLE_DART_REGS_H
#define IOMMON_APPLE_DART_REGS_H

#include <stdbool.h>
#include <stdint.h>

/* A register of a DART that does not answer. */
#define APPLE_DART_ALL_ONES 0xffffffffu

/* ---- both layouts -------------------------------------------------------- */
#define DART_PARAMS1 0x00
#define DART_PARAMS2 0x04
#define DART_PARAMS2_BYPASS_SUPPORT 1u

static inline unsigned dart_params1_page_shift(uint32_t p1)
{
	return (p1 >> 24) & 0xf; /* bits 27:24 */
}

/* ---- T8020 layout (t8103, t6000) ------------------------------------------ */
#define DART_T8020_STREAMS 16
#define DART_T8020_STREAM_COMMAND 0x20
#define DART_T8020_STREAM_SELECT 0x34
#define DART_T8020_ERROR 0x40
#define DART_T8020_ERROR_ADDR_LO 0x50
#define DART_T8020_ERROR_ADDR_HI 0x54
#define DART_T8020_CONFIG 0x60
#define DART_T8020_STREAM_ENABLE 0xfc
#define DART_T8020_TCR(sid) (0x100 + 4 * (sid))
#define DART_T8020_TTBR(sid, i) (0x200 + 16 * (sid) + 4 * (i))
#define DART_T8020_TTBRS 4 /* per stream */

#define DART_T8020_STREAM_COMMAND_INVALIDATE (1u << 20)
#define DART_T8020_STREAM_COMMAND_BUSY (1u << 2)
#define DART_T8020_CONFIG_LOCK (1u << 15)
#define DART_T8020_TCR_TRANSLATE_ENABLE (1u << 7)
#define DART_T8020_TCR_BYPASS_DART (1u << 8)
#define DART_T8020_TCR_BYPASS_DAPF (1u << 12)
#define DART_T8020_TTBR_VALID (1u << 31)

/* TTBR: VALID | PA >> 12 */
static inline uint32_t dart_t8020_ttbr(uint64_t table)
{
	return DART_T8020_TTBR_VALID | (uint32_t)(table >> 12);
}

/* ERROR: FLAG b31, STREAM 27:24, CODE 11:0 */
#define DART_T8020_ERROR_FLAG (1u << 31)
#define DART_T8020_ERROR_READ_FAULT (1u << 4)
#define DART_T8020_ERROR_WRITE_FAULT (1u << 3)
#define DART_T8020_ERROR_NO_PTE (1u << 2)
#define DART_T8020_ERROR_NO_PMD (1u << 1)
#define DART_T8020_ERROR_NO_TTBR (1u << 0)
static inline unsigned dart_t8020_error_stream(uint32_t e)
{
	return (e >> 24) & 0xf;
}
static inline uint32_t dart_t8020_error_code(uint32_t e)
{
	return e & 0xfff;
}

/* ---- T8110 layout ---------------------------------------------------------- */
#define DART_T8110_PARAMS3 0x08
#define DART_T8110_PARAMS4 0x0c
#define DART_T8110_TLB_CMD 0x80
#define DART_T8110_ERROR 0x100
#define DART_T8110_ERROR_MASK 0x104
#define DART_T8110_ERROR_ADDR_LO 0x170
#define DART_T8110_ERROR_ADDR_HI 0x174
#define DART_T8110_PROTECT 0x200
#define DART_T8110_ENABLE_STREAMS(sid) (0xc00 + 4 * ((sid) / 32)) /* write 1 to set */
#define DART_T8110_DISABLE_STREAMS(sid) (0xc20 + 4 * ((sid) / 32))
#define DART_T8110_TCR(sid) (0x1000 + 4 * (sid))
#define DART_T8110_TTBR(sid) (0x1400 + 4 * (sid))

#define DART_T8110_PROTECT_LOCKED 1u
#define DART_T8110_TCR_TRANSLATE_ENABLE (1u << 0)
#define DART_T8110_TCR_BYPASS_DART (1u << 1)
#define DART_T8110_TCR_BYPASS_DAPF (1u << 2)
#define DART_T8110_TTBR_VALID 1u

static inline unsigned dart_t8110_params3_va_width(uint32_t p3)
{
	return (p3 >> 16) & 0x3f; /* bits 21:16 */
}
static inline unsigned dart_t8110_params4_streams(uint32_t p4)
{
	return p4 & 0x1ff; /* bits 8:0 */
}

/* TLB_CMD: OP 10:8 (0 flush all, 1 flush one stream), STREAM 7:0, BUSY b31 */
#define DART_T8110_TLB_CMD_BUSY (1u << 31)
#define DART_T8110_TLB_CMD_FLUSH_ALL (0u << 8)
#define DART_T8110_TLB_CMD_FLUSH_SID (1u << 8)
static inline uint32_t dart_t8110_tlb_flush_sid(unsigned sid)
{
	return DART_T8110_TLB_CMD_FLUSH_SID | (sid & 0xff);
}

/* TTBR: VALID | (PA >> 14) << 2 */
static inline uint32_t dart_t8110_ttbr(uint64_t table)
{
	return DART_T8110_TTBR_VALID | (uint32_t)(table >> 14) << 2;
}

/* ERROR: FLAG b31, STREAM 27:20, CODE 14:0 */
#define DART_T8110_ERROR_FLAG (1u << 31)
#define DART_T8110_ERROR_READ_FAULT (1u << 5)
#define DART_T8110_ERROR_WRITE_FAULT (1u << 4)
#define DART_T8110_ERROR_NO_PTE (1u << 3)
#define DART_T8110_ERROR_NO_PMD (1u << 2)
#define DART_T8110_ERROR_NO_PGD (1u << 1)
#define DART_T8110_ERROR_NO_TTBR (1u << 0)
static inline unsigned dart_t8110_error_stream(uint32_t e)
{
	return (e >> 20) & 0xff;
}
static inline uint32_t dart_t8110_error_code(uint32_t e)
{
	return e & 0x7fff;
}

/* ---- page-table entries: 64 bits, two levels below TTBR 0 ------------------ */
/* A granule-sized table holds granule / 8 entries: 2^(page_shift - 3). The
 * L2 index is the IOVA's bits above the page offset, the L1 index the next
 * bits up (16 KiB: L2 = IOVA[24:14], L1 = IOVA[35:25]). */
static inline unsigned apple_table_bits(unsigned page_shift)
{
	return page_shift - 3;
}
static inline uint64_t apple_l2_index(uint64_t iova, unsigned page_shift)
{
	return (iova >> page_shift) & ((1ull << apple_table_bits(page_shift)) - 1);
}
static inline uint64_t apple_l1_index(uint64_t iova, unsigned page_shift)
{
	return (iova >> (page_shift + apple_table_bits(page_shift))) & ((1ull << apple_table_bits(page_shift)) - 1);
}
/* What TTBR 0 reaches: the page offset and two levels of index. */
static inline unsigned apple_ttbr0_bits(unsigned page_shift)
{
	return page_shift + 2 * apple_table_bits(page_shift);
}

#define APPLE_PTE_VALID 1ull
/* DART1 (t8103): PA bits 35:12 in place; the sub-page range START 63:52,
 * END 51:40 */
#define APPLE_DART1_PTE_PA 0x0000000ffffff000ull
#define APPLE_DART1_PTE_SP_DIS (1ull << 1)
#define APPLE_DART1_PTE_NO_WRITE (1ull << 7)
#define APPLE_DART1_PTE_NO_READ (1ull << 8)
#define APPLE_DART1_PTE_SP_END_WHOLE (0xfffull << 40) /* with START 0: the whole page */
/* DART2 (t6000, t8110): PA >> 4 in bits 37:10, so frames of 16 KiB */
#define APPLE_DART2_PTE_NO_CACHE (1ull << 1)
#define APPLE_DART2_PTE_NO_WRITE (1ull << 2)
#define APPLE_DART2_PTE_NO_READ (1ull << 3)
#define APPLE_DART2_FRAME_SHIFT 14

/* A physical address as a table or page entry holds it, and back. */
static inline uint64_t apple_pte_pa(bool dart1, uint64_t pa)
{
	return dart1 ? pa & APPLE_DART1_PTE_PA : ((pa >> APPLE_DART2_FRAME_SHIFT) & 0x0fffffffull) << 10;
}
static inline uint64_t apple_pte_to_pa(bool dart1, uint64_t e)
{
	return dart1 ? e & APPLE_DART1_PTE_PA : ((e >> 10) & 0x0fffffffull) << APPLE_DART2_FRAME_SHIFT;
}
/* A table entry: the next level's address | VALID. */
static inline uint64_t apple_table_entry(bool dart1, uint64_t table)
{
	return apple_pte_pa(dart1, table) | APPLE_PTE_VALID;
}
/* A leaf: the page | VALID, the whole page (DART1), and the permissions
 * as NO_READ / NO_WRITE. */
static inline uint64_t apple_leaf(bool dart1, uint64_t pa, bool read, bool write)
{
	uint64_t e = apple_pte_pa(dart1, pa) | APPLE_PTE_VALID;
	if (dart1)
		return e | APPLE_DART1_PTE_SP_END_WHOLE | (write ? 0 : APPLE_DART1_PTE_NO_WRITE) |
		       (read ? 0 : APPLE_DART1_PTE_NO_READ);
	return e | (write ? 0 : APPLE_DART2_PTE_NO_WRITE) | (read ? 0 : APPLE_DART2_PTE_NO_READ);
}
static inline bool apple_leaf_readable(bool dart1, uint64_t e)
{
	return !(e & (dart1 ? APPLE_DART1_PTE_NO_READ : APPLE_DART2_PTE_NO_READ));
}
static inline bool apple_leaf_writable(bool dart1, uint64_t e)
{
	return !(e & (dart1 ? APPLE_DART1_PTE_NO_WRITE : APPLE_DART2_PTE_NO_WRITE));
}

#endif
