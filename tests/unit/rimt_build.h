/* RIMT nodes for the unit tests (test_rimt.c, test_riscv.c), on
 * table_bytes.h's buffer: the header, each node kind as QEMU 10.0 lays
 * them out, and ID mappings. */
#ifndef IOMMON_TEST_RIMT_BUILD_H
#define IOMMON_TEST_RIMT_BUILD_H

#include <stdbool.h>

#include "core/tables/rimt.h"
#include "table_bytes.h"

static inline void header(uint32_t nodes)
{
	memset(t, 0, sizeof(t));
	memcpy(t, "RIMT", 4);
	t[8] = 1;
	memcpy(t + 10, "IOMMON", 6);
	tl = 36;
	put32(nodes), put32(48), put32(0);
}

static inline uint32_t node(uint8_t type, uint16_t len, uint16_t id)
{
	uint32_t at = (uint32_t)tl;
	put8(type), put8(1), put16(len), put16(0), put16(id);
	return at;
}

/* An IOMMU node: PCIe (segment, bdf) when `pcie`, else at `base`; `wires`
 * interrupt wires follow. */
static inline uint32_t iommu(uint16_t id, bool pcie, uint64_t base, uint16_t bdf, uint16_t wires)
{
	uint32_t at = node(RIMT_IOMMU, (uint16_t)(40 + 8 * wires), id);
	put("RSCV0004", 8);
	put64(base), put32(pcie ? RIMT_IOMMU_PCIE : 0), put32(0), put16(0), put16(bdf);
	put16(wires), put16(wires ? 40 : 0);
	for (uint16_t i = 0; i < wires; i++)
		put32(32 + i), put32(RIMT_WIRE_LEVEL | RIMT_WIRE_ACTIVE_HIGH);
	return at;
}
static inline uint32_t rc(uint16_t id, uint16_t segment, uint16_t nmaps)
{
	uint32_t at = node(RIMT_ROOT_COMPLEX, (uint16_t)(20 + 20 * nmaps), id);
	put32(RIMT_RC_ATS), put16(0), put16(segment), put16(20), put16(nmaps);
	return at;
}
static inline void map(uint32_t source, uint32_t num, uint32_t dest, uint32_t iommu_at)
{
	put32(source), put32(num), put32(dest), put32(iommu_at), put32(0);
}

#endif
