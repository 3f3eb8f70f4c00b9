/* The command buffer (spec 2.4, 3.3.1): commands written at the tail, each
 * submission ended by a COMPLETION_WAIT whose store is the fence. The head
 * pointer is never the fence: a unit may read it while commands are still
 * in flight, and QEMU 7.2 reports 0x1000 rather than 0 after a wrap. A unit
 * that stops on a command it refuses (ILLEGAL_COMMAND_ERROR,
 * COMMAND_HARDWARE_ERROR) is restarted with an empty buffer and the stop
 * reported. The invalidations of a domain's translations are the kinds the
 * catalogue names and times. */
#include <stdio.h>

#include "core/base/cpu.h"
#include "core/base/macros.h"
#include "core/base/timing.h"
#include "driver.h"

const struct iommu_inval_kind amdvi_kinds[4] = {
	{ "cmd-page", "page", "command" },
	{ "cmd-range", "range", "command" },
	{ "cmd-domain", "domain", "command" },
	{ "cmd-all", "global", "command" },
};
#define NKINDS (ARRAY_SIZE(amdvi_kinds))
#define BATCH 128 /* commands per submission: with the wait, well inside the ring */

bool amdvi_kind_usable(const struct amdvi *a, size_t k)
{
	return k < NKINDS && (k != 3 || a->ia);
}

static void put(struct amdvi *a, struct amdvi_cmd c)
{
	uint64_t *slot = a->cmdbuf + a->cmd_tail / 8;
	slot[0] = c.lo;
	slot[1] = c.hi;
	amdvi_push(slot, AMDVI_CMD_SIZE, a);
	a->cmd_tail = (a->cmd_tail + AMDVI_CMD_SIZE) % AMDVI_RING_BYTES;
}

/* The unit stopped fetching (3.4.13 CmdBufRun clear while CmdBufEn is set):
 * the buffer is disabled, emptied and enabled again (head and tail may be
 * written only while it is off). What was queued behind the bad command is
 * dropped: the caller's submission failed. */
static const char *restart(struct amdvi *a, uint64_t status)
{
	static char why[160];
	uint64_t head = amdvi_r64(a, AMDVI_REG_CMDBUF_HEAD) & AMDVI_PTR_MASK;
	const uint64_t *bad = a->cmdbuf + (head % AMDVI_RING_BYTES) / 8;
	uint64_t ctrl = amdvi_r64(a, AMDVI_REG_CONTROL);
	amdvi_w64(a, AMDVI_REG_CONTROL, ctrl & ~AMDVI_CTRL_CMDBUF_EN);
	amdvi_w64(a, AMDVI_REG_CMDBUF_HEAD, 0);
	amdvi_w64(a, AMDVI_REG_CMDBUF_TAIL, 0);
	a->cmd_tail = 0;
	amdvi_w64(a, AMDVI_REG_CONTROL, ctrl | AMDVI_CTRL_CMDBUF_EN);
	a->cmd_errors++;
	snprintf(why, sizeof(why),
		 "amdvi: the unit stopped at the command at offset 0x%llx (opcode 0x%x; Status 0x%llx): "
		 "the buffer was restarted, the commands behind it dropped",
		 (unsigned long long)head, (unsigned)(bad[0] >> 60), (unsigned long long)status);
	return iommu_fail(&a->io, IOMMU_ERR_HARDWARE, why);
}

/* `n` commands, then COMPLETION_WAIT storing a new sequence number; done
 * when the number is in memory. */
static const char *submit_batch(struct amdvi *a, const struct amdvi_cmd *c, size_t n)
{
	if (!a->io.taken)
		return iommu_fail(&a->io, IOMMU_ERR_STATE, "amdvi: the unit is not taken over");
	if (a->cmd_needs_en && !(amdvi_r64(a, AMDVI_REG_CONTROL) & AMDVI_CTRL_IOMMU_EN))
		return iommu_fail(&a->io, IOMMU_ERR_STATE,
				  "amdvi: this unit runs commands only while translating, and translation is off");
	for (size_t i = 0; i < n; i++)
		put(a, c[i]);
	uint64_t seq = ++a->wait_seq;
	put(a, amdvi_cmd_completion_wait((uint64_t)(uintptr_t)a->wait, seq));
	mfence();
	amdvi_w64(a, AMDVI_REG_CMDBUF_TAIL, a->cmd_tail);
	struct deadline dl = deadline_after_us(AMDVI_DEADLINE_US);
	while (*a->wait != seq) {
		if (deadline_passed(&dl)) {
			if (*a->wait == seq)
				break;
			uint64_t st = amdvi_r64(a, AMDVI_REG_STATUS);
			if (st == ~0ull)
				return iommu_fail(&a->io, IOMMU_ERR_UNUSABLE,
						  "amdvi: Status reads all ones (the unit does not answer)");
			if (!(st & AMDVI_STATUS_CMDBUF_RUN))
				return restart(a, st);
			return iommu_fail(&a->io, IOMMU_ERR_TIMEOUT,
					  "amdvi: COMPLETION_WAIT's store did not arrive within " AMDVI_DEADLINE_TEXT);
		}
		cpu_relax();
	}
	return NULL;
}

const char *amdvi_submit(struct amdvi *a, const struct amdvi_cmd *c, size_t n)
{
	do {
		size_t k = n < BATCH ? n : BATCH;
		const char *e = submit_batch(a, c, k);
		if (e)
			return e;
		c += k, n -= k;
	} while (n);
	return NULL;
}

const char *amdvi_fence(struct amdvi *a)
{
	return amdvi_submit(a, NULL, 0);
}

const char *amdvi_inv_devtab(struct amdvi *a, uint16_t devid)
{
	struct amdvi_cmd c = amdvi_cmd_inv_devtab(devid);
	return amdvi_submit(a, &c, 1);
}

const char *amdvi_inv_interrupt_table(struct amdvi *a, uint16_t devid)
{
	struct amdvi_cmd c = amdvi_cmd_inv_interrupt_table(devid);
	return amdvi_submit(a, &c, 1);
}

const char *amdvi_inv_domain(struct amdvi *a, uint16_t domain)
{
	struct amdvi_cmd c = amdvi_cmd_inv_pages(domain, AMDVI_INV_ALL_PAGES, true, true);
	return amdvi_submit(a, &c, 1);
}

/* Everything the unit may cache of ours or the firmware's: one command
 * where EFR.IA offers it, else every device table entry and the domains. */
const char *amdvi_inv_everything(struct amdvi *a)
{
	if (a->ia) {
		struct amdvi_cmd c = amdvi_cmd_inv_all();
		return amdvi_submit(a, &c, 1);
	}
	struct amdvi_cmd c[BATCH];
	const char *e = NULL;
	for (uint32_t id = 0; !e && id < a->ndev; id += BATCH) {
		size_t n = 0;
		for (uint32_t k = id; k < a->ndev && n < BATCH; k++)
			c[n++] = amdvi_cmd_inv_devtab((uint16_t)k);
		e = amdvi_submit(a, c, n);
	}
	for (uint16_t d = 0; !e && d <= AMDVI_DOMAIN_DUT; d++)
		e = amdvi_inv_domain(a, d);
	return e;
}

/* S=1 (2.4.3): the lowest clear address bit from 12 up gives the size: a
 * naturally aligned block of 2^k bytes is its base with bits 12..k-2 set. */
static struct amdvi_cmd range_cmd(uint16_t domain, uint64_t iova, uint64_t size)
{
	uint64_t first = iova >> 12, last = (iova + (size ? size : 1) - 1) >> 12;
	unsigned m = 0;
	while ((first >> m) != (last >> m))
		m++;
	if (m == 0)
		return amdvi_cmd_inv_pages(domain, first << 12, false, true);
	unsigned k = m + 12;
	if (k - 1 > 51)
		return amdvi_cmd_inv_pages(domain, AMDVI_INV_ALL_PAGES, true, true);
	uint64_t base = (first >> m) << k;
	return amdvi_cmd_inv_pages(domain, (base | ((1ull << (k - 1)) - 1)) & ~0xfffull, true, true);
}

const char *amdvi_op_invalidate(struct iommu *io, size_t kind, uint64_t iova, uint64_t size)
{
	struct amdvi *a = container_of(io, struct amdvi, io);
	if (!io->taken || !a->has_dut)
		return iommu_fail(io, IOMMU_ERR_STATE, "amdvi: no device under test in a domain");
	if (kind >= io->nkinds)
		return iommu_fail(io, IOMMU_ERR_UNSUPPORTED, "amdvi: no such invalidation kind on this unit");
	const char *name = io->kinds[kind].name;
	uint16_t dom = a->dut.did;
	struct amdvi_cmd c;
	if (name == amdvi_kinds[0].name) { /* one command per 4 KiB page */
		struct amdvi_cmd b[BATCH];
		uint64_t pages = size ? ((iova + size - 1) >> 12) - (iova >> 12) + 1 : 1;
		const char *e = NULL;
		for (uint64_t p = 0; !e && p < pages; p += BATCH) {
			size_t n = 0;
			for (uint64_t q = p; q < pages && n < BATCH; q++)
				b[n++] = amdvi_cmd_inv_pages(dom, ((iova >> 12) + q) << 12, false, true);
			e = amdvi_submit(a, b, n);
		}
		return e;
	}
	if (name == amdvi_kinds[1].name)
		c = range_cmd(dom, iova, size);
	else if (name == amdvi_kinds[2].name)
		c = amdvi_cmd_inv_pages(dom, AMDVI_INV_ALL_PAGES, true, true);
	else
		c = amdvi_cmd_inv_all();
	return amdvi_submit(a, &c, 1);
}

const char *amdvi_illegal_command_probe(struct amdvi *a, bool *stopped, bool *event)
{
	*stopped = *event = false;
	struct iommu_fault f[8];
	bool ovf;
	amdvi_op_faults(&a->io, f, 8, &ovf); /* nothing old counts */
	struct amdvi_cmd bad = { 0, 0 };     /* opcode 0 is reserved (2.4) */
	const char *e = amdvi_submit(a, &bad, 1);
	*stopped = e && a->io.err == IOMMU_ERR_HARDWARE;
	size_t n = amdvi_op_faults(&a->io, f, 8, &ovf);
	for (size_t i = 0; i < n; i++)
		*event |= f[i].reason == AMDVI_EVT_ILLEGAL_COMMAND_ERROR;
	if (e && !*stopped)
		return e;
	/* after the restart the buffer must work again */
	return amdvi_fence(a);
}

#define AMDVI_IRQ_WAIT_MS 10 /* for the interrupt, once COMPLETION_WAIT's store has arrived */

const char *amdvi_completion_interrupt_probe(struct amdvi *a)
{
	if (!a->io.irq)
		return iommu_fail(&a->io, IOMMU_ERR_UNSUPPORTED, "amdvi: no interrupt installed for this unit");
	uint64_t ctrl = amdvi_r64(a, AMDVI_REG_CONTROL), before = a->io.irq_count;
	amdvi_w64(a, AMDVI_REG_CONTROL, ctrl | AMDVI_CTRL_COM_WAIT_INT_EN);
	struct amdvi_cmd c = amdvi_cmd_completion_wait((uint64_t)(uintptr_t)a->wait, a->wait_seq);
	c.lo |= AMDVI_CW_I;
	const char *e = amdvi_submit(a, &c, 1);
	struct deadline dl = deadline_after_us(AMDVI_IRQ_WAIT_MS * 1000);
	while (!e && a->io.irq_count == before && !deadline_passed(&dl))
		cpu_relax();
	amdvi_w64(a, AMDVI_REG_CONTROL, ctrl);
	amdvi_w64(a, AMDVI_REG_STATUS, AMDVI_STATUS_COM_WAIT_INT);
	if (!e && a->io.irq_count == before)
		e = iommu_fail(
		    &a->io, IOMMU_ERR_TIMEOUT,
		    "amdvi: no interrupt within " STRINGIFY(AMDVI_IRQ_WAIT_MS) " ms of COMPLETION_WAIT with I=1");
	return e;
}
