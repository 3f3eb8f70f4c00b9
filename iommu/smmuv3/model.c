/* The SMMUv3 model's registers, command queue and event queue (see
 * smmuv3_model.h); the stream table, the CD and the walk are in
 * smmuv3_model_walk.c. Offsets and bits from IHI 0070: 6.2 (register
 * map), 6.3 (register formats), 4 (commands), 7.1 (command queue errors),
 * 7.3 and 7.4 (event records, overflow).
 * Its own reading of the spec, on purpose: never include the SMMUv3
 * driver's register header here (smmuv3_model.h says why).
 * Its family (what `model smmuv3` attaches) is at the end. */
#include "model.h"

#include <stddef.h>
#include <string.h>

#include "iommu/models/models.h"

/* Page 0 (6.2) */
#define IDR0 0x00
#define IDR5 0x14
#define IIDR 0x18
#define AIDR 0x1c
#define CR0 0x20
#define CR0ACK 0x24
#define CR1 0x28
#define CR2 0x2c
#define STATUSR 0x40
#define GBPA 0x44
#define AGBPA 0x48
#define IRQ_CTRL 0x50
#define IRQ_CTRLACK 0x54
#define GERROR 0x60
#define GERRORN 0x64
#define GERROR_IRQ_CFG0 0x68
#define GERROR_IRQ_CFG1 0x70
#define GERROR_IRQ_CFG2 0x74
#define STRTAB_BASE 0x80
#define STRTAB_BASE_CFG 0x88
#define CMDQ_BASE 0x90
#define CMDQ_PROD 0x98
#define CMDQ_CONS 0x9c
#define EVENTQ_BASE 0xa0
#define EVENTQ_PROD_ALIAS 0xa8 /* optional aliases of page 1's: not in this unit, RAZ/WI */
#define EVENTQ_CONS_ALIAS 0xac
#define EVENTQ_IRQ_CFG0 0xb0
#define EVENTQ_IRQ_CFG1 0xb8
#define EVENTQ_IRQ_CFG2 0xbc
/* Page 1 */
#define EVENTQ_PROD 0x100a8
#define EVENTQ_CONS 0x100ac

/* CR0 (6.3.9): PRIQEN and ATSCHK are RES0 without PRI and ATS, and VMW
 * without IDR0.VMW, which no kind of this unit offers */
#define SMMUEN (1u << 0)
#define EVENTQEN (1u << 2)
#define CMDQEN (1u << 3)
#define CR0_BITS (SMMUEN | EVENTQEN | CMDQEN)
#define CR1_BITS 0xfffu /* QUEUE_IC/OC/SH, TABLE_IC/OC/SH */
#define CR2_BITS 0x6u	/* RECINVSID, PTM; E2H is RES0 without HYP */
#define GBPA_UPDATE (1u << 31)
#define GBPA_BITS 0x801f3f1fu /* Update, ABORT, INSTCFG, PRIVCFG, SHCFG, ALLOCCFG, MTCFG, MemAttr */
#define GERROR_IRQEN (1u << 0)
#define EVENTQ_IRQEN (1u << 2)
#define IRQ_CTRL_BITS (GERROR_IRQEN | EVENTQ_IRQEN) /* PRIQ_IRQEN: no PRI */
#define GERROR_CMDQ_ERR (1u << 0)
#define GERROR_EVENTQ_ABT_ERR (1u << 2)
#define GERROR_BITS 0x3fdu

/* Bases: RA/WA bit 62, the address from bit 6 (stream table) or 5
 * (queues) up to the OAS, a queue's LOG2SIZE in 4:0. */
#define BASE_HINT (1ull << 62)
#define QUEUE_LOG2(b) ((unsigned)(b)&0x1f)
#define STRTAB_CFG_BITS 0x307ffu /* FMT 17:16, SPLIT 10:6, LOG2SIZE 5:0 */
#define STRTAB_FMT(c) (((c) >> 16) & 3)
#define STRTAB_SPLIT(c) (((c) >> 6) & 0x1f)
#define QUEUE_OVFLG (1u << 31) /* EVENTQ_PROD.OVFLG, EVENTQ_CONS.OVACKFLG */
#define CONS_ERR_SHIFT 24

/* IDR0 fields the model itself consults */
#define IDR0_ST_LEVEL(v) (((v) >> 27) & 3)
#define IDR1_SIDSIZE(v) ((v)&0x3f)
#define IDR1_EVENTQS(v) (((v) >> 16) & 0x1f)
#define IDR1_CMDQS(v) (((v) >> 21) & 0x1f)
#define IDR3_RIL (1u << 10)
#define IDR0_S2P (1u << 0)

/* Command opcodes (4.1), bits 7:0 */
enum {
	CMD_PREFETCH_CONFIG = 0x01,
	CMD_PREFETCH_ADDR = 0x02,
	CMD_CFGI_STE = 0x03,
	CMD_CFGI_STE_RANGE = 0x04, /* Range 31: CMD_CFGI_ALL */
	CMD_CFGI_CD = 0x05,
	CMD_CFGI_CD_ALL = 0x06,
	CMD_TLBI_NH_ALL = 0x10,
	CMD_TLBI_NH_ASID = 0x11,
	CMD_TLBI_NH_VA = 0x12,
	CMD_TLBI_NH_VAA = 0x13,
	CMD_TLBI_S12_VMALL = 0x28,
	CMD_TLBI_S2_IPA = 0x2a,
	CMD_TLBI_NSNH_ALL = 0x30,
	CMD_RESUME = 0x44,
	CMD_STALL_TERM = 0x45,
	CMD_SYNC = 0x46,
};

/* ---- the kinds ------------------------------------------------------------ */

/* IDR0: S1P, TTF AArch64, ASID16, TTENDIAN little-endian, STALL_MODEL 01
 * (no stall), TERM_MODEL 1 (abort only); COHACC and ST_LEVEL 2-level per
 * kind. IDR1: SIDSIZE, EVENTQS, CMDQS. IDR3: RIL per kind. IDR5: OAS 44
 * bits, the granules per kind. */
#define IDR0_BASE 0x0540100au
#define IDR0_COHACC (1u << 4)
#define IDR0_2LVL (1u << 27)
#define IDR0_S1P (1u << 1)
#define IDR0_VMID16 (1u << 18)
#define IDR1(cmdqs, evtqs, sids) ((uint32_t)(cmdqs) << 21 | (uint32_t)(evtqs) << 16 | (sids))
#define OAS_44 4u
#define GRAN4K (1u << 4)
#define GRAN16K (1u << 5)
#define GRAN64K (1u << 6)

const struct smmuv3m_kind smmuv3m_kinds[] = {
	/* as QEMU 7.2's (shared/specs/qemu-iommus.md section 3), with GBPA */
	{ "smmuv3", IDR0_BASE | IDR0_COHACC | IDR0_2LVL, IDR1(19, 19, 16), IDR3_RIL,
	  OAS_44 | GRAN4K | GRAN16K | GRAN64K },
	/* a small non-coherent unit: linear stream table only, no range
	 * invalidation, small queues, 4K and 64K granules */
	{ "smmuv3-linear", IDR0_BASE, IDR1(8, 7, 13), 0, OAS_44 | GRAN4K | GRAN64K },
	/* 64K granule only: the driver's tables must follow IDR5 */
	{ "smmuv3-64k", IDR0_BASE | IDR0_COHACC | IDR0_2LVL, IDR1(12, 10, 16), IDR3_RIL, OAS_44 | GRAN64K },
	/* both stages (S2P, 16-bit VMIDs), as an Arm server's SMMU */
	{ "smmuv3-s2", IDR0_BASE | IDR0_COHACC | IDR0_2LVL | IDR0_S2P | IDR0_VMID16, IDR1(19, 19, 16), IDR3_RIL,
	  OAS_44 | GRAN4K | GRAN16K | GRAN64K },
	/* stage 2 only (S1P clear): what a driver must drive at stage 2 by itself */
	{ "smmuv3-s2only", (IDR0_BASE & ~IDR0_S1P) | IDR0_COHACC | IDR0_S2P | IDR0_VMID16, IDR1(12, 10, 13), 0,
	  OAS_44 | GRAN4K | GRAN64K },
	{ NULL },
};

/* ---- helpers ---------------------------------------------------------------- */

unsigned smmuv3m_oas_bits(unsigned ips)
{
	static const unsigned bits[8] = { 32, 36, 40, 42, 44, 48, 52, 52 };
	return bits[ips & 7];
}

static uint64_t addr_bits(const struct smmuv3_model *m, unsigned low)
{
	unsigned oas = smmuv3m_oas_bits(m->kind->idr5 & 7);
	return ((1ull << oas) - 1) & ~((1ull << low) - 1);
}

static void interrupt(struct smmuv3_model *m, enum smmuv3m_irq which)
{
	m->irqs[which]++;
	if (m->irq)
		m->irq(m->irq_ctx, which);
}

/* A global error becomes active: its GERROR bit toggles away from GERRORN (7.5). */
static void global_error(struct smmuv3_model *m, uint32_t bit)
{
	if ((m->gerror ^ m->gerrorn) & bit)
		return; /* already active */
	m->gerror ^= bit;
	if (m->irq_ctrl & GERROR_IRQEN)
		interrupt(m, SMMUV3M_IRQ_GERROR);
}

/* A queue's log2 of entries: what LOG2SIZE says, at most what IDR1 allows. */
static unsigned qbits(uint64_t base, unsigned max)
{
	return QUEUE_LOG2(base) < max ? QUEUE_LOG2(base) : max;
}

/* A queue's effective address: aligned to the queue's size in bytes, at
 * least 32 (6.3.26, 6.3.29); 0 when nothing answers there. */
static uint64_t qaddr(const struct smmuv3_model *m, uint64_t base, unsigned bits, unsigned entry)
{
	uint64_t size = (uint64_t)entry << bits;
	return base & addr_bits(m, 5) & ~((size > 32 ? size : 32) - 1);
}

static uint32_t qindex(uint32_t v, unsigned bits)
{
	return v & ((1u << bits) - 1);
}

/* Entries between cons and prod (index and wrap bit). */
static uint32_t qused(uint32_t prod, uint32_t cons, unsigned bits)
{
	uint32_t span = 2u << bits, mask = span - 1;
	return ((prod & mask) - (cons & mask)) & mask;
}

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
	const struct smmuv3m_scope all = { .any_asid = true, .global_too = true, .size = ~0ull },
				   asid = { .asid = (uint16_t)(c0 >> 48), .size = ~0ull };
	bool ok = !m->illegal_next;
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
		ok = !(c0 & 0xffff0000ffffff00ull) && !c1;
		if (ok)
			smmuv3m_drop_tlb(m, &all), m->tlbi_nh_all++;
		break;
	case CMD_TLBI_NH_ASID:
		ok = !(c0 & 0xffffff00ull) && !c1;
		if (ok)
			smmuv3m_drop_tlb(m, &asid), m->tlbi_nh_asid++;
		break;
	case CMD_TLBI_NH_VA:
	case CMD_TLBI_NH_VAA: {
		struct smmuv3m_scope va = { .any_asid = op == CMD_TLBI_NH_VAA, .global_too = true, .asid = asid.asid };
		ok = !(c0 & 0xfe0e0f00ull) && !(c1 & 0xfeull) && tlbi_range(m, c0, c1, &va);
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
		/* the VMID's entries of both stages; stage-1 leaves carry no
		 * VMID in this model, so all of them go (more than required) */
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
static void cmdq_run(struct smmuv3_model *m)
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

/* ---- the registers (6.3) -------------------------------------------------------- */

/* An ACK register follows its control register at the second read after a
 * write (smmuv3_model.h): `reads` counts them. */
static uint32_t ack(uint32_t *ackreg, uint32_t value, unsigned *reads, bool stuck)
{
	if (*ackreg != value && !stuck && ++*reads >= 2)
		*ackreg = value;
	return *ackreg;
}

static bool stream_table_usable(const struct smmuv3_model *m)
{
	uint32_t cfg = m->strtab_base_cfg;
	unsigned fmt = STRTAB_FMT(cfg), split = STRTAB_SPLIT(cfg);
	if (!(m->strtab_base & addr_bits(m, 6)))
		return false;
	if (fmt == 1)
		return IDR0_ST_LEVEL(m->kind->idr0) == 1 && (split == 6 || split == 8 || split == 10);
	return fmt == 0;
}

static void write_cr0(struct smmuv3_model *m, uint32_t v)
{
	uint32_t was = m->cr0;
	if (m->cr0ack != m->cr0)
		m->protocol_errors++; /* the previous change was not acknowledged yet */
	if ((v & SMMUEN) && !(was & SMMUEN) && !stream_table_usable(m))
		m->protocol_errors++;
	if ((v & CMDQEN) && !(was & CMDQEN) && !(m->cmdq_base & addr_bits(m, 5)))
		m->protocol_errors++;
	if ((v & EVENTQEN) && !(was & EVENTQEN) && !(m->eventq_base & addr_bits(m, 5)))
		m->protocol_errors++;
	m->cr0 = v & CR0_BITS;
	m->cr0_reads = 0;
	cmdq_run(m); /* commands written before CMDQEN run now */
}

/* A base or pointer is read-only while `en` is set in CR0 or CR0ACK: a
 * write that would change it then is counted and ignored; true when the
 * write is to be ignored. */
static bool frozen(struct smmuv3_model *m, uint32_t en, uint64_t was, uint64_t v)
{
	if (!((m->cr0 | m->cr0ack) & en))
		return false;
	m->protocol_errors += was != v;
	return true;
}

/* Counts bits written outside `bits`, returns v within them. */
static uint64_t within(struct smmuv3_model *m, uint64_t v, uint64_t bits)
{
	if (v & ~bits)
		m->reserved_writes++;
	return v & bits;
}

static void write32(struct smmuv3_model *m, uint64_t off, uint32_t v)
{
	unsigned cmdq_bits = qbits(m->cmdq_base, IDR1_CMDQS(m->kind->idr1));
	unsigned evtq_bits = qbits(m->eventq_base, IDR1_EVENTQS(m->kind->idr1));
	switch (off) {
	case CR0:
		write_cr0(m, (uint32_t)within(m, v, CR0_BITS));
		break;
	case CR1: {
		/* QUEUE_* are RW only while no queue is enabled, TABLE_* only
		 * while SMMUEN is 0, in CR0 and CR0ACK alike (6.3.11) */
		uint32_t on = m->cr0 | m->cr0ack, changed = (uint32_t)within(m, v, CR1_BITS) ^ m->cr1;
		if (((changed & 0x3f) && (on & (CMDQEN | EVENTQEN))) || ((changed & 0xfc0) && (on & SMMUEN)))
			m->protocol_errors++; /* read-only then: ignored */
		else
			m->cr1 ^= changed;
		break;
	}
	case CR2:
		v = (uint32_t)within(m, v, CR2_BITS);
		if (!frozen(m, SMMUEN, m->cr2, v))
			m->cr2 = v;
		break;
	case GBPA:
		if (!(v & GBPA_UPDATE) || (m->gbpa & GBPA_UPDATE)) {
			m->protocol_errors++; /* without Update, or during an update (6.3.14.1) */
			break;
		}
		m->gbpa = (uint32_t)within(m, v, GBPA_BITS);
		m->gbpa_reads = 0;
		break;
	case IRQ_CTRL:
		if (m->irq_ctrlack != m->irq_ctrl)
			m->protocol_errors++;
		m->irq_ctrl = (uint32_t)within(m, v, IRQ_CTRL_BITS);
		m->irq_reads = 0;
		break;
	case GERRORN: {
		v = (uint32_t)within(m, v, GERROR_BITS);
		uint32_t toggled = v ^ m->gerrorn, active = m->gerror ^ m->gerrorn;
		if (toggled & ~active)
			m->protocol_errors++; /* acknowledged an error that was not active */
		m->gerrorn = v;
		cmdq_run(m); /* an acknowledged CMDQ_ERR resumes consumption at CONS */
		break;
	}
	case STRTAB_BASE_CFG:
		v = (uint32_t)within(m, v, STRTAB_CFG_BITS);
		if (!frozen(m, SMMUEN, m->strtab_base_cfg, v))
			m->strtab_base_cfg = v;
		break;
	case CMDQ_PROD: {
		uint32_t mask = (2u << cmdq_bits) - 1;
		if (v & ~mask)
			m->protocol_errors++; /* beyond the queue's size */
		v &= mask;
		if ((m->cr0 & CMDQEN) && qused(v, m->cmdq_cons & mask, cmdq_bits) > (1u << cmdq_bits))
			m->protocol_errors++; /* more commands than the queue holds */
		m->cmdq_prod = v;
		cmdq_run(m);
		break;
	}
	case CMDQ_CONS:
		v = (uint32_t)within(m, v, (2u << cmdq_bits) - 1);
		if (!frozen(m, CMDQEN, m->cmdq_cons & ((2u << cmdq_bits) - 1), v))
			m->cmdq_cons = v;
		break;
	case EVENTQ_PROD:
		v = (uint32_t)within(m, v, QUEUE_OVFLG | ((2u << evtq_bits) - 1));
		if (!frozen(m, EVENTQEN, m->eventq_prod, v))
			m->eventq_prod = v;
		break;
	case EVENTQ_CONS: {
		uint32_t mask = (2u << evtq_bits) - 1;
		v = (uint32_t)within(m, v, QUEUE_OVFLG | mask);
		if ((m->cr0 & EVENTQEN) && qused(m->eventq_prod & mask, v & mask, evtq_bits) >
					       qused(m->eventq_prod & mask, m->eventq_cons & mask, evtq_bits))
			m->protocol_errors++; /* CONS moved past PROD, or backwards */
		m->eventq_cons = v;
		break;
	}
	case IDR0:
	case IDR0 + 4:
	case IDR0 + 8:
	case IDR0 + 0xc:
	case IDR0 + 0x10:
	case IDR5:
	case IIDR:
	case AIDR:
	case CR0ACK:
	case STATUSR:
	case IRQ_CTRLACK:
	case GERROR:
		m->reserved_writes++; /* read-only */
		break;
	default:
		/* RES0: the MSI configuration (no MSIs), AGBPA, the page-0
		 * aliases this unit lacks, PRIQ and the rest it does not have;
		 * zero may be written there, nothing else */
		within(m, v, 0);
	}
}

static void write64(struct smmuv3_model *m, uint64_t off, uint64_t v)
{
	switch (off) {
	case STRTAB_BASE:
		v = within(m, v, BASE_HINT | addr_bits(m, 6));
		if (!frozen(m, SMMUEN, m->strtab_base, v))
			m->strtab_base = v;
		break;
	case CMDQ_BASE:
		v = within(m, v, BASE_HINT | addr_bits(m, 5) | 0x1f);
		m->protocol_errors += QUEUE_LOG2(v) > IDR1_CMDQS(m->kind->idr1); /* must be <= CMDQS */
		if (!frozen(m, CMDQEN, m->cmdq_base, v))
			m->cmdq_base = v;
		break;
	case EVENTQ_BASE:
		v = within(m, v, BASE_HINT | addr_bits(m, 5) | 0x1f);
		m->protocol_errors += QUEUE_LOG2(v) > IDR1_EVENTQS(m->kind->idr1);
		if (!frozen(m, EVENTQEN, m->eventq_base, v))
			m->eventq_base = v;
		break;
	case GERROR_IRQ_CFG0:
	case EVENTQ_IRQ_CFG0:
		within(m, v, 0); /* RES0 without MSIs */
		break;
	}
}

static bool is64(uint64_t off)
{
	return off == STRTAB_BASE || off == CMDQ_BASE || off == EVENTQ_BASE || off == GERROR_IRQ_CFG0 ||
	       off == EVENTQ_IRQ_CFG0;
}

static uint64_t read64(struct smmuv3_model *m, uint64_t off)
{
	switch (off) {
	case STRTAB_BASE:
		return m->strtab_base;
	case CMDQ_BASE:
		return m->cmdq_base;
	case EVENTQ_BASE:
		return m->eventq_base;
	}
	return 0;
}

static uint32_t read32(struct smmuv3_model *m, uint64_t off)
{
	const struct smmuv3m_kind *k = m->kind;
	switch (off) {
	case IDR0:
		return k->idr0;
	case IDR0 + 4:
		return k->idr1;
	case IDR0 + 0xc:
		return k->idr3;
	case IDR5:
		return k->idr5;
	case AIDR:
		return k->idr3 & IDR3_RIL ? 0x02 : 0x01; /* SMMUv3.2 with RIL, v3.1 without */
	case CR0:
		return m->cr0;
	case CR0ACK:
		return ack(&m->cr0ack, m->cr0, &m->cr0_reads, m->cr0ack_stuck);
	case CR1:
		return m->cr1;
	case CR2:
		return m->cr2;
	case GBPA:
		if ((m->gbpa & GBPA_UPDATE) && ++m->gbpa_reads >= 2)
			m->gbpa &= ~GBPA_UPDATE;
		return m->gbpa;
	case IRQ_CTRL:
		return m->irq_ctrl;
	case IRQ_CTRLACK:
		return ack(&m->irq_ctrlack, m->irq_ctrl, &m->irq_reads, false);
	case GERROR:
		return m->gerror;
	case GERRORN:
		return m->gerrorn;
	case STRTAB_BASE_CFG:
		return m->strtab_base_cfg;
	case CMDQ_PROD:
		return m->cmdq_prod;
	case CMDQ_CONS:
		return m->cmdq_cons;
	case EVENTQ_PROD:
		return m->eventq_prod;
	case EVENTQ_CONS:
		return m->eventq_cons;
	}
	return 0; /* IDR2, IDR4, IIDR, STATUSR, RES0 and unimplemented */
}

/* 32-bit accesses to every register, 64-bit ones to 64-bit registers,
 * aligned to their size (6.2); anything else is counted and does nothing. */
static bool good_width(struct smmuv3_model *m, uint64_t off, unsigned width)
{
	if ((width == 4 && !(off & 3)) || (width == 8 && !(off & 7) && is64(off)))
		return true;
	m->bad_width++;
	return false;
}

static uint64_t model_read(void *ctx, uint64_t off, unsigned width)
{
	struct smmuv3_model *m = ctx;
	if (m->all_ones)
		return width == 8 ? ~0ull : (1ull << (8 * width)) - 1;
	if (!good_width(m, off, width))
		return 0;
	if (is64(off & ~7ull)) {
		uint64_t v = read64(m, off & ~7ull);
		return width == 8 ? v : (uint32_t)(v >> (8 * (off & 4)));
	}
	return read32(m, off);
}

static void model_write(void *ctx, uint64_t off, unsigned width, uint64_t v)
{
	struct smmuv3_model *m = ctx;
	if (!good_width(m, off, width))
		return;
	uint64_t base = off & ~7ull;
	if (!is64(base)) {
		write32(m, off, (uint32_t)v);
		return;
	}
	if (width == 4) { /* one half of a 64-bit register */
		unsigned shift = 8 * (unsigned)(off & 4);
		uint64_t cur = read64(m, base), half = 0xffffffffull << shift;
		v = (cur & ~half) | ((v & 0xffffffffull) << shift);
	}
	write64(m, base, v);
}

static const struct regwin_model_ops ops = { model_read, model_write };

bool smmuv3m_init(struct smmuv3_model *m, const char *kind)
{
	memset(m, 0, sizeof(*m));
	for (const struct smmuv3m_kind *k = smmuv3m_kinds; k->name; k++)
		if (strcmp(k->name, kind) == 0)
			m->kind = k;
	if (!m->kind)
		return false;
	regwin_init_model(&m->win, "smmuv3-model", SMMUV3M_WINDOW, false, &ops, m);
	return true;
}

/* ---- the faults `model` injects, and the kinds ---------------------------- */

static void inject_sync_stuck(void *m)
{
	((struct smmuv3_model *)m)->sync_stuck = true;
}

static void inject_eventq_full(void *m)
{
	((struct smmuv3_model *)m)->eventq_full = true;
}

static void inject_illegal(void *m)
{
	((struct smmuv3_model *)m)->illegal_next = true;
}

static void inject_cr0ack_stuck(void *m)
{
	((struct smmuv3_model *)m)->cr0ack_stuck = true;
}

/* What the caches hold at reset is IMPLEMENTATION SPECIFIC (3.11): an
 * abort STE for the engine's stream, and global read-only, privileged-only
 * leaves over the low 4 GiB that every ASID hits. A driver that skips the
 * take-over's CFGI_ALL and TLBI_NSNH_ALL finds its DMA refused by them. */
static void inject_stale_caches(void *model)
{
	struct smmuv3_model *m = model;
	m->cfg[0] = (struct smmuv3m_cfg){ .valid = true, .sid = m->engine_sid, .ste = { 1 } };
	for (unsigned i = 0; i < 4; i++)
		m->tlb[i] = (struct smmuv3m_tlb){ .valid = true,
						  .global = true,
						  .granule = 12,
						  .level = 1,
						  .va = (uint64_t)i << 30,
						  .size = 1ull << 30 };
	m->cfg_next = 1;
	m->tlb_next = 4;
}

/* The codes assume a take-over that enables the command queue, issues its
 * invalidations and a CMD_SYNC before SMMUEN (3.11, Arm's recommended
 * order), and polls CR0ACK after each CR0 write. */
const struct model_fault smmuv3m_faults[] = {
	{ "cmd-sync-stuck", "CMD_SYNC never completes: CMDQ_CONS stops before it", NULL, inject_sync_stuck,
	  IOMMU_ERR_TIMEOUT, IOMMU_OK },
	{ "eventq-overflow", "the event queue has no free slot: events lost, EVENTQ_PROD.OVFLG toggles", NULL,
	  inject_eventq_full, IOMMU_OK, IOMMU_OK },
	{ "illegal-command", "the next command is CERROR_ILL: CMDQ_CONS.ERR, GERROR.CMDQ_ERR, the queue stops", NULL,
	  inject_illegal, IOMMU_ERR_HARDWARE, IOMMU_OK },
	{ "cr0ack-stuck", "CR0ACK never follows CR0", NULL, inject_cr0ack_stuck, IOMMU_ERR_TIMEOUT, IOMMU_OK },
	{ "stale-caches", "the caches hold entries from before the take-over (an abort STE, global TLB leaves)", NULL,
	  inject_stale_caches, IOMMU_OK, IOMMU_OK },
	{ NULL },
};

const char *const smmuv3m_kind_names[] = {
	"smmuv3", "smmuv3-linear", "smmuv3-64k", "smmuv3-s2", "smmuv3-s2only", NULL
};
