/* The RISC-V IOMMU's queues (spec 3.1, 3.2, 5.5-5.11): the command queue,
 * every submission ended by an IOFENCE.C whose store is the fence (cqh is
 * never the fence: a unit may advance it before the commands behind it
 * are done), a queue that stops on a command it refuses restarted empty
 * and the stop reported; the invalidation kinds the catalogue names and
 * times; the fault queue read into faults, an overflow cleared. */
#include <stdio.h>
#include <string.h>

#include "core/base/cpu.h"
#include "core/base/timing.h"
#include "driver.h"

const struct iommu_inval_kind rvi_kinds[3] = {
	{ "iotinval-page", "page", "command" },	   /* IOTINVAL.VMA, PSCID and address: one per leaf */
	{ "iotinval-pscid", "domain", "command" }, /* IOTINVAL.VMA, PSCID: the device's address space */
	{ "iotinval-all", "global", "command" },   /* IOTINVAL.VMA: every host address space */
};
/* the G stage's: IOTINVAL.GVMA by GSCID and guest physical address, GSCID, everything */
const struct iommu_inval_kind rvi_g_kinds[3] = {
	{ "iotinval-gvma-page", "page", "command" },
	{ "iotinval-gvma-gscid", "domain", "command" },
	{ "iotinval-gvma-all", "global", "command" },
};
#define BATCH 128      /* commands per submission: with the fence, well inside the queue */
#define PAGE_CMDS 1024 /* a larger range is invalidated by PSCID */

const char *rvi_wait32(struct rvi *r, uint64_t reg, uint32_t mask, uint32_t want, const char *what)
{
	static char why[160];
	struct deadline dl = deadline_after_us(RVI_DEADLINE_US);
	uint32_t v;
	while (((v = rvi_r32(r, reg)) & mask) != want) {
		if (v == 0xffffffffu)
			return iommu_fail(&r->io, IOMMU_ERR_UNUSABLE,
					  "riscv: a register reads all ones (the unit does not answer)");
		if (deadline_passed(&dl)) {
			if (((v = rvi_r32(r, reg)) & mask) == want)
				break;
			snprintf(why, sizeof(why),
				 "riscv: %s not within " RVI_DEADLINE_TEXT " (register 0x%llx reads 0x%x)", what,
				 (unsigned long long)reg, v);
			return iommu_fail(&r->io, IOMMU_ERR_TIMEOUT, why);
		}
		cpu_relax();
	}
	return NULL;
}

/* ---- the command queue -------------------------------------------------- */

static uint64_t cqb_value(const struct rvi *r)
{
	return rvi_ppn_field((uint64_t)(uintptr_t)r->cq) | (RVI_CQ_LOG2 - 1);
}

static uint64_t fqb_value(const struct rvi *r)
{
	return rvi_ppn_field((uint64_t)(uintptr_t)r->fq) | (RVI_FQ_LOG2 - 1);
}

/* 5.5 and 5.9: a base is written while the queue is off, its tail (cqt)
 * or head (fqh) zeroed; enabling zeroes the unit's side. */
static const char *cq_on(struct rvi *r)
{
	rvi_w64(r, RVI_REG_CQB, cqb_value(r));
	rvi_w32(r, RVI_REG_CQT, 0);
	r->cq_tail = 0;
	rvi_w32(r, RVI_REG_CQCSR, RVI_QCSR_EN);
	return rvi_wait32(r, RVI_REG_CQCSR, RVI_QCSR_ON | RVI_QCSR_BUSY, RVI_QCSR_ON,
			  "the command queue did not turn on");
}

const char *rvi_queues_on(struct rvi *r)
{
	const char *e = cq_on(r);
	if (e)
		return e;
	rvi_w64(r, RVI_REG_FQB, fqb_value(r));
	rvi_w32(r, RVI_REG_FQH, 0);
	r->fq_head = 0;
	rvi_w32(r, RVI_REG_FQCSR, RVI_QCSR_EN);
	return rvi_wait32(r, RVI_REG_FQCSR, RVI_QCSR_ON | RVI_QCSR_BUSY, RVI_QCSR_ON,
			  "the fault queue did not turn on");
}

const char *rvi_queues_off(struct rvi *r)
{
	rvi_w32(r, RVI_REG_CQCSR, 0);
	rvi_w32(r, RVI_REG_FQCSR, 0);
	const char *e =
	    rvi_wait32(r, RVI_REG_CQCSR, RVI_QCSR_ON | RVI_QCSR_BUSY, 0, "the command queue did not turn off");
	const char *f =
	    rvi_wait32(r, RVI_REG_FQCSR, RVI_QCSR_ON | RVI_QCSR_BUSY, 0, "the fault queue did not turn off");
	return e ? e : f;
}

static void put(struct rvi *r, struct rvi_cmd c)
{
	struct rvi_cmd *slot = &r->cq[r->cq_tail];
	*slot = c;
	rvi_push(slot, sizeof(*slot), r);
	r->cq_tail = (r->cq_tail + 1) % (1u << RVI_CQ_LOG2);
}

/* The queue stopped at a command (cmd_ill, cqmf or cmd_to in cqcsr, 5.13):
 * off, emptied, on again, which clears the error bits. What was queued
 * behind the bad command is dropped: the caller's submission failed. */
static const char *restart(struct rvi *r, uint32_t csr)
{
	static char why[200];
	uint32_t head = rvi_r32(r, RVI_REG_CQH) % (1u << RVI_CQ_LOG2);
	const char *name = rvi_cmd_name(&r->cq[head]);
	rvi_w32(r, RVI_REG_CQCSR, 0);
	const char *e =
	    rvi_wait32(r, RVI_REG_CQCSR, RVI_QCSR_ON | RVI_QCSR_BUSY, 0, "the stopped command queue did not turn off");
	if (!e)
		e = cq_on(r);
	r->cmd_errors++;
	snprintf(why, sizeof(why), "riscv: the command queue stopped at entry %u (%s, opcode %u; cqcsr 0x%x: %s)%s%s",
		 head, name ? name : "not a command", (unsigned)RVI_CMD_OPCODE(&r->cq[head]), csr,
		 csr & RVI_CQCSR_CMD_ILL ? "illegal command"
		 : csr & RVI_QCSR_MF	 ? "memory fault"
					 : "time-out",
		 e ? "; and the restart failed: " : ": restarted, the commands behind it dropped", e ? e : "");
	return iommu_fail(&r->io, IOMMU_ERR_HARDWARE, why);
}

/* `n` commands, then IOFENCE.C storing a new sequence number; done when
 * the number is in memory. */
static const char *submit_batch(struct rvi *r, const struct rvi_cmd *c, size_t n)
{
	static char why[160];
	if (!r->io.taken)
		return iommu_fail(&r->io, IOMMU_ERR_STATE, "riscv: the unit is not taken over");
	uint32_t size = 1u << RVI_CQ_LOG2, head = rvi_r32(r, RVI_REG_CQH);
	if (head == 0xffffffffu)
		return iommu_fail(&r->io, IOMMU_ERR_UNUSABLE, "riscv: cqh reads all ones (the unit does not answer)");
	if ((head - r->cq_tail - 1) % size < n + 1) {
		snprintf(why, sizeof(why),
			 "riscv: the command queue still holds %u commands from before (cqh %u, our tail %u): a fence "
			 "that never completed",
			 (r->cq_tail - head) % size, head, r->cq_tail);
		return iommu_fail(&r->io, IOMMU_ERR_TIMEOUT, why);
	}
	for (size_t i = 0; i < n; i++)
		put(r, c[i]);
	uint32_t seq = ++r->fence_seq;
	put(r, rvi_cmd_iofence((uint64_t)(uintptr_t)r->fence, seq));
	mfence();
	rvi_w32(r, RVI_REG_CQT, r->cq_tail);
	struct deadline dl = deadline_after_us(RVI_DEADLINE_US);
	while (*r->fence != seq) {
		uint32_t csr = rvi_r32(r, RVI_REG_CQCSR);
		if (csr == 0xffffffffu)
			return iommu_fail(&r->io, IOMMU_ERR_UNUSABLE,
					  "riscv: cqcsr reads all ones (the unit does not answer)");
		if (csr & (RVI_CQCSR_CMD_ILL | RVI_QCSR_MF | RVI_CQCSR_CMD_TO))
			return restart(r, csr);
		if (deadline_passed(&dl)) {
			if (*r->fence == seq)
				break;
			snprintf(why, sizeof(why),
				 "riscv: IOFENCE.C did not complete within " RVI_DEADLINE_TEXT
				 " (cqh %u, cqt %u, cqcsr 0x%x)",
				 rvi_r32(r, RVI_REG_CQH), r->cq_tail, csr);
			return iommu_fail(&r->io, IOMMU_ERR_TIMEOUT, why);
		}
		cpu_relax();
	}
	return NULL;
}

const char *rvi_submit(struct rvi *r, const struct rvi_cmd *c, size_t n)
{
	do {
		size_t k = n < BATCH ? n : BATCH;
		const char *e = submit_batch(r, c, k);
		if (e)
			return e;
		c += k, n -= k;
	} while (n);
	return NULL;
}

const char *rvi_fence(struct rvi *r)
{
	return rvi_submit(r, NULL, 0);
}

const char *rvi_inval_everything(struct rvi *r)
{
	const struct rvi_cmd c[] = { rvi_cmd_iodir_ddt(-1), rvi_cmd_iotinval_vma(-1, -1, ~0ull),
				     rvi_cmd_iotinval_gvma(-1, ~0ull) };
	return rvi_submit(r, c, ARRAY_SIZE(c));
}

/* The device's translations at `addr` (~0: all of them), by the stage it
 * translates through. */
static struct rvi_cmd dut_inval(const struct rvi *r, uint64_t addr)
{
	return r->gstage ? rvi_cmd_iotinval_gvma(RVI_DUT_GSCID, addr) : rvi_cmd_iotinval_vma(-1, RVI_DUT_PSCID, addr);
}

const char *rvi_contexts_changed(struct rvi *r, const uint32_t *ids, size_t n)
{
	struct rvi_cmd c[RVI_MAX_IDS + 2];
	size_t k = 0;
	for (size_t i = 0; i < n && k < RVI_MAX_IDS; i++)
		c[k++] = rvi_cmd_iodir_ddt(ids[i]);
	c[k++] = dut_inval(r, ~0ull);
	if (r->gstage) /* iohgatp not Bare: the VM's first-stage entries too (the spec's context-change guideline) */
		c[k++] = rvi_cmd_iotinval_vma(RVI_DUT_GSCID, -1, ~0ull);
	return rvi_submit(r, c, k);
}

/* One IOTINVAL.VMA (G stage: .GVMA) a leaf across [iova, iova + size),
 * from the driver's own walk (an address not mapped is stepped in 4 KiB);
 * by PSCID (GSCID) when that would take more than PAGE_CMDS commands. */
static const char *inval_pages(struct rvi *r, uint64_t iova, uint64_t size)
{
	static struct rvi_cmd c[BATCH];
	size_t n = 0, total = 0;
	uint64_t end = iova + size;
	for (uint64_t a = iova & ~0xfffull; a < end && total <= PAGE_CMDS;) {
		uint64_t phys, page = 4096;
		unsigned perm, level;
		if (io_pgtable_walk(&rvi_pte_fmt, &r->dut, a, &phys, &perm, &level))
			page = io_pgtable_level_size(level);
		c[n++] = dut_inval(r, a);
		total++;
		if (n == BATCH) {
			const char *e = rvi_submit(r, c, n);
			if (e)
				return e;
			n = 0;
		}
		a = (a & ~(page - 1)) + page;
	}
	if (total > PAGE_CMDS) {
		c[0] = dut_inval(r, ~0ull);
		return rvi_submit(r, c, 1);
	}
	return rvi_submit(r, c, n);
}

const char *rvi_op_invalidate(struct iommu *io, size_t kind, uint64_t iova, uint64_t size)
{
	struct rvi *r = container_of(io, struct rvi, io);
	if (!io->taken || !r->has_dut)
		return iommu_fail(io, IOMMU_ERR_STATE, "riscv: no device under test in a domain");
	struct rvi_cmd c;
	switch (kind) {
	case 0:
		return size ? inval_pages(r, iova, size) : rvi_fence(r);
	case 1:
		c = dut_inval(r, ~0ull);
		break;
	case 2:
		c = r->gstage ? rvi_cmd_iotinval_gvma(-1, ~0ull) : rvi_cmd_iotinval_vma(-1, -1, ~0ull);
		break;
	default:
		return iommu_fail(io, IOMMU_ERR_UNSUPPORTED, "riscv: no such invalidation kind");
	}
	return rvi_submit(r, &c, 1);
}

/* ---- the fault queue (3.2) ------------------------------------------------ */

bool rvi_op_fault_pending(struct iommu *io)
{
	struct rvi *r = container_of(io, struct rvi, io);
	if (!io->taken)
		return false;
	uint32_t t = rvi_r32(r, RVI_REG_FQT);
	return t != 0xffffffffu && t != r->fq_head;
}

static bool is_dut(const struct rvi *r, uint32_t did)
{
	for (size_t i = 0; r->has_dut && i < r->ndut_ids; i++)
		if (r->dut_ids[i] == did)
			return true;
	return false;
}

/* A write page fault (15; at the G stage a guest-page fault, 23) is both
 * "not present" and "no write permission":
 * the unit does not say which, so the device under test's own table is
 * asked; every other device has no table of ours. */
static enum iommu_fault_kind kind_of(const struct rvi *r, unsigned cause, uint32_t did, uint64_t iova)
{
	uint64_t phys;
	unsigned perm, level;
	switch (cause) {
	case RVI_CAUSE_READ_PAGE:
	case RVI_CAUSE_READ_GUEST_PAGE:
		return IOMMU_FAULT_NOT_PRESENT;
	case RVI_CAUSE_WRITE_PAGE:
	case RVI_CAUSE_WRITE_GUEST_PAGE:
		if (is_dut(r, did) && r->dut_mode == IOMMU_TRANSLATE &&
		    io_pgtable_walk(&rvi_pte_fmt, &r->dut, iova, &phys, &perm, &level) && !(perm & IOMMU_W))
			return IOMMU_FAULT_WRITE_DENIED;
		return IOMMU_FAULT_NOT_PRESENT;
	case RVI_CAUSE_MSI_INVALID: /* the MSI page table: this family's interrupt remapping */
		return IOMMU_FAULT_IR_NOT_PRESENT;
	case RVI_CAUSE_MSI_LOAD:
	case RVI_CAUSE_MSI_MISCONFIGURED:
		return IOMMU_FAULT_IR_OTHER;
	default:
		return IOMMU_FAULT_OTHER;
	}
}

/* 1: the cause names a read (or an instruction fetch), 0: a write/AMO,
 * -1: it names no direction. */
static int cause_reads(unsigned cause)
{
	switch (cause) {
	case 1:
	case RVI_CAUSE_READ_ACCESS:
	case 12:
	case RVI_CAUSE_READ_PAGE:
	case 20:
	case RVI_CAUSE_READ_GUEST_PAGE:
		return 1;
	case RVI_CAUSE_WRITE_ACCESS:
	case RVI_CAUSE_WRITE_PAGE:
	case RVI_CAUSE_WRITE_GUEST_PAGE:
		return 0;
	default:
		return -1;
	}
}

/* The direction: the cause's where it names one (the page, guest-page and
 * access faults are per access type), else the transaction type's. A
 * record whose two disagree says so: QEMU 10.0.2 writes TTYP 3
 * (untranslated write) for every fault, a read's too (its
 * riscv_iommu_translate tests the permission against IOMMU_RW, which a
 * read's IOMMU_RO also meets). */
static struct iommu_fault decode(const struct rvi *r, const struct rvi_fault *f, char *why, size_t n)
{
	unsigned cause = RVI_FAULT_CAUSE(f->hdr), ttyp = RVI_FAULT_TTYP(f->hdr);
	uint32_t did = RVI_FAULT_DID(f->hdr);
	bool inbound = ttyp != RVI_TTYP_NONE;
	bool ttyp_reads = ttyp == RVI_TTYP_UNTRANSLATED_READ || ttyp == RVI_TTYP_TRANSLATED_READ ||
			  ttyp == RVI_TTYP_UNTRANSLATED_EXEC || ttyp == RVI_TTYP_TRANSLATED_EXEC;
	int reads = cause_reads(cause);
	rvi_fault_describe(f, why, n);
	if (reads >= 0 && inbound && ttyp != RVI_TTYP_MESSAGE && ttyp != RVI_TTYP_ATS_REQUEST && reads != ttyp_reads) {
		size_t k = strlen(why);
		snprintf(why + k, n - k, " (TTYP says %s, the cause a %s: the cause is taken)",
			 ttyp_reads ? "read" : "write", reads ? "read" : "write");
	}
	return (struct iommu_fault){ .kind = kind_of(r, cause, did, f->iotval),
				     .sid = (uint16_t)did,
				     .reason = cause,
				     .read = reads >= 0 ? reads == 1 : ttyp_reads,
				     .addr = f->iotval & ~0xfffull,
				     .sid_known = inbound,
				     .addr_known = inbound && ttyp != RVI_TTYP_MESSAGE,
				     .dir_known = inbound && ttyp != RVI_TTYP_MESSAGE && ttyp != RVI_TTYP_ATS_REQUEST,
				     .why = why,
				     .t_seen = rdtsc() };
}

size_t rvi_op_faults(struct iommu *io, struct iommu_fault *out, size_t max, bool *overflow)
{
	static char why[64][200]; /* the records' words: the last 64 of a call, until the next call */
	struct rvi *r = container_of(io, struct rvi, io);
	*overflow = false;
	if (!io->taken)
		return 0;
	uint32_t size = 1u << RVI_FQ_LOG2, tail = rvi_r32(r, RVI_REG_FQT), csr = rvi_r32(r, RVI_REG_FQCSR);
	if (tail == 0xffffffffu || csr == 0xffffffffu)
		return 0;
	if (tail >= size) { /* beyond the queue we gave it */
		*overflow = true;
		tail = r->fq_head;
	}
	size_t n = 0;
	while (r->fq_head != tail) {
		struct rvi_fault f = r->fq[r->fq_head];
		if (n < max)
			out[n] = decode(r, &f, why[n % 64], sizeof(why[0])), n++;
		else
			*overflow = true;
		r->fq_head = (r->fq_head + 1) % size;
	}
	rvi_w32(r, RVI_REG_FQH, r->fq_head);
	/* fqof and fqmf stop the queue until cleared (5.14); fip may fire again */
	if (csr & (RVI_FQCSR_OF | RVI_QCSR_MF)) {
		*overflow = true;
		rvi_w32(r, RVI_REG_FQCSR, (csr & (RVI_QCSR_EN | RVI_QCSR_IE)) | (csr & (RVI_FQCSR_OF | RVI_QCSR_MF)));
	}
	if (rvi_r32(r, RVI_REG_IPSR) & RVI_IPSR_FIP)
		rvi_w32(r, RVI_REG_IPSR, RVI_IPSR_FIP);
	return n;
}
