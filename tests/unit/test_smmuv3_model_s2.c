/* The SMMUv3 model at stage 2 (kind smmuv3-s2; smmuv3_model_unit.h
 * drives it): its walk with concatenated start tables, S2AP, its faults,
 * its STE checks, its TLB by VMID; nested (Config 0b111): what stage 1
 * fetches and outputs through stage 2, the faults' CLASS, stage 1 tagged
 * by VMID. */
#include "unit.h"

#include "smmuv3_model_unit.h"

/* ---- stage 2 (kind smmuv3-s2) ---------------------------------------------- */

/* The stage-2 walk from S2TTB at 4K with S2SL0 1 (level 1) and a 40-bit
 * IPA: two concatenated level-1 tables, bit 39 choosing the second; S2AP
 * read and write apart; the faults recorded with S2, CLASS IN and the IPA. */
static void stage2_walk_permissions_and_faults(void **state)
{
	(void)state;
	uint64_t phys;
	unit("smmuv3-s2");
	uint64_t *root = page(); /* 8 KiB used: two tables, aligned to 8 KiB */
	ste_s2(SID, root, TG0_4K, 24, 1, 7, 0);
	map_s2(root, 12, 40, 1, 0x1000, 0x51000, S2_LEAF | S2_R | S2_W);
	map_s2(root, 12, 40, 1, 1ull << 39 | 0x2000, 0x52000, S2_LEAF | S2_R);
	map_s2(root, 12, 40, 1, 0x3000, 0x53000, S2_LEAF | S2_W);
	uint64_t *noaf = map_s2(root, 12, 40, 1, 0x4000, 0x54000, (S2_LEAF & ~D_AF) | S2_R);
	map_s2(root, 12, 40, 1, 0x5000, 1ull << 44, S2_LEAF | S2_R); /* beyond S2PS */
	assert_int_equal(through(0x1234), 0x51234);
	assert_true(root[512] & D_VALID); /* the second concatenated table was the one walked */
	assert_int_equal(through(1ull << 39 | 0x2010), 0x52010);
	assert_true(dma(0x1000, true, &phys));
	assert_false(dma(1ull << 39 | 0x2000, true, &phys)); /* S2AP read-only */
	assert_true(dma(0x3000, true, &phys));		     /* write-only */
	assert_int_equal(phys, 0x53000);
	assert_false(dma(0x3000, false, &phys));
	assert_false(dma(0x4000, false, &phys));     /* AF=0 */
	assert_false(dma(0x5000, false, &phys));     /* OA beyond S2PS */
	assert_false(dma(0x7000, false, &phys));     /* nothing there */
	assert_false(dma(1ull << 40, false, &phys)); /* beyond the IPA size */
	static const unsigned want[] = { SMMUV3M_F_PERMISSION, SMMUV3M_F_PERMISSION,  SMMUV3M_F_ACCESS,
					 SMMUV3M_F_ADDR_SIZE,  SMMUV3M_F_TRANSLATION, SMMUV3M_F_TRANSLATION };
	static const uint64_t at[] = { 1ull << 39 | 0x2000, 0x3000, 0x4000, 0x5000, 0x7000, 1ull << 40 };
	assert_int_equal(events_written(), 6);
	for (unsigned i = 0; i < 6; i++) {
		const uint64_t *e = event_at(i);
		assert_int_equal(event_type(i), want[i]);
		assert_true(e[1] & EV_S2);
		assert_int_equal(EV_CLASS(e[1]), 2); /* IN: the transaction's address */
		assert_int_equal(e[2], at[i]);
		assert_int_equal(e[3], at[i]); /* the IPA: stage 2 alone, the input address */
	}
	assert_int_equal(event_at(0)[1] & (1ull << 35), 0); /* a write */
	/* S2AFFD: AF=0 is no fault; S2R=0: faults not recorded */
	strtab[8 * SID + 2] |= S2AFFD;
	command(CFGI_STE | (uint64_t)SID << 32, 0);
	cmd_sync();
	assert_int_equal(through(0x4000), 0x54000);
	*noaf |= D_AF;
	strtab[8 * SID + 2] &= ~S2R;
	command(CFGI_STE | (uint64_t)SID << 32, 0);
	cmd_sync();
	assert_false(dma(0x7000, false, &phys));
	assert_int_equal(events_written(), 6);
	assert_clean();
}

/* The stage-2 STE checked as 5.2 says: each ILLEGAL field is C_BAD_STE. */
static void stage2_ste_legality(void **state)
{
	(void)state;
	uint64_t phys, *root;
	unit("smmuv3-s2");
	root = page();
	ste_s2(0x20, root, TG0_4K, 24, 1, 1, 0);
	map_s2(root, 12, 40, 1, 0, 0x60000, S2_LEAF | S2_R);
	assert_true(smmuv3m_translate(&m, 0x20, 0x10, false, &phys)); /* the legal one */
	assert_int_equal(phys, 0x60010);
	ste_s2(0x21, root, TG0_4K, 24, 0, 1, 0); /* level 2 would need 2^19 entries */
	ste_s2(0x22, root, TG0_4K, 16, 2, 1, 0); /* 48-bit IPA: beyond OAS 44 */
	ste_s2(0x23, root, TG0_4K, 24, 1, 1, 0);
	strtab[8 * 0x23 + 2] &= ~S2AA64; /* AArch32 tables: TTF offers AArch64 only */
	ste_s2(0x24, root, TG0_4K, 24, 1, 1, S2ENDI);
	ste_s2(0x25, root, TG0_4K, 24, 3, 1, 0); /* S2SL0 0b11 */
	ste_s2(0x26, root, TG0_4K, 24, 1, 1, 0);
	strtab[8 * 0x26] = STE_V | 7ull << 1 | 1ull << 59; /* nested with S1CDMax 1: no SubstreamIDs */
	for (uint32_t sid = 0x21; sid <= 0x26; sid++)
		assert_false(smmuv3m_translate(&m, sid, 0, false, &phys));
	assert_int_equal(events_written(), 6);
	for (unsigned i = 0; i < 6; i++)
		assert_int_equal(event_type(i), SMMUV3M_C_BAD_STE);
	/* a unit with stage 2 alone refuses a stage-1 STE */
	unit("smmuv3-s2only");
	translated(SID, 12, 16, 1);
	assert_false(dma(0, false, &phys));
	assert_int_equal(event_type(0), SMMUV3M_C_BAD_STE);
}

/* Stage-2 leaves are tagged by VMID and only the commands that name stage
 * 2 reach them: every TLBI_NH_* keeps them, TLBI_S2_IPA of another VMID or
 * address keeps them, TLBI_S2_IPA (plain and range), TLBI_S12_VMALL and
 * TLBI_NSNH_ALL drop them. */
static void stage2_tlb_tagged_by_vmid(void **state)
{
	(void)state;
	unit("smmuv3-s2");
	uint64_t *root = page();
	ste_s2(SID, root, TG0_4K, 24, 1, 9, 0);
	uint64_t *leaf = map_s2(root, 12, 40, 1, 0x1000, 0x71000, S2_LEAF | S2_R | S2_W);
	assert_int_equal(through(0x1000), 0x71000);
	uint64_t phys, *other = page(); /* VMID 8: the same IPA elsewhere, not VMID 9's entry */
	ste_s2(0x30, other, TG0_4K, 24, 1, 8, 0);
	map_s2(other, 12, 40, 1, 0x1000, 0x81000, S2_LEAF | S2_R);
	assert_true(smmuv3m_translate(&m, 0x30, 0x1000, false, &phys));
	assert_int_equal(phys, 0x81000);
	*leaf = (*leaf & ~0x0000fffffffff000ull) | 0x72000;
	command(TLBI_NH_VA | 9ull << 48, 0x1000);
	command(TLBI_NH_ASID | 9ull << 48, 0);
	command(TLBI_NH_ALL, 0);
	command(TLBI_NH_VAA, 0x1000);
	command(TLBI_S2_IPA | 8ull << 32, 0x1000); /* another VMID */
	command(TLBI_S2_IPA | 9ull << 32, 0x2000); /* another IPA */
	cmd_sync();
	assert_int_equal(m.command_errors, 0);
	assert_int_equal(through(0x1000), 0x71000); /* stale */
	command(TLBI_S2_IPA | 9ull << 32, 0x1000 | 1);
	cmd_sync();
	assert_int_equal(through(0x1000), 0x72000);
	assert_int_equal(m.tlbi_s2_ipa, 3);
	/* the range form: 4 pages of 4K from 0 (NUM 3, TG 4K) */
	*leaf = (*leaf & ~0x0000fffffffff000ull) | 0x73000;
	command(TLBI_S2_IPA | 9ull << 32 | 3ull << 12, 1ull << 10);
	cmd_sync();
	assert_int_equal(through(0x1000), 0x73000);
	assert_int_equal(m.tlbi_s2_ipa_range, 1);
	*leaf = (*leaf & ~0x0000fffffffff000ull) | 0x74000;
	command(TLBI_S12_VMALL | 8ull << 32, 0);
	cmd_sync();
	assert_int_equal(through(0x1000), 0x73000);
	command(TLBI_S12_VMALL | 9ull << 32, 0);
	cmd_sync();
	assert_int_equal(through(0x1000), 0x74000);
	*leaf = (*leaf & ~0x0000fffffffff000ull) | 0x75000;
	command(TLBI_NSNH_ALL, 0);
	cmd_sync();
	assert_int_equal(through(0x1000), 0x75000);
	assert_int_equal(m.command_errors, 0);
	assert_clean();
	/* a unit without stage 2 refuses the stage-2 commands */
	unit("smmuv3");
	command(TLBI_S12_VMALL | 9ull << 32, 0);
	assert_int_equal(rd(CMDQ_CONS) >> 24, SMMUV3M_CERROR_ILL);
}

/* ---- nested (Config 0b111) --------------------------------------------------- */

/* A stage-2 identity of 1 TiB in 1 GiB blocks from level 1 (S2SL0 1, a
 * 40-bit IPA: two concatenated tables), VMID `vmid`, under the stream's
 * stage 1 (its CD `cd`): Config 0b111. Returns the level-1 tables. */
static uint64_t *nested(uint64_t *cd, uint16_t vmid)
{
	uint64_t *s2 = page();
	for (uint64_t i = 0; i < 1024; i++)
		s2[i] = i << 30 | S2_LEAF | S2_R | S2_W | D_VALID; /* blocks: D_TABLE clear */
	ste_s2(SID, s2, TG0_4K, 24, 1, vmid, 0);
	strtab[8 * SID] = STE_V | 7ull << 1 | pa(cd);
	return s2;
}

/* Nested: stage 1's output, its table descriptors and the CD are IPAs
 * through stage 2; a stage-2 fault on each is recorded with S2, CLASS IN,
 * TT or CD and the IPA; a stage-1 fault with S2 clear. */
static void nested_walk_and_faults(void **state)
{
	(void)state;
	uint64_t phys, hole = 512ull << 30; /* stage 2's entry 512 cleared below */
	unit("smmuv3-s2");
	uint64_t *root = page(), *cd = cd_at(0, root, TG0_4K, 16, 3, 0);
	uint64_t *s2 = nested(cd, 5);
	map(root, 12, 16, 3, 0x1000, 0x61000, LEAF);
	map(root, 12, 16, 3, 0x2000, hole | 0x3000, LEAF);
	s2[512] = 0;
	assert_int_equal(through(0x1234), 0x61234);
	assert_false(dma(0x2000, true, &phys));	 /* stage 2 has nothing at the IPA */
	assert_false(dma(0x5000, false, &phys)); /* stage 1 has nothing at the IOVA */
	/* the CD's table, then the CD itself, at an IPA stage 2 leaves unmapped */
	cd[1] = hole | 0x7000;
	command(CFGI_CD | (uint64_t)SID << 32, 0);
	command(TLBI_NH_ALL | 5ull << 32, 0);
	cmd_sync();
	assert_false(dma(0x1000, false, &phys));
	strtab[8 * SID] = STE_V | 7ull << 1 | (hole | 0x8000);
	command(CFGI_STE | (uint64_t)SID << 32, 0);
	cmd_sync();
	assert_false(dma(0x1000, false, &phys));
	assert_int_equal(events_written(), 4);
	static const struct {
		unsigned type, cls;
		bool s2;
		uint64_t in, ipa;
	} want[] = { { SMMUV3M_F_TRANSLATION, 2, true, 0x2000, 512ull << 30 | 0x3000 },
		     { SMMUV3M_F_TRANSLATION, 0, false, 0x5000, 0 },
		     { SMMUV3M_F_TRANSLATION, 1, true, 0x1000, 512ull << 30 | 0x7000 },
		     { SMMUV3M_F_TRANSLATION, 0, true, 0x1000, 512ull << 30 | 0x8000 } };
	for (unsigned i = 0; i < 4; i++) {
		const uint64_t *e = event_at(i);
		assert_int_equal(event_type(i), want[i].type);
		assert_int_equal(!!(e[1] & EV_S2), want[i].s2);
		if (want[i].s2) {
			assert_int_equal(EV_CLASS(e[1]), want[i].cls);
			assert_int_equal(e[3] & ~7ull, want[i].ipa & ~0xfull);
		}
		assert_int_equal(e[2], want[i].in);
	}
	assert_clean();
	/* a unit without stage 2 finds 0b111 ILLEGAL */
	unit("smmuv3");
	nested(cd_at(0, page(), TG0_4K, 16, 3, 0), 5);
	assert_false(dma(0x1000, false, &phys));
	assert_int_equal(event_type(0), SMMUV3M_C_BAD_STE);
}

/* Stage 1's entries are tagged with the STE's VMID on a unit with stage 2:
 * TLBI_NH_ASID and TLBI_NH_ALL of another VMID keep them, those of theirs
 * and TLBI_S12_VMALL drop them; without stage 2 a VMID in them is
 * CERROR_ILL. */
static void nested_stage1_tagged_by_vmid(void **state)
{
	(void)state;
	unit("smmuv3-s2");
	uint64_t *root = page(), *cd = cd_at(0, root, TG0_4K, 16, 3, 0);
	nested(cd, 5);
	uint64_t *leaf = map(root, 12, 16, 3, 0x1000, 0x61000, LEAF);
	assert_int_equal(through(0x1000), 0x61000);
	*leaf = (*leaf & ~0x0000fffffffff000ull) | 0x62000;
	command(TLBI_NH_ASID | 3ull << 48 | 4ull << 32, 0);
	command(TLBI_NH_ALL | 4ull << 32, 0);
	command(TLBI_NH_VA | 3ull << 48 | 4ull << 32, 0x1000);
	command(TLBI_S12_VMALL | 4ull << 32, 0);
	cmd_sync();
	assert_int_equal(m.command_errors, 0);
	assert_int_equal(through(0x1000), 0x61000); /* stale: none named VMID 5 */
	command(TLBI_NH_ALL | 5ull << 32, 0);
	cmd_sync();
	assert_int_equal(through(0x1000), 0x62000);
	*leaf = (*leaf & ~0x0000fffffffff000ull) | 0x63000;
	command(TLBI_NH_VA | 3ull << 48 | 5ull << 32, 0x1000);
	cmd_sync();
	assert_int_equal(through(0x1000), 0x63000);
	*leaf = (*leaf & ~0x0000fffffffff000ull) | 0x64000;
	command(TLBI_S12_VMALL | 5ull << 32, 0);
	cmd_sync();
	assert_int_equal(through(0x1000), 0x64000);
	assert_clean();
	unit("smmuv3");
	command(TLBI_NH_ALL | 5ull << 32, 0);
	assert_int_equal(rd(CMDQ_CONS) >> 24, SMMUV3M_CERROR_ILL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(stage2_walk_permissions_and_faults), cmocka_unit_test(stage2_ste_legality),
		cmocka_unit_test(stage2_tlb_tagged_by_vmid),	      cmocka_unit_test(nested_walk_and_faults),
		cmocka_unit_test(nested_stage1_tagged_by_vmid),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
