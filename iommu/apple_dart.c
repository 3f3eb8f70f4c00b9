/* Apple DART. Facts: shared/specs/dart.md section 2 (Linux's apple-dart and
 * U-Boot's driver); the monitor meets it on its model, and on Apple Silicon
 * only through a future aarch64 build. */
#include "apple_dart.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/cpu.h"
#include "../core/dmabuf.h"
#include "../core/platform.h"
#include "../core/timing.h"

#define PAGE 4096ull

/* T8020 layout (t8103, t6000) */
#define A_PARAMS1 0x00
#define A_PARAMS2 0x04
#define A_STREAM_COMMAND 0x20
#define A_STREAM_SELECT 0x34
#define A_ERROR 0x40
#define A_ERROR_ADDR_LO 0x50
#define A_ERROR_ADDR_HI 0x54
#define A_CONFIG 0x60
#define A_ENABLE 0xfc
#define A_TCR(s) (0x100 + 4 * (s))
#define A_TTBR(s, i) (0x200 + 16 * (s) + 4 * (i))
#define A_CMD_INVALIDATE (1u << 20)
#define A_CMD_BUSY (1u << 2)
#define A_CONFIG_LOCK (1u << 15)
#define A_TCR_TRANSLATE (1u << 7)
#define A_TCR_BYPASS (1u << 8)
#define A_TCR_BYPASS_DAPF (1u << 12)
#define A_TTBR_VALID (1u << 31)
/* T8110 layout */
#define B_PARAMS3 0x08
#define B_PARAMS4 0x0c
#define B_TLB_CMD 0x80
#define B_ERROR 0x100
#define B_ERROR_MASK 0x104
#define B_ERROR_ADDR_LO 0x170
#define B_ERROR_ADDR_HI 0x174
#define B_PROTECT 0x200
#define B_ENABLE 0xc00
#define B_DISABLE 0xc20
#define B_TCR(s) (0x1000 + 4 * (s))
#define B_TTBR(s) (0x1400 + 4 * (s))
#define B_TLB_BUSY (1u << 31)
#define B_TCR_TRANSLATE 1u
#define B_TCR_BYPASS 2u
#define B_TCR_BYPASS_DAPF 4u
#define B_TTBR_VALID 1u

#define PTE_VALID 1ull
#define D1_NO_WRITE (1ull << 7)
#define D1_NO_READ (1ull << 8)
#define D1_WHOLE_PAGE (0xfffull << 40) /* sub-page range 0..0xFFF */
#define D2_NO_WRITE (1ull << 2)
#define D2_NO_READ (1ull << 3)

static bool t8110(const struct apple_dart *d)
{
	return d->layout == APPLE_T8110;
}

static uint32_t r32(struct apple_dart *d, uint64_t off)
{
	return regwin_read32(&d->w, off);
}
static void w32(struct apple_dart *d, uint64_t off, uint32_t v)
{
	regwin_write32(&d->w, off, v);
}

/* The stream-enable word holding this stream, and its bit: T8110 has a
 * word per 32 streams. */
static uint64_t enable_off(struct apple_dart *d, bool disable)
{
	return t8110(d) ? (disable ? B_DISABLE : B_ENABLE) + 4 * (d->sid / 32) : A_ENABLE;
}

static uint32_t enable_bit(struct apple_dart *d)
{
	return 1u << (d->sid % 32);
}

static uint32_t bypass_bits(struct apple_dart *d)
{
	/* the DART and its prefetcher (DAPF) both bypassed, as Linux did */
	return t8110(d) ? B_TCR_BYPASS | B_TCR_BYPASS_DAPF : A_TCR_BYPASS | A_TCR_BYPASS_DAPF;
}

static uint64_t tcr_off(struct apple_dart *d)
{
	return t8110(d) ? B_TCR(d->sid) : A_TCR(d->sid);
}

/* A physical address in an entry (table or page): DART1 keeps bits 35:12
 * in place, DART2 holds PA >> 4 in bits 37:10. */
static uint64_t encode(const struct apple_dart *d, uint64_t pa)
{
	return d->layout == APPLE_T8103 ? pa & 0x0000000ffffff000ull : ((pa >> 14) & 0x0fffffffull) << 10;
}

static uint64_t decode(const struct apple_dart *d, uint64_t e)
{
	return d->layout == APPLE_T8103 ? e & 0x0000000ffffff000ull : ((e >> 10) & 0x0fffffffull) << 14;
}

static size_t granule_pages(const struct apple_dart *d)
{
	return (size_t)1 << (d->page_shift - 12);
}

/* ---- invalidation ------------------------------------------------------- */

static const char *tlb(struct apple_dart *d, bool all)
{
	uint64_t busy_off;
	uint32_t busy;
	if (t8110(d)) {
		w32(d, B_TLB_CMD, all ? 0u : 1u << 8 | d->sid);
		busy_off = B_TLB_CMD, busy = B_TLB_BUSY;
	} else {
		w32(d, A_STREAM_SELECT, all ? (d->nsid >= 32 ? ~0u : (1u << d->nsid) - 1) : 1u << d->sid);
		w32(d, A_STREAM_COMMAND, A_CMD_INVALIDATE);
		busy_off = A_STREAM_COMMAND, busy = A_CMD_BUSY;
	}
	struct deadline dl = deadline_after_us(APPLE_DART_DEADLINE_US);
	for (;;) {
		uint32_t v = r32(d, busy_off);
		if (v == 0xffffffffu)
			return "apple-dart: the register window reads all ones (the DART does not answer)";
		if (!(v & busy))
			return NULL;
		if (deadline_passed(&dl))
			return t8110(d) ? "apple-dart: TLB_CMD still busy 100 us after the invalidation"
					: "apple-dart: STREAM_COMMAND still busy 100 us after the invalidation";
		cpu_relax();
	}
}

static const char *op_invalidate(struct iommu *io, size_t kind, uint64_t iova, uint64_t size)
{
	(void)iova, (void)size; /* per stream or everything: no page granularity */
	if (kind >= io->nkinds)
		return "apple-dart: no such kind of invalidation";
	return tlb((struct apple_dart *)io, strcmp(io->kinds[kind].name, "all") == 0);
}

/* ---- tables -------------------------------------------------------------- */

static void *table(struct apple_dart *d)
{
	if (d->nl2 == d->capl2) {
		size_t cap = d->capl2 ? d->capl2 * 2 : 8;
		void **p = realloc(d->l2, cap * sizeof(*p));
		if (!p)
			return NULL;
		d->l2 = p, d->capl2 = cap;
	}
	/* granule-sized and granule-aligned: DART2 entries hold PA >> 14 */
	void *t = pages_alloc_aligned(granule_pages(d), (size_t)1 << d->page_shift, 1ull << 36);
	if (t) {
		cache_flush(t, (size_t)1 << d->page_shift);
		d->l2[d->nl2++] = t;
	}
	return t;
}

static uint64_t *pte_for(struct apple_dart *d, uint64_t iova, bool create, const char **err)
{
	uint64_t n = 1ull << d->bits;
	uint64_t *e1 = &d->l1[(iova >> (d->page_shift + d->bits)) & (n - 1)];
	if (!(*e1 & PTE_VALID)) {
		if (!create)
			return NULL;
		void *t = table(d);
		if (!t) {
			*err = "apple-dart: no memory for a page table";
			return NULL;
		}
		*e1 = encode(d, (uint64_t)(uintptr_t)t) | PTE_VALID;
		cache_flush(e1, 8);
	}
	uint64_t *l2 = (uint64_t *)(uintptr_t)decode(d, *e1);
	return &l2[(iova >> d->page_shift) & (n - 1)];
}

static const char *op_map(struct iommu *io, uint64_t iova, uint64_t phys, uint64_t size, unsigned perm, uint64_t page)
{
	struct apple_dart *d = (struct apple_dart *)io;
	uint64_t pg = 1ull << d->page_shift;
	if (!d->l1)
		return "apple-dart: no stream attached";
	if (page != pg)
		return "apple-dart: entries map the DART's own page size only";
	if ((iova | phys | size) & (pg - 1) || !size)
		return "apple-dart: address or size not aligned to the page size";
	if ((iova + size - 1) >> io->addr_bits)
		return "apple-dart: IOVA beyond TTBR 0's reach";
	if ((phys + size - 1) >> 36)
		return "apple-dart: physical address beyond 36 bits";
	if (!(perm & IOMMU_RW))
		return "apple-dart: a mapping needs read or write permission";
	bool d1 = d->layout == APPLE_T8103;
	for (uint64_t off = 0; off < size; off += pg) {
		const char *err = NULL;
		uint64_t *e = pte_for(d, iova + off, true, &err);
		if (!e)
			return err;
		uint64_t v = encode(d, phys + off) | PTE_VALID | (d1 ? D1_WHOLE_PAGE : 0);
		if (!(perm & IOMMU_W))
			v |= d1 ? D1_NO_WRITE : D2_NO_WRITE;
		if (!(perm & IOMMU_R))
			v |= d1 ? D1_NO_READ : D2_NO_READ;
		*e = v;
		cache_flush(e, 8);
	}
	return NULL;
}

static const char *op_unmap(struct iommu *io, uint64_t iova, uint64_t size)
{
	struct apple_dart *d = (struct apple_dart *)io;
	uint64_t pg = 1ull << d->page_shift;
	if (!d->l1 || (iova | size) & (pg - 1))
		return "apple-dart: unmap not aligned, or no stream attached";
	if ((iova + size - 1) >> io->addr_bits || iova + size < iova)
		return "apple-dart: unmap beyond TTBR 0's reach";
	for (uint64_t off = 0; off < size; off += pg) {
		const char *err;
		uint64_t *e = pte_for(d, iova + off, false, &err);
		if (!e || !(*e & PTE_VALID))
			return "apple-dart: unmap of an address that is not mapped";
		*e = 0;
		cache_flush(e, 8);
	}
	return NULL;
}

/* ---- errors -------------------------------------------------------------- */

static bool op_fault_pending(struct iommu *io)
{
	struct apple_dart *d = (struct apple_dart *)io;
	uint32_t e = r32(d, t8110(d) ? B_ERROR : A_ERROR);
	return e != 0xffffffffu && (e >> 31);
}

static size_t op_faults(struct iommu *io, struct iommu_fault *out, size_t max, bool *overflow)
{
	struct apple_dart *d = (struct apple_dart *)io;
	*overflow = false;
	if (!op_fault_pending(io))
		return 0;
	bool b = t8110(d);
	uint32_t e = r32(d, b ? B_ERROR : A_ERROR);
	uint64_t addr = r32(d, b ? B_ERROR_ADDR_LO : A_ERROR_ADDR_LO) |
			(uint64_t)r32(d, b ? B_ERROR_ADDR_HI : A_ERROR_ADDR_HI) << 32;
	w32(d, b ? B_ERROR : A_ERROR, e); /* write-1-to-clear */
	if (max == 0) {
		*overflow = true;
		return 0;
	}
	unsigned stream = b ? (e >> 20) & 0xff : (e >> 24) & 0xf;
	uint32_t code = e & (b ? 0x7fffu : 0xfffu);
	if (stream != d->sid) { /* another stream's fault: not the device under test's */
		out[0] = (struct iommu_fault){ .kind = IOMMU_FAULT_OTHER,
					       .reason = e,
					       .why = "a fault on another stream than the device under test's",
					       .t_seen = rdtsc() };
		return 1;
	}
	bool rd = code & (b ? 1u << 5 : 1u << 4), wr = code & (b ? 1u << 4 : 1u << 3);
	bool missing = code & (b ? 0xfu : 0x7u);
	out[0] = (struct iommu_fault){ .kind = wr	       ? IOMMU_FAULT_WRITE_DENIED
					       : rd || missing ? IOMMU_FAULT_NOT_PRESENT
							       : IOMMU_FAULT_OTHER,
				       .reason = e,
				       .read = rd,
				       .dir_known = rd || wr,
				       .addr = addr & ~((1ull << d->page_shift) - 1),
				       .addr_known = true,
				       .why = missing ? "no page-table entry (NO_TTBR, NO_PMD or NO_PTE)"
					      : wr    ? "write to a page marked no-write"
					      : rd    ? "read of a page marked no-read"
						      : "error code not known to iommon",
				       .t_seen = rdtsc() };
	return 1;
}

/* ---- the stream ------------------------------------------------------------ */

static void tables_free(struct apple_dart *d)
{
	for (size_t i = 0; i < d->nl2; i++)
		platform->free_pages(d->l2[i], granule_pages(d));
	free(d->l2);
	d->l2 = NULL, d->nl2 = d->capl2 = 0;
	if (d->l1)
		platform->free_pages(d->l1, granule_pages(d));
	d->l1 = NULL;
}

static const char *op_take(struct iommu *io)
{
	struct apple_dart *d = (struct apple_dart *)io;
	if (io->taken)
		return NULL;
	bool b = t8110(d);
	uint32_t lock = r32(d, b ? B_PROTECT : A_CONFIG);
	if (lock == 0xffffffffu)
		return "apple-dart: the register window reads all ones (the DART does not answer)";
	if (lock & (b ? 1u : A_CONFIG_LOCK))
		return "apple-dart: the DART is locked (its TCRs and TTBRs cannot change): not taken over";
	d->found_tcr = r32(d, tcr_off(d));
	for (unsigned i = 0; i < 4; i++)
		d->found_ttbr[i] = b ? (i ? 0 : r32(d, B_TTBR(d->sid))) : r32(d, A_TTBR(d->sid, i));
	d->found_enabled = r32(d, enable_off(d, false));
	d->found_mask = b ? r32(d, B_ERROR_MASK) : 0;
	d->l1 = pages_alloc_aligned(granule_pages(d), (size_t)1 << d->page_shift, 1ull << 36);
	if (!d->l1)
		return "apple-dart: no memory for the stream's table";
	cache_flush(d->l1, (size_t)1 << d->page_shift);
	io->taken = true;
	/* errors from before are not ours; every error reported (T8110's mask) */
	if (op_fault_pending(io))
		w32(d, b ? B_ERROR : A_ERROR, r32(d, b ? B_ERROR : A_ERROR));
	if (b)
		w32(d, B_ERROR_MASK, 0);
	return NULL;
}

static const char *set_tcr(struct apple_dart *d, uint32_t tcr)
{
	w32(d, tcr_off(d), tcr);
	return tlb(d, false);
}

static const char *op_attach(struct iommu *io, struct pci_addr dev, enum iommu_mode mode)
{
	struct apple_dart *d = (struct apple_dart *)io;
	(void)dev; /* its stream was given at init */
	if (!io->taken)
		return "apple-dart: not taken over";
	bool b = t8110(d);
	if (mode == IOMMU_PASSTHROUGH && !d->bypass)
		return "apple-dart: this DART cannot bypass (PARAMS2)";
	/* the stream on (T8110: a write-1-to-set word; T8020: the bitmap) */
	if (b)
		w32(d, enable_off(d, false), enable_bit(d));
	else
		w32(d, A_ENABLE, r32(d, A_ENABLE) | enable_bit(d));
	if (mode == IOMMU_PASSTHROUGH)
		return set_tcr(d, bypass_bits(d));
	uint64_t l1 = (uint64_t)(uintptr_t)d->l1;
	if (b) {
		w32(d, B_TTBR(d->sid), (uint32_t)((l1 >> 14) << 2) | B_TTBR_VALID);
	} else {
		w32(d, A_TTBR(d->sid, 0), (uint32_t)(l1 >> 12) | A_TTBR_VALID);
		for (unsigned i = 1; i < 4; i++)
			w32(d, A_TTBR(d->sid, i), 0);
	}
	return set_tcr(d, b ? B_TCR_TRANSLATE : A_TCR_TRANSLATE);
}

static const char *op_enable(struct iommu *io, bool on)
{
	struct apple_dart *d = (struct apple_dart *)io;
	bool b = t8110(d);
	if (!on && !d->bypass)
		return "apple-dart: translation cannot be turned off for the stream (no bypass)";
	return set_tcr(d, on ? (b ? B_TCR_TRANSLATE : A_TCR_TRANSLATE) : bypass_bits(d));
}

static const char *op_give_back(struct iommu *io)
{
	struct apple_dart *d = (struct apple_dart *)io;
	if (!io->taken)
		return NULL;
	bool b = t8110(d);
	w32(d, tcr_off(d), d->found_tcr);
	if (b) {
		w32(d, B_TTBR(d->sid), d->found_ttbr[0]);
		if (!(d->found_enabled & enable_bit(d)))
			w32(d, enable_off(d, true), enable_bit(d));
		w32(d, B_ERROR_MASK, d->found_mask);
	} else {
		for (unsigned i = 0; i < 4; i++)
			w32(d, A_TTBR(d->sid, i), d->found_ttbr[i]);
		w32(d, A_ENABLE, d->found_enabled);
	}
	const char *err = tlb(d, false); /* nothing of ours cached */
	if (err) {
		/* the DART may still hold our entries: the tables are left to it */
		printf("    %s: the TLB did not confirm the invalidation; the stream's tables are kept\n", io->name);
		d->l1 = NULL, d->l2 = NULL, d->nl2 = d->capl2 = 0;
	}
	tables_free(d);
	io->taken = false;
	if (!err && (r32(d, tcr_off(d)) != d->found_tcr || r32(d, enable_off(d, false)) != d->found_enabled))
		err = "apple-dart: the stream's registers differ from what was found";
	return err;
}

static const struct iommu_ops apple_ops = {
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

const char *apple_dart_init(struct apple_dart *d, const struct regwin *w, enum apple_dart_layout layout,
			    const char *name, unsigned sid)
{
	memset(d, 0, sizeof(*d));
	d->w = *w;
	d->layout = layout;
	d->sid = sid;
	d->io.ops = &apple_ops;
	d->io.backend = "apple";
	snprintf(d->io.name, sizeof(d->io.name), "%s", name);
	snprintf(d->variant, sizeof(d->variant), "%s",
		 layout == APPLE_T8103	 ? "t8103-dart1"
		 : layout == APPLE_T6000 ? "t6000-dart2"
					 : "t8110-dart2");
	d->io.variant = d->variant;
	d->io.model = w->space == REGWIN_MODEL;
	uint32_t p1 = r32(d, A_PARAMS1);
	if (p1 == 0xffffffffu)
		return "apple-dart: the register window reads all ones (the DART does not answer)";
	d->page_shift = (p1 >> 24) & 0xf;
	if (d->page_shift != 12 && d->page_shift != 14)
		return "apple-dart: a page size other than 4 KiB or 16 KiB (PARAMS1)";
	if (layout != APPLE_T8103 && d->page_shift != 14)
		return "apple-dart: DART2 entries hold 16 KiB frames: a 4 KiB granule cannot be described";
	d->bits = d->page_shift - 3;
	d->bypass = r32(d, A_PARAMS2) & 1;
	d->nsid = 16;
	unsigned va = d->page_shift + 2 * d->bits; /* what TTBR 0 reaches */
	if (layout == APPLE_T8110) {
		d->nsid = r32(d, B_PARAMS4) & 0x1ff;
		unsigned vaw = (r32(d, B_PARAMS3) >> 16) & 0x3f;
		if (vaw && vaw < va)
			va = vaw;
	}
	if (sid >= d->nsid)
		return "apple-dart: the stream id is beyond the DART's streams";
	d->io.addr_bits = va;
	d->io.page_sizes = 1ull << d->page_shift;
	d->io.perm_bits = true;
	d->io.passthrough = d->bypass;
	d->kinds[0] = (struct iommu_inval_kind){ "stream", "domain", t8110(d) ? "tlb-cmd" : "stream-command" };
	d->kinds[1] = (struct iommu_inval_kind){ "all", "global", t8110(d) ? "tlb-cmd" : "stream-command" };
	d->io.kinds = d->kinds;
	d->io.nkinds = 2;
	return NULL;
}
