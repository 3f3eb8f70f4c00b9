"""What changed between two runs of the same plan, and whether it is a
regression a pipeline should stop on.

Tests are matched by name and occurrence (the second `vtd.latency` of a
file with the second of the other); measures by test, path, backend,
variant and occurrence. A verdict from pass or skip to fail or crashed,
from pass to skip or not applicable, and a test that vanished are
regressions, except a pass that became a skip with reason `excluded`:
NEW's plan left it out on purpose (run --skip), which is reported as
changed. A skip or not-applicable whose reason code changed is reported.

A measure's median (and its p99, where both runs took at least 100
samples) is slower, a regression, only when three things hold:

  practically large  it moved by more than REL (and more than FLOOR ns),
                     both as it is and against its neighbours' shift;
  beyond the drift   that move, in log terms, is more than K times the
                     drift D of the other tests' figures (never its own:
                     a figure that moved, or its test, does not widen
                     the yardstick it is judged by; in a run of one test
                     D is 0 and the sampling test decides);
  statistically      the two runs' intervals of that quantile do not
  supported          overlap, the base's moved by its neighbours' shift
                     where that makes them nearer. Each interval is
                     distribution-free, the order statistics of the
                     samples' histogram taken at the bins' outer edges,
                     at level 1 - ALPHA/M, M the number of quantiles
                     compared: when the runs' samples are draws from the
                     same distributions, the chance that any figure of the
                     comparison is called is at most ALPHA (Bonferroni).

Timings drift between runs, and not only by sampling: under TCG a whole
test's figures move by 1.4x from one pass to the next in one boot, and one
path in a hundred moves 2x from one boot to the next while its neighbours
stay (measured; the README's price section has the figures). So a figure's
neighbours' shift is the median log ratio of the nearest figures of the
same path and quantile from other tests (4 before it and 4 after, in the
order they were taken), and D is the 90th percentile of how far the other
tests' figures moved against their neighbours: a pair of runs that drifted much
calls only large moves; a pair that drifted little, as silicon's do,
calls small ones. A figure judged against other tests' figures means a
test that regressed as a whole still stands out. A shift of a whole test
or of the whole run beyond REL is reported as changed on a line of its
own, and with --machine-wide it counts as a regression (a firmware that
slows the whole machine). Records without histograms (iommon before they
carried them) lack the third test and say so. Faster beyond the same three
is reported. REL 0.10, K 3, ALPHA 0.05 and FLOOR 20 ns by default.
"""

import math

import samples
from records import measure_key

BAD = ("fail", "crashed")
P99_MIN_N = 100
NEAR = 4  # the tests nearest a figure that give its neighbours' shift


def _by_occurrence(items, key):
    out, seen = {}, {}
    for it in items:
        k = key(it)
        seen[k] = seen.get(k, 0) + 1
        out[k + (seen[k],)] = it
    return out


def _name(k):
    """A key with its occurrence, as a person reads it."""
    base = "/".join(k[:-1]) if len(k) > 2 else k[0]
    return base if k[-1] == 1 else "%s (#%d)" % (base, k[-1])


def _verdict_regressed(b, n):
    """Is base Test b -> new Test n a regression? A pass that no longer
    applies is one too: what the base proved, the new run did not (a unit
    that vanished from the firmware's tables reads so)."""
    if n.verdict in BAD and b.verdict not in BAD:
        return True
    return b.verdict == "pass" and n.verdict in ("skip", "na") and n.reason != "excluded"


def _machine(p):
    """The machine and its firmware build, from the platform record's SMBIOS fields."""
    if not p.get("bios_version") and not p.get("system_product"):
        return ""
    return "; %s %s, serial %s; BIOS %s %s (%s)" % (
        p.get("system_manufacturer") or "?", p.get("system_product") or "?", p.get("system_serial") or "none",
        p.get("bios_vendor") or "?", p.get("bios_version") or "?", p.get("bios_date") or "no date")


def _verdict_words(t):
    return "%s (%s)" % (t.verdict, t.reason) if t.verdict in ("skip", "na") and t.reason else t.verdict


def _ns_per_unit(m):
    """ns per unit of the record's samples: from its counter's frequency
    where they are cycles, 1 where they are ns, None otherwise."""
    if m.get("unit") == "cycles" and m.get("counter_hz"):
        return 1e9 / m["counter_hz"]
    return 1.0 if m.get("unit") == "ns" else None


def _median(v):
    v = sorted(v)
    n = len(v)
    return (v[n // 2] + v[(n - 1) // 2]) / 2 if n else 0.0


class _Pair:
    """One quantile of one measure in both runs."""

    def __init__(self, key, which, bm, nm):
        self.key, self.which, self.bm, self.nm = key, which, bm, nm
        self.b, self.n = float(bm[which]), float(nm[which])
        self.log = math.log(self.n / self.b) if self.b > 0 and self.n > 0 else None
        self.q = 0.5 if which == "p50" else 0.99


def _pairs(base, new):
    """(pairs, lines): every quantile the two runs can be compared on."""
    bm = _by_occurrence(base.measures, measure_key)
    nm = _by_occurrence(new.measures, measure_key)
    pairs, lines = [], []
    for key, m in bm.items():
        if key not in nm:
            lines.append("vanished   measure %s" % _name(key))
            continue
        o = nm[key]
        if m.get("unit") != o.get("unit") or (_ns_per_unit(m) is None) != (_ns_per_unit(o) is None):
            lines.append("warning: measure %s: the runs give it in different units: not compared" % _name(key))
            continue
        pairs.append(_Pair(key, "p50", m, o))
        if min(m.get("n", 0), o.get("n", 0)) >= P99_MIN_N:
            pairs.append(_Pair(key, "p99", m, o))
    for key in nm:
        if key not in bm:
            lines.append("appeared   measure %s" % _name(key))
    return pairs, lines


def _local_shifts(pairs, near):
    """{id(pair): log shift}: how the tests measured nearest each figure
    moved. Each other test votes once, with the median log ratio of its
    figures of the same path and quantile; the `near` tests nearest in the
    order they ran (half before, half after, where there are) give the
    median of their votes. A DMA drifts with the device's emulation or the
    bus, a map with the CPU: each is judged against its own kind. One vote
    a test, and never its own: a test that regressed as a whole stands out
    and does not move its neighbours' yardstick. Where no other test
    measured that path, the other tests' medians over every path; where
    there is no other test, 0."""
    order = {}
    for p in pairs:
        order.setdefault(p.key[0], len(order))
    votes, anypath = {}, {}
    for p in pairs:
        if p.log is not None:
            votes.setdefault((p.which, p.key[1], p.key[0]), []).append(p.log)
            anypath.setdefault((p.which, p.key[0]), []).append(p.log)
    out = {}
    for p in pairs:
        if p.log is None:
            continue
        mine = order[p.key[0]]
        cands = [(t, _median(v)) for (w, path, t), v in votes.items()
                 if w == p.which and path == p.key[1] and t != p.key[0]]
        if not cands:
            cands = [(t, _median(v)) for (w, t), v in anypath.items() if w == p.which and t != p.key[0]]
        before = sorted((c for c in cands if order[c[0]] < mine), key=lambda c: -order[c[0]])
        after = sorted((c for c in cands if order[c[0]] > mine), key=lambda c: order[c[0]])
        half = near // 2
        take = before[:max(half, near - len(after))] + after[:max(half, near - len(before))]
        out[id(p)] = _median([v for _, v in take]) if take else 0.0
    return out


def _shift_lines(pairs, rel, machine_wide):
    """(lines, regressions): the run's and each test's shared shift (the
    median of its figures' log ratios) where it is beyond REL."""
    lines, regs = [], 0
    groups = [("machine-wide", None)] + [("test-wide " + t, t) for t in sorted({p.key[0] for p in pairs})]
    for which in ("p50", "p99"):
        for name, test in groups:
            logs = [p.log for p in pairs if p.which == which and p.log is not None and test in (None, p.key[0])]
            f = _median(logs)
            if len(logs) < 5 or abs(math.exp(f) - 1) <= rel:
                continue
            slower = f > 0
            regs += slower and machine_wide
            lines.append("%s %s: every %s moved %+.0f%% (the median over %d figures)%s" % (
                "REGRESSION" if slower and machine_wide else "changed   ", name, which, (math.exp(f) - 1) * 100,
                len(logs), "" if machine_wide or not slower else ": a regression with --machine-wide"))
    return lines, regs


def _drift(resid):
    """The pair's drift D for one quantile: the 90th percentile of how far
    (in log terms) its figures moved against their neighbours, the largest
    such move where there are fewer than 10. Not a standard deviation:
    boot-to-boot moves are heavy-tailed (under TCG one path in a hundred
    moves 2x while its neighbours stay), and a high percentile follows that
    tail where a median absolute deviation does not; with few figures
    nothing better than the largest is known."""
    v = sorted(abs(r) for r in resid)
    if not v:
        return 0.0
    return v[(len(v) * 9) // 10] if len(v) >= 10 else v[-1]


def _times(x):
    """e^x, a factor the rule line prints: a pair of runs whose figures
    differ by up to 2^64 against 1e-9 (what records.py admits) drifts by
    D up to about 130, and a large K times that is past a double."""
    return math.exp(min(x, 700.0))


def _compare_measures(base, new, rel, k, floor_ns, alpha, machine_wide):
    """(lines, regressions, the rule in words) for the measures of two runs."""
    pairs, lines = _pairs(base, new)
    shift = _local_shifts(pairs, NEAR)
    slines, regs = _shift_lines(pairs, rel, machine_wide)
    lines += slines
    # each figure against the drift of the other tests' figures: its own
    # move (and its test's, should the whole test have moved) must not
    # widen the yardstick it is judged by; in a run of one test nothing
    # else has drifted, and the sampling test alone decides
    resid = {w: [(p.key[0], p.log - shift[id(p)]) for p in pairs if p.which == w and p.log is not None]
             for w in ("p50", "p99")}
    drift = {w: _drift([r for _, r in resid[w]]) for w in resid}
    drift_of = {(w, t): _drift([r for u, r in resid[w] if u != t]) for w in resid for t in {u for u, _ in resid[w]}}
    # figures with no other test's beside them: their drift is unknown
    alone = sum(1 for w in resid for u, _ in resid[w] if not any(v != u for v, _ in resid[w]))
    tested = [p for p in pairs if samples.bins(p.bm) and samples.bins(p.nm)]
    gamma = alpha / max(1, len(tested))
    for p in pairs:
        f = math.exp(shift[id(p)]) if p.log is not None else 1.0
        slower = p.n > p.b
        # against the base's figure as it is and as the figures beside it
        # moved, whichever is the nearer: a figure is called only when both
        # its own move and its move against its neighbours are large
        g = max(1.0, f) if slower else min(1.0, f)
        expect = p.b * g
        ns = _ns_per_unit(p.bm) or 1.0
        floor = floor_ns / ns if _ns_per_unit(p.bm) else 1.0
        if (p.n > expect) != slower or abs(p.n - expect) <= max(rel * expect, floor):
            continue
        if p.log is not None and abs(p.log - math.log(f)) <= k * drift_of[(p.which, p.key[0])]:
            continue
        pv = samples.quantile_test(p.bm, p.nm, p.q, g, slower)
        if pv is not None:
            if pv > gamma:
                continue
            why = "p %.1e, called below %.1e" % (pv, gamma)
        else:
            why = "no samples in the records: not tested against the runs' own spread"
        regs += slower
        unit = "ns" if _ns_per_unit(p.bm) else p.bm["unit"]
        pct = "%+.0f%%" % ((p.n - p.b) * 100.0 / p.b) if p.b else "from 0"
        shared = " beyond its neighbours' %+.0f%%" % ((f - 1) * 100) if abs(f - 1) > 0.005 else ""
        lines.append("%s %s measure %s: %s %.1f -> %.1f %s (%s%s; %s)" % (
            "REGRESSION" if slower else "changed   ", "slower" if slower else "faster", _name(p.key), p.which,
            p.b * ns, p.n * ns, unit, pct, shared, why))
    rule = ("REL %.2f; K %.1f x the drift D of the other tests' figures (over all, p50 %.3f, p99 %.3f: moves within "
            "x%.2f, x%.2f not called); "
            "ALPHA %.2f over %d quantiles; FLOOR %.0f ns%s") % (
        rel, k, drift["p50"], drift["p99"], _times(k * drift["p50"]), _times(k * drift["p99"]), alpha,
        len(tested), floor_ns, "; machine-wide shifts count" if machine_wide else "")
    if alone:
        rule += ("; %d figure%s with no other test's to tell the runs' drift by: a boot-to-boot move there reads as "
                 "a change" % (alone, "" if alone == 1 else "s"))
    return lines, regs, rule


def compare(base, new, rel=0.10, k=3.0, floor_ns=20.0, alpha=0.05, machine_wide=False):
    """(lines, regressions): a report for people, and how many regressions."""
    lines, regressions = [], 0
    for tag, r in (("base", base), ("new ", new)):
        p = r.platform
        lines.append("%s %s: %d tests, %d measures; iommon %s on %s, %s%s" % (
            tag, r.path, len(r.tests), len(r.measures), p.get("iommon", "?"), p.get("platform", "?"),
            p.get("firmware", "?"), _machine(p)))
    if base.platform.get("platform") != new.platform.get("platform"):
        lines.append("warning: the runs are on different platforms: figures are not comparable like for like")
    for field in ("system_serial", "system_product"):
        b, n = base.platform.get(field), new.platform.get(field)
        if b and n and b != n:
            lines.append("warning: the runs are of different machines (%s %s, %s): figures are not comparable "
                         "like for like" % (field, b, n))
            break

    bt = _by_occurrence(base.tests, lambda t: (t.name,))
    nt = _by_occurrence(new.tests, lambda t: (t.name,))
    for key in bt:
        b, n = bt[key], nt.get(key)
        if n and _verdict_words(b) != _verdict_words(n):
            bad = _verdict_regressed(b, n)
            regressions += bad
            lines.append("%s verdict %s: %s -> %s (%s)" % ("REGRESSION" if bad else "changed   ", _name(key),
                                                          _verdict_words(b), _verdict_words(n), n.detail or b.detail))
    for key in bt:
        if key not in nt:
            regressions += 1
            lines.append("REGRESSION vanished test %s (was %s)" % (_name(key), bt[key].verdict))
    for key in nt:
        if key not in bt:
            lines.append("appeared   test %s (%s)" % (_name(key), nt[key].verdict))

    mlines, mregs, rule = _compare_measures(base, new, rel, k, floor_ns, alpha, machine_wide)
    lines += mlines
    regressions += mregs
    lines.append("compare: %d regression%s (rule: %s; see 'iommon-report --help')" % (
        regressions, "" if regressions == 1 else "s", rule))
    return lines, regressions
