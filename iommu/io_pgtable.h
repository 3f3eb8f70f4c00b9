/* The page-table tree the IOMMUs walk (VT-d second-level tables, AMD-Vi
 * host page tables, SMMUv3 stage-1 VMSAv8-64 tables): tables of one
 * granule of 64-bit entries (4 KiB: 512 entries, 16 KiB: 2048, 64 KiB:
 * 8192), each level resolving log2(granule) - 3 bits, 2 to 6 levels, a
 * leaf at level n mapping granule << (n - 1) * bits bytes (4 KiB: 4 KiB,
 * 2 MiB, 1 GiB; 16 KiB: 16 KiB, 32 MiB; 64 KiB: 64 KiB, 512 MiB). Levels
 * count up from the leaves: level 1 holds the smallest pages, whatever the
 * format calls it (VMSA's level 3). What an entry looks like is the
 * format's (struct io_pgtable_fmt, in each driver's pgtable.c); building,
 * walking and clearing the tree is this file's, once (as Linux's io-pgtable
 * serves several formats). It only writes memory: no register, no
 * invalidation. The driver hands in the depth, the address width, the leaf
 * sizes and how a table write is made visible to a unit that may not snoop.
 * Table pages come from the platform. */
#ifndef IOMMON_IO_PGTABLE_H
#define IOMMON_IO_PGTABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "iommu.h"

/* An entry format. */
struct io_pgtable_fmt {
	const char *name;  /* "vtd": the prefix of its messages */
	const char *width; /* what limits IOVAs, for messages: "MGAW" */
	const char *sizes; /* what says which leaves there are: "CAP.SLLPS" */
	uint64_t addr;	   /* the bits of an entry that hold the table or page address */
	bool (*present)(uint64_t e);
	/* The level of the table a present entry at `level` points at; 0: the
	 * entry is a leaf. A value not below `level` is an entry the walk
	 * refuses. */
	unsigned (*next)(uint64_t e, unsigned level);
	/* An entry at `level` pointing at `table` (of level - 1), and a leaf at
	 * `level` mapping `phys` with `perm` (IOMMU_R/W). */
	uint64_t (*dir)(uint64_t table, unsigned level);
	uint64_t (*leaf)(uint64_t phys, unsigned perm, unsigned level);
	unsigned (*perm)(uint64_t e); /* IOMMU_R/W an entry allows */
	/* An entry holds its address shifted right by this many bits (RISC-V:
	 * the PPN, address bit 12 up, sits at entry bit 10: 2); `addr` is the
	 * field's bits in the entry. 0: the address sits in place. */
	unsigned addr_shift;
};

/* The table or page address entry `e` holds. */
static inline uint64_t io_pgtable_entry_addr(const struct io_pgtable_fmt *f, uint64_t e)
{
	return (e & f->addr) << f->addr_shift;
}

struct io_pgtable_cfg {
	unsigned levels;     /* 2 to 6 */
	unsigned addr_bits;  /* IOVAs below 2^addr_bits (at most 63) */
	uint64_t page_sizes; /* leaves offered: bit n set for 2^n bytes */
	/* after every table write: make [p, p + n) visible to the unit */
	void (*sync)(const void *p, size_t n, void *ctx);
	void *ctx;
	unsigned granule_bits; /* log2 of a table's (and the smallest leaf's) bytes: 12, 14, 16; 0: 12 */
	uint64_t limit;	       /* tables below this address (the unit's reach); 0: anywhere */
	/* The entry format of the trees built with this configuration, for a
	 * driver whose trees differ by mode (VT-d's first and second stage);
	 * the calls below still take theirs. NULL: the caller knows it. */
	const struct io_pgtable_fmt *fmt;
	/* The top level resolves this many bits more than a stride: 2^n
	 * tables concatenated into one, aligned to its size (VMSA stage 2,
	 * Arm ARM D8.2: up to 16), which saves a level. 0: one table. */
	unsigned top_extra_bits;
};

/* A domain: its tree and its id. */
struct io_pgtable {
	uint16_t did;
	const struct io_pgtable_cfg *cfg;
	uint64_t *top;
	void **pages; /* every table (granule-aligned), freed with the domain */
	void **raw;   /* what was allocated for each (larger than a table when aligning it needed more) */
	size_t *rawn; /* its 4 KiB pages */
	size_t npages, cap;
	enum iommu_err err; /* why the last call that failed did */
};

/* An empty tree for domain `did` (whatever `d` held is freed first). NULL
 * or why not (d->err NOMEM). */
const char *io_pgtable_alloc(const struct io_pgtable_fmt *f, struct io_pgtable *d, const struct io_pgtable_cfg *cfg,
			     uint16_t did);
/* Every table page back to the platform; the domain id stays. */
void io_pgtable_free(struct io_pgtable *d);
/* [iova, iova + size) -> [phys, ...) in leaves of `page` bytes with `perm`.
 * A leaf of the same size already there is replaced; a larger leaf over
 * the range, or a table of smaller ones under it, is refused (ARGUMENT). On
 * an error the leaves before it stay. NULL or why not, with d->err:
 * UNSUPPORTED (a leaf size not offered), ARGUMENT (misaligned, empty,
 * beyond the address width, no permission), NOMEM. */
const char *io_pgtable_map(const struct io_pgtable_fmt *f, struct io_pgtable *d, uint64_t iova, uint64_t phys,
			   uint64_t size, unsigned perm, uint64_t page);
/* Clears the leaves covering [iova, iova + size), which must start and end
 * on leaf boundaries and be mapped throughout (else ARGUMENT, with the
 * leaves before the bad one cleared). Tables left empty stay. */
const char *io_pgtable_unmap(const struct io_pgtable_fmt *f, struct io_pgtable *d, uint64_t iova, uint64_t size);
/* Identity [base, end) rounded out to the granule, in the largest leaves that
 * fit; what is already mapped there is kept. */
const char *io_pgtable_identity(const struct io_pgtable_fmt *f, struct io_pgtable *d, uint64_t base, uint64_t end);
/* The walk the unit makes: where `iova` leads, with the permission every
 * level allows and the leaf's level (4 KiB granule 1: 4 KiB, 2: 2 MiB, 3: 1 GiB); false
 * when the walk ends at an entry not present or refused. A table entry
 * that skips levels is followed only where the skipped indexes are 0. */
bool io_pgtable_walk(const struct io_pgtable_fmt *f, const struct io_pgtable *d, uint64_t iova, uint64_t *phys,
		     unsigned *perm, unsigned *level);

/* The leaf entry `iova` leads to (its level in *level), for a driver that
 * changes a leaf's own bits (an access flag cleared); NULL when the walk
 * ends before a leaf. The caller makes its change visible (cfg->sync). */
uint64_t *io_pgtable_leaf_entry(const struct io_pgtable_fmt *f, const struct io_pgtable *d, uint64_t iova,
				unsigned *level);

/* A tree `d` that is `from` except that `iova` leads to the leaf `phys`
 * (of the size already mapped there, with its permission): the tables on
 * the way to it are copies that `d` owns, every other table is shared with
 * `from` (and freed with it, not with `d`). For a unit whose cached
 * configuration still names `from`'s top (a stale-configuration probe).
 * ARGUMENT when nothing is mapped at `iova`. */
const char *io_pgtable_fork(const struct io_pgtable_fmt *f, struct io_pgtable *d, const struct io_pgtable *from,
			    uint64_t iova, uint64_t phys);

/* `n` 4 KiB pages from the platform below `limit` (0: anywhere), aligned
 * to `align` bytes (a power of two): what to free is *raw, *rawn pages
 * (more than n when aligning took more). NULL when there was no memory. */
void *io_pgtable_pages(size_t n, uint64_t align, uint64_t limit, void **raw, size_t *rawn);

/* Bytes a leaf at `level` maps, at the 4 KiB granule. */
static inline uint64_t io_pgtable_level_size(unsigned level)
{
	return 1ull << (12 + 9 * (level - 1));
}

static inline unsigned io_pgtable_granule_bits(const struct io_pgtable_cfg *c)
{
	return c->granule_bits ? c->granule_bits : 12;
}

/* Bytes a leaf at `level` maps at the tree's granule. */
static inline uint64_t io_pgtable_leaf_size(const struct io_pgtable_cfg *c, unsigned level)
{
	unsigned g = io_pgtable_granule_bits(c);
	unsigned shift = g + (g - 3) * (level - 1);
	return shift < 64 ? 1ull << shift : 0;
}

#endif
