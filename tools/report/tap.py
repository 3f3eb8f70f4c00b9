"""TAP version 13: one test point per result record of a test that
applies to the machine, its detail, checks and measures in a YAML block.
A skip is `ok ... # SKIP [reason] detail`, a known failure `not ok ... #
TODO` (a harness does not count it as failed), a crash a plain `not ok`.
Tests that do not apply (verdict "na") are no test points: one comment
per file names them. A file that is no pass without a failing test
(inconclusive, a plan that could not run) ends with one more point, `not
ok ... - verdict: ...`."""

import json

from junit import MEASURE_FIELDS


def _y(v):
    """A YAML scalar: numbers and booleans bare, strings double-quoted with
    JSON's escapes, which YAML's double-quoted style reads the same."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return json.dumps(v)
    return json.dumps(str(v), ensure_ascii=True)


def _directive(s):
    """A TAP directive's text ends at the line, and '#' would start another."""
    return " ".join(s.replace("#", "no.").split())


def _line(s):
    """Text on one line: a newline in a record's string would start a line
    of its own ("ok 2" or "Bail out!" as TAP reads it)."""
    return " ".join(str(s).split())


def _description(s):
    """A test point's description: one line, '#' escaped as TAP 13 says
    (unescaped it would start a directive: a name "x # SKIP" a skip)."""
    return _line(s).replace("\\", "\\\\").replace("#", "\\#")


def render(results):
    tests = [(r, t) for r in results for t in r.applicable]
    # a file that is no pass and has no failing test ends with one more
    # point, not ok: a harness never counts it a pass
    no_pass = [(r, r.verdict()) for r in results]
    no_pass = [(r, v) for r, v in no_pass if v[0] not in ("pass", "fail")]
    out = ["TAP version 13", "1..%d" % (len(tests) + len(no_pass))]
    for r in results:
        p = r.platform
        out.append(_line("# %s: iommon %s on %s (%s), %s" % (r.path, p.get("iommon", "?"), p.get("platform", "?"),
                                                          p.get("cpu", "?"), p.get("firmware", "?"))))
        if r.not_applicable_words():
            out.append("# not applicable here, %s" % _directive(r.not_applicable_words()))
    for i, (r, t) in enumerate(tests, 1):
        name = _description(t.name)
        if t.verdict == "pass" and t.finding:  # a pass, told apart in the description and the YAML
            line = "ok %d - %s (finding: %s)" % (i, name, _directive(t.finding))
        elif t.verdict == "pass":
            line = "ok %d - %s" % (i, name)
        elif t.verdict == "skip":
            why = "[%s] %s" % (t.reason, t.detail) if t.reason else t.detail
            line = "ok %d - %s # SKIP %s" % (i, name, _directive(why))
        elif t.verdict == "known":
            line = "not ok %d - %s # TODO known failure: %s" % (i, name, _directive(t.detail))
        else:
            line = "not ok %d - %s" % (i, name)
        out.append(line)
        out.append("  ---")
        for k, v in (("verdict", t.verdict), ("detail", t.detail), ("checks", t.checks),
                     ("failures", t.failures), ("ms", t.ms), ("model", t.model), ("reason", t.reason),
                     ("finding", t.finding or None)):
            if v is not None:
                out.append("  %s: %s" % (k, _y(v)))
        if len(results) > 1:
            out.append("  file: %s" % _y(r.path))
        if t.measures:
            out.append("  measures:")
            for m in t.measures:
                first = True
                for f in ("path", "backend", "variant") + MEASURE_FIELDS:
                    if f in m and m[f] is not None:
                        out.append("    %s %s: %s" % ("-" if first else " ", f, _y(m[f])))
                        first = False
        out.append("  ...")
    for i, (r, (word, why)) in enumerate(no_pass, len(tests) + 1):
        out.append("not ok %d - verdict: %s" % (i, _description("%s: %s" % (word, why))))
        out += ["  ---", "  verdict: %s" % _y(word), "  detail: %s" % _y(why)]
        if len(results) > 1:
            out.append("  file: %s" % _y(r.path))
        out.append("  ...")
    return "\n".join(out) + "\n"
