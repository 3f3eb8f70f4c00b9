/* ACPI IORT (Arm DEN 0049, IO Remapping Table; revisions C through E.f):
 * ITS groups, named components, root complexes, SMMUv1/v2, SMMUv3, PMCGs
 * and reserved memory ranges (RMR), with the ID mappings that lead from a
 * requester id to a stream id and on to an ITS.
 *
 * Bounded like the DMAR and IVRS parsers: every offset and length is
 * checked against the table before it is read. Each problem found has a
 * name (enum iort_problem) as well as a line in `diag`, so a caller (and a
 * test) can tell which check fired. */
#ifndef IOMMON_IORT_H
#define IOMMON_IORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"

enum iort_type {
	IORT_ITS_GROUP = 0,
	IORT_NAMED_COMPONENT = 1,
	IORT_ROOT_COMPLEX = 2,
	IORT_SMMU_V1V2 = 3,
	IORT_SMMU_V3 = 4,
	IORT_PMCG = 5,
	IORT_RMR = 6,
};
/* The type a node too short for its fixed part is given: kept in the list
 * (it counts, and a mapping may name it) but never decoded or followed. */
#define IORT_NODE_BROKEN 0xff

/* ID mapping flags (DEN 0049 table "ID mapping format") */
#define IORT_MAP_SINGLE 0x1
/* SMMUv3 node flags */
#define IORT_SMMUV3_COHACC_OVERRIDE 0x1
#define IORT_SMMUV3_HTTU_OVERRIDE 0x6 /* 2 bits */
#define IORT_SMMUV3_PXM_VALID 0x8
#define IORT_SMMUV3_DEVICEID_VALID 0x10
/* SMMUv3 models */
#define IORT_SMMUV3_GENERIC 0
#define IORT_SMMUV3_HISILICON_HI161X 1
#define IORT_SMMUV3_CAVIUM_CN99XX 2
/* root complex ATS attribute */
#define IORT_RC_ATS 0x1
#define IORT_RC_PRI 0x2
#define IORT_RC_PASID_FWD 0x4
/* memory access properties: CCA, and the memory access flags */
#define IORT_CCA_COHERENT 0x1
#define IORT_MAF_CPM 0x1
#define IORT_MAF_DACS 0x2
#define IORT_MAF_CANWBS 0x4
/* RMR node flags (E.d) */
#define IORT_RMR_REMAP_PERMITTED 0x1
#define IORT_RMR_ACCESS_PRIVILEGED 0x2

/* The SMMUv3 register space the IORT base names: pages 0 and 1, 64 KiB
 * each (IHI 0070 6.1); bases are 64 KiB aligned. */
#define IORT_SMMUV3_SPAN 0x20000u
#define IORT_SMMUV3_ALIGN 0x10000u
#define IORT_RMR_ALIGN 0x10000u
/* Longest chain of ID mappings followed (RC -> SMMU -> ITS is 2). */
#define IORT_MAX_CHAIN 8

/* What can be wrong, one name per check. */
enum iort_problem {
	IORT_P_HEADER,		/* too short, signature */
	IORT_P_LENGTH,		/* length field against the buffer */
	IORT_P_CHECKSUM,	/* bytes do not sum to zero */
	IORT_P_REVISION,	/* a table revision the spec does not define (warning) */
	IORT_P_NODE_OFFSET,	/* the node array's offset outside the table */
	IORT_P_NODE_LENGTH,	/* a node shorter than its fixed part or past the table */
	IORT_P_NODE_COUNT,	/* the header's count against the nodes there */
	IORT_P_NODE_TYPE,	/* unknown node type, skipped (warning) */
	IORT_P_MAP_ARRAY,	/* ID mappings outside their node */
	IORT_P_MAP_TARGET,	/* output reference not at a node */
	IORT_P_MAP_TARGET_TYPE, /* output reference at a node that takes no IDs */
	IORT_P_MAP_WRAP,	/* input or output range runs past 2^32 */
	IORT_P_MAP_OVERLAP,	/* two input ranges of one node overlap */
	IORT_P_MAP_OFF_BY_ONE,	/* ranges meet on one ID: a count written as count (warning) */
	IORT_P_CHAIN_LOOP,	/* following mappings comes back to a node */
	IORT_P_CHAIN_LONG,	/* chain longer than IORT_MAX_CHAIN */
	IORT_P_SMMU_BASE_ZERO,
	IORT_P_SMMU_BASE_ALIGN,
	IORT_P_SMMU_OVERLAP, /* two SMMUs' register spaces overlap */
	IORT_P_RMR_ZERO,     /* a reserved range of length 0 */
	IORT_P_RMR_ALIGN,    /* base or length not 64 KiB aligned */
	IORT_P_RMR_WRAP,     /* base + length past 2^64, or up to its top page */
	IORT_P_RMR_ARRAY,    /* memory range descriptors outside their node */
	IORT_P_ITS_ARRAY,    /* ITS identifiers outside their node */
	IORT_P_FIELD,	     /* a field's value the spec does not allow */
	IORT_P_LIMIT,	     /* more of something than we keep */
	IORT_NPROBLEMS
};

struct iort_map {
	uint32_t offset; /* within the table */
	uint32_t input_base;
	uint32_t num_ids; /* the field: the range covers num_ids + 1 IDs */
	uint32_t output_base;
	uint32_t output_ref; /* offset of the target node in the table */
	uint32_t flags;
	int target; /* index in iort.node of the node at output_ref, or -1 */
};

struct iort_node {
	uint32_t offset;
	uint8_t type, revision;
	uint16_t length;
	uint32_t identifier;
	uint32_t nmaps_field, maps_ref; /* as the node header gives them */
	size_t first_map, nmaps;	/* in iort.map (only those inside the node) */
	/* memory access properties: named component, root complex */
	uint32_t cca;
	uint8_t ah, maf, addr_limit;
	uint32_t flags;	  /* named component, SMMUv1/v2, SMMUv3, RMR, RC (rev 4) */
	uint32_t ats;	  /* root complex */
	uint32_t segment; /* root complex */
	uint16_t pasid_caps;
	uint32_t its_count;	      /* ITS group */
	uint64_t base, span, page1;   /* SMMUs, PMCG (page 0 and 1) */
	uint32_t model;		      /* SMMUs */
	uint32_t gsiv;		      /* PMCG overflow interrupt */
	uint32_t node_ref;	      /* PMCG: the node it counts for */
	uint32_t ctx_irqs, pmu_irqs;  /* SMMUv1/v2 */
	uint32_t nranges, ranges_ref; /* RMR */
	size_t smmu;		      /* SMMUv3: index in iort.smmu */
	char name[64];		      /* named component: the object's path */
};

struct iort_smmu {
	uint64_t base;
	uint32_t flags;
	/* COHACC Override set: the firmware declares the SMMU's accesses to
	 * its tables and queues coherent (Linux takes it over IDR0.COHACC and
	 * warns when the two disagree); clear: not declared coherent */
	bool coherent;
	uint32_t gsiv_event, gsiv_pri, gsiv_gerr, gsiv_sync;
	uint32_t model;
	uint64_t vatos;
	bool proximity_valid;
	uint32_t proximity;	 /* node revision 2+ (64-byte nodes) */
	uint32_t deviceid_index; /* node revision 3+ (68-byte nodes) */
	uint32_t identifier;
	size_t node_offset; /* in the table */
	size_t node;	    /* index in iort.node */
	/* the PCI segment of the first root complex mapping to it */
	bool have_segment;
	uint16_t segment;
};

struct iort_range {
	uint64_t base, length;
	bool refused; /* base+length refused (core/tables/range.h); not to be mapped */
};
struct iort_stream {
	size_t smmu; /* index in iort.smmu */
	uint32_t sid;
};
/* One RMR node: its reserved ranges and the stream ids (on SMMUv3s) its
 * mappings lead to; the backend identity-maps the ranges for a device
 * whose stream id is listed, as VT-d does RMRRs. */
struct iort_rmr {
	size_t node_offset;
	uint32_t flags;
	struct iort_range *range;
	size_t nranges;
	struct iort_stream *stream;
	size_t nstreams;
	bool streams_cut; /* more than IORT_RMR_MAX_STREAMS: the rest left out */
};

#define IORT_MAX_NODES 1024
#define IORT_MAX_MAPS 8192
#define IORT_RMR_MAX_STREAMS 256

struct iort {
	uint8_t revision;
	uint32_t node_count; /* the header's */
	uint32_t node_array; /* the header's offset to the node array */
	struct iort_node *node;
	size_t n;
	struct iort_map *map;
	size_t nmap;
	struct iort_smmu *smmu;
	size_t nsmmu;
	struct iort_rmr *rmr;
	size_t nrmr;
	uint64_t problems; /* 1 << enum iort_problem for each found */
	struct diag diag;
};

/* Parses `len` bytes (the table's own length field must not exceed it).
 * Returns 0, or -1 when not even the header could be read; either way
 * t->diag says what was wrong and iort_free() must be called. */
int iort_parse(const uint8_t *buf, size_t len, struct iort *t);
void iort_free(struct iort *t);

static inline bool iort_has(const struct iort *t, enum iort_problem p)
{
	return (t->problems >> p) & 1;
}
const char *iort_type_name(unsigned type);
const char *iort_problem_name(enum iort_problem p);

/* Follows the root complex of PCI segment `segment` from requester id
 * `rid` to an SMMUv3: its index in t->smmu and the stream id. False when
 * the RID goes to an ITS only (it bypasses every SMMU), to an SMMUv1/v2,
 * or is not covered. */
bool iort_map_rid(const struct iort *t, uint16_t segment, uint16_t rid, size_t *smmu, uint32_t *sid);
/* The index in t->node of the root complex for `segment`, or -1. */
int iort_root_complex(const struct iort *t, uint16_t segment);

/* Prints the decode for people (the `acpi iort` command). */
void iort_print(const struct iort *t);

#endif
