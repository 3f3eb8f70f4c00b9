/* Intel VT-d remapping unit, legacy translation mode.
 *
 * Taking over: the registers the firmware left are recorded first; a unit
 * already translating, or running queued invalidation or interrupt
 * remapping for the firmware, is refused (its tables are in use by someone
 * else and there is no safe moment to swap them). Otherwise a root table
 * and one context table per bus are built in which every source id is
 * passed through (ECAP.PT) or sent to an identity domain over all RAM and
 * the RMRRs; the device under test is then moved to a domain of its own.
 * Giving back writes the recorded registers again and checks them.
 *
 * Register widths follow the spec: 32-bit registers are only ever accessed
 * with 32-bit accesses (a 64-bit access to one aborts QEMU, and real
 * hardware is no kinder). */
#include "vtd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/cpu.h"
#include "../core/platform.h"
#include "../core/timing.h"
#include "../pci/dma.h"
#include "vtd_caps.h"

#define PAGE 4096ull

static unsigned bits(uint64_t v, unsigned hi, unsigned lo)
{
	return (unsigned)((v >> lo) & ((1ull << (hi - lo + 1)) - 1));
}

static uint32_t r32(struct vtd *v, uint64_t off)
{
	return regwin_read32(&v->w, off);
}
static uint64_t r64(struct vtd *v, uint64_t off)
{
	return regwin_read64(&v->w, off);
}
static void w32(struct vtd *v, uint64_t off, uint32_t val)
{
	regwin_write32(&v->w, off, val);
}
static void w64(struct vtd *v, uint64_t off, uint64_t val)
{
	regwin_write64(&v->w, off, val);
}

/* Table memory reaches RAM before the unit may read it (ECAP.C clear:
 * the unit does not snoop), and the write buffer is flushed when the unit
 * asks for that (CAP.RWBF). */
static void push(struct vtd *v, const void *p, size_t n)
{
	if (!v->coherent)
		cache_flush(p, n);
	else
		mfence();
}

/* ---- register handshakes ---------------------------------------------- */

static const char *gsts_wait(struct vtd *v, uint32_t bit, bool set, const char *err)
{
	struct deadline dl = deadline_after_us(VTD_DEADLINE_US);
	for (;;) {
		uint32_t s = r32(v, VTD_REG_GSTS);
		if (s == 0xffffffffu)
			return "vtd: GSTS reads all ones (the unit does not answer)";
		if (!!(s & bit) == set)
			return NULL;
		if (deadline_passed(&dl))
			return err;
		cpu_relax();
	}
}

/* A persistent GCMD bit (TE, QIE) to `on`, waiting for its GSTS twin. */
static const char *gcmd_set(struct vtd *v, uint32_t bit, bool on, const char *err)
{
	uint32_t s = r32(v, VTD_REG_GSTS) & VTD_GSTS_KEEP;
	w32(v, VTD_REG_GCMD, on ? s | bit : s & ~bit);
	return gsts_wait(v, bit, on, err);
}

static const char *set_root(struct vtd *v, uint64_t rtaddr)
{
	w64(v, VTD_REG_RTADDR, rtaddr);
	w32(v, VTD_REG_GCMD, (r32(v, VTD_REG_GSTS) & VTD_GSTS_KEEP) | VTD_GCMD_SRTP);
	return gsts_wait(v, VTD_GCMD_SRTP, true, "vtd: GSTS.RTPS not set within 100 ms of SRTP");
}

static const char *write_buffer_flush(struct vtd *v)
{
	if (!v->rwbf)
		return NULL;
	w32(v, VTD_REG_GCMD, (r32(v, VTD_REG_GSTS) & VTD_GSTS_KEEP) | VTD_GCMD_WBF);
	return gsts_wait(v, VTD_GCMD_WBF, false, "vtd: GSTS.WBFS still set 100 ms after WBF");
}

/* ---- invalidation ----------------------------------------------------- */

enum gran { G_GLOBAL = 1, G_DOMAIN = 2, G_PAGE = 3 }; /* also context: 3 = device */

static const struct iommu_inval_kind kinds[] = {
	{ "register-page", "page", "register" },     { "register-domain", "domain", "register" },
	{ "register-global", "global", "register" }, { "queued-page", "page", "queued" },
	{ "queued-domain", "domain", "queued" },     { "queued-global", "global", "queued" },
};
#define NKINDS (sizeof(kinds) / sizeof(kinds[0]))

bool vtd_kind_usable(const struct vtd *v, size_t k)
{
	if (k >= NKINDS)
		return false;
	if (k >= 3 && !v->qi)
		return false;
	return k % 3 != 0 || v->psi;
}

static const char *qi_enable(struct vtd *v, bool on);

/* A register-based invalidation (CCMD, or IOTLB after IVA): the command
 * written, its busy bit 63 polled clear, and the granularity the unit
 * reports having used (bits gr_hi..gr_lo) checked: 0 means it refused. */
static const char *reg_invalidate(struct vtd *v, uint64_t off, uint64_t cmd, unsigned gr_hi, unsigned gr_lo,
				  const char *reg, const char *busy)
{
	static char err[112];
	w64(v, off, cmd);
	struct deadline dl = deadline_after_us(VTD_DEADLINE_US);
	uint64_t r;
	while ((r = r64(v, off)) >> 63) {
		if (r == ~0ull) {
			snprintf(err, sizeof(err), "vtd: %s reads all ones (the unit does not answer)", reg);
			return err;
		}
		if (deadline_passed(&dl)) {
			snprintf(err, sizeof(err), "vtd: %s.%s still set 100 ms after an invalidation was written", reg,
				 busy);
			return err;
		}
		cpu_relax();
	}
	if (bits(r, gr_hi, gr_lo) == 0) {
		snprintf(err, sizeof(err), "vtd: the %s invalidation was refused (granularity granted 0)", reg);
		return err;
	}
	return NULL;
}

static const char *ccmd(struct vtd *v, enum gran g, uint16_t did, uint16_t sid)
{
	uint64_t cmd = 1ull << 63 | (uint64_t)g << 61 | (uint64_t)sid << 16 | did;
	return reg_invalidate(v, VTD_REG_CCMD, cmd, 60, 59, "CCMD", "ICC");
}

/* The smallest aligned power-of-two block of pages covering the range: its
 * address and mask (IVA / descriptor AM). */
static void psi_block(uint64_t iova, uint64_t size, uint64_t *addr, unsigned *am)
{
	uint64_t first = iova >> 12, last = (iova + (size ? size : 1) - 1) >> 12;
	unsigned m = 0;
	while ((first >> m) != (last >> m))
		m++;
	*am = m;
	*addr = (first >> m) << (m + 12);
}

static const char *iotlb_reg(struct vtd *v, enum gran g, uint16_t did, uint64_t addr, unsigned am)
{
	uint64_t cmd = 1ull << 63 | (uint64_t)g << 60 | (uint64_t)did << 32;
	if (v->drain_r)
		cmd |= 1ull << 49;
	if (v->drain_w)
		cmd |= 1ull << 48;
	if (g == G_PAGE)
		w64(v, v->iro, addr | am);
	return reg_invalidate(v, v->iro + 8, cmd, 58, 57, "IOTLB", "IVT");
}

/* Recovers from a queue error: the descriptor at the head is replaced by a
 * harmless wait, IQE is cleared, and the tail written again so that the
 * unit resumes from the head. */
static void qi_recover(struct vtd *v)
{
	unsigned head = (unsigned)(r64(v, VTD_REG_IQH) >> 4) & (VTD_IQ_ENTRIES - 1);
	uint64_t *d = v->iq + 2 * head;
	/* a wait writing the value the status already holds: harmless, and
	 * the wait behind the bad descriptor still ends the submission */
	d[0] = 5 | 1u << 5 | (uint64_t)(v->wait_seq - 1) << 32;
	d[1] = (uint64_t)(uintptr_t)v->wait_status;
	push(v, d, 16);
	w32(v, VTD_REG_FSTS, VTD_FSTS_IQE);
	w64(v, VTD_REG_IQT, (uint64_t)v->iq_tail << 4);
	v->queue_errors++;
}

/* Puts descriptors on the queue followed by a status-writing wait, and
 * waits for the status. */
static const char *qi_submit(struct vtd *v, const uint64_t (*desc)[2], size_t n, bool *iqe)
{
	if (iqe)
		*iqe = false;
	uint32_t seq = ++v->wait_seq;
	for (size_t i = 0; i <= n; i++) {
		uint64_t *d = v->iq + 2 * v->iq_tail;
		if (i < n) {
			d[0] = desc[i][0];
			d[1] = desc[i][1];
		} else {
			d[0] = 5 | 1u << 5 | (uint64_t)seq << 32; /* wait with status write (SW), no IF */
			d[1] = (uint64_t)(uintptr_t)v->wait_status;
		}
		push(v, d, 16);
		v->iq_tail = (v->iq_tail + 1) % VTD_IQ_ENTRIES;
	}
	w64(v, VTD_REG_IQT, (uint64_t)v->iq_tail << 4);
	struct deadline dl = deadline_after_us(VTD_DEADLINE_US);
	unsigned recoveries = 0;
	while (*v->wait_status != seq) {
		uint32_t f = r32(v, VTD_REG_FSTS);
		if (f != 0xffffffffu && (f & VTD_FSTS_IQE)) {
			if (iqe)
				*iqe = true;
			/* one bad descriptor per submission is ours to expect; a
			 * unit that keeps refusing the replacement is broken */
			if (++recoveries > n + 1)
				return "vtd: the queue keeps reporting errors (FSTS.IQE) after recovery";
			qi_recover(v);
			dl = deadline_after_us(VTD_DEADLINE_US);
			continue;
		}
		if (deadline_passed(&dl))
			return "vtd: the invalidation wait descriptor's status was not written within 100 ms";
		cpu_relax();
	}
	/* the refused descriptor was replaced: what it asked for never ran */
	return recoveries ? "vtd: the unit refused a descriptor (FSTS.IQE); queue recovered, invalidation not done"
			  : NULL;
}

static const char *qi_enable(struct vtd *v, bool on)
{
	if (on == v->qi_on)
		return NULL;
	if (on) {
		if (!v->qi)
			return "vtd: the unit has no queued invalidation (ECAP.QI clear)";
		memset(v->iq, 0, PAGE);
		push(v, v->iq, PAGE);
		v->iq_tail = 0;
		w64(v, VTD_REG_IQT, 0);
		w64(v, VTD_REG_IQA, (uint64_t)(uintptr_t)v->iq); /* 128-bit descriptors, one page */
		const char *e = gcmd_set(v, VTD_GCMD_QIE, true, "vtd: GSTS.QIES not set within 100 ms");
		v->qi_on = e == NULL;
		return e;
	}
	/* the unit may stop only when it has fetched everything (head ==
	 * tail) and the last descriptor was a wait */
	if ((r64(v, VTD_REG_IQH) & 0x7fff0) != (r64(v, VTD_REG_IQT) & 0x7fff0))
		return "vtd: the invalidation queue is not drained (IQH != IQT): it stays on";
	const char *e = gcmd_set(v, VTD_GCMD_QIE, false, "vtd: GSTS.QIES still set 100 ms after clearing QIE");
	v->qi_on = e != NULL;
	return e;
}

/* Context cache: on whichever interface is on. */
static const char *ctx_invalidate(struct vtd *v, enum gran g, uint16_t did, uint16_t sid)
{
	const char *e = write_buffer_flush(v);
	if (e)
		return e;
	if (!v->qi_on)
		return ccmd(v, g, did, sid);
	uint64_t d[1][2] = { { 1 | (uint64_t)g << 4 | (uint64_t)did << 16 | (uint64_t)sid << 32, 0 } };
	return qi_submit(v, d, 1, NULL);
}

static const char *iotlb_invalidate(struct vtd *v, bool queued, enum gran g, uint16_t did, uint64_t iova, uint64_t size)
{
	if (g == G_PAGE && !v->psi)
		return "vtd: the unit has no page-selective invalidation (CAP.PSI clear)";
	const char *e = qi_enable(v, queued);
	if (!e)
		e = write_buffer_flush(v);
	if (e)
		return e;
	uint64_t addr = 0, end = iova + size;
	unsigned am = 0;
	do {
		if (g == G_PAGE) {
			psi_block(iova, end - iova, &addr, &am);
			if (am > v->mamv) { /* more than one mask can cover: in pieces */
				am = v->mamv;
				addr = iova & ~((1ull << (am + 12)) - 1);
			}
			iova = addr + (1ull << (am + 12));
		}
		if (!queued) {
			e = iotlb_reg(v, g, did, addr, am);
		} else {
			uint64_t d[1][2] = { { 2 | (uint64_t)g << 4 | (uint64_t)did << 16, addr | am } };
			if (v->drain_r)
				d[0][0] |= 1u << 7;
			if (v->drain_w)
				d[0][0] |= 1u << 6;
			e = qi_submit(v, d, 1, NULL);
		}
	} while (!e && g == G_PAGE && iova < end);
	return e;
}

static const char *op_invalidate(struct iommu *io, size_t usable, uint64_t iova, uint64_t size)
{
	struct vtd *v = (struct vtd *)io;
	size_t kind = NKINDS;
	for (size_t k = 0; usable < io->nkinds && k < NKINDS; k++)
		if (strcmp(kinds[k].name, io->kinds[usable].name) == 0)
			kind = k;
	if (!vtd_kind_usable(v, kind))
		return "vtd: this unit cannot do that kind of invalidation";
	static const enum gran g[] = { G_PAGE, G_DOMAIN, G_GLOBAL };
	return iotlb_invalidate(v, kind >= 3, g[kind % 3], v->dut.did, iova, size);
}

/* Everything: context cache and IOTLB, globally, on the current interface. */
static const char *invalidate_all(struct vtd *v)
{
	const char *e = ctx_invalidate(v, G_GLOBAL, 0, 0);
	return e ? e : iotlb_invalidate(v, v->qi_on, G_GLOBAL, 0, 0, 0);
}

const char *vtd_queue_error_probe(struct vtd *v, unsigned *iqe_seen)
{
	const char *e = qi_enable(v, true);
	if (e)
		return e;
	/* type 0 is no descriptor at all: the unit must refuse it */
	uint64_t d[1][2] = { { 0, 0 } };
	bool iqe;
	unsigned before = v->queue_errors;
	e = qi_submit(v, d, 1, &iqe);
	*iqe_seen = v->queue_errors - before;
	if (!iqe)
		return "vtd: a descriptor of type 0 was accepted without a queue error";
	/* the queue works again: an ordinary wait completes */
	return qi_submit(v, NULL, 0, NULL);
}

/* ---- tables ------------------------------------------------------------ */

static void *table_page(struct vtd_domain *d)
{
	if (d && d->npages == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 16;
		void **p = realloc(d->pages, cap * sizeof(*p));
		if (!p)
			return NULL;
		d->pages = p, d->cap = cap;
	}
	void *p = platform->alloc_pages(1, 0);
	if (!p)
		return NULL;
	memset(p, 0, PAGE);
	if (d)
		d->pages[d->npages++] = p;
	return p;
}

static void domain_free(struct vtd_domain *d)
{
	for (size_t i = 0; i < d->npages; i++)
		platform->free_pages(d->pages[i], 1);
	free(d->pages);
	uint16_t did = d->did;
	*d = (struct vtd_domain){ .did = did };
}

static const char *domain_init(struct vtd *v, struct vtd_domain *d, uint16_t did)
{
	domain_free(d);
	d->did = did;
	d->top = table_page(d);
	if (!d->top)
		return "vtd: no memory for a page table";
	push(v, d->top, PAGE);
	return NULL;
}

static unsigned level_shift(unsigned level)
{
	return 12 + 9 * (level - 1);
}

/* The entry for `iova` at `level`, creating the tables above it; NULL with
 * *err when a larger leaf is in the way or memory ran out. */
static uint64_t *entry_for(struct vtd *v, struct vtd_domain *d, uint64_t iova, unsigned level, bool create,
			   const char **err)
{
	uint64_t *t = d->top;
	for (unsigned l = v->levels; l > level; l--) {
		uint64_t *e = &t[(iova >> level_shift(l)) & 511];
		if (!(*e & (VTD_PTE_R | VTD_PTE_W))) {
			if (!create)
				return NULL;
			uint64_t *n = table_page(d);
			if (!n) {
				*err = "vtd: no memory for a page table";
				return NULL;
			}
			push(v, n, PAGE);
			*e = (uint64_t)(uintptr_t)n | VTD_PTE_R | VTD_PTE_W;
			push(v, e, 8);
		} else if (*e & VTD_PTE_PS) {
			*err = "vtd: a larger page already maps that address";
			return NULL;
		}
		t = (uint64_t *)(uintptr_t)(*e & VTD_PTE_ADDR);
	}
	return &t[(iova >> level_shift(level)) & 511];
}

static unsigned leaf_level(uint64_t page)
{
	return page == 1ull << 30 ? 3 : page == 1ull << 21 ? 2 : page == PAGE ? 1 : 0;
}

static const char *domain_map(struct vtd *v, struct vtd_domain *d, uint64_t iova, uint64_t phys, uint64_t size,
			      unsigned perm, uint64_t page)
{
	unsigned level = leaf_level(page);
	if (!level || !(v->io.page_sizes & page))
		return "vtd: the unit has no leaves of that size (CAP.SLLPS)";
	if ((iova | phys | size) & (page - 1) || !size)
		return "vtd: address or size not aligned to the page size";
	if ((iova + size - 1) >> v->mgaw)
		return "vtd: IOVA beyond the unit's address width (MGAW)";
	if (!(perm & IOMMU_RW))
		return "vtd: a mapping needs read or write permission";
	for (uint64_t off = 0; off < size; off += page) {
		const char *err = "vtd: entry not found";
		uint64_t *e = entry_for(v, d, iova + off, level, true, &err);
		if (!e)
			return err;
		if (level > 1 && (*e & (VTD_PTE_R | VTD_PTE_W)) && !(*e & VTD_PTE_PS))
			return "vtd: smaller pages already map part of that range";
		*e = ((phys + off) & VTD_PTE_ADDR) | (perm & IOMMU_R ? VTD_PTE_R : 0) |
		     (perm & IOMMU_W ? VTD_PTE_W : 0) | (level > 1 ? VTD_PTE_PS : 0);
		push(v, e, 8);
	}
	return NULL;
}

static const char *domain_unmap(struct vtd *v, struct vtd_domain *d, uint64_t iova, uint64_t size)
{
	for (uint64_t a = iova; a < iova + size;) {
		unsigned level = 0;
		uint64_t phys;
		unsigned perm;
		if (!vtd_walk(v, d, a, &phys, &perm, &level))
			return "vtd: unmap of an address that is not mapped";
		uint64_t page = 1ull << level_shift(level);
		if (a & (page - 1))
			return "vtd: unmap starts inside a larger page";
		const char *err = NULL;
		uint64_t *e = entry_for(v, d, a, level, false, &err);
		*e = 0;
		push(v, e, 8);
		a += page;
	}
	return NULL;
}

bool vtd_walk(const struct vtd *v, const struct vtd_domain *d, uint64_t iova, uint64_t *phys, unsigned *perm,
	      unsigned *level)
{
	const uint64_t *t = d->top;
	if (!t || iova >> v->mgaw)
		return false;
	for (unsigned l = v->levels; l >= 1; l--) {
		uint64_t e = t[(iova >> level_shift(l)) & 511];
		if (!(e & (VTD_PTE_R | VTD_PTE_W)))
			return false;
		if (l == 1 || (e & VTD_PTE_PS)) {
			uint64_t mask = (1ull << level_shift(l)) - 1;
			*phys = (e & VTD_PTE_ADDR & ~mask) | (iova & mask);
			*perm = (e & VTD_PTE_R ? IOMMU_R : 0) | (e & VTD_PTE_W ? IOMMU_W : 0);
			*level = l;
			return true;
		}
		t = (const uint64_t *)(uintptr_t)(e & VTD_PTE_ADDR);
	}
	return false;
}

/* The largest leaves that fit: identity over [base, end). */
static const char *identity_map(struct vtd *v, struct vtd_domain *d, uint64_t base, uint64_t end)
{
	base &= ~(PAGE - 1);
	end = (end + PAGE - 1) & ~(PAGE - 1);
	while (base < end) {
		uint64_t page = PAGE;
		for (uint64_t p = 1ull << 30; p > PAGE; p >>= 9)
			if ((v->io.page_sizes & p) && !(base & (p - 1)) && end - base >= p) {
				page = p;
				break;
			}
		uint64_t ph;
		unsigned perm, level;
		if (!vtd_walk(v, d, base, &ph, &perm, &level)) {
			const char *e = domain_map(v, d, base, base, page, IOMMU_RW, page);
			if (e)
				return e;
		} else {
			page = 1ull << level_shift(level); /* already there (an RMRR inside RAM) */
			base &= ~(page - 1);
		}
		base += page;
	}
	return NULL;
}

static uint16_t sid_of(struct pci_addr a)
{
	return (uint16_t)(a.bus << 8 | a.dev << 3 | a.fn);
}

/* The context entry of one source id (spec 9.3): present; TT 0 through the
 * second-level tables of `d`, or TT 2 pass-through. */
static void ctx_write(struct vtd *v, uint16_t sid, const struct vtd_domain *d, bool pt)
{
	uint64_t *c = v->ctx + 2 * (size_t)sid;
	uint64_t hi = (uint64_t)(pt ? v->max_aw : v->aw) | (uint64_t)(pt ? v->ident.did : d->did) << 8;
	uint64_t lo = 1 | (pt ? 2ull << 2 : (uint64_t)(uintptr_t)d->top);
	c[1] = hi;
	__asm__ volatile("" ::: "memory"); /* the domain before the present bit */
	c[0] = lo;
}

/* Do the RMRRs name this device? Then their ranges go into `d`. */
static const char *rmrr_map(struct vtd *v, struct vtd_domain *d, const struct pci_addr *only)
{
	if (!v->dmar)
		return NULL;
	for (size_t i = 0; i < v->dmar->n; i++) {
		const struct dmar_struct *s = &v->dmar->s[i];
		if (s->type != DMAR_RMRR || s->segment != v->segment || s->limit < s->base)
			continue;
		bool wanted = only == NULL;
		for (size_t k = 0; !wanted && k < s->nscopes && v->pci; k++) {
			int idx = dmar_scope_device(&v->dmar->scopes[s->first_scope + k], s->segment, v->pci);
			wanted = idx >= 0 && pci_addr_eq(v->pci->d[idx].addr, *only);
		}
		if (!wanted)
			continue;
		const char *e = identity_map(v, d, s->base, s->limit + 1);
		if (e)
			return e;
	}
	return NULL;
}

static const char *build_tables(struct vtd *v)
{
	v->root = table_page(NULL);
	v->ctx = platform->alloc_pages(256, 0);
	v->iq = table_page(NULL);
	void *status = table_page(NULL);
	v->wait_status = status;
	if (!v->root || !v->ctx || !v->iq || !status)
		return "vtd: no memory for the root, context, queue and status pages (1 MiB)";
	memset(v->ctx, 0, 256 * PAGE);
	const char *e;
	if ((e = domain_init(v, &v->ident, 1)) != NULL || (e = domain_init(v, &v->dut, 2)) != NULL)
		return e;
	bool pt = v->want_bystanders == VTD_BYSTANDERS_PT || (v->want_bystanders == VTD_BYSTANDERS_AUTO && v->pt);
	if (pt && !v->pt)
		return "vtd: pass-through was asked for but the unit has none (ECAP.PT clear)";
	v->bystanders_pt = pt;
	if (!pt) {
		uint64_t top = platform->memory_top ? platform->memory_top() : 0;
		if (!top)
			top = 4ull << 30; /* unknown: the low 4 GiB */
		top = (top + (1ull << 30) - 1) & ~((1ull << 30) - 1);
		if (top >> v->mgaw)
			top = 1ull << v->mgaw;
		v->ident_top = top;
		if ((e = identity_map(v, &v->ident, 0, top)) != NULL || (e = rmrr_map(v, &v->ident, NULL)) != NULL)
			return e;
	}
	for (unsigned bus = 0; bus < 256; bus++) {
		v->root[2 * bus] = (uint64_t)(uintptr_t)(v->ctx + 512 * bus) | 1;
		v->root[2 * bus + 1] = 0;
		for (unsigned devfn = 0; devfn < 256; devfn++)
			ctx_write(v, (uint16_t)(bus << 8 | devfn), &v->ident, pt);
	}
	push(v, v->ctx, 256 * PAGE);
	push(v, v->root, PAGE);
	return NULL;
}

static void free_tables(struct vtd *v)
{
	domain_free(&v->ident);
	domain_free(&v->dut);
	domain_free(&v->alt);
	if (v->root)
		platform->free_pages(v->root, 1);
	if (v->iq)
		platform->free_pages(v->iq, 1);
	if (v->ctx)
		platform->free_pages(v->ctx, 256);
	if (v->wait_status)
		platform->free_pages((void *)(uintptr_t)v->wait_status, 1);
	v->root = v->iq = v->ctx = NULL;
	v->wait_status = NULL;
}

/* ---- faults ------------------------------------------------------------ */

const char *vtd_fault_reason(unsigned r)
{
	static const char *const text[] = {
		[1] = "root entry not present",
		[2] = "context entry not present",
		[3] = "context entry invalid",
		[4] = "address beyond the domain's width",
		[5] = "write to a page without write permission",
		[6] = "read of a page without read permission (or not present)",
		[7] = "second-level table walk failed",
		[8] = "root table address invalid",
		[9] = "context table address invalid",
		[10] = "reserved bit set in a root entry",
		[11] = "reserved bit set in a context entry",
		[12] = "reserved bit set in a second-level entry",
		[13] = "translation type blocked by the context entry",
	};
	return r < sizeof(text) / sizeof(text[0]) && text[r] ? text[r] : "reason not known to iommon";
}

static bool op_fault_pending(struct iommu *io)
{
	struct vtd *v = (struct vtd *)io;
	uint32_t f = r32(v, VTD_REG_FSTS);
	return f != 0xffffffffu && (f & (VTD_FSTS_PPF | VTD_FSTS_PFO));
}

static size_t op_faults(struct iommu *io, struct iommu_fault *out, size_t max, bool *overflow)
{
	struct vtd *v = (struct vtd *)io;
	uint32_t fsts = r32(v, VTD_REG_FSTS);
	*overflow = false;
	if (fsts == 0xffffffffu)
		return 0;
	size_t n = 0;
	unsigned first = bits(fsts, 15, 8);
	for (unsigned k = 0; k < v->nfr; k++) {
		unsigned i = (first + k) % v->nfr;
		uint64_t off = v->fro + 16ull * i;
		uint32_t hi_hi = r32(v, off + 12);
		if (!(hi_hi >> 31))
			continue;
		uint32_t hi_lo = r32(v, off + 8);
		uint64_t lo = r64(v, off);
		unsigned reason = hi_hi & 0xff;
		if (n < max)
			out[n++] = (struct iommu_fault){ .kind = reason == 5   ? IOMMU_FAULT_WRITE_DENIED
								 : reason == 6 ? IOMMU_FAULT_NOT_PRESENT
									       : IOMMU_FAULT_OTHER,
							 .sid_known = true,
							 .addr_known = true,
							 .dir_known = true,
							 .sid = (uint16_t)hi_lo,
							 .reason = (uint8_t)hi_hi,
							 .read = (hi_hi >> 30) & 1,
							 .addr = lo & ~0xfffull,
							 .why = vtd_fault_reason(hi_hi & 0xff),
							 .t_seen = rdtsc() };
		else
			*overflow = true;
		w32(v, off + 12, 1u << 31); /* F is write-1-to-clear */
	}
	if (fsts & VTD_FSTS_PFO)
		*overflow = true;
	w32(v, VTD_REG_FSTS, VTD_FSTS_PFO); /* PPF clears with the last F */
	return n;
}

/* ---- the interrupt ----------------------------------------------------- */

static void fault_irq(void *ctx)
{
	struct vtd *v = ctx;
	v->io.irq_tsc = rdtsc();
	v->io.irq_count++;
}

/* The fault event MSI to our vector, when the platform gives us one. */
static void irq_setup(struct vtd *v)
{
	v->vector = -1;
	v->io.irq = false;
	if (!platform->irq_install) {
		w32(v, VTD_REG_FECTL, VTD_FECTL_IM);
		return;
	}
	const char *why = NULL;
	v->vector = platform->irq_install(fault_irq, v, &v->apic_id, &why);
	if (v->vector < 0) {
		printf("    %s: no fault interrupt (%s); faults are polled\n", v->io.name, why ? why : "?");
		w32(v, VTD_REG_FECTL, VTD_FECTL_IM); /* no message to wherever FEADDR pointed */
		return;
	}
	w32(v, VTD_REG_FEDATA, (uint32_t)v->vector);
	w32(v, VTD_REG_FEADDR, 0xfee00000u | (v->apic_id & 0xff) << 12);
	w32(v, VTD_REG_FEUADDR, 0);
	w32(v, VTD_REG_FECTL, 0); /* unmasked */
	v->io.irq = true;
}

static void irq_teardown(struct vtd *v)
{
	w32(v, VTD_REG_FECTL, VTD_FECTL_IM);
	if (v->vector >= 0 && platform->irq_remove) {
		/* a message already on its way still finds its handler (and its
		 * end-of-interrupt) before the handler goes */
		(void)r32(v, VTD_REG_FECTL);
		platform->stall_us(1000);
		platform->irq_remove(v->vector);
	}
	v->vector = -1;
	v->io.irq = false;
}

/* ---- take over and give back ------------------------------------------- */

/* What the firmware left, read once per unit: later take-overs in the
 * same session must give back the firmware's state, not our last one. */
static void record(struct vtd *v)
{
	struct vtd_found *f = &v->found;
	if (v->found_valid)
		return;
	f->gsts = r32(v, VTD_REG_GSTS);
	f->fsts = r32(v, VTD_REG_FSTS);
	f->fectl = r32(v, VTD_REG_FECTL);
	f->fedata = r32(v, VTD_REG_FEDATA);
	f->feaddr = r32(v, VTD_REG_FEADDR);
	f->feuaddr = r32(v, VTD_REG_FEUADDR);
	f->rtaddr = r64(v, VTD_REG_RTADDR);
	f->iqa = v->qi ? r64(v, VTD_REG_IQA) : 0;
	f->iqt = v->qi ? r64(v, VTD_REG_IQT) : 0;
	v->found_valid = true;
}

static const char *op_give_back(struct iommu *io);

static const char *op_take(struct iommu *io)
{
	struct vtd *v = (struct vtd *)io;
	if (io->taken)
		return NULL;
	record(v);
	static char why[176];
	/* what the unit does now, not only what it did when first seen */
	uint32_t gsts = r32(v, VTD_REG_GSTS);
	if (gsts == 0xffffffffu)
		return "vtd: GSTS reads all ones (the unit does not answer)";
	if (gsts & VTD_GCMD_TE) {
		snprintf(why, sizeof(why),
			 "vtd: translation is already on (root table at 0x%llx): the firmware's tables are live "
			 "and iommon does not swap them under running DMA",
			 (unsigned long long)r64(v, VTD_REG_RTADDR));
		return why;
	}
	if (gsts & (VTD_GCMD_QIE | VTD_GCMD_IRE)) {
		snprintf(why, sizeof(why),
			 "vtd: the firmware left %s on; iommon does not take over a queue or an interrupt "
			 "remapping table in use",
			 gsts & VTD_GCMD_IRE ? "interrupt remapping" : "queued invalidation");
		return why;
	}
	/* protected memory regions block pass-through DMA to them, silently
	 * (spec 10.4.16): not iommon's to lift */
	if ((bits(v->cap, 5, 5) || bits(v->cap, 6, 6)) && (r32(v, VTD_REG_PMEN) >> 31))
		return "vtd: the firmware left protected memory regions on (PMEN.EPM); iommon does not lift them";
	io->taken = true; /* from here on give_back puts things back */
	v->qi_on = false;
	v->has_dut = false;
	const char *e = build_tables(v);
	if (!e)
		e = set_root(v, (uint64_t)(uintptr_t)v->root);
	if (!e)
		e = invalidate_all(v);
	if (e) {
		op_give_back(io);
		return e;
	}
	/* faults the firmware left are history: cleared, not ours to report */
	struct iommu_fault old[4];
	bool ovf;
	size_t n = op_faults(io, old, 4, &ovf);
	if (n)
		printf("    %s: %zu fault record%s left from before the take-over, cleared (first: sid %04x, %s)\n",
		       io->name, n, n == 1 ? "" : "s", old[0].sid, old[0].why);
	irq_setup(v);
	e = gcmd_set(v, VTD_GCMD_TE, true, "vtd: GSTS.TES not set within 100 ms of enabling translation");
	if (e) {
		op_give_back(io);
		return e;
	}
	return NULL;
}

bool vtd_as_found(struct vtd *v, char *out, size_t n)
{
	const struct vtd_found *f = &v->found;
	struct {
		const char *name;
		uint64_t now, then;
	} regs[] = {
		{ "GSTS", r32(v, VTD_REG_GSTS) & ~VTD_GCMD_SRTP, f->gsts & ~VTD_GCMD_SRTP },
		{ "RTADDR", r64(v, VTD_REG_RTADDR), f->rtaddr },
		{ "FECTL", r32(v, VTD_REG_FECTL) & ~VTD_FECTL_IP, f->fectl & ~VTD_FECTL_IP },
		{ "FEDATA", r32(v, VTD_REG_FEDATA), f->fedata },
		{ "FEADDR", r32(v, VTD_REG_FEADDR), f->feaddr },
		{ "FEUADDR", r32(v, VTD_REG_FEUADDR), f->feuaddr },
	};
	/* IQA is written back but not compared: with the queue disabled it
	 * means nothing, and QEMU reads back the address it last latched */
	size_t k = 0;
	bool same = true;
	out[0] = '\0';
	for (size_t i = 0; i < sizeof(regs) / sizeof(regs[0]); i++) {
		if (regs[i].now == regs[i].then)
			continue;
		same = false;
		if (k < n)
			k += (size_t)snprintf(out + k, n - k, "%s%s 0x%llx (was 0x%llx)", k ? ", " : "", regs[i].name,
					      (unsigned long long)regs[i].now, (unsigned long long)regs[i].then);
	}
	if (same)
		snprintf(out, n, "GSTS 0x%08x RTADDR 0x%llx FECTL 0x%08x FEDATA 0x%x FEADDR 0x%x as found", f->gsts,
			 (unsigned long long)f->rtaddr, f->fectl, f->fedata, f->feaddr);
	return same;
}

static const char *op_give_back(struct iommu *io)
{
	struct vtd *v = (struct vtd *)io;
	if (!io->taken)
		return NULL;
	const struct vtd_found *f = &v->found;
	const char *err = gcmd_set(v, VTD_GCMD_TE, false, "vtd: GSTS.TES still set 100 ms after disabling");
	/* the queue drains with a wait, then stops; caches are emptied on the
	 * way out so nothing of ours is used by whoever comes next */
	const char *e = invalidate_all(v);
	err = err ? err : e;
	e = qi_enable(v, false);
	err = err ? err : e;
	irq_teardown(v);
	bool ovf;
	struct iommu_fault junk[4];
	op_faults(io, junk, 4, &ovf);
	w32(v, VTD_REG_FSTS, VTD_FSTS_PFO | VTD_FSTS_IQE | VTD_FSTS_ICE | VTD_FSTS_ITE);
	/* the recorded registers */
	w32(v, VTD_REG_FEDATA, f->fedata);
	w32(v, VTD_REG_FEADDR, f->feaddr);
	w32(v, VTD_REG_FEUADDR, f->feuaddr);
	w32(v, VTD_REG_FECTL, f->fectl & VTD_FECTL_IM);
	if (v->qi && !v->qi_on) {
		w64(v, VTD_REG_IQA, f->iqa); /* an IQA write resets IQH and IQT: IQT after it */
		w64(v, VTD_REG_IQT, f->iqt);
	}
	if (f->rtaddr != r64(v, VTD_REG_RTADDR)) {
		/* the firmware's pointer back, latched as it was */
		e = set_root(v, f->rtaddr);
		err = err ? err : e;
		if (!e) {
			e = invalidate_all(v);
			err = err ? err : e;
		}
	}
	uint32_t gsts = r32(v, VTD_REG_GSTS);
	if (gsts == 0xffffffffu || (gsts & (VTD_GCMD_TE | VTD_GCMD_QIE))) {
		/* the unit may still walk the tables or fetch from the queue:
		 * their pages are left to it rather than given to the firmware */
		printf("    %s: translation or the queue did not stop (GSTS 0x%08x): its %zu table pages are kept\n",
		       io->name, gsts, 259 + v->ident.npages + v->dut.npages + v->alt.npages);
		*v = (struct vtd){ .io = v->io, .w = v->w, .found = v->found, .found_valid = true };
		v->io.taken = false;
		snprintf(v->restore_note, sizeof(v->restore_note), "the unit did not stop (GSTS 0x%08x)", gsts);
		return err ? err : "vtd: the unit did not stop";
	}
	free_tables(v);
	io->taken = false;
	v->has_dut = false;
	bool same = vtd_as_found(v, v->restore_note, sizeof(v->restore_note));
	if (!err && !same)
		err = "vtd: registers differ from what the firmware left";
	return err;
}

/* ---- the device under test --------------------------------------------- */

/* After a context swap the device's cached context entry may still name the
 * old domain, and have filled the IOTLB under its id: both invalidated
 * before that domain's tables or id are used again. */
static const char *alt_forget(struct vtd *v)
{
	const char *e = ctx_invalidate(v, G_PAGE, v->alt.did, sid_of(v->dut_addr));
	if (!e)
		e = iotlb_invalidate(v, v->qi_on, G_DOMAIN, v->alt.did, 0, 0);
	v->alt_cached = v->alt_cached && e;
	return e;
}

/* A context entry just made present (spec 6.1): in caching mode the unit may
 * hold the not-present entry, cached under domain 0, and the new domain's
 * IOTLB; otherwise the write buffer is all there is to flush. */
static const char *ctx_present(struct vtd *v, uint16_t sid, uint16_t did)
{
	if (!v->cm)
		return write_buffer_flush(v);
	const char *e = ctx_invalidate(v, G_PAGE, 0, sid);
	return e ? e : iotlb_invalidate(v, v->qi_on, G_DOMAIN, did, 0, 0);
}

/* A present context entry changes through not-present (spec 6.5.3.3):
 * cleared, then the device's context-cache entry and the old domain's IOTLB
 * invalidated. */
static const char *ctx_clear(struct vtd *v, uint16_t sid)
{
	uint64_t *c = v->ctx + 2 * (size_t)sid;
	uint16_t did = (uint16_t)(c[1] >> 8);
	c[0] = 0;
	push(v, c, 16);
	const char *e = ctx_invalidate(v, G_PAGE, did, sid);
	if (!e)
		e = iotlb_invalidate(v, v->qi_on, G_DOMAIN, did, 0, 0);
	if (!e && v->alt_cached && v->has_dut && sid == sid_of(v->dut_addr))
		e = alt_forget(v);
	return e;
}

static const char *op_attach(struct iommu *io, struct pci_addr dev, enum iommu_mode mode)
{
	struct vtd *v = (struct vtd *)io;
	if (!io->taken)
		return "vtd: the unit is not taken over";
	if (mode == IOMMU_PASSTHROUGH && !v->pt)
		return "vtd: the unit has no pass-through (ECAP.PT clear)";
	uint16_t sid = sid_of(dev);
	const char *e;
	if (v->has_dut && sid_of(v->dut_addr) != sid) {
		/* the previous device under test back among the bystanders */
		uint16_t prev = sid_of(v->dut_addr);
		if ((e = ctx_clear(v, prev)) != NULL)
			return e;
		ctx_write(v, prev, &v->ident, v->bystanders_pt);
		push(v, v->ctx + 2 * (size_t)prev, 16);
		if ((e = ctx_present(v, prev, v->ident.did)) != NULL)
			return e;
	}
	if ((e = ctx_clear(v, sid)) != NULL)
		return e;
	/* nothing points at the old tables any more: a fresh, empty domain
	 * with the RMRRs that name the device (the same one when only the
	 * mode changes back) */
	if (mode == IOMMU_TRANSLATE && (!v->has_dut || sid != sid_of(v->dut_addr) || v->dut_mode != mode)) {
		if ((e = domain_init(v, &v->dut, 2)) != NULL || (e = rmrr_map(v, &v->dut, &dev)) != NULL)
			return e;
	}
	uint64_t *c = v->ctx + 2 * (size_t)sid;
	ctx_write(v, sid, mode == IOMMU_TRANSLATE ? &v->dut : &v->ident, mode == IOMMU_PASSTHROUGH);
	push(v, c, 16);
	if ((e = ctx_present(v, sid, (uint16_t)(c[1] >> 8))) != NULL)
		return e;
	v->has_dut = true;
	v->dut_addr = dev;
	v->dut_mode = mode;
	return NULL;
}

static const char *op_enable(struct iommu *io, bool on)
{
	struct vtd *v = (struct vtd *)io;
	if (!io->taken)
		return "vtd: the unit is not taken over";
	if (!on)
		return gcmd_set(v, VTD_GCMD_TE, false, "vtd: GSTS.TES still set 100 ms after disabling");
	/* spec 10.4.4: the root pointer is set again before translation is
	 * re-enabled, and the caches invalidated after it */
	const char *e = set_root(v, (uint64_t)(uintptr_t)v->root);
	if (!e)
		e = invalidate_all(v);
	return e ? e : gcmd_set(v, VTD_GCMD_TE, true, "vtd: GSTS.TES not set within 100 ms of enabling");
}

static const char *op_map(struct iommu *io, uint64_t iova, uint64_t phys, uint64_t size, unsigned perm, uint64_t page)
{
	struct vtd *v = (struct vtd *)io;
	if (!io->taken || !v->has_dut)
		return "vtd: no device under test in a domain";
	const char *e = domain_map(v, &v->dut, iova, phys, size, perm, page);
	if (e)
		return e;
	/* caching mode: not-present entries may be cached, so a new mapping
	 * needs an invalidation like any other change (spec 6.1) */
	if (v->cm)
		return iotlb_invalidate(v, v->qi_on, v->psi ? G_PAGE : G_DOMAIN, v->dut.did, iova, size);
	return write_buffer_flush(v);
}

static const char *op_unmap(struct iommu *io, uint64_t iova, uint64_t size)
{
	struct vtd *v = (struct vtd *)io;
	if (!io->taken || !v->has_dut)
		return "vtd: no device under test in a domain";
	return domain_unmap(v, &v->dut, iova, size);
}

const char *vtd_context_swap(struct vtd *v, uint64_t iova, uint64_t phys, const struct dma_range *keep, size_t nkeep)
{
	if (!v->io.taken || !v->has_dut || v->dut_mode != IOMMU_TRANSLATE)
		return "vtd: no device under test in a domain";
	uint16_t old = v->dut.did, next = old == 2 ? 3 : 2;
	uint16_t sid = sid_of(v->dut_addr);
	/* the tables about to be reused must not be what a cached context
	 * entry still leads to (a second swap with no invalidation between) */
	const char *e = v->alt_cached ? alt_forget(v) : NULL;
	if (!e)
		e = domain_init(v, &v->alt, next);
	for (size_t i = 0; !e && i < nkeep; i++)
		e = domain_map(v, &v->alt, keep[i].phys, keep[i].phys, keep[i].len, IOMMU_RW, PAGE);
	if (!e)
		e = domain_map(v, &v->alt, iova & ~(PAGE - 1), phys & ~(PAGE - 1), PAGE, IOMMU_RW, PAGE);
	if (!e)
		e = rmrr_map(v, &v->alt, &v->dut_addr);
	if (e)
		return e;
	ctx_write(v, sid, &v->alt, false); /* and no context-cache invalidation */
	push(v, v->ctx + 2 * (size_t)sid, 16);
	struct vtd_domain t = v->dut;
	v->dut = v->alt;
	v->alt = t;
	v->alt_cached = true;
	return iotlb_invalidate(v, v->qi_on, G_DOMAIN, old, 0, 0);
}

const char *vtd_context_invalidate(struct vtd *v, bool queued)
{
	if (!v->io.taken || !v->has_dut)
		return "vtd: no device under test";
	const char *e = qi_enable(v, queued);
	return e ? e : alt_forget(v);
}

static const struct iommu_ops vtd_ops = {
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

/* ---- set-up ------------------------------------------------------------ */

const char *vtd_init(struct vtd *v, const struct regwin *w, const char *name, const struct dmar *dmar,
		     const struct pci_list *pci, uint16_t segment)
{
	enum vtd_bystanders by = v->want_bystanders;
	unsigned lv = v->want_levels;
	struct vtd_found found = v->found;
	bool same_unit = v->found_valid && w->space == v->w.space && w->base == v->w.base && w->ctx == v->w.ctx;
	memset(v, 0, sizeof(*v));
	v->want_bystanders = by;
	v->want_levels = lv;
	if (same_unit)
		v->found = found, v->found_valid = true;
	v->w = *w;
	v->vector = -1;
	v->dmar = dmar, v->pci = pci, v->segment = segment;
	v->io.ops = &vtd_ops;
	v->io.backend = "vtd";
	v->io.kinds = v->kinds;
	v->io.model = w->space == REGWIN_MODEL;
	snprintf(v->io.name, sizeof(v->io.name), "%s", name);

	v->ver = r32(v, VTD_REG_VER);
	v->cap = r64(v, VTD_REG_CAP);
	v->ecap = r64(v, VTD_REG_ECAP);
	struct vtd_caps c;
	const char *bad = vtd_decode_caps(v->ver, v->cap, v->ecap, w->size, v->want_levels, &c);
	if (bad)
		return bad;
	v->mgaw = c.mgaw, v->levels = c.levels, v->aw = c.aw, v->max_aw = c.max_aw;
	v->fro = c.fro, v->nfr = c.nfr, v->iro = c.iro, v->mamv = c.mamv;
	v->coherent = c.coherent, v->qi = c.qi, v->pt = c.pt, v->rwbf = c.rwbf, v->cm = c.cm, v->psi = c.psi;
	v->drain_w = c.drain_w, v->drain_r = c.drain_r;
	v->io.addr_bits = c.mgaw;
	for (size_t k = 0; k < NKINDS; k++)
		if (vtd_kind_usable(v, k))
			v->kinds[v->io.nkinds++] = kinds[k];
	v->io.perm_bits = true;
	v->io.passthrough = v->pt;
	v->io.page_sizes = 1ull << 12;
	if (c.sp_2m)
		v->io.page_sizes |= 1ull << 21;
	if (c.sp_1g)
		v->io.page_sizes |= 1ull << 30;
	/* domain ids: 0 is reserved in caching mode, and we need 1 and 2 */
	v->ident.did = 1;
	v->dut.did = 2;
	v->alt.did = 3;
	return NULL;
}

const char *vtd_open(struct vtd *v, const struct iommu_unit *u, const struct dmar *dmar, const struct pci_list *pci)
{
	if (u->type != IOMMU_VTD)
		return "not a VT-d unit";
	/* the window the DRHD describes (its Size field),
	 * checked against the memory map before anything reads it */
	if (u->refused[0])
		return u->refused;
	struct regwin w;
	const char *why = units_open_window(u, &w);
	if (why)
		return why;
	struct unit_regs r;
	if (!units_read_regs(u, &r))
		return "vtd: the registers read all ones (nothing answers at the base)";
	return vtd_init(v, &w, u->name, dmar, pci, u->segment);
}
