/* Group `riscv`: the RISC-V IOMMU (spec 1.0). Until the riscv64 monitor
 * finds a unit on a machine, the group runs on the register-level model
 * (`model riscv` attached). It lists the shared cases (cases.h) with
 * their arguments, and the family's own: the reset state blocking DMA,
 * the take-over seen in its registers, the device-context cache stale
 * until IODIR.INVAL_DDT, the IOFENCE.C fence, an IOFENCE.C that never
 * completes, and a full fault queue reported and recovered from. */
#include <stdio.h>
#include <string.h>

#include "cases.h"
#include "core/base/macros.h"
#include "core/base/timing.h"
#include "iommu/backend.h"
#include "iommu/models/models.h"
#include "iommu/riscv/model.h"
#include "iommu/riscv/rvi.h"
#include "riscv_cases.h"
#include "tests/catalogue/bench.h"
#include "tests/catalogue/catalogue.h"

static struct rvi *rvi_of(struct iommu *io)
{
	return container_of(io, struct rvi, io);
}

/* ---- the reset state and the take-over ----------------------------------- */

/* Before anything is taken: a unit in Off blocks every DMA (spec 5.4, and
 * the reset state 5.2). The device's DMA into a buffer of ours at its
 * physical address must not land. */
static void t_reset_blocks(struct test_ctx *t)
{
	struct dma_engine *e;
	struct iommu *io = model_unit(&e);
	if (!io || strcmp(io->backend, "riscv") != 0 || io->taken) {
		test_skip(t, SKIP_MODEL_ONLY, "no RISC-V IOMMU model attached (`model riscv`)");
		return;
	}
	t->model = io->model;
	struct iommu_fw_state st;
	io->ops->firmware_left(io, &st);
	if (!st.blocking) {
		test_skip(t, SKIP_UNSUPPORTED, "the unit is not in Off (%s): nothing claimed of the reset state",
			  st.state);
		return;
	}
	struct dmabuf b = { 0 };
	if (!dmabuf_alloc_in(&b, 4096, 0, 0, 4096)) {
		report(t, false, "no memory");
		return;
	}
	dmabuf_pattern(&b, 0x0f);
	memset(container_of(e, struct model_engine, e)->buf, 0xa5, 4096);
	struct dma_result r;
	e->transfer(e, DMA_FROM_DEVICE, b.phys, 4096, &r);
	report(t, !bench_changed(&b, 0x0f) && dmabuf_guards_damaged(&b) == 0,
	       "with ddtp Off (%s) the device's write to RAM at its physical address changed nothing (DMA %s)",
	       st.state, dma_status_name(r.status));
	test_note(t, "ddtp Off blocked the device's DMA: %s", dma_status_name(r.status));
	dmabuf_free(&b);
}

static void t_takeover(struct test_ctx *t)
{
	struct env v;
	if (!bench_setup(t, &v, "riscv"))
		return;
	struct rvi *r = rvi_of(v.io);
	uint64_t ddtp = regwin_read64(&r->w, RVI_REG_DDTP);
	uint32_t cq = regwin_read32(&r->w, RVI_REG_CQCSR), fq = regwin_read32(&r->w, RVI_REG_FQCSR);
	report(t, RVI_DDTP_MODE(ddtp) == r->ddt_mode && rvi_ppn_addr(ddtp) == (uint64_t)(uintptr_t)r->ddt.root,
	       "ddtp runs our directory: %u levels at 0x%llx (ddtp 0x%llx)", r->ddt_mode - 1,
	       (unsigned long long)(uintptr_t)r->ddt.root, (unsigned long long)ddtp);
	report(t, (cq & RVI_QCSR_ON) && (fq & RVI_QCSR_ON), "both queues on (cqcsr 0x%x, fqcsr 0x%x)", cq, fq);
	/* the stage it was taken in: the S stage, or the G stage where the
	 * unit offers no other */
	static const char *const sv[] = { [RVI_ATP_SV39] = "Sv39", [RVI_ATP_SV48] = "Sv48", [RVI_ATP_SV57] = "Sv57" };
	char stage[24];
	snprintf(stage, sizeof(stage), "%s%s %s stage", sv[r->gstage ? r->g_mode : r->s_mode], r->gstage ? "x4" : "",
		 r->gstage ? "G" : "S");
	printf("    taken over in %.2f ms: %s, %s contexts, capabilities 0x%llx\n", cycles_to_ns(v.t_take) / 1e6, stage,
	       r->extended ? "64-byte" : "32-byte", (unsigned long long)r->caps);
	size_t fine, others = bench_bystanders(&v, &fine);
	char by[64];
	test_note(t, "%s taken in %.1f ms; %u-level directory, %s; %s", v.io->name, cycles_to_ns(v.t_take) / 1e6,
		  r->ddt_mode - 1, stage, bystanders_said(fine, others, by, sizeof(by)));
	bench_teardown(&v);
}

/* ---- the device-context cache ------------------------------------------- */

/* The leaf repointed in place and the contexts given another PSCID in
 * place, nothing invalidated: a unit that reads the context again misses
 * its IOTLB (the new PSCID) and walks to B; one that still uses its cached
 * context hits the old PSCID's entry, A. */
static const char *fork_context(struct env *v, uint64_t iova, uint64_t phys, size_t arg)
{
	(void)arg;
	struct rvi *r = rvi_of(v->io);
	const char *e = rvi_leaf_repoint(r, iova, phys);
	return e ? e : rvi_context_pscid(r, RVI_DUT_PSCID + 1);
}

static const char *iodir_only(struct env *v, uint64_t iova, size_t arg)
{
	(void)iova, (void)arg;
	return rvi_context_invalidate(rvi_of(v->io));
}

static void t_stale_context(struct test_ctx *t)
{
	struct env v;
	if (!bench_setup_mode(t, &v, "riscv", "s")) /* a PSCID is the S stage's */
		return;
	struct rvi *r = rvi_of(v.io);
	const struct stale_way way = { fork_context, iodir_only, 0 };
	struct stale s;
	bench_stale(&v, &way, &s);
	const char *e = rvi_context_pscid(r, RVI_DUT_PSCID);
	const struct rvi_cmd back[] = { rvi_cmd_iotinval_vma(-1, RVI_DUT_PSCID + 1, ~0ull) };
	if (!e)
		e = rvi_context_invalidate(r);
	if (!e)
		e = rvi_submit(r, back, 1);
	report(t, !s.err && !e, "the context's PSCID switched in place, then IODIR.INVAL_DDT%s%s",
	       s.err || e ? ": " : "",
	       s.err ? s.err
	       : e   ? e
		     : "");
	report(t, s.after == 'B', "after IODIR.INVAL_DDT the DMA reached the new page (%c)", s.after ? s.after : '-');
	if (!s.err) {
		printf("    finding: with the context changed and nothing invalidated the DMA reached %c (%s)\n",
		       s.before,
		       s.before == 'A' ? "the cached context still named the old PSCID"
				       : "the unit read the context again");
		test_note(t, "%s: %s", v.label,
			  s.before == 'A' ? "stale context: the old PSCID used until IODIR.INVAL_DDT (finding)"
					  : "the new context was read without IODIR.INVAL_DDT");
		if (s.before == 'A')
			test_finding(t,
				     "the cached device context was used until IODIR.INVAL_DDT (the spec allows it)");
	}
	bench_teardown(&v);
}

/* ---- the command and fault queues ---------------------------------------- */

static const char *fence(struct env *v, uint64_t iova, size_t arg)
{
	(void)iova, (void)arg;
	return rvi_fence(rvi_of(v->io));
}

static const char *iodir_device(struct env *v, uint64_t iova, size_t arg)
{
	(void)iova, (void)arg;
	return rvi_context_invalidate(rvi_of(v->io));
}

static const struct bench_cmd iofence = { "IOFENCE.C", "IOFENCE.C with its store, alone", fence },
			      iodir = { "IODIR.INVAL_DDT", "IODIR.INVAL_DDT of the device's contexts, then IOFENCE.C",
					iodir_device };

static void t_command_timed(struct test_ctx *t)
{
	struct env v;
	if (!bench_setup(t, &v, "riscv"))
		return;
	bench_time_cmd(&v, t->tc->arg);
	bench_teardown(&v);
}

/* An IOFENCE.C that never completes (the model's fence-stuck): the
 * invalidation is named as timed out after its deadline, and once the
 * fence completes the next one works. */
static void t_fence_stuck(struct test_ctx *t)
{
	struct env v;
	if (!bench_setup(t, &v, "riscv"))
		return;
	struct rvi_model *m = model_riscv();
	if (!bench_needs(&v, m != NULL, SKIP_MODEL_ONLY, "a fence that never completes is the model's to inject"))
		return;
	m->fence_stuck = true;
	bench_flush_fault(&v, "an IOFENCE.C that never completes", IOMMU_ERR_TIMEOUT);
	m->fence_stuck = false;
	bench_flush_recovers(&v);
	bench_teardown(&v);
}

/* More forbidden reads than the fault queue holds, none read meanwhile:
 * the driver says records were lost (fqof), and the queue records again
 * once read and fqof cleared (5.14). */
static void t_fault_overflow(struct test_ctx *t)
{
	struct env v;
	if (!bench_setup(t, &v, "riscv"))
		return;
	struct dmabuf a = { 0 };
	if (!dmabuf_alloc_in(&a, v.len, 0, v.limit, v.pg)) {
		report(t, false, "no memory");
		bench_teardown(&v);
		return;
	}
	uint64_t iova = bench_window(&v, v.pg, 0) + (a.phys & (v.pg - 1)); /* nothing mapped there */
	const unsigned queue = 1u << RVI_FQ_LOG2;
	struct overflow o;
	bench_overflow(&v, iova, queue + 16, &o);
	report(t, o.lost, "%u forbidden reads into a queue of %u records: the driver says records were lost", o.fired,
	       queue);
	report(t, o.drained < queue, "no more records read than the queue holds less one (%zu)", o.drained);
	/* one DMA of a real controller may fault more times than the queue
	 * holds (QEMU's NVMe: each piece of its transfer), and fill it again */
	report(t, o.after > 0 && (!o.after_ovf || o.after >= queue - 1),
	       "after fqof was cleared the queue records again (%zu new%s)", o.after,
	       !o.after_ovf	      ? ", no overflow"
	       : o.after >= queue - 1 ? ": that one DMA filled it again"
				      : ", overflow again");
	test_note(t, "%s: %u reads, %zu records read, fqof reported and cleared", v.label, o.fired, o.drained);
	bench_teardown(&v);
	dmabuf_free(&a);
}

/* The S-stage cases ask for the S stage (mode s), which a unit that offers
 * only the G stage does not have: they are not applicable there, saying
 * so, while the cases of either stage (on_riscv) run in the unit's
 * default, the G stage on such a unit. */
static const struct iommu_case_arg on_riscv = { "riscv" }, s_4k = { "riscv", .mode = "s" },
				   leaf_2m = { "riscv", 1ull << 21, .mode = "s" },
				   leaf_1g = { "riscv", 1ull << 30, .mode = "s" },
				   page = { "riscv", .kind = "iotinval-page", .mode = "s" },
				   pscid = { "riscv", .kind = "iotinval-pscid", .mode = "s" },
				   all = { "riscv", .kind = "iotinval-all", .mode = "s" },
				   g_4k = { "riscv", .mode = "g" }, g_2m = { "riscv", 1ull << 21, .mode = "g" },
				   g_1g = { "riscv", 1ull << 30, .mode = "g" },
				   g_page = { "riscv", .kind = "iotinval-gvma-page", .mode = "g" },
				   g_gscid = { "riscv", .kind = "iotinval-gvma-gscid", .mode = "g" },
				   g_all = { "riscv", .kind = "iotinval-gvma-all", .mode = "g" };

static const struct test_case cases[] = {
	{ "riscv.reset_blocks", "ddtp Off (the reset state): the device's DMA to RAM lands nowhere", t_reset_blocks },
	{ "riscv.takeover", "take-over: our directory, both queues on, bystanders as found, given back", t_takeover,
	  true },
	{ "riscv.translate_4k", "DMA both ways through 4 KiB leaves of the S stage", case_translate, true, &s_4k },
	{ "riscv.translate_2m", "DMA both ways through a 2 MiB leaf", case_translate, true, &leaf_2m },
	{ "riscv.translate_1g", "DMA both ways through a 1 GiB leaf", case_translate, true, &leaf_1g },
	{ "riscv.write_read_only", "a device write to a read-only page: memory unchanged, a write page fault (15)",
	  case_write_read_only, true, &s_4k },
	{ "riscv.read_not_present", "a device read of an unmapped IOVA: a read page fault (13)", case_read_not_present,
	  true, &s_4k },
	{ "riscv.fault_overflow", "more faults than the fault queue holds: fqof reported, the queue records again",
	  t_fault_overflow, true },
	{ "riscv.stale_tlb", "repoint a mapping without invalidating: is the stale translation used? (finding)",
	  case_stale, true, &s_4k },
	{ "riscv.stale_context", "the context changed in place: the old one used until IODIR.INVAL_DDT? (finding)",
	  t_stale_context, true },
	{ "riscv.invalidate_page", "IOTINVAL.VMA of the PSCID and address: DMA reaches the new page", case_invalidate,
	  true, &page },
	{ "riscv.invalidate_pscid", "IOTINVAL.VMA of the PSCID", case_invalidate, true, &pscid },
	{ "riscv.invalidate_all", "IOTINVAL.VMA of every host address space", case_invalidate, true, &all },
	{ "riscv.iofence", "IOFENCE.C's store as the fence: arrives every time, timed", t_command_timed, true,
	  &iofence },
	{ "riscv.iodir", "IODIR.INVAL_DDT of the device, timed", t_command_timed, true, &iodir },
	{ "riscv.fence_stuck", "an IOFENCE.C that never completes: named after its 100 ms, then recovered",
	  t_fence_stuck },
	{ "riscv.latency", "DMA latency: translation off, pass-through, warm and cold IOTLB", case_latency, true,
	  &on_riscv },
	{ "riscv.map_cost", "CPU cycles per page to map and to unmap (4 KiB leaves)", case_map_cost, true, &on_riscv },
	/* the G stage alone (mode g: iohgatp Sv39x4 and up under GSCID 1, iosatp Bare) */
	{ "riscv.g.translate_4k", "G stage: DMA both ways through 4 KiB leaves", case_translate, true, &g_4k },
	{ "riscv.g.translate_2m", "G stage: DMA both ways through a 2 MiB leaf", case_translate, true, &g_2m },
	{ "riscv.g.translate_1g", "G stage: DMA both ways through a 1 GiB leaf", case_translate, true, &g_1g },
	{ "riscv.g.write_read_only", "G stage: a write to a read-only page: a write guest-page fault (23)",
	  case_write_read_only, true, &g_4k },
	{ "riscv.g.read_not_present", "G stage: a read of an unmapped address: a read guest-page fault (21)",
	  case_read_not_present, true, &g_4k },
	{ "riscv.g.stale_tlb", "G stage: repoint a mapping without invalidating: stale? (finding)", case_stale, true,
	  &g_4k },
	{ "riscv.g.invalidate_gvma_page", "IOTINVAL.GVMA of the GSCID and address: DMA reaches the new page",
	  case_invalidate, true, &g_page },
	{ "riscv.g.invalidate_gvma_gscid", "IOTINVAL.GVMA of the GSCID", case_invalidate, true, &g_gscid },
	{ "riscv.g.invalidate_gvma_all", "IOTINVAL.GVMA of every GSCID", case_invalidate, true, &g_all },
	{ "riscv.g.msi_delivered", "MSI remapping: the MSI page table's entry delivers to its page alone, timed",
	  riscv_msi_delivered, true },
	{ "riscv.g.msi_blocked", "MSI remapping: an entry not valid blocks the MSI and records 262", riscv_msi_blocked,
	  true },
	{ "riscv.g.msi_offset", "MSI remapping keeps the address's low 12 bits (PPN << 12 | A[11:0])", riscv_msi_offset,
	  true },
};

static const struct test_doc docs[] = {
	{ t_reset_blocks,
	  "with the unit in Off, as it leaves reset, the device's DMA to a buffer at its physical address lands "
	  "nowhere (every inbound transaction disallowed)",
	  "changed bytes mean the unit passed DMA it must block: a machine relying on the reset state is open" },
	{ t_takeover,
	  "the unit is taken over: ddtp runs a directory of the monitor's at the levels 16-bit device ids need, "
	  "both queues on, the device in a context of its own with an S stage that covers RAM (the G stage on a "
	  "unit that offers no S stage), every other "
	  "device as the firmware left it (blocked under Off, passed under Bare); given back with ddtp, the "
	  "queue bases and icvec as found",
	  "a refusal names what the firmware left (a translating mode, a queue on); a bystander that changes "
	  "or a register that differs after give-back means the machine was not left as found" },
	{ t_stale_context,
	  "the device's context given another PSCID in place, the leaf repointed, nothing invalidated: whether the "
	  "unit still used its cached context (the old PSCID's IOTLB entry, a finding) is recorded, and after "
	  "IODIR.INVAL_DDT alone the DMA reaches the new page",
	  "a DMA that still lands in the old page after IODIR.INVAL_DDT means the context cache ignores it" },
	{ t_command_timed,
	  "the case's command (IOFENCE.C, IODIR.INVAL_DDT) completes within its deadline every time, IOFENCE.C's "
	  "store arriving, timed",
	  "a fence whose store never arrives (named with its deadline) means the queue cannot be relied on" },
	{ t_fence_stuck,
	  "an IOFENCE.C that never completes (the model's fence-stuck): the invalidation is named as timed out "
	  "after its 100 ms, and the next one works once the fence completes",
	  "a hang (caught by the deadline) or an unnamed error: a driver could not tell a wedged unit from a "
	  "slow one" },
	{ t_fault_overflow,
	  "more forbidden reads than the fault queue holds: the driver reports the loss (fqof), clears it, and "
	  "the queue records again",
	  "no overflow reported means faults were lost silently; a queue that stays stopped leaves the unit "
	  "blind to faults" },
	{ riscv_msi_delivered,
	  "in the G stage with a flat MSI page table (msiptp), the device's own MSI to an interrupt file's "
	  "address is written, data and all, at offset 0 of the page that file's entry names and nowhere else; "
	  "a second file's MSI reaches its own page (the file number taken from the mask's bits); 32 MSIs "
	  "timed from the doorbell to the data seen; no fault recorded",
	  "data elsewhere, in the other file's page or nowhere means the unit does not translate MSIs through the "
	  "table as 2.3.3 reads: an IMSIC behind it would get interrupts meant for another hart or guest" },
	{ riscv_msi_blocked,
	  "an interrupt file's entry made not valid and invalidated: the device's MSI to it writes nothing of "
	  "ours and is recorded as MSI PTE not valid (262) from the device; valid again and invalidated, the "
	  "next MSI is delivered",
	  "a write through a not-valid entry means MSI remapping protects nothing; no record means blocked "
	  "interrupts go unseen; nothing delivered afterwards means the entry's invalidation is ignored" },
	{ riscv_msi_offset,
	  "an MSI 4 bytes into an interrupt file's page (an IMSIC's big-endian doorbell) lands 4 bytes into the "
	  "page the entry names",
	  "data at offset 0 means the unit drops the address's low 12 bits (skipped, named, under QEMU, whose MSI "
	  "write does)" },
	{ NULL },
};

IOMMU_BACKEND_CASES(riscv, "RISC-V IOMMU: translation, faults, the queues, the context cache (on its model)");
