/* Taking an AMD-Vi unit over from the firmware and giving it back.
 *
 * Taking over: Control, the three base registers, the ring pointers, the
 * exclusion range and the unit's MSI capability are recorded first; a unit
 * already translating, or running a buffer, log or mode for the firmware
 * that this driver does not drive, is refused with the reason. Otherwise a
 * device table with every device passed through, a command buffer and an
 * event log are put in place and translation turned on; the device under
 * test is then moved to a domain of its own. Giving back writes the
 * recorded registers again and checks them. */
#include <stdio.h>
#include <string.h>

#include "core/base/cpu.h"
#include "core/base/macros.h"
#include "core/base/platform.h"
#include "core/base/timing.h"
#include "driver.h"
#include "iommu/as_found.h"

void amdvi_push(const void *p, size_t n, void *amdvi)
{
	(void)amdvi, (void)p, (void)n;
	/* the unit snoops what it fetches (Control.Coherent for the device
	 * table; page tables and rings are coherent on x86): ordering is
	 * what remains */
	mfence();
}

static void *zeroed_pages(size_t n)
{
	void *p = platform->alloc_pages(n, 0);
	if (p)
		memset(p, 0, n * PAGE_SIZE);
	return p;
}

static void msi_record(struct amdvi *a)
{
	struct amdvi_found *f = &a->found;
	const struct amdvi_pci *p = &a->pci;
	f->msi_valid = p->cfg && p->msi;
	if (!f->msi_valid)
		return;
	f->msi_ctrl = pci_read16(p->cfg, p->fn, p->msi + AMDVI_MSI_CTRL);
	f->msi_lo = pci_read32(p->cfg, p->fn, p->msi + AMDVI_MSI_ADDR_LO);
	bool is64 = f->msi_ctrl & AMDVI_MSI_CTRL_64;
	f->msi_hi = is64 ? pci_read32(p->cfg, p->fn, p->msi + AMDVI_MSI_ADDR_HI) : 0;
	f->msi_data = pci_read16(p->cfg, p->fn, p->msi + (is64 ? AMDVI_MSI_DATA_64 : AMDVI_MSI_DATA_32));
}

/* What the firmware left, read once per unit: later take-overs in the
 * same session give back the firmware's state, not our last one. */
static void record(struct amdvi *a)
{
	struct amdvi_found *f = &a->found;
	if (a->found_valid)
		return;
	f->control = amdvi_r64(a, AMDVI_REG_CONTROL);
	f->devtab = amdvi_r64(a, AMDVI_REG_DEVTAB_BASE);
	f->cmdbuf = amdvi_r64(a, AMDVI_REG_CMDBUF_BASE);
	f->evtlog = amdvi_r64(a, AMDVI_REG_EVTLOG_BASE);
	f->excl_base = amdvi_r64(a, AMDVI_REG_EXCL_BASE);
	f->excl_limit = amdvi_r64(a, AMDVI_REG_EXCL_LIMIT);
	f->cmd_head = amdvi_r64(a, AMDVI_REG_CMDBUF_HEAD);
	f->cmd_tail = amdvi_r64(a, AMDVI_REG_CMDBUF_TAIL);
	f->evt_head = amdvi_r64(a, AMDVI_REG_EVTLOG_HEAD);
	f->evt_tail = amdvi_r64(a, AMDVI_REG_EVTLOG_TAIL);
	msi_record(a);
	a->found_valid = true;
}

/* Control bits that mean the firmware (or someone) runs the unit in a way
 * this driver does not take over, with their names. */
static const struct {
	uint64_t bit;
	const char *what;
} not_driven[] = {
	{ AMDVI_CTRL_CMDBUF_EN, "its command buffer running (CmdBufEn)" },
	{ AMDVI_CTRL_EVENT_LOG_EN, "its event log running (EventLogEn)" },
	{ AMDVI_CTRL_PPR_LOG_EN | AMDVI_CTRL_PPR_EN, "peripheral page requests on (PPREn/PPRLogEn)" },
	{ AMDVI_CTRL_GT_EN, "guest translation on (GTEn)" },
	{ AMDVI_CTRL_GA_EN | AMDVI_CTRL_GA_LOG_EN, "guest virtual APIC on (GAEn/GALogEn)" },
	{ AMDVI_CTRL_DEVTBL_SEG_EN, "a segmented device table (DevTblSegEn)" },
	{ AMDVI_CTRL_XT_EN, "x2APIC interrupts (XTEn)" },
};

static const char *firmware_state(struct amdvi *a)
{
	static char why[200];
	uint64_t ctrl = amdvi_r64(a, AMDVI_REG_CONTROL);
	if (ctrl == ~0ull)
		return iommu_fail(&a->io, IOMMU_ERR_UNUSABLE,
				  "amdvi: Control reads all ones (the unit does not answer)");
	if (ctrl & AMDVI_CTRL_IOMMU_EN) {
		snprintf(why, sizeof(why),
			 "amdvi: the firmware left translation on (Control.IommuEn, device table at 0x%llx): iommon "
			 "does not yet edit the firmware's device table in place, and will not swap it under DMA",
			 (unsigned long long)(amdvi_r64(a, AMDVI_REG_DEVTAB_BASE) & AMDVI_BASE_ADDR));
		return iommu_fail(&a->io, IOMMU_ERR_FIRMWARE, why);
	}
	for (size_t i = 0; i < ARRAY_SIZE(not_driven); i++)
		if (ctrl & not_driven[i].bit) {
			snprintf(why, sizeof(why),
				 "amdvi: the firmware left %s (Control 0x%llx): not a mode iommon drives",
				 not_driven[i].what, (unsigned long long)ctrl);
			return iommu_fail(&a->io, IOMMU_ERR_FIRMWARE, why);
		}
	return NULL;
}

static const char *build_tables(struct amdvi *a)
{
	a->devtab_pages = ((size_t)a->ndev * AMDVI_DTE_SIZE + PAGE_SIZE - 1) / PAGE_SIZE;
	a->devtab = zeroed_pages(a->devtab_pages);
	a->cmdbuf = zeroed_pages(1);
	a->evtlog = zeroed_pages(1);
	a->wait = zeroed_pages(1);
	if (!a->devtab || !a->cmdbuf || !a->evtlog || !a->wait)
		return iommu_fail(&a->io, IOMMU_ERR_NOMEM, "amdvi: no memory for the device table and the rings");
	amdvi_devtab_fill(a);
	return amdvi_pg_fail(a, &a->dut, io_pgtable_alloc(&amdvi_pte_fmt, &a->dut, &a->pgcfg, AMDVI_DOMAIN_DUT));
}

static void free_tables(struct amdvi *a)
{
	io_pgtable_free(&a->dut);
	amdvi_ir_free(a);
	if (a->devtab)
		platform->free_pages(a->devtab, a->devtab_pages);
	if (a->cmdbuf)
		platform->free_pages(a->cmdbuf, 1);
	if (a->evtlog)
		platform->free_pages(a->evtlog, 1);
	if (a->wait)
		platform->free_pages((void *)(uintptr_t)a->wait, 1);
	a->devtab = a->cmdbuf = a->evtlog = NULL;
	a->wait = NULL;
}

/* Status.CmdBufRun within 1 ms of CmdBufEn (a unit takes a moment to
 * start fetching; QEMU 7.2 never does while IommuEn is clear). */
static bool cmdbuf_runs(struct amdvi *a)
{
	struct deadline dl = deadline_after_us(1000);
	for (;;) {
		uint64_t st = amdvi_r64(a, AMDVI_REG_STATUS);
		if (st != ~0ull && (st & AMDVI_STATUS_CMDBUF_RUN))
			return true;
		if (deadline_passed(&dl))
			return false;
		cpu_relax();
	}
}

static const char *take_failed(struct iommu *io, const char *why)
{
	enum iommu_err code = io->err;
	amdvi_op_give_back(io);
	return iommu_fail(io, code, why);
}

const char *amdvi_op_take(struct iommu *io)
{
	struct amdvi *a = container_of(io, struct amdvi, io);
	if (io->taken)
		return NULL;
	record(a);
	const char *e = firmware_state(a);
	if (e)
		return e;
	io->taken = true; /* from here on give_back puts things back */
	a->has_dut = false;
	if ((e = build_tables(a)) != NULL)
		return take_failed(io, e);
	/* 3.3: bases while the unit is off; the rings start empty */
	amdvi_w64(a, AMDVI_REG_DEVTAB_BASE,
		  ((uint64_t)(uintptr_t)a->devtab & AMDVI_BASE_ADDR) | AMDVI_DEVTAB_SIZE(a->devtab_pages));
	amdvi_w64(a, AMDVI_REG_CMDBUF_BASE,
		  ((uint64_t)(uintptr_t)a->cmdbuf & AMDVI_BASE_ADDR) | AMDVI_RING_LEN(AMDVI_RING_LOG2));
	amdvi_w64(a, AMDVI_REG_EVTLOG_BASE,
		  ((uint64_t)(uintptr_t)a->evtlog & AMDVI_BASE_ADDR) | AMDVI_RING_LEN(AMDVI_RING_LOG2));
	amdvi_w64(a, AMDVI_REG_CMDBUF_HEAD, 0);
	amdvi_w64(a, AMDVI_REG_CMDBUF_TAIL, 0);
	amdvi_w64(a, AMDVI_REG_EVTLOG_HEAD, 0);
	amdvi_w64(a, AMDVI_REG_EVTLOG_TAIL, 0);
	a->cmd_tail = a->evt_head = 0;
	*a->wait = a->wait_seq = 0;
	/* an exclusion range lets DMA past the tables: off while ours */
	amdvi_w64(a, AMDVI_REG_EXCL_BASE, a->found.excl_base & ~AMDVI_EXCL_EX_EN);
	amdvi_w64(a, AMDVI_REG_STATUS,
		  AMDVI_STATUS_EVENT_OVERFLOW | AMDVI_STATUS_EVENT_LOG_INT | AMDVI_STATUS_COM_WAIT_INT);
	uint64_t ctrl = (a->found.control & (AMDVI_CTRL_HT_TUN_EN | (7ull << 5) /* InvTimeOut */)) |
			AMDVI_CTRL_COHERENT | AMDVI_CTRL_CMDBUF_EN | AMDVI_CTRL_EVENT_LOG_EN;
	amdvi_w64(a, AMDVI_REG_CONTROL, ctrl);
	/* whatever the unit cached before is forgotten before it translates
	 * (3.3.1: the buffer runs once CmdBufEn is set). A unit whose buffer
	 * does not run until translation is on (QEMU 7.2 ties it to IommuEn,
	 * Status.CmdBufRun stays clear) is invalidated just after. */
	a->cmd_needs_en = !cmdbuf_runs(a);
	static bool said; /* once a session: it is the unit's nature, not news */
	if (a->cmd_needs_en && !said && (said = true))
		printf("    %s: the command buffer does not run with translation off (Status.CmdBufRun clear): "
		       "caches invalidated just after translation is turned on\n",
		       io->name);
	if (!a->cmd_needs_en && (e = amdvi_inv_everything(a)) != NULL)
		return take_failed(io, e);
	amdvi_w64(a, AMDVI_REG_CONTROL, ctrl | AMDVI_CTRL_IOMMU_EN);
	if (a->cmd_needs_en && (e = amdvi_inv_everything(a)) != NULL)
		return take_failed(io, e);
	amdvi_irq_setup(a);
	return NULL;
}

bool amdvi_as_found(struct amdvi *a, char *out, size_t n)
{
	const struct amdvi_found *f = &a->found;
	if (!a->found_valid) {
		snprintf(out, n, "never taken over: nothing recorded to compare");
		return true;
	}
	struct reg_found regs[12] = {
		{ "Control", amdvi_r64(a, AMDVI_REG_CONTROL), f->control },
		{ "DevTabBase", amdvi_r64(a, AMDVI_REG_DEVTAB_BASE), f->devtab },
		{ "CmdBufBase", amdvi_r64(a, AMDVI_REG_CMDBUF_BASE), f->cmdbuf },
		{ "EvtLogBase", amdvi_r64(a, AMDVI_REG_EVTLOG_BASE), f->evtlog },
		{ "ExclBase", amdvi_r64(a, AMDVI_REG_EXCL_BASE), f->excl_base },
		{ "ExclLimit", amdvi_r64(a, AMDVI_REG_EXCL_LIMIT), f->excl_limit },
		{ "EvtLogHead", amdvi_r64(a, AMDVI_REG_EVTLOG_HEAD), f->evt_head },
		{ "EvtLogTail", amdvi_r64(a, AMDVI_REG_EVTLOG_TAIL), f->evt_tail },
		{ "CmdBufTail", amdvi_r64(a, AMDVI_REG_CMDBUF_TAIL), f->cmd_tail },
	};
	size_t nr = 9;
	const struct amdvi_pci *p = &a->pci;
	if (f->msi_valid) {
		bool is64 = f->msi_ctrl & AMDVI_MSI_CTRL_64;
		regs[nr++] = (struct reg_found){ "MSI control", pci_read16(p->cfg, p->fn, p->msi + AMDVI_MSI_CTRL),
						 f->msi_ctrl };
		regs[nr++] = (struct reg_found){ "MSI address", pci_read32(p->cfg, p->fn, p->msi + AMDVI_MSI_ADDR_LO),
						 f->msi_lo };
		regs[nr++] = (struct reg_found){
			"MSI data", pci_read16(p->cfg, p->fn, p->msi + (is64 ? AMDVI_MSI_DATA_64 : AMDVI_MSI_DATA_32)),
			f->msi_data
		};
	}
	/* CmdBufHead is written back but not compared: QEMU 7.2 keeps the
	 * ring length there after a wrap (0x1000) until a command runs */
	bool same = regs_as_found(regs, nr, out, n);
	if (same)
		snprintf(out, n, "Control 0x%llx DevTabBase 0x%llx CmdBufBase 0x%llx EvtLogBase 0x%llx%s as found",
			 (unsigned long long)f->control, (unsigned long long)f->devtab, (unsigned long long)f->cmdbuf,
			 (unsigned long long)f->evtlog, f->msi_valid ? " MSI" : "");
	return same;
}

bool amdvi_op_as_found(struct iommu *io, char *out, size_t n)
{
	return amdvi_as_found(container_of(io, struct amdvi, io), out, n);
}

/* Message Control's enable last, so no half-written message is sent. */
void amdvi_msi_write(struct amdvi *a, uint16_t ctrl, uint32_t lo, uint32_t hi, uint16_t data)
{
	const struct amdvi_pci *p = &a->pci;
	if (!a->found.msi_valid)
		return;
	bool is64 = a->found.msi_ctrl & AMDVI_MSI_CTRL_64;
	pci_write16(p->cfg, p->fn, p->msi + AMDVI_MSI_CTRL, ctrl & ~AMDVI_MSI_CTRL_EN);
	pci_write32(p->cfg, p->fn, p->msi + AMDVI_MSI_ADDR_LO, lo);
	if (is64)
		pci_write32(p->cfg, p->fn, p->msi + AMDVI_MSI_ADDR_HI, hi);
	pci_write16(p->cfg, p->fn, p->msi + (is64 ? AMDVI_MSI_DATA_64 : AMDVI_MSI_DATA_32), data);
	pci_write16(p->cfg, p->fn, p->msi + AMDVI_MSI_CTRL, ctrl);
}

const char *amdvi_op_give_back(struct iommu *io)
{
	struct amdvi *a = container_of(io, struct amdvi, io);
	if (!io->taken)
		return NULL;
	const struct amdvi_found *f = &a->found;
	const char *err = NULL;
	enum iommu_err code = IOMMU_OK;
	amdvi_irq_teardown(a);
	uint64_t ctrl = amdvi_r64(a, AMDVI_REG_CONTROL);
	/* translation off first; then the caches emptied of ours while the
	 * buffer still runs, so nothing of ours is used by whoever comes next
	 * (a buffer that runs only while translating: just before) */
	bool runs = (ctrl & AMDVI_CTRL_CMDBUF_EN) && a->cmdbuf;
	if (runs && a->cmd_needs_en && (ctrl & AMDVI_CTRL_IOMMU_EN))
		err = amdvi_inv_everything(a), code = io->err;
	amdvi_w64(a, AMDVI_REG_CONTROL, ctrl & ~AMDVI_CTRL_IOMMU_EN);
	if (runs && !a->cmd_needs_en)
		err = amdvi_inv_everything(a), code = io->err;
	amdvi_w64(a, AMDVI_REG_CONTROL,
		  f->control & ~AMDVI_CTRL_IOMMU_EN & ~AMDVI_CTRL_CMDBUF_EN & ~AMDVI_CTRL_EVENT_LOG_EN);
	amdvi_w64(a, AMDVI_REG_DEVTAB_BASE, f->devtab);
	amdvi_w64(a, AMDVI_REG_CMDBUF_BASE, f->cmdbuf);
	amdvi_w64(a, AMDVI_REG_EVTLOG_BASE, f->evtlog);
	amdvi_w64(a, AMDVI_REG_CMDBUF_HEAD, f->cmd_head);
	amdvi_w64(a, AMDVI_REG_CMDBUF_TAIL, f->cmd_tail);
	amdvi_w64(a, AMDVI_REG_EVTLOG_HEAD, f->evt_head);
	amdvi_w64(a, AMDVI_REG_EVTLOG_TAIL, f->evt_tail);
	amdvi_w64(a, AMDVI_REG_EXCL_BASE, f->excl_base);
	amdvi_w64(a, AMDVI_REG_EXCL_LIMIT, f->excl_limit);
	amdvi_w64(a, AMDVI_REG_CONTROL, f->control);
	amdvi_msi_write(a, f->msi_ctrl, f->msi_lo, f->msi_hi, f->msi_data);
	if (amdvi_r64(a, AMDVI_REG_CONTROL) & AMDVI_CTRL_IOMMU_EN && !(f->control & AMDVI_CTRL_IOMMU_EN)) {
		/* still translating through our tables: their pages stay its */
		printf("    %s: translation did not stop: its %zu table pages are kept\n", io->name,
		       a->devtab_pages + 3 + a->dut.npages);
		*a = (struct amdvi){
			.io = a->io, .w = a->w, .found = a->found, .found_valid = true, .pci = a->pci, .vector = -1
		};
		a->io.taken = false;
		snprintf(io->restore_note, sizeof(io->restore_note), "the unit did not stop translating");
		return iommu_fail(io, IOMMU_ERR_RESTORE, "amdvi: the unit did not stop translating");
	}
	free_tables(a);
	io->taken = false;
	a->has_dut = false;
	if (!amdvi_as_found(a, io->restore_note, sizeof(io->restore_note)) && !err)
		err = iommu_fail(io, IOMMU_ERR_RESTORE, "amdvi: registers differ from what the firmware left"),
		code = IOMMU_ERR_RESTORE;
	return err ? iommu_fail(io, code, err) : NULL;
}

/* What the firmware left, read without a write (the protection audit):
 * IommuEn, the command buffer and event log, the exclusion range (DMA to
 * it passes untranslated), and the IVRS's promise: IVinfo bit 1, DMA
 * remapping used for pre-boot DMA protection (the bit Linux and fwupd read). */
void amdvi_op_firmware_left(struct iommu *io, struct iommu_fw_state *st)
{
	struct amdvi *a = container_of(io, struct amdvi, io);
	memset(st, 0, sizeof(*st));
	uint64_t ctrl = amdvi_r64(a, AMDVI_REG_CONTROL);
	if (ctrl == ~0ull) {
		snprintf(st->state, sizeof(st->state), "Control reads all ones: the unit does not answer");
		return;
	}
	uint64_t excl = amdvi_r64(a, AMDVI_REG_EXCL_BASE), limit = amdvi_r64(a, AMDVI_REG_EXCL_LIMIT);
	st->translating = ctrl & AMDVI_CTRL_IOMMU_EN;
	st->queue = ctrl & AMDVI_CTRL_CMDBUF_EN;
	size_t k = (size_t)snprintf(st->state, sizeof(st->state), "%s (Control 0x%llx, device table 0x%llx)",
				    st->translating ? "translation on" : "translation off", (unsigned long long)ctrl,
				    (unsigned long long)(amdvi_r64(a, AMDVI_REG_DEVTAB_BASE) & AMDVI_BASE_ADDR));
	if (st->queue && k < sizeof(st->state))
		k += (size_t)snprintf(st->state + k, sizeof(st->state) - k, ", command buffer on");
	if ((excl & AMDVI_EXCL_EX_EN) && k < sizeof(st->state))
		snprintf(st->state + k, sizeof(st->state) - k, ", exclusion range 0x%llx-0x%llx%s untranslated",
			 (unsigned long long)(excl & AMDVI_BASE_ADDR), (unsigned long long)(limit | 0xfff),
			 (excl & AMDVI_EXCL_ALLOW) ? " (every device)" : "");
	if (a->ivrs && (a->ivrs->ivinfo & 2)) {
		st->promised = true;
		snprintf(st->promise, sizeof(st->promise),
			 "IVRS IVinfo 0x%x (bit 1: DMA remapping for pre-boot protection)", a->ivrs->ivinfo);
	}
}
