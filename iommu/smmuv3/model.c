/* The SMMUv3 model's kinds and registers (see model.h); the command and
 * event queues are in model_queues.c, the stream table, the CD and the
 * walk in model_walk.c. Offsets and bits from IHI 0070: 6.2 (register
 * map), 6.3 (register formats).
 * Its own reading of the spec, on purpose: never include the SMMUv3
 * driver's register header here (model.h says why).
 * The faults `model` injects are at the end; the family that attaches it
 * is beside the backend's descriptor (backend.c). */
#include "model_regs.h"

#include <stddef.h>
#include <string.h>

#include "iommu/models/models.h"

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

unsigned smmuv3m_oas_bits(unsigned ips)
{
	static const unsigned bits[8] = { 32, 36, 40, 42, 44, 48, 52, 52 };
	return bits[ips & 7];
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
	smmuv3m_cmdq_run(m); /* commands written before CMDQEN run now */
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
		smmuv3m_cmdq_run(m); /* an acknowledged CMDQ_ERR resumes consumption at CONS */
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
		smmuv3m_cmdq_run(m);
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
