/* Taking a RISC-V IOMMU over from the firmware and giving it back as found
 * (spec 5.4-5.11). Everything the take-over writes is recorded first. A
 * unit the firmware left translating (ddtp 1LVL-3LVL), or with a queue of
 * its own running, is refused, named: a live take-over of this family is
 * not built (5.4 forbids changing the directory's levels without passing
 * through Off or Bare, which would drop or pass the firmware's DMA). */
#include <stdio.h>
#include <string.h>

#include "core/base/cpu.h"
#include "core/base/platform.h"
#include "core/base/timing.h"
#include "driver.h"
#include "iommu/as_found.h"

void rvi_push(const void *p, size_t n, void *rvi)
{
	(void)rvi, (void)p, (void)n;
	/* the unit's reads of memory are coherent with the harts' caches
	 * (QEMU's are, and the spec's data structures assume it): ordering
	 * is what remains */
	mfence();
}

static const char *mode_name(unsigned mode)
{
	static const char *const names[] = { "Off", "Bare", "1LVL", "2LVL", "3LVL" };
	return mode < 5 ? names[mode] : "reserved";
}

static void record(struct rvi *r)
{
	struct rvi_found *f = &r->found;
	f->caps = rvi_r64(r, RVI_REG_CAPS);
	f->fctl = rvi_r32(r, RVI_REG_FCTL);
	f->ddtp = rvi_r64(r, RVI_REG_DDTP);
	f->cqb = rvi_r64(r, RVI_REG_CQB);
	f->cqh = rvi_r32(r, RVI_REG_CQH);
	f->cqt = rvi_r32(r, RVI_REG_CQT);
	f->fqb = rvi_r64(r, RVI_REG_FQB);
	f->fqh = rvi_r32(r, RVI_REG_FQH);
	f->fqt = rvi_r32(r, RVI_REG_FQT);
	f->cqcsr = rvi_r32(r, RVI_REG_CQCSR);
	f->fqcsr = rvi_r32(r, RVI_REG_FQCSR);
	f->ipsr = rvi_r32(r, RVI_REG_IPSR);
	f->icvec = rvi_r64(r, RVI_REG_ICVEC);
	r->found_valid = true;
}

/* ddtp.busy clear within the deadline (5.4: a write while it is set does
 * what the implementation pleases). */
static const char *ddtp_settled(struct rvi *r)
{
	struct deadline dl = deadline_after_us(RVI_DEADLINE_US);
	uint64_t now;
	while ((now = rvi_r64(r, RVI_REG_DDTP)) & RVI_DDTP_BUSY) {
		if (now == ~0ull)
			return iommu_fail(&r->io, IOMMU_ERR_UNUSABLE,
					  "riscv: ddtp reads all ones (the unit does not answer)");
		if (deadline_passed(&dl) && (rvi_r64(r, RVI_REG_DDTP) & RVI_DDTP_BUSY))
			return iommu_fail(&r->io, IOMMU_ERR_TIMEOUT,
					  "riscv: ddtp.busy stayed set for " RVI_DEADLINE_TEXT);
		cpu_relax();
	}
	return NULL;
}

const char *rvi_ddtp_write(struct rvi *r, uint64_t v)
{
	rvi_w64(r, RVI_REG_DDTP, v);
	return ddtp_settled(r);
}

static void free_tables(struct rvi *r)
{
	rvi_ddt_free(&r->ddt);
	io_pgtable_free(&r->dut);
	rvi_msi_free(r);
	r->has_dut = false;
	void *pages[] = { r->cq, r->fq, (void *)(uintptr_t)r->fence };
	for (size_t i = 0; i < ARRAY_SIZE(pages); i++)
		if (pages[i])
			platform->free_pages(pages[i], 1);
	r->cq = NULL, r->fq = NULL, r->fence = NULL;
}

static void *zeroed_page(struct rvi *r)
{
	void *p = platform->alloc_pages(1, r->limit);
	if (p)
		memset(p, 0, PAGE_SIZE);
	return p;
}

/* The directory at the mode it needs for every id iommon gives a context
 * (the bystanders' and 16-bit requester ids), or the fewer levels the
 * unit accepts (ddtp's mode is WARL: a mode it lacks reads back as the
 * old one). Bystanders get their context as found. */
static const char *build_and_enable(struct rvi *r)
{
	static char why[160];
	unsigned need = rvi_ddt_mode_for(16, r->extended);
	for (unsigned mode = need; mode >= RVI_DDT_1LVL; mode--) {
		if (rvi_ddt_id_bits(mode, r->extended) < 32 &&
		    r->bystander_ids > 1u << rvi_ddt_id_bits(mode, r->extended))
			break; /* fewer levels would leave bystanders out */
		const char *e = rvi_ddt_init(&r->ddt, mode, r->extended, r->limit);
		if (e)
			return iommu_fail(&r->io, IOMMU_ERR_NOMEM, e);
		for (uint32_t id = 0; id < r->bystander_ids; id++)
			rvi_bystander_context(r, id);
		mfence();
		/* from Off or Bare (take refused anything else): 5.4 allows it */
		uint64_t v = rvi_ppn_field((uint64_t)(uintptr_t)r->ddt.root) | mode;
		if ((e = rvi_ddtp_write(r, v)) != NULL)
			return e;
		unsigned got = (unsigned)RVI_DDTP_MODE(rvi_r64(r, RVI_REG_DDTP));
		if (got == mode) {
			r->ddt_mode = mode;
			return NULL;
		}
		/* WARL gave another translating mode: to Off (the PPN kept) before
		 * its directory goes, so the next write is from Off */
		if (got > RVI_DDT_BARE && (e = rvi_ddtp_write(r, v & ~0xfull)) != NULL)
			return e;
		rvi_ddt_free(&r->ddt);
	}
	snprintf(why, sizeof(why), "riscv: ddtp accepted no directory mode from %s down that holds %u device ids",
		 mode_name(need), r->bystander_ids);
	return iommu_fail(&r->io, IOMMU_ERR_UNSUPPORTED, why);
}

const char *rvi_op_take(struct iommu *io)
{
	static char why[200];
	struct rvi *r = container_of(io, struct rvi, io);
	if (io->taken)
		return NULL;
	record(r);
	const struct rvi_found *f = &r->found;
	if (f->caps == ~0ull || f->ddtp == ~0ull)
		return iommu_fail(io, IOMMU_ERR_UNUSABLE, "riscv: the registers read all ones (nothing answers)");
	const char *e;
	if ((f->ddtp & RVI_DDTP_BUSY) && (e = ddtp_settled(r)) != NULL)
		return e;
	if (f->ddtp & RVI_DDTP_BUSY)
		record(r); /* as it settled */
	unsigned mode = (unsigned)RVI_DDTP_MODE(f->ddtp);
	if (mode != RVI_DDT_OFF && mode != RVI_DDT_BARE) {
		snprintf(
		    why, sizeof(why),
		    "riscv: the firmware left the unit translating (ddtp %s, directory at 0x%llx); a live take-over "
		    "of this family is not built, so it is left as it is",
		    mode_name(mode), (unsigned long long)rvi_ppn_addr(f->ddtp));
		return iommu_fail(io, IOMMU_ERR_FIRMWARE, why);
	}
	if ((f->cqcsr | f->fqcsr) & (RVI_QCSR_EN | RVI_QCSR_ON)) {
		snprintf(why, sizeof(why),
			 "riscv: the firmware left its %s queue on (cqcsr 0x%x, fqcsr 0x%x); iommon does not take a "
			 "queue it cannot give back as it was",
			 f->cqcsr & (RVI_QCSR_EN | RVI_QCSR_ON) ? "command" : "fault", f->cqcsr, f->fqcsr);
		return iommu_fail(io, IOMMU_ERR_FIRMWARE, why);
	}
	r->cq = zeroed_page(r);
	r->fq = zeroed_page(r);
	r->fence = zeroed_page(r);
	if (!r->cq || !r->fq || !r->fence) {
		free_tables(r);
		return iommu_fail(io, IOMMU_ERR_NOMEM, "riscv: no memory for the queues");
	}
	io->taken = true; /* the queues' helpers need it; undone below on failure */
	if ((e = rvi_queues_on(r)) != NULL || (e = rvi_inval_everything(r)) != NULL ||
	    (e = build_and_enable(r)) != NULL ||
	    (e = rvi_inval_everything(r)) != NULL) { /* nothing cached from before our directory */
		enum iommu_err code = io->err;
		rvi_op_give_back(io);
		io->err = code;
		return e;
	}
	return NULL;
}

/* ---- give-back ------------------------------------------------------------- */

/* With a queue off (take-over refuses one on), cqt and fqh are software's
 * and mean nothing until the next enable zeroes the unit's side; they are
 * written back but not compared: QEMU 10.0 makes them read-only while the
 * queue is off (its regs_ro), so the value a give-back writes is dropped. */
bool rvi_as_found(struct rvi *r, char *out, size_t n)
{
	const struct rvi_found *f = &r->found;
	const uint64_t ddtp_bits = RVI_DDTP_PPN_MASK | 0xf, csr_bits = RVI_QCSR_EN | RVI_QCSR_IE;
	struct reg_found regs[] = {
		{ "ddtp", rvi_r64(r, RVI_REG_DDTP) & ddtp_bits, f->ddtp & ddtp_bits },
		{ "cqb", rvi_r64(r, RVI_REG_CQB), f->cqb },
		{ "fqb", rvi_r64(r, RVI_REG_FQB), f->fqb },
		{ "cqcsr", rvi_r32(r, RVI_REG_CQCSR) & csr_bits, f->cqcsr & csr_bits },
		{ "fqcsr", rvi_r32(r, RVI_REG_FQCSR) & csr_bits, f->fqcsr & csr_bits },
		{ "icvec", rvi_r64(r, RVI_REG_ICVEC), f->icvec },
		{ "fctl", rvi_r32(r, RVI_REG_FCTL), f->fctl },
	};
	return regs_as_found(regs, ARRAY_SIZE(regs), out, n);
}

bool rvi_op_as_found(struct iommu *io, char *out, size_t n)
{
	struct rvi *r = container_of(io, struct rvi, io);
	if (!r->found_valid) {
		snprintf(out, n, "nothing recorded (not taken over)");
		return true;
	}
	return rvi_as_found(r, out, n);
}

const char *rvi_op_give_back(struct iommu *io)
{
	struct rvi *r = container_of(io, struct rvi, io);
	if (!io->taken)
		return NULL;
	const struct rvi_found *f = &r->found;
	const char *e = NULL, *k;
	uint64_t now = rvi_r64(r, RVI_REG_DDTP);
	/* a translating mode goes to Off with its PPN unchanged (5.4), and on
	 * to Bare from there only when Bare is what was found */
	if (RVI_DDTP_MODE(now) > RVI_DDT_BARE)
		e = rvi_ddtp_write(r, (now & RVI_DDTP_PPN_MASK) | RVI_DDT_OFF);
	if ((k = rvi_ddtp_write(r, f->ddtp & (RVI_DDTP_PPN_MASK | 0xf))) != NULL && !e)
		e = k;
	/* the unit may keep what it cached from our tables (5.4): dropped
	 * while the queue still runs, before the pages are freed */
	if ((k = rvi_inval_everything(r)) != NULL && !e)
		e = k;
	if ((k = rvi_queues_off(r)) != NULL && !e)
		e = k;
	rvi_w64(r, RVI_REG_CQB, f->cqb); /* which zeroes cqt (5.5) */
	rvi_w32(r, RVI_REG_CQT, f->cqt);
	rvi_w64(r, RVI_REG_FQB, f->fqb);
	rvi_w32(r, RVI_REG_FQH, f->fqh);
	rvi_w32(r, RVI_REG_CQCSR, f->cqcsr & RVI_QCSR_IE);
	rvi_w32(r, RVI_REG_FQCSR, f->fqcsr & RVI_QCSR_IE);
	rvi_w64(r, RVI_REG_ICVEC, f->icvec);
	/* the interrupts iommon's use raised, cleared; the firmware's stay */
	uint32_t ip = rvi_r32(r, RVI_REG_IPSR);
	if (ip != 0xffffffffu && (ip & ~f->ipsr))
		rvi_w32(r, RVI_REG_IPSR, ip & ~f->ipsr);
	free_tables(r);
	io->taken = false;
	bool same = rvi_as_found(r, io->restore_note, sizeof(io->restore_note));
	if (e)
		return e;
	return same ? NULL : iommu_fail(io, IOMMU_ERR_RESTORE, io->restore_note);
}

/* ---- what the firmware left --------------------------------------------- */

void rvi_op_firmware_left(struct iommu *io, struct iommu_fw_state *st)
{
	struct rvi *r = container_of(io, struct rvi, io);
	*st =
	    (struct iommu_fw_state){ 0 }; /* no promise (the RIMT has no DMA-protection flag), no interrupt remapping */
	uint64_t ddtp = rvi_r64(r, RVI_REG_DDTP);
	uint32_t cq = rvi_r32(r, RVI_REG_CQCSR), fq = rvi_r32(r, RVI_REG_FQCSR);
	if (ddtp == ~0ull) {
		snprintf(st->state, sizeof(st->state), "ddtp reads all ones (nothing answers)");
		return;
	}
	unsigned mode = (unsigned)RVI_DDTP_MODE(ddtp);
	st->translating = mode >= RVI_DDT_1LVL && mode <= RVI_DDT_3LVL;
	st->blocking = mode == RVI_DDT_OFF; /* every inbound transaction disallowed */
	st->queue = (cq & RVI_QCSR_ON) != 0;
	st->faults = (fq & RVI_QCSR_ON) != 0;
	int k = snprintf(st->state, sizeof(st->state), "ddtp %s", mode_name(mode));
	if (st->translating)
		k += snprintf(st->state + k, sizeof(st->state) - (size_t)k, " (directory at 0x%llx)",
			      (unsigned long long)rvi_ppn_addr(ddtp));
	else if (st->blocking)
		k += snprintf(st->state + k, sizeof(st->state) - (size_t)k, ": every DMA blocked (the reset state)");
	snprintf(st->state + k, sizeof(st->state) - (size_t)k, ", command queue %s, fault queue %s",
		 st->queue ? "on" : "off", st->faults ? "on" : "off");
}
