"""What changed between two runs of the same plan, and whether it is a
regression a pipeline should stop on.

Tests are matched by name and occurrence (the second `vtd.latency` of a
file with the second of the other); measures by test, path, backend,
variant and occurrence. With S the base run's own spread, p99 - p50 (in
ns where the records give ns, else in their unit), a measure moved when

    |new p50 - base p50| > max(REL x base p50, K x S, FLOOR)
    |new p99 - base p99| > max(REL x base p99, 2K x S, FLOOR)

REL 0.10, K 1 and FLOOR 20 ns by default (--rel, --k, --floor-ns; the
floor is 1 in a unit other than ns). With K 1 a median is slower when it
lies beyond where the base run's p99 was. p99 is compared only when both
runs took at least 100 samples (below that it is the slowest sample or
next to it). S is the base run's: a regression that also widens the
spread (a uniformly slower path) would otherwise raise its own threshold.
Slower beyond the threshold is a regression, faster is reported. A
verdict from pass or skip to fail or crashed, from pass to skip, and a
test that vanished are regressions, except a pass that became a skip with
reason `excluded`: NEW's plan left it out on purpose (run --skip), which is
reported as changed. A skip whose reason code changed is reported.
"""

from records import measure_key, measure_value

BAD = ("fail", "crashed")
P99_MIN_N = 100


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
    """Is base Test b -> new Test n a regression?"""
    if n.verdict in BAD and b.verdict not in BAD:
        return True
    return b.verdict == "pass" and n.verdict == "skip" and n.reason != "excluded"


def _machine(p):
    """The machine and its firmware build, from the platform record's SMBIOS fields."""
    if not p.get("bios_version") and not p.get("system_product"):
        return ""
    return "; %s %s, serial %s; BIOS %s %s (%s)" % (
        p.get("system_manufacturer") or "?", p.get("system_product") or "?", p.get("system_serial") or "none",
        p.get("bios_vendor") or "?", p.get("bios_version") or "?", p.get("bios_date") or "no date")


def _verdict_words(t):
    return "%s (%s)" % (t.verdict, t.reason) if t.verdict == "skip" and t.reason else t.verdict


def _moved(bm, nm, rel, k, floor_ns):
    """[(which, base, new, threshold, unit)] for p50 and p99 past their thresholds."""
    b50, ub = measure_value(bm, "p50")
    n50, un = measure_value(nm, "p50")
    b99, _ = measure_value(bm, "p99")
    n99, _ = measure_value(nm, "p99")
    if ub != un:
        return None  # one run has no counter rate: not comparable
    floor = floor_ns if ub == "ns" else 1.0
    spread = max(0.0, b99 - b50)
    out = []
    for which, b, n, kk in (("p50", b50, n50, k), ("p99", b99, n99, 2 * k)):
        if which == "p99" and min(bm.get("n", 0), nm.get("n", 0)) < P99_MIN_N:
            continue
        thr = max(rel * b, kk * spread, floor)
        if abs(n - b) > thr:
            out.append((which, b, n, thr, ub))
    return out


def compare(base, new, rel=0.10, k=1.0, floor_ns=20.0):
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

    bm = _by_occurrence(base.measures, measure_key)
    nm = _by_occurrence(new.measures, measure_key)
    for key, m in bm.items():
        if key not in nm:
            lines.append("vanished   measure %s" % _name(key))
            continue
        moved = _moved(m, nm[key], rel, k, floor_ns)
        if moved is None:
            lines.append("warning: measure %s: one run gives ns and the other does not: not compared" % _name(key))
            continue
        for which, b, n, thr, unit in moved:
            slower = n > b
            regressions += slower
            pct = "%+.0f%%" % ((n - b) * 100.0 / b) if b else "from 0"
            lines.append("%s %s measure %s: %s %.1f -> %.1f %s (%s; threshold %.1f)" % (
                "REGRESSION" if slower else "changed   ", "slower" if slower else "faster", _name(key), which,
                b, n, unit, pct, thr))
    for key in nm:
        if key not in bm:
            lines.append("appeared   measure %s" % _name(key))
    lines.append("compare: %d regression%s (rule: REL %.2f, K %.1f, FLOOR %.0f ns; see 'iommon-report --help')" % (
        regressions, "" if regressions == 1 else "s", rel, k, floor_ns))
    return lines, regressions
