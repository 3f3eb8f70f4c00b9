/* What the SMMUv3 model's files share (model.c: the registers; model_queues.c:
 * the command and event queues): the model's own reading of the register
 * map and formats (IHI 0070 6.2, 6.3) and of the command opcodes (4.1),
 * and the queue arithmetic. Its own reading, on purpose: never include the
 * SMMUv3 driver's register header here (model.h says why). */
#ifndef IOMMON_SMMUV3_MODEL_REGS_H
#define IOMMON_SMMUV3_MODEL_REGS_H

#include "model.h"

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

/* ---- helpers ---------------------------------------------------------------- */

static inline uint64_t addr_bits(const struct smmuv3_model *m, unsigned low)
{
	unsigned oas = smmuv3m_oas_bits(m->kind->idr5 & 7);
	return ((1ull << oas) - 1) & ~((1ull << low) - 1);
}

static inline void interrupt(struct smmuv3_model *m, enum smmuv3m_irq which)
{
	m->irqs[which]++;
	if (m->irq)
		m->irq(m->irq_ctx, which);
}

/* A global error becomes active: its GERROR bit toggles away from GERRORN (7.5). */
static inline void global_error(struct smmuv3_model *m, uint32_t bit)
{
	if ((m->gerror ^ m->gerrorn) & bit)
		return; /* already active */
	m->gerror ^= bit;
	if (m->irq_ctrl & GERROR_IRQEN)
		interrupt(m, SMMUV3M_IRQ_GERROR);
}

/* A queue's log2 of entries: what LOG2SIZE says, at most what IDR1 allows. */
static inline unsigned qbits(uint64_t base, unsigned max)
{
	return QUEUE_LOG2(base) < max ? QUEUE_LOG2(base) : max;
}

/* A queue's effective address: aligned to the queue's size in bytes, at
 * least 32 (6.3.26, 6.3.29); 0 when nothing answers there. */
static inline uint64_t qaddr(const struct smmuv3_model *m, uint64_t base, unsigned bits, unsigned entry)
{
	uint64_t size = (uint64_t)entry << bits;
	return base & addr_bits(m, 5) & ~((size > 32 ? size : 32) - 1);
}

static inline uint32_t qindex(uint32_t v, unsigned bits)
{
	return v & ((1u << bits) - 1);
}

/* Entries between cons and prod (index and wrap bit). */
static inline uint32_t qused(uint32_t prod, uint32_t cons, unsigned bits)
{
	uint32_t span = 2u << bits, mask = span - 1;
	return ((prod & mask) - (cons & mask)) & mask;
}

/* ---- the queues (model_queues.c) --------------------------------------------- */

/* Consumes what lies between CMDQ_CONS and CMDQ_PROD (4, 7.1). */
void smmuv3m_cmdq_run(struct smmuv3_model *m);

#endif
