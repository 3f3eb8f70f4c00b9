#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

static uint64_t nearest_rank(const uint64_t *sorted, size_t n, unsigned pct)
{
	/* rank = ceil(pct/100 * n), 1-based */
	size_t rank = (size_t)((pct * (uint64_t)n + 99) / 100);
	if (rank < 1)
		rank = 1;
	return sorted[rank - 1];
}

int stats_compute(uint64_t *samples, size_t n, struct stats *out)
{
	if (n == 0)
		return -1;
	qsort(samples, n, sizeof(*samples), cmp_u64);
	out->n = n;
	out->min = samples[0];
	out->max = samples[n - 1];
	out->p50 = nearest_rank(samples, n, 50);
	out->p90 = nearest_rank(samples, n, 90);
	out->p99 = nearest_rank(samples, n, 99);

	/* Welford: stable for large cycle counts */
	double mean = 0, m2 = 0;
	for (size_t i = 0; i < n; i++) {
		double x = (double)samples[i], d = x - mean;
		mean += d / (double)(i + 1);
		m2 += d * (x - mean);
	}
	out->mean = mean;
	out->stddev = sqrt(m2 / (double)n);
	return 0;
}

bool stats_median_ci_ranks(size_t n, size_t *l, size_t *u)
{
	if (n < 6)
		return false;
	/* P(B = k) from k = 0 up, in logs (2^-n underflows for large n) */
	double logp = -(double)n * log(2.0), tail = 0;
	size_t k = 0;
	for (;; k++) {
		double next = tail + exp(logp);
		if (next > 0.025)
			break;
		tail = next;
		logp += log((double)(n - k) / (double)(k + 1));
	}
	/* P(B <= k - 1) <= 2.5 % < P(B <= k): rank k is the lower bound */
	*l = k;
	*u = n + 1 - k;
	return k >= 1;
}

bool stats_median_ci(const uint64_t *sorted, size_t n, uint64_t *lo, uint64_t *hi)
{
	size_t l, u;
	if (!stats_median_ci_ranks(n, &l, &u))
		return false;
	*lo = sorted[l - 1];
	*hi = sorted[u - 1];
	return true;
}

/* xorshift64*: the bootstrap's draws, from a fixed seed */
static uint64_t draw(uint64_t *state)
{
	uint64_t x = *state;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545f4914f6cdd1dull;
}

/* The k-th smallest (0-based) of v[0..n), by Wirth's selection (Hoare's
 * partition around v[k] until k stands where the sorted order puts it);
 * v is reordered. Signed indices: j may step below 0. */
static uint64_t kth(uint64_t *v, size_t n, size_t k)
{
	long l = 0, m = (long)n - 1, kk = (long)k;
	while (l < m) {
		uint64_t x = v[kk];
		long i = l, j = m;
		do {
			while (v[i] < x)
				i++;
			while (x < v[j])
				j--;
			if (i <= j) {
				uint64_t t = v[i];
				v[i] = v[j], v[j] = t;
				i++, j--;
			}
		} while (i <= j);
		if (j < kk)
			l = i;
		if (kk < i)
			m = j;
	}
	return v[kk];
}

/* the nearest-rank median's 0-based index: ceil(n / 2) - 1 */
static size_t median_at(size_t n)
{
	return (n + 1) / 2 - 1;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

bool stats_ratio_ci(const uint64_t *a, size_t na, const uint64_t *b, size_t nb, double *ratio, double *lo, double *hi)
{
	if (na < 6 || nb < 6)
		return false;
	uint64_t *s = malloc((na > nb ? na : nb) * sizeof(*s));
	double *r = malloc(STATS_BOOTSTRAP * sizeof(*r));
	if (!s || !r) {
		free(s), free(r);
		return false;
	}
	memcpy(s, a, na * sizeof(*s));
	uint64_t ma = kth(s, na, median_at(na));
	memcpy(s, b, nb * sizeof(*s));
	uint64_t mb = kth(s, nb, median_at(nb));
	bool ok = mb != 0;
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	for (size_t i = 0; ok && i < STATS_BOOTSTRAP; i++) {
		for (size_t k = 0; k < na; k++)
			s[k] = a[draw(&seed) % na];
		double xa = (double)kth(s, na, median_at(na));
		for (size_t k = 0; k < nb; k++)
			s[k] = b[draw(&seed) % nb];
		double xb = (double)kth(s, nb, median_at(nb));
		/* a resample whose median of b is 0 has no ratio: the interval is unbounded */
		r[i] = xb > 0 ? xa / xb : HUGE_VAL;
	}
	if (ok) {
		qsort(r, STATS_BOOTSTRAP, sizeof(*r), cmp_double);
		*ratio = (double)ma / (double)mb;
		*lo = r[STATS_BOOTSTRAP * 25 / 1000];
		*hi = r[STATS_BOOTSTRAP * 975 / 1000 - 1];
	}
	free(s), free(r);
	return ok;
}

bool stats_mean_ci(const uint64_t *x, size_t n, double *mean, double *lo, double *hi)
{
	if (n < 6)
		return false;
	double *r = malloc(STATS_BOOTSTRAP * sizeof(*r)), sum = 0;
	if (!r)
		return false;
	for (size_t k = 0; k < n; k++)
		sum += (double)x[k];
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	for (size_t i = 0; i < STATS_BOOTSTRAP; i++) {
		double s = 0;
		for (size_t k = 0; k < n; k++)
			s += (double)x[draw(&seed) % n];
		r[i] = s / (double)n;
	}
	qsort(r, STATS_BOOTSTRAP, sizeof(*r), cmp_double);
	*mean = sum / (double)n;
	*lo = r[STATS_BOOTSTRAP * 25 / 1000];
	*hi = r[STATS_BOOTSTRAP * 975 / 1000 - 1];
	free(r);
	return true;
}

enum stats_verdict stats_ratio_verdict(double lo, double hi)
{
	return lo > 1.0 ? STATS_HIGHER : hi < 1.0 ? STATS_LOWER : STATS_INCONCLUSIVE;
}

const char *stats_verdict_name(enum stats_verdict v)
{
	return v == STATS_HIGHER ? "higher" : v == STATS_LOWER ? "lower" : "inconclusive";
}

unsigned stats_bin(uint64_t v)
{
	if (v < 32)
		return (unsigned)v;
	unsigned k = 63u - (unsigned)__builtin_clzll(v); /* v's octave: 2^k <= v */
	return 16u * (k - 3u) + (unsigned)((v >> (k - 4u)) & 15u);
}

uint64_t stats_bin_low(unsigned b)
{
	if (b < 32)
		return b;
	if (b >= STATS_BINS)
		return UINT64_MAX;
	unsigned k = b / 16u + 3u;
	return (16ull + b % 16u) << (k - 4u);
}

size_t stats_hist(const uint64_t *sorted, size_t n, unsigned *first, int64_t *out, size_t cap)
{
	if (n == 0)
		return 0;
	size_t len = 0;
	unsigned prev = *first = stats_bin(sorted[0]);
	for (size_t i = 0; i < n;) {
		unsigned b = stats_bin(sorted[i]);
		size_t run = 0;
		while (i < n && stats_bin(sorted[i]) == b)
			i++, run++;
		if (b > prev + 1) {
			if (len >= cap)
				return 0;
			out[len++] = -(int64_t)(b - prev - 1);
		}
		if (len >= cap)
			return 0;
		out[len++] = (int64_t)run;
		prev = b;
	}
	return len;
}
