/* PowerPC DART (U3/U4). Facts: shared/specs/dart.md (the Linux and U-Boot
 * driver histories); [unverified] there stays unverified here. Registers
 * and entries by name: dart_regs.h. */
#include "dart.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/cpu.h"
#include "core/base/macros.h"
#include "core/base/platform.h"
#include "core/base/timing.h"
#include "iommu/as_found.h"
#include "regs.h"

static uint32_t r32(struct dart *d, uint64_t off)
{
	return regwin_read32(&d->w, off);
}
static void w32(struct dart *d, uint64_t off, uint32_t v)
{
	regwin_write32(&d->w, off, v);
}

static uint32_t enable_bit(const struct dart *d)
{
	return d->u4 ? DART_U4_ENABLE : DART_U3_ENABLE;
}

static uint32_t flush_bit(const struct dart *d)
{
	return d->u4 ? DART_U4_FLUSHTLB : DART_U3_FLUSHTLB;
}

static uint64_t excp_off(const struct dart *d)
{
	return d->u4 ? DART_U4_EXCP : DART_U3_EXCP;
}

/* CNTL bits that report or command, never to be written back as read */
static uint32_t volatile_bits(const struct dart *d)
{
	return d->u4 ? DART_U4_IONE | DART_U4_FLUSHTLB | DART_U4_IDLE | DART_U4_IONE_MASK : DART_U3_FLUSHTLB;
}

static uint64_t entries(const struct dart *d)
{
	return (uint64_t)d->pages * DART_ENTRIES_PER_PAGE;
}

static const char *all_ones(struct dart *d)
{
	return iommu_fail(&d->io, IOMMU_ERR_UNUSABLE, "dart: CNTL reads all ones (the DART does not answer)");
}

/* ---- invalidation ------------------------------------------------------- */

/* Writes `cmd` into CNTL and waits for `bit` (its busy bit) to clear: 1, 2,
 * 4, 8 and 16 reads; between attempts the command is cleared and written
 * again, since sometimes the DART does not notice the bit being set. */
static const char *busy_bit(struct dart *d, uint32_t cmd, uint32_t bit, const char *what)
{
	static char err[128];
	uint32_t raw = r32(d, DART_CNTL);
	if (raw == DART_ALL_ONES)
		return all_ones(d);
	uint32_t base = raw & ~volatile_bits(d);
	for (unsigned k = 0; k < DART_FLUSH_ATTEMPTS; k++) {
		w32(d, DART_CNTL, base | cmd);
		for (unsigned i = 0; i < (1u << k); i++)
			if (!(r32(d, DART_CNTL) & bit))
				return NULL;
		d->flush_retries++;
		w32(d, DART_CNTL, base); /* clear it, then set it again */
	}
	snprintf(err, sizeof(err), "dart: %s never cleared after %u attempts (Linux stopped here: \"Buggy U3?\")", what,
		 DART_FLUSH_ATTEMPTS);
	return iommu_fail(&d->io, IOMMU_ERR_TIMEOUT, err);
}

static const char *invalidate_all(struct dart *d)
{
	return busy_bit(d, flush_bit(d), flush_bit(d), "FLUSHTLB");
}

static const char *invalidate_one(struct dart *d, uint64_t index)
{
	return busy_bit(d, dart_u4_ione(index), DART_U4_IONE, "IONE");
}

static const char *op_invalidate(struct iommu *io, size_t kind, uint64_t iova, uint64_t size)
{
	struct dart *d = container_of(io, struct dart, io);
	if (kind >= io->nkinds)
		return iommu_fail(io, IOMMU_ERR_ARGUMENT, "dart: no such kind of invalidation");
	if (strcmp(io->kinds[kind].name, "all") == 0)
		return invalidate_all(d);
	const char *e = NULL;
	for (uint64_t a = iova & ~(DART_PAGE - 1); !e && a < iova + (size ? size : 1); a += DART_PAGE)
		e = invalidate_one(d, a >> DART_PAGE_SHIFT);
	return e;
}

/* ---- entries ------------------------------------------------------------ */

/* What an unmapped entry holds: 0 (invalid), or the dummy page, valid. */
static uint32_t unmapped(const struct dart *d)
{
	return d->dummy_scheme ? dart_entry((uint64_t)(uintptr_t)d->dummy) : 0;
}

static void put(struct dart *d, uint64_t index, uint32_t e)
{
	d->table[index] = __builtin_bswap32(e); /* big-endian in memory */
	/* table walks do not snoop; Linux also pushed the entry after */
	cache_flush(&d->table[index], index + 1 < entries(d) ? 8 : 4);
}

/* The last entry is kept free: the bridge prefetches past the end. */
static bool in_table(const struct dart *d, uint64_t iova, uint64_t size)
{
	uint64_t top = (entries(d) - 1) * DART_PAGE;
	return iova <= top && size <= top - iova;
}

static const char *op_map(struct iommu *io, uint64_t iova, uint64_t phys, uint64_t size, unsigned perm, uint64_t page)
{
	struct dart *d = container_of(io, struct dart, io);
	(void)perm; /* valid or not: no permissions to give */
	if (!io->taken)
		return iommu_fail(io, IOMMU_ERR_STATE, "dart: not taken over");
	if (page != DART_PAGE)
		return iommu_fail(io, IOMMU_ERR_UNSUPPORTED, "dart: entries map 4 KiB pages only");
	if ((iova | phys | size) & (DART_PAGE - 1) || !size)
		return iommu_fail(io, IOMMU_ERR_ARGUMENT, "dart: address or size not 4 KiB aligned");
	if (!in_table(d, iova, size))
		return iommu_fail(io, IOMMU_ERR_ARGUMENT, "dart: IOVA beyond the table (its last entry is reserved)");
	if ((phys + size - 1) >> DART_PHYS_BITS)
		return iommu_fail(io, IOMMU_ERR_ARGUMENT, "dart: physical address beyond the entries' 36 bits");
	for (uint64_t off = 0; off < size; off += DART_PAGE)
		put(d, (iova + off) >> DART_PAGE_SHIFT, dart_entry(phys + off));
	return NULL;
}

static const char *op_unmap(struct iommu *io, uint64_t iova, uint64_t size)
{
	struct dart *d = container_of(io, struct dart, io);
	if (!io->taken)
		return iommu_fail(io, IOMMU_ERR_STATE, "dart: not taken over");
	if ((iova | size) & (DART_PAGE - 1) || iova > entries(d) * DART_PAGE || size > entries(d) * DART_PAGE - iova)
		return iommu_fail(io, IOMMU_ERR_ARGUMENT, "dart: unmap outside the table or not 4 KiB aligned");
	for (uint64_t off = 0; off < size; off += DART_PAGE)
		put(d, (iova + off) >> DART_PAGE_SHIFT, unmapped(d));
	return NULL;
}

/* The entry the DART would fetch for `iova`. An entry has no permission
 * bits: what is valid is read and write. Under the dummy-page scheme an
 * unmapped entry is valid too, but leads to the dummy page: that is
 * nothing mapped. */
static bool op_iova_to_phys(struct iommu *io, uint64_t iova, uint64_t *phys, unsigned *perm, uint64_t *page)
{
	struct dart *d = container_of(io, struct dart, io);
	if (!io->taken || !d->table || iova >= entries(d) * DART_PAGE)
		return false;
	uint32_t e = __builtin_bswap32(d->table[iova >> DART_PAGE_SHIFT]);
	if (!dart_entry_valid(e) || (d->dummy_scheme && e == unmapped(d)))
		return false;
	*phys = dart_entry_phys(e) | (iova & (DART_PAGE - 1));
	*perm = IOMMU_RW;
	*page = DART_PAGE;
	return true;
}

/* ---- exceptions --------------------------------------------------------- */

/* EXCP's format is [unverified]: anything but 0 (and all ones: nothing
 * answering) is taken as an exception. */
static bool op_fault_pending(struct iommu *io)
{
	struct dart *d = container_of(io, struct dart, io);
	uint32_t x = r32(d, excp_off(d));
	return x != 0 && x != DART_ALL_ONES;
}

/* EXCP's format is [unverified]: its value is reported, not decoded. */
static size_t op_faults(struct iommu *io, struct iommu_fault *out, size_t max, bool *overflow)
{
	struct dart *d = container_of(io, struct dart, io);
	*overflow = false;
	if (!op_fault_pending(io))
		return 0;
	uint32_t x = r32(d, excp_off(d));
	w32(d, excp_off(d), 0); /* how EXCP clears is [unverified]: writing 0 */
	if (max == 0) {
		*overflow = true;
		return 0;
	}
	out[0] = (struct iommu_fault){ .kind = IOMMU_FAULT_OTHER,
				       .reason = x,
				       .why = "EXCP set (its format is unverified: the value is reported as read)",
				       .t_seen = rdtsc() };
	return 1;
}

/* ---- take over and give back --------------------------------------------- */

static void release(struct dart *d)
{
	if (d->table)
		platform->free_pages(d->table, d->pages);
	if (d->dummy)
		platform->free_pages(d->dummy, 1);
	d->table = NULL;
	d->dummy = NULL;
}

/* Spec "Init": every entry filled and pushed, the table programmed (U4:
 * BASE, SIZE, then CNTL; U3: one CNTL write), then invalidate all. */
static const char *op_take(struct iommu *io)
{
	struct dart *d = container_of(io, struct dart, io);
	if (io->taken)
		return NULL;
	d->found_cntl = r32(d, DART_CNTL);
	if (d->found_cntl == DART_ALL_ONES)
		return all_ones(d);
	if (d->u4) {
		d->found_base = r32(d, DART_U4_BASE);
		d->found_size = r32(d, DART_U4_SIZE);
	}
	d->found_valid = true;
	if (d->found_cntl & enable_bit(d))
		return iommu_fail(io, IOMMU_ERR_FIRMWARE,
				  "dart: the DART already translates (ENABLE set): not taken over");
	/* U3 holds a 20-bit table PFN: below 4 GiB; U4 24 bits */
	d->table = platform->alloc_pages(d->pages, d->u4 ? 1ull << DART_PHYS_BITS : 1ull << 32);
	d->dummy = platform->alloc_pages(1, 1ull << DART_PHYS_BITS);
	if (!d->table || !d->dummy) {
		release(d);
		return iommu_fail(io, IOMMU_ERR_NOMEM, "dart: no memory for the table and the dummy page");
	}
	memset(d->dummy, 0, DART_PAGE);
	uint32_t e = __builtin_bswap32(unmapped(d));
	for (uint64_t i = 0; i < entries(d); i++)
		d->table[i] = e;
	cache_flush(d->table, d->pages * DART_PAGE);
	uint64_t pfn = (uint64_t)(uintptr_t)d->table >> DART_PAGE_SHIFT;
	if (d->u4) {
		w32(d, DART_U4_BASE, (uint32_t)pfn & DART_U4_BASE_MASK);
		w32(d, DART_U4_SIZE, (uint32_t)d->pages & DART_U4_SIZE_MASK);
		w32(d, DART_CNTL, DART_U4_ENABLE);
	} else {
		w32(d, DART_CNTL, dart_u3_cntl(pfn, (uint32_t)d->pages));
	}
	io->taken = true;
	const char *err = invalidate_all(d);
	if (err) {
		enum iommu_err code = io->err;
		io->ops->give_back(io);
		return iommu_fail(io, code, err);
	}
	return NULL;
}

static const char *op_attach(struct iommu *io, struct pci_addr dev, enum iommu_mode mode)
{
	(void)dev; /* everything behind the bridge shares the one table */
	if (!io->taken)
		return iommu_fail(io, IOMMU_ERR_STATE, "dart: not taken over");
	if (mode == IOMMU_PASSTHROUGH)
		return iommu_fail(io, IOMMU_ERR_UNSUPPORTED,
				  "dart: no per-device bypass (turn translation off instead)");
	return NULL;
}

static const char *op_enable(struct iommu *io, bool on)
{
	struct dart *d = container_of(io, struct dart, io);
	uint32_t c = r32(d, DART_CNTL) & ~volatile_bits(d);
	w32(d, DART_CNTL, on ? c | enable_bit(d) : c & ~enable_bit(d));
	return on ? invalidate_all(d) : NULL;
}

/* CNTL without its status and command bits, and (U4) BASE and SIZE,
 * against the take-over's reading. */
static bool op_as_found(struct iommu *io, char *out, size_t n)
{
	struct dart *d = container_of(io, struct dart, io);
	if (!d->found_valid) {
		snprintf(out, n, "nothing recorded: never taken over");
		return false;
	}
	struct reg_found r[3] = {
		{ "CNTL", r32(d, DART_CNTL) & ~volatile_bits(d), d->found_cntl & ~volatile_bits(d) },
		{ "BASE", d->u4 ? r32(d, DART_U4_BASE) : 0, d->found_base },
		{ "SIZE", d->u4 ? r32(d, DART_U4_SIZE) : 0, d->found_size },
	};
	return regs_as_found(r, d->u4 ? 3 : 1, out, n);
}

static const char *op_give_back(struct iommu *io)
{
	struct dart *d = container_of(io, struct dart, io);
	if (!io->taken)
		return NULL;
	w32(d, DART_CNTL, r32(d, DART_CNTL) & ~volatile_bits(d) & ~enable_bit(d));
	const char *err = invalidate_all(d); /* nothing of ours left cached */
	enum iommu_err code = io->err;
	if (d->u4) {
		w32(d, DART_U4_BASE, d->found_base);
		w32(d, DART_U4_SIZE, d->found_size);
	}
	w32(d, DART_CNTL, d->found_cntl & ~volatile_bits(d));
	release(d);
	io->taken = false;
	bool same = op_as_found(io, io->restore_note, sizeof(io->restore_note));
	if (err)
		return iommu_fail(io, code, err);
	return same ? NULL : iommu_fail(io, IOMMU_ERR_RESTORE, "dart: registers differ from what was found");
}

static bool op_reserved(struct iommu *io, uint64_t iova, uint64_t size)
{
	return !in_table(container_of(io, struct dart, io), iova, size);
}

static const struct iommu_ops dart_ops = { IOMMU_OPS_OP_NAMED, .reserved = op_reserved };

void dart_set_scheme(struct dart *d, bool dummy)
{
	d->dummy_scheme = dummy;
	snprintf(d->variant, sizeof(d->variant), "dart-%s-%s", d->u4 ? "u4" : "u3", dummy ? "dummy" : "invalid");
}

const char *dart_init(struct dart *d, const struct regwin *w, bool u4, const char *name, size_t pages, bool dummy)
{
	memset(d, 0, sizeof(*d));
	d->w = *w;
	d->u4 = u4;
	/* U3's size field is 9 bits: Linux's 512 pages wrote 0 there, and that
	 * 0 reads as 512 only by a reading the spec marks unverified; 511
	 * pages need no such reading */
	d->pages = pages ? pages : u4 ? 512 : DART_U3_SIZE_MASK;
	if (!u4 && d->pages > DART_U3_MAX_PAGES)
		return iommu_fail(&d->io, IOMMU_ERR_ARGUMENT, "dart: a U3 table holds at most 512 pages");
	if (u4 && d->pages > DART_U4_SIZE_MASK)
		return iommu_fail(&d->io, IOMMU_ERR_ARGUMENT,
				  "dart: a U4 table holds at most 8191 pages (SIZE is 13 bits)");
	d->io.ops = &dart_ops;
	d->io.backend = "dart";
	snprintf(d->io.name, sizeof(d->io.name), "%s", name);
	dart_set_scheme(d, dummy);
	d->io.variant = d->variant;
	d->io.model = w->space == REGWIN_MODEL;
	d->io.page_sizes = DART_PAGE;
	/* the IOVA space: entries << 12 (2 GiB for 512 pages), a power of two */
	unsigned bits = DART_PAGE_SHIFT;
	while ((1ull << bits) < entries(d) * DART_PAGE)
		bits++;
	d->io.addr_bits = bits;
	d->io.perm_bits = false;
	d->kinds[0] = (struct iommu_inval_kind){ "all", "global", "flushtlb" };
	d->kinds[1] = (struct iommu_inval_kind){ "one", "page", "ione" };
	d->io.kinds = d->kinds;
	d->io.nkinds = u4 ? 2 : 1;
	if (r32(d, DART_CNTL) == DART_ALL_ONES)
		return all_ones(d);
	return NULL;
}
