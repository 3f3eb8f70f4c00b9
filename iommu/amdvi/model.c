/* The AMD-Vi model's registers, command buffer and event log (see
 * amdvi_model.h); the device table and the walk are in amdvi_model_walk.c.
 * Offsets and bits from the AMD IOMMU specification (pub. 48882), section
 * 3.4 (MMIO registers), 2.4 (commands) and 2.5 (event log).
 * Its own reading of the spec, on purpose: never include the AMD-Vi
 * driver's register header here (amdvi_model.h says why).
 * The faults `model` injects are at the end; its family (what `model
 * amdvi` attaches) is in backend.c. */
#include "model.h"

#include <stddef.h>
#include <string.h>

#include "core/base/macros.h"
#include "iommu/models/models.h"

/* MMIO offsets (3.4) */
#define DEV_TAB_BASE 0x0000
#define CMD_BUF_BASE 0x0008
#define EVENT_LOG_BASE 0x0010
#define CONTROL 0x0018
#define EXCL_BASE 0x0020
#define EXCL_LIMIT 0x0028
#define EXT_FEATURE 0x0030
#define CMD_BUF_HEAD 0x2000
#define CMD_BUF_TAIL 0x2008
#define EVENT_LOG_HEAD 0x2010
#define EVENT_LOG_TAIL 0x2018
#define STATUS 0x2020

/* Control (3.4.4) */
#define IOMMU_EN (1ull << 0)
#define EVENT_LOG_EN (1ull << 2)
#define EVENT_INT_EN (1ull << 3)
#define COM_WAIT_INT_EN (1ull << 4)
#define CMD_BUF_EN (1ull << 12)
/* IommuEn, HtTunEn, EventLogEn, EventIntEn, ComWaitIntEn, InvTimeOut,
 * PassPW, ResPassPW, Coherent, Isoc, CmdBufEn: the bits this unit has
 * (the PPR, GT, GA, SMI-filter and later bits need EFR features it lacks). */
#define CONTROL_BITS 0x1fffull
#define GA_EN (1ull << 17)
#define XT_EN (1ull << 50)
#define EFR_XT_SUP (1ull << 2)
#define EFR_GA_SUP (1ull << 7)

/* Status (3.4.11): three RW1C bits, two read-only */
#define EVENT_OVERFLOW (1ull << 0)
#define EVENT_LOG_INT (1ull << 1)
#define COM_WAIT_INT (1ull << 2)
#define EVENT_LOG_RUN (1ull << 3)
#define CMD_BUF_RUN (1ull << 4)
#define STATUS_W1C (EVENT_OVERFLOW | EVENT_LOG_INT | COM_WAIT_INT)

/* The base registers: base in 51:12; the rings' length, log2 of the
 * entries, in 59:56 (values below 1000b reserved); the device table's
 * size in 4 KiB pages minus one in 8:0. */
#define BASE_MASK 0x000ffffffffff000ull
#define RING_LEN(r) ((unsigned)((r) >> 56) & 0xf)
#define RING_BITS (BASE_MASK | 0xfull << 56)
#define DEV_TAB_BITS (BASE_MASK | 0x1ffull)
#define EXCL_BASE_BITS (BASE_MASK | 3ull) /* ExEn, Allow */
#define PTR_BITS 0x7fff0ull		  /* head and tail: byte offsets, bits 18:4 */

/* Command opcodes (2.4), in bits 31:28 of the second dword */
enum {
	COMPLETION_WAIT = 0x1,
	INVALIDATE_DEVTAB_ENTRY = 0x2,
	INVALIDATE_IOMMU_PAGES = 0x3,
	INVALIDATE_IOTLB_PAGES = 0x4,
	INVALIDATE_INTERRUPT_TABLE = 0x5,
	INVALIDATE_IOMMU_ALL = 0x8,
};

static uint64_t ring_bytes(uint64_t base)
{
	return 16ull << RING_LEN(base);
}

static bool running(const struct amdvi_model *m, uint64_t en)
{
	return (m->control & IOMMU_EN) && (m->control & en);
}

/* CmdBufRun and EventLogRun follow their enables and IommuEn, and stay
 * off after an error or an overflow until software clears the enable. */
static void update_run(struct amdvi_model *m)
{
	m->status &= ~(CMD_BUF_RUN | EVENT_LOG_RUN);
	if (running(m, CMD_BUF_EN) && !m->cmd_halted)
		m->status |= CMD_BUF_RUN;
	if (running(m, EVENT_LOG_EN) && !m->evt_stopped)
		m->status |= EVENT_LOG_RUN;
}

static void interrupt(struct amdvi_model *m)
{
	m->msis++;
	if (m->msi)
		m->msi(m->msi_ctx);
}

/* ---- the event log (2.5) ---------------------------------------------------- */

void amdvim_log_event(struct amdvi_model *m, uint32_t dw0, uint32_t dw1, uint64_t addr)
{
	if (!(m->status & EVENT_LOG_RUN) || (m->status & EVENT_OVERFLOW)) {
		m->events_dropped++;
		return;
	}
	uint64_t size = ring_bytes(m->evtlog), next = (m->evt_tail + 16) % size;
	if (m->log_full || next == m->evt_head) {
		/* no usable entry: the event is discarded, logging stops (3.4.11) */
		m->status |= EVENT_OVERFLOW;
		m->evt_stopped = true;
		update_run(m);
		m->events_dropped++;
		if (m->control & EVENT_INT_EN)
			interrupt(m);
		return;
	}
	volatile uint32_t *e = (volatile uint32_t *)(uintptr_t)((m->evtlog & BASE_MASK) + m->evt_tail);
	e[0] = dw0;
	e[1] = dw1;
	e[2] = (uint32_t)addr;
	e[3] = (uint32_t)(addr >> 32);
	m->evt_tail = next;
	m->events++;
	m->status |= EVENT_LOG_INT;
	if (m->control & EVENT_INT_EN)
		interrupt(m);
}

/* ---- the command buffer (2.4) ----------------------------------------------- */

/* Stops the buffer at the command at `head` with `code` (2.4: the head
 * stays on the command; CmdBufRun reads 0 until CmdBufEn is cleared and
 * set again). */
static void halt(struct amdvi_model *m, enum amdvim_event code, uint64_t cmd_addr)
{
	amdvim_log_event(m, 0, (uint32_t)code << 28, cmd_addr);
	m->cmd_halted = true;
	update_run(m);
}

/* The range an S=1 address encodes (2.4.3): the lowest zero bit at or
 * above bit 12 gives the size; all ones up to bit 62 is everything. */
static void encoded_range(uint64_t addr, uint64_t *first, uint64_t *size)
{
	unsigned ones = (unsigned)__builtin_ctzll(~(addr >> 12) | (1ull << 51));
	if (ones >= 51) {
		*first = 0, *size = ~0ull;
		return;
	}
	*size = 1ull << (13 + ones);
	*first = addr & ~(*size - 1);
}

/* One command; false when it stops the buffer (the head stays on it). */
static bool execute(struct amdvi_model *m, const volatile uint32_t *c, uint64_t addr)
{
	uint32_t d0 = c[0], d1 = c[1], d2 = c[2], d3 = c[3];
	unsigned op = d1 >> 28;
	bool legal = !m->illegal_next;
	m->illegal_next = false;
	switch (legal ? op : 0) {
	case COMPLETION_WAIT: {
		if (d1 & 0x0ff00000u) {
			legal = false;
			break;
		}
		if (m->cwait_stuck)
			return false; /* never completes: the head stays, CmdBufRun stays 1 */
		uint64_t store = (uint64_t)(d1 & 0xfffffu) << 32 | (d0 & ~7u);
		if (d0 & 1) { /* S: store the data */
			if (!store) {
				halt(m, AMDVIM_EV_COMMAND_HARDWARE_ERROR, addr);
				return false;
			}
			*(volatile uint64_t *)(uintptr_t)store = (uint64_t)d3 << 32 | d2;
			m->waits_stored++;
		}
		if (d0 & 2) { /* I: ComWaitInt, an interrupt only when enabled */
			m->status |= COM_WAIT_INT;
			if (m->control & COM_WAIT_INT_EN)
				interrupt(m);
		}
		break;
	}
	case INVALIDATE_DEVTAB_ENTRY:
		legal = !(d0 >> 16) && !(d1 & 0x0fffffffu) && !d2 && !d3;
		if (legal)
			amdvim_drop_dte(m, false, (uint16_t)d0), m->dte_invalidations++;
		break;
	case INVALIDATE_IOMMU_PAGES: {
		/* PASID and GN need guest translation (EFR.GTSup=0 here) */
		legal = !d0 && !(d1 & 0x0fff0000u) && !(d2 & 0xffcu);
		if (!legal)
			break;
		uint64_t a = (uint64_t)d3 << 32 | (d2 & ~0xfffu), first = a, size = 4096;
		if (d2 & 1)
			encoded_range(a, &first, &size);
		amdvim_drop_pages(m, false, (uint16_t)d1, first, size);
		m->page_invalidations++;
		break;
	}
	case INVALIDATE_IOTLB_PAGES:
		break; /* devices' own IOTLBs (ATS): the model's engine has none */
	case INVALIDATE_INTERRUPT_TABLE:
		legal = !(d0 >> 16) && !(d1 & 0x0fffffffu) && !d2 && !d3;
		if (legal)
			amdvim_drop_irt(m, false, (uint16_t)d0), m->irt_invalidations++;
		break;
	case INVALIDATE_IOMMU_ALL:
		legal = !d0 && !(d1 & 0x0fffffffu) && !d2 && !d3;
		if (legal) {
			amdvim_drop_dte(m, true, 0);
			amdvim_drop_irt(m, true, 0);
			amdvim_drop_pages(m, true, 0, 0, 0);
			m->all_invalidations++;
		}
		break;
	default: /* 0, PREFETCH and COMPLETE_PPR without their EFR bits, and beyond */
		legal = false;
	}
	if (!legal) {
		halt(m, AMDVIM_EV_ILLEGAL_COMMAND_ERROR, addr);
		return false;
	}
	m->commands++;
	return true;
}

/* Runs what lies between head and tail, synchronously (the spec lets the
 * unit fetch at any time; the model does it at the tail write). */
static void cmd_run(struct amdvi_model *m)
{
	uint64_t size = ring_bytes(m->cmdbuf);
	while ((m->status & CMD_BUF_RUN) && m->cmd_head != m->cmd_tail) {
		uint64_t addr = (m->cmdbuf & BASE_MASK) + m->cmd_head;
		if (!(m->cmdbuf & BASE_MASK)) {
			halt(m, AMDVIM_EV_COMMAND_HARDWARE_ERROR, addr);
			return;
		}
		if (!execute(m, (const volatile uint32_t *)(uintptr_t)addr, addr))
			return;
		m->cmd_head = (m->cmd_head + 16) % size; /* wraps to 0 */
	}
}

/* ---- the registers (3.4) ---------------------------------------------------- */

static void write_control(struct amdvi_model *m, uint64_t v)
{
	uint64_t was = m->control;
	if ((v & IOMMU_EN) && !(was & IOMMU_EN) && !(m->devtab & BASE_MASK))
		m->protocol_errors++; /* enabled with no device table */
	if ((v & EVENT_LOG_EN) && !(was & EVENT_LOG_EN) && !(m->evtlog & BASE_MASK))
		m->protocol_errors++;
	m->control = v & (CONTROL_BITS | (m->xt ? GA_EN | XT_EN : 0));
	if (!(v & CMD_BUF_EN))
		m->cmd_halted = false;
	if (!(v & EVENT_LOG_EN))
		m->evt_stopped = false;
	update_run(m);
	cmd_run(m); /* commands written before the enables run now */
}

/* The registers the unit has, and the bits software may set in each. */
static const struct {
	uint64_t off;
	size_t field;
	uint64_t bits;
} regs[] = {
	{ DEV_TAB_BASE, offsetof(struct amdvi_model, devtab), DEV_TAB_BITS },
	{ CMD_BUF_BASE, offsetof(struct amdvi_model, cmdbuf), RING_BITS },
	{ EVENT_LOG_BASE, offsetof(struct amdvi_model, evtlog), RING_BITS },
	{ CONTROL, offsetof(struct amdvi_model, control), CONTROL_BITS },
	{ EXCL_BASE, offsetof(struct amdvi_model, excl_base), EXCL_BASE_BITS },
	{ EXCL_LIMIT, offsetof(struct amdvi_model, excl_limit), BASE_MASK | 0xfff }, /* 11:0 read as ones */
	{ CMD_BUF_HEAD, offsetof(struct amdvi_model, cmd_head), PTR_BITS },
	{ CMD_BUF_TAIL, offsetof(struct amdvi_model, cmd_tail), PTR_BITS },
	{ EVENT_LOG_HEAD, offsetof(struct amdvi_model, evt_head), PTR_BITS },
	{ EVENT_LOG_TAIL, offsetof(struct amdvi_model, evt_tail), PTR_BITS },
	{ STATUS, offsetof(struct amdvi_model, status), STATUS_W1C | EVENT_LOG_RUN | CMD_BUF_RUN },
};

static uint64_t *reg(struct amdvi_model *m, uint64_t off, uint64_t *bits)
{
	for (size_t i = 0; i < ARRAY_SIZE(regs); i++)
		if (regs[i].off == off) {
			*bits = regs[i].bits | (off == CONTROL && m->xt ? GA_EN | XT_EN : 0);
			return (uint64_t *)((char *)m + regs[i].field);
		}
	return NULL;
}

/* `v` is the whole register after the write; `written` the bits the
 * access covered (a 4-byte access writes one half). */
static void write_reg(struct amdvi_model *m, uint64_t off, uint64_t v, uint64_t written)
{
	uint64_t bits, *r = reg(m, off, &bits);
	if (!r) {
		m->reserved_writes++; /* EFR, or no register there */
		return;
	}
	if (off == STATUS) {
		m->reserved_writes += (v & written & ~(STATUS_W1C | EVENT_LOG_RUN | CMD_BUF_RUN)) != 0;
		m->status &= ~(v & written & STATUS_W1C); /* the run bits are read-only */
		return;
	}
	if (v & written & ~bits)
		m->reserved_writes++;
	v &= bits;
	switch (off) {
	case CMD_BUF_BASE:
	case EVENT_LOG_BASE:
		/* fewer than 256 entries is reserved; the whole register back
		 * at its reset value (no ring: what a give-back restores when the
		 * firmware left none) is not */
		if ((written & (0xfull << 56)) && RING_LEN(v) < 8 && v != 0)
			m->reserved_writes++;
		if (m->control & (off == CMD_BUF_BASE ? CMD_BUF_EN : EVENT_LOG_EN))
			m->protocol_errors++; /* moved under a ring that is enabled */
		*r = v;
		break;
	case DEV_TAB_BASE:
		if (m->control & IOMMU_EN)
			m->protocol_errors++;
		*r = v;
		break;
	case CONTROL:
		write_control(m, v);
		break;
	case CMD_BUF_HEAD:
		m->protocol_errors += (m->status & CMD_BUF_RUN) != 0;
		*r = v % ring_bytes(m->cmdbuf);
		break;
	case CMD_BUF_TAIL:
		m->reserved_writes += v >= ring_bytes(m->cmdbuf);
		*r = v % ring_bytes(m->cmdbuf);
		cmd_run(m);
		break;
	case EVENT_LOG_HEAD:
		m->reserved_writes += v >= ring_bytes(m->evtlog);
		*r = v % ring_bytes(m->evtlog);
		break;
	case EVENT_LOG_TAIL:
		m->protocol_errors += (m->status & EVENT_LOG_RUN) != 0;
		*r = v % ring_bytes(m->evtlog);
		break;
	default:
		*r = v;
	}
}

/* 4- and 8-byte accesses, aligned to their size (3.4); anything else is
 * counted and does nothing. */
static bool good_width(struct amdvi_model *m, uint64_t off, unsigned width)
{
	if ((width == 4 || width == 8) && !(off & (width - 1)))
		return true;
	m->bad_width++;
	return false;
}

static uint64_t model_read(void *ctx, uint64_t off, unsigned width)
{
	struct amdvi_model *m = ctx;
	if (m->all_ones)
		return width == 8 ? ~0ull : (1ull << (8 * width)) - 1;
	if (!good_width(m, off, width))
		return 0;
	uint64_t bits, *r = reg(m, off & ~7ull, &bits);
	uint64_t efr = AMDVIM_EFR | (m->xt ? EFR_XT_SUP | EFR_GA_SUP : 0);
	uint64_t v = off >> 3 == EXT_FEATURE >> 3 ? efr : r ? *r : 0;
	return width == 8 ? v : (uint32_t)(v >> (8 * (off & 4)));
}

static void model_write(void *ctx, uint64_t off, unsigned width, uint64_t v)
{
	struct amdvi_model *m = ctx;
	if (!good_width(m, off, width))
		return;
	uint64_t base = off & ~7ull, bits, *r = reg(m, base, &bits), cur = r ? *r : 0, written = ~0ull;
	if (width == 4) {
		unsigned shift = 8 * (unsigned)(off & 4);
		written = 0xffffffffull << shift;
		v = (cur & ~written) | ((v & 0xffffffffull) << shift);
	}
	write_reg(m, base, v, written);
}

static const struct regwin_model_ops ops = { model_read, model_write };

void amdvim_init(struct amdvi_model *m)
{
	memset(m, 0, sizeof(*m));
	regwin_init_model(&m->win, "amdvi-model", AMDVIM_WINDOW, false, &ops, m);
}

/* ---- the faults `model` injects, and the kinds ---------------------------- */

static void inject_cwait_stuck(void *m)
{
	((struct amdvi_model *)m)->cwait_stuck = true;
}

static void inject_log_full(void *m)
{
	((struct amdvi_model *)m)->log_full = true;
}

static void inject_illegal(void *m)
{
	((struct amdvi_model *)m)->illegal_next = true;
}

/* The codes assume a take-over that issues no command; a driver whose
 * take-over waits on a COMPLETION_WAIT meets these faults there instead. */
const struct model_fault amdvim_faults[] = {
	{ "completion-wait-stuck", "COMPLETION_WAIT never completes (no store, no ComWaitInt)", NULL,
	  inject_cwait_stuck, IOMMU_ERR_TIMEOUT, IOMMU_OK },
	{ "event-log-overflow", "the event log has no free entry: EventOverflow, events dropped", NULL, inject_log_full,
	  IOMMU_OK, IOMMU_OK },
	{ "illegal-command", "the next command is illegal: ILLEGAL_COMMAND_ERROR, the buffer stops", NULL,
	  inject_illegal, IOMMU_ERR_HARDWARE, IOMMU_OK },
	{ NULL },
};

const char *const amdvim_kind_names[] = { "amdvi", NULL };
