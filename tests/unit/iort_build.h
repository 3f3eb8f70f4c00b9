/* IORT nodes for the unit tests (test_iort*.c), on table_bytes.h's
 * buffer: the header, each node kind as QEMU and firmware lay them out,
 * ID mappings, and QEMU virt's whole table. */
#ifndef IOMMON_TEST_IORT_BUILD_H
#define IOMMON_TEST_IORT_BUILD_H

#include "core/tables/iort.h"
#include "table_bytes.h"

static inline void header(uint8_t revision, uint32_t nodes)
{
	memset(t, 0, sizeof(t));
	memcpy(t, "IORT", 4);
	t[8] = revision;
	memcpy(t + 10, "IOMMON", 6);
	tl = 36;
	put32(nodes), put32(48), put32(0);
}

static inline uint32_t node(uint8_t type, uint16_t len, uint8_t rev, uint32_t id, uint32_t nmaps, uint32_t ref)
{
	uint32_t at = (uint32_t)tl;
	put8(type), put16(len), put8(rev), put32(id), put32(nmaps), put32(ref);
	return at;
}
static inline void map(uint32_t in, uint32_t num, uint32_t out, uint32_t ref, uint32_t flags)
{
	put32(in), put32(num), put32(out), put32(ref), put32(flags);
}

static inline uint32_t its(uint32_t id)
{
	uint32_t at = node(IORT_ITS_GROUP, 24, 1, id, 0, 0);
	put32(1), put32(0);
	return at;
}
/* an SMMUv3 node (revision 4, 68 bytes) with its GSIVs from `irq` in QEMU's
 * order (event, PRI, GERR = +3, sync = +2); `nmaps` mappings follow */
static inline uint32_t smmuv3(uint32_t id, uint64_t base, uint32_t irq, uint32_t nmaps)
{
	uint32_t at = node(IORT_SMMU_V3, (uint16_t)(68 + 20 * nmaps), 4, id, nmaps, 68);
	put64(base), put32(IORT_SMMUV3_COHACC_OVERRIDE), put32(0), put64(0), put32(IORT_SMMUV3_GENERIC);
	put32(irq), put32(irq + 1), put32(irq + 3), put32(irq + 2), put32(0), put32(0);
	return at;
}
static inline uint32_t rc(uint32_t id, uint32_t segment, uint32_t nmaps)
{
	uint32_t at = node(IORT_ROOT_COMPLEX, (uint16_t)(36 + 20 * nmaps), 3, id, nmaps, 36);
	put32(IORT_CCA_COHERENT), put8(0), put16(0), put8(IORT_MAF_CPM | IORT_MAF_DACS);
	put32(0), put32(segment), put8(64), put8(0), put16(0);
	return at;
}

/* QEMU 7.2 virt,iommu=smmuv3: ITS at 0x30, SMMUv3 at 0x48 (0x09050000,
 * SPI 74 = GSIV 106), root complex at 0xa0 mapping every RID to the SMMU,
 * the SMMU's IDs on to the ITS. */
#define QEMU_ITS 0x30
#define QEMU_SMMU 0x48
#define QEMU_SMMU_MAP (QEMU_SMMU + 68)
#define QEMU_RC 0xa0
#define QEMU_RC_MAP (QEMU_RC + 36)
/* QEMU virt's three nodes under a header of `revision` and `count` nodes,
 * so that a test can add more after them */
static inline void qemu_nodes(uint8_t revision, uint32_t count)
{
	header(revision, count);
	its(0);
	smmuv3(1, 0x09050000, 106, 1);
	map(0, 0xffff, 0, QEMU_ITS, 0);
	rc(2, 0, 1);
	map(0, 0xffff, 0, QEMU_SMMU, 0);
}

static inline void build_qemu(void)
{
	qemu_nodes(3, 3);
	seal();
}

#endif
