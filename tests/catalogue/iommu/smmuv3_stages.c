/* The smmuv3 group's cases of what a tag scopes and of each stage's own
 * faults, in every mode (stage 1, stage 2, nested: smmuv3.c runs them
 * under smmuv3.stage): an invalidation of another ASID or VMID leaves the
 * device's entries cached; a leaf with its access flag clear is an
 * F_ACCESS at the stage of the device's tables; nested, a fault at either
 * stage says which, and at stage 2 the IPA. QEMU records one event per
 * 4-byte chunk of a faulting access: the cases count "at least one". */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "core/base/dmabuf.h"
#include "smmuv3_cases.h"
#include "tests/catalogue/catalogue.h"

/* ---- what a tag scopes ------------------------------------------------------ */

/* The domain's invalidation for the tag next to the device's: at stage 1
 * TLBI_NH_ASID of the next ASID, at stage 2 TLBI_S12_VMALL of the next
 * VMID, nested TLBI_NH_ALL of the next VMID (stage 1's entries are
 * tagged with the VMID there too). */
static const char *inv_other_tag(struct env *v, uint64_t iova, size_t arg)
{
	(void)iova, (void)arg;
	struct smmuv3 *s = smmuv3_of(v->io);
	if (s->nested)
		return smmuv3_tlbi_nh_all(s, s->vmid + 1);
	return s->stage == 2 ? smmuv3_tlbi_tag(s, 0, s->vmid + 1) : smmuv3_tlbi_tag(s, s->asid + 1, 0);
}

static void other_tag_words(const struct smmuv3 *s, char *out, size_t n)
{
	if (s->nested)
		snprintf(out, n, "TLBI_NH_ALL of VMID %u (the device's is %u)", s->vmid + 1, s->vmid);
	else if (s->stage == 2)
		snprintf(out, n, "TLBI_S12_VMALL of VMID %u (the device's is %u)", s->vmid + 1, s->vmid);
	else
		snprintf(out, n, "TLBI_NH_ASID of ASID %u (the device's is %u)", s->asid + 1, s->asid);
}

void case_smmuv3_tag_scope(struct test_ctx *t)
{
	struct env v;
	if (!bench_setup(t, &v, "smmuv3"))
		return;
	struct smmuv3 *s = smmuv3_of(v.io);
	char cmd[64];
	other_tag_words(s, cmd, sizeof(cmd));
	struct stale_way way = bench_stale_kind(0);
	way.invalidate = inv_other_tag;
	struct stale st;
	if (!bench_stale_precision(&v, &way, &st))
		return;
	const char *tag = s->stage == 2 || s->nested ? "VMID" : "ASID";
	report(t, st.after == 'A' || st.after == 'B', "after %s the DMA landed in one page (%c)", cmd, st.after);
	if (st.after == 'A')
		test_note(t, "%s: scoped by %s: %s left the device's entry cached (stale until its own)", v.label, tag,
			  cmd);
	else {
		test_note(t, "%s: finding: %s dropped the device's entry too", v.label, cmd);
		test_finding(t, "%s dropped another %s's entry (allowed: an invalidation may drop more than it names)",
			     cmd, tag);
	}
	bench_teardown(&v);
}

/* ---- the access flag ------------------------------------------------------- */

/* The events recorded since the queue was last drained: how many were of
 * type `id` at `stage` for `page`, and the first of them. */
static size_t count_events(struct env *v, unsigned id, unsigned stage, uint64_t page, struct iommu_fault *first)
{
	struct iommu_fault f[64];
	bool ovf;
	size_t n = 0, ours = 0, got;
	while (n < 4096 && (got = v->io->ops->faults(v->io, f, 64, &ovf)) > 0) {
		for (size_t k = 0; k < got; k++)
			if (f[k].reason == id && f[k].stage == stage && f[k].addr == page && !ours++)
				*first = f[k];
		n += got;
	}
	return ours;
}

void case_smmuv3_access_flag(struct test_ctx *t)
{
	struct env v;
	if (!bench_setup(t, &v, "smmuv3"))
		return;
	struct smmuv3 *s = smmuv3_of(v.io);
	struct dmabuf a = { 0 };
	if (!bench_buffer(&v, &a, v.len, v.pg)) {
		report(t, false, "no memory");
		bench_teardown(&v);
		return;
	}
	unsigned stage = s->stage;
	uint64_t w0 = bench_window(&v, v.pg, 0), iova = w0 + (a.phys & (v.pg - 1));
	const char *e = v.io->ops->map(v.io, w0, a.phys & ~(v.pg - 1), v.pg, IOMMU_RW, v.pg);
	if (!e)
		e = smmuv3_access_flag(s, w0, false);
	report(t, !e, "the page mapped read-write with its stage-%u leaf's access flag clear%s%s", stage, e ? ": " : "",
	       e ? e : "");
	if (e)
		goto out;
	smmuv3_drain_events(&v);
	dmabuf_pattern(&a, 41);
	struct dma_result r;
	bench_dma(&v, DMA_FROM_DEVICE, iova, v.len, &r);
	struct iommu_fault first = { 0 };
	size_t n = count_events(&v, EVT_F_ACCESS, stage, w0, &first);
	bool intact = !bench_changed(&a, 41) && dmabuf_guards_damaged(&a) == 0;
	if (!n && !intact && bench_on_qemu() && stage == 1 && !s->nested) {
		test_skip(t, SKIP_EMULATOR,
			  "the write went through a stage-1 leaf with AF=0 and no F_ACCESS was recorded: this "
			  "QEMU's SMMUv3 does not check the access flag at stage 1 outside nested translation; "
			  "the model checks it (model smmuv3)");
		goto out;
	}
	report(t, intact, "the buffer is unchanged, guards intact (DMA status %s)", dma_status_name(r.status));
	report(t, n >= 1, "%zu F_ACCESS events at stage %u for page 0x%llx%s%s", n, stage, (unsigned long long)w0,
	       n ? ": " : "", n ? first.why : "");
	/* the flag set again: the same DMA goes through */
	e = smmuv3_access_flag(s, w0, true);
	dmabuf_pattern(&a, 42);
	bool through = !e && bench_dma(&v, DMA_FROM_DEVICE, iova, v.len, &r) && bench_changed(&a, 42);
	report(t, through, "with the access flag set again the write lands%s%s", e ? ": " : "", e ? e : "");
	test_note(t, "%s: AF=0 at stage %u: F_ACCESS (%zu events), nothing written; AF=1: written", v.label, stage, n);
out:
	v.io->ops->unmap(v.io, w0, v.pg);
	bench_teardown(&v);
	dmabuf_free(&a);
}

/* ---- nested: a fault at either stage says which ---------------------------- */

void case_smmuv3_nested_faults(struct test_ctx *t)
{
	struct env v;
	if (!bench_setup(t, &v, "smmuv3"))
		return;
	struct smmuv3 *s = smmuv3_of(v.io);
	if (!bench_needs(&v, s->nested, SKIP_UNSUPPORTED, "%s translates %s, not nested", v.io->name, v.io->mode))
		return;
	uint64_t w0 = bench_window(&v, v.pg, 0), w1 = bench_window(&v, v.pg, 1), ipa = 0;
	/* stage 1 leads w0 to an IPA stage 2 does not map */
	const char *e = smmuv3_s2_hole(s, true, &ipa);
	if (!e)
		e = v.io->ops->map(v.io, w0, ipa, v.pg, IOMMU_RW, v.pg);
	report(t, !e, "IOVA 0x%llx mapped at stage 1 to IPA 0x%llx, which stage 2 leaves unmapped%s%s",
	       (unsigned long long)w0, (unsigned long long)ipa, e ? ": " : "", e ? e : "");
	if (!e) {
		smmuv3_drain_events(&v);
		struct dma_result r;
		struct iommu_fault f2 = { 0 }, f1 = { 0 };
		bench_dma(&v, DMA_FROM_DEVICE, w0, v.len, &r);
		size_t n2 = count_events(&v, EVT_F_TRANSLATION, 2, w0, &f2);
		report(t, n2 >= 1 && f2.ipa - ipa < v.pg,
		       "the write faulted at stage 2 (%zu F_TRANSLATION with S2): input 0x%llx, IPA 0x%llx", n2,
		       (unsigned long long)f2.addr, (unsigned long long)f2.ipa);
		/* and one that stage 1 refuses: nothing mapped at w1 */
		bench_dma(&v, DMA_TO_DEVICE, w1, v.len, &r);
		size_t n1 = count_events(&v, EVT_F_TRANSLATION, 1, w1, &f1);
		report(t, n1 >= 1, "a read of unmapped IOVA 0x%llx faulted at stage 1 (%zu F_TRANSLATION, S2 clear)",
		       (unsigned long long)w1, n1);
		test_note(t, "%s: stage-2 fault with IPA 0x%llx, stage-1 fault at 0x%llx, each said", v.label,
			  (unsigned long long)f2.ipa, (unsigned long long)w1);
		v.io->ops->unmap(v.io, w0, v.pg);
	}
	if (ipa && (e = smmuv3_s2_hole(s, false, &ipa)) != NULL)
		report(t, false, "the stage-2 identity mapped again: %s", e);
	bench_teardown(&v);
}

/* ---- stage 2: concatenated start tables ------------------------------------ */

void case_smmuv3_s2_concatenated(struct test_ctx *t)
{
	struct env v;
	if (!bench_setup(t, &v, "smmuv3"))
		return;
	struct smmuv3 *s = smmuv3_of(v.io);
	const struct io_pgtable_cfg *c = &s->pgcfg;
	unsigned g = c->granule_bits, stride = g - 3, extra = c->top_extra_bits;
	if (!bench_needs(&v, s->stage == 2 && extra, SKIP_UNSUPPORTED,
			 "a %u-bit IPA at the %s granule walks %u levels from one start table: nothing to concatenate",
			 c->addr_bits, smmuv3_granule_name(g), c->levels))
		return;
	/* the start level's index bits above a stride choose the table */
	unsigned sel = g + stride * c->levels;
	uint64_t tables = 1ull << extra, w = bench_window(&v, v.pg, 0), w0 = w & ~((tables - 1) << sel);
	unsigned which = (unsigned)((w >> sel) & (tables - 1));
	/* the window the device reaches may lie in the first start table
	 * (a narrow DMA mask: edu's 28 bits): then no walk can tell the
	 * tables apart, and nothing here was tested */
	if (!bench_needs(&v, which != 0, SKIP_UNSUPPORTED,
			 "the device's IOVA window (0x%llx) lies in start table 0 of %llu: no other table to walk "
			 "through",
			 (unsigned long long)w, (unsigned long long)tables))
		return;
	struct dmabuf a = { 0 }, b = { 0 };
	if (!bench_buffer(&v, &a, v.len, v.pg) || !bench_buffer(&v, &b, v.len, v.pg)) {
		report(t, false, "no memory");
		goto out;
	}
	printf("    stage 2 from level %u in %llu concatenated tables (S2SL0 %u): IOVA 0x%llx in table %u, "
	       "0x%llx at the same entry of table 0\n",
	       4 - c->levels, (unsigned long long)tables, (g == 12 ? 2 : 3) - (4 - c->levels), (unsigned long long)w,
	       which, (unsigned long long)w0);
	const char *e = v.io->ops->map(v.io, w, a.phys & ~(v.pg - 1), v.pg, IOMMU_RW, v.pg);
	if (!e && which)
		e = v.io->ops->map(v.io, w0, b.phys & ~(v.pg - 1), v.pg, IOMMU_RW, v.pg);
	report(t, !e && which, "A mapped through table %u, B at the same entry of table 0%s%s", which, e ? ": " : "",
	       e ? e : "");
	if (!e && which) {
		struct dma_result r;
		dmabuf_pattern(&a, 51), dmabuf_pattern(&b, 52);
		bool ok = bench_dma(&v, DMA_FROM_DEVICE, w + (a.phys & (v.pg - 1)), v.len, &r);
		bool in_a = bench_changed(&a, 51), in_b = bench_changed(&b, 52);
		if (!in_a && in_b && bench_on_qemu()) {
			test_skip(t, SKIP_EMULATOR,
				  "the DMA went through table 0's entry, not table %u's: this QEMU's stage-2 walk "
				  "adds the concatenated table's offset and masks it off again, so it reads the first "
				  "table only; the model walks all %llu (model smmuv3-s2)",
				  which, (unsigned long long)tables);
		} else {
			report(t, ok && in_a && !in_b, "the DMA went through table %u to A (%s)", which,
			       in_a   ? "A written"
			       : in_b ? "B written: the unit read table 0"
				      : "neither written");
			test_note(t, "%s: %llu concatenated start tables, table %u walked", v.label,
				  (unsigned long long)tables, which);
		}
		v.io->ops->unmap(v.io, w0, v.pg);
	}
	if (!e)
		v.io->ops->unmap(v.io, w, v.pg);
out:
	bench_teardown(&v);
	dmabuf_free(&a);
	dmabuf_free(&b);
}

/* ---- GBPA: what the SMMU does with DMA while it is off ---------------------- */

void case_smmuv3_gbpa(struct test_ctx *t)
{
	struct env v;
	if (!bench_setup(t, &v, "smmuv3"))
		return;
	struct smmuv3 *s = smmuv3_of(v.io);
	uint32_t g = s->found.gbpa, cr0 = s->found.cr0;
	bool off = !(cr0 & CR0_SMMUEN), abort = g & GBPA_ABORT;
	printf("    as found: CR0 0x%x (SMMUEN %u), GBPA 0x%x: %s while SMMUEN is clear\n", cr0, !off, g,
	       abort ? "DMA aborted" : "DMA bypasses, untranslated");
	report(t, !(g & GBPA_UPDATE), "GBPA.Update clear as found: no update left pending (GBPA 0x%x)", g);
	if (off && !abort) {
		test_finding(t, "the firmware left the SMMU off with GBPA bypass: until an OS enables it, every device "
				"behind it reaches all memory (pre-boot DMA protection would leave GBPA.ABORT set)");
		test_note(t, "%s: off, GBPA bypass as found (finding: no DMA protection before the OS)", v.io->name);
	} else {
		test_note(t, "%s: %s as found", v.io->name,
			  off ? "off with GBPA.ABORT: DMA blocked until an OS enables it" : "enabled by the firmware");
	}
	bench_teardown(&v); /* gives GBPA back as found, read back */
}

/* Not in the default plan: every stream's DMA (the USB stick's too) is
 * aborted for the moment the SMMU is off with GBPA.ABORT. */
void case_smmuv3_gbpa_abort(struct test_ctx *t)
{
	struct env v;
	if (!bench_setup(t, &v, "smmuv3"))
		return;
	struct smmuv3 *s = smmuv3_of(v.io);
	if (!bench_needs(&v, !v.e->nown, SKIP_UNSUPPORTED,
			 "%s fetches its own queues from memory: GBPA.ABORT would abort those too and stop it; run "
			 "with a device under test that has none (edu)",
			 v.e->kind))
		return;
	struct dmabuf a = { 0 }, d = { 0 }, *direct;
	if (!bench_buffer(&v, &a, v.len, v.pg) || !bench_direct_buffer(&v, &a, &d, &direct)) {
		bench_teardown(&v);
		test_skip(t, SKIP_UNSUPPORTED, "no buffer the device reaches untranslated: %s",
			  v.direct_why[0] ? v.direct_why : "no memory");
		dmabuf_free(&a);
		return;
	}
	const char *e = v.io->ops->enable(v.io, false);
	bool lands[2] = { false, false };
	for (int i = 0; !e && i < 2; i++) { /* ABORT, then bypass */
		uint32_t gv = (s->found.gbpa & ~GBPA_ABORT) | (i == 0 ? GBPA_ABORT : 0);
		if ((e = smmuv3_gbpa_set(s, gv)) != NULL)
			break;
		struct dma_result r;
		dmabuf_pattern(direct, 61 + (uint32_t)i);
		bench_dma(&v, DMA_FROM_DEVICE, direct->phys, v.len, &r);
		lands[i] = bench_changed(direct, 61 + (uint32_t)i);
	}
	const char *back = smmuv3_gbpa_set(s, s->found.gbpa), *on = v.io->ops->enable(v.io, true);
	report(t, !e && !back && !on, "SMMUEN cleared, GBPA set to ABORT then bypass, then as found and SMMUEN set%s%s",
	       e || back || on ? ": " : "",
	       e      ? e
	       : back ? back
	       : on   ? on
		      : "");
	if (!e && lands[0] && bench_on_qemu())
		test_skip(t, SKIP_EMULATOR, "the DMA landed while GBPA.ABORT was set: this QEMU ignores GBPA.ABORT");
	else if (!e) {
		report(t, !lands[0], "with SMMUEN clear and GBPA.ABORT the device's write was blocked");
		report(t, lands[1], "with GBPA bypass it landed untranslated at 0x%llx",
		       (unsigned long long)direct->phys);
		test_note(t, "%s: GBPA.ABORT blocks DMA while off (%s), bypass lets it through (%s)", v.io->name,
			  lands[0] ? "no" : "yes", lands[1] ? "yes" : "no");
	}
	bench_teardown(&v);
	dmabuf_free(&a);
	dmabuf_free(&d);
}

const struct test_doc smmuv3_stage_docs[] = {
	{ case_smmuv3_gbpa,
	  "GBPA as the firmware left it, before the first write: Update clear; with the SMMU off and GBPA bypass a "
	  "finding (no DMA protection before the OS); given back as found",
	  "GBPA.Update left set: an update the unit never applied" },
	{ case_smmuv3_gbpa_abort,
	  "with SMMUEN cleared, GBPA.ABORT blocks the device's write to a buffer it reaches untranslated and GBPA "
	  "bypass lets it land; GBPA and SMMUEN then as found (not in the default plan: every stream's DMA is "
	  "aborted meanwhile)",
	  "a write landing under GBPA.ABORT: the SMMU does not protect memory while it is off" },
	{ case_smmuv3_tag_scope,
	  "the device's entry made stale, then the domain invalidation of the next ASID (stage 1), VMID (stage 2) "
	  "or TLBI_NH_ALL of the next VMID (nested): the device's stale entry is still used (scoped), or a finding "
	  "when it went too",
	  "a DMA landing in neither page: the TLB is inconsistent with the tables" },
	{ case_smmuv3_access_flag,
	  "a read-write leaf with its access flag cleared: a device write is refused, an F_ACCESS event at the "
	  "stage of the device's tables is recorded, the buffer unchanged; with the flag set again the write lands",
	  "a write through AF=0 with no event means the SMMU ignores the access flag (an OS relying on it for "
	  "page ageing is misled); no write after AF=1 means the flag's fault is cached" },
	{ case_smmuv3_fault_interrupt,
	  "the SMMU's wired event-queue interrupt (the IORT's GSIV) reaches this CPU's GIC interface after each of "
	  "20 faulting reads, and its global-error interrupt after each of 5 illegal commands, taken by the "
	  "monitor's GIC driver with the CPU's interrupts masked, timed, and the GIC and IRQ_CTRL given back as found "
	  "(on a model: the model's own signal)",
	  "an interrupt that never comes: an OS waiting for the SMMU's faults would never hear of them (not "
	  "applicable without a GICv3, or with no wired interrupt in the IORT)" },
	{ case_smmuv3_s2_concatenated,
	  "stage 2 built with concatenated start tables (smmuv3.s2_concat always): a DMA through an entry of a "
	  "table other than the first lands where that entry says, not where the first table's same entry does",
	  "the DMA landing through the first table: the unit does not walk concatenated tables, and a hypervisor's "
	  "stage 2 (KVM concatenates wherever it saves a level) would send DMA to the wrong place" },
	{ case_smmuv3_nested_faults,
	  "nested: stage 1 maps an IOVA to an IPA the stage-2 identity leaves unmapped: the DMA faults with S2 set "
	  "and that IPA; a read of an IOVA stage 1 does not map faults with S2 clear",
	  "a stage-2 fault reported as stage 1's, or without its IPA: a hypervisor could not tell its own fault "
	  "from its guest's" },
	{ NULL },
};
