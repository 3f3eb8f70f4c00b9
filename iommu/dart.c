/* PowerPC DART (U3/U4). Facts: shared/specs/dart.md (the Linux and U-Boot
 * driver histories); [unverified] there stays unverified here. */
#include "dart.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/cpu.h"
#include "../core/platform.h"
#include "../core/timing.h"

#define PAGE 4096ull

#define CNTL 0x000
#define U3_EXCP 0x010
#define U4_BASE 0x010
#define U4_SIZE 0x020
#define U4_EXCP 0x030

#define U3_FLUSHTLB 0x400u
#define U3_ENABLE 0x200u
#define U3_SIZE_MASK 0x1ffu
#define U3_BASE_SHIFT 12
#define U4_ENABLE 0x80000000u
#define U4_IONE 0x40000000u
#define U4_FLUSHTLB 0x20000000u
#define U4_IDLE 0x10000000u
#define U4_IONE_MASK 0x07ffffffu
#define ENTRY_VALID 0x80000000u
#define ENTRY_RPN 0x00ffffffu

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
	return d->u4 ? U4_ENABLE : U3_ENABLE;
}

/* CNTL bits that report or command, never to be written back as read */
static uint32_t volatile_bits(const struct dart *d)
{
	return d->u4 ? U4_IONE | U4_FLUSHTLB | U4_IDLE | U4_IONE_MASK : U3_FLUSHTLB;
}

static uint64_t entries(const struct dart *d)
{
	return (uint64_t)d->pages * 1024;
}

/* ---- invalidation ------------------------------------------------------- */

/* Sets `bit` in CNTL (with `extra`) and waits for it to clear: 1, 2, 4, 8
 * and 16 reads; between attempts the bit is cleared and set again, since
 * sometimes the DART does not notice it being set. */
static const char *busy_bit(struct dart *d, uint32_t bit, uint32_t extra, const char *what)
{
	static char err[128];
	uint32_t raw = r32(d, CNTL);
	if (raw == 0xffffffffu)
		return "dart: CNTL reads all ones (the DART does not answer)";
	uint32_t base = raw & ~volatile_bits(d);
	for (unsigned k = 0; k < DART_FLUSH_ATTEMPTS; k++) {
		w32(d, CNTL, base | bit | extra);
		for (unsigned i = 0; i < (1u << k); i++)
			if (!(r32(d, CNTL) & bit))
				return NULL;
		d->flush_retries++;
		w32(d, CNTL, base); /* clear it, then set it again */
	}
	snprintf(err, sizeof(err), "dart: %s never cleared after %u attempts (Linux stopped here: \"Buggy U3?\")", what,
		 DART_FLUSH_ATTEMPTS);
	return err;
}

static const char *invalidate_all(struct dart *d)
{
	return busy_bit(d, d->u4 ? U4_FLUSHTLB : U3_FLUSHTLB, 0, "FLUSHTLB");
}

static const char *invalidate_one(struct dart *d, uint64_t index)
{
	return busy_bit(d, U4_IONE, (uint32_t)(index & U4_IONE_MASK), "IONE");
}

static const char *op_invalidate(struct iommu *io, size_t kind, uint64_t iova, uint64_t size)
{
	struct dart *d = (struct dart *)io;
	if (kind >= io->nkinds)
		return "dart: no such kind of invalidation";
	if (strcmp(io->kinds[kind].name, "all") == 0)
		return invalidate_all(d);
	const char *e = NULL;
	for (uint64_t a = iova & ~(PAGE - 1); !e && a < iova + (size ? size : 1); a += PAGE)
		e = invalidate_one(d, a / PAGE);
	return e;
}

/* ---- entries ------------------------------------------------------------ */

static uint32_t unmapped(const struct dart *d)
{
	return d->dummy_scheme ? ENTRY_VALID | (uint32_t)(((uintptr_t)d->dummy >> 12) & ENTRY_RPN) : 0;
}

static void put(struct dart *d, uint64_t index, uint32_t e)
{
	d->table[index] = __builtin_bswap32(e); /* big-endian in memory */
	/* table walks do not snoop; Linux also pushed the entry after */
	cache_flush(&d->table[index], index + 1 < entries(d) ? 8 : 4);
}

static const char *op_map(struct iommu *io, uint64_t iova, uint64_t phys, uint64_t size, unsigned perm, uint64_t page)
{
	struct dart *d = (struct dart *)io;
	(void)perm; /* valid or not: no permissions to give */
	if (!io->taken)
		return "dart: not taken over";
	if (page != PAGE)
		return "dart: entries map 4 KiB pages only";
	if ((iova | phys | size) & (PAGE - 1) || !size)
		return "dart: address or size not 4 KiB aligned";
	if (iova > (entries(d) - 1) * PAGE || size > (entries(d) - 1) * PAGE - iova)
		return "dart: IOVA beyond the table (its last entry is reserved)";
	if ((phys + size - 1) >> 36)
		return "dart: physical address beyond the entries' 36 bits";
	for (uint64_t off = 0; off < size; off += PAGE)
		put(d, (iova + off) / PAGE, ENTRY_VALID | (uint32_t)(((phys + off) >> 12) & ENTRY_RPN));
	return NULL;
}

static const char *op_unmap(struct iommu *io, uint64_t iova, uint64_t size)
{
	struct dart *d = (struct dart *)io;
	if (!io->taken)
		return "dart: not taken over";
	if ((iova | size) & (PAGE - 1) || iova > entries(d) * PAGE || size > entries(d) * PAGE - iova)
		return "dart: unmap outside the table or not 4 KiB aligned";
	for (uint64_t off = 0; off < size; off += PAGE)
		put(d, (iova + off) / PAGE, unmapped(d));
	return NULL;
}

/* ---- exceptions --------------------------------------------------------- */

/* EXCP's format is [unverified]: anything but 0 (and all ones: nothing
 * answering) is taken as an exception. */
static bool op_fault_pending(struct iommu *io)
{
	struct dart *d = (struct dart *)io;
	uint32_t x = r32(d, d->u4 ? U4_EXCP : U3_EXCP);
	return x != 0 && x != 0xffffffffu;
}

/* EXCP's format is [unverified]: its value is reported, not decoded. */
static size_t op_faults(struct iommu *io, struct iommu_fault *out, size_t max, bool *overflow)
{
	struct dart *d = (struct dart *)io;
	*overflow = false;
	if (!op_fault_pending(io))
		return 0;
	uint32_t x = r32(d, d->u4 ? U4_EXCP : U3_EXCP);
	w32(d, d->u4 ? U4_EXCP : U3_EXCP, 0); /* how EXCP clears is [unverified]: writing 0 */
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

static const char *op_take(struct iommu *io)
{
	struct dart *d = (struct dart *)io;
	if (io->taken)
		return NULL;
	d->found_cntl = r32(d, CNTL);
	if (d->found_cntl == 0xffffffffu)
		return "dart: CNTL reads all ones (the DART does not answer)";
	if (d->u4) {
		d->found_base = r32(d, U4_BASE);
		d->found_size = r32(d, U4_SIZE);
	}
	if (d->found_cntl & enable_bit(d))
		return "dart: the DART already translates (ENABLE set): not taken over";
	/* U3 holds a 20-bit table PFN: below 4 GiB; U4 24 bits */
	d->table = platform->alloc_pages(d->pages, d->u4 ? 1ull << 36 : 1ull << 32);
	d->dummy = platform->alloc_pages(1, 1ull << 36);
	if (!d->table || !d->dummy) {
		release(d);
		return "dart: no memory for the table and the dummy page";
	}
	memset(d->dummy, 0, PAGE);
	uint32_t e = __builtin_bswap32(unmapped(d));
	for (uint64_t i = 0; i < entries(d); i++)
		d->table[i] = e;
	cache_flush(d->table, d->pages * PAGE);
	uint64_t pfn = (uint64_t)(uintptr_t)d->table >> 12;
	if (d->u4) {
		w32(d, U4_BASE, (uint32_t)pfn & 0xffffff);
		w32(d, U4_SIZE, (uint32_t)d->pages & 0x1fff);
		w32(d, CNTL, U4_ENABLE);
	} else {
		w32(d, CNTL, U3_ENABLE | (uint32_t)pfn << U3_BASE_SHIFT | ((uint32_t)d->pages & U3_SIZE_MASK));
	}
	io->taken = true;
	const char *err = invalidate_all(d);
	if (err) {
		io->ops->give_back(io);
		return err;
	}
	return NULL;
}

static const char *op_attach(struct iommu *io, struct pci_addr dev, enum iommu_mode mode)
{
	(void)dev; /* everything behind the bridge shares the one table */
	if (!io->taken)
		return "dart: not taken over";
	return mode == IOMMU_PASSTHROUGH ? "dart: no per-device bypass (turn translation off instead)" : NULL;
}

static const char *op_enable(struct iommu *io, bool on)
{
	struct dart *d = (struct dart *)io;
	uint32_t c = r32(d, CNTL) & ~volatile_bits(d);
	w32(d, CNTL, on ? c | enable_bit(d) : c & ~enable_bit(d));
	return on ? invalidate_all(d) : NULL;
}

static const char *op_give_back(struct iommu *io)
{
	struct dart *d = (struct dart *)io;
	if (!io->taken)
		return NULL;
	w32(d, CNTL, r32(d, CNTL) & ~volatile_bits(d) & ~enable_bit(d));
	const char *err = invalidate_all(d); /* nothing of ours left cached */
	if (d->u4) {
		w32(d, U4_BASE, d->found_base);
		w32(d, U4_SIZE, d->found_size);
	}
	w32(d, CNTL, d->found_cntl & ~volatile_bits(d));
	release(d);
	io->taken = false;
	if (!err && ((r32(d, CNTL) & ~volatile_bits(d)) != (d->found_cntl & ~volatile_bits(d)) ||
		     (d->u4 && (r32(d, U4_BASE) != d->found_base || r32(d, U4_SIZE) != d->found_size))))
		err = "dart: registers differ from what was found";
	return err;
}

/* the last entry: the bridge prefetches past the end (Linux kept it free) */
static bool op_reserved(struct iommu *io, uint64_t iova, uint64_t size)
{
	return (iova + size) / PAGE > entries((struct dart *)io) - 1;
}

static const struct iommu_ops dart_ops = {
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
	d->pages = pages ? pages : u4 ? 512 : 511;
	if (!u4 && d->pages > 512)
		return "dart: a U3 table holds at most 512 pages";
	if (u4 && d->pages > 0x1fff)
		return "dart: a U4 table holds at most 8191 pages (SIZE is 13 bits)";
	d->io.ops = &dart_ops;
	d->io.backend = "dart";
	snprintf(d->io.name, sizeof(d->io.name), "%s", name);
	dart_set_scheme(d, dummy);
	d->io.variant = d->variant;
	d->io.model = w->space == REGWIN_MODEL;
	d->io.page_sizes = PAGE;
	/* the IOVA space: entries << 12 (2 GiB for 512 pages), a power of two */
	unsigned bits = 12;
	while ((1ull << bits) < entries(d) * PAGE)
		bits++;
	d->io.addr_bits = bits;
	d->io.perm_bits = false;
	d->kinds[0] = (struct iommu_inval_kind){ "all", "global", "flushtlb" };
	d->kinds[1] = (struct iommu_inval_kind){ "one", "page", "ione" };
	d->io.kinds = d->kinds;
	d->io.nkinds = u4 ? 2 : 1;
	if (r32(d, CNTL) == 0xffffffffu)
		return "dart: CNTL reads all ones (the DART does not answer)";
	return NULL;
}
