/* The I/O APIC path of interrupt remapping (ir.h case_ir_ioapic): the
 * device's INTx (edu: MSI off, its raise register) reaches an I/O APIC pin,
 * whose redirection entry, in the unit's remappable form (ir_ioapic_rte),
 * names a remapping entry; the I/O APIC sends the message with its own
 * requester id (VT-d: the DMAR's I/O APIC device scope; AMD-Vi: the IVHD's
 * special entry), which is whose table the entry lies in.
 *
 * Which pin the INTx reaches is found without reading the firmware's AML:
 * the pins the firmware left masked (GSI 16 and up first, where q35 routes
 * PIRQ A-H) are unmasked towards a counting handler, the line raised, and
 * the set halved until one pin remains, then that pin confirmed alone.
 * Every entry touched is put back as found (core/base/ioapic.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cases.h"
#include "core/base/claims.h"
#include "core/base/ioapic.h"
#include "core/base/platform.h"
#include "core/base/timing.h"
#include "core/monitor/monitor.h"
#include "core/tables/acpi.h"
#include "core/tables/madt.h"
#include "iommu/amdvi/amdvi.h"
#include "iommu/machine.h"
#include "iommu/vtd/vtd.h"
#include "ir.h"
#include "tests/catalogue/bench.h"

#define IOA_ENTRIES 256	   /* an index equal to any vector: AMD-Vi's RTE names 0-255 */
#define IOA_WAIT_US 100000 /* an interrupt arrives within microseconds; 100 ms allows for TCG */
#define IOA_SAMPLES 16
#define IOA_MAX_PINS 512

struct pin_ref {
	unsigned ap, pin;
};

struct ioa {
	struct env v;
	struct madt madt;
	struct ioapic *ap;
	size_t nap;
	struct msi_catch real, decoy;
	struct pin_ref cand[IOA_MAX_PINS], at;
	size_t ncand, nhigh; /* the first nhigh candidates are at GSI 16 and up */
	size_t probes;
	uint16_t sid;	 /* the I/O APIC's requester id */
	bool sid_unseen; /* the unit checked no source for the I/O APIC's messages */
	bool enabled, intx;
};

/* Everything as found: the entries, the device's INTx, remapping off,
 * the handlers, the unit. */
static void ioa_teardown(struct ioa *r)
{
	madt_free(&r->madt);
	unsigned bad = ioapic_restore_held();
	if (bad)
		report(r->v.t, false, "%u I/O APIC redirection entries do not read back as found", bad);
	if (r->intx) {
		r->v.e->intx_set(r->v.e, false, NULL);
		r->v.e->intx_enable(r->v.e, false);
	}
	if (r->enabled)
		r->v.io->ops->ir_enable(r->v.io, false, 0);
	msi_catch_remove(&r->real);
	msi_catch_remove(&r->decoy);
	free(r->ap);
	r->ap = NULL;
	r->nap = 0;
	bench_teardown(&r->v);
}

static bool ioa_needs(struct ioa *r, bool have, enum skip_reason reason, const char *why)
{
	if (have)
		return true;
	test_skip(r->v.t, reason, "%s", why);
	ioa_teardown(r);
	return false;
}

/* The MADT's I/O APICs opened, their masked pins the candidates. NULL or
 * why there are none to probe (*reason: what kind of why). */
static const char *ioa_open(struct ioa *r, char *why, size_t n, enum skip_reason *reason)
{
	const struct acpi_header *h = monitor_acpi() ? acpi_find(monitor_acpi(), "APIC", 0) : NULL;
	*reason = SKIP_UNSUPPORTED;
	if (!h)
		return "the firmware gives no MADT: no I/O APIC is known";
	*reason = SKIP_REFUSED; /* the MADT, or an I/O APIC it names */
	madt_parse((const uint8_t *)h, h->length, &r->madt);
	if (r->madt.diag.errors) {
		snprintf(why, n, "%s", r->madt.diag.msg[0].text);
		return why;
	}
	r->ap = calloc(r->madt.nioapics ? r->madt.nioapics : 1, sizeof(*r->ap));
	if (!r->ap) {
		*reason = SKIP_PLATFORM; /* the monitor's own memory */
		return "out of memory";
	}
	unsigned pins[MADT_MAX_IOAPICS] = { 0 };
	for (size_t i = 0; i < r->madt.nioapics; i++) {
		const struct madt_ioapic *m = &r->madt.ioapic[i];
		struct regwin w;
		/* inside a BAR only of an I/O (x)APIC function (class 0800h) */
		const char *owner = claims_other_owner(m->address, IOAPIC_WINDOW, 0xffff00u, 0x080000u), *e = NULL;
		char owned[160];
		if (owner) {
			snprintf(owned, sizeof(owned), "its registers lie inside %.100s: another device's", owner);
			e = owned;
		}
		if (!e)
			e = regwin_open_mmio(&w, "ioapic", m->address, IOAPIC_WINDOW, false, "MADT I/O APIC");
		if (!e)
			e = ioapic_init(&r->ap[i], &w, m->id, m->gsi_base);
		if (e) {
			snprintf(why, n, "I/O APIC %u at 0x%x: %.120s", m->id, m->address, e);
			return why;
		}
		pins[i] = r->ap[i].pins;
		r->nap = i + 1;
		ioapic_hold(r->ap, r->nap); /* the crash path puts back what is claimed */
	}
	if (madt_check_ranges(&r->madt, pins)) {
		snprintf(why, n, "%s", r->madt.diag.msg[0].text);
		return why;
	}
	for (int high = 1; high >= 0; high--) { /* GSI 16 and up first */
		for (unsigned i = 0; i < r->nap; i++)
			for (unsigned p = 0; p < r->ap[i].pins && r->ncand < IOA_MAX_PINS; p++)
				if ((r->ap[i].gsi_base + p >= 16) == high && !ioapic_claim(&r->ap[i], p))
					r->cand[r->ncand++] = (struct pin_ref){ i, p };
		if (high)
			r->nhigh = r->ncand;
	}
	return r->ncand ? NULL : "every I/O APIC pin is in use by the firmware";
}

static uint32_t gsi_of(const struct ioa *r, struct pin_ref p)
{
	return r->ap[p.ap].gsi_base + p.pin;
}

/* Pins [from, to) unmasked towards `c` (compatibility format, edge,
 * physical), the INTx raised once (or, !raise, left alone): how many
 * arrived within 100 ms. The pins are masked again after. */
static unsigned ioa_probe(struct ioa *r, size_t from, size_t to, const struct msi_catch *c, bool raise)
{
	uint64_t rte = (uint64_t)c->apic_id << IOAPIC_RTE_DEST_SHIFT | (uint8_t)c->vector;
	for (size_t i = from; i < to; i++)
		ioapic_write_rte(&r->ap[r->cand[i].ap], r->cand[i].pin, rte);
	uint64_t before = c->count;
	r->probes++;
	if (raise)
		r->v.e->intx_set(r->v.e, true, NULL);
	msi_catch_wait(c, before, IOA_WAIT_US);
	msi_catch_wait(c, before + 1, 10000); /* a second one would trail the first */
	r->v.e->intx_set(r->v.e, false, NULL);
	for (size_t i = from; i < to; i++)
		ioapic_write_rte(&r->ap[r->cand[i].ap], r->cand[i].pin, rte | IOAPIC_RTE_MASKED);
	return (unsigned)(c->count - before);
}

/* The pin the device's INTx reaches, by halves; false (with the why in
 * `how`) when none or more than one answers. */
static bool ioa_find_pin(struct ioa *r, char *how, size_t n)
{
	size_t lo = 0, hi = r->nhigh;
	if (!ioa_probe(r, lo, hi, &r->real, true)) {
		lo = r->nhigh, hi = r->ncand;
		if (!ioa_probe(r, lo, hi, &r->real, true)) {
			snprintf(how, n, "the INTx reached none of the %zu pins the firmware left masked", r->ncand);
			return false;
		}
	}
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (ioa_probe(r, lo, mid, &r->real, true))
			hi = mid;
		else
			lo = mid;
	}
	r->at = r->cand[lo];
	unsigned raised = ioa_probe(r, lo, lo + 1, &r->real, true);
	unsigned idle = ioa_probe(r, lo, lo + 1, &r->real, false);
	snprintf(how, n,
		 "GSI %u (I/O APIC %u pin %u), found by halving %zu masked pins in %zu probes; alone: %u arrival%s "
		 "when raised, %u when not",
		 gsi_of(r, r->at), r->ap[r->at.ap].id, r->at.pin, r->ncand, r->probes, raised, raised == 1 ? "" : "s",
		 idle);
	return raised == 1 && idle == 0;
}

/* The I/O APIC's requester id as the unit's table gives it; NULL or why
 * the I/O APIC is not in the unit's scope (*reason: what kind of why). */
static const char *ioa_source_id(struct ioa *r, uint8_t ioapic_id, char *why, size_t n, enum skip_reason *reason)
{
	*reason = SKIP_NOT_IMPLEMENTED;
	const struct iommu_units *u = &machine.units;
	const struct iommu_unit *unit = NULL;
	for (size_t i = 0; i < u->n && !unit; i++)
		if (strcmp(u->u[i].name, r->v.io->name) == 0)
			unit = &u->u[i];
	const struct dmar *dmar = vtd_units_dmar(u);
	const struct ivrs *ivrs = amdvi_units_ivrs(u);
	if (unit && unit->backend == &vtd_backend && dmar) {
		const struct dmar_struct *d = &dmar->s[unit->src];
		for (size_t i = d->first_scope; i < d->first_scope + d->nscopes; i++) {
			const struct dmar_scope *sc = &dmar->scopes[i];
			if (sc->type != DMAR_SCOPE_IOAPIC || sc->enum_id != ioapic_id)
				continue;
			if (sc->npath != 1) { /* behind bridges: their bus numbers not followed */
				snprintf(why, n, "I/O APIC %u's DMAR scope is a path of %u hops: not followed",
					 ioapic_id, sc->npath);
				return why;
			}
			r->sid = pci_rid(
			    (struct pci_addr){ .bus = sc->start_bus, .dev = sc->path[0].dev, .fn = sc->path[0].fn });
			return NULL;
		}
	} else if (unit && unit->backend == &amdvi_backend && ivrs) {
		const struct ivrs_block *b = &ivrs->b[unit->src];
		for (size_t i = b->first_entry; i < b->first_entry + b->nentries; i++) {
			const struct ivrs_entry *e = &ivrs->e[i];
			if (e->type == IVHD_SPECIAL && e->variety == IVHD_SPECIAL_IOAPIC && e->handle == ioapic_id) {
				r->sid = e->source;
				return NULL;
			}
		}
	}
	*reason = SKIP_UNSUPPORTED;
	snprintf(why, n, "I/O APIC %u is not in %s's scope (no %s for it)", ioapic_id, r->v.io->name,
		 unit && unit->backend == &amdvi_backend ? "IVHD special entry" : "DMAR I/O APIC device scope");
	return why;
}

static const char *ioa_point(struct ioa *r, unsigned index, const struct msi_catch *c, uint16_t owner)
{
	return ir_entry(r->v.io, r->sid, owner, index, c, true);
}

/* The pins the firmware left unmasked keep arriving where a unit remaps
 * every message of the I/O APIC's requester (AMD-Vi: IV in its DTE): the
 * entry their vector selects delivers that vector to the same CPU. */
static const char *ioa_keep_firmware_pins(struct ioa *r, const struct ioapic *a, unsigned *kept)
{
	struct ioapic *rw = (struct ioapic *)a;
	for (unsigned p = 0; p < a->pins; p++) {
		uint64_t rte = ioapic_read_rte(rw, p);
		if ((rte & IOAPIC_RTE_MASKED) || ioapic_claimed(a, p) || (rte & 0x700) ||
		    (rte & IOAPIC_RTE_DEST_LOGICAL))
			continue; /* fixed, physical ones: what a 32-bit entry can say */
		const struct iommu_irte ent = { .present = true,
						.vector = (uint8_t)rte,
						.dest = (uint32_t)(rte >> IOAPIC_RTE_DEST_SHIFT),
						.source_id = r->sid,
						.sid_check = true };
		const char *e = r->v.io->ops->ir_set(r->v.io, r->sid, (uint8_t)rte, &ent);
		if (e)
			return e;
		(*kept)++;
	}
	return NULL;
}

/* Raises the INTx once: did it reach `want` (and not `other`)? */
static void ioa_raise(struct ioa *r, const struct msi_catch *want, const struct msi_catch *other, bool *arrived,
		      bool *strayed, uint64_t *cycles)
{
	uint64_t w = want->count, o = other->count, t0 = 0;
	r->v.e->intx_set(r->v.e, true, &t0);
	*arrived = msi_catch_wait(want, w, IOA_WAIT_US);
	msi_catch_wait(other, o, *arrived ? 1000 : 0);
	r->v.e->intx_set(r->v.e, false, NULL);
	*strayed = other->count != o;
	if (cycles)
		*cycles = *arrived ? want->tsc - t0 : 0;
}

static void ioa_time(struct ioa *r)
{
	uint64_t c[IOA_SAMPLES];
	size_t got = 0;
	for (size_t i = 0; i < IOA_SAMPLES && !test_stopped(r->v.t); i++) {
		bool arrived = false, strayed = false;
		ioa_raise(r, &r->real, &r->decoy, &arrived, &strayed, &c[got]);
		got += arrived;
	}
	report(r->v.t, got == IOA_SAMPLES, "%zu of %d INTx interrupts through the I/O APIC timed", got, IOA_SAMPLES);
	ir_measure(&r->v, r->v.io->backend, "intx-ioapic-remapped",
		   "from the write that raises the device's INTx to the first instruction of the monitor's handler, "
		   "through the I/O APIC and the remapping table",
		   c, got);
}

/* A blocked INTx: neither handler runs; the fault as ir.c's rule says
 * (its requester not compared where the unit was shown not to see it).
 * Not `claimed`, and delivered: the unit checks nothing for the I/O APIC
 * where an emulator's I/O APIC sends with no requester id (QEMU's
 * ioapic_service writes with MEMTXATTRS_UNSPECIFIED, so vtd_mem_ir_write
 * skips the source check): said, and remembered. */
static void ioa_blocked(struct ioa *r, enum iommu_fault_kind kind, const char *what, bool claimed)
{
	bool arrived = false, strayed = false;
	uint64_t irqs = r->v.io->irq_count;
	ioa_raise(r, &r->real, &r->decoy, &arrived, &strayed, NULL);
	bool delivered = arrived || strayed;
	if (claimed || !delivered)
		report(r->v.t, !delivered, "%s: the INTx was blocked%s", what, delivered ? " (it was delivered)" : "");
	else
		printf("    %s: the INTx was delivered: the unit checked no source for the I/O APIC's messages (QEMU's "
		       "I/O APIC sends them with no requester id): not claimed\n",
		       what);
	if (!claimed && delivered)
		r->sid_unseen = true;
	ir_fault_check(&r->v, kind, r->sid_unseen ? IR_SID_UNSEEN : r->sid, (unsigned)r->decoy.vector,
		       claimed || !delivered, irqs);
}

/* The "the firmware timer keeps working" while remapping is on. */
static void ioa_firmware_timer(struct ioa *r)
{
	if (!platform->timer_event) {
		printf("    the firmware timer: cannot be checked on this platform (it has no firmware timer)\n");
		return;
	}
	bool fired = false;
	const char *e = platform->timer_event(10000, 500000, &fired);
	report(r->v.t, !e && fired, "a firmware timer event (10 ms) fired within 500 ms with remapping on%s%s",
	       e ? ": " : "", e ? e : "");
}

/* The first remapped INTx: true when it arrived at the entry's vector
 * alone. Arriving at the redirection entry's own vector field (the
 * index) instead, it passed the unit unremapped: on hardware an escape,
 * under an emulator its gap, and either way nothing more on this path can
 * be shown. (QEMU 10.0.2's amd-iommu does this: amdvi_sysbus_realize makes
 * the I/O APIC's address space before the interrupt window it aliases, so
 * the alias is empty and amdvi_translate passes 0xfee00000 through to the
 * APIC; upstream's "hw/i386/amd_iommu: Move IOAPIC memory region
 * initialization to the end" fixes it.) */
static bool ioa_first(struct ioa *r, uint64_t rte, unsigned index)
{
	struct env *v = &r->v;
	bool arrived = false, strayed = false;
	ioa_raise(r, &r->real, &r->decoy, &arrived, &strayed, NULL);
	if (strayed && !arrived && strcmp(timing.platform, "hardware") != 0) {
		printf("    the unit remaps none of the I/O APIC's messages: nothing on this path can be shown\n");
		test_skip(v->t, SKIP_EMULATOR,
			  "%s let the I/O APIC's INTx past unremapped: redirection entry 0x%016llx (requester %04x) "
			  "came at its vector field 0x%x, not entry %u's 0x%x",
			  v->io->name, (unsigned long long)rte, r->sid, r->decoy.vector, index, r->real.vector);
		return false;
	}
	report(v->t, arrived && !strayed,
	       "redirection entry 0x%016llx (requester %04x) raised entry %u: vector 0x%x arrived%s",
	       (unsigned long long)rte, r->sid, index, r->real.vector,
	       arrived && strayed ? ", and the decoy's too"
	       : strayed	  ? " NOT: its own vector field came, unremapped (an escape)"
	       : arrived	  ? ""
				  : " nowhere");
	return arrived && !strayed;
}

static void ioa_remapped(struct ioa *r)
{
	struct env *v = &r->v;
	struct ioapic *a = &r->ap[r->at.ap];
	unsigned index = (unsigned)r->decoy.vector, kept = 0;
	uint64_t rte = 0;
	const char *e = ioa_keep_firmware_pins(r, a, &kept);
	if (!e)
		e = ioa_point(r, index, &r->real, r->sid);
	if (!e)
		e = v->io->ops->ir_ioapic_rte(v->io, index, (uint8_t)r->real.vector, &rte);
	if (e) {
		report(v->t, false, "the I/O APIC's entry %u: %s", index, e);
		return;
	}
	ioapic_write_rte(a, r->at.pin, rte & ~IOAPIC_RTE_MASKED);
	if (kept)
		printf("    %u entr%s for the pins the firmware uses\n", kept, kept == 1 ? "y" : "ies");
	bool arrived = ioa_first(r, rte, index), strayed = false;
	if (v->t->skipped)
		return;
	if (arrived)
		ioa_time(r);
	ioa_firmware_timer(r);
	/* the remapping entry alone repointed */
	uint64_t before = ioapic_read_rte(a, r->at.pin);
	e = ioa_point(r, index, &r->decoy, r->sid);
	if (!e) {
		ioa_raise(r, &r->decoy, &r->real, &arrived, &strayed, NULL);
		report(v->t, arrived && !strayed && ioapic_read_rte(a, r->at.pin) == before,
		       "entry %u changed to vector 0x%x and invalidated: the next INTx arrived there, the redirection "
		       "entry untouched",
		       index, r->decoy.vector);
	}
	/* VT-d's one table serves every requester, each entry naming whom it
	 * admits (SVT=01); an AMD-Vi table is the requester's own (its DTE),
	 * so there is no other requester an entry could admit. Checked first:
	 * it shows whether the unit sees the I/O APIC's requester id, which
	 * the not-present record then names. */
	const struct iommu_case_arg *arg = v->t->tc->arg;
	if (!e && !(arg->kind && strcmp(arg->kind, IR_TABLE_PER_REQUESTER) == 0)) {
		e = ioa_point(r, index, &r->real, (uint16_t)(r->sid ^ 1));
		if (!e)
			ioa_blocked(r, IOMMU_FAULT_IR_SOURCE, "an entry admitting only another requester",
				    strcmp(timing.platform, "hardware") == 0);
	}
	if (!e)
		e = ioa_point(r, index, NULL, r->sid);
	if (!e)
		ioa_blocked(r, IOMMU_FAULT_IR_NOT_PRESENT, "a not-present entry", true);
	if (e)
		report(v->t, false, "%s", e);
}

void case_ir_ioapic(struct test_ctx *t)
{
	const struct iommu_case_arg *arg = t->tc->arg;
	struct ioa *r = calloc(1, sizeof(*r));
	if (!r) {
		report(t, false, "out of memory");
		return;
	}
	r->real.vector = r->decoy.vector = -1;
	if (!bench_setup(t, &r->v, arg->backend)) {
		free(r);
		return;
	}
	struct env *v = &r->v;
	char why[160], how[200];
	const char *e = NULL;
	enum skip_reason reason = SKIP_UNCLASSIFIED;
	bool ok = ioa_needs(r, v->machine, SKIP_MACHINE_ONLY, "the I/O APIC path needs the machine's I/O APIC") &&
		  ioa_needs(r, v->e->intx_enable && v->e->intx_set, SKIP_UNSUPPORTED,
			    "the engine offers no INTx of its own") &&
		  ioa_needs(r, v->io->ops->ir_enable && v->io->ops->ir_set && v->io->ops->ir_ioapic_rte,
			    SKIP_UNSUPPORTED, "the backend cannot remap the I/O APIC's interrupts");
	if (ok && (e = msi_catch_install(&r->real)) == NULL)
		e = msi_catch_install(&r->decoy);
	if (ok)
		ok = ioa_needs(r, !e, SKIP_PLATFORM, e ? e : "");
	if (ok && (e = ioa_open(r, why, sizeof(why), &reason)) != NULL)
		ok = ioa_needs(r, false, reason, e);
	if (ok && (e = v->e->intx_enable(v->e, true)) != NULL) {
		report(t, false, "%s", e);
		ok = false, ioa_teardown(r);
	}
	r->intx = ok;
	if (ok && !ioa_find_pin(r, how, sizeof(how))) {
		report(t, false, "the device's INTx pin: %s", how);
		ok = false, ioa_teardown(r);
	}
	if (ok) {
		printf("    %s's INTx: %s\n", v->label, how);
		if ((e = ioa_source_id(r, r->ap[r->at.ap].id, why, sizeof(why), &reason)) != NULL)
			ok = ioa_needs(r, false, reason, e);
	}
	if (!ok) {
		free(r);
		return;
	}
	e = v->io->ops->ir_enable(v->io, true, IOA_ENTRIES);
	r->enabled = !e;
	if (e && v->io->err == IOMMU_ERR_UNSUPPORTED) { /* the unit says it has none (ir.c ir_setup) */
		test_skip(t, SKIP_UNSUPPORTED, "%s", e);
		ioa_teardown(r);
		free(r);
		return;
	}
	if (e)
		report(t, false, "%s: interrupt remapping on: %s", v->io->name, e);
	else
		ioa_remapped(r);
	test_note(t, "INTx at GSI %u (halving %zu masked pins: %zu probes, confirmed alone), I/O APIC requester %04x",
		  gsi_of(r, r->at), r->ncand, r->probes, r->sid);
	ioa_teardown(r);
	free(r);
}
