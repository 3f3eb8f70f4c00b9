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
#include "core/base/json.h"
#include "core/base/stats.h"

enum kind { S_NONE, S_PASSTHROUGH, S_STRICT, S_DEFERRED, S_PERSISTENT };

struct strategy {
	char name[40];
	enum kind kind;
	size_t inval; /* strict: the invalidation kind; (size_t)-1: the narrowest */
};

/* A strategy's overhead against translation off ('none'): the ratio of
 * medians as a percentage, with its 95 % bootstrap interval and what it
 * says. */
struct overhead {
	double pct, lo, hi;
	enum stats_verdict verdict;
	bool baseline;	  /* there is a 'none' to be against */
	bool is_baseline; /* this is that 'none' */
	bool interval;	  /* lo/hi hold one (enough samples on both sides) */
};

struct figures {
	char variant[64];
	size_t size, n;
	uint64_t map, unmap, inval;		      /* p50 CPU cycles per DMA */
	uint64_t map_ci[2], unmap_ci[2], inval_ci[2]; /* their medians' 95 % intervals */
	double lat_ci[2];			      /* the latency median's, ns */
	double lat_p50, lat_p99;		      /* ns */
	/* throughput from the mean DMA (the DMAs over the time they took,
	 * every slow one counted): per_dma_ns, dmas_s, mb_s */
	double per_dma_ns, dmas_s, mb_s;
	double dmas_ci[2]; /* DMAs/s's 95 % interval (MB/s's is it times the size) */
	/* each DMA's whole cost (map, DMA, unmap, invalidation): its median
	 * and the median's 95 % interval, ns; and the throughput of that
	 * median DMA, 1 / per_p50: the statistic the overhead compares */
	double per_p50, per_lo, per_hi, dmas_p50_s;
	struct overhead over; /* against 'none' at that size */
	unsigned rounds, warmup;
	unsigned pending_max, probes, reachable;
	bool ran;
	bool skipped; /* not run, for the reason in why */
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
	char err_text[96]; /* err when the engine said it (dma_result.error) */
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

/* The overhead of samples `a` against the baseline's `b` (a == b: the
 * baseline itself; nb == 0: there is none). */
void price_overhead_of(struct overhead *o, const uint64_t *a, size_t na, const uint64_t *b, size_t nb);
/* "+3.1% [-2.0, +8.3] inconclusive", "baseline", or "-" where 'none' did not run */
void price_overhead_words(const struct overhead *o, char *out, size_t n);
/* overhead_pct, _lo_pct, _hi_pct and overhead_verdict, where there is a baseline */
void price_overhead_json(struct json *j, const struct overhead *o);

/* price.c: the group's settings and strategies, for price_queue.c */
bool price_wanted(const char *name);
/* A setting's comma-separated list of whole numbers in [lo, hi], each at
 * most once, PRICE_LIST_MAX at most; NULL, or what was wrong. */
#define PRICE_LIST_MAX 8
const char *price_parse_list(const char *v, size_t *out, size_t *n, unsigned long long lo, unsigned long long hi,
			     const char *what);
/* The same of DMA sizes, 512 bytes to 1 MiB. */
const char *price_parse_sizes(const char *v, size_t *out, size_t *n);
/* The strategies the settings ask for on this unit (strict with each of
 * its invalidation kinds when `kinds`); how many, at most `max`. */
size_t price_strategy_list(const struct env *v, bool kinds, struct strategy *list, size_t max);
/* The invalidation that covers a stream's whole window: domain-wide, else
 * global; (size_t)-1 when the unit offers neither. */
size_t price_flush_kind(const struct iommu *io);

/* The line under a table that says where its figures come from: the
 * platform, the counter and its rate, and under an emulator that they
 * measure the emulator. */
void price_provenance(void);

/* price_queue.c: streams with DMAs in flight */
void price_queue_settings(void);
void price_queue_case(struct test_ctx *t);

#endif
