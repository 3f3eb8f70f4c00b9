"""JUnit XML: one testsuite per group (per file when there are several),
one testcase per result record of a test that applies to the machine; a
file that is no pass without a failing test (inconclusive, a plan that
could not run) one more suite, "verdict", of one testcase in error.
Those that do not (verdict "na") are no testcases, as no dashboard
should count them skipped: the file's first suite names them in one
property, `not_applicable`. The shape is tests/junit.xsd's."""

from xml.sax.saxutils import quoteattr, escape

from records import flat, xml_safe

MEASURE_FIELDS = ("n", "unit", "min", "p50", "p90", "p99", "max", "p50_ns", "p99_ns")

# The reason codes tests/junit.xsd admits as a skip's type: the monitor's
# (core/monitor/report.h SKIP_REASONS; tests/report/test_robust.py holds
# the three lists equal). A code outside them, a newer monitor's or a
# stranger's, stays in the message and leaves the type out, as a skip
# from before the codes does, so the file stays valid.
SKIP_TYPES = ("no-device", "no-unit", "unsupported", "emulator", "platform", "model-only", "machine-only", "refused",
              "not-implemented", "setting", "inconclusive", "excluded", "stopped", "replay")


def _prop(name, value):
    if isinstance(value, bool):
        value = "true" if value else "false"
    return "<property name=%s value=%s/>" % (_qa(name), _qa(str(value)))


def escape_clean(v):
    """Text XML 1.0 can hold (records.xml_safe), escaped."""
    return escape(xml_safe(v))


def _qa(v):
    """An attribute value XML 1.0 can hold, quoted."""
    return quoteattr(xml_safe(v))


def machine_properties(res, whole):
    """The file; then, `whole` (the file's first suite), the first boot's
    platform record and the IOMMU units; the other suites name that one
    instead of repeating its 30-odd fields."""
    props = [("file", res.path)]
    if not whole:
        return props + [("machine", "as in this file's first testsuite")]
    props += [("platform." + k, v) for k, v in flat(res.platform) if v is not None]
    for u in res.units:
        props.append(("iommu." + str(u.get("name")), "%s at %s" % (u.get("type"), u.get("base"))))
    if res.not_applicable_words():
        props.append(("not_applicable", res.not_applicable_words()))
    return props


def machine_name(p):
    """The machine under test, as JUnit's hostname: its SMBIOS serial number,
    else its product name, else the platform ("qemu-tcg") as the last resort."""
    for k in ("system_serial", "system_product"):
        v = str(p.get(k) or "").strip()
        if v and v.lower() not in ("none", "not specified", "to be filled by o.e.m.", "default string", "0"):
            return v
    return str(p.get("platform", "unknown"))


def _testcase(t, out):
    out.append('    <testcase name=%s classname=%s time="%.3f">' % (_qa(t.name), _qa("iommon." + t.group),
                                                                    t.ms / 1000.0))
    props = [("checks", t.checks), ("failures", t.failures), ("model", t.model), ("verdict", t.verdict)]
    if t.reason:
        props.append(("reason", t.reason))
    if t.finding:  # a pass, told apart: JUnit has no verdict for it
        props.append(("finding", t.finding))
    for m in t.measures:
        key = "measure.%s.%s.%s" % (m["path"], m["backend"], m["variant"])
        props += [(key + "." + f, m[f]) for f in MEASURE_FIELDS if f in m and m[f] is not None]
    out.append("      <properties>")
    out += ["        " + _prop(k, v) for k, v in props]
    out.append("      </properties>")
    detail = t.detail
    if t.verdict == "fail":
        out.append("      <failure type=\"fail\" message=%s>%s</failure>" % (_qa(detail), escape_clean(
            "%s (%d of %d checks failed)" % (detail, t.failures, t.checks))))
    elif t.verdict == "crashed":
        out.append("      <error type=\"crashed\" message=%s>%s</error>" % (_qa(detail), escape_clean(detail)))
    elif t.verdict == "skip" and t.reason in SKIP_TYPES:  # the reason code as the type, and first in the message
        out.append("      <skipped type=%s message=%s/>" % (_qa(t.reason), _qa(
            "[%s] %s" % (t.reason, detail))))
    elif t.verdict == "skip" and t.reason:
        out.append("      <skipped message=%s/>" % _qa("[%s] %s" % (t.reason, detail)))
    elif t.verdict == "skip":  # a results file from before reason codes
        out.append("      <skipped message=%s/>" % _qa(detail))
    elif t.verdict == "known":
        out.append("      <skipped type=\"known\" message=%s/>" % _qa("known failure: " + detail))
    elif t.verdict != "pass":
        out.append("      <error type=\"unknown-verdict\" message=%s/>" % _qa(t.verdict))
    out.append("      <system-out>%s</system-out>" % escape_clean(
        "FINDING: %s\n%s" % (t.finding, detail) if t.finding else detail))
    out.append("    </testcase>")


def _counts(tests):
    c = {"tests": len(tests), "failures": 0, "errors": 0, "skipped": 0}
    for t in tests:
        if t.verdict == "fail":
            c["failures"] += 1
        elif t.verdict in ("skip", "known"):
            c["skipped"] += 1
        elif t.verdict != "pass":
            c["errors"] += 1
    c["time"] = sum(t.ms for t in tests) / 1000.0
    return c


def _attrs(c):
    return 'tests="%d" failures="%d" errors="%d" skipped="%d" time="%.3f"' % (c["tests"], c["failures"],
                                                                              c["errors"], c["skipped"], c["time"])


def _no_pass(r):
    """(word, why) when file `r` is no pass and has no failing test: nothing
    ran, no IOMMU unit tested, a `require` unmet, a plan that could not
    run; else None."""
    word, why = r.verdict()
    return (word, why) if word not in ("pass", "fail") else None


def _verdict_suite(r, several, first, word, why, out):
    """Such a file's verdict as one testcase in error, so that no
    dashboard counts it green; the file's machine in full when it is its
    `first` suite (a file of no result)."""
    name = "verdict" if not several else "%s:verdict" % r.path
    out.append('  <testsuite name=%s hostname=%s tests="1" failures="0" errors="1" skipped="0" time="0.000">'
               % (_qa(name), _qa(machine_name(r.platform))))
    out.append("    <properties>")
    out += ["      " + _prop(k, v) for k, v in machine_properties(r, first)]
    out.append("    </properties>")
    out.append('    <testcase name="verdict" classname="iommon.verdict" time="0.000">')
    out.append("      <error type=%s message=%s/>" % (_qa(word), _qa("%s: %s" % (word, why))))
    out.append("    </testcase>")
    out.append("  </testsuite>")


def render(results):
    out = ['<?xml version="1.0" encoding="UTF-8"?>']
    every = [t for r in results for t in r.applicable]
    totals = _counts(every)
    no_pass = [(r, _no_pass(r)) for r in results]
    no_pass = [(r, v) for r, v in no_pass if v]
    totals["tests"] += len(no_pass)
    totals["errors"] += len(no_pass)
    out.append('<testsuites name="iommon" %s>' % _attrs(totals))
    for r in results:
        groups = []
        for t in r.applicable:
            if t.group not in groups:
                groups.append(t.group)
        if not groups and r.tests:  # nothing applied: one empty suite still names the machine and why
            groups = ["iommon"]
        host = machine_name(r.platform)
        for i, g in enumerate(groups):
            tests = [t for t in r.applicable if t.group == g]
            name = g if len(results) == 1 else "%s:%s" % (r.path, g)
            out.append("  <testsuite name=%s hostname=%s %s>" % (_qa(name), _qa(host),
                                                                 _attrs(_counts(tests))))
            out.append("    <properties>")
            out += ["      " + _prop(k, v) for k, v in machine_properties(r, i == 0)]
            out.append("    </properties>")
            for t in tests:
                _testcase(t, out)
            out.append("  </testsuite>")
    for r, (word, why) in no_pass:
        _verdict_suite(r, len(results) > 1, not r.tests, word, why, out)
    out.append("</testsuites>")
    return "\n".join(out) + "\n"
