/* The IOMMU cases, written once against the iommu and DMA engine
 * interfaces and run for every backend:
 * - group `vtd`: the device under test (`set device`, edu or NVMe) behind
 *   the VT-d unit that covers it, taken over from the firmware for each
 *   case and given back after it;
 * - groups `calgary` and `dart`: the register-level model the `model`
 *   command attached, with the DMA engine behind its bridge.
 *
 * Every buffer a DMA may touch is one of ours, guarded; IOVAs are placed at
 * the top of what both the unit and the device can address, far from the
 * physical pages they map. The device's own queues (NVMe) are mapped at
 * their physical addresses so the driver keeps working. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../../core/dmabuf.h"
#include "../../../core/settings.h"
#include "../../../core/timing.h"
#include "../../../iommu/dart.h"
#include "../../../iommu/iommu.h"
#include "../../../iommu/machine.h"
#include "../../../iommu/vtd.h"
#include "../../../pci/dma.h"
#include "../../models/apple_dart_model.h"
#include "../../models/calgary_model.h"
#include "../../models/dart_model.h"
#include "../../models/models.h"
#include "../bench.h"
#include "../catalogue.h"

#define PAGE 4096ull

/* ---- set-up and tear-down ---------------------------------------------- */

/* The device under test in an empty domain with its own queues mapped. */
const char *bench_translate(struct env *v)
{
	const char *e = v->io->ops->attach(v->io, v->e->addr, IOMMU_TRANSLATE);
	for (size_t i = 0; !e && i < v->e->nown; i++)
		e = v->io->ops->map(v->io, v->e->own[i].phys, v->e->own[i].phys, v->e->own[i].len, IOMMU_RW, PAGE);
	return e;
}

/* The bench a case runs on: VT-d on the machine, or the attached model. */
static bool bench(struct test_ctx *t, struct env *v, const char *on)
{
	const char *why = "no engine";
	char backend[16];
	snprintf(backend, sizeof(backend), "%.*s", (int)strcspn(t->tc->name, "."), t->tc->name);
	if (on)
		snprintf(backend, sizeof(backend), "%s", on);
	if (strcmp(backend, "vtd") != 0) {
		if (!model_bench(backend, &v->io, &v->e, &why)) {
			test_skip(t, "%s", why);
			return false;
		}
		t->model = v->io->model;
		return true;
	}
	v->machine = true;
	if (!platform->hardware) {
		test_skip(t, "no IOMMU on this platform");
		return false;
	}
	v->e = machine_engine(&why);
	if (!v->e) {
		test_skip(t, "no DMA engine: %s", why);
		return false;
	}
	v->io = machine_iommu(v->e->addr, &why);
	if (!v->io) {
		test_skip(t, "%s", why);
		return false;
	}
	return true;
}

static const char *give_back(struct env *v)
{
	return v->machine ? machine_iommu_give_back() : v->io->ops->give_back(v->io);
}

bool bench_setup(struct test_ctx *t, struct env *v, const char *backend)
{
	memset(v, 0, sizeof(*v));
	v->t = t;
	if (!bench(t, v, backend))
		return false;
	const char *why;
	v->label = v->io->variant ? v->io->variant : v->e->kind; /* named in every record */
	v->pg = v->io->page_sizes & -v->io->page_sizes;
	v->bits = v->e->caps.addr_bits < v->io->addr_bits ? v->e->caps.addr_bits : v->io->addr_bits;
	/* buffers in the lower half of what both reach, IOVAs in the upper
	 * half: a translation that does nothing cannot pass for one that works.
	 * An IO space smaller than the device's reach (Calgary, DART) is apart
	 * from physical memory anyway: buffers anywhere the device reaches. */
	unsigned eb = v->e->caps.addr_bits;
	v->limit = v->io->addr_bits >= eb ? 1ull << (v->bits - 1) : eb < 64 ? 1ull << eb : 0;
	v->len = v->e->caps.max_len < PAGE ? v->e->caps.max_len : PAGE;
	if (v->e->caps.len_unit > 1)
		v->len -= v->len % v->e->caps.len_unit;
	uint64_t t0 = cycles_begin();
	why = v->io->ops->take(v->io);
	v->t_take = cycles_end() - t0;
	if (!why)
		why = bench_translate(v);
	if (why) {
		report(t, false, "taking %s over for %s: %s", v->io->name, v->label, why);
		give_back(v);
		return false;
	}
	if (v->io->variant)
		printf("    %s, %s\n", v->io->name, v->io->variant);
	return true;
}

void bench_teardown(struct env *v)
{
	if (!v->io)
		return;
	v->e->on_wait = NULL;
	const char *e = give_back(v);
	report(v->t, e == NULL, "%s given back as %s%s%s", v->io->name, v->machine ? "the firmware left it" : "found",
	       e ? ": " : "", e ? e : "");
	if (v->io->model) { /* the model fails a driver that does what the hardware forbids */
		char what[160];
		report(v->t, model_violations(what, sizeof(what)) == 0, "the model saw %s", what);
	}
}

/* ---- IOVAs and DMA ----------------------------------------------------- */

/* The device's own queues, and the interrupt range (a write there is an
 * interrupt request, never translated DMA). */
static bool overlaps_own(const struct env *v, uint64_t base, uint64_t size)
{
	if (base < 0xfef00000ull && 0xfee00000ull < base + size)
		return true;
	for (size_t i = 0; i < v->e->nown; i++)
		if (base < v->e->own[i].phys + v->e->own[i].len && v->e->own[i].phys < base + size)
			return true;
	return false;
}

/* An IOVA window of `size` bytes aligned to `size`, as high as the device
 * and the unit reach, clear of the device's own queues; `slot` picks the
 * next window down. A window larger than the device's reach starts at 0. */
uint64_t bench_window(const struct env *v, uint64_t size, unsigned slot)
{
	uint64_t top = 1ull << v->bits;
	if (size >= top)
		return 0;
	/* the slot-th usable window, counting down from the top */
	for (uint64_t base = top - size; base < top; base -= size) {
		bool usable =
		    !overlaps_own(v, base, size) && !(v->io->ops->reserved && v->io->ops->reserved(v->io, base, size));
		if (usable && slot-- == 0)
			return base;
		if (base < size)
			break;
	}
	return 0;
}

bool bench_dma(struct env *v, enum dma_dir dir, uint64_t iova, size_t len, struct dma_result *r)
{
	v->e->transfer(v->e, dir, iova, len, r);
	return r->status == DMA_OK;
}

/* The first usable invalidation of a granularity, for the cases that just
 * need one. */
size_t bench_kind_for(const struct iommu *io, const char *gran)
{
	for (size_t k = 0; k < io->nkinds; k++)
		if (strcmp(io->kinds[k].granularity, gran) == 0)
			return k;
	return (size_t)-1;
}

/* The narrowest invalidation the unit offers that covers the range. */
const char *bench_invalidate(struct env *v, const char *gran, uint64_t iova, uint64_t size)
{
	static const char *const wider[] = { "page", "domain", "global" };
	size_t k = bench_kind_for(v->io, gran);
	for (size_t i = 0; k == (size_t)-1 && i < 3; i++)
		k = bench_kind_for(v->io, wider[i]);
	return v->io->ops->invalidate(v->io, k, iova, size);
}

/* The device's data source: a roundtrip engine (edu) gets a pattern first,
 * from a mapped page; a medium (NVMe) has its own. */
static bool load_device(struct env *v, uint32_t seed)
{
	if (!v->e->caps.roundtrip)
		return true;
	struct dmabuf s;
	if (!dmabuf_alloc_in(&s, v->len, 0, v->limit, v->pg))
		return false;
	dmabuf_pattern(&s, seed);
	uint64_t iova = bench_window(v, v->pg, 8);
	const char *e = v->io->ops->map(v->io, iova, s.phys & ~(v->pg - 1), v->pg, IOMMU_R, v->pg);
	struct dma_result r;
	bool ok = !e && bench_dma(v, DMA_TO_DEVICE, iova + (s.phys & (v->pg - 1)), v->len, &r);
	if (!e) {
		v->io->ops->unmap(v->io, iova, v->pg);
		bench_invalidate(v, "page", iova, v->pg);
	}
	dmabuf_free(&s);
	return ok;
}

static size_t samples(const struct env *v)
{
	return v->e->caps.fixed_latency_us ? 3 : (size_t)setting_long("dma.samples");
}

static const char *note_for(const struct env *v, char *buf, size_t n)
{
	if (!v->e->caps.fixed_latency_us)
		return NULL;
	snprintf(buf, n, "%s completes every DMA %u ms after it starts: a model's delay, not a latency", v->label,
		 v->e->caps.fixed_latency_us / 1000);
	return buf;
}

/* ---- translation at each leaf size ------------------------------------- */

static void translate_size(struct test_ctx *t, uint64_t page, const char *name)
{
	struct env v;
	if (!bench_setup(t, &v, NULL))
		return;
	char base_name[32];
	if (page == 0) { /* the unit's own page size */
		page = v.pg;
		snprintf(base_name, sizeof(base_name), "%llu KiB", (unsigned long long)page >> 10);
		name = base_name;
	}
	if (!(v.io->page_sizes & page)) {
		bench_teardown(&v);
		test_skip(t, "%s has no %s leaves (CAP.SLLPS)", v.io->name, name);
		return;
	}
	struct dmabuf a = { 0 }, b = { 0 };
	if (!dmabuf_alloc_in(&a, v.len, 0, v.limit, v.pg) || !dmabuf_alloc_in(&b, v.len, 0, v.limit, v.pg)) {
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
	       page >> v.bits ? " (one leaf covers all the device reaches: IOVA = physical here)" : "");
	if (bench_is(&v, "vtd")) {
		const struct vtd *vt = (const struct vtd *)v.io;
		uint64_t ph;
		unsigned perm, level;
		bool found = vtd_walk(vt, &vt->dut, ia, &ph, &perm, &level);
		report(t, found && ph == a.phys && (1ull << (12 + 9 * (level - 1))) == page,
		       "the tables translate 0x%llx to 0x%llx through a %s leaf (%u-level walk)",
		       (unsigned long long)ia, (unsigned long long)(found ? ph : 0), name, vt->levels);
	}
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
			report(t, r.status == DMA_DEVICE_ERROR,
			       "with one byte of the buffer changed, the device sees the change (%s)",
			       r.status == DMA_DEVICE_ERROR ? "miscompare" : dma_status_name(r.status));
		}
	}
	report(t, dmabuf_guards_damaged(&a) + dmabuf_guards_damaged(&b) == 0, "every guard byte untouched");
	test_note(t, "%s through %s leaves at IOVA 0x%llx", v.label, name, (unsigned long long)ia);
out:
	bench_teardown(&v);
	dmabuf_free(&a);
	dmabuf_free(&b);
}

static void t_translate_4k(struct test_ctx *t)
{
	translate_size(t, 1ull << 12, "4 KiB");
}
static void t_translate_base(struct test_ctx *t)
{
	translate_size(t, 0, NULL);
}
static void t_translate_2m(struct test_ctx *t)
{
	translate_size(t, 1ull << 21, "2 MiB");
}
static void t_translate_1g(struct test_ctx *t)
{
	translate_size(t, 1ull << 30, "1 GiB");
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
	if (!bench_setup(t, &v, NULL))
		return;
	if (write && !v.io->perm_bits) {
		bench_teardown(&v);
		test_skip(t, "%s entries are valid or not: no page can be read-only", v.io->backend);
		return;
	}
	struct dmabuf a = { 0 };
	if (!dmabuf_alloc_in(&a, v.len, 0, v.limit, v.pg)) {
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
	uint16_t sid = (uint16_t)(v.e->addr.bus << 8 | v.e->addr.dev << 3 | v.e->addr.fn);
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
		 * record cannot be checked (Calgary's CSR names no address) */
		enum iommu_fault_kind want = write ? IOMMU_FAULT_WRITE_DENIED : IOMMU_FAULT_NOT_PRESENT;
		bool right = nf >= 1 && (!f[0].sid_known || f[0].sid == sid) &&
			     (!f[0].addr_known || f[0].addr == (iova & ~(v.pg - 1))) &&
			     (!f[0].dir_known || f[0].read == !write) &&
			     (f[0].kind == want || f[0].kind == IOMMU_FAULT_OTHER);
		if (bench_is(&v, "vtd"))
			right = right && f[0].reason == (write ? 5u : 6u);
		bool intact = !bench_changed(&a, seed) && dmabuf_guards_damaged(&a) == 0;
		if (i == 0) {
			if (nf)
				printf("    fault: %s%s at %s, code 0x%x (%s); DMA status %s\n",
				       f[0].sid_known ? "sid " : "",
				       f[0].dir_known ? (f[0].read ? "read" : "write") : "access",
				       f[0].addr_known ? "the page named" : "an address the hardware does not record",
				       f[0].reason, f[0].why, dma_status_name(r.status));
			report(t, nf >= 1, "the %s of IOVA 0x%llx was recorded as a fault", write ? "write" : "read",
			       (unsigned long long)iova);
			if (bench_is(&v, "vtd"))
				report(
				    t, right,
				    "the record names the device (sid %04x), the page 0x%llx, a %s and reason %u (%s)",
				    sid, (unsigned long long)(iova & ~(v.pg - 1)), write ? "write" : "read",
				    write ? 5 : 6, write ? "no write permission" : "not present");
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
	}
	report(t, good == n, "%zu of %zu forbidden DMAs faulted as expected", good, n);
	char variant[64], nb[128];
	const char *note = note_for(&v, nb, sizeof(nb));
	struct measure m = { .path = "fault", .backend = v.io->backend, .unit = "cycles", .model = v.io->model };
	m.note = note ? note : "from the doorbell to the first poll that saw FSTS.PPF (one poll loop of resolution)";
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
	if (bench_is(&v, "vtd"))
		test_note(t, "%s: %zu faults, reason %u, %s", v.label, n, write ? 5 : 6,
			  v.io->irq ? "interrupt each time" : "polled");
	else
		test_note(t, "%s: %zu faults, each seen in its error register (polled)", v.label, n);
	free(rec), free(irq);
	if (write)
		v.io->ops->unmap(v.io, w0, v.pg);
out:
	bench_teardown(&v);
	dmabuf_free(&a);
}

static void t_write_read_only(struct test_ctx *t)
{
	fault_case(t, true);
}
static void t_read_not_present(struct test_ctx *t)
{
	fault_case(t, false);
}

/* ---- stale translations and invalidation -------------------------------- */

/* Map IOVA -> A, DMA (the IOTLB learns it), repoint the entry to B without
 * telling the unit, DMA again: which buffer did the device write? Then
 * invalidate with `kind` (or none) and DMA once more. */
struct stale {
	int before; /* after the repoint, before invalidating: 'A', 'B', '?' */
	int after;  /* after invalidating: 'A', 'B', '?' */
	uint64_t inval_cycles;
	const char *err;
};

static int which(const struct dmabuf *a, uint32_t sa, const struct dmabuf *b, uint32_t sb)
{
	bool ca = bench_changed(a, sa), cb = bench_changed(b, sb);
	return ca && !cb ? 'A' : cb && !ca ? 'B' : ca ? '2' : '0';
}

/* `context`: repoint by moving the device to another domain (its context
 * entry) instead of changing the page entry; `kind` is then 0 for the
 * register interface and 1 for the queue. */
static void stale_probe(struct env *v, size_t kind, bool context, struct stale *s)
{
	memset(s, 0, sizeof(*s));
	struct dmabuf a = { 0 }, b = { 0 };
	if (!dmabuf_alloc_in(&a, v->len, 0, v->limit, v->pg) || !dmabuf_alloc_in(&b, v->len, 0, v->limit, v->pg)) {
		s->err = "no memory";
		dmabuf_free(&a);
		dmabuf_free(&b);
		return;
	}
	uint64_t w0 = bench_window(v, v->pg, 2);
	uint64_t iova = w0 + (a.phys & (v->pg - 1));
	struct dma_result r;
	/* the device's data differs from every prefill pattern below (seeds 1..5) */
	const char *e = load_device(v, 0xd06) ? NULL : "loading the device's data failed";
	if (!e && (a.phys & (v->pg - 1)) != (b.phys & (v->pg - 1)))
		e = "the two buffers sit at different offsets in their pages";
	if (!e)
		e = v->io->ops->map(v->io, w0, a.phys & ~(v->pg - 1), v->pg, IOMMU_RW, v->pg);
	if (!e) {
		dmabuf_pattern(&a, 1);
		if (!bench_dma(v, DMA_FROM_DEVICE, iova, v->len, &r))
			e = r.error;
		else if (!bench_changed(&a, 1))
			e = "the first DMA did not reach A";
	}
	/* repoint without invalidating */
	if (!e && context) {
		e = vtd_context_swap((struct vtd *)v->io, w0, b.phys, v->e->own, v->e->nown);
	} else if (!e) {
		e = v->io->ops->unmap(v->io, w0, v->pg);
		if (!e)
			e = v->io->ops->map(v->io, w0, b.phys & ~(v->pg - 1), v->pg, IOMMU_RW, v->pg);
	}
	if (!e) {
		dmabuf_pattern(&a, 2), dmabuf_pattern(&b, 3);
		if (!bench_dma(v, DMA_FROM_DEVICE, iova, v->len, &r))
			e = r.error;
		s->before = which(&a, 2, &b, 3);
	}
	if (!e && kind != (size_t)-1) {
		uint64_t t0 = cycles_begin();
		e = context ? vtd_context_invalidate((struct vtd *)v->io, kind == 1)
			    : v->io->ops->invalidate(v->io, kind, w0, v->pg);
		s->inval_cycles = cycles_end() - t0;
		if (!e) {
			dmabuf_pattern(&a, 4), dmabuf_pattern(&b, 5);
			if (!bench_dma(v, DMA_FROM_DEVICE, iova, v->len, &r))
				e = r.error;
			s->after = which(&a, 4, &b, 5);
		}
	}
	if (dmabuf_guards_damaged(&a) + dmabuf_guards_damaged(&b))
		e = e ? e : "guard bytes around A or B were written";
	v->io->ops->unmap(v->io, w0, v->pg);
	bench_invalidate(v, "page", w0, v->pg);
	s->err = e;
	dmabuf_free(&a);
	dmabuf_free(&b);
}

static const char *landed(int c)
{
	return c == 'A' ? "A (the old page: stale)" : c == 'B' ? "B (the new page)" : c == '2' ? "both" : "neither";
}

static void t_stale_iotlb(struct test_ctx *t)
{
	struct env v;
	if (!bench_setup(t, &v, NULL))
		return;
	struct stale s;
	stale_probe(&v, (size_t)-1, false, &s);
	report(t, !s.err, "map A, DMA, repoint to B without invalidating, DMA%s%s", s.err ? ": " : "",
	       s.err ? s.err : "");
	if (!s.err) {
		report(t, s.before == 'A' || s.before == 'B', "the second DMA landed in exactly one page: %s",
		       landed(s.before));
		printf("    finding: %s the stale translation (the spec allows either)\n",
		       s.before == 'A' ? "the unit USED" : "the unit did not use");
		test_note(t, "%s: stale cached translation %s", v.label,
			  s.before == 'A' ? "used (finding)" : "not used");
	}
	bench_teardown(&v);
}

/* Invalidation of one kind: after it the DMA must reach B, and its cost
 * end to end is measured. */
static void invalidate_case(struct test_ctx *t, const char *kind_name)
{
	struct env v;
	if (!bench_setup(t, &v, NULL))
		return;
	size_t k = (size_t)-1;
	for (size_t i = 0; i < v.io->nkinds; i++)
		if (strcmp(v.io->kinds[i].name, kind_name) == 0)
			k = i;
	if (k == (size_t)-1) {
		bench_teardown(&v);
		test_skip(t, "%s does not offer %s invalidation", v.io->name, kind_name);
		return;
	}
	struct stale s;
	stale_probe(&v, k, false, &s);
	report(t, !s.err, "map A, DMA, repoint to B, %s invalidation, DMA%s%s", kind_name, s.err ? ": " : "",
	       s.err ? s.err : "");
	if (!s.err) {
		printf("    before the invalidation the DMA landed in %s\n", landed(s.before));
		report(t, s.after == 'B', "after %s invalidation the DMA reached %s", kind_name, landed(s.after));
	}
	/* the cost: the same invalidation, again and again, end to end */
	size_t n = v.e->caps.fixed_latency_us ? 20 : 200;
	uint64_t *c = malloc(n * sizeof(*c));
	size_t got = 0;
	uint64_t w0 = bench_window(&v, v.pg, 3);
	struct dmabuf p = { 0 };
	const char *e = dmabuf_alloc_in(&p, v.pg, 0, v.limit, v.pg) ? NULL : "no memory";
	bool mapped = !e && !(e = v.io->ops->map(v.io, w0, p.phys, v.pg, IOMMU_R, v.pg));
	for (size_t i = 0; c && !e && i < n; i++) {
		if (test_stopped(t)) {
			n = i;
			break;
		}
		struct timed tr;
		timed_begin(&tr);
		e = v.io->ops->invalidate(v.io, k, w0, v.pg);
		c[got] = timed_end(&tr);
		got += !e;
	}
	report(t, c && got == n, "%zu %s invalidations timed%s%s", got, kind_name, e ? ": " : "", e ? e : "");
	if (got) {
		char variant[64];
		snprintf(variant, sizeof(variant), "%s%s%s", v.io->variant ? v.io->variant : "",
			 v.io->variant ? "-" : "", kind_name);
		struct measure m = { .path = "invalidation",
				     .backend = v.io->backend,
				     .variant = variant,
				     .unit = "cycles",
				     .model = v.io->model,
				     .note =
					 v.io->model
					     ? "the driver's whole sequence against a register-level model: CPU "
					       "cycles of the sequence, not the hardware's time"
					     : "one 4 KiB page's invalidation, from the first register write to done" };
		test_measure(t, &m, c, got);
	}
	free(c);
	if (mapped)
		v.io->ops->unmap(v.io, w0, v.pg);
	dmabuf_free(&p);
	test_note(t, "%s: after %s the DMA reached the new page", v.label, kind_name);
	bench_teardown(&v);
}

/* vtd.invalidate_<interface>_<granularity>: the kind named by the test. */
static void t_invalidate(struct test_ctx *t)
{
	char kind[32];
	const char *p = strstr(t->tc->name, "invalidate_");
	snprintf(kind, sizeof(kind), "%s", p ? p + strlen("invalidate_") : "");
	for (char *c = kind; *c; c++)
		*c = *c == '_' ? '-' : *c;
	invalidate_case(t, kind);
}

/* The context cache: the device moved to another domain without telling
 * the unit. Which tables does its next DMA use? */
static void t_stale_context(struct test_ctx *t)
{
	struct env v;
	if (!bench_setup(t, &v, NULL))
		return;
	struct stale s;
	stale_probe(&v, (size_t)-1, true, &s);
	report(t, !s.err,
	       "map A, DMA, move the device to a domain mapping B (IOTLB invalidated, context cache not), DMA%s%s",
	       s.err ? ": " : "", s.err ? s.err : "");
	if (!s.err) {
		report(t, s.before == 'A' || s.before == 'B', "the second DMA landed in exactly one page: %s",
		       landed(s.before));
		printf("    finding: the unit %s the stale context entry\n", s.before == 'A' ? "USED" : "did not use");
		test_note(t, "%s: stale context entry %s", v.label, s.before == 'A' ? "used (finding)" : "not used");
	}
	bench_teardown(&v);
}

/* The same move, then a device-selective context-cache invalidation and the
 * old domain's IOTLB: the DMA must reach B. */
static void context_case(struct test_ctx *t, bool queued)
{
	struct env v;
	if (!bench_setup(t, &v, NULL))
		return;
	struct vtd *vt = (struct vtd *)v.io;
	if (queued && !vt->qi) {
		bench_teardown(&v);
		test_skip(t, "%s has no queued invalidation", v.io->name);
		return;
	}
	const char *name = queued ? "queued-context" : "register-context";
	struct stale s;
	stale_probe(&v, queued, true, &s);
	report(t, !s.err, "map A, DMA, move the device to a domain mapping B, %s invalidation, DMA%s%s", name,
	       s.err ? ": " : "", s.err ? s.err : "");
	if (!s.err) {
		printf("    before the invalidation the DMA landed in %s\n", landed(s.before));
		report(t, s.after == 'B', "after %s invalidation the DMA reached %s", name, landed(s.after));
	}
	size_t n = v.e->caps.fixed_latency_us ? 20 : 200, got = 0;
	uint64_t *c = malloc(n * sizeof(*c));
	const char *e = c ? NULL : "no memory";
	for (size_t i = 0; !e && i < n; i++) {
		if (test_stopped(t)) {
			n = i;
			break;
		}
		struct timed tr;
		timed_begin(&tr);
		e = vtd_context_invalidate(vt, queued);
		c[got] = timed_end(&tr);
		got += !e;
	}
	report(t, got == n, "%zu %s invalidations timed%s%s", got, name, e ? ": " : "", e ? e : "");
	if (got) {
		struct measure m = { .path = "invalidation",
				     .backend = v.io->backend,
				     .variant = name,
				     .unit = "cycles",
				     .model = v.io->model,
				     .note =
					 "device-selective context-cache invalidation, then the old domain's IOTLB, "
					 "as a context change requires" };
		test_measure(t, &m, c, got);
	}
	free(c);
	test_note(t, "%s: after %s the DMA reached the new domain", v.label, name);
	bench_teardown(&v);
}

static void t_invalidate_context(struct test_ctx *t)
{
	context_case(t, strstr(t->tc->name, "queued") != NULL);
}

/* A descriptor the unit must refuse: IQE reported, cleared, queue back. */
static void t_queue_error(struct test_ctx *t)
{
	struct env v;
	if (!bench_setup(t, &v, NULL))
		return;
	struct vtd *vt = (struct vtd *)v.io;
	if (!vt->qi) {
		bench_teardown(&v);
		test_skip(t, "%s has no queued invalidation", v.io->name);
		return;
	}
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
	struct stale s;
	size_t k = (size_t)-1;
	for (size_t i = 0; i < v.io->nkinds; i++)
		if (strcmp(v.io->kinds[i].name, "queued-global") == 0)
			k = i;
	stale_probe(&v, k, false, &s);
	report(t, !s.err && s.after == 'B', "after the recovery a queued invalidation still takes effect (%s)",
	       s.err ? s.err : landed(s.after));
	test_note(t, "queue error reported, cleared, queue recovered");
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
				     .note = note_for(v, nb, sizeof(nb)) };
		test_measure(v->t, &m, lat, got);
	}
	free(lat);
}

static void t_latency(struct test_ctx *t)
{
	struct env v;
	if (!bench_setup(t, &v, NULL))
		return;
	size_t n = samples(&v);
	struct dmabuf a = { 0 };
	if (!dmabuf_alloc_in(&a, v.len, 0, v.limit, v.pg)) {
		report(t, false, "no memory");
		bench_teardown(&v);
		return;
	}
	/* translation off: the unit does nothing, IOVA = physical */
	const char *e = v.io->ops->enable(v.io, false);
	report(t, !e, "translation off for the baseline%s%s", e ? ": " : "", e ? e : "");
	if (!e)
		lat_series(&v, "off", a.phys, n, 0, false);
	e = v.io->ops->enable(v.io, true);
	report(t, !e, "translation back on%s%s", e ? ": " : "", e ? e : "");
	/* pass-through context */
	e = v.io->ops->attach(v.io, v.e->addr, IOMMU_PASSTHROUGH);
	if (!e)
		lat_series(&v, "passthrough", a.phys, n, 0, false);
	else
		printf("    pass-through not measured: %s\n", e);
	e = bench_translate(&v);
	report(t, !e, "back in its own domain%s%s", e ? ": " : "", e ? e : "");
	/* translated, warm and cold */
	uint64_t w0 = bench_window(&v, v.pg, 0), iova = w0 + (a.phys & (v.pg - 1));
	if (!e)
		e = v.io->ops->map(v.io, w0, a.phys & ~(v.pg - 1), v.pg, IOMMU_RW, v.pg);
	struct dma_result r;
	if (!e && bench_dma(&v, DMA_FROM_DEVICE, iova, v.len, &r)) { /* warms the IOTLB */
		lat_series(&v, "iotlb-warm", iova, n, w0, false);
		lat_series(&v, "iotlb-cold", iova, n, w0, true);
	} else {
		report(t, false, "mapping the buffer: %s", e ? e : r.error);
	}
	report(t, dmabuf_guards_damaged(&a) == 0, "guard bytes intact");
	test_note(t, "%s: off, pass-through (where offered), warm and cold cache, %zu DMAs each", v.label, n);
	bench_teardown(&v);
	dmabuf_free(&a);
}

/* ---- map and unmap cost ------------------------------------------------- */

static void t_map_cost(struct test_ctx *t)
{
	struct env v;
	if (!bench_setup(t, &v, NULL))
		return;
	size_t n = 512;
	uint64_t *mc = malloc(n * sizeof(*mc)), *uc = malloc(n * sizeof(*uc));
	struct dmabuf a = { 0 };
	if (!mc || !uc || !dmabuf_alloc_in(&a, v.pg, 0, v.limit, v.pg)) {
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
	const char *cm = bench_is(&v, "vtd") && ((struct vtd *)v.io)->cm
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

/* ---- taking over and the bystanders ------------------------------------- */

static void t_takeover(struct test_ctx *t)
{
	struct env v;
	if (!bench_setup(t, &v, NULL))
		return;
	struct vtd *vt = (struct vtd *)v.io;
	uint32_t gsts = regwin_read32(&vt->w, VTD_REG_GSTS);
	report(t, (gsts & VTD_GCMD_TE) != 0, "translation is on (GSTS 0x%08x)", gsts);
	report(t, regwin_read64(&vt->w, VTD_REG_RTADDR) == (uint64_t)(uintptr_t)vt->root,
	       "the root table is ours (RTADDR 0x%llx)", (unsigned long long)(uintptr_t)vt->root);
	printf("    taken over in %.2f ms: %u-level walk, bystanders %s, DMA %s, fault interrupt %s\n",
	       cycles_to_ns(v.t_take) / 1e6, vt->levels, vt->bystanders_pt ? "passed through" : "in an identity domain",
	       vt->coherent ? "coherent"
			    : "not coherent "
			      "(table writes flushed)",
	       v.io->irq ? "on" : "off (polled)");
	if (!vt->bystanders_pt)
		printf("    identity domain over [0, 0x%llx) in the largest leaves\n",
		       (unsigned long long)vt->ident_top);
	/* every other DMA-capable function on this unit keeps working */
	size_t others = 0, fine = 0;
	for (size_t i = 0; i < machine.pci.n; i++) {
		const struct pci_dev *d = &machine.pci.d[i];
		if (!dma_has_driver(d) || pci_addr_eq(d->addr, v.e->addr) || d->iommu < 0 ||
		    strcmp(machine.units.u[d->iommu].name, v.io->name) != 0)
			continue;
		const char *why = NULL;
		struct dma_engine *o = dma_open(&machine.cfg, d, &why);
		char bdf[16];
		pci_addr_str(d->addr, bdf, sizeof(bdf));
		if (!o) {
			printf("    bystander %s not opened: %s\n", bdf, why);
			continue;
		}
		others++;
		struct dmabuf b;
		uint64_t limit = o->caps.addr_bits < 64 ? 1ull << o->caps.addr_bits : 0;
		size_t len = o->caps.max_len < PAGE ? o->caps.max_len : PAGE;
		if (o->caps.len_unit > 1)
			len -= len % o->caps.len_unit;
		if (dmabuf_alloc(&b, len, 0, limit)) {
			dmabuf_pattern(&b, 9);
			struct dma_result r;
			o->transfer(o, DMA_FROM_DEVICE, b.phys, len, &r);
			bool ok = r.status == DMA_OK && dmabuf_guards_damaged(&b) == 0 &&
				  (o->caps.roundtrip || bench_changed(&b, 9));
			report(t, ok, "bystander %s (%s) DMAs to its physical buffer while %s translates: %s", bdf,
			       o->kind, v.io->name, r.status == DMA_OK ? "arrived" : r.error);
			fine += ok;
			dmabuf_free(&b);
		}
		o->close(o);
	}
	test_note(t, "%s taken in %.1f ms; %zu of %zu bystander engines fine", v.io->name, cycles_to_ns(v.t_take) / 1e6,
		  fine, others);
	bench_teardown(&v);
}

/* ---- Calgary and DART: their own strategies and faults ----------------- */

/* Linux's Calgary scheme: a next-fit allocator over a window of IO pages;
 * unmapping only zeroes the TCE; the cache is flushed when the allocator
 * wraps. Until then a freed page stays reachable through the TCE cache:
 * the exposure the seed paper's deferred flush buys its speed with. */
static void t_flush_on_wrap(struct test_ctx *t)
{
	struct env v;
	if (!bench_setup(t, &v, NULL))
		return;
	const unsigned W = 32, N = 96;
	struct dmabuf a = { 0 };
	uint64_t *fl = malloc(N * sizeof(*fl));
	if (!fl || !dmabuf_alloc_in(&a, v.len, 0, v.limit, v.pg)) {
		report(t, false, "no memory");
		free(fl);
		bench_teardown(&v);
		return;
	}
	uint64_t base = bench_window(&v, W * v.pg, 0);
	unsigned exposed = 0, freed = 0, flushes = 0, errors = 0;
	const char *e = NULL;
	for (unsigned i = 0; i < N && !e && !test_stopped(t); i++) {
		uint64_t io = base + (i % W) * v.pg, iova = io + (a.phys & (v.pg - 1));
		struct dma_result r;
		e = v.io->ops->map(v.io, io, a.phys & ~(v.pg - 1), v.pg, IOMMU_RW, v.pg);
		if (!e && !bench_dma(&v, DMA_FROM_DEVICE, iova, v.len, &r))
			e = r.error;
		if (!e)
			e = v.io->ops->unmap(v.io, io, v.pg);
		/* the freed page, probed: does the device still get through? */
		v.e->transfer(v.e, DMA_FROM_DEVICE, iova, v.len, &r);
		freed++;
		exposed += r.status == DMA_OK;
		struct iommu_fault f[2];
		bool ovf;
		v.io->ops->faults(v.io, f, 2, &ovf);
		if (i % W == W - 1) { /* the allocator wraps: the one flush */
			struct timed tr;
			timed_begin(&tr);
			const char *fe = v.io->ops->invalidate(v.io, 0, base, W * v.pg);
			fl[flushes++] = timed_end(&tr);
			errors += fe != NULL;
		}
	}
	report(t, !e, "%u DMAs through a %u-page window, unmapped without flushing%s%s", freed, W, e ? ": " : "",
	       e ? e : "");
	report(t, errors == 0, "%u flushes, one per wrap, all completed", flushes);
	/* after the wrap's flush no freed page may be reachable */
	struct dma_result r;
	v.e->transfer(v.e, DMA_FROM_DEVICE, base + (a.phys & (v.pg - 1)), v.len, &r);
	struct iommu_fault f[2];
	bool ovf;
	size_t nf = v.io->ops->faults(v.io, f, 2, &ovf);
	report(t, r.status != DMA_OK && nf >= 1, "after the flush a freed page faults (%s)",
	       r.status != DMA_OK ? "aborted, CSR set" : "still reachable");
	printf("    exposure: %u of %u freed pages were still reachable before the flush at the wrap\n", exposed,
	       freed);
	if (flushes) {
		char variant[48];
		snprintf(variant, sizeof(variant), "%s-flush-on-wrap", v.label);
		struct measure m = { .path = "invalidation",
				     .backend = v.io->backend,
				     .variant = variant,
				     .unit = "cycles",
				     .model = v.io->model,
				     .note = v.io->model ? "the flush sequence against the model: CPU cycles, not "
							   "the hardware's time"
							 : NULL };
		test_measure(t, &m, fl, flushes);
	}
	test_note(t, "%s: %u of %u freed pages exposed until the wrap's flush", v.label, exposed, freed);
	free(fl);
	dmabuf_free(&a);
	bench_teardown(&v);
}

/* Linux's DART scheme: invalidate on map (U4: one entry; U3: all), never on
 * unmap. A page mapped again is right at once; a page only unmapped stays
 * reachable until something else flushes. */
static void t_flush_on_map(struct test_ctx *t)
{
	struct env v;
	if (!bench_setup(t, &v, NULL))
		return;
	struct dmabuf a = { 0 }, b = { 0 };
	const size_t n = 64;
	uint64_t *mc = malloc(n * sizeof(*mc));
	if (!mc || !dmabuf_alloc_in(&a, v.len, 0, v.limit, v.pg) || !dmabuf_alloc_in(&b, v.len, 0, v.limit, v.pg)) {
		report(t, false, "no memory");
		goto out;
	}
	size_t one = bench_kind_for(v.io, "page"), kind = one != (size_t)-1 ? one : bench_kind_for(v.io, "global");
	uint64_t io = bench_window(&v, v.pg, 0), iova = io + (a.phys & (v.pg - 1));
	const char *e = NULL;
	size_t got = 0;
	bool right = true;
	struct dma_result r;
	for (size_t i = 0; i < n && !e && !test_stopped(t); i++) {
		struct dmabuf *to = i % 2 ? &b : &a;
		uint32_t seed = 100 + (uint32_t)i;
		dmabuf_pattern(&a, seed), dmabuf_pattern(&b, seed + 1000);
		struct timed tr;
		timed_begin(&tr);
		e = v.io->ops->map(v.io, io, to->phys & ~(v.pg - 1), v.pg, IOMMU_RW, v.pg);
		if (!e)
			e = v.io->ops->invalidate(v.io, kind, io, v.pg);
		mc[got] = timed_end(&tr);
		got += !e;
		if (!e && !bench_dma(&v, DMA_FROM_DEVICE, iova, v.len, &r))
			e = r.error;
		right = right && !e && bench_changed(to, i % 2 ? seed + 1000 : seed) &&
			!bench_changed(i % 2 ? &a : &b, i % 2 ? seed : seed + 1000);
		if (!e)
			e = v.io->ops->unmap(v.io, io, v.pg); /* no invalidation: the next map's takes care */
	}
	report(t, !e, "%zu maps, each followed by a %s invalidation%s%s", got, v.io->kinds[kind].name, e ? ": " : "",
	       e ? e : "");
	report(t, right, "every DMA after a map reached the page just mapped, alternating A and B");
	if (got) {
		char variant[48];
		snprintf(variant, sizeof(variant), "%s-flush-on-map", v.label);
		struct measure m = { .path = "map",
				     .backend = v.io->backend,
				     .variant = variant,
				     .unit = "cycles",
				     .model = v.io->model,
				     .note = "map one page and invalidate it (Linux's DART strategy); on a model: CPU "
					     "cycles, not the hardware's time" };
		test_measure(t, &m, mc, got);
	}
	test_note(t, "%s: flush on map, %zu maps", v.label, got);
out:
	free(mc);
	dmabuf_free(&a);
	dmabuf_free(&b);
	bench_teardown(&v);
}

/* The dummy-page scheme Linux used: a DMA to an unmapped IOVA lands in the
 * dummy page and nothing records it. With invalid entries the same DMA is
 * refused and EXCP says so. */
static void t_dummy_hides_faults(struct test_ctx *t)
{
	struct env v;
	if (!bench_setup(t, &v, NULL))
		return;
	struct dart *d = model_dart_driver();
	if (!d || &d->io != v.io) {
		bench_teardown(&v);
		test_skip(t, "needs the DART driver's entry scheme (the attached DART model)");
		return;
	}
	bool was = d->dummy_scheme;
	uint64_t iova = bench_window(&v, v.pg, 0);
	struct dma_result r;
	struct iommu_fault f[2];
	bool ovf;
	const char *e = NULL;
	bool hidden = false, seen = false;
	for (int dummy = 1; dummy >= 0 && !e; dummy--) {
		v.io->ops->give_back(v.io);
		dart_set_scheme(d, dummy);
		e = v.io->ops->take(v.io);
		if (e)
			break;
		v.io->ops->faults(v.io, f, 2, &ovf);
		if (dummy)
			memset(d->dummy, 0, PAGE);
		v.e->transfer(v.e, DMA_FROM_DEVICE, iova, 256, &r);
		size_t nf = v.io->ops->faults(v.io, f, 2, &ovf);
		if (dummy) {
			bool landed = false;
			for (size_t i = 0; i < 256 && !landed; i++)
				landed = d->dummy[i] != 0;
			hidden = r.status == DMA_OK && nf == 0 && landed;
			report(t, hidden, "dummy-page scheme: the stray DMA %s, %s in EXCP, %s the dummy page",
			       r.status == DMA_OK ? "completed" : "was refused", nf ? "recorded" : "nothing",
			       landed ? "its data in" : "nothing in");
		} else {
			seen = r.status != DMA_OK && nf >= 1;
			report(t, seen, "invalid-entry scheme: the same DMA was refused and EXCP recorded it (0x%08x)",
			       nf ? f[0].reason : 0);
		}
	}
	report(t, !e, "the DART taken over with each scheme%s%s", e ? ": " : "", e ? e : "");
	printf("    finding: the dummy page %s faults that invalid entries show\n",
	       hidden && seen ? "hides" : "does not hide");
	v.io->ops->give_back(v.io);
	dart_set_scheme(d, was);
	v.io->ops->take(v.io);
	test_note(t, "dummy page: fault hidden; invalid entries: fault in EXCP");
	bench_teardown(&v);
}

/* Faults injected into the model's flush handshake: each gives its named
 * error after a bounded number of register reads, and the unit goes on. */
static void t_flush_faults(struct test_ctx *t)
{
	struct env v;
	if (!bench_setup(t, &v, NULL))
		return;
	struct calgary_model *cm = model_calgary();
	struct dart_model *dm = model_dart();
	struct apple_dart_model *am = model_apple();
	if (!cm && !dm && !am) {
		bench_teardown(&v);
		test_skip(t, "fault injection needs a model attached");
		return;
	}
	const char *e;
	uint64_t t0;
	if (cm) {
		unsigned reads = cm->splitq_reads;
		cm->split_stuck = true;
		t0 = cycles_begin();
		e = v.io->ops->invalidate(v.io, 0, 0, 0);
		cm->split_stuck = false;
		report(t, e && strstr(e, "split queue"),
		       "a split queue that never quiesces: '%s' after %u reads, %.2f ms", e ? e : "no error",
		       cm->splitq_reads - reads, cycles_to_ns(cycles_end() - t0) / 1e6);
		if (cm->ioc2) {
			cm->softstop_faults = 3;
			e = v.io->ops->invalidate(v.io, 0, 0, 0);
			report(t, !e && cm->softstop_faults == 0,
			       "SoftStopFault three times: retried, then flushed (%s)", e ? e : "ok");
			cm->softstop_faults = ~0u;
			t0 = cycles_begin();
			e = v.io->ops->invalidate(v.io, 0, 0, 0);
			cm->softstop_faults = 0;
			report(t, e && strstr(e, "abandoned"), "SoftStopFault every time: '%s' after %.2f ms",
			       e ? e : "no error", cycles_to_ns(cycles_end() - t0) / 1e6);
		}
	} else if (am) {
		am->busy_stuck = true;
		t0 = cycles_begin();
		e = v.io->ops->invalidate(v.io, 0, 0, 0);
		am->busy_stuck = false;
		report(t, e && strstr(e, "still busy"), "an invalidation that never finishes: '%s' after %.3f ms",
		       e ? e : "no error", cycles_to_ns(cycles_end() - t0) / 1e6);
	} else {
		dm->deaf_sets = 1;
		e = v.io->ops->invalidate(v.io, 0, 0, 0);
		report(t, !e && dm->deaf_sets == 0, "a FLUSHTLB set the DART missed: cleared, set again, done (%s)",
		       e ? e : "ok");
		dm->flush_stuck = true;
		t0 = cycles_begin();
		e = v.io->ops->invalidate(v.io, 0, 0, 0);
		dm->flush_stuck = false;
		report(t, e && strstr(e, "never cleared"), "FLUSHTLB that never clears: '%s' after %.2f ms",
		       e ? e : "no error", cycles_to_ns(cycles_end() - t0) / 1e6);
	}
	e = v.io->ops->invalidate(v.io, 0, 0, 0);
	report(t, !e, "the next flush works again (%s)", e ? e : "ok");
	test_note(t, "%s: every injected fault named, the unit carries on", v.label);
	bench_teardown(&v);
}

static const struct test_case calgary_cases[] = {
	{ "calgary.translate_4k", "DMA both ways through TCEs at the top of the PHB's IO space", t_translate_4k },
	{ "calgary.write_read_only", "a device write through a read-only TCE sets CSR; memory unchanged",
	  t_write_read_only },
	{ "calgary.read_not_present", "a device read through an empty TCE sets CSR", t_read_not_present },
	{ "calgary.stale_tce", "rewrite a TCE without flushing: is the cached one used? (finding)", t_stale_iotlb },
	{ "calgary.invalidate_flush", "the flush sequence (rewrite TAR in the quiet state): DMA reaches the new page",
	  t_invalidate },
	{ "calgary.flush_on_wrap", "Linux's deferred flush: freed pages exposed until the allocator wraps",
	  t_flush_on_wrap },
	{ "calgary.flush_faults", "injected faults in the flush handshake give named errors", t_flush_faults },
	{ "calgary.latency", "DMA latency: translation off, warm and cold TCE cache", t_latency },
	{ "calgary.map_cost", "CPU cycles per page to map and to unmap (big-endian TCE and cache-line flush)",
	  t_map_cost },
};

const struct test_group calgary_group = {
	.name = "calgary",
	.summary = "IBM Calgary / CalIOC2 (on the register-level model unless the machine has one)",
	.cases = calgary_cases,
	.n = sizeof(calgary_cases) / sizeof(calgary_cases[0]),
};

static const struct test_case dart_cases[] = {
	{ "dart.translate_4k", "DMA both ways through DART entries at the top of its IO space", t_translate_4k },
	{ "dart.write_read_only", "entries are valid or not: there is no read-only page", t_write_read_only },
	{ "dart.read_not_present", "a device read through an invalid entry shows in EXCP", t_read_not_present },
	{ "dart.stale_tlb", "rewrite an entry without flushing: is the cached one used? (finding)", t_stale_iotlb },
	{ "dart.invalidate_all", "FLUSHTLB with Linux's escalation: DMA reaches the new page", t_invalidate },
	{ "dart.invalidate_one", "U4's invalidate-one: DMA reaches the new page", t_invalidate },
	{ "dart.flush_on_map", "Linux's strategy: invalidate on map, never on unmap", t_flush_on_map },
	{ "dart.dummy_page_hides_faults", "the dummy-page scheme hides the faults invalid entries show",
	  t_dummy_hides_faults },
	{ "dart.flush_faults", "a missed FLUSHTLB and one that never clears: named, and the DART carries on",
	  t_flush_faults },
	{ "dart.latency", "DMA latency: translation off, warm and cold TLB", t_latency },
	{ "dart.map_cost", "CPU cycles per page to map and to unmap (big-endian entry and cache-line flush)",
	  t_map_cost },
};

const struct test_group dart_group = {
	.name = "dart",
	.summary = "PowerPC DART U3/U4 (on the register-level model unless the machine has one)",
	.cases = dart_cases,
	.n = sizeof(dart_cases) / sizeof(dart_cases[0]),
};

static const struct test_case apple_cases[] = {
	{ "apple.translate_16k", "DMA both ways through the stream's two-level table at the DART's page size",
	  t_translate_base },
	{ "apple.write_read_only", "a device write to a no-write page faults: ERROR names the address",
	  t_write_read_only },
	{ "apple.read_not_present", "a device read of an unmapped IOVA faults (no PTE)", t_read_not_present },
	{ "apple.stale_tlb", "rewrite an entry without invalidating: is the cached one used? (finding)",
	  t_stale_iotlb },
	{ "apple.invalidate_stream", "the stream's TLB invalidation: DMA reaches the new page", t_invalidate },
	{ "apple.invalidate_all", "every stream's TLB invalidated: DMA reaches the new page", t_invalidate },
	{ "apple.flush_faults", "an invalidation that never finishes: named after its 100 us", t_flush_faults },
	{ "apple.latency", "DMA latency: bypass, warm and cold TLB", t_latency },
	{ "apple.map_cost", "CPU cycles per page to map and to unmap (two-level table, cache-line flush)", t_map_cost },
};

const struct test_group apple_group = {
	.name = "apple",
	.summary = "Apple DART, T8020 (t8103, t6000) and T8110 layouts (on the register-level model)",
	.cases = apple_cases,
	.n = sizeof(apple_cases) / sizeof(apple_cases[0]),
};

static const struct test_case cases[] = {
	{ "vtd.takeover", "take the unit over; bystander devices keep DMAing; give it back as found", t_takeover,
	  true },
	{ "vtd.translate_4k", "DMA both ways through 4 KiB leaves at an IOVA far from the page", t_translate_4k, true },
	{ "vtd.translate_2m", "DMA both ways through a 2 MiB leaf", t_translate_2m, true },
	{ "vtd.translate_1g", "DMA both ways through a 1 GiB leaf", t_translate_1g, true },
	{ "vtd.write_read_only", "a device write to a read-only page faults: reason, sid, address, interrupt",
	  t_write_read_only, true },
	{ "vtd.read_not_present", "a device read of a non-present IOVA faults: reason, sid, address, interrupt",
	  t_read_not_present, true },
	{ "vtd.stale_iotlb", "repoint a mapping without invalidating: is the stale translation used? (finding)",
	  t_stale_iotlb, true },
	{ "vtd.invalidate_register_page", "page-selective IOTLB invalidation by register: DMA reaches the new page",
	  t_invalidate, true },
	{ "vtd.invalidate_register_domain", "domain-selective IOTLB invalidation by register", t_invalidate, true },
	{ "vtd.invalidate_register_global", "global IOTLB invalidation by register", t_invalidate, true },
	{ "vtd.invalidate_queued_page", "page-selective invalidation through the queue", t_invalidate, true },
	{ "vtd.invalidate_queued_domain", "domain-selective invalidation through the queue", t_invalidate, true },
	{ "vtd.invalidate_queued_global", "global invalidation through the queue", t_invalidate, true },
	{ "vtd.stale_context", "move the device to another domain without a context-cache invalidation (finding)",
	  t_stale_context, true },
	{ "vtd.invalidate_context_register", "device-selective context-cache invalidation by register (CCMD)",
	  t_invalidate_context, true },
	{ "vtd.invalidate_context_queued", "device-selective context-cache invalidation through the queue",
	  t_invalidate_context, true },
	{ "vtd.queue_error", "a bad descriptor: queue error reported, cleared, queue recovered", t_queue_error, true },
	{ "vtd.latency", "DMA latency: translation off, pass-through, warm and cold IOTLB", t_latency, true },
	{ "vtd.map_cost", "CPU cycles per page to map and to unmap (4 KiB leaves)", t_map_cost, true },
};

const struct test_group vtd_group = {
	.name = "vtd",
	.summary = "Intel VT-d: translation, faults, invalidation, timed",
	.cases = cases,
	.n = sizeof(cases) / sizeof(cases[0]),
};
