/* The RISC-V IOMMU model's registers, command queue and fault queue (see
 * model.h); the directory walk, the stages and the caches are in
 * model_walk.c. Offsets and bits from the RISC-V IOMMU Architecture
 * Specification 1.0, chapter 5 (registers) and 3 (queues).
 * Its own reading of the spec, on purpose: never include the driver's
 * riscv/regs.h here, so that a misreading there is not copied into the
 * model that is to catch it. The faults `model` injects are at the end;
 * the family (what `model riscv` attaches) is beside the backend. */
#include "model.h"

#include <stddef.h>
#include <string.h>

#include "core/base/macros.h"

/* Register offsets (5.1) */
#define CAPABILITIES 0x000
#define FCTL 0x008
#define DDTP 0x010
#define CQB 0x018
#define CQH 0x020
#define CQT 0x024
#define FQB 0x028
#define FQH 0x030
#define FQT 0x034
#define CQCSR 0x048
#define FQCSR 0x04c
#define IPSR 0x054
#define ICVEC 0x2f8
#define MSI_CFG_TBL 0x300 /* 16 entries of 16 bytes */
#define MSI_CFG_END 0x400

/* Base registers (ddtp, cqb, fqb): PPN in 53:10; ddtp's mode in 3:0 and
 * busy at 4, a queue's LOG2SZ-1 in 4:0; 9:5 and 63:54 reserved. */
#define PPN_BITS 0x003ffffffffffc00ull
#define DDTP_BUSY (1ull << 4)
#define LOG2SZ_BITS 0x1full

/* cqcsr and fqcsr: en, ie; the error bits (write 1 to clear) from 8; on
 * and busy read-only */
#define CSR_EN (1u << 0)
#define CSR_IE (1u << 1)
#define CSR_MF (1u << 8)
#define CQ_CMD_TO (1u << 9)
#define CQ_CMD_ILL (1u << 10)
#define CQ_FENCE_W_IP (1u << 11)
#define FQ_OF (1u << 9)
#define CSR_ON (1u << 16)
#define CSR_BUSY (1u << 17)
#define CQ_ERRORS (CSR_MF | CQ_CMD_TO | CQ_CMD_ILL)
#define CQ_W1C (CQ_ERRORS | CQ_FENCE_W_IP)
#define FQ_W1C (CSR_MF | FQ_OF)

#define IPSR_CIP (1u << 0)
#define IPSR_FIP (1u << 1)
#define IPSR_BITS 0xfu

/* What this unit offers (5.3): version 1.0, Sv39/48/57 (bits 9-11), their
 * x4 forms (17-19), MSI_FLAT (22), AMO_HWAD (24), IGS = MSI (29:28 = 0),
 * PAS 56 (37:32). */
#define STAGE_S (7ull << 9)
#define STAGE_G (7ull << 17)
#define CAPS (0x10ull | STAGE_S | STAGE_G | 1ull << 22 | 1ull << 24 | 56ull << 32)

/* Command opcodes and functions (3.1) */
enum { IOTINVAL = 1, IOFENCE = 2, IODIR = 3 };

static uint64_t entries(uint64_t base)
{
	return 2ull << (base & LOG2SZ_BITS);
}

static uint64_t base_addr(uint64_t reg)
{
	return (reg & PPN_BITS) << 2;
}

/* Sets an ipsr bit; an MSI on its 0-to-1 edge (5.16), unless the vector
 * its icvec field names is masked (msi_vec_ctl bit 0). */
static void pend(struct rvi_model *m, uint32_t bit, unsigned icvec_shift)
{
	if (m->ipsr & bit)
		return;
	m->ipsr |= bit;
	unsigned vector = (unsigned)(m->icvec >> icvec_shift) & 0xf;
	if ((m->msi_cfg[2 * vector + 1] >> 32) & 1)
		return;
	m->msis++;
	if (m->msi)
		m->msi(m->msi_ctx);
}

static void cq_error(struct rvi_model *m, uint32_t bit)
{
	m->cqcsr |= bit;
	if (m->cqcsr & CSR_IE)
		pend(m, IPSR_CIP, 0);
}

/* ---- the fault queue (3.2) ------------------------------------------------ */

void rvim_fault(struct rvi_model *m, unsigned cause, uint32_t did, unsigned ttyp, uint64_t iotval, uint64_t iotval2)
{
	uint32_t n = (uint32_t)entries(m->fqb);
	if (!(m->fqcsr & CSR_ON) || (m->fqcsr & (CSR_MF | FQ_OF))) {
		m->faults_dropped++; /* no queue, or stopped until software clears the error */
		return;
	}
	if (m->fq_full || (m->fqt + 1) % n == m->fqh) {
		m->fqcsr |= FQ_OF;
		m->faults_dropped++;
		if (m->fqcsr & CSR_IE)
			pend(m, IPSR_FIP, 4);
		return;
	}
	if (!base_addr(m->fqb)) {
		m->fqcsr |= CSR_MF;
		m->faults_dropped++;
		if (m->fqcsr & CSR_IE)
			pend(m, IPSR_FIP, 4);
		return;
	}
	volatile uint64_t *r = (volatile uint64_t *)(uintptr_t)(base_addr(m->fqb) + 32ull * m->fqt);
	/* the device id and transaction type are 0 for a fault no transaction caused */
	r[0] = (cause & 0xfffu) | (ttyp ? (uint64_t)(ttyp & 0x3f) << 34 | (uint64_t)(did & 0xffffff) << 40 : 0);
	r[1] = 0;
	r[2] = iotval;
	r[3] = iotval2;
	m->fqt = (m->fqt + 1) % n;
	m->faults_recorded++;
	if (m->fqcsr & CSR_IE)
		pend(m, IPSR_FIP, 4);
}

/* ---- the command queue (3.1) ---------------------------------------------- */

enum outcome { DONE, ILLEGAL, STALLED };

/* One command: done, or the queue stops at it (cqh stays on it): illegal,
 * or stalled with its error bit already set (or none, for a fence that
 * never completes). */
static enum outcome execute(struct rvi_model *m, uint64_t d0, uint64_t d1)
{
	unsigned op = d0 & 0x7f, func = (d0 >> 7) & 7;
	bool av = (d0 >> 10) & 1;
	switch (op) {
	case IOTINVAL: {
		/* 11, NL (34: no non-leaf capability), 43:35 and 63:60 reserved;
		 * dw1's 8:0, S (9: no range capability) and 63:62; GVMA has no PSCV */
		bool pscv = (d0 >> 32) & 1, gv = (d0 >> 33) & 1;
		if (func > 1 || (d0 & (1ull << 11 | 1ull << 34 | 0x1ffull << 35 | 0xfull << 60)) ||
		    (d1 & (0x3ffull | 3ull << 62)) || (func == 1 && pscv))
			return ILLEGAL;
		uint64_t addr = (d1 >> 10) << 12;
		uint16_t gscid = (uint16_t)(d0 >> 44);
		if (func == 0)
			rvim_inval_vma(m, gv, gscid, pscv, (uint32_t)(d0 >> 12) & 0xfffff, av, addr);
		else
			rvim_inval_gvma(m, gv, gscid, av, addr);
		break;
	}
	case IOFENCE: {
		/* WSI (11) needs wired interrupts, which this unit lacks; 31:14
		 * and dw1's 63:62 reserved */
		if (func != 0 || (d0 & (1ull << 11 | 0x3ffffull << 14)) || (d1 >> 62))
			return ILLEGAL;
		if (m->fence_stuck)
			return STALLED; /* never completes: cqh stays on it, nothing stored */
		if (av) {
			uint64_t addr = d1 << 2;
			if (!addr) {
				cq_error(m, CSR_MF);
				return STALLED;
			}
			*(volatile uint32_t *)(uintptr_t)addr = (uint32_t)(d0 >> 32);
			m->fences_stored++;
		}
		break;
	}
	case IODIR: {
		/* 11:10, 32 and 39:34 reserved, dw1 reserved; INVAL_DDT has no PID */
		bool dv = (d0 >> 33) & 1;
		if (func > 1 || (d0 & (3ull << 10 | 1ull << 32 | 0x3full << 34)) || d1 ||
		    (func == 0 && ((d0 >> 12) & 0xfffff)))
			return ILLEGAL;
		if (func == 0)
			rvim_inval_ddt(m, dv, (uint32_t)(d0 >> 40));
		break; /* INVAL_PDT: no process directories here */
	}
	default: /* ATS.* without capabilities.ATS, and undefined opcodes */
		return ILLEGAL;
	}
	m->commands++;
	return DONE;
}

/* Runs what lies between cqh and cqt, synchronously (the spec lets the
 * unit fetch at any time; the model does it at the cqt write, and when
 * the queue is turned on or an error cleared). */
static void cq_run(struct rvi_model *m)
{
	uint32_t n = (uint32_t)entries(m->cqb);
	while ((m->cqcsr & CSR_ON) && !(m->cqcsr & CQ_ERRORS) && m->cqh != m->cqt) {
		uint64_t a = base_addr(m->cqb) + 16ull * m->cqh;
		if (!base_addr(m->cqb)) {
			cq_error(m, CSR_MF);
			return;
		}
		const volatile uint64_t *c = (const volatile uint64_t *)(uintptr_t)a;
		enum outcome o = execute(m, c[0], c[1]);
		if (o != DONE) {
			if (o == ILLEGAL)
				cq_error(m, CQ_CMD_ILL);
			return;
		}
		m->cqh = (m->cqh + 1) % n;
	}
}

/* ---- the registers (chapter 5) -------------------------------------------- */

static bool mode_translates(unsigned mode)
{
	return mode >= 2 && mode <= 4;
}

static void write_ddtp(struct rvi_model *m, uint64_t v)
{
	if (m->ddtp_busy) {
		m->ddtp |= DDTP_BUSY; /* never completes: the mode stays as it was */
		return;
	}
	unsigned old = m->ddtp & 0xf, mode = v & 0xf;
	if (mode > 4)
		return; /* reserved and custom modes: WARL, the write ignored */
	/* what 5.4 leaves UNSPECIFIED: counted, then done */
	if (mode_translates(mode) && old != 0 && old != 1)
		m->protocol_errors++;
	if (mode == 1 && old != 0 && old != 1)
		m->protocol_errors++;
	if (mode == 0 && mode_translates(old) && (v & PPN_BITS) != (m->ddtp & PPN_BITS))
		m->protocol_errors++;
	m->ddtp = (v & PPN_BITS) | mode;
}

static void write_cqcsr(struct rvi_model *m, uint32_t v)
{
	m->cqcsr &= ~(v & CQ_W1C);
	if ((v & CSR_EN) && !(m->cqcsr & CSR_EN)) {
		m->cqh = 0; /* 0 to 1: cqh and the error bits cleared */
		m->cqcsr &= ~CQ_W1C;
	}
	m->cqcsr = (m->cqcsr & ~(CSR_EN | CSR_IE | CSR_ON)) | (v & (CSR_EN | CSR_IE)) | ((v & CSR_EN) ? CSR_ON : 0);
	cq_run(m);
}

static void write_fqcsr(struct rvi_model *m, uint32_t v)
{
	m->fqcsr &= ~(v & FQ_W1C);
	if ((v & CSR_EN) && !(m->fqcsr & CSR_EN)) {
		m->fqt = 0; /* 0 to 1: fqt, fqof and fqmf cleared */
		m->fqcsr &= ~FQ_W1C;
	}
	m->fqcsr = (m->fqcsr & ~(CSR_EN | CSR_IE | CSR_ON)) | (v & (CSR_EN | CSR_IE)) | ((v & CSR_EN) ? CSR_ON : 0);
}

/* Each register: where it lives, its width, the bits software may write
 * (the rest of a write to them is counted in reserved_writes). */
static const struct reg {
	uint64_t off;
	unsigned size;
	size_t field;
	uint64_t bits;
} regs[] = {
	{ CAPABILITIES, 8, offsetof(struct rvi_model, caps), 0 },
	{ FCTL, 4, 0, 7 }, /* BE, WSI, GXL: each WARL with the one value 0 here */
	{ DDTP, 8, offsetof(struct rvi_model, ddtp), PPN_BITS | 0xf | DDTP_BUSY },
	{ CQB, 8, offsetof(struct rvi_model, cqb), PPN_BITS | LOG2SZ_BITS },
	{ CQH, 4, offsetof(struct rvi_model, cqh), 0 },
	{ CQT, 4, offsetof(struct rvi_model, cqt), 0xffffffffu },
	{ FQB, 8, offsetof(struct rvi_model, fqb), PPN_BITS | LOG2SZ_BITS },
	{ FQH, 4, offsetof(struct rvi_model, fqh), 0xffffffffu },
	{ FQT, 4, offsetof(struct rvi_model, fqt), 0 },
	{ CQCSR, 4, offsetof(struct rvi_model, cqcsr), CSR_EN | CSR_IE | CQ_W1C | CSR_ON | CSR_BUSY },
	{ FQCSR, 4, offsetof(struct rvi_model, fqcsr), CSR_EN | CSR_IE | FQ_W1C | CSR_ON | CSR_BUSY },
	{ IPSR, 4, offsetof(struct rvi_model, ipsr), IPSR_BITS },
	{ ICVEC, 8, offsetof(struct rvi_model, icvec), 0xffff },
};

static const struct reg *find(uint64_t off, unsigned *index)
{
	if (off >= MSI_CFG_TBL && off < MSI_CFG_END) {
		static const struct reg cfg = { MSI_CFG_TBL, 8, offsetof(struct rvi_model, msi_cfg), 0 };
		*index = (unsigned)((off - MSI_CFG_TBL) >> 3);
		return &cfg;
	}
	*index = 0;
	for (size_t i = 0; i < ARRAY_SIZE(regs); i++)
		if (off >= regs[i].off && off < regs[i].off + regs[i].size)
			return &regs[i];
	return NULL;
}

/* msi_addr: 55:2 (1:0 zero); msi_data 31:0 and msi_vec_ctl's M (bit 0 of
 * the upper word) */
static uint64_t cfg_bits(unsigned index)
{
	return index & 1 ? 0x00000001ffffffffull : 0x00fffffffffffffcull;
}

static uint64_t load(struct rvi_model *m, const struct reg *r, unsigned index)
{
	if (r->off == FCTL)
		return 0;
	const char *p = (const char *)m + r->field;
	if (r->off == MSI_CFG_TBL)
		return m->msi_cfg[index];
	return r->size == 8 ? *(const uint64_t *)p : *(const uint32_t *)p;
}

static bool good_width(struct rvi_model *m, const struct reg *r, uint64_t off, unsigned width)
{
	bool ok = r && (width == 4 || (width == 8 && r->size == 8)) && !(off & (width - 1));
	m->bad_width += !ok && r;
	return ok;
}

static uint64_t model_read(void *ctx, uint64_t off, unsigned width)
{
	struct rvi_model *m = ctx;
	if (m->all_ones)
		return width == 8 ? ~0ull : (1ull << (8 * width)) - 1;
	unsigned index;
	const struct reg *r = find(off, &index);
	if (!r)
		return 0; /* reserved, or a capability this unit lacks (HPM, debug, PRI): reads 0 */
	if (!good_width(m, r, off, width))
		return 0;
	uint64_t v = load(m, r, index);
	return width == 8 || r->size == 4 ? v : (uint32_t)(v >> (8 * (off & 4)));
}

/* `v` is the whole register after the write; `written` the bits the
 * access covered. */
static void store(struct rvi_model *m, const struct reg *r, unsigned index, uint64_t v, uint64_t written)
{
	uint64_t bits = r->off == MSI_CFG_TBL ? cfg_bits(index) : r->bits;
	if (v & written & ~bits)
		m->reserved_writes++;
	v &= bits;
	switch (r->off) {
	case CAPABILITIES:
	case CQH:
	case FQT:
		m->reserved_writes++; /* read-only */
		return;
	case FCTL:
		return;
	case DDTP:
		write_ddtp(m, v);
		return;
	case CQB:
	case FQB: {
		bool cq = r->off == CQB;
		if ((cq ? m->cqcsr : m->fqcsr) & CSR_ON)
			m->protocol_errors++; /* moved under a queue that is on (5.5, 5.8) */
		*(cq ? &m->cqb : &m->fqb) = v;
		*(cq ? &m->cqt : &m->fqh) = 0;
		return;
	}
	case CQT:
	case FQH: {
		uint64_t n = entries(r->off == CQT ? m->cqb : m->fqb);
		m->reserved_writes += v >= n; /* only LOG2SZ-1:0 are writable */
		*(r->off == CQT ? &m->cqt : &m->fqh) = (uint32_t)(v & (n - 1));
		if (r->off == CQT)
			cq_run(m);
		return;
	}
	case CQCSR:
		write_cqcsr(m, (uint32_t)v);
		return;
	case FQCSR:
		write_fqcsr(m, (uint32_t)v);
		return;
	case IPSR:
		m->ipsr &= ~(uint32_t)v;
		return;
	case ICVEC:
		m->icvec = v;
		return;
	case MSI_CFG_TBL:
		m->msi_cfg[index] = v;
		return;
	}
}

static void model_write(void *ctx, uint64_t off, unsigned width, uint64_t v)
{
	struct rvi_model *m = ctx;
	unsigned index;
	const struct reg *r = find(off, &index);
	if (!r) {
		m->reserved_writes++;
		return;
	}
	if (!good_width(m, r, off, width))
		return;
	uint64_t written = ~0ull;
	if (width == 4 && r->size == 8) {
		unsigned shift = 8 * (unsigned)(off & 4);
		written = 0xffffffffull << shift;
		v = (load(m, r, index) & ~written) | ((v & 0xffffffffull) << shift);
	} else if (r->size == 4) {
		written = 0xffffffffull;
		v &= written;
	}
	store(m, r, index, v, written);
}

static const struct regwin_model_ops ops = { model_read, model_write };

void rvim_init(struct rvi_model *m)
{
	memset(m, 0, sizeof(*m));
	m->caps = CAPS;
	regwin_init_model(&m->win, "riscv-iommu-model", RVIM_WINDOW, false, &ops, m);
}

void rvim_offer_stages(struct rvi_model *m, bool s, bool g)
{
	m->caps &= ~(STAGE_S | STAGE_G);
	m->caps |= (s ? STAGE_S : 0) | (g ? STAGE_G : 0);
}

/* ---- the faults `model` injects, and the kinds ---------------------------- */

static void inject_fence_stuck(void *m)
{
	((struct rvi_model *)m)->fence_stuck = true;
}

static void inject_fq_full(void *m)
{
	((struct rvi_model *)m)->fq_full = true;
}

static void inject_ddtp_busy(void *m)
{
	((struct rvi_model *)m)->ddtp_busy = true;
}

/* The engine's requests carry its device number with bus 0, as QEMU
 * 10.0.2's riscv-iommu-pci gives a function behind a bridge or root port
 * (the bus number taken before the firmware numbered the bus). */
static void inject_bus_zero(void *m)
{
	((struct rvi_model *)m)->engine_did &= 0xff;
}

/* The codes assume a take-over that waits on one IOFENCE.C and writes
 * ddtp once the directory is built. */
const struct model_fault rvim_faults[] = {
	{ "fence-stuck", "IOFENCE.C never completes: cqh stays on it, nothing stored", NULL, inject_fence_stuck,
	  IOMMU_ERR_TIMEOUT, IOMMU_OK },
	{ "fault-queue-full", "every fault record finds the fault queue full: fqof, records dropped", NULL,
	  inject_fq_full, IOMMU_OK, IOMMU_OK },
	{ "ddtp-busy", "a ddtp write never completes: busy stays set, the mode unchanged", NULL, inject_ddtp_busy,
	  IOMMU_ERR_TIMEOUT, IOMMU_OK },
	{ "bus-zero", "the engine's DMA carries device id 00:dd.f, its bus taken as 0", NULL, inject_bus_zero, IOMMU_OK,
	  IOMMU_OK },
	{ NULL },
};

/* riscv-g: a unit that offers the G stage alone (no Sv39/48/57), as
 * QEMU's riscv-iommu-pci with s-stage=off */
const char *const rvim_kind_names[] = { "riscv", "riscv-g", NULL };
