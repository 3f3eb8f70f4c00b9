#!/usr/bin/python3
"""price_agree.py FILE...: the price table's columns agree on every row.
Each `info/price` record's overhead (the median DMA's whole cost against
'none' at that size) and its `dmas_per_s_p50` (one over that median) are
one statistic: a row's overhead must be the baseline's DMA/s p50 over its
own, within rounding. FILE is a results file or console capture (lines
starting with '{'). Prints "PASS price.agree: ..." or "FAIL price.agree:
..." and exits 0 or 1; a file with no price rows is a FAIL (nothing was
checked)."""

import json
import sys


def rows(path):
    out = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if not line.startswith("{"):
                continue
            try:
                r = json.loads(line)
            except ValueError:
                continue
            if r.get("kind") == "info" and r.get("what") == "price":
                out.append(r)
    return out


def check(recs):
    """(rows checked, backends, problems)"""
    base, checked, backends, problems = {}, 0, set(), []
    for r in recs:
        size = r.get("size")
        key = (r.get("test"), size)
        p50 = r.get("dmas_per_s_p50")
        if r.get("overhead_verdict") == "baseline":
            base[key] = p50
            continue
        pct = r.get("overhead_pct")
        if pct is None or not p50 or not base.get(key):
            continue  # no baseline at that size: '-' in the table
        want = (base[key] / p50 - 1) * 100
        checked += 1
        backends.add(r.get("backend"))
        if abs(want - pct) > 0.5 + abs(want) * 0.005:
            problems.append("%s: overhead %+.1f %% but DMA/s p50 %.0f against the baseline's %.0f says %+.1f %%" % (
                r.get("variant"), pct, p50, base[key], want))
    return checked, backends, problems


def main(paths):
    recs = [r for p in paths for r in rows(p)]
    checked, backends, problems = check(recs)
    if problems or not checked:
        print("FAIL price.agree: %s" % ("; ".join(problems[:3]) if problems else "no price row with a baseline"))
        return 1
    print("PASS price.agree: %d rows on %d backends (%s): each overhead is the baseline's DMA/s p50 over the row's" % (
        checked, len(backends), ", ".join(sorted(str(b) for b in backends))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
