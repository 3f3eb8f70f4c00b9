/* The IOMMU cases every backend runs (cases.h), written once against the
 * iommu and DMA engine interfaces: translation at each leaf size, a write
 * to a read-only page and a read of a non-present one, the stale cached
 * translation, each invalidation kind the unit offers, DMA latency and the
 * CPU cost of map and unmap. They name no backend: a backend's group lists
 * them with an argument (struct iommu_case_arg) saying which bench they run
 * on (the machine's unit, or the attached model) and what sets them apart. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cases.h"
#include "core/base/timing.h"
#include "tests/catalogue/bench.h"

/* The bench the case's argument names (its backend). */
static bool case_setup(struct test_ctx *t, struct env *v)
{
	const struct iommu_case_arg *arg = t->tc->arg;
	return bench_setup_mode(t, v, arg->backend, arg->mode);
}

/* ---- translation at each leaf size ------------------------------------- */

/* "4 KiB", "2 MiB", "1 GiB" */
static void size_name(uint64_t bytes, char *out, size_t n)
{
	static const char *const unit[] = { "bytes", "KiB", "MiB", "GiB", "TiB" };
	unsigned u = 0;
	while (u < 4 && bytes >= 1024 && bytes % 1024 == 0)
		bytes /= 1024, u++;
	snprintf(out, n, "%llu %s", (unsigned long long)bytes, unit[u]);
}

void case_translate(struct test_ctx *t)
{
	const struct iommu_case_arg *arg = t->tc->arg;
	struct env v;
	if (!case_setup(t, &v))
		return;
	uint64_t page = arg->page ? arg->page : v.pg; /* 0: the unit's own page size */
	char name[24];
	size_name(page, name, sizeof(name));
	if (!bench_needs(&v, (v.io->page_sizes & page) != 0, SKIP_UNSUPPORTED, "%s maps no %s leaves", v.io->name,
			 name))
		return;
	struct dmabuf a = { 0 }, b = { 0 };
	if (!bench_buffer(&v, &a, v.len, page) || !bench_buffer(&v, &b, v.len, page)) {
		report(t, false, "no memory for two buffers");
		goto out;
	}
	/* one leaf over each buffer's surroundings: the IOVA keeps the offset
	 * within the leaf, the leaf maps the aligned frame around the buffer */
	/* a leaf larger than the device's reach gives both the same window */
	uint64_t wa = bench_window(&v, page, 0), wb = bench_window(&v, page, 1);
	uint64_t fa = a.phys & ~(page - 1), fb = b.phys & ~(page - 1);
	uint64_t ia = wa + (a.phys - fa), ib = wb + (b.phys - fb);
	const char *e = v.io->ops->map(v.io, wa, fa, page, IOMMU_RW, page);
	if (!e && wb != wa)
		e = v.io->ops->map(v.io, wb, fb, page, IOMMU_RW, page);
	if (!e && wb == wa && fb != fa)
		e = "the two buffers lie in different frames of a leaf larger than the device's reach";
	if (e) {
		report(t, false, "mapping %s leaves: %s", name, e);
		goto out;
	}
	printf("    %s leaves: IOVA 0x%llx -> 0x%llx, IOVA 0x%llx -> 0x%llx%s\n", name, (unsigned long long)ia,
	       (unsigned long long)a.phys, (unsigned long long)ib, (unsigned long long)b.phys,
	       !(page >> v.bits) ? ""
	       : fa == 0	 ? " (one leaf covers all the device reaches: IOVA = physical here)"
				 : " (one leaf covers all the device reaches: IOVA = the offset in the leaf)");
	/* the backend's software walk must find what the hardware is about to use */
	uint64_t ph = 0, leaf = 0;
	unsigned perm = 0;
	bool found = v.io->ops->iova_to_phys && v.io->ops->iova_to_phys(v.io, ia, &ph, &perm, &leaf);
	char leaf_name[24];
	size_name(leaf, leaf_name, sizeof(leaf_name));
	report(t, found && ph == a.phys && leaf == page && (perm & IOMMU_RW) == IOMMU_RW,
	       "the tables translate 0x%llx to 0x%llx through a %s leaf%s", (unsigned long long)ia,
	       (unsigned long long)ph, found ? leaf_name : "(none)",
	       v.io->ops->iova_to_phys ? "" : ": the backend cannot walk its tables (no iova_to_phys)");
	struct dma_result r;
	uint32_t seed = (uint32_t)page;
	if (v.e->caps.roundtrip) {
		dmabuf_pattern(&a, seed);
		memset(b.data, 0, v.len);
		bool ok = bench_dma(&v, DMA_TO_DEVICE, ia, v.len, &r);
		report(t, ok, "to the device from IOVA 0x%llx: %s", (unsigned long long)ia, ok ? "done" : r.error);
		ok = ok && bench_dma(&v, DMA_FROM_DEVICE, ib, v.len, &r);
		report(t, ok && dmabuf_check_pattern(&b, seed) < 0,
		       "from the device to IOVA 0x%llx: the pattern arrived in the buffer at 0x%llx",
		       (unsigned long long)ib, (unsigned long long)b.phys);
	} else {
		dmabuf_pattern(&a, seed);
		bool ok = bench_dma(&v, DMA_FROM_DEVICE, ia, v.len, &r);
		report(t, ok && bench_changed(&a, seed),
		       "from the device to IOVA 0x%llx: the data arrived at 0x%llx (%s)", (unsigned long long)ia,
		       (unsigned long long)a.phys, ok ? "written" : r.error);
		if (v.e->caps.reads_ram) {
			ok = bench_dma(&v, DMA_TO_DEVICE, ia, v.len, &r);
			report(t, ok, "to the device from IOVA 0x%llx: it read the buffer back and it matched (%s)",
			       (unsigned long long)ia, ok ? "compare ok" : r.error);
			a.data[v.len / 2] ^= 0x5a;
			v.e->transfer(v.e, DMA_TO_DEVICE, ia, v.len, &r);
			/* only the device's own miscompare: any other error (one
			 * gone, stopped) read nothing */
			report(t, r.miscompare,
			       "with one byte of the buffer changed, the device sees the change (%s%s%s)",
			       r.miscompare ? "miscompare" : dma_status_name(r.status),
			       r.status != DMA_OK && !r.miscompare ? ": " : "",
			       r.status != DMA_OK && !r.miscompare ? r.error : "");
		}
	}
	report(t, dmabuf_guards_damaged(&a) + dmabuf_guards_damaged(&b) == 0, "every guard byte untouched");
	test_note(t, "%s through %s leaves at IOVA 0x%llx", v.label, name, (unsigned long long)ia);
out:
	bench_teardown(&v);
	dmabuf_free(&a);
	dmabuf_free(&b);
}

/* ---- faults ------------------------------------------------------------ */

struct watch {
	struct iommu *io;
	uint64_t t_fault; /* first poll that saw a fault recorded */
};

static void watch_faults(void *ctx)
{
	struct watch *w = ctx;
	if (!w->t_fault && w->io->ops->fault_pending(w->io))
		w->t_fault = rdtsc();
}

/* One forbidden DMA: the fault must name the device, the page and the
 * reason, memory must be unchanged, and the interrupt must come. */
static void fault_case(struct test_ctx *t, bool write)
{
	struct env v;
	if (!case_setup(t, &v))
		return;
	if (!bench_needs(&v, !write || v.io->perm_bits, SKIP_UNSUPPORTED,
			 "%s entries are valid or not: no page can be read-only", v.io->backend))
		return;
	struct dmabuf a = { 0 };
	if (!bench_buffer(&v, &a, v.len, v.pg)) {
		report(t, false, "no memory");
		bench_teardown(&v);
		return;
	}
	uint64_t w0 = bench_window(&v, v.pg, 0);
	uint64_t iova = w0 + (a.phys & (v.pg - 1));
	const char *e = NULL;
	if (write) /* read-only page: the device may read it, not write it */
		e = v.io->ops->map(v.io, w0, a.phys & ~(v.pg - 1), v.pg, IOMMU_R, v.pg);
	if (e) {
		report(t, false, "mapping read-only: %s", e);
		goto out;
	}
	size_t n = v.e->caps.fixed_latency_us ? 2 : 20;
	uint64_t *rec = malloc(n * sizeof(*rec)), *irq = malloc(n * sizeof(*irq));
	size_t nrec = 0, nirq = 0, good = 0;
	bool classified = false; /* the first record gave the reason, not just "a fault" */
	uint32_t reason = 0;
	uint16_t sid = pci_rid(v.e->addr);
	struct iommu_fault f[4];
	bool ovf;
	v.io->ops->faults(v.io, f, 4, &ovf); /* nothing old counts */
	for (size_t i = 0; rec && irq && i < n; i++) {
		if (test_stopped(t)) {
			n = i;
			break;
		}
		uint32_t seed = 77 + (uint32_t)i;
		dmabuf_pattern(&a, seed);
		struct watch w = { v.io, 0 };
		v.e->on_wait = watch_faults, v.e->on_wait_ctx = &w;
		uint64_t irqs = v.io->irq_count;
		struct dma_result r;
		v.e->transfer(v.e, write ? DMA_FROM_DEVICE : DMA_TO_DEVICE, iova, v.len, &r);
		v.e->on_wait = NULL;
		if (!w.t_fault && v.io->ops->fault_pending(v.io))
			w.t_fault = rdtsc(); /* seen only after completion: an upper bound */
		/* the interrupt may trail the completion a little */
		struct deadline dl = deadline_after_us(10000);
		while (v.io->irq && v.io->irq_count == irqs && !deadline_passed(&dl))
			cpu_relax();
		size_t nf = v.io->ops->faults(v.io, f, 4, &ovf);
		/* what the hardware records must be right; what it does not
		 * record cannot be checked (Calgary's CSR names no address). A
		 * record that tells a read from a write also says why the access
		 * was refused (VT-d's reason, Apple's ERROR bits): there "some
		 * other fault" is a wrong answer, not a silent one. */
		enum iommu_fault_kind want = write ? IOMMU_FAULT_WRITE_DENIED : IOMMU_FAULT_NOT_PRESENT;
		bool right = nf >= 1 && (!f[0].sid_known || iommu_rid_carries(v.io, sid, f[0].sid)) &&
			     (!f[0].addr_known || f[0].addr == (iova & ~(v.pg - 1))) &&
			     (!f[0].dir_known || f[0].read == !write) &&
			     (f[0].kind == want || (f[0].kind == IOMMU_FAULT_OTHER && !f[0].dir_known));
		bool intact = !bench_changed(&a, seed) && dmabuf_guards_damaged(&a) == 0;
		if (i == 0) {
			if (nf) {
				/* "a write by sid 0010 at page 0xfff00000": what the record holds, in words */
				char who[24] = "", where[48] = "an address the hardware does not record";
				if (f[0].sid_known)
					snprintf(who, sizeof(who), " by sid %04x", f[0].sid);
				if (f[0].addr_known)
					snprintf(where, sizeof(where), "page 0x%llx", (unsigned long long)f[0].addr);
				printf("    fault: a%s%s at %s, code 0x%x (%s); DMA status %s\n",
				       f[0].dir_known ? (f[0].read ? " read" : " write") : "n access", who, where,
				       f[0].reason, f[0].why, dma_status_name(r.status));
			}
			report(t, nf >= 1, "the %s of IOVA 0x%llx was recorded as a fault", write ? "write" : "read",
			       (unsigned long long)iova);
			classified = nf >= 1 && f[0].kind == want, reason = nf ? f[0].reason : 0;
			if (classified && f[0].sid_known && f[0].addr_known && f[0].dir_known)
				report(t, right,
				       "the record names the device (sid %04x%s), the page 0x%llx, a %s and reason %u "
				       "(%s)%s",
				       f[0].sid,
				       f[0].sid != sid ? ": an alias of its requester id, as the bridges tag it" : "",
				       (unsigned long long)f[0].addr, f[0].read ? "read" : "write", f[0].reason,
				       f[0].why, f[0].pasid_present ? ", PASID present (PP)" : "");
			else
				report(t, right, "the record is right in what %s records:%s%s%s%s", v.io->backend,
				       f[0].sid_known ? " the device" : "", f[0].addr_known ? " the page" : "",
				       f[0].dir_known ? " the direction" : "",
				       f[0].kind == want ? " the reason"
							 : " (no reason, address or device: an error bit)");
			if (write)
				report(t, intact, "the read-only buffer is unchanged, guards intact");
			if (v.io->irq)
				report(t, v.io->irq_count > irqs, "the fault event interrupt came (%llu so far)",
				       (unsigned long long)v.io->irq_count);
		}
		good += right && (!write || intact);
		if (w.t_fault && r.t_submit)
			rec[nrec++] = w.t_fault - r.t_submit;
		if (v.io->irq && v.io->irq_count > irqs && r.t_submit)
			irq[nirq++] = v.io->irq_tsc - r.t_submit;
		timing_floor_sample();
	}
	report(t, good == n, "%zu of %zu forbidden DMAs faulted as expected", good, n);
	char variant[64], nb[128];
	const char *note = bench_note(&v, nb, sizeof(nb));
	struct measure m = { .path = "fault", .backend = v.io->backend, .unit = "cycles", .model = v.io->model };
	m.note = note ? note
		      : "from the doorbell to the first poll that saw the fault recorded (one poll loop of resolution)";
	snprintf(variant, sizeof(variant), "%s-%s-record", v.label, write ? "write-ro" : "read-np");
	m.variant = variant;
	if (nrec)
		test_measure(t, &m, rec, nrec);
	m.note = note ? note : "from the doorbell to the interrupt handler's first instruction stamp";
	snprintf(variant, sizeof(variant), "%s-%s-interrupt", v.label, write ? "write-ro" : "read-np");
	if (nirq)
		test_measure(t, &m, irq, nirq);
	if (!v.io->irq)
		printf("    no fault interrupt on this platform: only the record path is timed\n");
	char why[32] = "each seen in its error register";
	if (classified)
		snprintf(why, sizeof(why), "reason %u", reason);
	test_note(t, "%s: %zu faults, %s, %s", v.label, n, why, v.io->irq ? "interrupt each time" : "polled");
	free(rec), free(irq);
	if (write)
		v.io->ops->unmap(v.io, w0, v.pg);
out:
	bench_teardown(&v);
	dmabuf_free(&a);
}

void case_write_read_only(struct test_ctx *t)
{
	fault_case(t, true);
}
void case_read_not_present(struct test_ctx *t)
{
	fault_case(t, false);
}

/* ---- stale translations and invalidation -------------------------------- */

void case_stale(struct test_ctx *t)
{
	struct env v;
	if (!case_setup(t, &v))
		return;
	bench_stale_finding(&v, &bench_stale_entry, "repoint to B without invalidating", "stale translation");
	bench_teardown(&v);
}

/* Invalidation of one kind: after it the DMA must reach B, and its cost
 * end to end is measured. */
void case_invalidate(struct test_ctx *t)
{
	const struct iommu_case_arg *arg = t->tc->arg;
	struct env v;
	if (!case_setup(t, &v))
		return;
	size_t k = bench_kind_named(v.io, arg->kind);
	if (!bench_needs(&v, k != (size_t)-1, SKIP_UNSUPPORTED, "%s does not offer %s invalidation", v.io->name,
			 arg->kind))
		return;
	struct stale_way way = bench_stale_kind(k);
	bench_stale_invalidated(&v, &way, "repoint to B", arg->kind);
	/* the cost: the same invalidation of a mapped page, again and again */
	uint64_t w0 = bench_window(&v, v.pg, 3);
	struct dmabuf p = { 0 };
	const char *e = bench_buffer(&v, &p, v.pg, v.pg) ? NULL : "no memory";
	if (!e)
		e = v.io->ops->map(v.io, w0, p.phys, v.pg, IOMMU_R, v.pg);
	report(t, !e, "a page mapped to invalidate%s%s", e ? ": " : "", e ? e : "");
	if (!e) {
		char variant[64];
		snprintf(variant, sizeof(variant), "%s%s%s", v.io->variant ? v.io->variant : "",
			 v.io->variant ? "-" : "", arg->kind);
		bench_time_invalidation(&v, &way, w0, arg->kind, variant,
					v.io->model ? "the driver's whole sequence against a register-level model: "
						      "CPU cycles of the sequence, not the hardware's time"
						    : "one page's invalidation, from the first register write to done");
		v.io->ops->unmap(v.io, w0, v.pg);
	}
	dmabuf_free(&p);
	test_note(t, "%s: after %s the DMA reached the new page", v.label, arg->kind);
	bench_teardown(&v);
}

/* ---- latency ----------------------------------------------------------- */

static void lat_series(struct env *v, const char *variant_tail, uint64_t iova, size_t n, uint64_t page_iova, bool cold)
{
	uint64_t *lat = malloc(n * sizeof(*lat));
	size_t got = 0;
	struct dma_result r;
	const char *err = NULL;
	for (size_t i = 0; lat && i < n && !err; i++) {
		if (test_stopped(v->t)) {
			n = i;
			break;
		}
		if (cold)
			err = bench_invalidate(v, "page", page_iova, v->pg);
		if (!err && !bench_dma(v, DMA_FROM_DEVICE, iova, v->len, &r))
			err = r.error;
		if (!err)
			lat[got++] = r.t_done - r.t_submit;
		timing_floor_sample();
		test_progress(v->t, i + 1, n, "DMAs");
	}
	report(v->t, !err && got == n, "%zu DMAs %s%s%s", got, variant_tail, err ? ": " : "", err ? err : "");
	if (got) {
		char variant[64], nb[128];
		snprintf(variant, sizeof(variant), "%s-from-device-%zu-%s", v->label, v->len, variant_tail);
		struct measure m = { .path = "translation",
				     .backend = v->io->backend,
				     .variant = variant,
				     .unit = "cycles",
				     .model = v->io->model,
				     .note = bench_note(v, nb, sizeof(nb)),
				     .cut = err };
		test_measure(v->t, &m, lat, got);
	}
	free(lat);
}

void case_latency(struct test_ctx *t)
{
	struct env v;
	if (!case_setup(t, &v))
		return;
	size_t n = bench_samples(&v);
	struct dmabuf a = { 0 }, d = { 0 }, *direct;
	if (!bench_buffer(&v, &a, v.len, v.pg)) {
		report(t, false, "no memory");
		bench_teardown(&v);
		return;
	}
	/* off and pass-through need a buffer the device reaches itself */
	const char *e = NULL;
	bool untranslated = bench_direct_buffer(&v, &a, &d, &direct);
	if (!untranslated)
		printf("    off and pass-through not measured: %s\n", v.direct_why[0] ? v.direct_why : "no memory");
	if (untranslated) { /* translation off: the unit does nothing, IOVA = physical */
		e = v.io->stays_on ? v.io->stays_on : v.io->ops->enable(v.io, false);
		if (v.io->stays_on) { /* it stays on for the firmware's devices */
			printf("    off not measured: %s\n", e);
		} else {
			report(t, !e, "translation off for the baseline%s%s", e ? ": " : "", e ? e : "");
			if (!e)
				lat_series(&v, "off", direct->phys, n, 0, false);
			e = v.io->ops->enable(v.io, true);
			report(t, !e, "translation back on%s%s", e ? ": " : "", e ? e : "");
		}
		/* pass-through context */
		e = v.io->ops->attach(v.io, v.e->addr, IOMMU_PASSTHROUGH);
		if (!e)
			lat_series(&v, "passthrough", direct->phys, n, 0, false);
		else
			printf("    pass-through not measured: %s\n", e);
		e = bench_translate(&v);
		report(t, !e, "back in its own domain%s%s", e ? ": " : "", e ? e : "");
	}
	/* translated, warm and cold */
	uint64_t w0 = bench_window(&v, v.pg, 0), iova = w0 + (a.phys & (v.pg - 1));
	if (!e)
		e = v.io->ops->map(v.io, w0, a.phys & ~(v.pg - 1), v.pg, IOMMU_RW, v.pg);
	struct dma_result r;
	if (!e && bench_dma(&v, DMA_FROM_DEVICE, iova, v.len, &r)) { /* warms the unit's cache */
		lat_series(&v, "iotlb-warm", iova, n, w0, false);
		lat_series(&v, "iotlb-cold", iova, n, w0, true);
	} else {
		report(t, false, "mapping the buffer: %s", e ? e : r.error);
	}
	report(t, dmabuf_guards_damaged(&a) + dmabuf_guards_damaged(&d) == 0, "guard bytes intact");
	if (untranslated)
		test_note(t, "%s: off, pass-through (where offered), warm and cold cache, %zu DMAs each", v.label, n);
	else
		test_note(t, "%s: warm and cold cache, %zu DMAs each; off and pass-through not measured: %s", v.label,
			  n, v.direct_why[0] ? v.direct_why : "no memory");
	bench_teardown(&v);
	dmabuf_free(&a);
	dmabuf_free(&d);
}

/* ---- map and unmap cost ------------------------------------------------- */

void case_map_cost(struct test_ctx *t)
{
	struct env v;
	if (!case_setup(t, &v))
		return;
	size_t n = 512;
	uint64_t *mc = malloc(n * sizeof(*mc)), *uc = malloc(n * sizeof(*uc));
	struct dmabuf a = { 0 };
	if (!mc || !uc || !bench_buffer(&v, &a, v.pg, v.pg)) {
		report(t, false, "no memory");
		free(mc), free(uc);
		bench_teardown(&v);
		return;
	}
	uint64_t base = bench_window(&v, n * v.pg, 0);
	const char *e = NULL;
	size_t got = 0;
	/* 512 pages one by one (all to the same frame: nothing DMAs here) */
	for (size_t i = 0; i < n && !e; i++) {
		if (test_stopped(t)) {
			n = i;
			break;
		}
		struct timed tr;
		timed_begin(&tr);
		e = v.io->ops->map(v.io, base + i * v.pg, a.phys & ~(v.pg - 1), v.pg, IOMMU_RW, v.pg);
		mc[i] = timed_end(&tr);
		got += !e;
	}
	report(t, !e, "%zu pages mapped one at a time%s%s", got, e ? ": " : "", e ? e : "");
	size_t ugot = 0;
	for (size_t i = 0; i < got && !e; i++) {
		struct timed tr;
		timed_begin(&tr);
		e = v.io->ops->unmap(v.io, base + i * v.pg, v.pg);
		uc[i] = timed_end(&tr);
		ugot += !e;
	}
	report(t, ugot == got, "%zu pages unmapped one at a time%s%s", ugot, e ? ": " : "", e ? e : "");
	const char *cm = v.io->map_flushes
			     ? "table update, cache-line flush and (caching mode) a page-selective invalidation"
			     : "table update and cache-line flush";
	char variant[64];
	snprintf(variant, sizeof(variant), "%s%s%lluk-one-page", v.io->variant ? v.io->variant : "",
		 v.io->variant ? "-" : "", (unsigned long long)v.pg >> 10);
	struct measure m = { .path = "map",
			     .backend = v.io->backend,
			     .variant = variant,
			     .unit = "cycles",
			     .model = v.io->model,
			     .note = cm };
	if (got)
		test_measure(t, &m, mc, got);
	m.path = "unmap";
	m.note = "table update and cache-line flush; no invalidation";
	if (ugot)
		test_measure(t, &m, uc, ugot);
	free(mc), free(uc);
	dmabuf_free(&a);
	test_note(t, "%zu pages mapped and unmapped", got);
	bench_teardown(&v);
}

/* ---- the take-over's note ------------------------------------------------ */

const char *bystanders_said(size_t fine, size_t tried, char *buf, size_t n)
{
	if (tried)
		snprintf(buf, n, "%zu of %zu bystander engines fine", fine, tried);
	else
		snprintf(buf, n, "no bystander engines: none behind the unit could be tried");
	return buf;
}

const struct test_doc iommu_shared_docs[] = {
	{ case_translate,
	  "the device under test, in a domain of its own, DMAs into and out of a buffer through leaves of the "
	  "case's size at an IOVA far from the buffer's physical address; both directions arrive byte for byte, "
	  "and the backend's own walk of its tables (iova_to_phys) lands on the buffer",
	  "wrong bytes, a fault, or a DMA that landed at the IOVA taken as a physical address: the unit did not "
	  "translate through the tables as built (their format, the leaf's size bits, the walk's levels), or the "
	  "backend built them wrong; a walk that disagrees is the backend's own error" },
	{ case_write_read_only,
	  "a device write to a page mapped read-only is refused: the page's bytes do not change, the unit records "
	  "the fault (requester, address, write) where it records faults, and its interrupt arrives where it has "
	  "one; the fault is timed from the DMA's start to the record and to the interrupt",
	  "changed bytes mean the unit let a forbidden write through (no protection at all); no record, or one "
	  "naming another requester, address or direction, means its fault reporting cannot be trusted; a "
	  "missing interrupt means the fault path is not wired" },
	{ case_read_not_present,
	  "a device read of an IOVA with no mapping is refused and recorded: the requester, the page and the "
	  "direction in the unit's fault record, the interrupt where there is one, each timed",
	  "a read that completed (data from somewhere) means the unit translated a page it was never given; a "
	  "missing or wrong record, or no interrupt, means faults go unseen on this unit" },
	{ case_stale,
	  "a mapping repointed from page A to page B without any invalidation, then a DMA: it lands in exactly "
	  "one of the two pages, and which one is recorded (A: the unit used its cached translation, a finding "
	  "the specification allows; B: it walked the tables again)",
	  "a DMA that reached neither page, or both, means the unit's cache returned a translation that was "
	  "never in the tables; the probe itself failing (mapping, DMA) is a failure of the driver or device" },
	{ case_invalidate,
	  "with the mapping repointed from A to B, the case's invalidation kind (page, range, domain, global, "
	  "its queued or register form) makes the next DMA reach B, every time over the timed repetitions",
	  "a DMA that still reaches A after the invalidation means the unit kept a translation the command said "
	  "to drop: an OS relying on that invalidation would leave a freed page reachable by the device; a "
	  "command that never completes is named with its deadline" },
	{ case_latency,
	  "per-DMA latency through the unit as the device sees it, in four states: translation off, "
	  "pass-through, translated with the IOTLB warm and cold; figures only (never asserted on time), each "
	  "with its noise floor and the counter it was taken with",
	  "fails only when a DMA in the series fails (wrong bytes, an error from the engine) or the unit cannot "
	  "be put into one of the states; the figures themselves are never judged: compare runs with "
	  "iommon-report compare" },
	{ case_map_cost,
	  "the CPU cost of mapping and unmapping one page at a time through the backend, with the invalidation "
	  "the unmap needs, as cycles per page; the mappings are checked by the backend's walk",
	  "a map or unmap that errs, or a walk that disagrees with what was mapped; the cycles are figures, "
	  "never asserted on" },
	{ NULL },
};
