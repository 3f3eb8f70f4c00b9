/* The IORT parser on tables built byte by byte: QEMU virt's (from the facts
 * in shared/specs/qemu-iommus.md section 3), tables with several SMMUs and
 * segments, RMRs, SMMUv2 and named components; then one broken table per
 * check, each asserting the check's own problem bit (the valid table sets
 * none, so a test fails when its check is taken out). */
#include "unit.h"

#include "iort_build.h"

/* QEMU virt's table with its root complex split: RIDs from `smmu_in` to
 * the SMMUv3, from `its_in` to the ITS (mapped to themselves). */
static void build_split(uint32_t smmu_in, uint32_t smmu_num, uint32_t its_in, uint32_t its_num)
{
	header(3, 3);
	its(0);
	smmuv3(1, 0x09050000, 106, 1);
	map(0, 0xffff, 0, QEMU_ITS, 0);
	rc(2, 0, 2);
	map(smmu_in, smmu_num, smmu_in, QEMU_SMMU, 0);
	map(its_in, its_num, its_in, QEMU_ITS, 0);
	seal();
}

static struct iort parsed;

static void parse(void)
{
	assert_int_equal(iort_parse(t, tl, &parsed), 0);
}
static void teardown_parsed(void)
{
	iort_free(&parsed);
}

static void qemu_virt(void **state)
{
	(void)state;
	build_qemu();
	assert_int_equal(tl, 0xd8);
	parse();
	assert_int_equal(parsed.problems, 0);
	assert_int_equal(parsed.diag.errors + parsed.diag.warnings, 0);
	assert_int_equal(parsed.revision, 3);
	assert_int_equal(parsed.n, 3);
	assert_int_equal(parsed.nsmmu, 1);
	const struct iort_smmu *s = &parsed.smmu[0];
	assert_int_equal(s->base, 0x09050000);
	assert_int_equal(s->node_offset, QEMU_SMMU);
	assert_true(s->coherent);
	assert_int_equal(s->model, IORT_SMMUV3_GENERIC);
	assert_int_equal(s->gsiv_event, 106);
	assert_int_equal(s->gsiv_pri, 107);
	assert_int_equal(s->gsiv_gerr, 109);
	assert_int_equal(s->gsiv_sync, 108);
	assert_true(s->have_segment);
	assert_int_equal(s->segment, 0);
	const struct iort_node *r = &parsed.node[2];
	assert_int_equal(r->type, IORT_ROOT_COMPLEX);
	assert_int_equal(r->cca, IORT_CCA_COHERENT);
	assert_int_equal(r->maf, IORT_MAF_CPM | IORT_MAF_DACS);
	assert_int_equal(r->addr_limit, 64);
	assert_int_equal(parsed.node[0].its_count, 1);

	size_t smmu = 99;
	uint32_t sid = 0;
	assert_true(iort_map_rid(&parsed, 0, 0x0018, &smmu, &sid)); /* 00:03.0 */
	assert_int_equal(smmu, 0);
	assert_int_equal(sid, 0x18);
	assert_true(iort_map_rid(&parsed, 0, 0xffff, &smmu, &sid));
	assert_int_equal(sid, 0xffff);
	assert_false(iort_map_rid(&parsed, 1, 0x0018, &smmu, &sid)); /* no segment 1 */
	teardown_parsed();
}

/* Buses 0-0x7f behind the SMMU, the rest straight to the ITS (what QEMU
 * builds with a bypassing host bridge): the latter are not covered. */
static void rid_to_its_only(void **state)
{
	(void)state;
	build_split(0, 0x7fff, 0x8000, 0x7fff);
	parse();
	assert_int_equal(parsed.problems, 0);
	size_t smmu;
	uint32_t sid;
	assert_true(iort_map_rid(&parsed, 0, 0x7fff, &smmu, &sid));
	assert_false(iort_map_rid(&parsed, 0, 0x8000, &smmu, &sid));
	teardown_parsed();
}

/* QEMU 7.2 writes "Number of IDs" as the count: with a bypassing bridge
 * its two ranges then share one RID. Said as that, a warning only. */
static void count_written_as_count(void **state)
{
	(void)state;
	build_split(0, 0x8000, 0x8000, 0x7fff);
	parse();
	assert_true(iort_has(&parsed, IORT_P_MAP_OFF_BY_ONE));
	assert_false(iort_has(&parsed, IORT_P_MAP_OVERLAP));
	assert_int_equal(parsed.diag.errors, 0);
	size_t smmu;
	uint32_t sid;
	assert_true(iort_map_rid(&parsed, 0, 0x8000, &smmu, &sid)); /* the first listed wins */
	teardown_parsed();
}

/* Two segments, two SMMUv3s, stream ids offset per SMMU; a named
 * component behind the second SMMU: RC -> SMMU -> ITS chains. */
static void two_smmus_two_segments(void **state)
{
	(void)state;
	header(5, 6);
	uint32_t its0 = its(0);
	uint32_t a = smmuv3(1, 0x100000000ull, 200, 1);
	map(0, 0xffff, 0, its0, 0);
	uint32_t b = smmuv3(2, 0x100020000ull, 210, 1);
	map(0, 0x1ffff, 0x10000, its0, 0);
	rc(3, 0, 1);
	map(0, 0xffff, 0, a, 0);
	rc(4, 1, 1);
	map(0, 0xffff, 0x10000, b, 0);
	uint32_t nc = node(IORT_NAMED_COMPONENT, 30 + 10 + 20, 4, 5, 1, 40);
	put32(0), put32(1), put8(0), put16(0), put8(0), put8(48), put("\\_SB.DMA0", 10), put8(0);
	map(0, 0, 0x20000, b, IORT_MAP_SINGLE);
	seal();
	parse();
	assert_int_equal(parsed.problems, 0);
	assert_int_equal(parsed.nsmmu, 2);
	assert_int_equal(parsed.smmu[0].segment, 0);
	assert_int_equal(parsed.smmu[1].segment, 1);
	size_t smmu;
	uint32_t sid;
	assert_true(iort_map_rid(&parsed, 1, 0x0108, &smmu, &sid));
	assert_int_equal(smmu, 1);
	assert_int_equal(sid, 0x10108);
	assert_true(iort_map_rid(&parsed, 0, 0x0108, &smmu, &sid));
	assert_int_equal(smmu, 0);
	assert_int_equal(sid, 0x0108);
	const struct iort_node *n = &parsed.node[5];
	assert_int_equal(n->offset, nc);
	assert_string_equal(n->name, "\\_SB.DMA0");
	assert_int_equal(n->addr_limit, 48);
	assert_int_equal(parsed.map[n->first_map].flags, IORT_MAP_SINGLE);
	teardown_parsed();
}

/* An RMR (E.d, node revision 3) with two 64 KiB ranges for stream ids
 * 0x40-0x41 and 0x80 on the SMMUv3. */
static void rmr_ranges_and_streams(void **state)
{
	(void)state;
	qemu_nodes(5, 4);
	node(IORT_RMR, 28 + 40 + 40, 3, 3, 2, 28);
	put32(IORT_RMR_REMAP_PERMITTED), put32(2), put32(68);
	map(0, 1, 0x40, QEMU_SMMU, 0);
	map(0, 0, 0x80, QEMU_SMMU, IORT_MAP_SINGLE);
	put64(0x80000000), put64(0x10000), put32(0);
	put64(0x90000000), put64(0x30000), put32(0);
	seal();
	parse();
	assert_int_equal(parsed.problems, 0);
	assert_int_equal(parsed.nrmr, 1);
	const struct iort_rmr *r = &parsed.rmr[0];
	assert_int_equal(r->flags, IORT_RMR_REMAP_PERMITTED);
	assert_int_equal(r->nranges, 2);
	assert_int_equal(r->range[1].base, 0x90000000);
	assert_int_equal(r->range[1].length, 0x30000);
	assert_int_equal(r->nstreams, 3);
	assert_int_equal(r->stream[0].sid, 0x40);
	assert_int_equal(r->stream[1].sid, 0x41);
	assert_int_equal(r->stream[2].sid, 0x80);
	assert_int_equal(r->stream[2].smmu, 0);
	teardown_parsed();
}

/* SMMUv1/v2 (MMU-500) with its interrupt arrays, a named component behind
 * it, a PMCG counting for the SMMUv3: decoded; RIDs to an SMMUv2 are not
 * an SMMUv3's. */
#define V2 0x48	      /* the SMMUv1/v2 node, 100 bytes */
#define V2_NC 0xf0    /* the named component, its name at +29 */
#define V2_PMCG 0x128 /* the PMCG */
static void build_smmuv2(void)
{
	header(5, 5);
	its(0);
	node(IORT_SMMU_V1V2, 60 + 16 + 16 + 8, 3, 1, 0, 0);
	put64(0x2b400000), put64(0x10000), put32(3), put32(1), put32(60), put32(2), put32(76), put32(1), put32(92);
	put32(100), put32(0), put32(101), put32(0), put32(102), put32(0), put32(103), put32(0), put32(104), put32(0);
	uint32_t v3 = smmuv3(2, 0x2b800000, 120, 0);
	node(IORT_NAMED_COMPONENT, 30 + 6 + 20, 4, 3, 1, 36);
	put32(0), put32(0), put8(0), put16(0), put8(0), put8(40), put("\\_SB.X", 7);
	map(0, 0, 0x7, V2, IORT_MAP_SINGLE);
	node(IORT_PMCG, 40, 2, 4, 0, 0);
	put64(0x2b810000), put32(130), put32(v3), put64(0x2b820000);
	seal();
}

static void smmuv2_named_component_pmcg(void **state)
{
	(void)state;
	build_smmuv2();
	assert_int_equal(tl, V2_PMCG + 40);
	parse();
	assert_int_equal(parsed.problems, 0);
	const struct iort_node *n = &parsed.node[1];
	assert_int_equal(n->base, 0x2b400000);
	assert_int_equal(n->span, 0x10000);
	assert_int_equal(n->model, 3);
	assert_int_equal(n->ctx_irqs, 2);
	assert_int_equal(parsed.node[4].page1, 0x2b820000);
	assert_int_equal(parsed.node[4].gsiv, 130);
	assert_int_equal(parsed.map[parsed.node[3].first_map].target, 1);
	assert_string_equal(parsed.node[3].name, "\\_SB.X");
	teardown_parsed();
}

/* Two root complexes sharing one SMMUv3: the unit's segment is the first
 * one's. A RID led to an SMMUv1/v2 stays there, even where that SMMU's
 * own IDs go on to an SMMUv3. */
static void shared_smmu_and_smmuv2(void **state)
{
	(void)state;
	qemu_nodes(3, 5);
	uint32_t rc3 = rc(3, 3, 1);
	map(0, 0xffff, 0x10000, rc3 + 56, 0);
	node(IORT_SMMU_V1V2, 60 + 16 + 20, 3, 4, 1, 76);
	put64(0x2b400000), put64(0x10000), put32(3), put32(0), put32(60), put32(0), put32(76), put32(0), put32(76);
	put32(100), put32(0), put32(101), put32(0);
	map(0, 0x1ffff, 0, QEMU_SMMU, 0);
	seal();
	parse();
	assert_int_equal(parsed.problems, 0);
	assert_int_equal(parsed.smmu[0].segment, 0);
	size_t smmu;
	uint32_t sid;
	assert_false(iort_map_rid(&parsed, 3, 0x10, &smmu, &sid));
	teardown_parsed();

	/* the same SMMU reached from segment 3 first: its segment is 3 */
	header(3, 4);
	its(0);
	smmuv3(1, 0x09050000, 106, 1);
	map(0, 0xffff, 0, QEMU_ITS, 0);
	rc(2, 3, 1);
	map(0, 0xffff, 0, QEMU_SMMU, 0);
	rc(3, 0, 1);
	map(0, 0xffff, 0x10000, QEMU_SMMU, 0);
	seal();
	parse();
	assert_int_equal(parsed.problems, 0);
	assert_int_equal(parsed.smmu[0].segment, 3);
	teardown_parsed();
}

/* A table whose build is changed in one place, parsed, and the named
 * problem asserted. */
static void expect(enum iort_problem p, bool error)
{
	parse();
	assert_true(iort_has(&parsed, p));
	if (error)
		assert_true(parsed.diag.errors > 0);
	teardown_parsed();
}

static void broken_header(void **state)
{
	(void)state;
	build_qemu();
	assert_int_equal(iort_parse(t, 47, &parsed), -1);
	assert_true(iort_has(&parsed, IORT_P_HEADER));
	teardown_parsed();
	memcpy(t, "TROI", 4), seal();
	expect(IORT_P_HEADER, true);
	build_qemu(), set32(4, (uint32_t)tl + 4);
	expect(IORT_P_LENGTH, true);
	build_qemu(), t[9]++;
	expect(IORT_P_CHECKSUM, true);
	build_qemu(), t[8] = 9, seal();
	expect(IORT_P_REVISION, false);
	build_qemu(), set32(40, 0x10), seal();
	expect(IORT_P_NODE_OFFSET, true);
	build_qemu(), set32(40, (uint32_t)tl + 1), seal();
	expect(IORT_P_NODE_OFFSET, true);
}

static void broken_nodes(void **state)
{
	(void)state;
	build_qemu(), set32(36, 4), seal();
	expect(IORT_P_NODE_COUNT, true);
	build_qemu(), set32(36, 2), seal();
	expect(IORT_P_NODE_COUNT, true);
	build_qemu(), t[QEMU_RC + 1] = 0xff, seal(); /* past the table */
	expect(IORT_P_NODE_LENGTH, true);
	build_qemu(), t[QEMU_RC + 1] = 8, seal(); /* shorter than a node header */
	expect(IORT_P_NODE_LENGTH, true);
	/* an SMMUv3 node shorter than its fixed part: 16 bytes */
	header(3, 2);
	its(0);
	node(IORT_SMMU_V3, 16, 4, 1, 0, 0);
	seal();
	expect(IORT_P_NODE_LENGTH, true);
	build_qemu(), set32(QEMU_ITS + 16, 3), seal(); /* 3 ITS ids in room for 1 */
	expect(IORT_P_ITS_ARRAY, true);
}

/* A node type from a later revision: warned about and stepped over, the
 * rest of the table still read. */
static void unknown_node_type(void **state)
{
	(void)state;
	header(7, 4);
	its(0);
	node(9, 24, 0, 9, 0, 0);
	put64(0);
	smmuv3(1, 0x09050000, 106, 1);
	map(0, 0xffff, 0, QEMU_ITS, 0);
	rc(2, 0, 1);
	map(0, 0xffff, 0, QEMU_SMMU + 24, 0);
	seal();
	parse();
	assert_true(iort_has(&parsed, IORT_P_NODE_TYPE));
	assert_int_equal(parsed.diag.errors, 0);
	size_t smmu;
	uint32_t sid;
	assert_true(iort_map_rid(&parsed, 0, 0x10, &smmu, &sid));
	teardown_parsed();
}

static void broken_mappings(void **state)
{
	(void)state;
	build_qemu(), set32(QEMU_RC + 8, 2), seal(); /* two mappings, room for one */
	expect(IORT_P_MAP_ARRAY, true);
	build_qemu(), set32(QEMU_RC + 12, 20), seal(); /* over the node's fixed part */
	expect(IORT_P_MAP_ARRAY, true);
	build_qemu(), set32(QEMU_RC_MAP + 12, QEMU_SMMU + 4), seal();
	expect(IORT_P_MAP_TARGET, true);
	build_qemu(), set32(QEMU_RC_MAP + 12, QEMU_RC), seal(); /* a root complex takes no IDs */
	expect(IORT_P_MAP_TARGET_TYPE, true);
	build_qemu(), set32(QEMU_RC_MAP, 0xffff0001), seal();
	expect(IORT_P_MAP_WRAP, true);
	build_qemu(), set32(QEMU_RC_MAP + 8, 0xffff0001), seal();
	expect(IORT_P_MAP_WRAP, true);
	build_split(0x100, 0xff, 0, 0x1ff); /* two ranges sharing 0x100 RIDs */
	expect(IORT_P_MAP_OVERLAP, true);
}

/* SMMUs whose mappings lead to each other: a loop; then a chain of ten. */
static void broken_chains(void **state)
{
	(void)state;
	header(3, 3);
	rc(0, 0, 1);
	map(0, 0xffff, 0, 0x30 + 56, 0);
	smmuv3(1, 0x09050000, 106, 1);
	map(0, 0xffff, 0, 0x30 + 56 + 88, 0);
	smmuv3(2, 0x09070000, 110, 1);
	map(0, 0xffff, 0, 0x30 + 56, 0);
	seal();
	parse();
	assert_true(iort_has(&parsed, IORT_P_CHAIN_LOOP));
	size_t smmu;
	uint32_t sid;
	assert_true(iort_map_rid(&parsed, 0, 1, &smmu, &sid)); /* stops at the first SMMUv3 */
	teardown_parsed();

	header(3, 11);
	uint32_t its0 = its(0);
	for (uint32_t i = 0; i < 10; i++) {
		smmuv3(1 + i, 0x10000000 + 0x20000ull * i, 100 + 4 * i, 1);
		map(0, 0xffff, 0, i == 9 ? its0 : (uint32_t)tl + 20, 0);
	}
	seal();
	expect(IORT_P_CHAIN_LONG, true);
}

static void broken_smmus(void **state)
{
	(void)state;
	build_qemu(), set64(QEMU_SMMU + 16, 0), seal();
	expect(IORT_P_SMMU_BASE_ZERO, true);
	build_qemu(), set64(QEMU_SMMU + 16, 0x09051000), seal();
	expect(IORT_P_SMMU_BASE_ALIGN, true);
	header(3, 3);
	its(0);
	smmuv3(1, 0x09050000, 106, 1);
	map(0, 0xffff, 0, QEMU_ITS, 0);
	smmuv3(2, 0x09060000, 110, 1); /* inside the first one's page 1 */
	map(0, 0xffff, 0, QEMU_ITS, 0);
	seal();
	expect(IORT_P_SMMU_OVERLAP, true);
	build_qemu(), set32(QEMU_SMMU + 24, IORT_SMMUV3_DEVICEID_VALID), set32(QEMU_SMMU + 64, 1), seal();
	expect(IORT_P_FIELD, true);
	/* a revision 0 SMMUv3 node: 60 bytes, its mapping right after; the
	 * mapping is not taken for a proximity domain */
	header(0, 2);
	its(0);
	node(IORT_SMMU_V3, 60 + 20, 0, 0, 1, 60);
	put64(0x09050000), put32(0), put32(0), put64(0), put32(0), put32(106), put32(107), put32(109), put32(108);
	map(0x1234, 0xff, 0, QEMU_ITS, 0);
	seal();
	parse();
	assert_int_equal(parsed.problems, 0);
	assert_int_equal(parsed.smmu[0].proximity, 0);
	assert_int_equal(parsed.smmu[0].deviceid_index, 0);
	assert_int_equal(parsed.map[0].input_base, 0x1234);
	teardown_parsed();
}

/* The checks on single fields, each on an otherwise clean table. */
static void broken_fields(void **state)
{
	(void)state;
	build_smmuv2(), set32(V2 + 44, 5), seal(); /* 5 context interrupts in room for 2 */
	expect(IORT_P_FIELD, true);
	build_smmuv2(), set64(V2 + 16, 0), seal();
	expect(IORT_P_FIELD, true);
	build_smmuv2(), t[V2_NC + 35] = 'Y', seal(); /* the name's NUL gone */
	expect(IORT_P_FIELD, true);
	build_smmuv2(), set32(V2_PMCG + 28, 0x50), seal(); /* the PMCG counts for no node */
	expect(IORT_P_MAP_TARGET, true);
	build_qemu(), set32(QEMU_RC + 28, 0x10000), seal();
	expect(IORT_P_FIELD, true);
	build_qemu(), set32(QEMU_SMMU + 40, 7), seal(); /* a model the spec does not name */
	expect(IORT_P_FIELD, false);
	build_qemu(), set32(QEMU_ITS + 8, 1), seal(); /* an ITS group with a mapping */
	expect(IORT_P_FIELD, false);
	/* proximity domain valid in a 60-byte (revision 0) SMMUv3 node */
	header(0, 1);
	node(IORT_SMMU_V3, 60, 0, 0, 0, 0);
	put64(0x09050000), put32(IORT_SMMUV3_PXM_VALID), put32(0), put64(0), put32(0), put32(1), put32(2), put32(3);
	put32(4);
	seal();
	expect(IORT_P_FIELD, true);
	/* two root complexes for segment 0 */
	qemu_nodes(3, 4);
	rc(3, 0, 0);
	seal();
	expect(IORT_P_FIELD, false);
}

static void build_rmr(uint64_t base, uint64_t length, uint32_t nranges)
{
	qemu_nodes(5, 4);
	node(IORT_RMR, 28 + 20 + 20, 3, 3, 1, 28);
	put32(0), put32(nranges), put32(48);
	map(0, 0, 0x40, QEMU_SMMU, IORT_MAP_SINGLE);
	put64(base), put64(length), put32(0);
	seal();
}

static void broken_rmrs(void **state)
{
	(void)state;
	build_rmr(0x80000000, 0x10000, 1);
	parse();
	assert_int_equal(parsed.problems, 0);
	teardown_parsed();
	build_rmr(0x80000000, 0, 1);
	expect(IORT_P_RMR_ZERO, true);
	build_rmr(0x80001000, 0x10000, 1);
	expect(IORT_P_RMR_ALIGN, true);
	build_rmr(0x80000000, 0x11000, 1);
	expect(IORT_P_RMR_ALIGN, true);
	build_rmr(0xffffffffffff0000ull, 0x20000, 1);
	expect(IORT_P_RMR_WRAP, true);
	/* ends on the last byte: base + length is 0, so the backend's end
	 * would wrap; refused, and marked so */
	build_rmr(0xffffffffffff0000ull, 0x10000, 1);
	parse();
	assert_true(iort_has(&parsed, IORT_P_RMR_WRAP));
	assert_true(parsed.diag.errors > 0);
	assert_int_equal(parsed.nrmr, 1);
	assert_true(parsed.rmr[0].range[0].refused);
	teardown_parsed();
	build_rmr(0x80000000, 0x10000, 1);
	parse();
	assert_false(parsed.rmr[0].range[0].refused);
	teardown_parsed();
	build_rmr(0x80000000, 0x10000, 2);
	expect(IORT_P_RMR_ARRAY, true);
	build_rmr(0x80000000, 0x10000, 0); /* no ranges at all */
	expect(IORT_P_FIELD, false);
	build_rmr(0x80000000, 0x10000, 1), t[0xd8 + 3] = 1, seal(); /* E.c's RMR, node revision 1 */
	expect(IORT_P_REVISION, false);
}

/* Cut at every length (the length field agreeing): nothing is read past
 * the buffer (ASan in the fuzzer says so too), and a cut that drops nodes
 * is an error. */
static void truncated_everywhere(void **state)
{
	(void)state;
	build_qemu();
	size_t full = tl;
	uint8_t whole[256];
	memcpy(whole, t, full);
	for (size_t cut = 0; cut < full; cut++) {
		uint8_t *copy = cut_copy(whole, cut);
		int rc_ = iort_parse(copy, cut, &parsed);
		if (cut < 48)
			assert_int_equal(rc_, -1);
		assert_true(parsed.diag.errors > 0);
		size_t smmu;
		uint32_t sid;
		iort_map_rid(&parsed, 0, 0x18, &smmu, &sid);
		iort_free(&parsed);
		free(copy);
	}
}

static void print_decode(void *arg)
{
	iort_print(arg);
}

static void decode_printed(void **state)
{
	(void)state;
	build_rmr(0x80000000, 0x10000, 1);
	parse();
	const char *out = capture_stdout(print_decode, &parsed);
	assert_non_null(strstr(out, "SMMUv3 at 0x048"));
	assert_non_null(strstr(out, "range 0x80000000 +0x10000"));
	teardown_parsed();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(qemu_virt),
		cmocka_unit_test(rid_to_its_only),
		cmocka_unit_test(count_written_as_count),
		cmocka_unit_test(two_smmus_two_segments),
		cmocka_unit_test(rmr_ranges_and_streams),
		cmocka_unit_test(smmuv2_named_component_pmcg),
		cmocka_unit_test(shared_smmu_and_smmuv2),
		cmocka_unit_test(broken_header),
		cmocka_unit_test(broken_nodes),
		cmocka_unit_test(unknown_node_type),
		cmocka_unit_test(broken_mappings),
		cmocka_unit_test(broken_chains),
		cmocka_unit_test(broken_smmus),
		cmocka_unit_test(broken_rmrs),
		cmocka_unit_test(broken_fields),
		cmocka_unit_test(truncated_everywhere),
		cmocka_unit_test(decode_printed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
