/* The PowerPC DART's registers and table entries (Apple U3 and U4
 * northbridges) in the words of shared/specs/dart.md section 1: 32-bit
 * big-endian registers (the register window swaps), CNTL's bits on each
 * chip with their builders, and the 32-bit entry. All the driver knows of
 * the DART's layout is here; the register-level model
 * (iommu/dart/model.c) keeps its own reading of the spec on purpose
 * and does not include this file. */
#ifndef IOMMON_DART_REGS_H
#define IOMMON_DART_REGS_H

#include <stdbool.h>
#include <stdint.h>

#define DART_CNTL 0x000
#define DART_U3_EXCP 0x010
#define DART_U4_BASE 0x010
#define DART_U4_SIZE 0x020
#define DART_U4_EXCP 0x030
#define DART_TAGS 0x1000 /* TLB tags, unused */

/* A register of a DART that does not answer. */
#define DART_ALL_ONES 0xffffffffu

/* U3 CNTL: table base PFN in 31:12, FLUSHTLB, ENABLE, table size in pages in 8:0 */
#define DART_U3_BASE_SHIFT 12
#define DART_U3_BASE_MASK 0xfffffu
#define DART_U3_FLUSHTLB 0x400u
#define DART_U3_ENABLE 0x200u
#define DART_U3_SIZE_MASK 0x1ffu
#define DART_U3_MAX_PAGES 512 /* 512 itself only by a reading of 0 the spec marks unverified */

/* U4 CNTL */
#define DART_U4_ENABLE 0x80000000u
#define DART_U4_IONE 0x40000000u /* invalidate one */
#define DART_U4_FLUSHTLB 0x20000000u
#define DART_U4_IDLE 0x10000000u
#define DART_U4_PAR_EN 0x08000000u
#define DART_U4_IONE_MASK 0x07ffffffu /* the page index IONE invalidates */
/* U4 BASE and SIZE */
#define DART_U4_BASE_MASK 0xffffffu
#define DART_U4_SIZE_MASK 0x1fffu

/* One CNTL write enables a U3: ENABLE | base PFN << 12 | size in pages. */
static inline uint32_t dart_u3_cntl(uint64_t table_pfn, uint32_t pages)
{
	return DART_U3_ENABLE | ((uint32_t)table_pfn & DART_U3_BASE_MASK) << DART_U3_BASE_SHIFT |
	       (pages & DART_U3_SIZE_MASK);
}
/* A U4 invalidate-one: IONE with the page index. */
static inline uint32_t dart_u4_ione(uint64_t index)
{
	return DART_U4_IONE | ((uint32_t)index & DART_U4_IONE_MASK);
}

/* ---- a table entry: 32 bits, big-endian in memory ------------------------ */
#define DART_PAGE_SHIFT 12 /* IOVA = entry index << 12 */
#define DART_PAGE (1ull << DART_PAGE_SHIFT)
#define DART_ENTRIES_PER_PAGE 1024 /* 4 KiB of 4-byte entries */
#define DART_ENTRY_VALID 0x80000000u
#define DART_ENTRY_RPN 0x00ffffffu /* physical address >> 12: 36 bits of reach */
#define DART_PHYS_BITS 36

/* Valid and pointing at `phys` (no permission bits: valid or not). */
static inline uint32_t dart_entry(uint64_t phys)
{
	return DART_ENTRY_VALID | ((uint32_t)(phys >> DART_PAGE_SHIFT) & DART_ENTRY_RPN);
}
static inline bool dart_entry_valid(uint32_t e)
{
	return e & DART_ENTRY_VALID;
}
static inline uint64_t dart_entry_phys(uint32_t e)
{
	return (uint64_t)(e & DART_ENTRY_RPN) << DART_PAGE_SHIFT;
}

#endif
