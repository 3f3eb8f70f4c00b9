#!/usr/bin/python3
"""check.py BOOT_TESTS_DIR SCRATCH: tools/iommon-report and the serial-line
contract checked on the records and consoles the boot tests just left.
Prints "PASS name: detail", "FAIL name: why" or "SKIP name: why" a line,
as tools/test.sh counts them."""

import collections
import glob
import html.parser
import importlib.util
import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from xml.sax.saxutils import quoteattr

sys.dont_write_bytecode = True  # nothing written into the tree


HERE = os.path.dirname(os.path.realpath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tools", "report"))
import samples  # noqa: E402  the histogram's bins, as iommon-report reads them
from lablines import expected_lines, lava_lines, monitor  # noqa: E402  tests/report/lablines.py
import browser  # noqa: E402  tests/report/browser.py: the page in Chromium
TOOL = os.path.join(ROOT, "tools", "iommon-report")
XSD = os.path.join(ROOT, "tests", "junit.xsd")
RUNNER_H = os.path.join(ROOT, "core", "monitor", "report.h")


def say(verdict, name, detail):
    print("%s report.%s: %s" % (verdict, name, detail), flush=True)


def tool(*args):
    p = subprocess.run([TOOL] + list(args), capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def records(path):
    return [json.loads(l) for l in open(path)]


def no_pass(recs):
    """Is a file with records `recs` no pass without a failing test, as the
    monitor's last `verdict` record says (inconclusive, a plan that could
    not run)? Its JUnit has one more testcase in error, its TAP one more
    point not ok."""
    if any(r["kind"] == "result" and r["verdict"] in ("fail", "crashed") for r in recs):
        return False
    said = [r["verdict"] for r in recs if r["kind"] == "verdict"]
    if said:
        return said[-1] in ("inconclusive", "error")
    return not any(r["kind"] == "result" and r["verdict"] in ("pass", "known") for r in recs)


def totals(paths):
    """The summaries' counts, file by file: what the monitor said; and
    `no_pass`, 1 for a file whose verdict is no pass without a failure."""
    out = {}
    for p in paths:
        t = collections.Counter()
        recs = records(p)
        for r in recs:
            if r["kind"] == "summary":
                t.update({k: r.get(k, 0) for k in ("passed", "failed", "skipped", "crashed", "known")})
        t["no_pass"] = int(no_pass(recs))
        out[p] = t
    return out


def check_junit(files, want, scratch):
    xml = os.path.join(scratch, "all.xml")
    rc, _, err = tool("junit", "-o", xml, *files)
    if rc != 0:
        return say("FAIL", "junit", "exit %d: %s" % (rc, err.strip()[:200]))
    v = subprocess.run(["xmllint", "--noout", "--schema", XSD, xml], capture_output=True, text=True)
    if v.returncode != 0:
        return say("FAIL", "junit", "not valid against tests/junit.xsd: %s" % v.stderr.strip()[:300])
    got = collections.defaultdict(collections.Counter)
    first_of = {}  # a file's platform fields in its first suite only; hostname the machine, not the platform
    for suite in ET.parse(xml).getroot():
        f = [p.get("value") for p in suite.find("properties") if p.get("name") == "file"][0]
        plat = [p for p in suite.find("properties") if p.get("name").startswith("platform.")]
        if bool(plat) == (f in first_of):
            return say("FAIL", "junit", "%s: the platform fields in a suite but its file's first (or not in it)" % f)
        if f not in first_of:  # the names the file gives its machine (SMBIOS serial, product)
            junk = ("", "none", "not specified", "to be filled by o.e.m.", "default string", "0")
            first_of[f] = {v for r in records(f) if r.get("what") == "platform"
                           for v in (str(r.get(k) or "").strip() for k in ("system_serial", "system_product"))
                           if v.lower() not in junk}
        if first_of[f] and suite.get("hostname") not in first_of[f]:
            # (the machine's own name may be a platform's word: U-Boot 2025.01's SMBIOS product is "qemu")
            return say("FAIL", "junit", "%s: hostname %s is not the machine its records name (%s)"
                       % (f, suite.get("hostname"), ", ".join(sorted(first_of[f]))))
        for case in suite.findall("testcase"):
            kind = [c.tag for c in case if c.tag in ("failure", "error", "skipped")]
            got[f]["failed" if kind in (["failure"], ["error"]) else "skipped" if kind else "passed"] += 1
            got[f]["crashed"] += case.find("error[@type='crashed']") is not None
    # a known failure is a JUnit skip (type "known"): counted with the skipped
    # and a file that is no pass without a failing test has its verdict as one testcase in error
    junit_want = {f: collections.Counter(passed=w["passed"], failed=w["failed"] + w["no_pass"], crashed=w["crashed"],
                                         skipped=w["skipped"] + w["known"]) for f, w in want.items()}
    bad = [os.path.basename(os.path.dirname(os.path.dirname(f))) for f in files
           if +got[f] != +junit_want[f]]
    if bad:
        return say("FAIL", "junit", "testcases differ from the summaries for %s" % ", ".join(bad[:5]))
    # the schema check must be able to fail: a testcase without its classname
    broken = os.path.join(scratch, "broken.xml")
    with open(xml) as f, open(broken, "w") as g:
        g.write(f.read().replace(' classname="', ' class="', 1))
    if subprocess.run(["xmllint", "--noout", "--schema", XSD, broken], capture_output=True).returncode == 0:
        return say("FAIL", "junit", "tests/junit.xsd accepted a testcase without classname")
    n = sum(c["passed"] + c["failed"] + c["skipped"] for c in got.values())
    say("PASS", "junit", "%d testcases from %d files valid against tests/junit.xsd and as the summaries count them "
        "(a testcase without classname is refused)" % (n, len(files)))


def check_tap(files, want, scratch):
    tap = os.path.join(scratch, "all.tap")
    rc, _, err = tool("tap", "-o", tap, *files)
    if rc != 0:
        return say("FAIL", "tap", "exit %d: %s" % (rc, err.strip()[:200]))
    s = collections.Counter()
    for t in want.values():
        s.update(t)
    p = subprocess.run(["prove", "--exec", "cat", tap], capture_output=True, text=True)
    out = p.stdout + p.stderr
    m = re.search(r"Tests=(\d+)", out)
    failed = re.search(r"Failed (\d+)/(\d+) subtests", out)
    if "Parse errors" in out or not m:
        return say("FAIL", "tap", "prove could not read it: %s" % out.strip()[-300:])
    # a known failure is a TODO test point; a file that is no pass without a
    # failing test one more point, not ok
    total = s["passed"] + s["failed"] + s["skipped"] + s["known"] + s["no_pass"]
    nfail = int(failed.group(1)) if failed else 0
    bad = s["failed"] + s["no_pass"]
    if int(m.group(1)) != total or nfail != bad or (p.returncode == 0) != (bad == 0):
        return say("FAIL", "tap", "prove: %s tests, %d failed, exit %d; the summaries: %d tests, %d failed" % (
            m.group(1), nfail, p.returncode, total, bad))
    # skips through TAP::Parser, the module prove is built on
    perl = ('use TAP::Parser; my $p = TAP::Parser->new({source => $ARGV[0]});'
            '1 while $p->next; print scalar($p->skipped), " ", scalar($p->todo), " ", scalar($p->parse_errors), "\\n";')
    sk = subprocess.run(["perl", "-e", perl, tap], capture_output=True, text=True).stdout.split()
    if sk != [str(s["skipped"]), str(s["known"]), "0"]:
        return say("FAIL", "tap", "TAP::Parser: skipped, todo, parse errors %s; the summaries: %d skipped, %d known" % (
            sk, s["skipped"], s["known"]))
    say("PASS", "tap", "prove: %d tests, %d failed; TAP::Parser: %d skipped, %d todo (known failures), YAML read: as "
        "the summaries" % (total, nfail, s["skipped"], s["known"]))


class _Tags(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags = collections.Counter()
        self.urls = []

    def handle_starttag(self, tag, attrs):
        self.tags[tag] += 1
        self.urls += [v for k, v in attrs if k in ("src", "href") and v]


def check_html(files, scratch):
    page = os.path.join(scratch, "all.html")
    rc, _, err = tool("html", "-o", page, *files)
    if rc != 0:
        return say("FAIL", "html", "exit %d: %s" % (rc, err.strip()[:200]))
    text = open(page, encoding="utf-8").read()
    try:
        root = ET.fromstring(text.encode())  # well-formed as XML: every tag and plot closed
    except ET.ParseError as e:
        return say("FAIL", "html", "not well-formed: %s" % e)
    tags = _Tags()
    tags.feed(text)
    ns = "{http://www.w3.org/1999/xhtml}"
    # every result that applies is a row of its group's table; those that do
    # not are listed apart, one line per group or test
    rows = [r for t in root.iter("%stable" % ns) if t.get("class") == "tests group" for r in t.iter("%str" % ns)]
    want_tests = sum(1 for f in files for r in records(f) if r["kind"] == "result" and r["verdict"] != "na")
    test_rows = [r for r in rows if r.get("class") in ("pass", "fail", "skip", "crashed", "known", "finding")]
    if any(r["kind"] == "result" and r["verdict"] == "na" for f in files for r in records(f)) and \
            "Not applicable here (" not in text:
        return say("FAIL", "html", "tests that do not apply, and no 'Not applicable here' list")
    want_plots, price = 0, False
    for f in files:
        measured = set()  # tests with measures since their last result: one plot when the result comes
        for r in records(f):
            if r["kind"] == "measure":
                measured.add(r["test"])
            elif r["kind"] == "result" and r["test"] in measured:
                measured.discard(r["test"])
                want_plots += 1
            price |= r["kind"] == "info" and r["what"] == "price"
    plots = tags.tags["svg"]
    problems = []
    if len(test_rows) != want_tests:
        problems.append("%d test rows for %d results" % (len(test_rows), want_tests))
    if plots == 0 or plots != want_plots:
        problems.append("%d plots for %d tests with measures" % (plots, want_plots))
    if tags.tags["script"] or tags.urls or tags.tags["img"]:
        problems.append("a script, image or link that needs more than the file")
    if price != ("Price of each mapping strategy" in text):
        problems.append("no price table")
    if problems:
        return say("FAIL", "html", "; ".join(problems))
    say("PASS", "html", "%d KiB, well-formed XHTML, %d test rows in their groups, %d plots, no script or link"
        % (len(text) // 1024, len(test_rows), plots))


def scaled(r, factor):
    """Measure record r as if every sample had taken `factor` times as
    long: its figures, its median's interval and its histogram (each bin's
    samples moved to the bin of its middle, times factor)."""
    for k in ("min", "p50", "p90", "p99", "max", "p50_lo", "p50_hi"):
        if k in r:
            r[k] = int(round(r[k] * factor))
    for k in ("mean", "stddev", "p50_ns", "p99_ns", "mean_ns"):
        if k in r:
            r[k] = round(r[k] * factor, 1)
    b = samples.bins(r)
    if b:
        counts = collections.Counter()
        for low, high, c in b:
            counts[samples.bin_of((low + high - 1) / 2 * factor)] += c
        at = sorted(counts)
        hist = []
        for i, bn in enumerate(at):
            if i and bn > at[i - 1] + 1:
                hist.append(-(bn - at[i - 1] - 1))
            hist.append(counts[bn])
        r.update(hist_from=at[0], hist=hist)
    return r


def doctor(src, dst, slower=None, failing=None, factor=4, one=None):
    """A copy of src where the measures of test `slower` (or only the
    measure record number `one`) took `factor` times as long and test
    `failing` failed."""
    with open(src) as f, open(dst, "w") as g:
        nm = 0
        for line in f:
            r = json.loads(line)
            if r["kind"] == "measure":
                if r["test"] == slower or nm == one:
                    scaled(r, factor)
                nm += 1
            if r["kind"] == "result" and r["test"] == failing:
                r.update(verdict="fail", failures=1, detail="doctored: a check failed")
            g.write(json.dumps(r, separators=(",", ":")) + "\n")


def check_compare(base, scratch):
    rc, out, err = tool("compare", base, base)
    if rc != 0 or "compare: 0 regressions" not in out:
        return say("FAIL", "compare", "a run against itself: exit %d: %s" % (rc, (out + err).strip()[-200:]))
    slow = [r for r in records(base) if r["kind"] == "measure" and r["path"] == "invalidation"][0]["test"]
    fails = [r for r in records(base) if r["kind"] == "result" and r["verdict"] == "pass" and r["test"] != slow][0]["test"]
    new = os.path.join(scratch, "doctored.jsonl")
    doctor(base, new, slow, fails)
    rc, out, err = tool("compare", base, new)
    regs = [l for l in out.splitlines() if l.startswith("REGRESSION")]
    verdict = [r for r in regs if "verdict %s: pass -> fail" % fails in r]
    slower = [r for r in regs if "slower measure %s/invalidation/" % slow in r]
    if rc != 1 or not verdict or not slower or len(verdict) + len(slower) != len(regs) or \
            "compare: %d regressions" % len(regs) not in out:
        return say("FAIL", "compare", "doctored copy: exit %d, regressions %s" % (rc, regs))
    rc2, out2, _ = tool("compare", new, base)  # the other way: faster and fail -> pass
    if rc2 != 0 or "REGRESSION" in out2:
        return say("FAIL", "compare", "faster and fixed were taken for a regression (exit %d)" % rc2)
    cut = os.path.join(scratch, "cut.jsonl")
    with open(cut, "w") as g:
        g.write(open(base).read()[:-40])
    rc3, _, err3 = tool("compare", base, cut)
    if rc3 != 2 or "cut.jsonl:" not in err3:
        return say("FAIL", "compare", "a cut-short file: exit %d, %s" % (rc3, err3.strip()[:200]))
    say("PASS", "compare", "itself: exit 0; %s 4x slower and %s failing: exit 1, those regressions (%s) and no "
        "other; the other way: exit 0; a cut-short file: exit 2" % (slow, fails, ", ".join(
            r.split(": ")[1].split()[0] for r in slower)))


def _setup_lines(test):
    with open(os.path.join(ROOT, "tests", "boot", test + ".test")) as f:
        return [line for line in f if line.startswith(("qemu ", "config "))]


def check_compare_pair(boot, scratch):
    """compare on two real boots of one image and plan (price and
    price-again), and on a copy of the first with one median moved 25 %."""
    a, b = (os.path.join(boot, t, "run", "records.jsonl") for t in ("price", "price-again"))
    if not (os.path.exists(a) and os.path.exists(b)):
        return say("SKIP", "compare-pair", "no records of both the price and price-again boot tests")
    if _setup_lines("price") != _setup_lines("price-again"):
        return say("FAIL", "compare-pair", "price-again.test's qemu and config lines are not price.test's")
    # Two boots of one image must agree on everything that is not a time:
    # the same tests with the same verdicts, the same measures, in the same
    # units. Whether their times agree is not asserted (tests never assert
    # on wall-clock times): under qemu-tcg one variant's figures sometimes
    # come out 4-8x slower in one boot and not the other (seen on the
    # models' DART strict 64 KiB rows, every DMA of the variant, its map
    # and unmap too), so what compare calls is printed as a figure.
    rc, out, err = tool("compare", a, b)
    lines = out.splitlines()
    rule = lines[-1] if lines else ""
    timing = [line for line in lines if line.startswith(("REGRESSION slower measure", "changed    faster measure",
                                                         "changed    slower measure"))]
    other = [line for line in lines if line.startswith(("REGRESSION", "changed", "vanished", "appeared", "warning"))
             and line not in timing and " machine-wide: " not in line and " test-wide " not in line]
    if rc not in (0, 1) or not rule.startswith("compare: ") or other:
        return say("FAIL", "compare-pair", "two boots of one image: exit %d, what is not a time differs: %s" % (
            rc, "; ".join(other)[:600] or err.strip()[:300]))
    called = sum(1 for line in timing if line.startswith("REGRESSION"))
    # the figure the first run resolves best: the narrowest median interval
    # for its size, above 4 x compare's 20 ns floor (a 25 % move below that
    # is under the floor, and one the samples cannot resolve is not called)
    ms = [r for r in records(a) if r["kind"] == "measure"]
    best, width = None, None
    for i, r in enumerate(ms):
        iv = samples.interval(r, 0.5, 0.05)
        if iv and iv[1] and r["p50"] > 0 and r.get("p50_ns", 0) > 80:
            w = (iv[1] - iv[0]) / r["p50"]
            if width is None or w < width:
                best, width = i, w
    if best is None:
        return say("FAIL", "compare-pair", "no figure of %s to move" % a)
    m = ms[best]
    key = lambda r: (r["test"], r["path"], r["backend"], r["variant"])  # noqa: E731
    nth = sum(1 for r in ms[:best + 1] if key(r) == key(m))  # compare names the second of a key (#2)
    name = "/".join(key(m)) + (" (#%d)" % nth if nth > 1 else "")
    doctored = os.path.join(scratch, "price-moved.jsonl")
    doctor(a, doctored, factor=1.25, one=best)
    rc2, out2, _ = tool("compare", a, doctored)
    regs = [line for line in out2.splitlines() if line.startswith("REGRESSION")]
    if rc2 != 1 or not regs or any("slower measure %s:" % name not in line for line in regs):
        return say("FAIL", "compare-pair", "%s moved 25 %%: exit %d, regressions %s" % (name, rc2, regs))
    say("PASS", "compare-pair", "two boots of one image: the same tests, verdicts and measures; %d figure%s "
        "called slower between them (the emulator's times, not asserted); %s moved 25 %% in a copy of the first: "
        "exit 1, that figure alone" % (called, "" if called == 1 else "s", name))


def check_bad_input(good, scratch):
    cases = {"cut.jsonl": open(good).read()[:-40], "empty.jsonl": "",
             "other.xml": '<?xml version="1.0"?>\n<testsuites/>\n',
             "other.json": '{"name": "not iommon"}\n{"name": "still not"}\n'}
    problems = []
    for name, text in cases.items():
        path = os.path.join(scratch, name)
        with open(path, "w") as f:
            f.write(text)
        rc, out, err = tool("junit", path, good)
        named = re.search(re.escape(path) + (r":\d+: " if name in ("cut.jsonl", "other.json") else ": "), err)
        if rc != 2 or not named or 'testsuite name="' not in out:
            problems.append("%s: exit %d, %s" % (name, rc, err.strip()[:120]))
    # firmware strings reach the records as they are: control characters
    # (a \u0001 escape), U+FFFE and markup must leave JUnit and HTML well-formed
    # XML; a lone surrogate escape is refused by line, not a traceback
    odd = []
    for r in records(good):
        if r.get("kind") == "info" and r.get("what") == "platform":
            r["firmware"] = 'uefi\u0001<&"\ufffe'
        if r.get("kind") == "result":
            r["detail"] = str(r.get("detail", "")) + " \u0001 \ufffe <x> &"
        odd.append(json.dumps(r))
    odd.append('{"kind":"result","test":"x.y","verdict":"pass","detail":"\\ud800"}')
    path = os.path.join(scratch, "odd.jsonl")
    with open(path, "w") as f:
        f.write("\n".join(odd) + "\n")
    for fmt in ("junit", "html"):
        rc, out, err = tool(fmt, path)
        try:
            ET.fromstring(out)
        except ET.ParseError as e:
            problems.append("%s of control characters and markup: not XML (%s)" % (fmt, e))
        if rc != 2 or not re.search(re.escape(path) + r":%d: .*surrogate" % len(odd), err):
            problems.append("%s of a lone surrogate: exit %d, %s" % (fmt, rc, err.strip()[:120]))
    if problems:
        return say("FAIL", "bad-input", "; ".join(problems))
    say("PASS", "bad-input", "a record cut short, an empty file, a JUnit file and foreign JSON: each named "
        "(file:line), exit 2, the good file still reported; control characters, U+FFFE and markup in "
        "firmware strings and details leave JUnit and HTML well-formed; a lone surrogate refused by line")


def reason_codes():
    """The closed set as the monitor defines it (core/monitor/report.h SKIP_REASONS)
    and as the JUnit schema admits it (skipType, less "known")."""
    c = re.findall(r'X\(SKIP_[A-Z_]+, "([a-z-]+)", (true|false)\)', open(RUNNER_H).read())
    x = re.findall(r'<xs:enumeration value="([a-z-]+)"/>',
                   re.search(r'name="skipType">(.*?)</xs:simpleType>', open(XSD).read(), re.S).group(1))
    return [code for code, _ in c], [v for v in x if v != "known"], {code for code, na in c if na == "true"}


def check_reasons(files, scratch):
    codes, in_xsd, na_codes = reason_codes()
    if not codes or sorted(codes) != sorted(in_xsd) or len(set(codes)) != len(codes):
        return say("FAIL", "reasons", "core/monitor/report.h's codes %s and tests/junit.xsd's %s differ" % (codes, in_xsd))
    used, problems, first, first_na = collections.Counter(), [], None, None
    for f in files:
        name = os.path.basename(os.path.dirname(os.path.dirname(f)))
        for r in records(f):
            if r["kind"] != "result":
                continue
            if r["verdict"] not in ("skip", "na"):
                if "reason" in r:
                    problems.append("%s: %s is %s with a reason" % (name, r["test"], r["verdict"]))
                continue
            if r.get("reason") not in codes:
                problems.append("%s: %s %s with reason %s" % (name, r["test"], r["verdict"], r.get("reason")))
                continue
            if (r["reason"] in na_codes) != (r["verdict"] == "na"):  # the code decides which it is
                problems.append("%s: %s is %s with reason %s" % (name, r["test"], r["verdict"], r["reason"]))
                continue
            if list(r)[-1] != "reason":
                problems.append("%s: %s's reason is not its record's last field" % (name, r["test"]))
            used[r["reason"]] += 1
            if r["verdict"] == "na":
                first_na = first_na or (f, r["test"])
            else:
                first = first or (f, r["test"], r["reason"])
    if problems:
        return say("FAIL", "reasons", "; ".join(problems[:4]))
    if not first:
        return say("SKIP", "reasons", "no boot test recorded a skip")
    # the reports carry the code; the schema refuses a code outside the set
    f, test, code = first
    rc, tap, _ = tool("tap", f)
    rc2, xml, _ = tool("junit", f)
    if not re.search(r"^ok \d+ - %s # SKIP \[%s\] " % (re.escape(test), code), tap, re.M) or \
            '<skipped type="%s" message="[%s] ' % (code, code) not in xml:
        return say("FAIL", "reasons", "%s's reason %s is not in its TAP directive or JUnit <skipped>" % (test, code))
    bad = os.path.join(scratch, "unclassified.xml")
    with open(bad, "w") as g:
        g.write(xml.replace('<skipped type="%s"' % code, '<skipped type="unclassified"', 1))
    if subprocess.run(["xmllint", "--noout", "--schema", XSD, bad], capture_output=True).returncode == 0:
        return say("FAIL", "reasons", "tests/junit.xsd accepted a skip of reason 'unclassified'")
    # a test that does not apply is no test point and no testcase; the
    # file's first suite and the TAP header name it
    if not first_na:
        return say("FAIL", "reasons", "no boot test recorded a test that does not apply")
    f_na, test_na = first_na
    tap_na, xml_na = tool("tap", f_na)[1], tool("junit", f_na)[1]
    if re.search(r"^(not )?ok \d+ - %s( |$)" % re.escape(test_na), tap_na, re.M) or \
            "name=%s" % quoteattr(test_na) in xml_na or "# not applicable here, " not in tap_na or \
            '<property name="not_applicable" value="' not in xml_na:
        return say("FAIL", "reasons", "%s does not apply, yet TAP or JUnit counts it (or names it nowhere)" % test_na)
    # compare: a pass left out by run --skip is no regression; one that
    # skips for any other reason, or no longer applies, is
    recs = records(f)
    passed = [r["test"] for r in recs if r["kind"] == "result" and r["verdict"] == "pass"]
    if passed:
        outcome = {}
        for why, verdict in (("excluded", "skip"), ("emulator", "skip"), ("unsupported", "na")):
            new = os.path.join(scratch, "skip-%s.jsonl" % why)
            with open(new, "w") as g:
                for r in recs:
                    if r["kind"] == "result" and r["test"] == passed[0]:
                        r = dict(r, verdict=verdict, detail="doctored")
                        r["reason"] = why
                    g.write(json.dumps(r, separators=(",", ":")) + "\n")
            outcome[why] = tool("compare", f, new)[0]
        if outcome != {"excluded": 0, "emulator": 1, "unsupported": 1}:
            return say("FAIL", "reasons", "compare, %s pass -> skip or na: exit %s" % (passed[0], outcome))
    say("PASS", "reasons", "%d skips and not-applicables on %d files each with a reason code that says which, last "
        "in its record (%s); the code in TAP and JUnit, 'unclassified' refused by the schema; not applicable: no "
        "TAP point or JUnit testcase, named once; compare: pass -> skip (excluded) exit 0, (emulator) exit 1, "
        "-> na exit 1" % (sum(used.values()), len(files), ", ".join("%s %d" % kv for kv in sorted(used.items()))))


def check_findings(files, scratch):
    """A pass with a finding (a unit that used a stale translation) is told
    apart from the passes in TAP, JUnit and HTML alike."""
    found = [(f, r["test"]) for f in files for r in records(f) if r["kind"] == "result" and r.get("finding")]
    if not found:
        return say("FAIL", "findings", "no boot test recorded a finding (the stale-translation cases make them)")
    f, test = found[0]
    tap, xml, page = tool("tap", f)[1], tool("junit", f)[1], os.path.join(scratch, "finding.html")
    tool("html", "-o", page, f)
    html = open(page, encoding="utf-8").read()
    ns = "{http://www.w3.org/1999/xhtml}"
    row = [r for r in ET.fromstring(html.encode()).iter("%str" % ns)
           if r.get("class") == "finding" and "".join(r.itertext()).startswith(test)]
    case = [c for c in ET.fromstring(xml.encode()).iter("testcase") if c.get("name") == test]
    props = [p.get("name") for c in case for p in c.iter("property")]
    problems = []
    if not re.search(r"^ok \d+ - %s \(finding: " % re.escape(test), tap, re.M):
        problems.append("TAP")
    if "finding" not in props or "FINDING: " not in "".join(case[0].itertext() if case else ""):
        problems.append("JUnit")
    if not row:
        problems.append("HTML")
    if problems:
        return say("FAIL", "findings", "%s's finding is a plain pass in %s" % (test, ", ".join(problems)))
    say("PASS", "findings", "%d findings on %d files; %s's told apart in TAP (the description), JUnit (a property and "
        "FINDING in its output) and HTML (its row)" % (len(found), len({f for f, _ in found}), test))


def check_lava(boot, banners):
    mon = monitor()
    pattern, fixup = re.compile(mon["pattern"]), mon.get("fixupdict", {})
    if set(pattern.groupindex) != {"test_case_id", "result", "measurement", "units"}:
        return say("FAIL", "lava", "the pattern's groups are %s" % sorted(pattern.groupindex))
    n, consoles, problems = 0, 0, []
    for d in sorted(glob.glob(os.path.join(boot, "*", "run"))):
        name = os.path.basename(os.path.dirname(d))
        # the raw serial line as LAVA reads it (CR LF, the firmware's
        # terminal escapes), else the plain console made of it
        con = [p for p in (os.path.join(d, "serial.log"), os.path.join(d, "console.txt")) if os.path.exists(p)]
        rec = os.path.join(d, "records.jsonl")
        if not con or not os.path.exists(rec):
            continue
        text = open(con[0], encoding="latin-1").read()
        got, want = lava_lines(pattern, fixup, text), expected_lines(records(rec), fixup)
        consoles += 1
        n += len(want)
        if collections.Counter(got) != collections.Counter(want):
            miss = collections.Counter(want) - collections.Counter(got)
            extra = collections.Counter(got) - collections.Counter(want)
            problems.append("%s: missing %s, extra %s" % (name, list(miss)[:2], list(extra)[:2]))
        if any(g[1] not in ("pass", "fail", "skip", "unknown") for g in got):
            problems.append("%s: a result LAVA does not take" % name)
        # only lab lines start with '<', and each is a banner or read whole by the pattern
        stray = [l for l in text.replace("\r", "").split("\n") if l.startswith("<") and not (
            pattern.fullmatch(l) or re.fullmatch("(%s|%s)plan=[^ >]+>" % (mon["start"], mon["end"]), l))]
        if stray:
            problems.append("%s: a line starting with '<' that is no lab line: %s" % (name, stray[0][:80]))
        if name in banners:
            b, e = text.find(mon["start"]), text.find(mon["end"])
            at = [(m.start(), m.end()) for m in pattern.finditer(text)] or [(-1, -1)]
            if text.count(mon["start"]) != 1 or text.count(mon["end"]) != 1 or not b < at[0][0] <= at[-1][1] < e:
                problems.append("%s: not one start banner, results, one end banner in that order" % name)
    # the check must be able to fail: a console with one result line gone
    if consoles and not problems:
        text = open(os.path.join(boot, banners[0], "run", "serial.log"), encoding="latin-1").read()
        m = pattern.search(text)
        if lava_lines(pattern, fixup, text[:m.start()] + text[m.end():]) == lava_lines(pattern, fixup, text):
            problems.append("removing a result line went unnoticed")
    if not consoles:
        return say("SKIP", "lava", "no boot test left a console")
    if problems:
        return say("FAIL", "lava", "; ".join(problems[:4]))
    say("PASS", "lava", "the pattern in tools/lava/iommon-job.yaml finds all %d results and measures on %d boot "
        "tests' serial lines, every line starting with '<' is a banner or read whole by it; %s: one start and one "
        "end banner around them" % (n, consoles, ", ".join(banners)))


class Replay:
    """A labgrid console as pexpect drives it, over a saved serial line:
    of the patterns, the one matching earliest after the last match wins."""

    def __init__(self, data):
        self.data, self.pos = data, 0

    def expect(self, patterns, timeout):
        best = None
        for i, p in enumerate(patterns if isinstance(patterns, list) else [patterns]):
            m = re.compile(p.encode(), re.DOTALL).search(self.data, self.pos)
            if m and (best is None or m.start() < best[1].start()):
                best = (i, m)
        if best is None:
            raise TimeoutError("the console never showed %s" % patterns)
        before, self.pos = self.data[self.pos:best[1].start()], best[1].end()
        return best[0], before, best[1], b""


def check_labgrid(boot, scratch):
    run = os.path.join(boot, "unattended", "run")
    if not os.path.exists(os.path.join(run, "serial.log")):
        return say("SKIP", "labgrid", "no unattended boot test serial line")
    spec = importlib.util.spec_from_file_location("lg", os.path.join(ROOT, "tools", "labgrid", "test_iommon.py"))
    lg = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(lg)
    raw = open(os.path.join(run, "serial.log"), "rb").read()
    mon = lg.monitor()
    try:
        results, transcript = lg.read_plan(Replay(raw), mon)
    except TimeoutError as e:
        return say("FAIL", "labgrid", "the unattended serial line: %s" % e)
    got = [(r["test_case_id"], r["result"], r["measurement"], r["units"]) for r in results]
    if got != expected_lines(records(os.path.join(run, "records.jsonl")), mon.get("fixupdict", {})):
        return say("FAIL", "labgrid", "read_plan's results are not the records'")
    cap = os.path.join(scratch, "labgrid-console.txt")
    with open(cap, "w") as f:
        f.write(transcript)
    rc, out, err = tool("tap", cap)
    recs = records(os.path.join(run, "records.jsonl"))
    # its tests that apply, and its verdict when that is no pass (q35 here has no IOMMU: inconclusive)
    n = len([r for r in recs if r["kind"] == "result" and r["verdict"] != "na"]) + no_pass(recs)
    if rc != 0 or "1..%d\n" % n not in out:
        return say("FAIL", "labgrid", "iommon-report on the saved console: exit %d, %s" % (rc, err.strip()[:200]))
    try:  # a plan cut short (a crash): no end banner, the test times out
        lg.read_plan(Replay(raw[:raw.rfind(mon["end"].encode())]), mon)
        return say("FAIL", "labgrid", "a console without the end banner was read as a finished plan")
    except TimeoutError:
        pass
    say("PASS", "labgrid", "tools/labgrid/test_iommon.py's reader on the unattended serial line: the %d results "
        "and measures, a console iommon-report reads (%d tests); without the end banner it times out" % (len(got), n))


def main():
    boot, scratch = sys.argv[1], sys.argv[2]
    os.makedirs(scratch, exist_ok=True)
    # a boot test that skipped before the monitor ran (a firmware with no
    # network boot option) leaves an empty records file: nothing to report
    files = sorted(f for f in glob.glob(os.path.join(boot, "*", "run", "records.jsonl")) if os.path.getsize(f))
    if not files:
        for n in ("junit", "tap", "html", "compare", "compare-pair", "bad-input", "reasons", "lava", "labgrid"):
            say("SKIP", n, "no boot test left records")
        return
    want = totals(files)
    check_junit(files, want, scratch)
    check_tap(files, want, scratch)
    check_html(files, scratch)
    # a real run's page in a real browser: the VT-d group's boot and the price of safety's
    real = [p for p in (os.path.join(boot, b, "run", "records.jsonl") for b in ("vtd-nvme", "price"))
            if os.path.exists(p)]
    page = os.path.join(scratch, "real.html")
    if real and tool("html", "-o", page, *real)[0] == 0:
        browser.check(page, scratch, say)
    else:
        say("SKIP", "browser", "no vtd-nvme or price boot test records")
    base = os.path.join(boot, "vtd-nvme", "run", "records.jsonl")
    if os.path.exists(base):
        check_compare(base, scratch)
    else:
        say("SKIP", "compare", "no vtd-nvme boot test records")
    check_compare_pair(boot, scratch)
    check_bad_input(files[0], scratch)
    check_reasons(files, scratch)
    check_findings(files, scratch)
    check_lava(boot, [b for b in ("unattended", "vtd-nvme") if os.path.isdir(os.path.join(boot, b, "run"))])
    check_labgrid(boot, scratch)


if __name__ == "__main__":
    main()
