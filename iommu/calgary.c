/* IBM Calgary / CalIOC2. Facts: shared/specs/calgary.md (from the Linux
 * driver's history, 2.6.18 to 5.4); [unverified] there stays unverified here.
 *
 * Isolation is per PHB: the device under test's PHB gets a TCE table and
 * everything on its buses is translated with it. IOVA = TCE index << 12,
 * from 0. There is no per-entry invalidation: rewriting TAR drops the
 * PHB's whole TCE cache, inside a handshake that quiets the bridge first. */
#include "calgary.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/cpu.h"
#include "../core/dmabuf.h"
#include "../core/platform.h"
#include "../core/timing.h"

#define PAGE 4096ull

#define CCR 0x0108
#define TAR(n) (0x0580 + 8 * (n))
#define BUSRANGE(n) (0x4020 + 0x1000 * (n))
#define SPLITQ(n) (0x4870 + 0x1000 * (n))
#define PHB(n, r) (0x8000 + 0x1000 * (n) + (r))

#define P_CSR 0x110
#define P_PLSSR 0x120
#define P_CONFIG 0x160
#define P_MEM1_LO 0x190
#define P_MEM1_HI 0x1a0
#define P_MEM1_SIZE 0x1c0
#define P_AER 0x200
#define P_MEM2_LO 0x2b0
#define P_MEM2_HI 0x2c0
#define P_MEM2_SIZE_HI 0x2d0
#define P_MEM2_SIZE_LO 0x2e0
#define P_CSMR 0x290
#define P_MCK 0x800
#define P_ERR0 0x810
#define P_RCSTAT 0xcb0
#define P_PMDR 0xda0
#define P_PMCR 0xda8
#define P_SAVIOR 0xdb0

#define TCE_ENABLE 0x20000000u
#define SLOT_DISABLE 0x1c000000u
#define DAC_DISABLE 0x01000000u
#define MCSR_ENABLE 0x00100000u
#define MEM2_ENABLE 0x00400000u
#define CONFIG_OURS (TCE_ENABLE | DAC_DISABLE | MCSR_ENABLE)
#define TAR_SW_MASK 0x0000ffffffff800full
#define TAR_ADDR 0x0000ffffffff8000ull
#define PMCR_SOFTSTOP 0x80000000u
#define PMDR_SOFTSTOPFAULT 0x40000000u
#define SAVIOR_L2 0x00800000u
#define CSR_ERROR_MASK 0xffe0ffffu
#define TCE_READ 1ull
#define TCE_WRITE 2ull
#define TCE_RPN 0x0000fffffffff000ull

static uint32_t r32(struct calgary *c, uint64_t off)
{
	return regwin_read32(&c->w, off);
}
static void w32(struct calgary *c, uint64_t off, uint32_t v)
{
	regwin_write32(&c->w, off, v);
}

/* ---- reserved IOVAs ---------------------------------------------------- */

/* A peripheral window: IO addresses from (high << 32 | low) up to the limit
 * register | 0xFFFFF, plus one; reserved only when the limit lies above the
 * start (as Linux computed it). */
static bool in_window(struct calgary *c, uint64_t lo_off, uint64_t hi_off, uint64_t limit_hi_off, uint64_t limit_lo_off,
		      uint64_t iova, uint64_t end)
{
	uint64_t start = (uint64_t)r32(c, hi_off) << 32 | r32(c, lo_off);
	uint64_t limit = (limit_hi_off ? (uint64_t)r32(c, limit_hi_off) << 32 : 0) | r32(c, limit_lo_off);
	limit = (limit | 0xfffff) + 1;
	return limit > start && iova < limit && start < end;
}

bool calgary_iova_reserved(const struct calgary *c, unsigned phb, uint64_t iova, uint64_t size)
{
	struct calgary *cc = (struct calgary *)c;
	uint64_t end = iova + size;
	/* page 0 and the emergency pages: the first 128 KiB */
	if (iova < 32 * PAGE)
		return true;
	/* the legacy hole: 640 KiB..1 MiB on Calgary, all of the first MiB on CalIOC2 */
	if (iova < 0x100000 && end > (c->ioc2 ? 0 : 0xa0000))
		return true;
	/* the peripheral windows, never translated (MEM_2 only when enabled) */
	if (in_window(cc, PHB(phb, P_MEM1_LO), PHB(phb, P_MEM1_HI), 0, PHB(phb, P_MEM1_SIZE), iova, end))
		return true;
	return (r32(cc, PHB(phb, P_CONFIG)) & MEM2_ENABLE) &&
	       in_window(cc, PHB(phb, P_MEM2_LO), PHB(phb, P_MEM2_HI), PHB(phb, P_MEM2_SIZE_HI),
			 PHB(phb, P_MEM2_SIZE_LO), iova, end);
}

/* ---- the flush ("blast") ------------------------------------------------ */

/* The split queue is quiet when its raw low byte reads 0xFF: the register
 * is big-endian, so that is the top byte of the value read. */
static bool splitq_quiet(struct calgary *c, unsigned n)
{
	for (unsigned i = 0; i < CALGARY_SPLITQ_READS; i++)
		if ((regwin_read64(&c->w, SPLITQ(n)) >> 56) == 0xff)
			return true;
	return false;
}

static const char *flush_calgary(struct calgary *c, unsigned n)
{
	static char err[112];
	uint32_t aer = r32(c, PHB(n, P_AER));
	w32(c, PHB(n, P_AER), 0); /* arbitration off */
	(void)r32(c, PHB(n, P_PLSSR));
	bool quiet = splitq_quiet(c, n);
	regwin_write64(&c->w, TAR(n), regwin_read64(&c->w, TAR(n)));
	w32(c, PHB(n, P_AER), aer);
	(void)r32(c, PHB(n, P_AER));
	if (quiet)
		return NULL;
	/* Linux warned and went on; so does iommon, and says so */
	snprintf(err, sizeof(err), "calgary: PHB %u split queue not quiet after %u reads; flushed anyway", n,
		 CALGARY_SPLITQ_READS);
	return err;
}

static const char *flush_calioc2(struct calgary *c, unsigned n)
{
	static char err[112];
	bool stopped = false, quiet = false;
	unsigned tries;
	for (tries = 0; tries < CALGARY_SOFTSTOP_TRIES && !stopped; tries++) {
		w32(c, PHB(n, P_PMCR), r32(c, PHB(n, P_PMCR)) | PMCR_SOFTSTOP);
		quiet = splitq_quiet(c, n);
		stopped = !(r32(c, PHB(n, P_PMDR)) & PMDR_SOFTSTOPFAULT);
		c->softstop_retries += !stopped;
	}
	if (!stopped) {
		w32(c, PHB(n, P_PMCR), 0);
		(void)r32(c, PHB(n, P_PMCR));
		snprintf(err, sizeof(err), "calioc2: PHB %u reported SoftStopFault %u times: flush abandoned", n,
			 CALGARY_SOFTSTOP_TRIES);
		return err;
	}
	(void)r32(c, PHB(n, P_PMCR)); /* reading it under SoftStop forces HardStop */
	(void)r32(c, PHB(n, P_PMDR));
	regwin_write64(&c->w, TAR(n), regwin_read64(&c->w, TAR(n)));
	(void)r32(c, PHB(n, P_PMCR));
	w32(c, PHB(n, P_PMCR), 0);
	(void)r32(c, PHB(n, P_PMCR));
	if (quiet)
		return NULL;
	snprintf(err, sizeof(err), "calioc2: PHB %u split queue not quiet after %u reads; flushed anyway", n,
		 CALGARY_SPLITQ_READS);
	return err;
}

static const char *op_invalidate(struct iommu *io, size_t kind, uint64_t iova, uint64_t size)
{
	struct calgary *c = (struct calgary *)io;
	(void)iova, (void)size; /* the whole PHB, always */
	if (kind != 0)
		return "calgary: there is one kind of invalidation, the whole PHB";
	if (c->cur < 0)
		return "calgary: no PHB in use";
	return c->ioc2 ? flush_calioc2(c, (unsigned)c->cur) : flush_calgary(c, (unsigned)c->cur);
}

/* ---- errors ------------------------------------------------------------ */

static bool op_fault_pending(struct iommu *io)
{
	struct calgary *c = (struct calgary *)io;
	if (c->cur < 0)
		return false;
	uint32_t csr = r32(c, PHB(c->cur, P_CSR));
	return csr != 0xffffffffu && (csr & CSR_ERROR_MASK);
}

/* CSR, with the dump registers, cleared; optionally the PHB fenced. */
static size_t op_faults(struct iommu *io, struct iommu_fault *out, size_t max, bool *overflow)
{
	struct calgary *c = (struct calgary *)io;
	*overflow = false;
	if (c->cur < 0 || !op_fault_pending(io))
		return 0;
	unsigned n = (unsigned)c->cur;
	uint32_t csr = r32(c, PHB(n, P_CSR));
	/* the dump registers, as Linux printed them: for the first errors of
	 * a take-over only (a test that faults on purpose makes many) */
	if (c->dumps++ < 2) {
		printf("    %s PHB %u error: CSR 0x%08x (agent %u) PLSSR 0x%08x", io->name, n, csr, (csr >> 16) & 0x1f,
		       r32(c, PHB(n, P_PLSSR)));
		if (c->ioc2) {
			printf(" CSMR 0x%08x MCK 0x%08x", r32(c, PHB(n, P_CSMR)), r32(c, PHB(n, P_MCK)));
			for (unsigned i = 0; i < 7; i++)
				printf(" ERR%u 0x%08x", i, r32(c, PHB(n, P_ERR0 + 0x10 * i)));
			printf(" RCSTAT 0x%08x", r32(c, PHB(n, P_RCSTAT)));
		}
		printf("%s\n", c->dumps == 2 ? " (further dumps not shown)" : "");
	}
	w32(c, PHB(n, P_CSR), 0);
	if (c->fence) {
		w32(c, PHB(n, P_CONFIG), r32(c, PHB(n, P_CONFIG)) | SLOT_DISABLE);
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

static const char *op_map(struct iommu *io, uint64_t iova, uint64_t phys, uint64_t size, unsigned perm, uint64_t page)
{
	struct calgary *c = (struct calgary *)io;
	if (c->cur < 0)
		return "calgary: no device under test";
	struct calgary_phb *p = &c->phb[c->cur];
	if (page != PAGE)
		return "calgary: TCEs map 4 KiB pages only";
	if ((iova | phys | size) & (PAGE - 1) || !size)
		return "calgary: address or size not 4 KiB aligned";
	if (iova > p->entries * PAGE || size > p->entries * PAGE - iova)
		return "calgary: IOVA beyond the TCE table";
	if (calgary_iova_reserved(c, (unsigned)c->cur, iova, size))
		return "calgary: IOVA in a reserved range (page 0, emergency pages, legacy hole, peripheral window)";
	if (!(perm & IOMMU_RW))
		return "calgary: a TCE needs read or write permission";
	if (phys + size - 1 > 0xffffffffffffull)
		return "calgary: physical address beyond the TCE's reach (48 bits)";
	for (uint64_t off = 0; off < size; off += PAGE)
		put_tce(c, (unsigned)c->cur, (iova + off) / PAGE,
			((phys + off) & TCE_RPN) | (perm & IOMMU_R ? TCE_READ : 0) | (perm & IOMMU_W ? TCE_WRITE : 0));
	return NULL;
}

static const char *op_unmap(struct iommu *io, uint64_t iova, uint64_t size)
{
	struct calgary *c = (struct calgary *)io;
	if (c->cur < 0)
		return "calgary: no device under test";
	struct calgary_phb *p = &c->phb[c->cur];
	if ((iova | size) & (PAGE - 1) || iova > p->entries * PAGE || size > p->entries * PAGE - iova)
		return "calgary: unmap outside the TCE table or not 4 KiB aligned";
	for (uint64_t off = 0; off < size; off += PAGE)
		put_tce(c, (unsigned)c->cur, (iova + off) / PAGE, 0);
	return NULL;
}

/* ---- take over, attach, give back -------------------------------------- */

int calgary_phb_of(const struct calgary *c, uint8_t bus)
{
	for (unsigned n = 0; n < CALGARY_PHBS; n++)
		if (bus >= c->phb[n].start_bus && bus <= c->phb[n].end_bus)
			return (int)n;
	return -1;
}

static const char *op_take(struct iommu *io)
{
	struct calgary *c = (struct calgary *)io;
	if (io->taken)
		return NULL;
	if (r32(c, PHB(0, P_CONFIG)) == 0xffffffffu)
		return "calgary: the register window reads all ones (nothing answers at the BBAR)";
	for (unsigned n = 0; n < CALGARY_PHBS; n++) {
		struct calgary_phb *p = &c->phb[n];
		p->found_tar = regwin_read64(&c->w, TAR(n));
		p->found_config = r32(c, PHB(n, P_CONFIG));
		p->used = false;
		if (p->found_config & TCE_ENABLE) {
			static char why[96];
			snprintf(why, sizeof(why), "calgary: PHB %u already translates (TCE_ENABLE): not taken over",
				 n);
			return why;
		}
	}
	c->cur = -1;
	c->dumps = 0;
	io->taken = true;
	return NULL;
}

static const char *phb_disable(struct calgary *c, unsigned n)
{
	struct calgary_phb *p = &c->phb[n];
	/* our bits, and a fence we may have put up, as they were found */
	uint32_t mask = CONFIG_OURS | SLOT_DISABLE;
	w32(c, PHB(n, P_CONFIG), (r32(c, PHB(n, P_CONFIG)) & ~mask) | (p->found_config & mask));
	(void)r32(c, PHB(n, P_CONFIG));
	regwin_write64(&c->w, TAR(n), (regwin_read64(&c->w, TAR(n)) & ~TAR_SW_MASK) | (p->found_tar & TAR_SW_MASK));
	(void)regwin_read64(&c->w, TAR(n));
	if (c->ioc2 && p->used)
		w32(c, PHB(n, P_SAVIOR), p->found_savior);
	if (p->table)
		platform->free_pages(p->table, (size_t)(p->entries * 8 / PAGE));
	p->table = NULL;
	p->used = false;
	return NULL;
}

/* The device's PHB gets a zeroed table, TAR, and TCE_ENABLE. */
static const char *op_attach(struct iommu *io, struct pci_addr dev, enum iommu_mode mode)
{
	struct calgary *c = (struct calgary *)io;
	if (!io->taken)
		return "calgary: not taken over";
	if (mode == IOMMU_PASSTHROUGH)
		return "calgary: no pass-through for one device: translation is per PHB (turn it off instead)";
	int n = calgary_phb_of(c, dev.bus);
	if (n < 0)
		return "calgary: the device is on no PHB's buses";
	if (c->cur == n && c->phb[n].table)
		return NULL;
	if (c->cur >= 0)
		phb_disable(c, (unsigned)c->cur);
	c->cur = -1; /* until this PHB is ready */
	struct calgary_phb *p = &c->phb[n];
	p->entries = 8192ull << c->size_code;
	size_t pages = (size_t)(p->entries * 8 / PAGE);
	/* aligned to its own size and below 4 GiB, as Linux placed it */
	p->table = pages_alloc_aligned(pages, pages * PAGE, 1ull << 32);
	if (!p->table)
		return "calgary: no memory below 4 GiB for the TCE table";
	uintptr_t aligned = (uintptr_t)p->table;
	cache_flush(p->table, pages * PAGE);
	regwin_write64(&c->w, TAR(n), (regwin_read64(&c->w, TAR(n)) & ~TAR_SW_MASK) | (uint64_t)aligned | c->size_code);
	(void)regwin_read64(&c->w, TAR(n));
	if (c->ioc2) {
		p->found_savior = r32(c, PHB(n, P_SAVIOR));
		w32(c, PHB(n, P_SAVIOR), p->found_savior | SAVIOR_L2);
	}
	w32(c, PHB(n, P_CONFIG), r32(c, PHB(n, P_CONFIG)) | CONFIG_OURS);
	(void)r32(c, PHB(n, P_CONFIG));
	w32(c, PHB(n, P_CSR), 0);
	p->used = true;
	c->cur = n;
	io->addr_bits = 25 + c->size_code; /* 32 MiB << n of IO space */
	return NULL;
}

static const char *op_enable(struct iommu *io, bool on)
{
	struct calgary *c = (struct calgary *)io;
	if (c->cur < 0)
		return "calgary: no PHB in use";
	uint32_t cfg = r32(c, PHB(c->cur, P_CONFIG));
	w32(c, PHB(c->cur, P_CONFIG), on ? cfg | TCE_ENABLE : cfg & ~TCE_ENABLE);
	(void)r32(c, PHB(c->cur, P_CONFIG));
	return on ? op_invalidate(io, 0, 0, 0) : NULL; /* nothing cached from before may be used */
}

static const char *op_give_back(struct iommu *io)
{
	struct calgary *c = (struct calgary *)io;
	if (!io->taken)
		return NULL;
	for (unsigned n = 0; n < CALGARY_PHBS; n++)
		if (c->phb[n].used)
			phb_disable(c, n);
	c->cur = -1;
	io->taken = false;
	for (unsigned n = 0; n < CALGARY_PHBS; n++) {
		struct calgary_phb *p = &c->phb[n];
		if ((regwin_read64(&c->w, TAR(n)) & TAR_SW_MASK) != (p->found_tar & TAR_SW_MASK) ||
		    (r32(c, PHB(n, P_CONFIG)) & (CONFIG_OURS | SLOT_DISABLE)) !=
			(p->found_config & (CONFIG_OURS | SLOT_DISABLE))) {
			static char why[80];
			snprintf(why, sizeof(why), "calgary: PHB %u's TAR or configuration differ from what was found",
				 n);
			return why;
		}
	}
	return NULL;
}

static bool op_reserved(struct iommu *io, uint64_t iova, uint64_t size)
{
	struct calgary *c = (struct calgary *)io;
	return c->cur >= 0 && calgary_iova_reserved(c, (unsigned)c->cur, iova, size);
}

static const struct iommu_ops calgary_ops = {
	.reserved = op_reserved,
	.take = op_take,
	.give_back = op_give_back,
	.attach = op_attach,
	.enable = op_enable,
	.map = op_map,
	.unmap = op_unmap,
	.invalidate = op_invalidate,
	.faults = op_faults,
	.fault_pending = op_fault_pending,
};

const char *calgary_init(struct calgary *c, const struct regwin *w, bool ioc2, const char *name, unsigned size_code)
{
	memset(c, 0, sizeof(*c));
	c->w = *w;
	c->ioc2 = ioc2;
	c->cur = -1;
	c->size_code = size_code > 7 ? 7 : size_code;
	c->io.ops = &calgary_ops;
	c->io.backend = "calgary";
	snprintf(c->io.name, sizeof(c->io.name), "%s", name);
	snprintf(c->variant, sizeof(c->variant), "%s", ioc2 ? "calioc2" : "calgary");
	c->io.variant = c->variant;
	c->io.model = w->space == REGWIN_MODEL;
	c->io.page_sizes = PAGE;
	c->io.addr_bits = 25 + c->size_code;
	c->io.perm_bits = true;
	c->kind = (struct iommu_inval_kind){ "flush", "global", ioc2 ? "softstop-hardstop" : "aer-split-queue" };
	c->io.kinds = &c->kind;
	c->io.nkinds = 1;
	if (r32(c, PHB(0, P_CONFIG)) == 0xffffffffu)
		return "calgary: the register window reads all ones (nothing answers at the BBAR)";
	for (unsigned n = 0; n < CALGARY_PHBS; n++) {
		uint32_t r = r32(c, BUSRANGE(n));
		c->phb[n].start_bus = (uint8_t)(r >> 16);
		c->phb[n].end_bus = (uint8_t)(r >> 8);
		if (c->phb[n].end_bus == 0) /* 0: only the start bus */
			c->phb[n].end_bus = c->phb[n].start_bus;
	}
	return NULL;
}

/* ---- EBDA: the Rio Grande table ---------------------------------------- */

static unsigned le16(const uint8_t *p)
{
	return (unsigned)p[0] | (unsigned)p[1] << 8;
}

size_t calgary_rio_bbars(const uint8_t *ebda, size_t len, uint32_t *bbar, size_t max, const char **why)
{
	*why = NULL;
	size_t off = 0x180, found = 0;
	/* blocks: word 0 the next block's offset, word 1 the id; offsets must
	 * strictly increase (a real BIOS chain looped forever) */
	for (;;) {
		if (off + 4 > len) {
			*why = "EBDA: no Rio Grande table (the block chain ends)";
			return 0;
		}
		unsigned next = le16(ebda + off), id = le16(ebda + off + 2);
		if (id == 0x4752)
			break;
		if (next <= off) {
			*why = next ? "EBDA: the block chain goes backwards (a loop): stopped"
				    : "EBDA: no Rio Grande table";
			return 0;
		}
		off = next;
	}
	const uint8_t *t = ebda + off + 4;
	size_t left = len - off - 4;
	if (left < 3) {
		*why = "EBDA: the Rio Grande table is cut short";
		return 0;
	}
	unsigned version = t[0], nscal = t[1], nrio = t[2];
	if (version != 2 && version != 3) {
		*why = "EBDA: Rio Grande table version not 2 or 3";
		return 0;
	}
	size_t scal = version == 2 ? 11 : 12, rio = version == 2 ? 13 : 15;
	if (3 + nscal * scal + nrio * rio > left) {
		*why = "EBDA: the Rio Grande table is longer than the EBDA";
		return 0;
	}
	const uint8_t *r = t + 3 + nscal * scal;
	for (unsigned i = 0; i < nrio; i++, r += rio) {
		unsigned type = r[5];
		uint32_t b = (uint32_t)r[1] | (uint32_t)r[2] << 8 | (uint32_t)r[3] << 16 | (uint32_t)r[4] << 24;
		if ((type == 4 || type == 5) && found < max)
			bbar[found++] = b;
	}
	return found;
}
