/* IBM Calgary / CalIOC2. Facts: shared/specs/calgary.md (from the Linux
 * driver's history, 2.6.18 to 5.4); [unverified] there stays unverified here.
 * Registers and TCEs by name: calgary_regs.h.
 *
 * Isolation is per PHB: the device under test's PHB gets a TCE table and
 * everything on its buses is translated with it. IOVA = TCE index << 12,
 * from 0. There is no per-entry invalidation: rewriting TAR drops the
 * PHB's whole TCE cache, inside a handshake that quiets the bridge first. */
#include "calgary.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/cpu.h"
#include "core/base/dmabuf.h"
#include "core/base/macros.h"
#include "core/base/memmap.h"
#include "core/base/platform.h"
#include "core/base/timing.h"
#include "core/monitor/settings.h"
#include "iommu/as_found.h"
#include "regs.h"

static uint32_t phb_read(struct calgary *c, unsigned n, uint64_t reg)
{
	return regwin_read32(&c->w, CAL_PHB(n, reg));
}
static void phb_write(struct calgary *c, unsigned n, uint64_t reg, uint32_t v)
{
	regwin_write32(&c->w, CAL_PHB(n, reg), v);
}
static uint64_t tar_read(struct calgary *c, unsigned n)
{
	return regwin_read64(&c->w, CAL_TAR(n));
}
/* TAR's software bits replaced, read back (spec: read-modify-write). */
static void tar_write(struct calgary *c, unsigned n, uint64_t sw)
{
	regwin_write64(&c->w, CAL_TAR(n), cal_tar_replace(tar_read(c, n), sw));
	(void)tar_read(c, n);
}

/* ---- reserved IOVAs ---------------------------------------------------- */

/* A peripheral window: IO addresses from (high << 32 | low) up to its end;
 * reserved only when the end lies above the start (as Linux computed it). */
static bool in_window(struct calgary *c, unsigned n, uint64_t low, uint64_t high, uint64_t limit_high,
		      uint64_t limit_low, uint64_t iova, uint64_t end)
{
	uint64_t start = (uint64_t)phb_read(c, n, high) << 32 | phb_read(c, n, low);
	uint64_t limit = (limit_high ? (uint64_t)phb_read(c, n, limit_high) << 32 : 0) | phb_read(c, n, limit_low);
	uint64_t wend = cal_window_end(limit);
	return wend > start && iova < wend && start < end;
}

bool calgary_iova_reserved(const struct calgary *c, unsigned phb, uint64_t iova, uint64_t size)
{
	struct calgary *cc = (struct calgary *)c;
	uint64_t end = iova + size;
	if (iova < CAL_EMERGENCY_END)
		return true;
	if (iova < CAL_LEGACY_END && end > (c->ioc2 ? 0 : CAL_LEGACY_HOLE))
		return true;
	/* the peripheral windows, never translated (MEM_2 only when enabled) */
	if (in_window(cc, phb, PHB_MEM1_LOW, PHB_MEM1_HIGH, 0, PHB_MEM1_SIZE, iova, end))
		return true;
	return (phb_read(cc, phb, PHB_CONFIG_RW) & CONFIG_MEM2_ENABLE) &&
	       in_window(cc, phb, PHB_MEM2_LOW, PHB_MEM2_HIGH, PHB_MEM2_SIZE_HIGH, PHB_MEM2_SIZE_LOW, iova, end);
}

/* ---- the flush ("blast") ------------------------------------------------ */

static bool splitq_quiet(struct calgary *c, unsigned n)
{
	for (unsigned i = 0; i < CALGARY_SPLITQ_READS; i++)
		if (cal_splitq_quiet(regwin_read64(&c->w, CAL_SPLITQ(n))))
			return true;
	return false;
}

/* Linux warned and went on after a split queue that never quiesced; so
 * does iommon, and names it a timeout. */
static const char *splitq_timeout(struct calgary *c, unsigned n)
{
	static char err[112];
	snprintf(err, sizeof(err), "%s: PHB %u split queue not quiet after %u reads; flushed anyway",
		 c->ioc2 ? "calioc2" : "calgary", n, CALGARY_SPLITQ_READS);
	return iommu_fail(&c->io, IOMMU_ERR_TIMEOUT, err);
}

/* Calgary: arbitration off (AER 0), posted writes pushed (PLSSR), the split
 * queue quiet, TAR rewritten, arbitration back. */
static const char *flush_calgary(struct calgary *c, unsigned n)
{
	uint32_t aer = phb_read(c, n, PHB_AER);
	phb_write(c, n, PHB_AER, 0);
	(void)phb_read(c, n, PHB_PLSSR);
	bool quiet = splitq_quiet(c, n);
	tar_write(c, n, tar_read(c, n));
	phb_write(c, n, PHB_AER, aer);
	(void)phb_read(c, n, PHB_AER);
	return quiet ? NULL : splitq_timeout(c, n);
}

/* CalIOC2 (errata workaround): SoftStop until PMDR reports no
 * SoftStopFault, then PMCR read (which forces HardStop), TAR rewritten in
 * HardStop, PMCR cleared. */
static const char *flush_calioc2(struct calgary *c, unsigned n)
{
	static char err[112];
	bool stopped = false, quiet = false;
	for (unsigned tries = 0; tries < CALGARY_SOFTSTOP_TRIES && !stopped; tries++) {
		phb_write(c, n, PHB_PMCR, phb_read(c, n, PHB_PMCR) | PMCR_SOFTSTOP);
		quiet = splitq_quiet(c, n);
		stopped = !(phb_read(c, n, PHB_PMDR) & PMDR_SOFTSTOPFAULT);
		c->softstop_retries += !stopped;
	}
	if (!stopped) {
		phb_write(c, n, PHB_PMCR, 0);
		(void)phb_read(c, n, PHB_PMCR);
		snprintf(err, sizeof(err), "calioc2: PHB %u reported SoftStopFault %u times: flush abandoned", n,
			 CALGARY_SOFTSTOP_TRIES);
		return iommu_fail(&c->io, IOMMU_ERR_ABANDONED, err);
	}
	(void)phb_read(c, n, PHB_PMCR); /* HardStop */
	(void)phb_read(c, n, PHB_PMDR);
	tar_write(c, n, tar_read(c, n));
	(void)phb_read(c, n, PHB_PMCR);
	phb_write(c, n, PHB_PMCR, 0);
	(void)phb_read(c, n, PHB_PMCR);
	return quiet ? NULL : splitq_timeout(c, n);
}

static const char *op_invalidate(struct iommu *io, size_t kind, uint64_t iova, uint64_t size)
{
	struct calgary *c = container_of(io, struct calgary, io);
	(void)iova, (void)size; /* the whole PHB, always */
	if (kind != 0)
		return iommu_fail(io, IOMMU_ERR_ARGUMENT, "calgary: there is one kind of invalidation, the whole PHB");
	if (c->cur < 0)
		return iommu_fail(io, IOMMU_ERR_STATE, "calgary: no PHB in use");
	return c->ioc2 ? flush_calioc2(c, (unsigned)c->cur) : flush_calgary(c, (unsigned)c->cur);
}

/* ---- errors ------------------------------------------------------------ */

static bool op_fault_pending(struct iommu *io)
{
	struct calgary *c = container_of(io, struct calgary, io);
	return c->cur >= 0 && cal_csr_error(phb_read(c, (unsigned)c->cur, PHB_CSR));
}

/* The dump registers, as Linux printed them: for the first errors of a
 * take-over only (a test that faults on purpose makes many). */
static void dump(struct calgary *c, unsigned n, uint32_t csr)
{
	printf("    %s PHB %u error: CSR 0x%08x (agent %u) PLSSR 0x%08x", c->io.name, n, csr, cal_csr_agent(csr),
	       phb_read(c, n, PHB_PLSSR));
	if (c->ioc2) {
		printf(" CSMR 0x%08x MCK 0x%08x", phb_read(c, n, PHB_CSMR), phb_read(c, n, PHB_MCK));
		for (unsigned i = 0; i < PHB_ERR_REGS; i++)
			printf(" ERR%u 0x%08x", i, phb_read(c, n, PHB_ERR(i)));
		printf(" RCSTAT 0x%08x", phb_read(c, n, PHB_RCSTAT));
	}
	printf("%s\n", c->dumps == 2 ? " (further dumps not shown)" : "");
}

/* CSR, with the dump registers, cleared; optionally the PHB fenced. */
static size_t op_faults(struct iommu *io, struct iommu_fault *out, size_t max, bool *overflow)
{
	struct calgary *c = container_of(io, struct calgary, io);
	*overflow = false;
	if (!op_fault_pending(io))
		return 0;
	unsigned n = (unsigned)c->cur;
	uint32_t csr = phb_read(c, n, PHB_CSR);
	if (c->dumps++ < 2)
		dump(c, n, csr);
	phb_write(c, n, PHB_CSR, 0);
	if (c->fence) {
		phb_write(c, n, PHB_CONFIG_RW, phb_read(c, n, PHB_CONFIG_RW) | CONFIG_SLOT_DISABLE);
		printf("    %s PHB %u fenced (SLOT_DISABLE)\n", io->name, n);
	}
	if (max == 0) {
		*overflow = true;
		return 0;
	}
	out[0] = (struct iommu_fault){ .kind = IOMMU_FAULT_OTHER,
				       .reason = csr,
				       .why = "CSR error bit (the CSR names the agent, not the address)",
				       .t_seen = rdtsc() };
	return 1;
}

/* ---- tables ------------------------------------------------------------ */

static void put_tce(struct calgary *c, unsigned n, uint64_t index, uint64_t tce)
{
	uint64_t *e = &c->phb[n].table[index];
	*e = __builtin_bswap64(tce); /* big-endian in memory */
	cache_flush(e, 8);	     /* the TCE fetch does not snoop; a TCE never crosses a line */
}

static bool in_table(const struct calgary_phb *p, uint64_t iova, uint64_t size)
{
	return iova <= p->entries * TCE_PAGE && size <= p->entries * TCE_PAGE - iova;
}

static const char *op_map(struct iommu *io, uint64_t iova, uint64_t phys, uint64_t size, unsigned perm, uint64_t page)
{
	struct calgary *c = container_of(io, struct calgary, io);
	if (c->cur < 0)
		return iommu_fail(io, IOMMU_ERR_STATE, "calgary: no device under test");
	struct calgary_phb *p = &c->phb[c->cur];
	if (page != TCE_PAGE)
		return iommu_fail(io, IOMMU_ERR_UNSUPPORTED, "calgary: TCEs map 4 KiB pages only");
	if ((iova | phys | size) & (TCE_PAGE - 1) || !size)
		return iommu_fail(io, IOMMU_ERR_ARGUMENT, "calgary: address or size not 4 KiB aligned");
	if (!in_table(p, iova, size))
		return iommu_fail(io, IOMMU_ERR_ARGUMENT, "calgary: IOVA beyond the TCE table");
	if (calgary_iova_reserved(c, (unsigned)c->cur, iova, size))
		return iommu_fail(io, IOMMU_ERR_ARGUMENT,
				  "calgary: IOVA in a reserved range (page 0, emergency pages, legacy hole, "
				  "peripheral window)");
	if (!(perm & IOMMU_RW))
		return iommu_fail(io, IOMMU_ERR_ARGUMENT, "calgary: a TCE needs read or write permission");
	if ((phys + size - 1) & ~(TCE_RPN | (TCE_PAGE - 1)))
		return iommu_fail(io, IOMMU_ERR_ARGUMENT, "calgary: physical address beyond the TCE's reach (48 bits)");
	for (uint64_t off = 0; off < size; off += TCE_PAGE)
		put_tce(c, (unsigned)c->cur, (iova + off) >> TCE_PAGE_SHIFT,
			cal_tce(phys + off, perm & IOMMU_R, perm & IOMMU_W));
	return NULL;
}

static const char *op_unmap(struct iommu *io, uint64_t iova, uint64_t size)
{
	struct calgary *c = container_of(io, struct calgary, io);
	if (c->cur < 0)
		return iommu_fail(io, IOMMU_ERR_STATE, "calgary: no device under test");
	if ((iova | size) & (TCE_PAGE - 1) || !in_table(&c->phb[c->cur], iova, size))
		return iommu_fail(io, IOMMU_ERR_ARGUMENT, "calgary: unmap outside the TCE table or not 4 KiB aligned");
	for (uint64_t off = 0; off < size; off += TCE_PAGE)
		put_tce(c, (unsigned)c->cur, (iova + off) >> TCE_PAGE_SHIFT, 0);
	return NULL;
}

/* The TCE the PHB would fetch for `iova`, read as the bridge reads it. */
static bool op_iova_to_phys(struct iommu *io, uint64_t iova, uint64_t *phys, unsigned *perm, uint64_t *page)
{
	struct calgary *c = container_of(io, struct calgary, io);
	if (c->cur < 0 || !c->phb[c->cur].table || !in_table(&c->phb[c->cur], iova, 1))
		return false;
	uint64_t tce = __builtin_bswap64(c->phb[c->cur].table[iova >> TCE_PAGE_SHIFT]);
	if (!(tce & (TCE_READ | TCE_WRITE)))
		return false;
	*phys = cal_tce_phys(tce) | (iova & (TCE_PAGE - 1));
	*perm = (tce & TCE_READ ? IOMMU_R : 0) | (tce & TCE_WRITE ? IOMMU_W : 0);
	*page = TCE_PAGE;
	return true;
}

/* ---- take over, attach, give back -------------------------------------- */

int calgary_phb_of(const struct calgary *c, uint8_t bus)
{
	for (unsigned n = 0; n < CALGARY_PHBS; n++)
		if (bus >= c->phb[n].start_bus && bus <= c->phb[n].end_bus)
			return (int)n;
	return -1;
}

static const char *all_ones(struct calgary *c)
{
	return iommu_fail(&c->io, IOMMU_ERR_UNUSABLE,
			  "calgary: the register window reads all ones (nothing answers at the BBAR)");
}

static const char *op_take(struct iommu *io)
{
	struct calgary *c = container_of(io, struct calgary, io);
	if (io->taken)
		return NULL;
	if (phb_read(c, 0, PHB_CONFIG_RW) == CAL_ALL_ONES)
		return all_ones(c);
	for (unsigned n = 0; n < CALGARY_PHBS; n++) {
		struct calgary_phb *p = &c->phb[n];
		p->found_tar = tar_read(c, n);
		p->found_config = phb_read(c, n, PHB_CONFIG_RW);
		p->found_savior = c->ioc2 ? phb_read(c, n, PHB_SAVIOR) : 0;
		p->used = false;
	}
	c->found_valid = true;
	for (unsigned n = 0; n < CALGARY_PHBS; n++) {
		if (c->phb[n].found_config & CONFIG_TCE_ENABLE) {
			static char why[96];
			snprintf(why, sizeof(why), "calgary: PHB %u already translates (TCE_ENABLE): not taken over",
				 n);
			return iommu_fail(io, IOMMU_ERR_FIRMWARE, why);
		}
	}
	c->cur = -1;
	c->dumps = 0;
	io->taken = true;
	return NULL;
}

/* Translation off: our bits, a fence we may have put up and TAR as found. */
static void phb_disable(struct calgary *c, unsigned n)
{
	struct calgary_phb *p = &c->phb[n];
	uint32_t ours = CONFIG_TRANSLATE | CONFIG_SLOT_DISABLE;
	phb_write(c, n, PHB_CONFIG_RW, (phb_read(c, n, PHB_CONFIG_RW) & ~ours) | (p->found_config & ours));
	(void)phb_read(c, n, PHB_CONFIG_RW);
	tar_write(c, n, p->found_tar);
	if (c->ioc2 && p->used)
		phb_write(c, n, PHB_SAVIOR, p->found_savior);
	if (p->table)
		platform->free_pages(p->table, (size_t)(p->entries * 8 / TCE_PAGE));
	p->table = NULL;
	p->used = false;
}

/* The device's PHB gets a zeroed table, TAR, and translation on (spec:
 * "Enabling translation on a PHB"). */
static const char *op_attach(struct iommu *io, struct pci_addr dev, enum iommu_mode mode)
{
	struct calgary *c = container_of(io, struct calgary, io);
	if (!io->taken)
		return iommu_fail(io, IOMMU_ERR_STATE, "calgary: not taken over");
	if (mode == IOMMU_PASSTHROUGH)
		return iommu_fail(io, IOMMU_ERR_UNSUPPORTED,
				  "calgary: no pass-through for one device: translation is per PHB (turn it off "
				  "instead)");
	int n = calgary_phb_of(c, dev.bus);
	if (n < 0)
		return iommu_fail(io, IOMMU_ERR_ARGUMENT, "calgary: the device is on no PHB's buses");
	if (c->cur == n && c->phb[n].table)
		return NULL;
	if (c->cur >= 0)
		phb_disable(c, (unsigned)c->cur);
	c->cur = -1; /* until this PHB is ready */
	struct calgary_phb *p = &c->phb[n];
	p->entries = cal_tce_entries(c->size_code);
	size_t pages = (size_t)(p->entries * 8 / TCE_PAGE);
	/* aligned to its own size and below 4 GiB, as Linux placed it */
	p->table = pages_alloc_aligned(pages, pages * TCE_PAGE, 1ull << 32);
	if (!p->table)
		return iommu_fail(io, IOMMU_ERR_NOMEM, "calgary: no memory below 4 GiB for the TCE table");
	cache_flush(p->table, pages * TCE_PAGE);
	tar_write(c, (unsigned)n, cal_tar((uint64_t)(uintptr_t)p->table, c->size_code));
	if (c->ioc2)
		phb_write(c, (unsigned)n, PHB_SAVIOR, p->found_savior | SAVIOR_L2);
	phb_write(c, (unsigned)n, PHB_CONFIG_RW, phb_read(c, (unsigned)n, PHB_CONFIG_RW) | CONFIG_TRANSLATE);
	(void)phb_read(c, (unsigned)n, PHB_CONFIG_RW);
	phb_write(c, (unsigned)n, PHB_CSR, 0);
	p->used = true;
	c->cur = n;
	io->addr_bits = cal_io_bits(c->size_code);
	return NULL;
}

static const char *op_enable(struct iommu *io, bool on)
{
	struct calgary *c = container_of(io, struct calgary, io);
	if (c->cur < 0)
		return iommu_fail(io, IOMMU_ERR_STATE, "calgary: no PHB in use");
	unsigned n = (unsigned)c->cur;
	uint32_t cfg = phb_read(c, n, PHB_CONFIG_RW);
	phb_write(c, n, PHB_CONFIG_RW, on ? cfg | CONFIG_TCE_ENABLE : cfg & ~CONFIG_TCE_ENABLE);
	(void)phb_read(c, n, PHB_CONFIG_RW);
	return on ? op_invalidate(io, 0, 0, 0) : NULL; /* nothing cached from before may be used */
}

/* Each PHB's TAR software bits, the configuration bits the driver sets,
 * and (CalIOC2) the savior register, against the take-over's reading. */
static bool op_as_found(struct iommu *io, char *out, size_t n)
{
	struct calgary *c = container_of(io, struct calgary, io);
	if (!c->found_valid) {
		snprintf(out, n, "nothing recorded: never taken over");
		return false;
	}
	struct reg_found r[3 * CALGARY_PHBS];
	size_t k = 0;
	uint32_t ours = CONFIG_TRANSLATE | CONFIG_SLOT_DISABLE;
	for (unsigned p = 0; p < CALGARY_PHBS; p++) {
		const struct calgary_phb *ph = &c->phb[p];
		snprintf(r[k].name, sizeof(r[k].name), "PHB%u TAR", p);
		r[k].now = tar_read(c, p) & TAR_SW_MASK, r[k++].then = ph->found_tar & TAR_SW_MASK;
		snprintf(r[k].name, sizeof(r[k].name), "PHB%u CONFIG_RW", p);
		r[k].now = phb_read(c, p, PHB_CONFIG_RW) & ours, r[k++].then = ph->found_config & ours;
		if (c->ioc2) {
			snprintf(r[k].name, sizeof(r[k].name), "PHB%u SAVIOR", p);
			r[k].now = phb_read(c, p, PHB_SAVIOR), r[k++].then = ph->found_savior;
		}
	}
	return regs_as_found(r, k, out, n);
}

static const char *op_give_back(struct iommu *io)
{
	struct calgary *c = container_of(io, struct calgary, io);
	if (!io->taken)
		return NULL;
	for (unsigned n = 0; n < CALGARY_PHBS; n++)
		if (c->phb[n].used)
			phb_disable(c, n);
	c->cur = -1;
	io->taken = false;
	if (!op_as_found(io, io->restore_note, sizeof(io->restore_note)))
		return iommu_fail(io, IOMMU_ERR_RESTORE,
				  "calgary: a PHB's TAR or configuration differ from what was found");
	return NULL;
}

static bool op_reserved(struct iommu *io, uint64_t iova, uint64_t size)
{
	struct calgary *c = container_of(io, struct calgary, io);
	return c->cur >= 0 && calgary_iova_reserved(c, (unsigned)c->cur, iova, size);
}

static const struct iommu_ops calgary_ops = { IOMMU_OPS_OP_NAMED, .reserved = op_reserved };

const char *calgary_init(struct calgary *c, const struct regwin *w, bool ioc2, const char *name, unsigned size_code)
{
	memset(c, 0, sizeof(*c));
	c->w = *w;
	c->ioc2 = ioc2;
	c->cur = -1;
	c->size_code = size_code > TAR_SIZE ? TAR_SIZE : size_code;
	c->io.ops = &calgary_ops;
	c->io.backend = "calgary";
	snprintf(c->io.name, sizeof(c->io.name), "%s", name);
	snprintf(c->variant, sizeof(c->variant), "%s", ioc2 ? "calioc2" : "calgary");
	c->io.variant = c->variant;
	c->io.model = w->space == REGWIN_MODEL;
	c->io.page_sizes = TCE_PAGE;
	c->io.addr_bits = cal_io_bits(c->size_code);
	c->io.perm_bits = true;
	c->kind = (struct iommu_inval_kind){ "flush", "global", ioc2 ? "softstop-hardstop" : "aer-split-queue" };
	c->io.kinds = &c->kind;
	c->io.nkinds = 1;
	if (phb_read(c, 0, PHB_CONFIG_RW) == CAL_ALL_ONES)
		return all_ones(c);
	for (unsigned n = 0; n < CALGARY_PHBS; n++) {
		uint32_t r = regwin_read32(&c->w, CAL_BUSRANGE(n));
		c->phb[n].start_bus = cal_busrange_start(r);
		c->phb[n].end_bus = cal_busrange_end(r);
		if (c->phb[n].end_bus == 0) /* 0: only the start bus */
			c->phb[n].end_bus = c->phb[n].start_bus;
	}
	return NULL;
}
