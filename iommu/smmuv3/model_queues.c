/* The SMMUv3 model's queues (see model.h): the event queue a refused
 * request records into, with overflow (IHI 0070 7.3, 7.4), and the
 * command queue, its commands (4) and their errors (7.1), run
 * synchronously when the registers in model.c say so.
 * Its own reading of the spec, on purpose: never include the SMMUv3
 * driver's register header here (model.h says why). */
#include <stddef.h>
#include <string.h>

#include "model_regs.h"

/* ---- the event queue (7.3, 7.4) ---------------------------------------------- */

void smmuv3m_record(struct smmuv3_model *m, const uint64_t rec[4])
{
	if (!(m->cr0 & EVENTQEN)) {
		m->events_lost++;
		return;
	}
	unsigned bits = qbits(m->eventq_base, IDR1_EVENTQS(m->kind->idr1));
	uint32_t prod = m->eventq_prod & ((2u << bits) - 1), cons = m->eventq_cons & ((2u << bits) - 1);
	if (m->eventq_full || qused(prod, cons, bits) >= (1u << bits)) {
		/* full: the event is lost; OVFLG toggles once until acknowledged (7.4) */
		if ((m->eventq_prod & QUEUE_OVFLG) == (m->eventq_cons & QUEUE_OVFLG)) {
			m->eventq_prod ^= QUEUE_OVFLG;
			m->overflows++;
		}
		m->events_lost++;
		return;
	}
	uint64_t base = qaddr(m, m->eventq_base, bits, 32);
	if (!base) {
		global_error(m, GERROR_EVENTQ_ABT_ERR); /* the record's write aborted */
		m->events_lost++;
		return;
	}
	volatile uint64_t *e = (volatile uint64_t *)(uintptr_t)(base + 32ull * qindex(prod, bits));
	for (unsigned i = 0; i < 4; i++)
		e[i] = rec[i];
	m->eventq_prod = (m->eventq_prod & QUEUE_OVFLG) | ((prod + 1) & ((2u << bits) - 1));
	m->events++;
	if (m->irq_ctrl & EVENTQ_IRQEN)
		interrupt(m, SMMUV3M_IRQ_EVENTQ);
}

/* ---- the command queue (4, 7.1) ---------------------------------------------- */

enum run { DONE, ERROR, WAIT };

/* TLBI_NH_VA/VAA's address, range, granule and level (4.4.1.1) into `s`:
 * false when malformed. */
static bool tlbi_range(const struct smmuv3_model *m, uint64_t c0, uint64_t c1, struct smmuv3m_scope *s)
{
	unsigned num = (c0 >> 12) & 0x1f, scale = (c0 >> 20) & 0x3f, ttl = (c1 >> 8) & 3, tg = (c1 >> 10) & 3;
	s->va = c1 & ~0xfffull;
	if (tg == 0) {
		s->size = 1; /* every leaf holding this address, whatever its granule */
		return !num && !scale && !ttl;
	}
	if (tg == 2 && ttl == 1)
		ttl = 0; /* level 1 of 16K needs DS: treated as no hint */
	if (!(m->kind->idr3 & IDR3_RIL) || scale > 0x1f || (!num && !scale && !ttl))
		return false; /* RES0 without RIL; SCALE bit 25 needs DS; the reserved combination */
	static const unsigned shift[4] = { 0, 12, 14, 16 };
	s->granule = shift[tg];
	s->level = ttl;
	s->size = (uint64_t)(num + 1) << scale << shift[tg];
	if (s->va + s->size < s->va)
		s->size = 0 - s->va; /* no wrap (4.4.1.1) */
	return true;
}

/* One command: DONE, ERROR (with *err) or WAIT (a CMD_SYNC that does not
 * complete). Fields the spec makes RES0 for this unit must be zero. */
static enum run execute(struct smmuv3_model *m, uint64_t c0, uint64_t c1, unsigned *err)
{
	unsigned op = c0 & 0xff;
	uint32_t sid = (uint32_t)(c0 >> 32);
	/* stage 1's commands within the VMID of bits 47:32 (4.4.2: an SMMU
	 * with stage 2 tags stage 1's entries with the STE's S2VMID) */
	uint16_t vmid = (uint16_t)(c0 >> 32);
	const struct smmuv3m_scope all = { .any_asid = true, .global_too = true, .vmid = vmid, .size = ~0ull },
				   asid = { .asid = (uint16_t)(c0 >> 48), .vmid = vmid, .size = ~0ull };
	bool ok = !m->illegal_next;
	/* a VMID is RES0 without stage 2 */
	bool vmid_ok = (m->kind->idr0 & IDR0_S2P) || !vmid;
	m->illegal_next = false;
	*err = SMMUV3M_CERROR_ILL;
	switch (ok ? op : 0) {
	case CMD_PREFETCH_CONFIG:
	case CMD_PREFETCH_ADDR:
		ok = !(c0 & 0xfffff800ull); /* SSV and SubstreamID: no SSIDs */
		break;
	case CMD_CFGI_STE:
		ok = !(c0 & 0xffffff00ull) && !(c1 >> 1);
		if (ok)
			smmuv3m_drop_ste(m, sid, 1, !(c1 & 1)), m->cfgi_ste++;
		break;
	case CMD_CFGI_STE_RANGE: {
		unsigned range = c1 & 0x1f;
		ok = !(c0 & 0xffffff00ull) && !(c1 >> 5);
		if (!ok)
			break;
		uint64_t n = 2ull << range;
		smmuv3m_drop_ste(m, sid & ~(n - 1), n, true);
		if (range == 31)
			m->cfgi_all++;
		else
			m->cfgi_ste_range++;
		break;
	}
	case CMD_CFGI_CD:
		ok = !(c0 & 0xf00ull) && !(c1 >> 1); /* SubstreamID may be anything (4.3.3) */
		if (ok)
			smmuv3m_drop_cd(m, sid), m->cfgi_cd++;
		break;
	case CMD_CFGI_CD_ALL:
		ok = !(c0 & 0xffffff00ull) && !c1;
		if (ok)
			smmuv3m_drop_cd(m, sid), m->cfgi_cd_all++;
		break;
	case CMD_TLBI_NH_ALL:
		ok = !(c0 & 0xffff0000ffffff00ull) && !c1 && vmid_ok;
		if (ok)
			smmuv3m_drop_tlb(m, &all), m->tlbi_nh_all++;
		break;
	case CMD_TLBI_NH_ASID:
		ok = !(c0 & 0xffffff00ull) && !c1 && vmid_ok;
		if (ok)
			smmuv3m_drop_tlb(m, &asid), m->tlbi_nh_asid++;
		break;
	case CMD_TLBI_NH_VA:
	case CMD_TLBI_NH_VAA: {
		struct smmuv3m_scope va = {
			.any_asid = op == CMD_TLBI_NH_VAA, .global_too = true, .asid = asid.asid, .vmid = vmid
		};
		ok = !(c0 & 0xfe0e0f00ull) && !(c1 & 0xfeull) && vmid_ok && tlbi_range(m, c0, c1, &va);
		if (op == CMD_TLBI_NH_VAA)
			ok = ok && !(c0 >> 48);
		if (!ok)
			break;
		smmuv3m_drop_tlb(m, &va);
		if (op == CMD_TLBI_NH_VAA)
			m->tlbi_nh_vaa++;
		else if ((c1 >> 10) & 3)
			m->tlbi_nh_va_range++;
		else
			m->tlbi_nh_va++;
		break;
	}
	case CMD_TLBI_NSNH_ALL: { /* both stages, every VMID (4.4.3.1) */
		const struct smmuv3m_scope both = {
			.any_asid = true, .global_too = true, .s2 = true, .any_vmid = true, .size = ~0ull
		};
		ok = !(c0 & ~0xffull) && !c1;
		if (ok)
			smmuv3m_drop_tlb(m, &both), m->tlbi_nsnh_all++;
		break;
	}
	case CMD_TLBI_S12_VMALL: {
		/* the VMID's entries of both stages */
		const struct smmuv3m_scope vm = {
			.any_asid = true, .global_too = true, .s2 = true, .vmid = (uint16_t)(c0 >> 32), .size = ~0ull
		};
		ok = (m->kind->idr0 & IDR0_S2P) && !(c0 & 0xffff0000ffffff00ull) && !c1;
		if (ok)
			smmuv3m_drop_tlb(m, &vm), m->tlbi_s12_vmall++;
		break;
	}
	case CMD_TLBI_S2_IPA: { /* stage-2 leaves of the VMID holding the IPA (range: 4.4.1.1) */
		struct smmuv3m_scope ipa = { .s2 = true, .s2_only = true, .vmid = (uint16_t)(c0 >> 32) };
		ok = (m->kind->idr0 & IDR0_S2P) && !(c0 & 0xffff0000fe0e0f00ull) && !(c1 & 0xfff00000000000feull) &&
		     tlbi_range(m, c0, c1, &ipa);
		if (!ok)
			break;
		smmuv3m_drop_tlb(m, &ipa);
		if ((c1 >> 10) & 3)
			m->tlbi_s2_ipa_range++;
		else
			m->tlbi_s2_ipa++;
		break;
	}
	case CMD_RESUME:
	case CMD_STALL_TERM:
		break; /* nothing stalls here (STALL_MODEL 01): accepted, nothing to do */
	case CMD_SYNC: {
		unsigned cs = (c0 >> 12) & 3;
		ok = cs != 3;
		if (!ok)
			break;
		if (m->sync_stuck)
			return WAIT; /* never completes: CONS stays on it */
		m->syncs++;
		if (cs == 1)
			interrupt(m, SMMUV3M_IRQ_SYNC);
		break;
	}
	default: /* 0, EL2/EL3 (no HYP), ATC_INV, PRI_RESP, and beyond */
		ok = false;
	}
	if (!ok) {
		m->command_errors++;
		return ERROR;
	}
	m->commands++;
	return DONE;
}

static bool cmdq_error_active(const struct smmuv3_model *m)
{
	return ((m->gerror ^ m->gerrorn) & GERROR_CMDQ_ERR) != 0;
}

/* Consumes what lies between CONS and PROD, synchronously (the spec lets
 * the unit consume at any time; the model does it at the PROD write, at
 * CMDQEN and at the acknowledgement of an error). */
void smmuv3m_cmdq_run(struct smmuv3_model *m)
{
	unsigned bits = qbits(m->cmdq_base, IDR1_CMDQS(m->kind->idr1));
	uint32_t mask = (2u << bits) - 1;
	while ((m->cr0 & CMDQEN) && !cmdq_error_active(m)) {
		uint32_t cons = m->cmdq_cons & mask, prod = m->cmdq_prod & mask;
		if (cons == prod)
			return;
		uint64_t base = qaddr(m, m->cmdq_base, bits, 16);
		unsigned err = SMMUV3M_CERROR_ABT;
		enum run r = ERROR;
		if (base) {
			const volatile uint64_t *c =
			    (const volatile uint64_t *)(uintptr_t)(base + 16ull * qindex(cons, bits));
			r = execute(m, c[0], c[1], &err);
		}
		if (r == WAIT)
			return;
		if (r == ERROR) {
			/* CONS stays on the command, ERR says why, CMDQ_ERR active (7.1) */
			m->cmdq_cons = (m->cmdq_cons & mask) | (uint32_t)err << CONS_ERR_SHIFT;
			global_error(m, GERROR_CMDQ_ERR);
			return;
		}
		m->cmdq_cons = (m->cmdq_cons & ~mask) | ((cons + 1) & mask);
	}
}
