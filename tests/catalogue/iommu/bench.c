/* The bench every IOMMU case runs on (bench.h): the unit behind the device
 * under test taken over and given back, IOVA windows, DMA through the unit,
 * the invalidation that covers a range, and faults injected into a flush
 * (the stale-translation probe is stale.c). It names no backend: what
 * tells the machine's units from a model's is the backend's entry in the
 * registry.
 *
 * Every buffer a DMA may touch is one of ours, guarded; IOVAs are placed at
 * the top of what both the unit and the device can address, far from the
 * physical pages they map, which lie anywhere the unit translates to when
 * the device reaches no RAM itself. Only what runs untranslated (the
 * device's own reach) needs RAM within the device's address bits. The
 * device's own queues (NVMe) are mapped at their physical addresses so the
 * driver keeps working. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cases.h"
#include "core/base/macros.h"
#include "core/base/platform.h"
#include "core/base/timing.h"
#include "core/monitor/settings.h"
#include "iommu/backend.h"
#include "iommu/machine.h"
#include "iommu/models/models.h"
#include "iommu/session.h"
#include "pci/dut.h"
#include "tests/catalogue/bench.h"

/* The device under test in an empty domain with its own queues mapped. */
const char *bench_translate(struct env *v)
{
	const char *e = v->io->ops->attach(v->io, v->e->addr, IOMMU_TRANSLATE);
	/* in the unit's smallest leaves (an SMMUv3 at 16K or 64K has no 4K
	 * ones), rounded out to them */
	for (size_t i = 0; !e && i < v->e->nown; i++) {
		uint64_t a = v->e->own[i].phys & ~(v->pg - 1);
		uint64_t end = (v->e->own[i].phys + v->e->own[i].len + v->pg - 1) & ~(v->pg - 1);
		e = v->io->ops->map(v->io, a, a, end - a, IOMMU_RW, v->pg);
	}
	return e;
}

/* The device under test at `a`, not yet open, where the unit `io` behind
 * it blocks every DMA as found (io->take_first): its driver's own queues
 * would be unreachable. The unit is taken over, the device alone passed
 * through while dut_engine brings it up, and the unit given back (the
 * case takes it again in the mode it asks for); the engine, idle, stays
 * open. NULL with why not (the engine's words when it is not that). */
static struct dma_engine *bring_up_behind(struct iommu *io, struct pci_addr a, const char **why)
{
	printf("    %s blocks every DMA as the firmware left it: taken over, the device passed through to bring it "
	       "up\n",
	       io->name);
	const char *e = io->ops->take(io);
	if (!e)
		e = io->ops->attach(io, a, IOMMU_PASSTHROUGH);
	struct dma_engine *eng = e ? NULL : dut_engine(why);
	const char *foreign = e || eng ? NULL : bench_foreign_id(io, a, *why, NULL, 0);
	if (foreign)
		*why = foreign;
	/* `set device auto` may have fallen back to another function, which
	 * was not passed through: its driver met the blocked unit again */
	if (eng && (eng->addr.seg != a.seg || pci_rid(eng->addr) != pci_rid(a))) {
		*why = "the device brought up is not the one passed through (auto fell back to another): `set device` "
		       "it";
		dut_close();
		eng = NULL;
	}
	const char *back = iommu_give_back_held();
	if (e)
		*why = e;
	else if (back) {
		*why = back;
		if (eng)
			dut_close(); /* not left open behind a unit that did not go back */
		eng = NULL;
	}
	return eng;
}

bool bench_unit_in_front(struct test_ctx *t, const struct iommu_backend *b, struct pci_addr a, struct iommu **io)
{
	int d = pci_find(&machine.pci, a);
	int u = d >= 0 ? machine.pci.d[d].iommu : -1;
	const struct iommu_unit *un = u >= 0 ? &machine.units.u[u] : NULL;
	/* a backend's cases run on its own units only */
	if (b && un && un->backend != b) {
		test_skip(t, SKIP_NO_UNIT, "the device under test is behind %s, which the %s backend does not drive",
			  un->name, b->title);
		return false;
	}
	const char *why;
	*io = iommu_for_device(a, &why);
	if (!*io) {
		/* none covers the device; one no backend drives; else the unit
		 * was refused (as the firmware left it, or when opened) */
		enum skip_reason r = !un				     ? SKIP_NO_UNIT
				     : !un->refused[0] && !un->backend->open ? SKIP_NOT_IMPLEMENTED
									     : SKIP_REFUSED;
		test_skip(t, r, "%s", why);
		return false;
	}
	return true;
}

/* The machine's unit behind the device under test (`set device`). The
 * unit comes first: a case that cannot have it skips for the unit's
 * reason before the device is brought up, so a device is never made to
 * DMA behind a unit refused (which may block it, as a RISC-V IOMMU out of
 * reset does, or leave it untranslated) and a refusal is never taken for
 * the device's failure. */
static bool on_machine(struct test_ctx *t, struct env *v, const struct iommu_backend *b)
{
	const char *why = "no engine";
	v->machine = true;
	if (!platform->hardware) {
		if (platform->replay)
			test_skip(t, SKIP_REPLAY, "replay: no live hardware");
		else
			test_skip(t, SKIP_PLATFORM, "no IOMMU on this platform");
		return false;
	}
	struct pci_addr a;
	v->e = dut_current();
	/* gone since an earlier case opened it: nothing to take the unit over
	 * for, and no DMA to prove anything by */
	const char *gone = dut_gone();
	if (gone) {
		test_skip(t, SKIP_NO_DEVICE, "no device under test: %s", gone);
		return false;
	}
	if (v->e)
		a = v->e->addr;
	else if (!dut_candidate(&a)) {
		dut_engine(&why); /* nothing to open: only what is missing */
		test_skip(t, SKIP_NO_DEVICE, "no DMA engine: %s", why);
		return false;
	}
	if (!bench_unit_in_front(t, b, a, &v->io))
		return false;
	if (v->e)
		return true;
	/* the device under test behind a unit that blocks every DMA as found
	 * is brought up through it: tried on its own it would fail (its
	 * queues unreachable, an NVMe left with a fatal status) and `set
	 * device auto` would settle for a device that needs no DMA to start,
	 * an edu before an NVMe */
	v->e = v->io->take_first ? bring_up_behind(v->io, a, &why) : dut_engine(&why);
	if (!v->e) {
		v->io = NULL;
		test_skip(t, SKIP_NO_DEVICE, "no DMA engine: %s", why);
		return false;
	}
	/* opened again for the case (the bring-up took it over and gave it
	 * back), in front of the device brought up: `set device auto` may
	 * have settled on another function, the first having refused */
	return bench_unit_in_front(t, b, v->e->addr, &v->io);
}

/* "'model a', 'model b' or 'model c'": the kinds that attach `b`'s model;
 * past three, the first and how many more ('model' lists them). */
static const char *model_kinds(const struct iommu_backend *b, char *kinds, size_t cap)
{
	const char *const *models = iommu_backend_models(b);
	size_t n = 0, len = 0;
	kinds[0] = '\0';
	while (models && models[n])
		n++;
	if (n > 3) {
		snprintf(kinds, cap, "'model %s' or %zu other kinds 'model' lists", models[0], n - 1);
		return kinds;
	}
	for (size_t i = 0; i < n && len < cap; i++)
		len += (size_t)snprintf(kinds + len, cap - len, "%s'model %s'",
					i == 0	     ? ""
					: i + 1 == n ? " or "
						     : ", ",
					models[i]);
	return n ? kinds : "no 'model' kind";
}

bool bench_applies(const struct test_group *g, enum skip_reason *reason, char *why, size_t cap)
{
	const struct iommu_backend *b = iommu_backend_named(g->name);
	struct dma_engine *me;
	struct iommu *mu = model_unit(&me);
	if (!b || (mu && strcmp(mu->backend, b->name) == 0))
		return true; /* no such backend: its cases say so */
	char kinds[96];
	model_kinds(b, kinds, sizeof(kinds));
	if (!b->open) {
		*reason = SKIP_MODEL_ONLY;
		snprintf(why, cap, "iommon drives %s on its register-level model only, and none is attached (%s)",
			 b->title, kinds);
		return false;
	}
	char others[64] = "";
	size_t len = 0;
	for (size_t i = 0; i < machine.units.n; i++) {
		const struct iommu_unit *u = &machine.units.u[i];
		if (u->backend == b)
			return true;
		if (len < sizeof(others))
			len += (size_t)snprintf(others + len, sizeof(others) - len, "%s%s", len ? ", " : "", u->name);
	}
	*reason = SKIP_NO_UNIT;
	if (!platform->hardware)
		snprintf(why, cap, "no %s unit: no IOMMU on this platform (%s attaches the model)", b->title, kinds);
	else
		snprintf(why, cap, "no %s unit on this machine (%s%s)", b->title,
			 len ? "its units: " : "no IOMMU at all", others);
	return false;
}

/* A case whose argument names a translation mode (struct iommu_case_arg)
 * that the machine's unit in front of the open device under test does not
 * offer: not applicable, in the backend's words, from what the unit's last
 * open read (iommu_opened), before the case's breadcrumb and watchdog. The
 * case would find the same on opening the unit again: its modes come from
 * its capability registers. Anything else (a model attached, no device
 * open yet, another unit) is left to the case. */
bool bench_mode_applies(const struct test_group *g, const struct test_case *tc, enum skip_reason *reason, char *why,
			size_t cap)
{
	const struct iommu_case_arg *arg = tc->arg;
	const struct iommu_backend *b = iommu_backend_named(g->name);
	struct dma_engine *me;
	struct iommu *mu = model_unit(&me);
	if (!arg || !arg->mode || !b || !b->open || (mu && strcmp(mu->backend, b->name) == 0) || !platform->hardware)
		return true;
	struct dma_engine *e = dut_current();
	const struct iommu *io = e && !dut_gone() ? iommu_opened(e->addr) : NULL;
	const char *no = io && !io->taken && strcmp(io->backend, b->name) == 0 && io->ops->mode_refusal
			     ? io->ops->mode_refusal(io, arg->mode)
			     : NULL;
	if (!no)
		return true;
	*reason = SKIP_UNSUPPORTED;
	snprintf(why, cap, "%s", no);
	return false;
}

/* The attached register-level model, when `b` drives it. */
static bool on_model(struct test_ctx *t, struct env *v, const struct iommu_backend *b)
{
	v->io = model_unit(&v->e);
	if (v->io && strcmp(v->io->backend, b->name) == 0) {
		t->model = v->io->model;
		return true;
	}
	char kinds[96];
	test_skip(t, SKIP_MODEL_ONLY, "no %s here: %s attaches the register-level model", b->title,
		  model_kinds(b, kinds, sizeof(kinds)));
	v->io = NULL;
	return false;
}

bool bench_needs(struct env *v, bool have, enum skip_reason reason, const char *fmt, ...)
{
	if (have)
		return true;
	char why[160];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	bench_teardown(v);
	test_skip(v->t, reason, "%s", why);
	return false;
}

static const char *give_back(struct env *v)
{
	return v->machine ? iommu_give_back_held() : v->io->ops->give_back(v->io);
}

bool bench_setup(struct test_ctx *t, struct env *v, const char *backend)
{
	return bench_setup_mode(t, v, backend, NULL);
}

bool bench_setup_mode(struct test_ctx *t, struct env *v, const char *backend, const char *mode)
{
	memset(v, 0, sizeof(*v));
	v->t = t;
	const struct iommu_backend *b = backend ? iommu_backend_named(backend) : NULL;
	if (backend && !b) {
		report(t, false, "no backend named '%s'", backend);
		return false;
	}
	/* a backend that drives units the firmware describes runs on the
	 * machine's unless its model is attached; the others on the model */
	struct dma_engine *me;
	struct iommu *mu = b ? model_unit(&me) : NULL;
	bool model = b && (!b->open || (mu && strcmp(mu->backend, b->name) == 0));
	if (!(model ? on_model(t, v, b) : on_machine(t, v, b)))
		return false;
	const char *why;
	/* the mode the case asks for, or the unit's default for a case that
	 * names none (a unit kept between cases forgets the last one's) */
	if (v->io->ops->mode && !v->io->taken) {
		why = v->io->ops->mode(v->io, mode);
		if (why && mode && v->io->err == IOMMU_ERR_UNSUPPORTED) {
			test_skip(t, SKIP_UNSUPPORTED, "%s", why);
			v->io = NULL;
			return false;
		}
		if (why) {
			report(t, false, "%s: %s", v->io->name, why);
			v->io = NULL;
			return false;
		}
	} else if (mode) {
		test_skip(t, SKIP_UNSUPPORTED, "%s translates one way only (no mode %s)", v->io->name, mode);
		v->io = NULL;
		return false;
	}
	v->label = v->io->variant ? v->io->variant : v->e->kind; /* named in every record */
	v->pg = v->io->page_sizes & -v->io->page_sizes;
	v->bits = v->e->caps.addr_bits < v->io->addr_bits ? v->e->caps.addr_bits : v->io->addr_bits;
	v->len = v->e->caps.max_len < PAGE_SIZE ? v->e->caps.max_len : PAGE_SIZE;
	if (v->e->caps.len_unit > 1)
		v->len -= v->len % v->e->caps.len_unit;
	/* buffers in the lower half of what both reach, IOVAs in the upper
	 * half: a translation that does nothing cannot pass for one that works.
	 * An IO space smaller than the device's reach (Calgary, DART) is apart
	 * from physical memory anyway: buffers anywhere the device reaches.
	 * Where no RAM lies there, anywhere at all: the unit puts the IOVAs
	 * the device can emit on RAM it could never reach alone. */
	unsigned eb = v->e->caps.addr_bits;
	v->limit = v->io->addr_bits >= eb ? 1ull << (v->bits - 1) : eb < 64 ? 1ull << eb : 0;
	if (v->limit && dma_ram_below(v->limit, v->len))
		v->limit = 0;
	v->direct = dma_reach(v->e);
	if (!dma_unreachable(v->e, v->len, v->direct_why, sizeof(v->direct_why)))
		v->direct_why[0] = '\0';
	/* the case works on this unit from here: tested, once it passes or
	 * fails (a take the unit refuses is a failure of the unit's) */
	test_uses_unit(v->io->backend, v->io->name, v->io->model);
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
	return bench_prove_translated(v);
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

/* ---- buffers ------------------------------------------------------------- */

bool bench_buffer(struct env *v, struct dmabuf *b, size_t len, uint64_t leaf)
{
	uint64_t top = v->bits < 64 ? 1ull << v->bits : 0;
	if (!top || leaf < top) {
		if (!dmabuf_alloc_in(b, len, 0, v->limit, v->pg)) {
			printf("    no memory for a %zu-byte buffer\n", len);
			return false;
		}
		/* anywhere: not among the IOVAs (the upper half of the reach),
		 * where a unit that did not translate would pass for one that does */
		if (!v->limit && b->phys < top && b->phys + len > top / 2) {
			printf("    the buffer at 0x%llx lies among the IOVAs the cases use (0x%llx..0x%llx)\n",
			       (unsigned long long)b->phys, (unsigned long long)top / 2, (unsigned long long)top - 1);
			dmabuf_free(b);
			return false;
		}
		return true;
	}
	/* one leaf covers all the device reaches, so the IOVA is the buffer's
	 * offset in its leaf: leaf by leaf from the bottom, the first whose
	 * reachable start holds free memory */
	uint64_t end = v->limit ? v->limit : platform->memory_top ? platform->memory_top() : 0;
	if (!end)
		end = 64 * leaf; /* the map does not say: the first 64 leaves */
	for (uint64_t base = 0; base < end; base += leaf) {
		uint64_t below = v->limit && base + top > v->limit ? v->limit : base + top;
		if (!dmabuf_alloc_in(b, len, 0, below, v->pg))
			continue;
		if (b->phys >= base)
			return true;
		dmabuf_free(b); /* in the leaf below, beyond the reach */
	}
	printf("    no memory for a %zu-byte buffer in the first 0x%llx bytes of a %llu-byte leaf\n", len,
	       (unsigned long long)top, (unsigned long long)leaf);
	return false;
}

bool bench_direct_buffer(struct env *v, struct dmabuf *have, struct dmabuf *b, struct dmabuf **use)
{
	*use = have;
	if (!v->direct || have->phys + have->len <= v->direct)
		return true;
	*use = b;
	return !v->direct_why[0] && dmabuf_alloc_in(b, have->len, 0, v->direct, v->pg);
}

/* ---- the bystanders ------------------------------------------------------ */

size_t bench_bystanders(struct env *v, size_t *fine)
{
	size_t others = 0;
	*fine = 0;
	for (size_t i = 0; i < machine.pci.n; i++) {
		const struct pci_dev *d = &machine.pci.d[i];
		if (!dma_has_driver(d) || pci_addr_eq(d->addr, v->e->addr) || d->iommu < 0 ||
		    strcmp(machine.units.u[d->iommu].name, v->io->name) != 0)
			continue;
		const char *why = NULL;
		struct dma_engine *o = dma_open(&machine.cfg, d, &why);
		char bdf[16];
		pci_addr_str(d->addr, bdf, sizeof(bdf));
		if (!o) {
			printf("    bystander %s not opened: %s\n", bdf, why);
			continue;
		}
		struct dmabuf b;
		size_t len = o->caps.max_len < PAGE_SIZE ? o->caps.max_len : PAGE_SIZE;
		if (o->caps.len_unit > 1)
			len -= len % o->caps.len_unit;
		char why_not[112];
		if (dma_unreachable(o, len, why_not, sizeof(why_not))) {
			/* its entry passes its DMA on at the physical address: there
			 * is no RAM it could write, whatever the unit does */
			printf("    bystander %s (%s) not tried: %s; %s lets a bystander's DMA through untranslated, "
			       "so there is no RAM it could write\n",
			       bdf, o->kind, why_not, v->io->name);
			o->close(o);
			continue;
		}
		others++;
		if (dmabuf_alloc(&b, len, 0, dma_reach(o))) {
			dmabuf_pattern(&b, 9);
			struct dma_result r;
			o->transfer(o, DMA_FROM_DEVICE, b.phys, len, &r);
			bool ok = r.status == DMA_OK && dmabuf_guards_damaged(&b) == 0 &&
				  (o->caps.roundtrip || bench_changed(&b, 9));
			report(v->t, ok, "bystander %s (%s) DMAs to its physical buffer while %s translates: %s", bdf,
			       o->kind, v->io->name, r.status == DMA_OK ? "arrived" : r.error);
			(*fine) += ok;
			dmabuf_free(&b);
		}
		o->close(o);
	}
	return others;
}

/* ---- IOVAs and DMA ----------------------------------------------------- */

/* The device's own queues, and the interrupt range (a write there is an
 * interrupt request, never translated DMA). */
bool bench_overlaps_own(const struct env *v, uint64_t base, uint64_t size)
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
		bool usable = !bench_overlaps_own(v, base, size) &&
			      !(v->io->ops->reserved && v->io->ops->reserved(v->io, base, size));
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

void bench_overflow(struct env *v, uint64_t iova, unsigned fired, struct overflow *o)
{
	/* room for every record a queue holds (a driver drops what does not
	 * fit and says so, which would read as the unit's overflow), and for
	 * the many one DMA of a real controller makes (NVMe: every page of
	 * its transfer) */
	static struct iommu_fault f[512];
	bool ovf;
	struct dma_result r;
	*o = (struct overflow){ .fired = 0 };
	v->io->ops->faults(v->io, f, ARRAY_SIZE(f), &ovf); /* what was there before */
	for (unsigned i = 0; i < fired && !test_stopped(v->t); i++, o->fired++)
		bench_dma(v, DMA_TO_DEVICE, iova, v->len, &r);
	size_t got;
	while ((got = v->io->ops->faults(v->io, f, ARRAY_SIZE(f), &ovf)) > 0 || ovf) {
		o->drained += got, o->lost |= ovf;
		if (!got)
			break;
	}
	bench_dma(v, DMA_TO_DEVICE, iova, v->len, &r);
	o->after = v->io->ops->faults(v->io, f, ARRAY_SIZE(f), &o->after_ovf);
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

size_t bench_kind_named(const struct iommu *io, const char *name)
{
	for (size_t k = 0; k < io->nkinds; k++)
		if (strcmp(io->kinds[k].name, name) == 0)
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

size_t bench_samples(const struct env *v)
{
	return v->e->caps.fixed_latency_us ? 3 : (size_t)setting_long("dma.samples");
}

const char *bench_note(const struct env *v, char *buf, size_t n)
{
	if (!v->e->caps.fixed_latency_us)
		return NULL;
	snprintf(buf, n, "%s completes every DMA %u ms after it starts: a model's delay, not a latency", v->label,
		 v->e->caps.fixed_latency_us / 1000);
	return buf;
}

/* ---- faults injected into a flush --------------------------------------- */

void bench_flush_fault(struct env *v, const char *what, enum iommu_err want)
{
	v->io->err = IOMMU_OK;
	uint64_t t0 = cycles_begin();
	const char *e = v->io->ops->invalidate(v->io, 0, 0, 0);
	double ms = cycles_to_ns(cycles_end() - t0) / 1e6;
	report(v->t, e && v->io->err == want, "%s: '%s' after %.3f ms", what, e ? e : "no error", ms);
}

void bench_flush_rides_out(struct env *v, const unsigned *left, const char *what)
{
	const char *e = v->io->ops->invalidate(v->io, 0, 0, 0);
	report(v->t, !e && *left == 0, "%s (%s)", what, e ? e : "ok");
}

void bench_flush_recovers(struct env *v)
{
	const char *e = v->io->ops->invalidate(v->io, 0, 0, 0);
	report(v->t, !e, "the next flush works again (%s)", e ? e : "ok");
	test_note(v->t, "%s: every injected fault named, the unit carries on", v->label);
}
