/* Group `amdvi`: the device under test (`set device`, edu or NVMe) behind
 * the machine's AMD-Vi unit that covers it, taken over from the firmware
 * for each case and given back after it. The group lists the shared cases
 * (cases.h) with their arguments, and AMD-Vi's own: the take-over seen in
 * its registers with the bystanders still working, COMPLETION_WAIT as the
 * fence, the device-table and interrupt-table invalidations timed, an
 * illegal command reported and recovered from, and (on the model) blocked
 * interrupts logged as IO_PAGE_FAULT events with I=1.
 *
 * QEMU 7.2's amd-iommu never writes its event log (amdvi_log_event returns
 * early, ../shared/specs/qemu-iommus.md): there a forbidden DMA is only
 * dropped. The fault cases see that and skip, saying so; they never pass
 * on a dead log. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cases.h"
#include "core/base/macros.h"
#include "core/base/platform.h"
#include "core/base/timing.h"
#include "iommu/amdvi/amdvi.h"
#include "iommu/amdvi/model.h"
#include "iommu/backend.h"
#include "iommu/models/models.h"
#include "ir.h"
#include "tests/catalogue/bench.h"
#include "tests/catalogue/catalogue.h"

static struct amdvi *amdvi_of(struct iommu *io)
{
	return container_of(io, struct amdvi, io);
}

/* ---- taking over and the bystanders ------------------------------------- */

static void t_takeover(struct test_ctx *t)
{
	struct env v;
	if (!bench_setup(t, &v, "amdvi"))
		return;
	struct amdvi *a = amdvi_of(v.io);
	uint64_t ctrl = regwin_read64(&a->w, AMDVI_REG_CONTROL);
	uint64_t dt = regwin_read64(&a->w, AMDVI_REG_DEVTAB_BASE);
	report(t, (ctrl & AMDVI_CTRL_IOMMU_EN) && (ctrl & AMDVI_CTRL_CMDBUF_EN),
	       "translation and the command buffer are on (Control 0x%llx)", (unsigned long long)ctrl);
	report(t, (dt & AMDVI_BASE_ADDR) == (uint64_t)(uintptr_t)a->devtab && (dt & 0x1ff) == a->devtab_pages - 1,
	       "the device table is ours: %u entries in %zu pages (DevTabBase 0x%llx)", a->ndev, a->devtab_pages,
	       (unsigned long long)dt);
	printf("    taken over in %.2f ms: %u-level walk (EFR.HATS allows %u), EFR 0x%llx%s%s\n",
	       cycles_to_ns(v.t_take) / 1e6, a->levels, a->max_levels, (unsigned long long)a->efr,
	       a->ia ? ", INVALIDATE_IOMMU_ALL" : "", a->np_cache ? ", NpCache (maps invalidate)" : "");
	uint64_t top = platform->memory_top ? platform->memory_top() : 0;
	if (top) /* the identity of RAM must fit the walk the unit was given */
		report(t, a->io.addr_bits >= 64 || (top - 1) >> a->io.addr_bits == 0,
		       "the walk covers IOVAs below 2^%u, all of RAM (which ends at 0x%llx)", a->io.addr_bits,
		       (unsigned long long)top);
	else
		printf("    (the platform gives no top of RAM: the walk's reach is not compared with it)\n");
	if (a->pci.msi)
		printf("    MSI capability at 0x%x recorded for give-back\n", a->pci.msi);
	else
		printf("    MSI capability not reachable (no PCI function for the unit)\n");
	size_t fine, others = bench_bystanders(&v, &fine);
	char by[64];
	test_note(t, "%s taken in %.1f ms; %u device table entries; %s", v.io->name, cycles_to_ns(v.t_take) / 1e6,
		  a->ndev, bystanders_said(fine, others, by, sizeof(by)));
	bench_teardown(&v);
}

/* ---- the IOTLB ------------------------------------------------------------ */

/* The leaf rewritten in place: the map op invalidates new entries where
 * the unit sets NpCache (QEMU's does), which hides the IOTLB from the
 * shared probe; a present entry changed in place asks for nothing. */
static const char *repoint_in_place(struct env *v, uint64_t iova, uint64_t phys, size_t arg)
{
	(void)arg;
	return amdvi_leaf_repoint(amdvi_of(v->io), iova, phys);
}

static void t_stale_in_place(struct test_ctx *t)
{
	struct env v;
	if (!bench_setup(t, &v, "amdvi"))
		return;
	const struct stale_way way = { repoint_in_place, NULL, 0 };
	bench_stale_finding(&v, &way, "rewrite the present leaf to B in place, nothing invalidated",
			    "stale translation");
	bench_teardown(&v);
}

/* ---- faults: the event log ------------------------------------------------ */

/* A forbidden DMA's first event as no unit should log it: an IO_PAGE_FAULT
 * with I=1 (2.5.3: an interrupt request's) or at a page other than the
 * one the DMA used. QEMU 11.1's amd-iommu with dma-remap=on logs every
 * DMA fault so, at address 0, each 4-byte access an event of its own.
 * Words for the skip that names it in out (short: a record keeps 160
 * characters of a reason); false when the event is well formed. */
static bool event_malformed(const struct iommu_fault *f, size_t events, uint64_t page, size_t len, char *out,
			    size_t cap)
{
	bool as_irq = f->kind >= IOMMU_FAULT_IR_NOT_PRESENT && f->kind <= IOMMU_FAULT_IR_OTHER;
	bool elsewhere = f->addr_known && f->addr != page;
	if (!as_irq && !elsewhere)
		return false;
	snprintf(out, cap,
		 "QEMU's amd-iommu logged the DMA fault malformed: %s, address 0x%llx not 0x%llx, %zu%s events for %zu "
		 "bytes",
		 as_irq ? "I=1 (an interrupt's)" : f->why, (unsigned long long)f->addr, (unsigned long long)page,
		 events, events >= AMDVI_RING_BYTES / 16 ? " or more" : "", len);
	return true;
}

/* Every event the log holds now, read and counted (the first in *first). */
static size_t drain_events(struct iommu *io, struct iommu_fault *first)
{
	struct iommu_fault f[8];
	bool ovf;
	size_t n, total = 0;
	while ((n = io->ops->faults(io, f, 8, &ovf)) > 0 && total < 4 * AMDVI_RING_BYTES / 16) {
		if (!total)
			*first = f[0];
		total += n;
	}
	return total;
}

/* One forbidden DMA first: with an event, the shared case runs in full;
 * with none, on QEMU, the dropped DMA is what there is to see (a skip);
 * elsewhere a missing event is a failure. An event logged malformed on
 * QEMU is a defect named (a skip); on silicon the shared case judges it. */
static bool event_logged(struct test_ctx *t, bool write)
{
	struct env v;
	if (!bench_setup(t, &v, "amdvi"))
		return false;
	struct dmabuf a = { 0 };
	bool logged = false;
	if (!dmabuf_alloc_in(&a, v.len, 0, v.limit, v.pg)) {
		report(t, false, "no memory");
		bench_teardown(&v);
		return false;
	}
	uint64_t w0 = bench_window(&v, v.pg, 0), iova = w0 + (a.phys & (v.pg - 1));
	const char *e = write ? v.io->ops->map(v.io, w0, a.phys & ~(v.pg - 1), v.pg, IOMMU_R, v.pg) : NULL;
	if (write)
		report(t, !e, "the buffer mapped read-only%s%s", e ? ": " : "", e ? e : "");
	struct iommu_fault first = { 0 };
	drain_events(v.io, &first); /* nothing old counts */
	dmabuf_pattern(&a, 0x5e);
	struct dma_result r;
	v.e->transfer(v.e, write ? DMA_FROM_DEVICE : DMA_TO_DEVICE, iova, v.len, &r);
	if (write)
		report(t, !bench_changed(&a, 0x5e) && dmabuf_guards_damaged(&a) == 0,
		       "the device's write to the read-only page left memory unchanged (DMA %s)",
		       dma_status_name(r.status));
	size_t n = drain_events(v.io, &first);
	logged = n > 0;
	char bad[320];
	bool malformed = logged && event_malformed(&first, n, iova & ~(v.pg - 1), v.len, bad, sizeof(bad));
	if (write)
		v.io->ops->unmap(v.io, w0, v.pg);
	bench_teardown(&v);
	dmabuf_free(&a);
	if (malformed && bench_on_qemu() && !t->failures) {
		test_skip(t, SKIP_EMULATOR, "%s", bad);
		return false;
	}
	if (logged || t->failures)
		return logged;
	if (bench_on_qemu())
		test_skip(
		    t, SKIP_EMULATOR,
		    "blocked, no event: QEMU's amd-iommu writes no event log (EvtTail stays 0 on 7.2 and 10.0); the "
		    "%s was only dropped",
		    write ? "write" : "read");
	else
		report(t, false, "the forbidden %s left no event in the log", write ? "write" : "read");
	return false;
}

static void t_write_read_only(struct test_ctx *t)
{
	if (event_logged(t, true))
		case_write_read_only(t);
}

static void t_read_not_present(struct test_ctx *t)
{
	if (event_logged(t, false))
		case_read_not_present(t);
}

/* More forbidden reads than the log holds, none read meanwhile: the
 * driver must say events were lost, and the log records again once read
 * and restarted (3.4.13: an overflow stops it). One DMA first: with no
 * event at all (QEMU 7.2) there is nothing to overflow. */
static void t_event_log_overflow(struct test_ctx *t)
{
	struct env v;
	if (!bench_setup(t, &v, "amdvi"))
		return;
	struct dmabuf a = { 0 };
	if (!dmabuf_alloc_in(&a, v.len, 0, v.limit, v.pg)) {
		report(t, false, "no memory");
		bench_teardown(&v);
		return;
	}
	uint64_t iova = bench_window(&v, v.pg, 0) + (a.phys & (v.pg - 1)); /* nothing mapped there */
	struct iommu_fault first = { 0 };
	drain_events(v.io, &first); /* nothing old counts */
	struct dma_result r;
	bench_dma(&v, DMA_TO_DEVICE, iova, v.len, &r);
	size_t n = drain_events(v.io, &first);
	char bad[320];
	if (n && bench_on_qemu() && event_malformed(&first, n, iova & ~(v.pg - 1), v.len, bad, sizeof(bad))) {
		bench_teardown(&v);
		dmabuf_free(&a);
		test_skip(t, SKIP_EMULATOR, "no overflow to judge: %s", bad);
		return;
	}
	if (!n && bench_on_qemu()) {
		bench_teardown(&v);
		dmabuf_free(&a);
		test_skip(t, SKIP_EMULATOR,
			  "no event to overflow with: QEMU's amd-iommu writes no event log (7.2 and 10.0)");
		return;
	}
	report(t, n > 0, "a forbidden read is an event (%zu)", n);
	const unsigned ring = AMDVI_RING_BYTES / 16;
	struct overflow o;
	bench_overflow(&v, iova, ring + 16, &o);
	report(t, o.lost, "%u forbidden reads into a log of %u entries: the driver says events were lost", o.fired,
	       ring);
	report(t, o.drained <= ring, "no more events read than the log holds (%zu)", o.drained);
	report(t, o.after > 0 && !o.after_ovf, "after it was read the log records again (%zu new, overflow %s)",
	       o.after, o.after_ovf ? "again" : "gone");
	test_note(t, "%s: %u reads, %zu events read, overflow reported, the log restarted", v.label, o.fired,
		  o.drained);
	bench_teardown(&v);
	dmabuf_free(&a);
}

/* ---- invalidation precision ------------------------------------------------ */

/* INVALIDATE_IOMMU_PAGES of the neighbouring page only: does the probe's
 * page stay cached (precise) or go too? The spec lets a unit drop more
 * than it is asked to, so either is a finding, not a failure; QEMU 7.2
 * drops the whole domain whatever the address. */
static const char *inv_neighbour(struct env *v, uint64_t iova, size_t arg)
{
	(void)arg;
	return v->io->ops->invalidate(v->io, bench_kind_named(v->io, "cmd-page"), iova + v->pg, v->pg);
}

static void t_invalidate_precision(struct test_ctx *t)
{
	struct env v;
	if (!bench_setup(t, &v, "amdvi"))
		return;
	const struct stale_way way = { repoint_in_place, inv_neighbour, 0 };
	struct stale s;
	if (!bench_stale_precision(&v, &way, &s))
		return;
	report(t, s.after == 'A' || s.after == 'B',
	       "after the neighbour's invalidation the DMA landed in one page (%c)", s.after);
	if (s.after == 'A')
		test_note(t, "%s: precise: invalidating the neighbouring page left this one cached", v.label);
	else if (s.after == 'B') {
		test_note(t, "%s: finding: invalidating the neighbouring page dropped this one too%s", v.label,
			  bench_on_qemu() ? " (QEMU's amd-iommu drops the whole domain, 7.2, 10.0 and 11.1)" : "");
		test_finding(t, "invalidating the neighbouring page dropped this one too (allowed: an invalidation "
				"may drop more than it names)");
	}
	bench_teardown(&v);
}

/* ---- the command buffer ---------------------------------------------------- */

static uint16_t dut_devid(const struct env *v)
{
	return pci_rid(v->e->addr);
}

static const char *fence(struct env *v, uint64_t iova, size_t arg)
{
	(void)iova, (void)arg;
	return amdvi_fence(amdvi_of(v->io));
}

static const char *inv_devtab(struct env *v, uint64_t iova, size_t arg)
{
	(void)iova, (void)arg;
	return amdvi_inv_devtab(amdvi_of(v->io), dut_devid(v));
}

static const char *inv_interrupt_table(struct env *v, uint64_t iova, size_t arg)
{
	(void)iova, (void)arg;
	return amdvi_inv_interrupt_table(amdvi_of(v->io), dut_devid(v));
}

/* A command sequence the catalogue times (`.arg`), each ended by the
 * COMPLETION_WAIT fence. */
static const struct bench_cmd completion_wait = { "completion-wait",
						  "COMPLETION_WAIT alone: the tail written to the store seen in memory",
						  fence },
			      devtab = { "cmd-devtab", "INVALIDATE_DEVTAB_ENTRY of the device, then COMPLETION_WAIT",
					 inv_devtab },
			      interrupt_table = { "cmd-interrupt-table",
						  "INVALIDATE_INTERRUPT_TABLE of the device, then COMPLETION_WAIT",
						  inv_interrupt_table };

/* The command completes every time, timed end to end; for the fence
 * alone, its store is seen to carry the next sequence number first. */
static void t_command_timed(struct test_ctx *t)
{
	const struct bench_cmd *c = t->tc->arg;
	struct env v;
	if (!bench_setup(t, &v, "amdvi"))
		return;
	struct amdvi *a = amdvi_of(v.io);
	if (c == &completion_wait) {
		uint64_t before = a->wait_seq;
		const char *e = amdvi_fence(a);
		report(t, !e && *a->wait == before + 1, "COMPLETION_WAIT stored %llu at 0x%llx%s%s",
		       (unsigned long long)*a->wait, (unsigned long long)(uintptr_t)a->wait, e ? ": " : "", e ? e : "");
	}
	bench_time_cmd(&v, c);
	bench_teardown(&v);
}

/* The unit's MSI, programmed for the event log, proven with the one
 * interrupt QEMU 7.2 sends: COMPLETION_WAIT with I=1 (ComWaitIntEn set, as
 * silicon needs). */
static void t_interrupt(struct test_ctx *t)
{
	struct env v;
	if (!bench_setup(t, &v, "amdvi"))
		return;
	struct amdvi *a = amdvi_of(v.io);
	if (!bench_needs(&v, v.io->irq, platform->irq_install ? SKIP_UNSUPPORTED : SKIP_PLATFORM,
			 "%s has no interrupt here (MSI capability or handler missing)", v.io->name))
		return;
	uint64_t before = v.io->irq_count;
	const char *e = amdvi_completion_interrupt_probe(a);
	report(t, !e && v.io->irq_count > before, "COMPLETION_WAIT with I=1 interrupted on vector %d%s%s", a->vector,
	       e ? ": " : "", e ? e : "");
	test_note(t, "the unit's MSI (capability 0x%x) reaches vector %d", a->pci.msi, a->vector);
	bench_teardown(&v);
}

/* A reserved opcode: silicon stops the buffer and logs
 * ILLEGAL_COMMAND_ERROR; the driver restarts it. */
static void t_illegal_command(struct test_ctx *t)
{
	struct env v;
	if (!bench_setup(t, &v, "amdvi"))
		return;
	struct amdvi *a = amdvi_of(v.io);
	bool stopped, event;
	const char *e = amdvi_illegal_command_probe(a, &stopped, &event);
	report(t, !e, "after the illegal command a COMPLETION_WAIT completes%s%s", e ? ": " : "", e ? e : "");
	size_t k = bench_kind_named(v.io, "cmd-domain");
	struct stale s = { .err = "no cmd-domain invalidation" };
	struct stale_way way = bench_stale_kind(k);
	if (k != (size_t)-1)
		bench_stale(&v, &way, &s);
	report(t, !s.err && s.after == 'B', "and an invalidation still takes effect (%s)",
	       s.err		? s.err
	       : s.after == 'B' ? "the DMA reached the new page"
				: "the DMA missed the new page");
	if (event && !stopped && bench_on_qemu() && !t->failures) {
		test_skip(t, SKIP_EMULATOR,
			  "QEMU's amd-iommu logged ILLEGAL_COMMAND_ERROR but went on running the command buffer (seen "
			  "on 11.1; silicon stops it, 2.4): there was no stop to recover from");
	} else if (stopped || event) {
		report(t, stopped && event, "the unit stopped (%s) and logged ILLEGAL_COMMAND_ERROR (%s)",
		       stopped ? "yes" : "no", event ? "yes" : "no");
		test_note(t, "illegal command: stopped, logged, restarted");
	} else if (bench_on_qemu()) {
		test_skip(t, SKIP_EMULATOR,
			  "QEMU's amd-iommu logs no event for an illegal command (7.2 and 10.0): "
			  "nothing to recover from");
	} else {
		report(t, false, "the unit neither stopped nor logged the illegal command");
	}
	bench_teardown(&v);
}

/* ---- the group ----------------------------------------------------------- */

/* ---- interrupt remapping: blocked interrupts logged ------------------------ */

/* One MSI from the device under test through the model's remapping walk:
 * delivered where the entry says, or blocked with the fault of `want`. */
static void ir_probe(struct test_ctx *t, struct env *v, struct amdvi_model *m, unsigned index,
		     enum iommu_fault_kind want, const char *what)
{
	uint16_t id = dut_devid(v);
	struct msi_message msg;
	struct iommu_fault f[4];
	bool ovf;
	uint8_t vector;
	uint32_t dest;
	v->io->ops->faults(v->io, f, 4, &ovf); /* nothing old counts */
	const char *e = v->io->ops->ir_msi(v->io, id, index, &msg);
	bool arrived = !e && amdvim_msi(m, id, msg.addr, msg.data, &vector, &dest);
	size_t n = v->io->ops->faults(v->io, f, 4, &ovf);
	if (want == IOMMU_FAULT_OTHER) {
		report(t, arrived && vector == 0x41 && dest == 1 && n == 0,
		       "%s: data %u arrived at vector 0x%x, APIC %u (the entry's 0x41, 1), no event", what, index,
		       arrived ? vector : 0, arrived ? dest : 0);
		return;
	}
	report(t, !e && !arrived && n == 1 && f[0].kind == want && f[0].sid_known && f[0].sid == id,
	       "%s: blocked, IO_PAGE_FAULT with I=1 from %02x:%02x.%u decoded as kind %d (want %d)%s%s", what, id >> 8,
	       id >> 3 & 31, id & 7, n ? (int)f[0].kind : -1, (int)want, e ? ": " : "", e ? e : "");
}

/* What QEMU's amd-iommu cannot show (7.2, 10.0): it writes no event log,
 * so a blocked interrupt there is only dropped (the shared interrupt cases
 * prove that). On the
 * AMD-Vi model the device's MSI goes through the model's remapping walk:
 * a present entry delivers, RemapEn=0 and an index past IntTabLen are
 * blocked and logged with the device id. */
static void t_ir_events(struct test_ctx *t)
{
	struct amdvi_model *m = model_amdvi();
	struct env v;
	if (!bench_setup(t, &v, "amdvi") ||
	    !bench_needs(
		&v, m != NULL, SKIP_MODEL_ONLY,
		"needs the AMD-Vi model (`model amdvi`): QEMU's amd-iommu writes no event log, and on a machine the "
		"shared interrupt cases raise the device's own MSI"))
		return;
	uint16_t id = dut_devid(&v);
	struct iommu_irte on = { .present = true, .vector = 0x41, .dest = 1, .source_id = id, .sid_check = true };
	struct iommu_irte off = { .present = false, .source_id = id, .sid_check = true };
	const char *e = v.io->ops->ir_enable(v.io, true, 16);
	if (!e)
		e = v.io->ops->ir_set(v.io, id, 1, &on);
	if (!e)
		e = v.io->ops->ir_set(v.io, id, 2, &off);
	report(t, !e, "remapping on, 16 entries, entry 1 to vector 0x41, entry 2 not present%s%s", e ? ": " : "",
	       e ? e : "");
	if (!e) {
		ir_probe(t, &v, m, 1, IOMMU_FAULT_OTHER, "entry 1");
		ir_probe(t, &v, m, 2, IOMMU_FAULT_IR_NOT_PRESENT, "entry 2 (RemapEn=0)");
		ir_probe(t, &v, m, 16, IOMMU_FAULT_IR_INDEX, "index 16 (past IntTabLen 4)");
	}
	e = v.io->ops->ir_enable(v.io, false, 0);
	report(t, !e, "remapping off: the device's DTE back to IV=0, its table freed%s%s", e ? ": " : "", e ? e : "");
	bench_teardown(&v);
}

static const struct iommu_case_arg on_amdvi = { "amdvi" }, ir_amdvi = { "amdvi", .kind = IR_TABLE_PER_REQUESTER };
static const struct iommu_case_arg leaf_4k = { "amdvi", 1ull << 12 }, leaf_2m = { "amdvi", 1ull << 21 },
				   leaf_1g = { "amdvi", 1ull << 30 };
static const struct iommu_case_arg cmd_page = { "amdvi", .kind = "cmd-page" },
				   cmd_range = { "amdvi", .kind = "cmd-range" },
				   cmd_domain = { "amdvi", .kind = "cmd-domain" },
				   cmd_all = { "amdvi", .kind = "cmd-all" };

static const struct test_case cases[] = {
	{ "amdvi.takeover", "take the unit over; bystander devices keep DMAing; give it back as found", t_takeover,
	  true },
	{ "amdvi.translate_4k", "DMA both ways through 4 KiB leaves at an IOVA far from the page", case_translate, true,
	  &leaf_4k },
	{ "amdvi.translate_2m", "DMA both ways through a 2 MiB leaf (Next Level 0 at level 2)", case_translate, true,
	  &leaf_2m },
	{ "amdvi.translate_1g", "DMA both ways through a 1 GiB leaf (Next Level 0 at level 3)", case_translate, true,
	  &leaf_1g },
	{ "amdvi.write_read_only", "a device write to a read-only page: memory unchanged, IO_PAGE_FAULT logged",
	  t_write_read_only, true, &on_amdvi },
	{ "amdvi.read_not_present", "a device read of a non-present IOVA: IO_PAGE_FAULT logged", t_read_not_present,
	  true, &on_amdvi },
	{ "amdvi.event_log_overflow",
	  "more forbidden reads than the event log holds: the loss reported, the log restarted", t_event_log_overflow,
	  true },
	{ "amdvi.stale_iotlb", "repoint a mapping without invalidating: is the stale translation used? (finding)",
	  case_stale, true, &on_amdvi },
	{ "amdvi.stale_iotlb_in_place", "rewrite a present leaf in place, no invalidation: stale used? (finding)",
	  t_stale_in_place, true },
	{ "amdvi.invalidate_precision",
	  "INVALIDATE_IOMMU_PAGES of the neighbouring page: does this one stay cached? (finding)",
	  t_invalidate_precision, true },
	{ "amdvi.invalidate_cmd_page", "INVALIDATE_IOMMU_PAGES of one page: DMA reaches the new page", case_invalidate,
	  true, &cmd_page },
	{ "amdvi.invalidate_cmd_range", "INVALIDATE_IOMMU_PAGES of a range (S=1)", case_invalidate, true, &cmd_range },
	{ "amdvi.invalidate_cmd_domain", "INVALIDATE_IOMMU_PAGES of every page of the domain", case_invalidate, true,
	  &cmd_domain },
	{ "amdvi.invalidate_cmd_all", "INVALIDATE_IOMMU_ALL (EFR.IA)", case_invalidate, true, &cmd_all },
	{ "amdvi.completion_wait", "COMPLETION_WAIT's store as the fence: arrives every time, timed", t_command_timed,
	  true, &completion_wait },
	{ "amdvi.invalidate_devtab", "INVALIDATE_DEVTAB_ENTRY of the device, timed", t_command_timed, true, &devtab },
	{ "amdvi.invalidate_interrupt_table", "INVALIDATE_INTERRUPT_TABLE of the device, timed", t_command_timed, true,
	  &interrupt_table },
	{ "amdvi.interrupt", "the unit's MSI reaches its handler (COMPLETION_WAIT with I=1)", t_interrupt, true },
	{ "amdvi.ir_events_model", "blocked interrupts logged as IO_PAGE_FAULT with I=1 (the AMD-Vi model)",
	  t_ir_events, false },
	{ "amdvi.illegal_command", "a reserved opcode: stop reported, buffer restarted, invalidation works",
	  t_illegal_command, true },
	{ "amdvi.latency", "DMA latency: translation off, pass-through, warm and cold IOTLB", case_latency, true,
	  &on_amdvi },
	{ "amdvi.map_cost", "CPU cycles per page to map and to unmap (4 KiB leaves)", case_map_cost, true, &on_amdvi },
	/* interrupt remapping (ir.c): named, not in the default plan, until
	 * every unit the default plan meets has it */
	{ "amdvi.ir_msi_direct", "remapping off: the device's own MSI arrives; timed", case_ir_msi_direct, false,
	  &ir_amdvi },
	{ "amdvi.ir_remapped", "a remapped MSI arrives at the entry's vector, not the one the device was told",
	  case_ir_remapped, false, &ir_amdvi },
	{ "amdvi.ir_not_present", "an MSI through a not-present entry is blocked", case_ir_not_present, false,
	  &ir_amdvi },
	{ "amdvi.ir_index", "an MSI naming an index past the table is blocked", case_ir_index, false, &ir_amdvi },
	{ "amdvi.ir_source", "an MSI through an entry admitting another requester is blocked", case_ir_source, false,
	  &ir_amdvi },
	{ "amdvi.ir_invalidate", "a changed interrupt entry used after its invalidation (stale: finding)",
	  case_ir_invalidate, false, &ir_amdvi },
	{ "amdvi.ir_dest32", "32-bit destinations (GAEn, XTEn): the boot CPU reached, all 32 bits carried; timed",
	  case_ir_dest32, false, &ir_amdvi },
	{ "amdvi.ir_ioapic", "the device's INTx through the I/O APIC, remapped: delivered, repointed, blocked; timed",
	  case_ir_ioapic, false, &ir_amdvi },
};

static const struct test_doc docs[] = {
	{ t_takeover,
	  "the AMD-Vi unit behind the device under test, as the firmware left it, is taken over: a device table "
	  "and command buffer of the monitor's, translation on with a walk that covers all of RAM, the device in "
	  "a domain of its own, every other device the IVRS names in pass-through; the bystanders still DMA, and "
	  "the unit is given back with Control, the device table base and the MSI capability as found",
	  "a refusal names what the firmware left (the unit enabled, an exclusion range); a bystander that stops "
	  "working or a register that differs after give-back means the machine was not left as found" },
	{ t_write_read_only,
	  "a device write to a read-only page is refused: memory unchanged, an IO_PAGE_FAULT event in the event "
	  "log naming the device, the address and a write; the fault path timed",
	  "changed bytes mean no protection; no event (QEMU's amd-iommu writes none: skipped there, saying so) "
	  "or a wrong one means faults on this unit go unseen" },
	{ t_read_not_present,
	  "a device read of an unmapped IOVA is refused and logged as IO_PAGE_FAULT with the device and "
	  "address, timed",
	  "a read that completed means the unit translated a page it was never given; no event means faults go "
	  "unseen (skipped where the emulator writes no log, never passed)" },
	{ t_event_log_overflow,
	  "more forbidden reads than the event log holds: the unit reports the overflow (Status.EventOverflow), "
	  "the monitor restarts the log, and events are logged again afterwards",
	  "no overflow reported means events were lost silently; a log that cannot be restarted leaves the unit "
	  "blind to faults" },
	{ t_stale_in_place,
	  "a present leaf rewritten in place (to page B) with no invalidation: the DMA lands in exactly one page, "
	  "and which is recorded (A: the cached translation was used, a finding)",
	  "a DMA that reached neither page or both means the IOTLB returned a translation never in the tables" },
	{ t_invalidate_precision,
	  "INVALIDATE_IOMMU_PAGES of the neighbouring page only: whether this page's cached translation stays "
	  "(precise) or is dropped too (a finding: the spec allows an invalidation to drop more), recorded",
	  "a DMA that lands in neither page means the IOTLB is inconsistent with the tables" },
	{ t_command_timed,
	  "the case's command (COMPLETION_WAIT, INVALIDATE_DEVTAB_ENTRY, INVALIDATE_INTERRUPT_TABLE) through the "
	  "command buffer completes within its deadline every time, its completion store arriving, timed",
	  "a command whose completion never arrives (named with its deadline) means the command buffer cannot "
	  "be relied on for invalidation" },
	{ t_interrupt, "the unit's own MSI (COMPLETION_WAIT with I=1) reaches the monitor's handler, timed",
	  "no interrupt means the unit's MSI capability or the platform's interrupt path does not work: "
	  "event-log interrupts would not arrive either" },
	{ t_ir_events,
	  "on the AMD-Vi model: interrupts blocked by remapping (RemapEn clear, an index past IntTabLen) are "
	  "logged as IO_PAGE_FAULT events with I=1 and the device id; a present entry delivers",
	  "a blocked interrupt delivered, or not logged, means the driver's remapping setup is wrong (the model "
	  "follows the spec's rules)" },
	{ t_illegal_command,
	  "a command with a reserved opcode: the unit reports ILLEGAL_COMMAND_ERROR and stops the buffer, the "
	  "monitor restarts it past the bad command, and an invalidation then completes",
	  "no error (the unit ran a command it should refuse), or a buffer that cannot be restarted: a driver "
	  "could not recover from one bad command" },
	{ NULL },
};

IOMMU_BACKEND_CASES(amdvi, "AMD-Vi: translation, faults, command buffer, timed");
