"""A measure's samples, as its record keeps them: the log-binned histogram
(README "Output contract", `hist`), and distribution-free intervals of its
quantiles read from it.

The bins are the monitor's (core/base/stats.c): a value below 32 has a bin
of its own; above, each octave [2^k, 2^(k+1)) is cut into 16 equal bins.
`hist_from` is the first occupied bin, `hist` the counts from there on, a
run of k empty bins written as -k.
"""

import math
from statistics import NormalDist

BINS = 976
_EXACT_N = 3000  # exact binomial tails up to here, the normal approximation past it


def bin_of(v):
    """The bin value v (a whole number of the record's unit) falls in."""
    v = int(v)
    if v < 32:
        return max(0, v)
    k = v.bit_length() - 1
    return 16 * (k - 3) + ((v >> (k - 4)) & 15)


def bin_low(b):
    """The lowest value bin b holds (bin b + 1's is where it ends)."""
    if b < 32:
        return b
    if b >= BINS:
        return 2 ** 64 - 1
    k = b // 16 + 3
    return (16 + b % 16) << (k - 4)


def bins(rec):
    """[(low, high, count)] of the record's occupied bins in order, high
    exclusive; None when the record keeps no histogram or it does not add
    up to its n."""
    first, hist = rec.get("hist_from"), rec.get("hist")
    if not isinstance(first, int) or not isinstance(hist, list) or not hist:
        return None
    out, b = [], first
    for c in hist:
        if not isinstance(c, int) or c == 0:
            return None
        if c < 0:
            b -= c
            continue
        out.append((bin_low(b), bin_low(b + 1), c))
        b += 1
    if sum(c for _, _, c in out) != rec.get("n"):
        return None
    return out


_ranks_cache = {}


def _ranks(n, q, gamma):
    """(l, u), 1-based: with B ~ Bin(n, q), P(B <= l - 1) <= gamma/2 and
    P(B >= u) <= gamma/2, so [x(l), x(u)] holds the q-quantile with at
    least 1 - gamma. l is 0 where no sample bounds it from below, u is
    n + 1 where none bounds it from above."""
    key = (n, q, gamma)
    if key in _ranks_cache:
        return _ranks_cache[key]
    if n <= _EXACT_N:
        lq, lp = math.log(q), math.log1p(-q)
        cdf, cum = [], 0.0
        for k in range(n + 1):  # P(B <= k)
            cum += math.exp(math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1) + k * lq + (n - k) * lp)
            cdf.append(cum)
        lo = 0
        while lo < n and cdf[lo] <= gamma / 2:  # P(B <= lo) <= gamma/2: rank lo + 1 still bounds
            lo += 1
        up = n + 1
        while up - 2 >= 0 and 1 - cdf[up - 2] <= gamma / 2:  # P(B >= up - 1) <= gamma/2
            up -= 1
        out = (lo, up)
    else:
        z = NormalDist().inv_cdf(1 - gamma / 2)
        sd = math.sqrt(n * q * (1 - q))
        out = (max(0, math.floor(n * q - z * sd)), min(n + 1, math.ceil(n * q + z * sd) + 1))
    _ranks_cache[key] = out
    return out


def interval(rec, q, gamma):
    """The q-quantile's interval at level 1 - gamma, in the record's unit:
    the bin edges around the order statistics (so never narrower than the
    samples allow); 0 or None at an end no sample bounds. None when the
    record keeps no histogram."""
    b = bins(rec)
    if b is None:
        return None
    n = rec["n"]
    l, u = _ranks(n, q, gamma)
    lo = hi = None
    seen = 0
    for low, high, c in b:
        if l >= 1 and lo is None and seen + c >= l:
            lo = low
        if u <= n and hi is None and seen + c >= u:
            hi = high
        seen += c
    return (lo if l >= 1 else 0), hi


def _log_choose(n, k):
    return math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)


def _upper_tail(x, n_new, n_base, above):
    """P(A >= x), A the count of new's samples among the `above` samples
    above the cut, drawn without replacement from n_new + n_base
    (hypergeometric: which run a sample came from is all chance)."""
    total = n_new + n_base
    hi = min(n_new, above)
    if x > hi:
        return 0.0
    den = _log_choose(total, above)
    return min(1.0, sum(math.exp(_log_choose(n_new, a) + _log_choose(n_base, above - a) - den)
                        for a in range(max(x, above - n_base, 0), hi + 1)))


def quantile_test(base, new, q, scale, slower):
    """One-sided p-value that NEW's q-quantile lies above (slower) or below
    BASE's times `scale`: Mood's test generalised to a quantile. The cut is
    the bin edge with about a fraction q of both runs' samples below it;
    Fisher's exact test then asks how likely so many of NEW's samples fall
    on the far side of it if it made no difference which run a sample came
    from. BASE's samples are moved by `scale`; a bin the cut falls inside
    (BASE's moved bins need not meet NEW's edges) has its samples counted
    on the side that weakens the call, in either run. None when either
    record keeps no histogram."""
    bb, nb = bins(base), bins(new)
    if bb is None or nb is None:
        return None
    n_new, n_base = new["n"], base["n"]

    def base_below(edge):  # base samples surely below edge/scale (slower) or possibly below (faster)
        c = edge / scale
        return sum(k for low, high, k in bb if (high <= c if slower else low < c))

    def new_below(edge):  # new samples possibly below the edge (slower) or surely below (faster)
        return sum(k for low, high, k in nb if (low < edge if slower else high <= edge))

    edges = sorted({low for low, _, _ in nb} | {high for _, high, _ in nb} |
                   {low * scale for low, _, _ in bb} | {high * scale for _, high, _ in bb})
    want = q * (n_new + n_base)
    cut = min(edges, key=lambda e: abs(new_below(e) + base_below(e) - want))
    nbel, bbel = new_below(cut), base_below(cut)
    if slower:  # NEW's samples above the cut
        return _upper_tail(n_new - nbel, n_new, n_base, (n_new - nbel) + (n_base - bbel))
    return _upper_tail(nbel, n_new, n_base, nbel + bbel)
