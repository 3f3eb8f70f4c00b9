/* The interrupt-remapping cases (ir.h), written once against the iommu
 * interface's ir_* ops and the DMA engine's own MSI (msi_program,
 * msi_raise, msi_off). A backend's group lists them with its bench
 * (struct iommu_case_arg), so each record says which unit it ran on.
 *
 * Every case counts arrivals with handlers of its own (pci/dma.h
 * msi_catch): `real` is the vector a remapping entry names, `decoy` the one
 * the device is told (the data an untranslated message would carry), so a
 * message that bypassed the table, or went where the entry does not say,
 * shows on the wrong counter. */
#include <stdio.h>
#include <string.h>

#include "cases.h"
#include "core/base/platform.h"
#include "core/base/timing.h"
#include "ir.h"
#include "tests/catalogue/bench.h"

#define IR_ENTRIES 256	  /* room for an index equal to any vector the platform hands out */
#define IR_WAIT_US 100000 /* an MSI arrives within microseconds; 100 ms allows for TCG */
/* How long an MSI that must not arrive is watched for once the engine's
 * msi_raise has returned. The device has sent it by then (pci/dma.h: NVMe
 * posts its completion entry and then the interrupt, and the raise waits
 * for that entry; QEMU's edu sends it within the raise register's write),
 * so what is left is the way from the device to the handler: the root
 * complex, the unit's remapping and the local APIC, microseconds on
 * silicon. Under TCG it is QEMU's device thread going from the completion
 * entry to the MSI, which a loaded host may hold off for a scheduler tick
 * or two: 10 ms is 1000 times the silicon path and past a tick. The block
 * is checked again as the case ends (ir_teardown), so a message later
 * than this still fails the case. */
#define IR_SENT_GRACE_US 10000
#define IR_SAMPLES 16

struct ir {
	struct env v;
	struct msi_catch real, decoy;
	uint16_t sid;
	bool enabled;
	/* after ir_blocked: the counters then, and when the raise returned */
	bool blocked;
	uint64_t blocked_real, blocked_decoy, blocked_at;
};

static uint16_t ir_sid(const struct dma_engine *e)
{
	return pci_rid(e->addr);
}

/* Everything the case set up put back, the bench last. */
static void ir_release(struct ir *r)
{
	if (r->v.e && r->v.e->msi_off)
		r->v.e->msi_off(r->v.e); /* masked before the handlers go */
	if (r->enabled)
		r->v.io->ops->ir_enable(r->v.io, false, 0);
	r->enabled = false;
	msi_catch_remove(&r->real);
	msi_catch_remove(&r->decoy);
}

/* An MSI claimed blocked that arrived after the claim's grace (a late
 * delivery) fails the case here, the handlers still installed. */
static void ir_late_check(struct ir *r)
{
	if (!r->blocked)
		return;
	r->blocked = false;
	bool late = r->real.count != r->blocked_real || r->decoy.count != r->blocked_decoy;
	report(r->v.t, !late, "nothing of the blocked MSI arrived later either (%.1f ms after its raise returned)%s",
	       cycles_to_ns(rdtsc() - r->blocked_at) / 1e6, late ? ": it arrived late" : "");
}

static void ir_teardown(struct ir *r)
{
	ir_late_check(r);
	ir_release(r);
	bench_teardown(&r->v);
}

/* bench_needs for a case already set up: skipped, all put back, unless `have`. */
static bool ir_needs(struct ir *r, bool have, enum skip_reason reason, const char *why)
{
	if (!have)
		ir_release(r);
	return bench_needs(&r->v, have, reason, "%s", why);
}

/* The bench, the device's MSI, two counting handlers and, when `remap`,
 * remapping on with every entry not present. False: skipped or failed. */
static bool ir_setup(struct test_ctx *t, struct ir *r, bool remap)
{
	const struct iommu_case_arg *arg = t->tc->arg;
	*r = (struct ir){ .real.vector = -1, .decoy.vector = -1 };
	if (!bench_setup(t, &r->v, arg->backend))
		return false;
	struct env *v = &r->v;
	if (!bench_needs(v, v->e->msi_program && v->e->msi_raise, SKIP_UNSUPPORTED,
			 "%s: the engine cannot send its own MSI", v->label))
		return false;
	if (!bench_needs(v, !remap || (v->io->ops->ir_enable && v->io->ops->ir_set && v->io->ops->ir_msi),
			 SKIP_UNSUPPORTED, "%s: the backend has no interrupt remapping", v->io->name))
		return false;
	const char *e = msi_catch_install(&r->real);
	if (!e)
		e = msi_catch_install(&r->decoy);
	if (e) {
		msi_catch_remove(&r->real);
		return bench_needs(v, false, SKIP_PLATFORM, "no interrupt handler: %s", e);
	}
	r->sid = ir_sid(v->e);
	struct iommu_fw_state fw = { 0 };
	if (!remap && v->io->ops->firmware_left)
		v->io->ops->firmware_left(v->io, &fw);
	if (fw.intremap)
		return ir_needs(r, false, SKIP_UNSUPPORTED,
				"the firmware left interrupt remapping on: every MSI goes through its table, so none "
				"can be sent with remapping off");
	if (remap) {
		e = v->io->ops->ir_enable(v->io, true, IR_ENTRIES);
		r->enabled = !e;
		/* the unit says it has none (VT-d ECAP.IR, AMD-Vi an IVHD naming
		 * no I/O APIC): nothing to remap, so nothing to claim */
		if (e && v->io->err == IOMMU_ERR_UNSUPPORTED)
			return ir_needs(r, false, SKIP_UNSUPPORTED, e);
		if (e) {
			report(t, false, "%s: interrupt remapping on: %s", v->io->name, e);
			ir_teardown(r);
			return false;
		}
	}
	return true;
}

/* Raises the device's MSI once: did it reach `want` (and not `other`)?
 * The first arrival at either is waited for up to `us` (IR_WAIT_US where
 * one is expected, IR_SENT_GRACE_US where none is), then a second message
 * trailing it for 1 ms. *cycles: the doorbell to the handler's stamp. */
static const char *ir_raise_within(struct ir *r, const struct msi_catch *want, const struct msi_catch *other,
				   bool *arrived, bool *strayed, uint64_t *cycles, uint32_t us)
{
	uint64_t w = want->count, o = other->count, t0 = 0;
	const char *e = r->v.e->msi_raise(r->v.e, &t0);
	if (e)
		return e;
	struct deadline dl = deadline_after_us(us);
	while (want->count == w && other->count == o && !deadline_passed(&dl))
		cpu_relax();
	if (want->count != w || other->count != o) { /* a second message may trail the first */
		msi_catch_wait(want, w, 1000);
		msi_catch_wait(other, o, 1000);
	}
	*arrived = want->count != w;
	*strayed = other->count != o;
	if (cycles)
		*cycles = *arrived ? want->tsc - t0 : 0;
	return NULL;
}

static const char *ir_raise(struct ir *r, const struct msi_catch *want, const struct msi_catch *other, bool *arrived,
			    bool *strayed, uint64_t *cycles)
{
	return ir_raise_within(r, want, other, arrived, strayed, cycles, IR_WAIT_US);
}

/* `n` raises timed doorbell to handler: a claim that all arrived, and the
 * measure (path "interrupt"). */
static void ir_time(struct ir *r, const struct msi_catch *want, const char *variant)
{
	uint64_t c[IR_SAMPLES];
	size_t got = 0;
	const char *e = NULL;
	for (size_t i = 0; i < IR_SAMPLES && !e && !test_stopped(r->v.t); i++) {
		bool arrived = false, strayed = false;
		e = ir_raise(r, want, want == &r->real ? &r->decoy : &r->real, &arrived, &strayed, &c[got]);
		if (!e && !arrived)
			e = "one did not arrive";
		got += !e;
		timing_floor_sample();
	}
	report(r->v.t, got == IR_SAMPLES, "%zu interrupts (%s) timed from the doorbell to the handler%s%s", got,
	       variant, e ? ": " : "", e ? e : "");
	ir_measure(
	    &r->v, r->enabled ? r->v.io->backend : "none", variant,
	    "from the write that makes the device send its MSI to the first instruction of the monitor's handler", c,
	    got);
}

void ir_measure(const struct env *v, const char *backend, const char *variant, const char *note, uint64_t *c, size_t n)
{
	char name[48]; /* "edu-remapped": the device's own path is part of the figure */
	snprintf(name, sizeof(name), "%s-%s", v->label, variant);
	const struct measure m = { .path = "interrupt",
				   .backend = backend,
				   .variant = name,
				   .unit = "cycles",
				   .model = !v->machine,
				   .note = note };
	if (n)
		test_measure(v->t, &m, c, n);
}

const char *ir_entry(struct iommu *io, uint16_t table_of, uint16_t owner, unsigned index, const struct msi_catch *c,
		     bool invalidate)
{
	const struct iommu_irte ent = { .present = c != NULL,
					.vector = c ? (uint8_t)c->vector : 0,
					.dest = c ? c->apic_id : 0,
					.source_id = owner,
					.sid_check = true };
	const char *e = io->ops->ir_set(io, table_of, index, &ent);
	if (!e && invalidate && io->ops->ir_invalidate && io->nir_kinds)
		e = io->ops->ir_invalidate(io, 0, table_of, -1);
	return e;
}

static const char *ir_point_for(struct ir *r, uint16_t owner, unsigned index, const struct msi_catch *c,
				bool invalidate)
{
	return ir_entry(r->v.io, owner, owner, index, c, invalidate);
}

static const char *ir_point(struct ir *r, unsigned index, const struct msi_catch *c, bool invalidate)
{
	return ir_point_for(r, r->sid, index, c, invalidate);
}

/* The device told the message for `index` (with the decoy's vector where
 * the format carries one: the index is the decoy's vector). */
static const char *ir_tell(struct ir *r, unsigned index)
{
	struct msi_message m;
	const char *e = r->v.io->ops->ir_msi(r->v.io, r->sid, index, &m);
	return e ? e : r->v.e->msi_program(r->v.e, &m);
}

void case_ir_msi_direct(struct test_ctx *t)
{
	struct ir r;
	if (!ir_setup(t, &r, false))
		return;
	struct msi_message m = msi_catch_message(&r.real);
	const char *e = r.v.e->msi_program(r.v.e, &m);
	bool arrived = false, strayed = false;
	if (!e)
		e = ir_raise(&r, &r.real, &r.decoy, &arrived, &strayed, NULL);
	report(t, !e && arrived && !strayed, "%s's MSI (0x%llx, data 0x%x) reached vector 0x%x on APIC %u%s%s",
	       r.v.label, (unsigned long long)m.addr, m.data, r.real.vector, r.real.apic_id, e ? ": " : "",
	       e ? e : (strayed ? " (and the decoy's vector too)" : ""));
	if (!e && arrived)
		ir_time(&r, &r.real, "remapping-off");
	ir_teardown(&r);
}

void case_ir_remapped(struct test_ctx *t)
{
	struct ir r;
	if (!ir_setup(t, &r, true))
		return;
	bool pending = r.v.io->ops->fault_pending && r.v.io->ops->fault_pending(r.v.io);
	report(t, !pending, "no fault recorded after the takeover and remapping on");
	unsigned index = (unsigned)r.decoy.vector;
	const char *e = ir_point(&r, index, &r.real, true);
	if (!e)
		e = ir_tell(&r, index);
	bool arrived = false, strayed = false;
	if (!e)
		e = ir_raise(&r, &r.real, &r.decoy, &arrived, &strayed, NULL);
	report(t, !e && arrived && !strayed,
	       "entry %u (vector 0x%x, APIC %u) delivered the MSI, not the decoy's vector 0x%x%s%s", index,
	       r.real.vector, r.real.apic_id, r.decoy.vector, e ? ": " : "",
	       e ? e : (strayed ? ": the decoy's came" : ""));
	if (!e && arrived)
		ir_time(&r, &r.real, "remapped");
	ir_teardown(&r);
}

/* The fault event that a record raises may trail the blocked message a
 * little; 10 ms is ample under TCG. */
#define IR_EVENT_WAIT_US 10000

static bool ir_fault_matches(const struct iommu_fault *f, enum iommu_fault_kind kind, int sid, bool indexed,
			     unsigned index)
{
	return f->kind == kind && (sid == IR_SID_UNSEEN || !f->sid_known || f->sid == (uint16_t)sid) &&
	       (!indexed || f->addr == index);
}

void ir_fault_check(const struct env *v, enum iommu_fault_kind kind, int sid, unsigned index, bool claim, uint64_t irqs)
{
	struct iommu_fault f[4];
	bool overflow = false;
	/* a record is written with the blocked message, its event sent
	 * after: the event is waited for before the records are read, so
	 * reading (which clears PPF) cannot race it */
	struct deadline dl = deadline_after_us(IR_EVENT_WAIT_US);
	bool pending = v->io->ops->fault_pending && v->io->ops->fault_pending(v->io);
	while (pending && v->io->irq && v->io->irq_count == irqs && !deadline_passed(&dl))
		cpu_relax();
	bool event = v->io->irq_count != irqs;
	size_t n = v->io->ops->faults ? v->io->ops->faults(v->io, f, 4, &overflow) : 0;
	const struct iommu_case_arg *arg = v->t->tc->arg;
	bool vtd_records = arg->kind && strcmp(arg->kind, IR_FAULTS_RECORDED) == 0;
	/* a compatibility-format request has no interrupt index: what a unit
	 * records in FI for it is its own (7.1.3), so it is not compared */
	bool indexed = vtd_records && kind != IOMMU_FAULT_IR_COMPAT;
	const struct iommu_fault *match = NULL;
	for (size_t i = 0; i < n && !match; i++)
		if (ir_fault_matches(&f[i], kind, sid, indexed, index))
			match = &f[i];
	bool emulated = strcmp(timing.platform, "hardware") != 0;
	/* a model always records; a VT-d unit on hardware always (7.1), and
	 * under an emulator whenever any record arrives: the unit shows it
	 * records them, so the one that came must be right */
	bool records = claim && (!v->machine || (vtd_records && (!emulated || n > 0)));
	char entry[24] = ""; /* the index, where the record carries one */
	if (indexed)
		snprintf(entry, sizeof(entry), ", index %u", index);
	char from[40] = "sid not compared"; /* the unit was shown not to see it */
	if (sid != IR_SID_UNSEEN)
		snprintf(from, sizeof(from), "sid %04x", (unsigned)sid);
	if (!records) {
		printf("    %s: %s interrupt fault recorded (%zu records read), not claimed: %s\n", v->io->name,
		       match ? "an" : "no", n,
		       !claim	     ? "the interrupt is not claimed blocked"
		       : vtd_records ? "none arrived, and under an emulator a missing record is reported only (QEMU "
				       "7.2's VT-d records none)"
		       : emulated    ? "QEMU's AMD-Vi logs no interrupt fault (amdvi_mem_ir_write)"
				     : "this unit's interrupt faults are not checked");
		return;
	}
	report(v->t, match != NULL, "the unit recorded the interrupt fault (%s%s): %s (%zu records read)", from, entry,
	       match ? (match->why ? match->why : "recorded") : "no such record", n);
	for (size_t i = 0; i < n; i++) /* what came, so a wrong record says how it is wrong */
		if (&f[i] != match || sid == IR_SID_UNSEEN)
			printf("    record: %s, sid %s%04x, %s %llu\n", f[i].why ? f[i].why : "?",
			       f[i].sid_known ? "" : "(not recorded) ", f[i].sid, indexed ? "index" : "address",
			       (unsigned long long)f[i].addr);
	if (match && v->io->irq)
		report(v->t, event, "the fault event interrupt came with the record (%llu so far)",
		       (unsigned long long)v->io->irq_count);
}

/* Entry `index` present for the device, delivering to `real`, the device
 * told its message, raised once: a claim that it arrived there. A blocked
 * case rests on this arrival: an interrupt missing where nothing arrives
 * at all shows no block. False (claimed) when it did not arrive. */
static bool ir_delivers(struct ir *r, unsigned index)
{
	bool arrived = false, strayed = false;
	const char *e = ir_point(r, index, &r->real, true);
	if (!e)
		e = ir_tell(r, index);
	if (!e)
		e = ir_raise(r, &r->real, &r->decoy, &arrived, &strayed, NULL);
	report(r->v.t, !e && arrived && !strayed,
	       "first, a present entry %u delivered the device's MSI to vector 0x%x%s%s", index, r->real.vector,
	       e ? ": " : "",
	       e	 ? e
	       : strayed ? " (the decoy's came)"
	       : arrived ? ""
			 : " (nothing arrived: a missing MSI would show no block)");
	return !e && arrived && !strayed;
}

/* A blocked interrupt: neither handler runs, and a fault of `kind` is
 * recorded where the unit records interrupt faults, from the device and,
 * where the record carries one (VT-d's), naming entry `index`. */
static void ir_blocked(struct ir *r, enum iommu_fault_kind kind, unsigned index, const char *what)
{
	bool arrived = false, strayed = false;
	uint64_t irqs = r->v.io->irq_count;
	const char *e = ir_raise_within(r, &r->real, &r->decoy, &arrived, &strayed, NULL, IR_SENT_GRACE_US);
	r->blocked = !e;
	r->blocked_at = rdtsc();
	r->blocked_real = r->real.count;
	r->blocked_decoy = r->decoy.count;
	report(r->v.t, !e && !arrived && !strayed, "%s: the MSI was blocked%s%s", what, e ? ": " : "",
	       e ? e : (arrived || strayed ? " (it was delivered)" : ""));
	ir_fault_check(&r->v, kind, r->sid, index, true, irqs);
}

/* The device told to raise an entry that must block it: not present
 * (`owner` == the device), or present and admitting only `owner`. */
static void ir_entry_blocks(struct test_ctx *t, bool other, enum iommu_fault_kind kind, const char *what)
{
	struct ir r;
	if (!ir_setup(t, &r, true))
		return;
	unsigned index = (unsigned)r.decoy.vector;
	uint16_t owner = other ? r.sid ^ 0x1 : r.sid; /* ^1: another function of the same device */
	/* where each requester has a table of its own (AMD-Vi), the other's
	 * entry is in the other's table: the device's own entry is absent */
	const struct iommu_case_arg *arg = t->tc->arg;
	if (other && arg->kind && strcmp(arg->kind, IR_TABLE_PER_REQUESTER) == 0)
		kind = IOMMU_FAULT_IR_NOT_PRESENT;
	if (!ir_delivers(&r, index)) {
		ir_teardown(&r);
		return;
	}
	/* the device's own entry gone first: only the one for `owner` remains */
	const char *e = other ? ir_point(&r, index, NULL, true) : NULL;
	if (!e)
		e = ir_point_for(&r, owner, index, other ? &r.real : NULL, true);
	if (!e)
		e = ir_tell(&r, index);
	if (e)
		report(t, false, "%s (entry %u of requester %04x): %s", what, index, owner, e);
	else
		ir_blocked(&r, kind, index, what);
	ir_teardown(&r);
}

void case_ir_not_present(struct test_ctx *t)
{
	ir_entry_blocks(t, false, IOMMU_FAULT_IR_NOT_PRESENT, "a not-present entry");
}

void case_ir_source(struct test_ctx *t)
{
	ir_entry_blocks(t, true, IOMMU_FAULT_IR_SOURCE, "an entry admitting only another requester");
}

void case_ir_index(struct test_ctx *t)
{
	struct ir r;
	if (!ir_setup(t, &r, true))
		return;
	struct msi_message m;
	const char *e = r.v.io->ops->ir_msi(r.v.io, r.sid, IR_ENTRIES, &m);
	if (!ir_needs(&r, !e, SKIP_UNSUPPORTED, "no message names an index past the table (ir_msi refuses it)"))
		return;
	if (!ir_delivers(&r, (unsigned)r.decoy.vector)) {
		ir_teardown(&r);
		return;
	}
	e = r.v.e->msi_program(r.v.e, &m);
	/* QEMU's AMD-Vi (7.2 and 10.0) never checks IntTabLen: it reads
	 * entry 256 from the rest of the table's zeroed page (RemapEn=0) and
	 * blocks that, and reads data 10:8 (index 256 sets bit 8) as the
	 * interrupt type */
	const struct iommu_case_arg *arg = t->tc->arg;
	bool qemu_amdvi = r.v.machine && strcmp(timing.platform, "hardware") != 0 && arg->kind &&
			  strcmp(arg->kind, IR_TABLE_PER_REQUESTER) == 0;
	if (e)
		report(t, false, "index %u: %s", IR_ENTRIES, e);
	else
		ir_blocked(&r, IOMMU_FAULT_IR_INDEX, IR_ENTRIES,
			   qemu_amdvi ? "index 256 (data bit 8 also read as the type), no IntTabLen check: QEMU's "
					"AMD-Vi reads a zeroed entry past the table (RemapEn=0)"
				      : "an index past the table");
	ir_teardown(&r);
}

void case_ir_invalidate(struct test_ctx *t)
{
	struct ir r;
	if (!ir_setup(t, &r, true))
		return;
	if (!ir_needs(&r, r.v.io->ops->ir_invalidate && r.v.io->nir_kinds, SKIP_UNSUPPORTED,
		      "no interrupt-entry invalidation"))
		return;
	unsigned index = (unsigned)r.decoy.vector;
	bool arrived = false, strayed = false;
	const char *e = ir_point(&r, index, &r.real, true);
	if (!e)
		e = ir_tell(&r, index);
	if (!e) /* the unit's cache learns the entry */
		e = ir_raise(&r, &r.real, &r.decoy, &arrived, &strayed, NULL);
	if (!e) /* repointed, not invalidated: which vector does it use? */
		e = ir_point(&r, index, &r.decoy, false);
	bool stale = false, fresh = false;
	if (!e)
		e = ir_raise(&r, &r.real, &r.decoy, &stale, &fresh, NULL);
	if (e) {
		report(t, false, "%s", e);
		ir_teardown(&r);
		return;
	}
	const char *seen = stale   ? "was not used: the unit delivered from its cached copy"
			   : fresh ? "was used at once (the unit caches no entry, as QEMU does)"
				   : "delivered nothing";
	if (r.v.machine && stale) /* what a unit does before invalidation is a finding */
		test_finding(t, "before invalidating, the changed entry %s", seen);
	else if (r.v.machine)
		printf("    before invalidating, the changed entry %s\n", seen);
	else /* the models keep an entry until the invalidation that covers it */
		report(t, stale && !fresh, "stale until invalidated: before invalidating, the changed entry %s", seen);
	e = r.v.io->ops->ir_invalidate(r.v.io, 0, r.sid, -1);
	if (!e)
		e = ir_raise(&r, &r.decoy, &r.real, &arrived, &strayed, NULL);
	report(t, !e && arrived && !strayed, "after %s the changed entry delivered (vector 0x%x)%s%s",
	       r.v.io->ir_kinds[0].name, r.decoy.vector, e ? ": " : "", e ? e : "");
	if (!e && arrived)
		ir_time(&r, &r.decoy, "remapped-after-invalidation");
	ir_teardown(&r);
}

/* The second entry of case_ir_dest32: the boot CPU's id `id` with other
 * bits that only one reading of a 32-bit destination ignores. An x2APIC
 * compares all 32 bits, so id + 2^16 must not reach it (a unit keeping
 * fewer bits, AMD-Vi's 7:0 or VT-d's 8-bit DST 15:8, would reach APIC 0
 * or id there). An xAPIC takes the low 8 bits of what a unit sends (QEMU:
 * apic_match_dest compares (uint8_t)dest), so id with another APIC's id in
 * bits 15:8 must reach it as long as the unit read the 32-bit format
 * (VT-d DST 39:32): an 8-bit reading (DST 47:40) would name that other
 * APIC. `*arrive`: what a unit carrying all 32 bits does. */
static uint32_t dest32_probe(uint32_t id, bool x2apic, bool *arrive, uint32_t *other)
{
	*arrive = !x2apic;
	if (x2apic)
		return *other = id + 0x10000u;
	*other = (id & 0xffu) ^ 0x40u; /* neither the boot CPU nor the broadcast 0xff */
	return *other << 8 | (id & 0xffu);
}

void case_ir_dest32(struct test_ctx *t)
{
	struct ir r;
	if (!ir_setup(t, &r, true))
		return;
	struct iommu *io = r.v.io;
	if (io->ir_dest_bits != 32) {
		char why[140];
		if (!io->ir_dest32)
			snprintf(why, sizeof(why),
				 "%s's remapping entries carry 8-bit destinations only (no extended mode: VT-d "
				 "ECAP.EIM, AMD-Vi EFR.XT)",
				 io->name);
		else
			snprintf(why, sizeof(why),
				 "%s remaps with 8-bit destinations: the boot CPU's APIC id fits them (`set %s` forces "
				 "32-bit ones)",
				 io->name, io->ir_dest32);
		ir_needs(&r, false, io->ir_dest32 ? SKIP_SETTING : SKIP_UNSUPPORTED, why);
		return;
	}
	bool x2apic = platform->apic_x2apic && platform->apic_x2apic();
	printf("    %s remaps with 32-bit destinations; the boot CPU's local APIC (id %u) is in %s mode\n", io->name,
	       r.real.apic_id, x2apic ? "x2APIC" : "xAPIC");
	unsigned index = (unsigned)r.decoy.vector;
	bool arrived = false, strayed = false;
	const char *e = ir_point(&r, index, &r.real, true);
	if (!e)
		e = ir_tell(&r, index);
	if (!e)
		e = ir_raise(&r, &r.real, &r.decoy, &arrived, &strayed, NULL);
	report(t, !e && arrived && !strayed,
	       "entry %u with the 32-bit destination %u delivered the MSI to vector 0x%x%s%s", index, r.real.apic_id,
	       r.real.vector, e ? ": " : "",
	       e	 ? e
	       : strayed ? " (the decoy's came)"
	       : arrived ? ""
			 : " (nothing arrived)");
	if (!e && arrived && !strayed)
		ir_time(&r, &r.real, "remapped-dest32");
	bool arrive;
	uint32_t other;
	uint32_t dest = dest32_probe(r.real.apic_id, x2apic, &arrive, &other);
	const struct iommu_irte ent = {
		.present = true, .vector = (uint8_t)r.real.vector, .dest = dest, .source_id = r.sid, .sid_check = true
	};
	if (!e)
		e = io->ops->ir_set(io, r.sid, index, &ent);
	if (!e && io->ops->ir_invalidate && io->nir_kinds)
		e = io->ops->ir_invalidate(io, 0, r.sid, -1);
	arrived = strayed = false;
	if (!e)
		e = ir_raise(&r, &r.real, &r.decoy, &arrived, &strayed, NULL);
	if (e)
		report(t, false, "an entry naming APIC 0x%x: %s", dest, e);
	else if (arrive)
		report(t, arrived && !strayed,
		       "an entry naming 0x%x reached the xAPIC boot CPU (it compares bits 7:0), carried from the "
		       "32-bit field (VT-d's 8-bit one, bits 15:8, names 0x%x)%s",
		       dest, other, arrived ? "" : ": it did not arrive");
	else
		report(t, !arrived && !strayed,
		       "an entry naming 0x%x (the boot CPU's id plus 2^16) did not reach the x2APIC boot CPU: the unit "
		       "carried all 32 bits%s",
		       dest, arrived || strayed ? ": it arrived" : "");
	ir_teardown(&r);
}

void case_ir_compat(struct test_ctx *t)
{
	struct ir r;
	if (!ir_setup(t, &r, true))
		return;
	if (!ir_needs(&r, r.v.io->ops->ir_compat != NULL, SKIP_UNSUPPORTED,
		      "the unit has no switch for compatibility-format interrupts"))
		return;
	struct msi_message m = msi_catch_message(&r.real); /* compatibility format: what reaches `real` unremapped */
	const char *e = r.v.e->msi_program(r.v.e, &m);
	/* with CFI set (as remapping went on) it arrives: what is missing
	 * once CFI is clear is then the block's doing */
	bool arrived = false, strayed = false;
	if (!e)
		e = ir_raise(&r, &r.real, &r.decoy, &arrived, &strayed, NULL);
	if (!e) {
		report(t, arrived && !strayed,
		       "first, with CFI set, the compatibility-format MSI reached vector 0x%x%s", r.real.vector,
		       arrived ? "" : " (nothing arrived: a missing MSI would show no block)");
		if (!arrived || strayed) {
			ir_teardown(&r);
			return;
		}
	}
	if (!e)
		e = r.v.io->ops->ir_compat(r.v.io, false);
	bool ignored = e && r.v.io->err == IOMMU_ERR_UNSUPPORTED; /* the unit ignores CFI: refused by name */
	if (ignored)
		e = NULL;
	if (e) {
		report(t, false, "a compatibility-format MSI with CFI off: %s", e);
		ir_teardown(&r);
		return;
	}
	if (!ignored) {
		ir_blocked(&r, IOMMU_FAULT_IR_COMPAT, 0, "a compatibility-format MSI with remapping on and CFI off");
		ir_teardown(&r);
		return;
	}
	/* sent all the same, to say what the unit does with it */
	e = ir_raise(&r, &r.real, &r.decoy, &arrived, &strayed, NULL);
	char what[64] = "did not arrive";
	if (arrived)
		snprintf(what, sizeof(what), "was delivered as sent (vector 0x%x)", r.real.vector);
	ir_release(&r);
	/* QEMU 7.2 passes compatibility-format interrupts whatever CFI says
	 * (vtd_interrupt_remap_msi): a known gap; a unit that does is short
	 * of what it claims (ECAP.IR) */
	bench_needs(&r.v, false, strcmp(timing.platform, "qemu-tcg") == 0 ? SKIP_EMULATOR : SKIP_UNSUPPORTED,
		    "%s ignores GCMD.CFI (GSTS.CFIS never follows it), so none can be blocked: the "
		    "compatibility-format MSI %s",
		    r.v.io->name, e ? e : what);
}

const struct test_doc iommu_ir_docs[] = {
	{ case_ir_msi_direct,
	  "with interrupt remapping off the device's own MSI reaches the monitor's handler with its vector, and "
	  "the time from the trigger to the handler is measured",
	  "an MSI that never arrives means the device or the platform's interrupt path does not work before "
	  "remapping is involved: the remapped cases after it would prove nothing" },
	{ case_ir_remapped,
	  "with remapping on and an entry for the device, its MSI (now in remappable format) arrives with the "
	  "entry's vector and destination; an entry changed and invalidated delivers the new vector; timed",
	  "no interrupt, or the old vector after the entry's invalidation: the unit does not remap through the "
	  "table as built, or its interrupt-entry cache ignores the invalidation" },
	{ case_ir_not_present,
	  "an MSI through an entry marked not present is blocked and recorded as an interrupt-remapping fault "
	  "(the index and the requester)",
	  "an interrupt delivered through a not-present entry means remapping protects nothing; no fault "
	  "record means blocked interrupts go unseen" },
	{ case_ir_source,
	  "an MSI through an entry that admits another requester (source-id check) is blocked and recorded",
	  "delivery means any device could raise another's interrupt through its entry: the source-id "
	  "validation does not work" },
	{ case_ir_index, "an MSI naming an index beyond the table's size is blocked and recorded, nothing delivered",
	  "delivery means the unit reads past the table the monitor gave it, whatever lies there" },
	{ case_ir_invalidate,
	  "a changed interrupt entry: what the unit delivers before its invalidation is recorded (its cached "
	  "copy is a finding on hardware), and after the invalidation the new entry is used, every time",
	  "the old entry still used after the invalidation means the interrupt-entry cache ignores it" },
	{ case_ir_dest32,
	  "with 32-bit destinations on (VT-d EIME, AMD-Vi GAEn/XTEn) the boot CPU is reached and every bit of the "
	  "destination is carried, timed",
	  "a lost interrupt or a truncated destination means x2APIC systems with CPU ids above 255 would lose "
	  "interrupts through this unit" },
	{ case_ir_compat,
	  "with compatibility format disallowed (GCMD.CFI clear) an MSI in the old format is blocked and "
	  "recorded (fault 25h); allowed, it passes",
	  "a compatibility-format interrupt delivered while disallowed bypasses remapping entirely" },
	{ case_ir_ioapic,
	  "the device's INTx through the machine's I/O APIC with remapping on: delivered through its entry, "
	  "repointed to another vector after invalidation, blocked when not present; timed",
	  "an INTx that bypasses the table, keeps the old vector or arrives while blocked means the I/O APIC's "
	  "interrupts are not remapped as the DMAR or IVRS says" },
	{ NULL },
};
