/* Apple DART. Facts: shared/specs/dart.md section 2 (Linux's apple-dart and
 * U-Boot's driver); the monitor meets it on its model, and on Apple Silicon
 * only through a future aarch64 build. Registers and entries by name:
 * apple_dart_regs.h. */
#include "apple_dart.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/cpu.h"
#include "core/base/dmabuf.h"
#include "core/base/macros.h"
#include "core/base/platform.h"
#include "core/base/timing.h"
#include "iommu/as_found.h"
#include "regs.h"

#define APPLE_PHYS_BITS 36 /* what the driver places tables and pages below */

static bool t8110(const struct apple_dart *d)
{
	return d->layout == APPLE_T8110;
}

static bool dart1(const struct apple_dart *d)
{
	return d->layout == APPLE_T8103;
}

static uint32_t r32(struct apple_dart *d, uint64_t off)
{
	return regwin_read32(&d->w, off);
}
static void w32(struct apple_dart *d, uint64_t off, uint32_t v)
{
	regwin_write32(&d->w, off, v);
}

/* ---- the stream's registers in either layout ------------------------------ */

/* The stream-enable word holding this stream (T8110: a word per 32
 * streams, write-1-to-set and write-1-to-clear), and its bit. */
static uint64_t enable_off(struct apple_dart *d)
{
	return t8110(d) ? DART_T8110_ENABLE_STREAMS(d->sid) : DART_T8020_STREAM_ENABLE;
}

static uint32_t enable_bit(struct apple_dart *d)
{
	return 1u << (d->sid % 32);
}

static uint64_t tcr_off(struct apple_dart *d)
{
	return t8110(d) ? DART_T8110_TCR(d->sid) : DART_T8020_TCR(d->sid);
}

static uint32_t tcr_translate(struct apple_dart *d)
{
	return t8110(d) ? DART_T8110_TCR_TRANSLATE_ENABLE : DART_T8020_TCR_TRANSLATE_ENABLE;
}

/* the DART and its prefetcher (DAPF) both bypassed, as Linux did */
static uint32_t tcr_bypass(struct apple_dart *d)
{
	return t8110(d) ? DART_T8110_TCR_BYPASS_DART | DART_T8110_TCR_BYPASS_DAPF
			: DART_T8020_TCR_BYPASS_DART | DART_T8020_TCR_BYPASS_DAPF;
}

static uint64_t error_off(struct apple_dart *d)
{
	return t8110(d) ? DART_T8110_ERROR : DART_T8020_ERROR;
}

static unsigned ttbrs(struct apple_dart *d)
{
	return t8110(d) ? 1 : DART_T8020_TTBRS;
}

static uint64_t ttbr_off(struct apple_dart *d, unsigned i)
{
	return t8110(d) ? DART_T8110_TTBR(d->sid) : DART_T8020_TTBR(d->sid, i);
}

static uint64_t granule(const struct apple_dart *d)
{
	return 1ull << d->page_shift;
}

static size_t granule_pages(const struct apple_dart *d)
{
	return (size_t)1 << (d->page_shift - 12);
}

static const char *all_ones(struct apple_dart *d)
{
	return iommu_fail(&d->io, IOMMU_ERR_UNUSABLE,
			  "apple-dart: the register window reads all ones (the DART does not answer)");
}

/* ---- invalidation ------------------------------------------------------- */

/* T8110: one TLB_CMD; T8020: the streams selected, then INVALIDATE. Both
 * polled for BUSY with Linux's deadline. */
static const char *tlb(struct apple_dart *d, bool all)
{
	uint64_t busy_off;
	uint32_t busy;
	if (t8110(d)) {
		w32(d, DART_T8110_TLB_CMD, all ? DART_T8110_TLB_CMD_FLUSH_ALL : dart_t8110_tlb_flush_sid(d->sid));
		busy_off = DART_T8110_TLB_CMD, busy = DART_T8110_TLB_CMD_BUSY;
	} else {
		uint32_t every = d->nsid >= 32 ? ~0u : (1u << d->nsid) - 1;
		w32(d, DART_T8020_STREAM_SELECT, all ? every : 1u << d->sid);
		w32(d, DART_T8020_STREAM_COMMAND, DART_T8020_STREAM_COMMAND_INVALIDATE);
		busy_off = DART_T8020_STREAM_COMMAND, busy = DART_T8020_STREAM_COMMAND_BUSY;
	}
	struct deadline dl = deadline_after_us(APPLE_DART_DEADLINE_US);
	for (;;) {
		uint32_t v = r32(d, busy_off);
		if (v == APPLE_DART_ALL_ONES)
			return all_ones(d);
		if (!(v & busy))
			return NULL;
		if (deadline_passed(&dl))
			return iommu_fail(&d->io, IOMMU_ERR_TIMEOUT,
					  t8110(d) ? "apple-dart: TLB_CMD still busy " APPLE_DART_DEADLINE_TEXT
						     " after the invalidation"
						   : "apple-dart: STREAM_COMMAND still busy " APPLE_DART_DEADLINE_TEXT
						     " after the invalidation");
		cpu_relax();
	}
}

static const char *op_invalidate(struct iommu *io, size_t kind, uint64_t iova, uint64_t size)
{
	(void)iova, (void)size; /* per stream or everything: no page granularity */
	if (kind >= io->nkinds)
		return iommu_fail(io, IOMMU_ERR_ARGUMENT, "apple-dart: no such kind of invalidation");
	return tlb(container_of(io, struct apple_dart, io), strcmp(io->kinds[kind].name, "all") == 0);
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
	void *t = pages_alloc_aligned(granule_pages(d), granule(d), 1ull << APPLE_PHYS_BITS);
	if (t) {
		cache_flush(t, granule(d));
		d->l2[d->nl2++] = t;
	}
	return t;
}

/* The leaf for `iova` below TTBR 0, its L2 table made when `create`. */
static uint64_t *pte_for(struct apple_dart *d, uint64_t iova, bool create, const char **err)
{
	uint64_t *e1 = &d->l1[apple_l1_index(iova, d->page_shift)];
	if (!(*e1 & APPLE_PTE_VALID)) {
		if (!create)
			return NULL;
		void *t = table(d);
		if (!t) {
			*err = iommu_fail(&d->io, IOMMU_ERR_NOMEM, "apple-dart: no memory for a page table");
			return NULL;
		}
		*e1 = apple_table_entry(dart1(d), (uint64_t)(uintptr_t)t);
		cache_flush(e1, 8);
	}
	uint64_t *l2 = (uint64_t *)(uintptr_t)apple_pte_to_pa(dart1(d), *e1);
	return &l2[apple_l2_index(iova, d->page_shift)];
}

static const char *op_map(struct iommu *io, uint64_t iova, uint64_t phys, uint64_t size, unsigned perm, uint64_t page)
{
	struct apple_dart *d = container_of(io, struct apple_dart, io);
	uint64_t pg = granule(d);
	if (!d->l1)
		return iommu_fail(io, IOMMU_ERR_STATE, "apple-dart: no stream attached");
	if (page != pg)
		return iommu_fail(io, IOMMU_ERR_UNSUPPORTED, "apple-dart: entries map the DART's own page size only");
	if ((iova | phys | size) & (pg - 1) || !size)
		return iommu_fail(io, IOMMU_ERR_ARGUMENT, "apple-dart: address or size not aligned to the page size");
	if ((iova + size - 1) >> io->addr_bits)
		return iommu_fail(io, IOMMU_ERR_ARGUMENT, "apple-dart: IOVA beyond TTBR 0's reach");
	if ((phys + size - 1) >> APPLE_PHYS_BITS)
		return iommu_fail(io, IOMMU_ERR_ARGUMENT, "apple-dart: physical address beyond 36 bits");
	if (!(perm & IOMMU_RW))
		return iommu_fail(io, IOMMU_ERR_ARGUMENT, "apple-dart: a mapping needs read or write permission");
	for (uint64_t off = 0; off < size; off += pg) {
		const char *err = NULL;
		uint64_t *e = pte_for(d, iova + off, true, &err);
		if (!e)
			return err;
		*e = apple_leaf(dart1(d), phys + off, perm & IOMMU_R, perm & IOMMU_W);
		cache_flush(e, 8);
	}
	return NULL;
}

static const char *op_unmap(struct iommu *io, uint64_t iova, uint64_t size)
{
	struct apple_dart *d = container_of(io, struct apple_dart, io);
	uint64_t pg = granule(d);
	if (!d->l1)
		return iommu_fail(io, IOMMU_ERR_STATE, "apple-dart: no stream attached");
	if ((iova | size) & (pg - 1))
		return iommu_fail(io, IOMMU_ERR_ARGUMENT, "apple-dart: unmap not aligned to the page size");
	if ((iova + size - 1) >> io->addr_bits || iova + size < iova)
		return iommu_fail(io, IOMMU_ERR_ARGUMENT, "apple-dart: unmap beyond TTBR 0's reach");
	for (uint64_t off = 0; off < size; off += pg) {
		const char *err;
		uint64_t *e = pte_for(d, iova + off, false, &err);
		if (!e || !(*e & APPLE_PTE_VALID))
			return iommu_fail(io, IOMMU_ERR_ARGUMENT, "apple-dart: unmap of an address that is not mapped");
		*e = 0;
		cache_flush(e, 8);
	}
	return NULL;
}

/* The stream's walk as the DART does it: L1, L2, the leaf's permissions. */
static bool op_iova_to_phys(struct iommu *io, uint64_t iova, uint64_t *phys, unsigned *perm, uint64_t *page)
{
	struct apple_dart *d = container_of(io, struct apple_dart, io);
	if (!d->l1 || iova >> io->addr_bits)
		return false;
	const char *err;
	uint64_t *e = pte_for(d, iova, false, &err);
	if (!e || !(*e & APPLE_PTE_VALID))
		return false;
	*phys = apple_pte_to_pa(dart1(d), *e) | (iova & (granule(d) - 1));
	*perm = (apple_leaf_readable(dart1(d), *e) ? IOMMU_R : 0) | (apple_leaf_writable(dart1(d), *e) ? IOMMU_W : 0);
	*page = granule(d);
	return true;
}

/* ---- errors -------------------------------------------------------------- */

static bool op_fault_pending(struct iommu *io)
{
	struct apple_dart *d = container_of(io, struct apple_dart, io);
	uint32_t e = r32(d, error_off(d));
	/* FLAG is bit 31 in both layouts */
	return e != APPLE_DART_ALL_ONES && (e & DART_T8020_ERROR_FLAG);
}

/* ERROR decoded in the layout's own fields. */
struct error_fields {
	unsigned stream;
	bool read, write, missing; /* READ_FAULT, WRITE_FAULT, NO_TTBR/NO_PGD/NO_PMD/NO_PTE */
};

static struct error_fields error_decode(struct apple_dart *d, uint32_t e)
{
	if (t8110(d)) {
		uint32_t c = dart_t8110_error_code(e);
		return (struct error_fields){ dart_t8110_error_stream(e), c & DART_T8110_ERROR_READ_FAULT,
					      c & DART_T8110_ERROR_WRITE_FAULT,
					      c & (DART_T8110_ERROR_NO_TTBR | DART_T8110_ERROR_NO_PGD |
						   DART_T8110_ERROR_NO_PMD | DART_T8110_ERROR_NO_PTE) };
	}
	uint32_t c = dart_t8020_error_code(e);
	return (struct error_fields){
		dart_t8020_error_stream(e), c & DART_T8020_ERROR_READ_FAULT, c & DART_T8020_ERROR_WRITE_FAULT,
		c & (DART_T8020_ERROR_NO_TTBR | DART_T8020_ERROR_NO_PMD | DART_T8020_ERROR_NO_PTE)
	};
}

static size_t op_faults(struct iommu *io, struct iommu_fault *out, size_t max, bool *overflow)
{
	struct apple_dart *d = container_of(io, struct apple_dart, io);
	*overflow = false;
	if (!op_fault_pending(io))
		return 0;
	bool b = t8110(d);
	uint32_t e = r32(d, error_off(d));
	uint64_t addr = r32(d, b ? DART_T8110_ERROR_ADDR_LO : DART_T8020_ERROR_ADDR_LO) |
			(uint64_t)r32(d, b ? DART_T8110_ERROR_ADDR_HI : DART_T8020_ERROR_ADDR_HI) << 32;
	w32(d, error_off(d), e); /* write-1-to-clear */
	if (max == 0) {
		*overflow = true;
		return 0;
	}
	struct error_fields f = error_decode(d, e);
	if (f.stream != d->sid) { /* another stream's fault: not the device under test's */
		out[0] = (struct iommu_fault){ .kind = IOMMU_FAULT_OTHER,
					       .reason = e,
					       .why = "a fault on another stream than the device under test's",
					       .t_seen = rdtsc() };
		return 1;
	}
	out[0] = (struct iommu_fault){ .kind = f.write		     ? IOMMU_FAULT_WRITE_DENIED
					       : f.read || f.missing ? IOMMU_FAULT_NOT_PRESENT
								     : IOMMU_FAULT_OTHER,
				       .reason = e,
				       .read = f.read,
				       .dir_known = f.read || f.write,
				       .addr = addr & ~(granule(d) - 1),
				       .addr_known = true,
				       .why = f.missing ? "no page-table entry (NO_TTBR, NO_PMD or NO_PTE)"
					      : f.write ? "write to a page marked no-write"
					      : f.read	? "read of a page marked no-read"
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

/* Spec "Reset sequence", for the one stream: refused when locked. */
static const char *op_take(struct iommu *io)
{
	struct apple_dart *d = container_of(io, struct apple_dart, io);
	if (io->taken)
		return NULL;
	bool b = t8110(d);
	uint32_t lock = r32(d, b ? DART_T8110_PROTECT : DART_T8020_CONFIG);
	if (lock == APPLE_DART_ALL_ONES)
		return all_ones(d);
	if (lock & (b ? DART_T8110_PROTECT_LOCKED : DART_T8020_CONFIG_LOCK))
		return iommu_fail(io, IOMMU_ERR_FIRMWARE,
				  "apple-dart: the DART is locked (its TCRs and TTBRs cannot change): not taken over");
	d->found_tcr = r32(d, tcr_off(d));
	for (unsigned i = 0; i < DART_T8020_TTBRS; i++)
		d->found_ttbr[i] = i < ttbrs(d) ? r32(d, ttbr_off(d, i)) : 0;
	d->found_enabled = r32(d, enable_off(d));
	d->found_mask = b ? r32(d, DART_T8110_ERROR_MASK) : 0;
	d->found_valid = true;
	d->l1 = pages_alloc_aligned(granule_pages(d), granule(d), 1ull << APPLE_PHYS_BITS);
	if (!d->l1)
		return iommu_fail(io, IOMMU_ERR_NOMEM, "apple-dart: no memory for the stream's table");
	cache_flush(d->l1, granule(d));
	io->taken = true;
	/* errors from before are not ours; every error reported (T8110's mask) */
	if (op_fault_pending(io))
		w32(d, error_off(d), r32(d, error_off(d)));
	if (b)
		w32(d, DART_T8110_ERROR_MASK, 0);
	return NULL;
}

static const char *set_tcr(struct apple_dart *d, uint32_t tcr)
{
	w32(d, tcr_off(d), tcr);
	return tlb(d, false);
}

static const char *op_attach(struct iommu *io, struct pci_addr dev, enum iommu_mode mode)
{
	struct apple_dart *d = container_of(io, struct apple_dart, io);
	(void)dev; /* its stream was given at init */
	if (!io->taken)
		return iommu_fail(io, IOMMU_ERR_STATE, "apple-dart: not taken over");
	if (mode == IOMMU_PASSTHROUGH && !d->bypass)
		return iommu_fail(io, IOMMU_ERR_UNSUPPORTED, "apple-dart: this DART cannot bypass (PARAMS2)");
	/* the stream on (T8110: a write-1-to-set word; T8020: the bitmap) */
	if (t8110(d))
		w32(d, enable_off(d), enable_bit(d));
	else
		w32(d, enable_off(d), r32(d, enable_off(d)) | enable_bit(d));
	if (mode == IOMMU_PASSTHROUGH)
		return set_tcr(d, tcr_bypass(d));
	uint64_t l1 = (uint64_t)(uintptr_t)d->l1;
	w32(d, ttbr_off(d, 0), t8110(d) ? dart_t8110_ttbr(l1) : dart_t8020_ttbr(l1));
	for (unsigned i = 1; i < ttbrs(d); i++)
		w32(d, ttbr_off(d, i), 0);
	return set_tcr(d, tcr_translate(d));
}

static const char *op_enable(struct iommu *io, bool on)
{
	struct apple_dart *d = container_of(io, struct apple_dart, io);
	if (!on && !d->bypass)
		return iommu_fail(io, IOMMU_ERR_UNSUPPORTED,
				  "apple-dart: translation cannot be turned off for the stream (no bypass)");
	return set_tcr(d, on ? tcr_translate(d) : tcr_bypass(d));
}

/* The stream's TCR, TTBRs and enable word, and (T8110) ERROR_MASK, against
 * the take-over's reading. */
static bool op_as_found(struct iommu *io, char *out, size_t n)
{
	struct apple_dart *d = container_of(io, struct apple_dart, io);
	if (!d->found_valid) {
		snprintf(out, n, "nothing recorded: never taken over");
		return false;
	}
	struct reg_found r[3 + DART_T8020_TTBRS];
	size_t k = 0;
	r[k++] = (struct reg_found){ "TCR", r32(d, tcr_off(d)), d->found_tcr };
	for (unsigned i = 0; i < ttbrs(d); i++) {
		snprintf(r[k].name, sizeof(r[k].name), "TTBR%u", i);
		r[k].now = r32(d, ttbr_off(d, i)), r[k++].then = d->found_ttbr[i];
	}
	r[k++] = (struct reg_found){ "ENABLE", r32(d, enable_off(d)), d->found_enabled };
	if (t8110(d))
		r[k++] = (struct reg_found){ "ERROR_MASK", r32(d, DART_T8110_ERROR_MASK), d->found_mask };
	return regs_as_found(r, k, out, n);
}

static const char *op_give_back(struct iommu *io)
{
	struct apple_dart *d = container_of(io, struct apple_dart, io);
	if (!io->taken)
		return NULL;
	w32(d, tcr_off(d), d->found_tcr);
	for (unsigned i = 0; i < ttbrs(d); i++)
		w32(d, ttbr_off(d, i), d->found_ttbr[i]);
	if (t8110(d)) {
		if (!(d->found_enabled & enable_bit(d)))
			w32(d, DART_T8110_DISABLE_STREAMS(d->sid), enable_bit(d));
		w32(d, DART_T8110_ERROR_MASK, d->found_mask);
	} else {
		w32(d, enable_off(d), d->found_enabled);
	}
	const char *err = tlb(d, false); /* nothing of ours cached */
	enum iommu_err code = io->err;
	if (err) {
		/* the DART may still hold our entries: the tables are left to it */
		printf("    %s: the TLB did not confirm the invalidation; the stream's tables are kept\n", io->name);
		d->l1 = NULL, d->l2 = NULL, d->nl2 = d->capl2 = 0;
	}
	tables_free(d);
	io->taken = false;
	bool same = op_as_found(io, io->restore_note, sizeof(io->restore_note));
	if (err)
		return iommu_fail(io, code, err);
	return same
		   ? NULL
		   : iommu_fail(io, IOMMU_ERR_RESTORE, "apple-dart: the stream's registers differ from what was found");
}

static const struct iommu_ops apple_ops = { IOMMU_OPS_OP_NAMED };

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
	uint32_t p1 = r32(d, DART_PARAMS1);
	if (p1 == APPLE_DART_ALL_ONES)
		return all_ones(d);
	d->page_shift = dart_params1_page_shift(p1);
	if (d->page_shift != 12 && d->page_shift != 14)
		return iommu_fail(&d->io, IOMMU_ERR_UNSUPPORTED,
				  "apple-dart: a page size other than 4 KiB or 16 KiB (PARAMS1)");
	if (!dart1(d) && d->page_shift != APPLE_DART2_FRAME_SHIFT)
		return iommu_fail(&d->io, IOMMU_ERR_UNSUPPORTED,
				  "apple-dart: DART2 entries hold 16 KiB frames: a 4 KiB granule cannot be described");

	d->bypass = r32(d, DART_PARAMS2) & DART_PARAMS2_BYPASS_SUPPORT;
	d->nsid = DART_T8020_STREAMS;
	unsigned va = apple_ttbr0_bits(d->page_shift);
	if (layout == APPLE_T8110) {
		d->nsid = dart_t8110_params4_streams(r32(d, DART_T8110_PARAMS4));
		unsigned vaw = dart_t8110_params3_va_width(r32(d, DART_T8110_PARAMS3));
		if (vaw && vaw < va)
			va = vaw;
	}
	if (sid >= d->nsid)
		return iommu_fail(&d->io, IOMMU_ERR_ARGUMENT, "apple-dart: the stream id is beyond the DART's streams");
	d->io.addr_bits = va;
	d->io.page_sizes = granule(d);
	d->io.perm_bits = true;
	d->io.passthrough = d->bypass;
	const char *iface = t8110(d) ? "tlb-cmd" : "stream-command";
	d->kinds[0] = (struct iommu_inval_kind){ "stream", "domain", iface };
	d->kinds[1] = (struct iommu_inval_kind){ "all", "global", iface };
	d->io.kinds = d->kinds;
	d->io.nkinds = 2;
	return NULL;
}
