/* Group `smmuv3`: the device under test (`set device`, edu or NVMe) behind
 * the Arm SMMUv3 the IORT says covers it, taken over from the firmware for
 * each case and given back after it. The group lists the shared cases
 * (cases.h) with their arguments, run again at each granule and stream
 * table format IDR0/IDR5 offer (through the settings smmuv3.granule and
 * smmuv3.strtab), and SMMUv3's own: the take-over seen in its registers
 * with the bystanders still working, the event queue's decode and
 * overflow, the configuration cache going stale until CFGI_CD, the TLB
 * stale until the right TLBI_NH_VA, range invalidation timed against
 * page by page, each command timed, an illegal command reported and the
 * queue resumed, and stage 2 (which QEMU 7.2 does not emulate). With
 * smmuv3.stage 2 every case runs at stage 2: the same shared cases, the
 * stage-2 invalidation kinds in place of TLBI_NH_*, the STE's S2TTB in
 * place of the CD's TTB0.
 *
 * QEMU 7.2 records one event per 4-byte chunk of a faulting access: the
 * cases count "at least one". */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cases.h"
#include "core/base/macros.h"
#include "core/base/timing.h"
#include "core/monitor/settings.h"
#include "iommu/backend.h"
#include "iommu/models/models.h"
#include "iommu/smmuv3/model.h"
#include "iommu/smmuv3/smmuv3.h"
#include "smmuv3_cases.h"
#include "tests/catalogue/bench.h"
#include "tests/catalogue/catalogue.h"
#include "tests/catalogue/gic.h"

/* The commands of the stage the device translates at, by name and by the
 * invalidation kind that issues them (cmdq.c). */
struct stage_words {
	const char *page_kind, *range_kind, *page_cmd, *domain_cmd, *cfgi_cmd, *ttb;
};

static const struct stage_words *words(const struct env *v)
{
	static const struct stage_words s1 = { "tlbi-va",      "tlbi-va-range", "TLBI_NH_VA",
					       "TLBI_NH_ASID", "CFGI_CD",	"CD.TTB0" },
					s2 = { "tlbi-s2-ipa",	 "tlbi-s2-ipa-range", "TLBI_S2_IPA",
					       "TLBI_S12_VMALL", "CFGI_STE",	      "STE.S2TTB" };
	return smmuv3_of(v->io)->stage == 2 ? &s2 : &s1;
}

/* ---- taking over and the bystanders ------------------------------------- */

static void t_takeover(struct test_ctx *t)
{
	struct env v;
	if (!bench_setup(t, &v, "smmuv3"))
		return;
	struct smmuv3 *s = smmuv3_of(v.io);
	uint32_t ack = regwin_read32(&s->w, SMMU_CR0ACK), cfg = regwin_read32(&s->w, SMMU_STRTAB_BASE_CFG);
	uint64_t base = regwin_read64(&s->w, SMMU_STRTAB_BASE);
	report(t, (ack & (CR0_SMMUEN | CR0_CMDQEN | CR0_EVENTQEN)) == (CR0_SMMUEN | CR0_CMDQEN | CR0_EVENTQEN),
	       "translation and both queues are on (CR0ACK 0x%x)", ack);
	report(t, (base & STRTAB_BASE_ADDR) == (uint64_t)(uintptr_t)s->strtab && (cfg & 0x3f) == s->strtab_log2,
	       "the stream table is ours: %s, 2^%u stream ids (STRTAB_BASE 0x%llx, _CFG 0x%x)",
	       s->two_level ? "2-level" : "linear", s->strtab_log2, (unsigned long long)base, cfg);
	printf("    IDR0 0x%08x IDR1 0x%08x IDR3 0x%08x IDR5 0x%08x: SIDSIZE %u, OAS %u bits, %s granule, %u levels, "
	       "%s%s\n",
	       s->idr0, s->idr1, s->idr3, s->idr5, s->sid_bits, s->oas_bits, smmuv3_granule_name(s->granule_bits),
	       s->levels, s->coherent ? "coherent" : "not coherent (tables cleaned to the point of coherency)",
	       s->ril ? ", range invalidation (RIL)" : "");
	if (s->stage == 2 || s->nested) {
		const struct io_pgtable_cfg *c = s->stage == 2 ? &s->pgcfg : &s->s2cfg;
		printf("    %s: stage 2 of a %u-bit IPA, VMID %u: %u levels from level %u, the start table %s%s\n",
		       v.io->mode, c->addr_bits, s->vmid, c->levels, 4 - c->levels,
		       c->top_extra_bits ? "concatenated" : "single",
		       s->nested ? "; stage 1 through the CD at an IPA" : "");
	}
	printf("    as found: CR0 0x%x CR1 0x%x CR2 0x%x GBPA 0x%x IRQ_CTRL 0x%x STRTAB_BASE 0x%llx\n", s->found.cr0,
	       s->found.cr1, s->found.cr2, s->found.gbpa, s->found.irq_ctrl, (unsigned long long)s->found.strtab_base);
	/* each bystander is reported by bench_bystanders: one that reaches no
	 * RAM untranslated is named and not counted */
	size_t fine, others = bench_bystanders(&v, &fine);
	char by[64];
	test_note(t, "%s taken in %.1f ms; %s stream table; %zu streams bypass; %s", v.io->name,
		  cycles_to_ns(v.t_take) / 1e6, s->two_level ? "2-level" : "linear", s->nstreams,
		  bystanders_said(fine, others, by, sizeof(by)));
	bench_teardown(&v);
}

/* ---- a setting for one case: granules and stream table formats ---------- */

/* The model's driver set up again from the settings (the machine's unit
 * reads them at every open; the model's driver only when attached). */
static void model_driver_reinit(void)
{
	struct dma_engine *e;
	struct smmuv3 *md = smmuv3_model_driver();
	if (!model_smmuv3() || model_unit(&e) != &md->io || md->io.taken)
		return;
	struct regwin w = md->w;
	char name[16];
	snprintf(name, sizeof(name), "%s", md->io.name);
	smmuv3_settings_apply(md);
	smmuv3_init(md, &w, name);
}

/* `inner` run with setting `key` = `value`, then the setting as it was. */
struct with_setting {
	const char *key, *value;
	struct test_case inner;
	void (*check)(struct test_ctx *t, const char *value);
};

static void t_with_setting(struct test_ctx *t)
{
	const struct with_setting *w = t->tc->arg;
	char before[24];
	snprintf(before, sizeof(before), "%s", setting_get(w->key) ? setting_get(w->key) : "auto");
	const char *e = setting_set(w->key, w->value);
	report(t, !e, "%s set to %s%s%s", w->key, w->value, e ? ": " : "", e ? e : "");
	model_driver_reinit();
	if (!e && w->check)
		w->check(t, w->value);
	if (!e && !t->skipped && !t->failures) {
		const struct test_case *outer = t->tc;
		t->tc = &w->inner;
		w->inner.fn(t);
		t->tc = outer;
	}
	setting_set(w->key, before);
	model_driver_reinit();
}

/* The unit opened with the setting is what it asked for: the granule in
 * the context descriptor's walk, the format in STRTAB_BASE_CFG; a unit
 * that does not offer it skips, naming the ID register. */
static void check_choice(struct test_ctx *t, const char *value)
{
	struct env v;
	if (!bench_setup(t, &v, "smmuv3"))
		return;
	struct smmuv3 *s = smmuv3_of(v.io);
	uint32_t cfg = regwin_read32(&s->w, SMMU_STRTAB_BASE_CFG);
	bool is_strtab = strcmp(value, "linear") == 0 || strcmp(value, "2level") == 0;
	if (is_strtab)
		report(t, ((cfg & STRTAB_CFG_FMT_2LVL) != 0) == (strcmp(value, "2level") == 0),
		       "STRTAB_BASE_CFG 0x%x: the %s format", cfg, value);
	else
		report(t, strcmp(smmuv3_granule_name(s->granule_bits), value) == 0, "the walk uses a %s granule",
		       smmuv3_granule_name(s->granule_bits));
	size_t fine, others = bench_bystanders(&v, &fine);
	char by[64];
	printf("    %s: %s\n", s->io.variant, bystanders_said(fine, others, by, sizeof(by)));
	bench_teardown(&v);
}

/* A setting the unit cannot honour makes the open fail: skip, not fail. */
static bool offered(struct test_ctx *t, const char *key, const char *value)
{
	struct dma_engine *e;
	struct iommu *mu = model_unit(&e);
	struct smmuv3 *s = mu == &smmuv3_model_driver()->io ? smmuv3_model_driver() : NULL;
	if (!s)
		return true; /* the machine's: the open says why, bench_setup skips */
	t->model = true;     /* a skip said of the model, as bench_setup would */
	uint32_t need = strcmp(value, "16k") == 0 ? IDR5_GRAN16K : strcmp(value, "64k") == 0 ? IDR5_GRAN64K : 0;
	if (strcmp(key, "smmuv3.granule") == 0 && need && !(s->idr5 & need)) {
		test_skip(t, SKIP_UNSUPPORTED, "IDR5 0x%x offers no %s granule", s->idr5, value);
		return false;
	}
	if (strcmp(value, "2level") == 0 && IDR0_ST_LEVEL(s->idr0) != 1) {
		test_skip(t, SKIP_UNSUPPORTED, "IDR0.ST_LEVEL offers only a linear stream table");
		return false;
	}
	return true;
}

/* QEMU's SMMUv3 (7.2, 10.0.2) reads the stream table as 2-level for the
 * rest of the machine's boot once given one: hw/arm/smmuv3.c sets
 * SMMU_FEATURE_2LVL_STE on a 2-level STRTAB_BASE_CFG, never clears it on a
 * linear one, and smmu_find_ste() walks by the flag (silicon reads FMT as
 * written, 6.3.24). A linear table after that gives C_BAD_STE (README's
 * QEMU defects). This skip knows this program's take-overs only, so the
 * boot test proving linear is `fresh` (tests/boot/smmuv3-linear.test). */
static bool qemu_sticky_2level(struct test_ctx *t, const char *value)
{
	struct dma_engine *e;
	if (!bench_on_qemu() || strcmp(value, "linear") != 0 || model_unit(&e) || !smmuv3_backend_had_2level())
		return false;
	test_skip(t, SKIP_EMULATOR,
		  "QEMU's SMMUv3 (7.2, 10.0) keeps reading the stream table as 2-level once given one in this boot "
		  "(a linear one then fails the device's DMA): linear is proven by a boot with smmuv3.strtab linear");
	return true;
}

static void t_setting_case(struct test_ctx *t)
{
	const struct with_setting *w = t->tc->arg;
	if (offered(t, w->key, w->value) && !qemu_sticky_2level(t, w->value))
		t_with_setting(t);
}

/* ---- the caches ------------------------------------------------------------ */

static const char *inv_kind(struct env *v, const char *name, uint64_t iova, uint64_t size)
{
	size_t k = bench_kind_named(v->io, name);
	return k == (size_t)-1 ? "no such invalidation kind" : v->io->ops->invalidate(v->io, k, iova, size);
}

/* TLBI_NH_VA (TLBI_S2_IPA) of the neighbouring page only: does this one stay cached? */
static const char *inv_neighbour(struct env *v, uint64_t iova, size_t arg)
{
	(void)arg;
	return inv_kind(v, words(v)->page_kind, iova + v->pg, v->pg);
}

static void t_tlbi_precision(struct test_ctx *t)
{
	struct env v;
	if (!bench_setup(t, &v, "smmuv3"))
		return;
	const struct stage_words *w = words(&v);
	struct stale_way way = bench_stale_kind(bench_kind_named(v.io, w->page_kind));
	way.invalidate = inv_neighbour;
	struct stale s;
	if (!bench_stale_precision(&v, &way, &s))
		return;
	report(t, s.after == 'A' || s.after == 'B', "after the neighbour's %s the DMA landed in one page (%c)",
	       w->page_cmd, s.after);
	test_note(t, "%s: %s: the neighbour's %s %s", v.label, s.after == 'A' ? "precise" : "finding", w->page_cmd,
		  s.after == 'A' ? "left this page cached (stale until its own)" : "dropped this page too");
	if (s.after == 'B')
		test_finding(t,
			     "the neighbour's %s dropped this page too (allowed: an invalidation may drop more "
			     "than it names)",
			     w->page_cmd);
	bench_teardown(&v);
}

/* The context descriptor's TTB0 (at stage 2 the STE's S2TTB) pointed at a
 * copy of the tables in which the IOVA leads to B: the unit may keep the
 * CD (STE) it cached (4.3) and the translations of the ASID (VMID). With
 * TLBI_NH_ASID (TLBI_S12_VMALL) alone the cached configuration still
 * names the old tables (a finding, as the spec allows); with CFGI_CD
 * (CFGI_STE) and the TLBI the DMA must reach B. */
static const char *fork_cd(struct env *v, uint64_t iova, uint64_t phys, size_t arg)
{
	(void)arg;
	struct smmuv3 *s = smmuv3_of(v->io);
	const char *e = smmuv3_ttb_unfork(s);
	return e ? e : smmuv3_ttb_fork(s, iova, phys);
}

static const char *tlbi_domain_only(struct env *v, uint64_t iova, size_t arg)
{
	(void)iova, (void)arg;
	return smmuv3_tlbi_domain(smmuv3_of(v->io));
}

static const char *cfgi_and_tlbi(struct env *v, uint64_t iova, size_t arg)
{
	(void)iova, (void)arg;
	struct smmuv3 *s = smmuv3_of(v->io);
	const char *e = smmuv3_cfgi_ttb(s);
	return e ? e : smmuv3_tlbi_domain(s);
}

static void t_stale_config(struct test_ctx *t)
{
	struct env v;
	if (!bench_setup(t, &v, "smmuv3"))
		return;
	const struct stale_way tlbi_only = { fork_cd, tlbi_domain_only, 0 }, both = { fork_cd, cfgi_and_tlbi, 0 };
	const struct stage_words *w = words(&v);
	struct stale s1, s2;
	bench_stale(&v, &tlbi_only, &s1);
	const char *e = smmuv3_ttb_unfork(smmuv3_of(v.io));
	report(t, !s1.err && !e, "%s switched, then %s alone%s%s", w->ttb, w->domain_cmd, s1.err || e ? ": " : "",
	       s1.err ? s1.err
	       : e    ? e
		      : "");
	bench_stale(&v, &both, &s2);
	e = smmuv3_ttb_unfork(smmuv3_of(v.io));
	report(t, !s2.err && !e && s2.after == 'B', "after %s and %s the DMA reached the new tables (%c)", w->cfgi_cmd,
	       w->domain_cmd, s2.after ? s2.after : '-');
	if (!s1.err) {
		printf(
		    "    finding: with %s changed and nothing invalidated the DMA reached %c; after %s alone %c (%s)\n",
		    w->ttb, s1.before, w->domain_cmd, s1.after,
		    s1.after == 'A' ? "the cached configuration still named the old tables"
				    : "the unit read the configuration again");
		test_note(t, "%s: %s %s%s", v.label,
			  s1.after == 'A' ? "stale configuration: the old tables used until"
					  : "the new configuration was read without",
			  w->cfgi_cmd, s1.after == 'A' ? " (finding)" : "");
		if (s1.after == 'A')
			test_finding(t, "the cached configuration named the old tables until %s (the spec allows it)",
				     w->cfgi_cmd);
	}
	bench_teardown(&v);
}

/* TLBI_NH_VA of 64 pages: page by page, and in the range form (IDR3.RIL),
 * each timed end to end. */
#define RANGE_PAGES 64

static const char *inv_pages(struct env *v, uint64_t iova, size_t arg)
{
	(void)arg;
	return inv_kind(v, words(v)->page_kind, iova, RANGE_PAGES * v->pg);
}

static const char *inv_range(struct env *v, uint64_t iova, size_t arg)
{
	(void)arg;
	return inv_kind(v, words(v)->range_kind, iova, RANGE_PAGES * v->pg);
}

static void t_range_vs_pages(struct test_ctx *t)
{
	struct env v;
	if (!bench_setup(t, &v, "smmuv3"))
		return;
	if (!bench_needs(&v, smmuv3_of(v.io)->ril, SKIP_UNSUPPORTED, "%s has no range invalidation (IDR3.RIL clear)",
			 v.io->name))
		return;
	const char *cmd = words(&v)->page_cmd;
	char variant[2][32], note[2][80];
	snprintf(variant[0], sizeof(variant[0]), "%s-64-pages", words(&v)->page_kind);
	snprintf(variant[1], sizeof(variant[1]), "%s-64-pages", words(&v)->range_kind);
	snprintf(note[0], sizeof(note[0]), "64 %s commands, one per page, then CMD_SYNC", cmd);
	snprintf(note[1], sizeof(note[1]), "one %s in the range form (NUM, SCALE, TG), then CMD_SYNC", cmd);
	const struct {
		const char *variant, *note;
		const char *(*run)(struct env *v, uint64_t iova, size_t arg);
	} way[2] = { { variant[0], note[0], inv_pages }, { variant[1], note[1], inv_range } };
	uint64_t w0 = bench_window(&v, RANGE_PAGES * v.pg, 0);
	for (int i = 0; i < 2; i++) {
		const struct stale_way sw = { NULL, way[i].run, 0 };
		bench_time_invalidation(&v, &sw, w0, way[i].variant, NULL, way[i].note);
	}
	test_note(t, "%s: 64 pages invalidated page by page and as one range, both timed", v.label);
	bench_teardown(&v);
}

/* ---- the command queue ----------------------------------------------------- */

static const char *run_sync(struct env *v, uint64_t iova, size_t arg)
{
	(void)iova, (void)arg;
	return smmuv3_sync(smmuv3_of(v->io));
}

static const char *run_cfgi_ste(struct env *v, uint64_t iova, size_t arg)
{
	(void)iova, (void)arg;
	return smmuv3_cfgi_ste(smmuv3_of(v->io), smmuv3_dut_sid(v));
}

static const char *run_cfgi_cd(struct env *v, uint64_t iova, size_t arg)
{
	(void)iova, (void)arg;
	return smmuv3_cfgi_cd(smmuv3_of(v->io), smmuv3_dut_sid(v));
}

static const char *run_cfgi_all(struct env *v, uint64_t iova, size_t arg)
{
	(void)iova, (void)arg;
	return smmuv3_cfgi_all(smmuv3_of(v->io));
}

static const struct bench_cmd sync_alone = { "sync", "CMD_SYNC alone, CONS polled until it reaches PROD", run_sync },
			      cfgi_ste = { "cfgi-ste", "CFGI_STE of the device's stream, then CMD_SYNC", run_cfgi_ste },
			      cfgi_cd = { "cfgi-cd", "CFGI_CD of the device's stream, then CMD_SYNC", run_cfgi_cd },
			      cfgi_all = { "cfgi-all", "CFGI_ALL (CFGI_STE_RANGE, Range 31), then CMD_SYNC",
					   run_cfgi_all };

static void t_command_timed(struct test_ctx *t)
{
	struct env v;
	if (!bench_setup(t, &v, "smmuv3"))
		return;
	bench_time_cmd(&v, t->tc->arg);
	bench_teardown(&v);
}

/* Opcode 0: CERROR_ILL with GERROR.CMDQ_ERR (7.1); the driver skips the
 * command, acknowledges through GERRORN, and the queue runs on. */
static void t_illegal_command(struct test_ctx *t)
{
	struct env v;
	if (!bench_setup(t, &v, "smmuv3"))
		return;
	struct smmuv3 *s = smmuv3_of(v.io);
	bool reported;
	const char *e = smmuv3_illegal_command_probe(s, &reported);
	report(t, reported, "the unit reported %s (CMDQ_CONS.ERR %u, %u command errors so far)",
	       s->last_cerror == 1 ? "CERROR_ILL" : "something else", s->last_cerror, s->cmd_errors);
	report(t, !e, "after it was skipped a CMD_SYNC completes%s%s", e ? ": " : "", e ? e : "");
	uint32_t g = regwin_read32(&s->w, SMMU_GERROR) ^ regwin_read32(&s->w, SMMU_GERRORN);
	report(t, !(g & GERROR_CMDQ_ERR), "GERROR.CMDQ_ERR acknowledged (GERROR ^ GERRORN 0x%x)", g);
	size_t k = bench_kind_named(v.io, words(&v)->page_kind);
	struct stale st = { .err = "no per-page invalidation" };
	struct stale_way way = bench_stale_kind(k);
	if (k != (size_t)-1)
		bench_stale(&v, &way, &st);
	report(t, !st.err && st.after == 'B', "and an invalidation still takes effect (%s)",
	       st.err		 ? st.err
	       : st.after == 'B' ? "the DMA reached the new page"
				 : "the DMA missed the new page");
	test_note(t, "illegal command: CERROR_ILL reported, skipped, the queue resumed");
	bench_teardown(&v);
}

/* ---- the group ----------------------------------------------------------- */

static const struct iommu_case_arg on_smmuv3 = { "smmuv3" };
static const struct iommu_case_arg leaf_4k = { "smmuv3", 1ull << 12 }, leaf_2m = { "smmuv3", 1ull << 21 },
				   leaf_1g = { "smmuv3", 1ull << 30 };
static const struct iommu_case_arg leaf_16k = { "smmuv3", 1ull << 14 }, leaf_32m = { "smmuv3", 1ull << 25 },
				   leaf_64k = { "smmuv3", 1ull << 16 }, leaf_512m = { "smmuv3", 1ull << 29 };
static const struct iommu_case_arg tlbi_va = { "smmuv3", .kind = "tlbi-va" },
				   tlbi_va_range = { "smmuv3", .kind = "tlbi-va-range" },
				   tlbi_asid = { "smmuv3", .kind = "tlbi-asid" },
				   tlbi_all = { "smmuv3", .kind = "tlbi-all" },
				   tlbi_s2_ipa = { "smmuv3", .kind = "tlbi-s2-ipa" },
				   tlbi_s2_ipa_range = { "smmuv3", .kind = "tlbi-s2-ipa-range" },
				   tlbi_s12_vmall = { "smmuv3", .kind = "tlbi-s12-vmall" };

#define WITH(name_, key_, value_, fn_, arg_, check_)                 \
	{                                                            \
		key_, value_, { name_, "", fn_, true, arg_ }, check_ \
	}
static const struct with_setting
    g16k = WITH("smmuv3.granule_16k", "smmuv3.granule", "16k", case_translate, &leaf_16k, check_choice),
    g16k_block = WITH("smmuv3.granule_16k_32m", "smmuv3.granule", "16k", case_translate, &leaf_32m, NULL),
    g64k = WITH("smmuv3.granule_64k", "smmuv3.granule", "64k", case_translate, &leaf_64k, check_choice),
    g64k_block = WITH("smmuv3.granule_64k_512m", "smmuv3.granule", "64k", case_translate, &leaf_512m, NULL),
    g64k_ro = WITH("smmuv3.granule_64k_read_only", "smmuv3.granule", "64k", case_write_read_only, &on_smmuv3, NULL),
    st_linear = WITH("smmuv3.strtab_linear", "smmuv3.strtab", "linear", case_translate, &on_smmuv3, check_choice),
    st_2level = WITH("smmuv3.strtab_2level", "smmuv3.strtab", "2level", case_translate, &on_smmuv3, check_choice);

/* ---- the modes: stage 2 and nested ------------------------------------------ */

/* `inner` with smmuv3.stage = the mode's value ("2", "nested"), where
 * IDR0 offers it: a unit without stage 2 (QEMU 7.2's) does not apply. */
static void t_in_mode(struct test_ctx *t)
{
	const struct with_setting *w = t->tc->arg;
	bool nested = strcmp(w->value, "nested") == 0;
	struct dma_engine *e;
	struct iommu *mu = model_unit(&e);
	bool on_model = mu == &smmuv3_model_driver()->io;
	uint32_t idr0;
	if (on_model) {
		idr0 = smmuv3_model_driver()->idr0;
		t->model = true;
	} else {
		struct env v;
		if (!bench_setup(t, &v, "smmuv3"))
			return;
		idr0 = smmuv3_of(v.io)->idr0;
		bench_teardown(&v);
	}
	bool s1 = idr0 & IDR0_S1P, s2 = idr0 & IDR0_S2P;
	if (!s2 || (nested && !s1)) {
		test_skip(t, SKIP_UNSUPPORTED, "IDR0 0x%08x: %s%s", idr0,
			  !s2 ? "S2P clear, this SMMU has no stage 2" : "S1P clear, no stage 1 to nest",
			  !s2 && on_model ? " (this model kind is stage 1 only, as QEMU's before 10.0)"
			  : !s2 && bench_on_qemu()
			      ? " (QEMU's SMMUv3 offers stage 2 from 10.0 on, on virt-10.0 and later machines)"
			      : "");
		return;
	}
	t_with_setting(t);
}

/* The cases every mode runs, named smmuv3.<p>.<case>, with smmuv3.stage
 * set to `value` around each. */
#define IN_MODE(p, value, c, fn, arg)                                                   \
	static const struct with_setting p##_##c = {                                    \
		"smmuv3.stage", value, { "smmuv3." #p "." #c, "", fn, true, arg }, NULL \
	}
#define SMMUV3_MODE_ARGS(p, value)                                                      \
	IN_MODE(p, value, takeover, t_takeover, NULL);                                  \
	IN_MODE(p, value, translate_4k, case_translate, &leaf_4k);                      \
	IN_MODE(p, value, translate_2m, case_translate, &leaf_2m);                      \
	IN_MODE(p, value, translate_1g, case_translate, &leaf_1g);                      \
	IN_MODE(p, value, granule_16k, t_setting_case, &g16k);                          \
	IN_MODE(p, value, granule_64k, t_setting_case, &g64k);                          \
	IN_MODE(p, value, granule_64k_512m, t_setting_case, &g64k_block);               \
	IN_MODE(p, value, write_read_only, case_write_read_only, &on_smmuv3);           \
	IN_MODE(p, value, read_not_present, case_read_not_present, &on_smmuv3);         \
	IN_MODE(p, value, event_decode, case_smmuv3_event_decode, NULL);                \
	IN_MODE(p, value, access_flag, case_smmuv3_access_flag, NULL);                  \
	IN_MODE(p, value, stale_tlb, case_stale, &on_smmuv3);                           \
	IN_MODE(p, value, tlbi_precision, t_tlbi_precision, NULL);                      \
	IN_MODE(p, value, tag_scope, case_smmuv3_tag_scope, NULL);                      \
	IN_MODE(p, value, stale_config, t_stale_config, NULL);                          \
	IN_MODE(p, value, range_vs_pages, t_range_vs_pages, NULL);                      \
	IN_MODE(p, value, invalidate_tlbi_s12_vmall, case_invalidate, &tlbi_s12_vmall); \
	IN_MODE(p, value, invalidate_tlbi_all, case_invalidate, &tlbi_all);             \
	IN_MODE(p, value, latency, case_latency, &on_smmuv3);                           \
	IN_MODE(p, value, map_cost, case_map_cost, &on_smmuv3)
#define MODE_CASE(p, c, words, what)                                            \
	{                                                                       \
		"smmuv3." #p "." #c, words ": " what, t_in_mode, true, &p##_##c \
	}
#define SMMUV3_MODE_CASES(p, words)                                                                                   \
	MODE_CASE(p, takeover, words, "take-over, bystanders bypassing, given back as found"),                        \
	    MODE_CASE(p, translate_4k, words, "DMA both ways through 4 KiB pages"),                                   \
	    MODE_CASE(p, translate_2m, words, "DMA both ways through a 2 MiB block"),                                 \
	    MODE_CASE(p, translate_1g, words, "DMA both ways through a 1 GiB block"),                                 \
	    MODE_CASE(p, granule_16k, words, "the 16K granule"), MODE_CASE(p, granule_64k, words, "the 64K granule"), \
	    MODE_CASE(p, granule_64k_512m, words, "the 64K granule: a 512 MiB block"),                                \
	    MODE_CASE(p, write_read_only, words, "a write to a read-only page: F_PERMISSION, memory unchanged"),      \
	    MODE_CASE(p, read_not_present, words, "a read of an unmapped IOVA: F_TRANSLATION"),                       \
	    MODE_CASE(p, event_decode, words, "F_PERMISSION and F_TRANSLATION decoded (>= 1 each)"),                  \
	    MODE_CASE(p, access_flag, words, "a leaf with AF=0: F_ACCESS at its stage, nothing written"),             \
	    MODE_CASE(p, stale_tlb, words, "a mapping repointed without invalidating: stale? (finding)"),             \
	    MODE_CASE(p, tlbi_precision, words, "the neighbouring page's invalidation: this one cached? (finding)"),  \
	    MODE_CASE(p, tag_scope, words, "another VMID's invalidation leaves the device's entry cached"),           \
	    MODE_CASE(p, stale_config, words, "the tables' pointer switched: old tables until CFGI (finding)"),       \
	    MODE_CASE(p, range_vs_pages, words, "64 pages: page by page against the range form, timed"),              \
	    MODE_CASE(p, invalidate_tlbi_s12_vmall, words, "TLBI_S12_VMALL of the device's VMID"),                    \
	    MODE_CASE(p, invalidate_tlbi_all, words, "TLBI_NSNH_ALL"),                                                \
	    MODE_CASE(p, latency, words, "DMA latency: off, bypass, warm and cold TLB"),                              \
	    MODE_CASE(p, map_cost, words, "CPU cycles per page to map and to unmap")

static const struct with_setting concat_64k_inner = WITH("smmuv3.s2.concatenated_64k", "smmuv3.granule", "64k",
							 case_smmuv3_s2_concatenated, NULL, NULL),
				 concat_16k_inner = WITH("smmuv3.s2.concatenated_16k", "smmuv3.granule", "16k",
							 case_smmuv3_s2_concatenated, NULL, NULL),
				 concat_64k = WITH("smmuv3.s2.concatenated_64k", "smmuv3.s2_concat", "always",
						   t_setting_case, &concat_64k_inner, NULL),
				 concat_16k = WITH("smmuv3.s2.concatenated_16k", "smmuv3.s2_concat", "always",
						   t_setting_case, &concat_16k_inner, NULL);
SMMUV3_MODE_ARGS(s2, "2");
IN_MODE(s2, "2", concatenated_64k, t_setting_case, &concat_64k);
IN_MODE(s2, "2", concatenated_16k, t_setting_case, &concat_16k);
IN_MODE(s2, "2", invalidate_tlbi_s2_ipa, case_invalidate, &tlbi_s2_ipa);
IN_MODE(s2, "2", invalidate_tlbi_s2_ipa_range, case_invalidate, &tlbi_s2_ipa_range);
SMMUV3_MODE_ARGS(nest, "nested");
IN_MODE(nest, "nested", invalidate_tlbi_va, case_invalidate, &tlbi_va);
IN_MODE(nest, "nested", invalidate_tlbi_va_range, case_invalidate, &tlbi_va_range);
IN_MODE(nest, "nested", invalidate_tlbi_asid, case_invalidate, &tlbi_asid);
IN_MODE(nest, "nested", faults, case_smmuv3_nested_faults, NULL);

static const struct test_case cases[] = {
	{ "smmuv3.takeover", "take the SMMU over; bystander devices keep DMAing; give it back as found", t_takeover,
	  true },
	{ "smmuv3.translate_4k", "DMA both ways through 4 KiB pages at an IOVA far from the page", case_translate, true,
	  &leaf_4k },
	{ "smmuv3.translate_2m", "DMA both ways through a 2 MiB block (4K granule, level 2)", case_translate, true,
	  &leaf_2m },
	{ "smmuv3.translate_1g", "DMA both ways through a 1 GiB block (4K granule, level 1)", case_translate, true,
	  &leaf_1g },
	{ "smmuv3.granule_16k", "the 16K granule (smmuv3.granule 16k): DMA through 16 KiB pages", t_setting_case, true,
	  &g16k },
	{ "smmuv3.granule_16k_32m", "the 16K granule: DMA through a 32 MiB block", t_setting_case, true, &g16k_block },
	{ "smmuv3.granule_64k", "the 64K granule (smmuv3.granule 64k): DMA through 64 KiB pages", t_setting_case, true,
	  &g64k },
	{ "smmuv3.granule_64k_512m", "the 64K granule: DMA through a 512 MiB block", t_setting_case, true,
	  &g64k_block },
	{ "smmuv3.granule_64k_read_only", "the 64K granule: a write to a read-only page faults (AP[2])", t_setting_case,
	  true, &g64k_ro },
	{ "smmuv3.strtab_linear", "a linear stream table (smmuv3.strtab linear): bystanders bypass, DMA translates",
	  t_setting_case, true, &st_linear },
	{ "smmuv3.strtab_2level", "a 2-level stream table (smmuv3.strtab 2level): bystanders bypass, DMA translates",
	  t_setting_case, true, &st_2level },
	{ "smmuv3.write_read_only", "a device write to a read-only page: memory unchanged, F_PERMISSION recorded",
	  case_write_read_only, true, &on_smmuv3 },
	{ "smmuv3.read_not_present", "a device read of an unmapped IOVA: F_TRANSLATION recorded", case_read_not_present,
	  true, &on_smmuv3 },
	{ "smmuv3.event_decode", "F_PERMISSION and F_TRANSLATION decoded: stream id, page, direction (>= 1 each)",
	  case_smmuv3_event_decode, true },
	{ "smmuv3.event_overflow", "more forbidden reads than the event queue holds: the loss reported (OVFLG)",
	  case_smmuv3_event_overflow, true },
	{ "smmuv3.stale_tlb", "repoint a mapping without invalidating: is the stale translation used? (finding)",
	  case_stale, true, &on_smmuv3 },
	{ "smmuv3.tlbi_precision", "TLBI_NH_VA of the neighbouring page: does this one stay cached? (finding)",
	  t_tlbi_precision, true },
	{ "smmuv3.stale_config", "CD.TTB0 switched: the old tables used until CFGI_CD (finding), then the new",
	  t_stale_config, true },
	{ "smmuv3.invalidate_tlbi_va", "TLBI_NH_VA of one page: DMA reaches the new page", case_invalidate, true,
	  &tlbi_va },
	{ "smmuv3.invalidate_tlbi_va_range", "TLBI_NH_VA in the range form (IDR3.RIL)", case_invalidate, true,
	  &tlbi_va_range },
	{ "smmuv3.invalidate_tlbi_asid", "TLBI_NH_ASID of the device's ASID", case_invalidate, true, &tlbi_asid },
	{ "smmuv3.invalidate_tlbi_all", "TLBI_NSNH_ALL", case_invalidate, true, &tlbi_all },
	{ "smmuv3.range_vs_pages", "TLBI_NH_VA of 64 pages: page by page against the range form, timed",
	  t_range_vs_pages, true },
	{ "smmuv3.sync", "CMD_SYNC alone: CONS reaches PROD every time, timed", t_command_timed, true, &sync_alone },
	{ "smmuv3.cfgi_ste", "CFGI_STE of the device's stream, timed", t_command_timed, true, &cfgi_ste },
	{ "smmuv3.cfgi_cd", "CFGI_CD of the device's stream, timed", t_command_timed, true, &cfgi_cd },
	{ "smmuv3.cfgi_all", "CFGI_ALL, timed", t_command_timed, true, &cfgi_all },
	{ "smmuv3.illegal_command", "an illegal command: CERROR_ILL reported, skipped, the queue resumes",
	  t_illegal_command, true },
	{ "smmuv3.latency", "DMA latency: translation off, bypass, warm and cold TLB", case_latency, true, &on_smmuv3 },
	{ "smmuv3.map_cost", "CPU cycles per page to map and to unmap", case_map_cost, true, &on_smmuv3 },
	{ "smmuv3.access_flag", "a leaf with AF=0: F_ACCESS at stage 1, nothing written", case_smmuv3_access_flag,
	  true },
	{ "smmuv3.tag_scope", "TLBI_NH_ASID of another ASID leaves the device's entry cached", case_smmuv3_tag_scope,
	  true },
	{ "smmuv3.gic_discover", "the MADT's GIC: distributor, redistributors, CPU interfaces, ITSs; this CPU's",
	  case_gic_discover, true },
	{ "smmuv3.gic_sgi", "an SGI to this CPU through the monitor's GIC driver: pending, acknowledged, timed",
	  case_gic_sgi, true },
	{ "smmuv3.fault_interrupt", "the event-queue and global-error interrupts through the GIC, timed",
	  case_smmuv3_fault_interrupt, true },
	{ "smmuv3.gbpa", "GBPA as the firmware left it: abort or bypass while the SMMU is off", case_smmuv3_gbpa,
	  true },
	{ "smmuv3.gbpa_abort", "GBPA.ABORT blocks DMA while SMMUEN is clear, bypass lets it through (every stream)",
	  case_smmuv3_gbpa_abort, false },
	/* stage 2 (STE.Config 0b110) and nested (0b111): every case again */
	SMMUV3_MODE_CASES(s2, "stage 2"),
	MODE_CASE(s2, invalidate_tlbi_s2_ipa, "stage 2", "TLBI_S2_IPA of one page: DMA reaches the new page"),
	MODE_CASE(s2, invalidate_tlbi_s2_ipa_range, "stage 2", "TLBI_S2_IPA in the range form (IDR3.RIL)"),
	MODE_CASE(s2, concatenated_64k, "stage 2", "64K, concatenated start tables: a DMA through the last one"),
	MODE_CASE(s2, concatenated_16k, "stage 2", "16K, concatenated start tables: a DMA through the last one"),
	SMMUV3_MODE_CASES(nest, "nested"),
	MODE_CASE(nest, invalidate_tlbi_va, "nested", "TLBI_NH_VA within the VMID: DMA reaches the new page"),
	MODE_CASE(nest, invalidate_tlbi_va_range, "nested", "TLBI_NH_VA in the range form (IDR3.RIL)"),
	MODE_CASE(nest, invalidate_tlbi_asid, "nested", "TLBI_NH_ASID within the VMID"),
	MODE_CASE(nest, faults, "nested", "a stage-2 fault says S2 and the IPA, a stage-1 fault says neither"),
	/* the architecture checks: the SMMUs as found against the CPU, the IORT, a claimed level */
	SMMUV3_ARCH(SMMUV3_ARCH_CASE)
};

static const struct test_doc docs[] = {
	{ t_takeover,
	  "the SMMUv3 in front of the device under test, as the firmware left it, is taken over: a stream "
	  "table, command and event queues of the monitor's, the device's stream translating at stage 1 (or 2), "
	  "every other stream the IORT routes through it in bypass; the bystanders still DMA, and the SMMU is "
	  "given back with CR0, the queue and table bases and GBPA as found, read back",
	  "a refusal names what the firmware left (SMMUEN set, a queue it owns); a bystander that stops working "
	  "or a register that differs after give-back means the machine was not left as found" },
	{ t_setting_case,
	  "with the case's setting (a 16K or 64K granule, a block of that granule, a linear or 2-level stream "
	  "table) the device's DMA translates through tables built that way, bystanders still bypass, and the "
	  "setting is restored after; cases whose granule or table format the SMMU does not offer do not apply",
	  "wrong bytes or a fault: the SMMU does not walk the granule or stream table format as the monitor "
	  "built it (IDR0.ST_LEVEL, IDR5's granules), or the tables are wrong" },
	{ case_smmuv3_event_decode,
	  "a forbidden write and a read of an unmapped IOVA each give at least one event: F_PERMISSION and "
	  "F_TRANSLATION, decoded with the stream id, the page and the direction the DMA had",
	  "no event, or one naming another stream, page or direction: faults on this SMMU cannot be traced to "
	  "the device that made them" },
	{ case_smmuv3_event_overflow,
	  "more forbidden reads than the event queue holds: the SMMU reports the loss (EVENTQ_PROD.OVFLG "
	  "toggled), the monitor acknowledges it, and events are queued again",
	  "events dropped without the overflow flag mean a driver cannot know it missed faults (QEMU's SMMUv3 "
	  "does this: a skip there, saying so)" },
	{ t_tlbi_precision,
	  "TLBI_NH_VA of the neighbouring page only: whether this page stays cached (precise, stale until its "
	  "own invalidation) or is dropped too (a finding), recorded",
	  "a DMA that lands in neither page means the TLB is inconsistent with the tables" },
	{ t_stale_config,
	  "the context descriptor's TTB0 switched to new tables without invalidation: whether the SMMU still "
	  "uses the old tables (a cached configuration, a finding) is recorded; after CFGI_CD and TLBI the DMA "
	  "reaches the new tables",
	  "a DMA through the old tables after CFGI_CD and TLBI means the configuration cache ignores them: an OS "
	  "switching a device's address space would leave the old one live" },
	{ t_range_vs_pages,
	  "64 pages invalidated page by page with TLBI_NH_VA and at once with its range form (IDR3.RIL): both "
	  "complete and both make the repointed mappings take effect, each timed",
	  "a page still stale after either form means that form drops less than it names" },
	{ t_command_timed,
	  "the case's command (CMD_SYNC alone, CFGI_STE, CFGI_CD, CFGI_ALL) completes within its deadline every "
	  "time, CONS reaching PROD, timed",
	  "a command queue that never drains (named with its deadline) or reports CERROR: invalidation through "
	  "this SMMU cannot be relied on" },
	{ t_illegal_command,
	  "an illegal command in the queue: the SMMU reports CERROR_ILL in GERROR and CMDQ_CONS, the monitor "
	  "skips it and acknowledges the error, and the queue then runs a valid command",
	  "no error (the SMMU ran what it should refuse), or a queue that stays stopped: a driver could not "
	  "recover from one bad command" },
	{ t_in_mode,
	  "with the mode's smmuv3.stage (2: STE.Config 0b110, S2TTB's tables; nested: 0b111, the CD and stage 1's "
	  "tables at IPAs behind a stage-2 identity) the case passes as it does at stage 1, with the mode's "
	  "commands (TLBI_S2_IPA and TLBI_S12_VMALL by VMID at stage 2, TLBI_NH_* within the VMID nested); the "
	  "setting restored after",
	  "the case's own failure, in the mode: wrong bytes, a fault on an allowed access, a stale entry after the "
	  "mode's invalidation, or a fault at the wrong stage (not applicable where IDR0 lacks the stage)" },
	{ NULL },
};

const struct test_group smmuv3_group = {
	.name = "smmuv3",
	.summary = "Arm SMMUv3: stage 1, 2 and nested at each granule, both stream tables, events, interrupts, caches, "
		   "commands",
	.cases = cases,
	.n = ARRAY_SIZE(cases),
	.applies = bench_applies,
	.docs = (const struct test_doc *const[]){ docs, smmuv3_stage_docs, smmuv3_arch_docs, gic_docs,
						  iommu_shared_docs, iommu_ir_docs, NULL },
};
