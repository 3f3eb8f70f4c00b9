/* Taking an SMMUv3 over from the firmware and giving it back.
 *
 * Taking over: CR0/CR1/CR2, GBPA, IRQ_CTRL, GERROR/GERRORN, the stream
 * table's base and configuration and the queues' bases and pointers are
 * recorded first. A unit the firmware left translating (CR0.SMMUEN) is
 * refused with the reason: its tables are live and iommon does not swap
 * them under running DMA. Otherwise (spec 3.3, the initialisation order
 * of 6.3.9's notes): the queues off, interrupts off, CR1/CR2 set, the
 * stream table with every bystander bypassing and the queues put in place,
 * the command queue on, every cached configuration and translation
 * invalidated, the event queue on, then SMMUEN. Every write to CR0 and
 * IRQ_CTRL is polled in its ACK register with a deadline (6.3.10,
 * 6.3.22); GBPA's with its Update bit (6.3.14).
 *
 * Giving back: SMMUEN off, the caches invalidated while the command queue
 * still runs, the queues off, every recorded register written back and
 * read back (the iommu-exit record). */
#include <stdio.h>
#include <string.h>

#include "core/base/cpu.h"
#include "core/base/macros.h"
#include "core/base/platform.h"
#include "core/base/timing.h"
#include "driver.h"
#include "iommu/as_found.h"

void smmuv3_push(const void *p, size_t n, void *smmuv3)
{
	const struct smmuv3 *s = smmuv3;
	if (s->coherent)
		mfence(); /* it snoops: ordering before the register write is what remains */
	else
		cache_flush(p, n);
}

/* `ack` reads `want` within the deadline; else TIMEOUT naming `what`. */
static const char *ack_poll(struct smmuv3 *s, uint64_t ack, uint32_t want, const char *what)
{
	static char why[128];
	struct deadline dl = deadline_after_us(SMMUV3_DEADLINE_US);
	for (;;) {
		uint32_t v = smmu_r32(s, ack);
		if (v == want)
			return NULL;
		if (deadline_passed(&dl)) {
			if (smmu_r32(s, ack) == want)
				return NULL;
			snprintf(why, sizeof(why),
				 "smmuv3: %s never acknowledged 0x%x (reads 0x%x after " SMMUV3_DEADLINE_TEXT ")", what,
				 want, v);
			return iommu_fail(&s->io, IOMMU_ERR_TIMEOUT, why);
		}
		cpu_relax();
	}
}

const char *smmuv3_cr0(struct smmuv3 *s, uint32_t v)
{
	mfence(); /* tables and queues in memory before the unit is told */
	smmu_w32(s, SMMU_CR0, v);
	return ack_poll(s, SMMU_CR0ACK, v, "CR0ACK");
}

static const char *irq_ctrl(struct smmuv3 *s, uint32_t v)
{
	smmu_w32(s, SMMU_IRQ_CTRL, v);
	return ack_poll(s, SMMU_IRQ_CTRLACK, v, "IRQ_CTRLACK");
}

const char *smmuv3_irq_enable(struct smmuv3 *s, bool on)
{
	if (!s->io.taken)
		return iommu_fail(&s->io, IOMMU_ERR_STATE, "smmuv3: the unit is not taken over");
	return irq_ctrl(s, on ? IRQ_CTRL_EVENTQ_IRQEN | IRQ_CTRL_GERROR_IRQEN : 0);
}

/* GBPA written with Update set; the unit clears Update once it applies. */
static const char *gbpa(struct smmuv3 *s, uint32_t v)
{
	smmu_w32(s, SMMU_GBPA, (v & ~GBPA_UPDATE) | GBPA_UPDATE);
	struct deadline dl = deadline_after_us(SMMUV3_DEADLINE_US);
	while (smmu_r32(s, SMMU_GBPA) & GBPA_UPDATE)
		if (deadline_passed(&dl) && (smmu_r32(s, SMMU_GBPA) & GBPA_UPDATE))
			return iommu_fail(&s->io, IOMMU_ERR_TIMEOUT, "smmuv3: GBPA.Update never cleared");
	return NULL;
}

const char *smmuv3_gbpa_set(struct smmuv3 *s, uint32_t v)
{
	if (!s->io.taken)
		return iommu_fail(&s->io, IOMMU_ERR_STATE, "smmuv3: the unit is not taken over");
	return gbpa(s, v);
}

/* What the firmware left, read once per unit: later take-overs in the
 * same session give back the firmware's state, not our last one. */
static void record(struct smmuv3 *s)
{
	struct smmuv3_found *f = &s->found;
	if (s->found_valid)
		return;
	f->cr0 = smmu_r32(s, SMMU_CR0);
	f->cr1 = smmu_r32(s, SMMU_CR1);
	f->cr2 = smmu_r32(s, SMMU_CR2);
	f->gbpa = smmu_r32(s, SMMU_GBPA);
	f->irq_ctrl = smmu_r32(s, SMMU_IRQ_CTRL);
	f->gerror = smmu_r32(s, SMMU_GERROR);
	f->gerrorn = smmu_r32(s, SMMU_GERRORN);
	f->strtab_base = smmu_r64(s, SMMU_STRTAB_BASE);
	f->strtab_cfg = smmu_r32(s, SMMU_STRTAB_BASE_CFG);
	f->cmdq_base = smmu_r64(s, SMMU_CMDQ_BASE);
	f->cmdq_prod = smmu_r32(s, SMMU_CMDQ_PROD);
	f->cmdq_cons = smmu_r32(s, SMMU_CMDQ_CONS);
	f->evtq_base = smmu_r64(s, SMMU_EVENTQ_BASE);
	f->evtq_prod = smmu_r32(s, SMMU_EVENTQ_PROD);
	f->evtq_cons = smmu_r32(s, SMMU_EVENTQ_CONS);
	s->found_valid = true;
}

static const char *firmware_state(struct smmuv3 *s)
{
	static char why[200];
	uint32_t cr0 = smmu_r32(s, SMMU_CR0);
	if (cr0 == ~0u)
		return iommu_fail(&s->io, IOMMU_ERR_UNUSABLE, "smmuv3: CR0 reads all ones (the unit does not answer)");
	if (cr0 & CR0_SMMUEN) {
		snprintf(
		    why, sizeof(why),
		    "smmuv3: the firmware left translation on (CR0.SMMUEN, stream table at 0x%llx): STRTAB_BASE "
		    "cannot change under SMMUEN, and iommon does not yet edit the firmware's stream table in place",
		    (unsigned long long)(smmu_r64(s, SMMU_STRTAB_BASE) & STRTAB_BASE_ADDR));
		return iommu_fail(&s->io, IOMMU_ERR_FIRMWARE, why);
	}
	if (s->idr1 & (IDR1_TABLES_PRESET | IDR1_QUEUES_PRESET))
		return iommu_fail(&s->io, IOMMU_ERR_UNSUPPORTED,
				  "smmuv3: its table or queue bases are fixed (IDR1.TABLES_PRESET/QUEUES_PRESET): "
				  "not a unit iommon drives");
	return NULL;
}

static void free_tables(struct smmuv3 *s)
{
	io_pgtable_free(&s->dut);
	io_pgtable_free(&s->alt);
	io_pgtable_free(&s->s2id);
	s->alt_live = false;
	smmuv3_strtab_free(s);
	smmuv3_free(&s->cmdq_mem);
	smmuv3_free(&s->evtq_mem);
	s->cmdq = s->evtq = NULL;
}

static const char *build_tables(struct smmuv3 *s)
{
	const char *e = smmuv3_strtab_build(s);
	if (e)
		return e;
	s->cmdq = smmuv3_alloc(s, (size_t)16 << s->cmdq_log2, &s->cmdq_mem);
	s->evtq = smmuv3_alloc(s, (size_t)32 << s->evtq_log2, &s->evtq_mem);
	if (!s->cmdq || !s->evtq)
		return iommu_fail(&s->io, IOMMU_ERR_NOMEM, "smmuv3: no memory for the queues");
	if ((e = smmuv3_pg_fail(s, &s->dut, io_pgtable_alloc(s->fmt, &s->dut, &s->pgcfg, 1))) != NULL || !s->nested)
		return e;
	/* nested: stage 2 an identity of every IPA the CPU's physical
	 * addresses reach (RAM, the tables, the CD), in the largest blocks */
	unsigned bits = platform->phys_bits ? platform->phys_bits() : 36;
	bits = bits < s->s2cfg.addr_bits ? bits : s->s2cfg.addr_bits;
	s->s2id_bits = bits;
	if ((e = smmuv3_pg_fail(s, &s->s2id, io_pgtable_alloc(&smmuv3_s2_pte_fmt, &s->s2id, &s->s2cfg, 1))) != NULL)
		return e;
	return smmuv3_pg_fail(s, &s->s2id, io_pgtable_identity(&smmuv3_s2_pte_fmt, &s->s2id, 0, 1ull << bits));
}

static const char *take_failed(struct iommu *io, const char *why)
{
	enum iommu_err code = io->err;
	smmuv3_op_give_back(io);
	return iommu_fail(io, code, why);
}

static uint32_t cr1_value(const struct smmuv3 *s)
{
	unsigned c = s->coherent ? CR1_CACHE_WB : 0, sh = s->coherent ? CR1_SH_ISH : CR1_SH_OSH;
	return CR1_QUEUE_IC(c) | CR1_QUEUE_OC(c) | CR1_QUEUE_SH(sh) | CR1_TABLE_IC(c) | CR1_TABLE_OC(c) |
	       CR1_TABLE_SH(sh);
}

const char *smmuv3_op_take(struct iommu *io)
{
	struct smmuv3 *s = container_of(io, struct smmuv3, io);
	if (io->taken)
		return NULL;
	record(s);
	const char *e = firmware_state(s);
	if (e)
		return e;
	io->taken = true; /* from here on give_back puts things back */
	s->has_dut = false;
	if ((e = build_tables(s)) != NULL)
		return take_failed(io, e);
	/* the queues off (the firmware may have left them on with SMMUEN
	 * clear), our interrupts off: events and syncs are polled */
	if ((s->found.cr0 && (e = smmuv3_cr0(s, 0)) != NULL) || (e = irq_ctrl(s, 0)) != NULL)
		return take_failed(io, e);
	smmuv3_gerror_ack(s, ~0u); /* errors the firmware left are in the record */
	smmu_w32(s, SMMU_CR1, cr1_value(s));
	smmu_w32(s, SMMU_CR2, CR2_RECINVSID | CR2_PTM);
	smmu_w64(s, SMMU_STRTAB_BASE, STRTAB_BASE_RA | ((uint64_t)(uintptr_t)s->strtab & STRTAB_BASE_ADDR));
	smmu_w32(s, SMMU_STRTAB_BASE_CFG,
		 STRTAB_CFG_LOG2SIZE(s->strtab_log2) |
		     (s->two_level ? STRTAB_CFG_FMT_2LVL | STRTAB_CFG_SPLIT(s->split) : 0));
	smmu_w64(s, SMMU_CMDQ_BASE, Q_BASE_WA_RA | ((uint64_t)(uintptr_t)s->cmdq & Q_BASE_ADDR) | s->cmdq_log2);
	smmu_w32(s, SMMU_CMDQ_PROD, 0);
	smmu_w32(s, SMMU_CMDQ_CONS, 0);
	smmu_w64(s, SMMU_EVENTQ_BASE, Q_BASE_WA_RA | ((uint64_t)(uintptr_t)s->evtq & Q_BASE_ADDR) | s->evtq_log2);
	smmu_w32(s, SMMU_EVENTQ_PROD, 0);
	smmu_w32(s, SMMU_EVENTQ_CONS, 0);
	s->cmdq_prod = s->evtq_cons = 0;
	s->had_2level |= s->two_level;
	/* whatever the unit cached before is forgotten before it translates */
	if ((e = smmuv3_cr0(s, CR0_CMDQEN)) != NULL || (e = smmuv3_invalidate_everything(s)) != NULL ||
	    (e = smmuv3_cr0(s, CR0_CMDQEN | CR0_EVENTQEN)) != NULL ||
	    (e = smmuv3_cr0(s, CR0_CMDQEN | CR0_EVENTQEN | CR0_SMMUEN)) != NULL)
		return take_failed(io, e);
	return NULL;
}

bool smmuv3_as_found(struct smmuv3 *s, char *out, size_t n)
{
	const struct smmuv3_found *f = &s->found;
	if (!s->found_valid) {
		snprintf(out, n, "never taken over: nothing recorded to compare");
		return true;
	}
	const struct reg_found regs[] = {
		{ "CR0", smmu_r32(s, SMMU_CR0), f->cr0 },
		{ "CR1", smmu_r32(s, SMMU_CR1), f->cr1 },
		{ "CR2", smmu_r32(s, SMMU_CR2), f->cr2 },
		{ "GBPA", smmu_r32(s, SMMU_GBPA) & ~GBPA_UPDATE, f->gbpa & ~GBPA_UPDATE },
		{ "IRQ_CTRL", smmu_r32(s, SMMU_IRQ_CTRL), f->irq_ctrl },
		/* GERROR moves on its own: what matters is which errors are active */
		{ "GERROR^GERRORN", smmu_r32(s, SMMU_GERROR) ^ smmu_r32(s, SMMU_GERRORN), f->gerror ^ f->gerrorn },
		{ "STRTAB_BASE", smmu_r64(s, SMMU_STRTAB_BASE), f->strtab_base },
		{ "STRTAB_BASE_CFG", smmu_r32(s, SMMU_STRTAB_BASE_CFG), f->strtab_cfg },
		{ "CMDQ_BASE", smmu_r64(s, SMMU_CMDQ_BASE), f->cmdq_base },
		{ "CMDQ_PROD", smmu_r32(s, SMMU_CMDQ_PROD), f->cmdq_prod },
		{ "CMDQ_CONS", smmu_r32(s, SMMU_CMDQ_CONS), f->cmdq_cons },
		{ "EVENTQ_BASE", smmu_r64(s, SMMU_EVENTQ_BASE), f->evtq_base },
		{ "EVENTQ_PROD", smmu_r32(s, SMMU_EVENTQ_PROD), f->evtq_prod },
		{ "EVENTQ_CONS", smmu_r32(s, SMMU_EVENTQ_CONS), f->evtq_cons },
	};
	bool same = regs_as_found(regs, ARRAY_SIZE(regs), out, n);
	if (same)
		snprintf(out, n, "CR0 0x%x CR1 0x%x STRTAB_BASE 0x%llx CMDQ_BASE 0x%llx EVENTQ_BASE 0x%llx as found",
			 f->cr0, f->cr1, (unsigned long long)f->strtab_base, (unsigned long long)f->cmdq_base,
			 (unsigned long long)f->evtq_base);
	return same;
}

bool smmuv3_op_as_found(struct iommu *io, char *out, size_t n)
{
	return smmuv3_as_found(container_of(io, struct smmuv3, io), out, n);
}

/* The recorded registers written back, each kind of register as it asks:
 * the queue pointers while their queue is off, CR0 last. */
static const char *restore(struct smmuv3 *s)
{
	const struct smmuv3_found *f = &s->found;
	const char *err = NULL, *e;
	smmu_w32(s, SMMU_CR1, f->cr1);
	smmu_w32(s, SMMU_CR2, f->cr2);
	smmu_w64(s, SMMU_STRTAB_BASE, f->strtab_base);
	smmu_w32(s, SMMU_STRTAB_BASE_CFG, f->strtab_cfg);
	/* each queue's pointers in an order that never shows more entries
	 * than it holds: the consumer's side first for the command queue;
	 * the event queue made empty at the recorded CONS, then PROD */
	smmu_w64(s, SMMU_CMDQ_BASE, f->cmdq_base);
	smmu_w32(s, SMMU_CMDQ_CONS, f->cmdq_cons);
	smmu_w32(s, SMMU_CMDQ_PROD, f->cmdq_prod);
	smmu_w64(s, SMMU_EVENTQ_BASE, f->evtq_base);
	smmu_w32(s, SMMU_EVENTQ_PROD, f->evtq_cons & ~EVENTQ_CONS_OVACKFLG);
	smmu_w32(s, SMMU_EVENTQ_CONS, f->evtq_cons);
	smmu_w32(s, SMMU_EVENTQ_PROD, f->evtq_prod);
	if ((smmu_r32(s, SMMU_GBPA) & ~GBPA_UPDATE) != (f->gbpa & ~GBPA_UPDATE) && (e = gbpa(s, f->gbpa)) != NULL)
		err = e;
	/* the errors active at take-over active again, those since acknowledged */
	smmu_w32(s, SMMU_GERRORN, smmu_r32(s, SMMU_GERROR) ^ f->gerror ^ f->gerrorn);
	if ((e = irq_ctrl(s, f->irq_ctrl)) != NULL)
		err = e;
	if ((e = smmuv3_cr0(s, f->cr0)) != NULL)
		err = e;
	return err;
}

const char *smmuv3_op_give_back(struct iommu *io)
{
	struct smmuv3 *s = container_of(io, struct smmuv3, io);
	if (!io->taken)
		return NULL;
	const char *err = NULL;
	enum iommu_err code = IOMMU_OK;
	uint32_t cr0 = smmu_r32(s, SMMU_CR0);
	/* translation off first; then the caches emptied of ours while the
	 * command queue still runs, so nothing of ours is used by whoever
	 * comes next */
	if ((cr0 & CR0_SMMUEN) && (err = smmuv3_cr0(s, cr0 & ~CR0_SMMUEN)) != NULL)
		code = io->err;
	if (!err && (cr0 & CR0_CMDQEN) && s->cmdq && (err = smmuv3_invalidate_everything(s)) != NULL)
		code = io->err;
	const char *e = smmuv3_cr0(s, 0);
	if (e && !err)
		err = e, code = io->err;
	if (smmu_r32(s, SMMU_CR0ACK) & CR0_SMMUEN) {
		/* still translating through our tables: their pages stay its */
		printf("    %s: translation did not stop (CR0ACK.SMMUEN): its tables are kept\n", io->name);
		*s = (struct smmuv3){ .io = s->io, .w = s->w, .found = s->found, .found_valid = true };
		s->io.taken = false;
		snprintf(io->restore_note, sizeof(io->restore_note), "the unit did not stop translating");
		return iommu_fail(io, IOMMU_ERR_RESTORE, "smmuv3: the unit did not stop translating");
	}
	if ((e = restore(s)) != NULL && !err)
		err = e, code = io->err;
	free_tables(s);
	io->taken = false;
	s->has_dut = false;
	if (!smmuv3_as_found(s, io->restore_note, sizeof(io->restore_note)) && !err)
		err = "smmuv3: registers differ from what the firmware left", code = IOMMU_ERR_RESTORE;
	return err ? iommu_fail(io, code, err) : NULL;
}

/* What the firmware left, read without a write (the protection audit):
 * SMMUEN and the stream table, the queues, and GBPA, which decides what
 * happens to DMA while the SMMU is off (abort blocks it). IORT carries no
 * promise of DMA protection. */
void smmuv3_op_firmware_left(struct iommu *io, struct iommu_fw_state *st)
{
	struct smmuv3 *s = container_of(io, struct smmuv3, io);
	memset(st, 0, sizeof(*st));
	uint32_t cr0 = smmu_r32(s, SMMU_CR0), gbpa = smmu_r32(s, SMMU_GBPA);
	if (cr0 == ~0u) {
		snprintf(st->state, sizeof(st->state), "CR0 reads all ones: the unit does not answer");
		return;
	}
	st->translating = cr0 & CR0_SMMUEN;
	st->blocking = !st->translating && (gbpa & GBPA_ABORT);
	st->queue = cr0 & CR0_CMDQEN;
	snprintf(st->state, sizeof(st->state), "%s (CR0 0x%x, stream table 0x%llx), GBPA 0x%x: %s while off%s",
		 st->translating ? "translation on" : "translation off", cr0,
		 (unsigned long long)(smmu_r64(s, SMMU_STRTAB_BASE) & STRTAB_BASE_ADDR), gbpa,
		 (gbpa & GBPA_ABORT) ? "DMA aborted" : "DMA bypasses", st->queue ? ", command queue on" : "");
}
