"""One self-contained page a person opens from the stick: no script, no
network, plots as inline SVG. Written as well-formed XHTML, so an XML
parser (xmllint, python's) checks the whole page, plots included."""

import math
import os
import re
from xml.sax.saxutils import escape, quoteattr

import records
from records import flat, measure_value, xml_safe

# Fits a 1280-pixel window: the body at most 1240 px, tables at most its
# width with long cells wrapped, plots sized to their labels.
CSS = """
body { font: 14px/1.4 sans-serif; margin: 1em auto; padding: 0 1em; max-width: 1240px; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; max-width: 100%; }
th, td { border: 1px solid #ccc; padding: 2px 6px; text-align: left; vertical-align: top;
         overflow-wrap: anywhere; }
td.n { text-align: right; font-variant-numeric: tabular-nums; overflow-wrap: normal; }
.pass { background: #d9f2d9; } .fail, .crashed { background: #f8d0d0; }
.skip, .na { background: #eee; } .known { background: #fbe9c6; } .finding { background: #fff3b0; }
.banner { font-size: 20px; padding: 0.6em 0.8em; border: 2px solid #888; margin: 0 0 1em; }
.banner .word { font-weight: bold; font-size: 28px; margin-right: 0.4em; }
.banner .about { font-size: 14px; margin-top: 0.3em; }
.banner .why { font-size: 16px; margin-top: 0.3em; }
code { font-size: 12px; } svg { display: block; margin: 0.3em 0 1.2em; max-width: 100%; }
details { margin: 1em 0; } summary { cursor: pointer; font-weight: bold; }
"""

VERDICT_WORDS = {"pass": "pass", "fail": "FAIL", "crashed": "CRASHED", "skip": "skip", "known": "known",
                 "na": "not applicable"}


def _qa(v):
    return quoteattr(xml_safe(v))


def _e(v):
    return escape(xml_safe(v))


def _table(head, rows, numeric=()):
    out = ["<table><tr>" + "".join("<th>%s</th>" % _e(h) for h in head) + "</tr>"]
    for r in rows:
        cells = []
        for i, v in enumerate(r):
            cls = ' class="n"' if i in numeric else ""
            cells.append("<td%s>%s</td>" % (cls, _e("" if v is None else v)))
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</table>")
    return "\n".join(out)


def _ns(m, field):
    """A measure's figure in ns: the record's own _ns field, or converted
    from cycles with its counter's rate; None when neither can be had."""
    if field in ("p50", "p99"):
        v, unit = measure_value(m, field)
        return v if unit == "ns" else None
    hz = m.get("counter_hz")
    if m.get("unit") == "cycles" and isinstance(hz, (int, float)) and hz > 0:
        return m[field] * 1e9 / hz
    return None


def _fmt_ns(v):
    if v >= 1e6:
        return "%.3g ms" % (v / 1e6)
    if v >= 1e3:
        return "%.3g us" % (v / 1e3)
    return "%.3g ns" % v


def measure_plot(ms):
    """One SVG for a test's measures: a row each, min to max as a line,
    p50 to p90 as a box, the median's 95 % interval as a bar across its
    dot, p99 as a tick, on a shared log scale in ns (or in the records'
    own unit when they give no rate)."""
    fields = ("min", "p50", "p90", "p99", "max")
    rows = []
    for m in ms:
        ns = [_ns(m, f) for f in fields]
        if None in ns:
            ns, unit = [float(m[f]) for f in fields], m["unit"]
        else:
            unit = "ns"
        scale = ns[1] / m["p50"] if m["p50"] else 1.0  # the median's interval, in the row's unit
        lo, hi = m.get("p50_lo"), m.get("p50_hi")  # null where the monitor had no interval
        ci = (lo * scale, hi * scale) if lo is not None and hi is not None else None
        rows.append(("%s/%s/%s" % (m["path"], m["backend"], m["variant"]), ns, unit, ci))
    pos = [v for _, vs, _, _ in rows for v in vs if v > 0]
    lo = math.floor(math.log10(min(pos))) if pos else 0
    hi = math.ceil(math.log10(max(pos))) if pos else 1
    hi = max(hi, lo + 1)
    # the label column as wide as the longest label (11 px sans-serif: about 6.2 px a character), so
    # every label is whole and no two rows read the same
    lw = max(120, int(6.2 * max((len(label) for label, _, _, _ in rows), default=0)) + 12)
    pw, rw, rh, top = 360, 230, 18, 22
    width, height = lw + pw + rw, top + rh * len(rows) + 8

    def x(v):
        if v <= 0:
            return lw
        return lw + pw * (math.log10(v) - lo) / (hi - lo)

    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-size="11" '
           'font-family="sans-serif">' % (width, height)]
    units = sorted({u for _, _, u, _ in rows})
    for d in range(lo, hi + 1):
        xd = x(10.0 ** d)
        label = _fmt_ns(10.0 ** d) if units == ["ns"] else "1e%d" % d
        out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ddd"/>' % (xd, top - 4, xd, height - 6))
        out.append('<text x="%.1f" y="%d" text-anchor="middle" fill="#666">%s</text>' % (xd, top - 8, _e(label)))
    for i, (label, (mn, p50, p90, p99, mx), unit, ci) in enumerate(rows):
        y = top + i * rh + rh / 2

        def fmt(v):
            return _fmt_ns(v) if unit == "ns" else "%g %s" % (v, unit)

        figs = [fmt(v) for v in (mn, p50, p90, p99, mx)]
        within = " [95%% %s, %s]" % (fmt(ci[0]), fmt(ci[1])) if ci else ""
        out.append("<g><title>%s</title>" % _e("%s: min %s, p50 %s%s, p90 %s, p99 %s, max %s" % (
            label, figs[0], figs[1], within, figs[2], figs[3], figs[4])))
        out.append('<text x="%d" y="%.1f" text-anchor="end">%s</text>' % (lw - 6, y + 4, _e(label)))
        out.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#999"/>' % (x(mn), y, x(mx), y))
        out.append('<rect x="%.1f" y="%.1f" width="%.1f" height="10" fill="#8ab4e8" stroke="#3a6fb0"/>' %
                   (x(p50), y - 5, max(1.0, x(p90) - x(p50))))
        out.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#c22" stroke-width="2"/>' %
                   (x(p99), y - 6, x(p99), y + 6))
        if ci:
            out.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#123" stroke-width="3"/>' %
                       (x(ci[0]), y, x(ci[1]), y))
        out.append('<circle cx="%.1f" cy="%.1f" r="3" fill="#123"/>' % (x(p50), y))
        out.append('<text x="%d" y="%.1f" fill="#333">%s</text>' % (lw + pw + 8, y + 4,
                                                                    _e("p50 %s, p99 %s" % (figs[1], figs[3]))))
        out.append("</g>")
    out.append("</svg>")
    return "\n".join(out)


def _verdict_words(t):
    """The verdict as the table shows it: a skip with its reason code, a
    pass with a finding as a finding."""
    if t.finding:
        return "finding"
    words = VERDICT_WORDS.get(t.verdict, t.verdict)
    return "%s (%s)" % (words, t.reason) if t.verdict in ("skip", "na") and t.reason else words


def _row_class(t):
    return "finding" if t.finding else t.verdict


def _counts(tests):
    """passed (findings among them), failed (crashed among them), skipped,
    known, findings, not applicable."""
    c = {"passed": 0, "failed": 0, "crashed": 0, "skipped": 0, "known": 0, "findings": 0, "na": 0}
    for t in tests:
        v = t.verdict
        c["passed"] += v == "pass"
        c["failed"] += v in ("fail", "crashed")
        c["crashed"] += v == "crashed"
        c["skipped"] += v == "skip"
        c["known"] += v == "known"
        c["na"] += v == "na"
        c["findings"] += bool(t.finding)
    return c


def _count_words(c):
    out = ["%d passed" % c["passed"], "%d failed%s" % (c["failed"], " (%d crashed)" % c["crashed"] if c["crashed"]
                                                      else ""), "%d skipped" % c["skipped"]]
    if c["known"]:
        out.append("%d known failures" % c["known"])
    if c["findings"]:
        out.append("%d finding%s" % (c["findings"], "" if c["findings"] == 1 else "s"))
    if c["na"]:
        out.append("%d not applicable" % c["na"])
    return ", ".join(out)


WORDS = {"pass": "PASS", "fail": "FAIL", "inconclusive": "INCONCLUSIVE", "error": "PLAN COULD NOT RUN"}


def verdict_of(results):
    """The page's word and why: FAIL where a test failed or crashed; else
    the monitor's own verdict (records.verdict_of_all): PASS, or
    INCONCLUSIVE (nothing ran, no IOMMU unit tested, a `require` unmet) or
    PLAN COULD NOT RUN with the reason."""
    v, why = records.verdict_of_all(results)
    return WORDS.get(v, v.upper()), why


def _machine_words(p):
    name = p.get("system_product") or ""
    if not name or name.lower() in ("none", "not specified", "to be filled by o.e.m.", "default string"):
        name = p.get("cpu") or "unknown machine"
    serial = p.get("system_serial")
    return "%s%s, %s" % (name, " (serial %s)" % serial if serial else "", p.get("platform", "?"))


def _date_words(r):
    p = r.platform
    if p.get("date"):
        return "%s (firmware clock)" % p["date"]
    m = re.search(r"(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})(\d{2})", os.path.basename(r.path))
    return "%s-%s-%s %s:%s:%s (from the file name)" % m.groups() if m else "no date recorded"


def _banner(results):
    every = [t for r in results for t in r.tests]
    c = _counts(every)
    v, why = verdict_of(results)
    cls = {"PASS": "pass", "FAIL": "fail"}.get(v, "skip")
    out = ['<div id="banner" class="banner %s"><span class="word">%s</span> %s' % (cls, _e(v), _e(_count_words(c)))]
    if why:
        out.append('<div class="why">%s: %s</div>' % (_e(v.lower()), _e(why)))
    for r in results:
        p = r.platform
        out.append('<div class="about">%s: iommon %s on %s; %s%s</div>' % (
            _e(os.path.basename(r.path)), _e(p.get("iommon", "?")), _e(_machine_words(p)), _e(_date_words(r)),
            "; QEMU timings, not silicon" if str(p.get("platform", "")).startswith(("qemu", "kvm")) else ""))
    out.append("</div>")
    return "\n".join(out)


def _tests_table(tests, kind):
    out = ['<table class="tests %s"><tr><th>test</th><th>verdict</th><th>checks</th><th>ms</th><th>detail</th></tr>'
           % kind]
    for t in tests:
        detail = t.detail + ("; finding: " + t.finding if t.finding and t.finding not in t.detail else "")
        out.append('<tr class=%s><td><code>%s</code></td><td>%s</td><td class="n">%s</td><td class="n">%.1f</td>'
                   "<td>%s</td></tr>" % (_qa(_row_class(t)), _e(t.name), _e(_verdict_words(t)), _e(t.checks), t.ms,
                                         _e(detail)))
    out.append("</table>")
    return "\n".join(out)


# The price rows' columns a person compares, in this order; the records have the rest.
PRICE_COLUMNS = ("backend", "variant", "map_cycles", "unmap_cycles", "invalidation_cycles", "latency_p50_ns",
                 "latency_p99_ns", "dmas_per_s_p50", "dmas_per_s", "mb_per_s", "overhead_pct", "overhead_lo_pct",
                 "overhead_hi_pct", "overhead_verdict", "pending_max", "reachable", "probes", "depth", "cpu_pct", "cycles_per_kib")


def _file_section(r, several):
    out = []
    if several:
        out.append("<h2>%s</h2>" % _e(r.path))
        out.append("<p>%s</p>" % _e(_count_words(_counts(r.tests))))
    for c in r.crashes:
        out.append("<p class=\"crashed\">crash: %s</p>" % _e("; ".join("%s %s" % kv for kv in flat(c))))
    applies = r.applicable
    look = [t for t in applies if t.verdict in ("fail", "crashed", "known")]
    finds = [t for t in applies if t.finding]
    skips = [t for t in applies if t.verdict == "skip"]
    out.append("<h2>What needs a look</h2>")
    if not (look or finds or skips):
        out.append("<p>Nothing: every test that applies passed, with no finding.</p>")
    for title, ts in (("Failures", look), ("Findings: what the unit did that its specification allows", finds),
                      ("Skipped: applies here, but could not be shown", skips)):
        if ts:
            out.append("<h3>%s (%d)</h3>" % (_e(title), len(ts)))
            out.append(_tests_table(ts, "look"))
    out.append("<h2>Tests by group</h2>")
    groups = []
    for t in applies:
        if t.group not in groups:
            groups.append(t.group)
    for g in groups:
        ts = [t for t in applies if t.group == g]
        out.append('<h3 id=%s>%s: %s</h3>' % (_qa("group-" + g), _e(g), _e(_count_words(_counts(ts)))))
        out.append(_tests_table(ts, "group"))
    na = r.not_applicable()
    if na:
        out.append("<h2>Not applicable here (%d tests)</h2><ul class=\"na\">" % sum(n for _, n, _ in na))
        for label, n, why in na:
            out.append("<li><code>%s</code>%s: %s</li>" % (_e(label), " (%d tests)" % n if n > 1 else "", _e(why)))
        out.append("</ul>")
    with_measures = [t for t in r.tests if t.measures]
    if with_measures:
        out.append("<h2>Measures</h2><p>Each row: min to max (line), p50 to p90 (box), p99 (red tick), "
                   "p50 (dot) with its 95%% interval (bar); log scale. Platform %s: %s.</p>" % (
                       _e(r.platform.get("platform", "?")),
                       "QEMU timings, not silicon" if str(r.platform.get("platform", "")).startswith(("qemu", "kvm"))
                       else "as measured"))
        for t in with_measures:
            out.append("<h4><code>%s</code> (%s)</h4>" % (_e(t.name), _e(_verdict_words(t))))
            out.append(measure_plot(t.measures))
    for rows_of, title in ((r.price, "Price of each mapping strategy"),
                           (r.price_queue, "Price of each mapping strategy, streams with DMAs in flight")):
        if rows_of:
            out.append("<h2>%s</h2>" % title)
            head = [k for k in PRICE_COLUMNS if any(k in p for p in rows_of)]
            rows = [[p.get(k) for k in head] for p in rows_of]
            out.append(_table(head, rows, range(2, len(head))))
            out.append("<p>Columns as the <code>info/price</code> records name them; the records hold each "
                       "figure's 95% interval too.</p>")
    out.append("<details><summary>Machine and firmware (%d fields), IOMMU units (%d)</summary>" % (
        len(list(flat(r.platform))), len(r.units)))
    out.append(_table(("field", "value"), list(flat(r.platform))))
    if r.units:
        rows = []
        for u in r.units:
            regs = ", ".join("%s %s" % (k, u[k]) for k in ("cap", "ecap", "efr", "idr0", "idr1", "idr3", "idr5", "aidr")
                             if k in u)
            rows.append((u.get("name"), u.get("type"), u.get("segment"), u.get("base"), len(u.get("devices") or []),
                         regs or u.get("refused", "")))
        out.append(_table(("unit", "type", "segment", "base", "devices", "registers"), rows, (2, 4)))
    else:
        out.append("<p>No IOMMU unit found (no DMAR, IVRS, IORT or RIMT unit).</p>")
    out.append("</details>")
    return "\n".join(out)


def render(results):
    out = ['<?xml version="1.0" encoding="UTF-8"?>', "<!DOCTYPE html>",
           '<html xmlns="http://www.w3.org/1999/xhtml" lang="en"><head><meta charset="UTF-8"/>',
           "<title>iommon results</title><style>%s</style></head><body>" % CSS, "<h1>iommon results</h1>",
           _banner(results)]
    for r in results:
        out.append(_file_section(r, len(results) > 1))
    out.append("</body></html>")
    return "\n".join(out) + "\n"
