/* Group `vtd`: the device under test (`set device`, edu or NVMe) behind the
 * machine's VT-d unit that covers it, taken over from the firmware for
 * each case and given back after it. The group lists the shared cases
 * (cases.h) with their arguments, and VT-d's own: the take-over seen in
 * its registers with the bystanders still working, the context cache
 * (stale entry, invalidation by register and through the queue) and the
 * invalidation queue's error (IQE) recovered. With `model vtd` attached
 * the group runs on the VT-d register model instead (the model's engine
 * as the device), where interrupt faults are recorded and the interrupt
 * entry cache is kept: what QEMU 7.2's VT-d cannot show. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cases.h"
#include "core/base/macros.h"
#include "core/base/timing.h"
#include "iommu/backend.h"
#include "iommu/machine.h"
#include "iommu/models/models.h"
#include "iommu/vtd/model.h"
#include "iommu/vtd/vtd.h"
#include "ir.h"
#include "tests/catalogue/bench.h"
#include "tests/catalogue/catalogue.h"

static struct vtd *vtd_of(struct iommu *io)
{
	return container_of(io, struct vtd, io);
}

/* The bench in the mode the case's argument names (NULL: legacy, or what
 * vtd.mode says). */
static bool setup(struct test_ctx *t, struct env *v)
{
	const struct iommu_case_arg *a = t->tc->arg;
	return bench_setup_mode(t, v, "vtd", a ? a->mode : NULL);
}

/* ---- taking over and the bystanders ------------------------------------- */

static void t_takeover(struct test_ctx *t)
{
	struct env v;
	if (!setup(t, &v))
		return;
	struct vtd *vt = vtd_of(v.io);
	uint32_t gsts = regwin_read32(&vt->w, VTD_REG_GSTS);
	report(t, (gsts & VTD_GCMD_TE) != 0, "translation is on (GSTS 0x%08x)", gsts);
	if (vt->live) /* the firmware's tables stay latched: the device's entries changed in them */
		report(t, regwin_read64(&vt->w, VTD_REG_RTADDR) == vt->found.rtaddr && vt->npatch > 0,
		       "the root table is still the firmware's (RTADDR 0x%llx), %zu of its entries changed for the "
		       "device and saved",
		       (unsigned long long)vt->found.rtaddr, vt->npatch);
	else
		report(t, regwin_read64(&vt->w, VTD_REG_RTADDR) == vtd_root_value(vt),
		       "the root table is ours (RTADDR 0x%llx, TTM %s)", (unsigned long long)vtd_root_value(vt),
		       vt->scalable ? "01 scalable" : "00 legacy");
	if (vt->scalable) {
		/* the take-over's invalidations ran through it: 256-bit
		 * descriptors work; QEMU 7.2 honours IQA.DW but reads it back
		 * clear, which is said, not failed */
		uint64_t iqa = regwin_read64(&vt->w, VTD_REG_IQA);
		report(t, (gsts & VTD_GSTS_QIES) && vt->dw,
		       "the queue is on in 256-bit descriptors (IQA.DW written), as scalable mode requires, and its "
		       "waits complete");
		if (!(iqa & VTD_IQA_DW))
			printf("    IQA reads back 0x%llx: DW clear although the unit runs 256-bit descriptors\n",
			       (unsigned long long)iqa);
		printf("    %s: RID_PASID %u, PASID directory of %u entries (PDTS %u), device under test through "
		       "PGTT %s\n",
		       vtd_mode_names[vt->mode], vt->rid_pasid, 1u << (vt->pdts + 7), vt->pdts,
		       vt->mode == VTD_MODE_FS	 ? "001 (first stage)"
		       : vt->mode == VTD_MODE_SS ? "010 (second stage)"
						 : "011 (nested)");
	}
	printf("    taken over in %.2f ms: %u-level walk, bystanders %s, DMA %s, fault interrupt %s\n",
	       cycles_to_ns(v.t_take) / 1e6, vt->levels,
	       vt->live		   ? "in the firmware's domains"
	       : vt->bystanders_pt ? "passed through"
				   : "in an identity domain",
	       vt->coherent ? "coherent"
			    : "not coherent "
			      "(table writes flushed)",
	       v.io->irq ? "on" : "off (polled)");
	if (!vt->bystanders_pt)
		printf("    identity domain over [0, 0x%llx) in the largest leaves\n",
		       (unsigned long long)vt->ident_top);
	size_t fine, others = bench_bystanders(&v, &fine);
	char by[64];
	test_note(t, "%s taken in %.1f ms; %s", v.io->name, cycles_to_ns(v.t_take) / 1e6,
		  bystanders_said(fine, others, by, sizeof(by)));
	bench_teardown(&v);
}

/* ---- the context cache ------------------------------------------------- */

/* The device moved to a second domain in which the IOVA leads to B, by
 * rewriting its context entry without a context-cache invalidation (the
 * old domain's IOTLB is invalidated: only a cached context entry can still
 * lead to A). */
static const char *context_swap(struct env *v, uint64_t iova, uint64_t phys, size_t arg)
{
	(void)arg;
	return vtd_context_swap(vtd_of(v->io), iova, phys, v->e->own, v->e->nown);
}

/* Device-selective context-cache invalidation, then the old domain's IOTLB;
 * `queued`: through the queue, else by register (CCMD). */
static const char *context_invalidate(struct env *v, uint64_t iova, size_t queued)
{
	(void)iova;
	return vtd_context_invalidate(vtd_of(v->io), queued != 0);
}

static void t_stale_context(struct test_ctx *t)
{
	struct env v;
	if (!setup(t, &v))
		return;
	const struct stale_way way = { context_swap, NULL, 0 };
	bench_stale_finding(&v, &way, "move the device to a domain mapping B (IOTLB invalidated, context cache not)",
			    "stale context entry");
	bench_teardown(&v);
}

/* The same move, then the context invalidation (`.arg`: queued or not):
 * the DMA must reach B, and the invalidation's cost is measured. */
static void t_invalidate_context(struct test_ctx *t)
{
	const struct iommu_case_arg *a = t->tc->arg;
	bool queued = strcmp(a->kind, "queued") == 0;
	struct env v;
	if (!setup(t, &v))
		return;
	if (!bench_needs(&v, !queued || vtd_of(v.io)->qi, SKIP_UNSUPPORTED, "%s has no queued invalidation",
			 v.io->name))
		return;
	if (!bench_needs(&v, queued || (!vtd_of(v.io)->scalable && vtd_ver_max(vtd_of(v.io)->ver) < 6),
			 SKIP_UNSUPPORTED, "%s invalidates through the queue only (%s)", v.io->name,
			 vtd_of(v.io)->scalable ? "scalable mode" : "VER 6 and later"))
		return;
	if (!bench_needs(&v, queued || !vtd_of(v.io)->fw_queue, SKIP_UNSUPPORTED,
			 "%s: the firmware's invalidation queue stays running, so nothing is invalidated by register",
			 v.io->name))
		return;
	const char *name = queued ? "queued-context" : "register-context";
	const struct stale_way way = { context_swap, context_invalidate, queued };
	bench_stale_invalidated(&v, &way, "move the device to a domain mapping B", name);
	bench_time_invalidation(&v, &way, 0, name, NULL,
				"device-selective context-cache invalidation, then the old domain's IOTLB, "
				"as a context change requires");
	test_note(t, "%s: after %s the DMA reached the new domain", v.label, name);
	bench_teardown(&v);
}

/* ---- the invalidation queue's error ------------------------------------- */

/* A descriptor the unit must refuse: IQE reported, cleared, queue back. */
static void t_queue_error(struct test_ctx *t)
{
	struct env v;
	if (!setup(t, &v))
		return;
	struct vtd *vt = vtd_of(v.io);
	if (!bench_needs(&v, vt->qi, SKIP_UNSUPPORTED, "%s has no queued invalidation", v.io->name))
		return;
	unsigned seen = 0;
	uint64_t irqs = v.io->irq_count;
	const char *e = vtd_queue_error_probe(vt, &seen);
	report(t, seen == 1, "a descriptor of type 0 raised one queue error (FSTS.IQE), seen and cleared");
	report(t, e == NULL, "the queue works again: a wait descriptor completes%s%s", e ? ": " : "", e ? e : "");
	report(t, !(regwin_read32(&vt->w, VTD_REG_FSTS) & VTD_FSTS_IQE), "FSTS.IQE is clear again");
	if (v.io->irq)
		printf("    fault event interrupts during the queue error: %llu\n",
		       (unsigned long long)(v.io->irq_count - irqs));
	/* and translation still invalidates through the recovered queue */
	size_t k = bench_kind_named(v.io, "queued-global");
	struct stale s = { .err = "the unit offers no queued-global invalidation" };
	struct stale_way way = bench_stale_kind(k);
	if (k != (size_t)-1)
		bench_stale(&v, &way, &s);
	report(t, !s.err && s.after == 'B', "after the recovery a queued invalidation still takes effect (%s)",
	       s.err		? s.err
	       : s.after == 'B' ? "the DMA reached the new page"
				: "the DMA missed the new page");
	test_note(t, "queue error reported, cleared, queue recovered");
	bench_teardown(&v);
}

/* ---- interrupt remapping's registers ------------------------------------ */

/* Remapping on through the queue (IRTA latched, IEC global, CFI, IRE) as the
 * registers show it, nothing pending right after (kvm-unit-tests' check),
 * both IEC kinds completing, compatibility format blocked where the unit
 * honours CFI (QEMU 7.2 ignores it: refused by name there), then off. */
static void t_ir_registers(struct test_ctx *t)
{
	struct env v;
	if (!bench_setup(t, &v, "vtd"))
		return;
	struct vtd *vt = vtd_of(v.io);
	if (!bench_needs(&v, vt->ir && vt->qi, SKIP_UNSUPPORTED,
			 "%s has no interrupt remapping with queued invalidation (ECAP.IR, QI)", v.io->name))
		return;
	const char *e = v.io->ops->ir_enable(v.io, true, 256);
	/* the unit says it cannot (vtd.eime on without ECAP.EIM): nothing to show */
	if (!bench_needs(&v, !e || v.io->err != IOMMU_ERR_UNSUPPORTED, SKIP_UNSUPPORTED, "%s", e ? e : ""))
		return;
	report(t, e == NULL, "interrupt remapping enabled through the queue%s%s", e ? ": " : "", e ? e : "");
	if (e) {
		bench_teardown(&v);
		return;
	}
	uint32_t gsts = regwin_read32(&vt->w, VTD_REG_GSTS);
	report(t, (gsts & (VTD_GSTS_IRES | VTD_GSTS_QIES)) == (VTD_GSTS_IRES | VTD_GSTS_QIES),
	       "GSTS.IRES and QIES set (GSTS 0x%08x)", gsts);
	uint64_t irta = regwin_read64(&vt->w, VTD_REG_IRTA);
	uint64_t eime = vt->eime ? VTD_IRTA_EIME : 0;
	report(t, irta == (vtd_irta((uint64_t)(uintptr_t)vt->irt, 7) | eime),
	       "IRTA names the 256-entry table (0x%llx, S 7, EIME %s)", (unsigned long long)irta,
	       eime ? "set" : "clear");
	char ir[160];
	vtd_ir_describe(vt, ir, sizeof(ir));
	report(t, !v.io->ops->fault_pending(v.io), "no fault pending right after enabling (FSTS 0x%08x)",
	       regwin_read32(&vt->w, VTD_REG_FSTS));
	for (size_t k = 0; k < v.io->nir_kinds; k++) {
		e = v.io->ops->ir_invalidate(v.io, k, 0, 0);
		report(t, e == NULL, "%s completes (its wait descriptor written)%s%s", v.io->ir_kinds[k].name,
		       e ? ": " : "", e ? e : "");
	}
	e = v.io->ops->ir_compat(v.io, false);
	if (vt->cfi_ignored) {
		report(t, e && v.io->err == IOMMU_ERR_UNSUPPORTED,
		       "the unit ignores GCMD.CFI (GSTS.CFIS never set): blocking compatibility-format interrupts is "
		       "refused by name");
	} else {
		report(t, !e && !(regwin_read32(&vt->w, VTD_REG_GSTS) & VTD_GSTS_CFIS),
		       "compatibility-format interrupts blocked (GSTS.CFIS clear)");
		e = v.io->ops->ir_compat(v.io, true);
		report(t, !e, "and allowed again (GSTS.CFIS set)");
	}
	e = v.io->ops->ir_enable(v.io, false, 0);
	report(t, !e && !(regwin_read32(&vt->w, VTD_REG_GSTS) & VTD_GSTS_IRES),
	       "interrupt remapping off (GSTS.IRES clear)");
	test_note(t, "%s: %s; CFI %s%s", v.io->name, ir, vt->cfi_ignored ? "ignored" : "honoured",
		  vtd_ecap_eim(vt->ecap) ? "" : "; no ECAP.EIM");
	bench_teardown(&v);
}

/* ---- scalable mode: the PASID cache, first-stage A/D -------------------- */

static const char *pasid_swap(struct env *v, uint64_t iova, uint64_t phys, size_t arg)
{
	(void)arg;
	return vtd_pasid_swap(vtd_of(v->io), iova, phys, v->e->own, v->e->nown);
}

static const char *pasid_invalidate(struct env *v, uint64_t iova, size_t g)
{
	(void)iova;
	return vtd_pasid_invalidate(vtd_of(v->io), (enum vtd_pc_g)g);
}

static bool scalable_bench(struct test_ctx *t, struct env *v)
{
	return setup(t, v) && bench_needs(v, vtd_of(v->io)->scalable, SKIP_UNSUPPORTED,
					  "%s is in legacy mode: no PASID entries", v->io->name);
}

/* The device's RID_PASID entry rewritten to a domain mapping B, the
 * IOTLB invalidated but not the PASID cache: which page the DMA reaches
 * says whether the unit keeps PASID entries (QEMU keeps none: B at once). */
static void t_stale_pasid(struct test_ctx *t)
{
	struct env v;
	if (!scalable_bench(t, &v))
		return;
	const struct stale_way way = { pasid_swap, NULL, 0 };
	bench_stale_finding(&v, &way,
			    "point the PASID entry at a domain mapping B (IOTLB invalidated, PASID cache not)",
			    "stale PASID entry");
	bench_teardown(&v);
}

/* The same move, then each PASID-cache invalidation: B, timed. */
static void t_invalidate_pasid_cache(struct test_ctx *t)
{
	struct env v;
	if (!scalable_bench(t, &v))
		return;
	static const struct {
		enum vtd_pc_g g;
		const char *name;
	} kinds[] = { { VTD_PC_GLOBAL, "pasid-cache-global" },
		      { VTD_PC_DOMAIN, "pasid-cache-domain" },
		      { VTD_PC_PASID, "pasid-cache-pasid" } };
	for (size_t k = 0; k < ARRAY_SIZE(kinds); k++) {
		const struct stale_way way = { pasid_swap, pasid_invalidate, kinds[k].g };
		bench_stale_invalidated(&v, &way, "point the PASID entry at a domain mapping B", kinds[k].name);
		bench_time_invalidation(&v, &way, 0, kinds[k].name, NULL,
					"PASID-cache invalidation, then the old domain's IOTLBs, as a changed PASID "
					"entry requires");
	}
	test_note(t, "%s: after each PASID-cache invalidation the DMA reached the new domain", v.label);
	bench_teardown(&v);
}

/* First stage: the unit sets A on every entry it walks and D on a leaf
 * written through (9.7); the monitor's entries start with both clear. */
static void t_accessed_dirty(struct test_ctx *t)
{
	struct env v;
	if (!setup(t, &v))
		return;
	struct vtd *vt = vtd_of(v.io);
	if (!bench_needs(&v, vt->scalable && vt->dut.cfg == &vt->fscfg, SKIP_UNSUPPORTED,
			 "%s is not in first-stage translation", v.io->name))
		return;
	/* a page the device writes and, where its reads come back (a scratch
	 * buffer, not NVMe's Compare against the media), another it only
	 * reads; each freshly mapped, nothing of it cached */
	struct dmabuf b[2] = { 0 };
	unsigned levels = 0, acc = 0;
	bool dirty = false;
	for (int k = 0; k < (v.e->caps.roundtrip ? 2 : 1); k++) {
		bool write = k == 0;
		uint64_t w = bench_window(&v, PAGE_SIZE, (unsigned)k);
		size_t len = v.len < PAGE_SIZE / 2 ? v.len : PAGE_SIZE / 2;
		if (v.e->caps.len_unit > 1)
			len -= len % v.e->caps.len_unit;
		const char *e = bench_buffer(&v, &b[k], len, PAGE_SIZE) ? NULL : "no memory for a buffer";
		uint64_t off = b[k].phys & (PAGE_SIZE - 1), iova = w + off;
		if (!e && off + len > PAGE_SIZE)
			e = "the buffer crosses a page";
		if (!e)
			e = v.io->ops->map(v.io, w, b[k].phys & ~(PAGE_SIZE - 1), PAGE_SIZE, IOMMU_RW, PAGE_SIZE);
		/* the first page's walk shares the upper tables with the second */
		bool walked = !e && vtd_fs_accessed_dirty(vt, iova, &levels, &acc, &dirty);
		report(t, walked && (k || acc == 0) && !dirty,
		       "page %d mapped: %u entries on the way, %u accessed, the leaf clean%s%s", k + 1, levels, acc,
		       e ? ": " : "", e ? e : "");
		if (e)
			break;
		struct dma_result r;
		bool ok = bench_dma(&v, write ? DMA_FROM_DEVICE : DMA_TO_DEVICE, iova, len, &r);
		ok = vtd_fs_accessed_dirty(vt, iova, &levels, &acc, &dirty) && ok;
		if (write)
			report(t, ok && acc == levels && dirty,
			       "the device wrote page 1: %u of %u entries accessed, the leaf %s", acc, levels,
			       dirty ? "dirty" : "clean (D not set by the write)");
		else
			report(t, ok && acc == levels && !dirty,
			       "the device read page 2: %u of %u entries accessed, the leaf %s", acc, levels,
			       dirty ? "dirty (a read must not set D)" : "still clean");
	}
	test_note(t, "%s: A on every level walked, D on the written leaf%s", v.label,
		  v.e->caps.roundtrip ? ", not on the read one" : "");
	bench_teardown(&v);
	dmabuf_free(&b[0]);
	dmabuf_free(&b[1]);
}

/* ---- the group ----------------------------------------------------------- */

/* Each mode's arguments: the shared cases' and VT-d's own, with the mode. */
#define VTD_MODE_ARGS(p, m)                                                                                          \
	static const struct iommu_case_arg p##_on = { "vtd", .mode = m }, p##_4k = { "vtd", 1ull << 12, .mode = m }, \
					   p##_2m = { "vtd", 1ull << 21, .mode = m },                                \
					   p##_1g = { "vtd", 1ull << 30, .mode = m },                                \
					   p##_qpage = { "vtd", .kind = "queued-page", .mode = m },                  \
					   p##_qdomain = { "vtd", .kind = "queued-domain", .mode = m },              \
					   p##_qglobal = { "vtd", .kind = "queued-global", .mode = m },              \
					   p##_qctx = { "vtd", .kind = "queued", .mode = m }
VTD_MODE_ARGS(leg, NULL);
VTD_MODE_ARGS(ss, "scalable-second-stage");
VTD_MODE_ARGS(fs, "scalable-first-stage");
VTD_MODE_ARGS(nest, "scalable-nested");
static const struct iommu_case_arg ir_vtd = { "vtd", .kind = IR_FAULTS_RECORDED };
static const struct iommu_case_arg register_page = { "vtd", .kind = "register-page" },
				   register_domain = { "vtd", .kind = "register-domain" },
				   register_global = { "vtd", .kind = "register-global" },
				   register_ctx = { "vtd", .kind = "register" };

/* The cases every scalable type runs, named vtd.<p>.<case>: the shared
 * ones, the take-over, the context and PASID caches, the queue's error. */
#define VTD_SCALABLE_CASES(p, words)                                                                                   \
	{ "vtd." #p ".takeover", "take-over in " words ": root, context and PASID tables; bystanders; as found",       \
	  t_takeover, true, &p##_on },                                                                                 \
	    { "vtd." #p ".translate_4k", words ": DMA both ways through 4 KiB leaves", case_translate, true,           \
	      &p##_4k },                                                                                               \
	    { "vtd." #p ".translate_2m", words ": DMA both ways through a 2 MiB leaf", case_translate, true,           \
	      &p##_2m },                                                                                               \
	    { "vtd." #p ".translate_1g", words ": DMA both ways through a 1 GiB leaf", case_translate, true,           \
	      &p##_1g },                                                                                               \
	    { "vtd." #p ".write_read_only", words ": a write to a read-only page faults", case_write_read_only, true,  \
	      &p##_on },                                                                                               \
	    { "vtd." #p ".read_not_present", words ": a read of a non-present IOVA faults", case_read_not_present,     \
	      true, &p##_on },                                                                                         \
	    { "vtd." #p ".stale_iotlb", words ": a repointed mapping without invalidation (finding)", case_stale,      \
	      true, &p##_on },                                                                                         \
	    { "vtd." #p ".invalidate_page", words ": page-selective invalidation", case_invalidate, true,              \
	      &p##_qpage },                                                                                            \
	    { "vtd." #p ".invalidate_domain", words ": domain-selective invalidation", case_invalidate, true,          \
	      &p##_qdomain },                                                                                          \
	    { "vtd." #p ".invalidate_global", words ": global invalidation", case_invalidate, true, &p##_qglobal },    \
	    { "vtd." #p ".stale_context", words ": another domain without a context-cache invalidation (finding)",     \
	      t_stale_context, true, &p##_on },                                                                        \
	    { "vtd." #p ".invalidate_context", words ": device-selective context-cache invalidation",                  \
	      t_invalidate_context, true, &p##_qctx },                                                                 \
	    { "vtd." #p ".stale_pasid", words ": a PASID entry changed without a PASID-cache invalidation (finding)",  \
	      t_stale_pasid, true, &p##_on },                                                                          \
	    { "vtd." #p ".invalidate_pasid_cache", words ": PASID-cache invalidation, global, domain and PASID",       \
	      t_invalidate_pasid_cache, true, &p##_on },                                                               \
	    { "vtd." #p ".queue_error", words ": a bad 256-bit descriptor: queue error, recovered", t_queue_error,     \
	      true, &p##_on },                                                                                         \
	    { "vtd." #p ".latency", words ": DMA latency, translation off, pass-through, warm, cold", case_latency,    \
	      true, &p##_on },                                                                                         \
	{                                                                                                              \
		"vtd." #p ".map_cost", words ": CPU cycles per page to map and to unmap", case_map_cost, true, &p##_on \
	}

static const struct test_case cases[] = {
	{ "vtd.takeover", "take the unit over; bystander devices keep DMAing; give it back as found", t_takeover, true,
	  &leg_on },
	{ "vtd.translate_4k", "DMA both ways through 4 KiB leaves at an IOVA far from the page", case_translate, true,
	  &leg_4k },
	{ "vtd.translate_2m", "DMA both ways through a 2 MiB leaf", case_translate, true, &leg_2m },
	{ "vtd.translate_1g", "DMA both ways through a 1 GiB leaf", case_translate, true, &leg_1g },
	{ "vtd.write_read_only", "a device write to a read-only page faults: reason, sid, address, interrupt",
	  case_write_read_only, true, &leg_on },
	{ "vtd.read_not_present", "a device read of a non-present IOVA faults: reason, sid, address, interrupt",
	  case_read_not_present, true, &leg_on },
	{ "vtd.stale_iotlb", "repoint a mapping without invalidating: is the stale translation used? (finding)",
	  case_stale, true, &leg_on },
	{ "vtd.invalidate_register_page", "page-selective IOTLB invalidation by register: DMA reaches the new page",
	  case_invalidate, true, &register_page },
	{ "vtd.invalidate_register_domain", "domain-selective IOTLB invalidation by register", case_invalidate, true,
	  &register_domain },
	{ "vtd.invalidate_register_global", "global IOTLB invalidation by register", case_invalidate, true,
	  &register_global },
	{ "vtd.invalidate_queued_page", "page-selective invalidation through the queue", case_invalidate, true,
	  &leg_qpage },
	{ "vtd.invalidate_queued_domain", "domain-selective invalidation through the queue", case_invalidate, true,
	  &leg_qdomain },
	{ "vtd.invalidate_queued_global", "global invalidation through the queue", case_invalidate, true,
	  &leg_qglobal },
	{ "vtd.stale_context", "move the device to another domain without a context-cache invalidation (finding)",
	  t_stale_context, true, &leg_on },
	{ "vtd.invalidate_context_register", "device-selective context-cache invalidation by register (CCMD)",
	  t_invalidate_context, true, &register_ctx },
	{ "vtd.invalidate_context_queued", "device-selective context-cache invalidation through the queue",
	  t_invalidate_context, true, &leg_qctx },
	{ "vtd.queue_error", "a bad descriptor: queue error reported, cleared, queue recovered", t_queue_error, true,
	  &leg_on },
	{ "vtd.ir_registers",
	  "interrupt remapping on through the queue: IRTA, IEC, CFI, IRE as the registers show; nothing pending",
	  t_ir_registers, true },
	{ "vtd.latency", "DMA latency: translation off, pass-through, warm and cold IOTLB", case_latency, true,
	  &leg_on },
	{ "vtd.map_cost", "CPU cycles per page to map and to unmap (4 KiB leaves)", case_map_cost, true, &leg_on },
	/* scalable mode, each translation type the unit offers (not
	 * applicable where it offers none) */
	VTD_SCALABLE_CASES(ss, "scalable second stage"),
	VTD_SCALABLE_CASES(fs, "scalable first stage"),
	{ "vtd.fs.accessed_dirty", "scalable first stage: A set on every level walked, D on the leaf written",
	  t_accessed_dirty, true, &fs_on },
	VTD_SCALABLE_CASES(nest, "scalable nested"),
	/* interrupt remapping (ir.c): named, not in the default plan, until
	 * every unit the default plan meets has it */
	{ "vtd.ir_msi_direct", "remapping off: the device's own MSI arrives; timed", case_ir_msi_direct, false,
	  &ir_vtd },
	{ "vtd.ir_remapped", "a remapped MSI arrives at the entry's vector, not the one the device was told",
	  case_ir_remapped, false, &ir_vtd },
	{ "vtd.ir_not_present", "an MSI through a not-present entry is blocked", case_ir_not_present, false, &ir_vtd },
	{ "vtd.ir_index", "an MSI naming an index past the table is blocked", case_ir_index, false, &ir_vtd },
	{ "vtd.ir_source", "an MSI through an entry admitting another requester is blocked", case_ir_source, false,
	  &ir_vtd },
	{ "vtd.ir_invalidate", "a changed interrupt entry used after its invalidation (stale: finding)",
	  case_ir_invalidate, false, &ir_vtd },
	{ "vtd.ir_compat", "CFI off: a compatibility-format MSI is blocked and recorded (fault 25h)", case_ir_compat,
	  false, &ir_vtd },
	{ "vtd.ir_dest32", "32-bit destinations (IRTA.EIME): the boot CPU reached, all 32 bits carried; timed",
	  case_ir_dest32, false, &ir_vtd },
	{ "vtd.ir_ioapic", "the device's INTx through the I/O APIC, remapped: delivered, repointed, blocked; timed",
	  case_ir_ioapic, false, &ir_vtd },
};

static const struct test_doc docs[] = {
	{ t_takeover,
	  "the VT-d unit behind the device under test, as the firmware left it, is taken over: a root table of "
	  "the monitor's, the device in a domain of its own, every other device in the unit's scope in "
	  "pass-through or identity (vtd.bystanders), RMRRs kept; the bystanders' DMA engines still work while "
	  "the unit is ours, and it is given back with GSTS, RTADDR and the fault registers as found, read back",
	  "a refusal names what the firmware left that the monitor will not take (translation on, PMRs, a queue "
	  "running); a bystander that stops working means the take-over would break the console or the boot "
	  "disk; registers that differ after give-back mean the machine was not left as found" },
	{ t_stale_context,
	  "the device moved to another domain mapping page B, the IOTLB invalidated but the context cache not: "
	  "the next DMA lands in exactly one page, and which is recorded (A: the unit used its cached context "
	  "entry, a finding); after the context-cache invalidation it reaches B",
	  "a DMA reaching B's neighbour or neither page, or still A after the context-cache invalidation: the "
	  "context cache ignores the invalidation an OS relies on when it moves a device between domains" },
	{ t_invalidate_context,
	  "a device-selective context-cache invalidation (by CCMD register, or a descriptor through the queue) "
	  "completes within its deadline and makes the device's new context entry take effect, timed",
	  "a command that never completes is named with its deadline; a DMA still through the old context "
	  "entry means the invalidation was not honoured" },
	{ t_queue_error,
	  "a descriptor of a reserved type in the invalidation queue: the unit reports an invalidation queue "
	  "error (FSTS.IQE) at that descriptor, the monitor clears it, and the queue then runs a valid "
	  "invalidation to completion",
	  "no error reported (the unit ran a descriptor it should have refused), an error that cannot be "
	  "cleared, or a queue that stays stopped: a driver could not recover a unit in this state" },
	{ t_ir_registers,
	  "interrupt remapping turned on through the invalidation queue: IRTA names the monitor's table, the "
	  "interrupt entry cache invalidated (IEC), GCMD.CFI and IRE followed by GSTS as written; nothing left "
	  "pending; all of it given back as found",
	  "a status bit that never follows its command (named with its deadline) or a register that differs "
	  "after give-back: the remapping hardware cannot be driven as the spec describes" },
	{ t_stale_pasid,
	  "scalable mode: the device's RID_PASID entry rewritten to lead to a domain mapping page B, the IOTLB "
	  "invalidated but not the PASID cache: the next DMA lands in exactly one page, and which is recorded "
	  "(A: the unit kept the PASID entry, a finding; B: it read the entry again, as QEMU, which has no PASID "
	  "cache, does)",
	  "a DMA reaching neither page, or both: the PASID entry was half-read or the walk went astray" },
	{ t_invalidate_pasid_cache,
	  "scalable mode: the same move, then a PASID-cache invalidation of each granularity (every PASID, the "
	  "old domain's, its one PASID) with the old domain's IOTLBs: the DMA reaches B, and each is timed",
	  "a DMA still reaching A: the unit ignored an invalidation an OS relies on when it changes a PASID entry" },
	{ t_accessed_dirty,
	  "scalable first stage: the monitor's entries start with A and D clear; after the device reads the page "
	  "every entry on the walk is accessed and the leaf still clean, after it writes the leaf is dirty",
	  "an entry left unaccessed or a leaf left clean by a write: software tracking dirty pages (live "
	  "migration) would miss them; D set by a read: every page looks written" },
	{ NULL },
};

/* every case's argument is a struct iommu_case_arg: the scalable ones on a
 * unit without that mode are not applicable before they start */
IOMMU_BACKEND_CASES_ASKED(vtd, "Intel VT-d: translation, faults, invalidation, timed", bench_mode_applies);
