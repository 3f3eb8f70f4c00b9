/* ACPI RIMT (the RISC-V IO Mapping Table, v1.0): the IOMMU nodes (a
 * platform unit at its base address, or a PCIe function named by segment
 * and BDF), the PCIe root complexes and platform devices, and the ID
 * mappings that take a root complex's requester ids (a platform device's
 * ids) to an IOMMU's device ids.
 *
 * Bounded like the IORT parser: every offset and length is checked
 * against its node and the table before it is read, and each problem has a
 * name (enum rimt_problem) as well as a line in `diag`. A mapping's "Number
 * of IDs" is taken as a count, as QEMU 10.0's virt writes it (requester ids
 * bdf+1 to 0xffff as 0xffff - bdf); Linux 6.17's rimt_id_map reads it as
 * IORT's count less one. Where a range ends exactly where the next
 * begins and the two readings would send that id to different places, the
 * table is ambiguous between them: a warning (map-off-by-one). */
#ifndef IOMMON_RIMT_H
#define IOMMON_RIMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"

enum rimt_type {
	RIMT_IOMMU = 0,
	RIMT_ROOT_COMPLEX = 1,
	RIMT_PLATFORM = 2,
};

#define RIMT_IOMMU_PCIE 0x1	 /* the unit is a PCIe function (segment, BDF), not at a base address */
#define RIMT_IOMMU_PXM_VALID 0x2 /* its proximity domain is given */
#define RIMT_RC_ATS 0x1		 /* the root complex supports ATS */
#define RIMT_RC_PRI 0x2		 /* and PRI */
#define RIMT_WIRE_LEVEL 0x1	 /* an interrupt wire: level-triggered */
#define RIMT_WIRE_ACTIVE_HIGH 0x2
#define RIMT_IOMMU_ALIGN 0x1000u /* a platform unit's registers: 4 KiB aligned (the spec's 5.1) */

enum rimt_problem {
	RIMT_P_HEADER,	       /* too short, signature */
	RIMT_P_LENGTH,	       /* length field against the buffer */
	RIMT_P_CHECKSUM,       /* bytes do not sum to zero */
	RIMT_P_REVISION,       /* a table or node revision other than 1 (warning) */
	RIMT_P_NODE_OFFSET,    /* the node array's offset outside the table */
	RIMT_P_NODE_LENGTH,    /* a node shorter than its fixed part, or past the table */
	RIMT_P_NODE_COUNT,     /* the header's count against the nodes there */
	RIMT_P_NODE_TYPE,      /* unknown node type, skipped (warning) */
	RIMT_P_MAP_ARRAY,      /* ID mappings outside their node */
	RIMT_P_MAP_TARGET,     /* a mapping's IOMMU offset not at an IOMMU node */
	RIMT_P_MAP_WRAP,       /* a source or destination range past 2^32, or of no ids */
	RIMT_P_MAP_OVERLAP,    /* two source ranges of one node overlap */
	RIMT_P_MAP_OFF_BY_ONE, /* two ranges meet on one id (warning) */
	RIMT_P_IOMMU_BASE,     /* a platform unit's base zero or not 4 KiB aligned */
	RIMT_P_IOMMU_DUP,      /* two IOMMU nodes for one base or one PCIe function */
	RIMT_P_WIRE_ARRAY,     /* interrupt wires outside their node */
	RIMT_P_FIELD,	       /* a field's value the spec does not allow (warning) */
	RIMT_P_LIMIT,	       /* more of something than we keep */
	RIMT_NPROBLEMS
};

#define RIMT_MAX_IOMMUS 32
#define RIMT_MAX_SOURCES 64
#define RIMT_MAX_MAPS 256

struct rimt_iommu {
	uint32_t offset; /* within the table: what mappings name it by */
	uint16_t id;
	char hid[9]; /* the hardware id, printable (ACPI HID or PCI vendor and device ids) */
	uint64_t base;
	uint32_t flags, proximity;
	uint16_t segment, bdf;
	uint16_t nwires;
};

/* A root complex or a platform device: what ids come from. */
struct rimt_source {
	uint32_t offset;
	uint8_t type; /* RIMT_ROOT_COMPLEX or RIMT_PLATFORM */
	uint16_t id;
	uint32_t flags;	  /* root complex: ATS, PRI */
	uint16_t segment; /* root complex */
	char name[64];	  /* platform device: its ACPI object's path */
	size_t first_map, nmaps;
};

struct rimt_map {
	uint32_t offset; /* within the table */
	uint32_t source_base, num_ids, dest_base, dest_offset, flags;
	int iommu; /* index in rimt.iommu of the node at dest_offset, or -1 */
	size_t source;
};

struct rimt {
	uint8_t revision;
	uint32_t node_count, node_array; /* the header's */
	size_t nnodes;			 /* nodes walked */
	struct rimt_iommu iommu[RIMT_MAX_IOMMUS];
	size_t niommu;
	struct rimt_source src[RIMT_MAX_SOURCES];
	size_t nsrc;
	struct rimt_map map[RIMT_MAX_MAPS];
	size_t nmap;
	uint64_t problems; /* 1 << enum rimt_problem for each found */
	struct diag diag;
};

/* Parses `len` bytes (the table's own length field must not exceed it).
 * Returns 0, or -1 when not even the header could be read; either way
 * t->diag says what was wrong. rimt_free releases nothing today (the
 * arrays are fixed), and is called all the same. */
int rimt_parse(const uint8_t *buf, size_t len, struct rimt *t);
void rimt_free(struct rimt *t);

static inline bool rimt_has(const struct rimt *t, enum rimt_problem p)
{
	return (t->problems >> p) & 1;
}
const char *rimt_problem_name(enum rimt_problem p);
const char *rimt_type_name(unsigned type);

/* The root complex of PCI segment `segment` taking requester id `rid` to
 * an IOMMU: its index in t->iommu and the device id. False when no
 * mapping covers it (its DMA reaches no IOMMU the table names). */
bool rimt_map_rid(const struct rimt *t, uint16_t segment, uint16_t rid, size_t *iommu, uint32_t *device_id);

/* Prints the decode for people (`acpi rimt`). */
void rimt_print(const struct rimt *t);

#endif
