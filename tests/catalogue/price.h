/* What the price group's files share (price.c: the group, its settings,
 * cases and table; price_stream.c: one strategy's stream of DMAs, its
 * figures and its overhead against translation off), and nobody else. */
#ifndef IOMMON_PRICE_H
#define IOMMON_PRICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench.h"
#include "core/base/dmabuf.h"
#include "core/base/iova.h"
#include "core/base/stats.h"

enum kind { S_NONE, S_PASSTHROUGH, S_STRICT, S_DEFERRED, S_PERSISTENT };

struct strategy {
	char name[40];
	enum kind kind;
	size_t inval; /* strict: the invalidation kind; (size_t)-1: the narrowest */
};

struct figures {
	char variant[64];
	size_t size, n;
	uint64_t map, unmap, inval;		      /* p50 CPU cycles per DMA */
	uint64_t map_ci[2], unmap_ci[2], inval_ci[2]; /* their medians' 95 % intervals */
	double lat_ci[2];			      /* the latency median's, ns */
	double lat_p50, lat_p99;		      /* ns */
	double per_dma_ns, dmas_s, mb_s;
	/* each DMA's whole cost (map, DMA, unmap, invalidation): its median
	 * and the median's 95 % interval, ns */
	double per_p50, per_lo, per_hi;
	/* against 'none' at that size: the ratio of the medians, as a
	 * percentage, with its 95 % bootstrap interval and what it says */
	double overhead, over_lo, over_hi;
	enum stats_verdict verdict;
	bool interval;	  /* over_lo/over_hi hold one (enough DMAs on both sides) */
	bool is_baseline; /* this is the 'none' row the others are against */
	unsigned rounds, warmup;
	unsigned pending_max, probes, reachable;
	bool ran;
	bool skipped;  /* not run, for the reason in why */
	bool baseline; /* overhead is against a 'none' row */
	char why[112];
};

/* The rounds a strategy's DMAs are spread over, each at least this many
 * DMAs of it (fewer DMAs than five rounds' worth: one round). */
#define PRICE_ROUNDS 5
#define PRICE_MIN_BURST 4

/* One strategy's DMAs at one size, gathered over the rounds. */
struct cell {
	struct strategy st;
	struct figures f;
	uint64_t *map, *unmap, *inval, *lat, *per; /* cycles, one a DMA kept */
	size_t cap, got;
	uint64_t total; /* cycles of the DMAs kept, whole */
	const char *err;
	/* The stream's state, kept from burst to burst as one stream's: its
	 * buffer, its own IOVA window (slot `slot`, so no other strategy maps
	 * where its stale translations may still be cached, and those lead only
	 * into its own buffer), the allocator over it, and deferred's freed
	 * IOVAs awaiting their invalidation. */
	bool open;
	bool own_window; /* false: no window of its own below the others (bench_window gave 0) */
	unsigned slot;
	struct dmabuf b;
	struct iova_bitmap alloc;
	uint64_t base, *pend;
	size_t space, npend;
};

/* `n` DMAs of `c`'s strategy at `size` bytes, its set-up before them and
 * its undoing after, both untimed; kept in the cell's samples unless a
 * warm-up. The stream's state is made at its first burst. */
void price_burst(struct env *v, struct cell *c, size_t size, size_t n, bool keep);
/* After its last burst: what deferred left pending invalidated (untimed,
 * as the stream's end), and the stream's state freed. */
void price_cell_close(struct env *v, struct cell *c);
/* The cell's figures from the DMAs it kept, and its measure records. */
void price_finish(struct env *v, struct cell *c, size_t size);
/* Its overhead against the baseline cell `none` (NULL: none ran). */
void price_overhead(struct cell *c, const struct cell *none);

#endif
