#!/usr/bin/python3
"""test_robust.py: tools/iommon-report on records broken on purpose.

From a fixed seed, the valid run in tests/report/sample-run.jsonl (a
host monitor's records, with the kinds that run did not make written as
the monitor writes them) is mutated 1,600 times (--cases): a field of
the wrong type, nesting, NaN and infinity, numbers past 2^64, a line or
the file cut short, bytes that are not UTF-8, a lone surrogate, a field
gone or null, a key twice, lines dropped or repeated, odd text that must
be read. Every subcommand (junit, tap, html, compare) runs on each, in
this process (a fresh python3 a run would take minutes): the tool's
parser() and run(), an exception leaving them what a process of its own
would print as a traceback. What must hold, whatever the input:

  - no exception leaves the tool;
  - the exit status is 0 or 2 (compare: 1 only for a regression between
    inputs read whole, never on an input refused);
  - exit 2 names the input by file and line; exit 0 says nothing;
  - a line broken on purpose is named by its number, a line that only
    holds odd text is read;
  - every output is valid: JUnit against tests/junit.xsd (xmllint, as
    check.py validates), TAP through TAP::Parser (as check.py reads it)
    and a strict reading of the lines this tool writes, HTML well-formed
    XML with every plot coordinate a finite number.

Then one case per finding of the review (issue 45) and per fault the
generated cases found beside them, each failing on the tool before
records.py checked what it reads; the deep-nesting ones and a closed
standard output also through the tool as a process of its own. Prints
"PASS robust.name: detail" or "FAIL robust.name: why" a line, as
tools/test.sh counts them; exits 1 on a failure.

  test_robust.py [--cases N] [--seed S] [--keep DIR] [--workers W]
"""

import argparse
import contextlib
import importlib.machinery
import importlib.util
import io
import json
import math
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
import xml.etree.ElementTree as ET

sys.dont_write_bytecode = True

HERE = os.path.dirname(os.path.realpath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TOOL = os.path.join(ROOT, "tools", "iommon-report")
XSD = os.path.join(ROOT, "tests", "junit.xsd")
REPORT_H = os.path.join(ROOT, "core", "monitor", "report.h")
SAMPLE = os.path.join(HERE, "sample-run.jsonl")
SEED = 20261207
CASES = 1600
TAP_PARSED = 120

failures = []


def say(ok, name, detail):
    print("%s robust.%s: %s" % ("PASS" if ok else "FAIL", name, detail), flush=True)
    if not ok:
        failures.append(name)


# ---- the fields a report reads, as the output contract and the monitor's
# writers give them (README "Output contract", core/monitor/*.c): what a
# record must hold for the reports to show it. Written here apart from
# tools/report/records.py so that each checks the other.
NAME, TEXT, COUNT, FIGURE, RATE, FLAG, TEXTS, INTS, NUMBER = (
    "name", "text", "count", "figure", "rate", "flag", "texts", "ints", "number")
SPEC = {
    "result": {"test": (NAME, True), "verdict": (NAME, True), "checks": (COUNT, False), "failures": (COUNT, False),
               "detail": (TEXT, False), "reason": (TEXT, False), "finding": (TEXT, False), "ms": (FIGURE, False),
               "model": (FLAG, False)},
    "measure": {"test": (NAME, True), "path": (TEXT, True), "backend": (TEXT, True), "variant": (TEXT, True),
                "unit": (TEXT, True), "n": (COUNT, True), "min": (FIGURE, True), "p50": (FIGURE, True),
                "p90": (FIGURE, True), "p99": (FIGURE, True), "max": (FIGURE, True), "p50_lo": (FIGURE, False),
                "p50_hi": (FIGURE, False), "p50_ns": (FIGURE, False), "p99_ns": (FIGURE, False),
                "counter_hz": (RATE, False), "hist_from": (COUNT, False), "hist": (INTS, False)},
    "summary": {"passed": (COUNT, True), "failed": (COUNT, True), "skipped": (COUNT, True),
                "crashed": (COUNT, False), "known": (COUNT, False), "not_applicable": (COUNT, False)},
    "info/platform": dict((k, (TEXT, False)) for k in (
        "iommon", "platform", "cpu", "firmware", "date", "system_manufacturer", "system_product", "system_serial",
        "bios_vendor", "bios_version", "bios_date")),
    "info/iommu": dict([(k, (TEXT, False)) for k in ("name", "type", "base", "cap", "ecap")] +
                       [("segment", (COUNT, False)), ("devices", (TEXTS, False))]),
    "info/price": dict([(k, (TEXT, False)) for k in ("test", "backend", "variant")] +
                       [(k, (NUMBER, False)) for k in ("map_cycles", "unmap_cycles", "invalidation_cycles",
                                                      "latency_p50_ns", "latency_p99_ns", "dmas_per_s", "mb_per_s")]),
    "info/price-queue": dict([(k, (TEXT, False)) for k in ("test", "backend", "variant")] +
                             [(k, (NUMBER, False)) for k in ("depth", "dmas_per_s")]),
    "info/crash": {"test": (TEXT, False), "reason": (TEXT, False), "then": (TEXT, False)},
}


def spec_of(rec):
    """{field: (type, required)} of what the reports read of `rec`, its
    kind (text: an unknown one is skipped) and an info's `what` among them."""
    kind = rec.get("kind")
    out = dict(SPEC.get("info/%s" % rec.get("what") if kind == "info" else kind, {}), kind=(TEXT, True))
    if kind == "info":
        out["what"] = (NAME, True)
    return out


# Values of the wrong type for each kind of field (null is no wrong value
# for a field that may be absent: the monitor writes null for a figure it
# could not compute).
WRONG = {
    NAME: [5, 0.5, True, [], ["a"], {"a": 1}, "", "  "],
    TEXT: [5, -1.5, False, ["x"], {"x": "y"}],
    COUNT: ["3", 3.5, -1, True, [3], {"n": 3}],
    FIGURE: ["231", True, -1, -0.5, [231], {"v": 1}],
    RATE: ["2e9", 0, -5, False, [1]],
    FLAG: [0, 1, "true", "yes", [True]],
    TEXTS: ["0000:00:03.0", [1, 2], ["a", None], {"a": "b"}, 7],
    INTS: ["1,2", [1, "2"], [1, 2.5], [True], 3],
    NUMBER: ["231", True, [1], {"a": 1}],
}
# Text that is no fault of the record's: it must be read and shown, and
# leave every output valid (markup, XML's forbidden characters, TAP's
# line and directive syntax, YAML's, bidi controls, astral characters).
ODD_TEXT = ["<b>&amp;</b>\"'", "a\nok 99 - injected\nnot ok 100", "x # SKIP not really", "x # TODO sneaky",
            "\u0001\u0008\u000b\u001f\ufffe\uffff", "]]><!--", "Bail out! stop", "\\#\\\\#", "#", "  ---\n  ...",
            "\u202e\u2028\u2029\u0085", "\U0001f600 \u00e9\u00df", "x\r\ny", "\t", "." * 3000, "a.b.c.d",
            "{\"kind\":\"result\"}", "- ok", "1..99"]
NONFINITE = ["NaN", "Infinity", "-Infinity", "1e400", "-1e400", "1E999", "2e308", "-0.1e310"]
HUGE = ["18446744073709551617", "-18446744073709551617", "100000000000000000000000000", "9" * 5000,
        "1e300", "-1e300", "1e-300", "5e-324", "1e-10", "-3e-12"]
EDGE_OK = ["0", "0.0", "-0.0", "18446744073709551616", "1e-9", "1.8e19", "1e-400"]  # 1e-400 reads as 0.0
BAD_UTF8 = [b"\xff", b"\xfe\xfe", b"\xc3(", b"\xed\xa0\x80", b"\xc0\xaf", b"\xf8\x88\x80\x80\x80", b"\x80",
            b"\xe2\x82", b"\xf4\x90\x80\x80"]
SURROGATES = ["\\ud800", "\\udfff", "\\udbff\\u0041"]


class Case:
    """One mutated input: its bytes, what it must do (`refuse`: exit 2
    naming `lines`; `accept`: exit 0 and nothing said; `either`), and a
    label for a failure message."""

    def __init__(self, data, must, lines, label):
        self.data, self.must, self.lines, self.label = data, must, lines, label


def dumps(rec):
    return json.dumps(rec, separators=(",", ":"), ensure_ascii=False)


def with_raw(rec, key, raw):
    """The record's line with `key`'s value written as raw JSON text."""
    mark = "@@RAW@@"
    r = dict(rec)
    r[key] = mark
    return dumps(r).replace(json.dumps(mark), raw, 1)


class Mutator:
    def __init__(self, lines, rng):
        self.lines = lines  # the sample's lines, as text without newline
        self.recs = [json.loads(line) for line in lines]
        self.rng = rng

    def pick(self, first=1):
        i = self.rng.randrange(first - 1, len(self.lines))
        return i, self.recs[i]

    def file(self, changed):
        """The file's bytes with {index: bytes or None (gone)} changed."""
        out = []
        for i, line in enumerate(self.lines):
            v = changed.get(i, line.encode("utf-8"))
            if v is not None:
                out.append(v + b"\n")
        return b"".join(out)

    # each returns (changed, must, line numbers it must name, label)
    def wrong_type(self):
        i, rec = self.pick()
        spec = spec_of(rec)
        read = [k for k in spec if k in rec]
        k = self.rng.choice(read) if self.rng.random() < 0.75 else self.rng.choice(list(rec))
        if k in spec:
            v = self.rng.choice(WRONG[spec[k][0]])
            must = "refuse"
        else:  # a field no report reads: any value of any type does
            v = self.rng.choice([5, "x", True, None, [1, "a"], {"a": {"b": 1}}])
            must = "accept"
        r = dict(rec, **{k: v})
        return {i: dumps(r).encode()}, must, [i + 1], "line %d '%s' = %s" % (i + 1, k, json.dumps(v)[:40])

    def null_field(self):
        i, rec = self.pick()
        k = self.rng.choice(list(rec))
        required = spec_of(rec).get(k, (None, False))[1]
        r = dict(rec, **{k: None})
        return {i: dumps(r).encode()}, "refuse" if required else "accept", [i + 1], \
            "line %d '%s' = null" % (i + 1, k)

    def missing(self):
        i, rec = self.pick()
        k = self.rng.choice(list(rec))
        required = spec_of(rec).get(k, (None, False))[1]
        r = {a: b for a, b in rec.items() if a != k}
        return {i: dumps(r).encode()}, "refuse" if required else "accept", [i + 1], \
            "line %d without '%s'" % (i + 1, k)

    def _number_key(self, rec):
        nums = [k for k, v in rec.items() if isinstance(v, (int, float)) and not isinstance(v, bool)]
        return self.rng.choice(nums or list(rec))

    def nonfinite(self):
        i, rec = self.pick()
        raw = self.rng.choice(NONFINITE)
        where = self.rng.random()
        k = self._number_key(rec)
        if where < 0.6:
            text = with_raw(rec, k, raw)
        elif where < 0.8:
            text = with_raw(rec, "extra", "[1, %s]" % raw)
        else:
            text = with_raw(rec, "extra", '{"deep": {"x": %s}}' % raw)
        return {i: text.encode()}, "refuse", [i + 1], "line %d %s at '%s'" % (i + 1, raw, k)

    def huge(self):
        i, rec = self.pick()
        raw = self.rng.choice(HUGE)
        k = self._number_key(rec)
        return {i: with_raw(rec, k, raw).encode()}, "refuse", [i + 1], "line %d '%s' = %s" % (i + 1, k, raw[:24])

    def edge_number(self):
        """A number at the edge of what a record holds, in a field where
        a number of that sign and size is no wrong type."""
        i, rec = self.pick()
        raw = self.rng.choice(EDGE_OK)
        k = self._number_key(rec)
        kind = spec_of(rec).get(k, (NUMBER,))[0]
        v = json.loads(raw)
        ok = {COUNT: isinstance(v, int) and v >= 0, FIGURE: v >= 0, RATE: v > 0, NUMBER: True}.get(kind, False)
        return {i: with_raw(rec, k, raw).encode()}, "accept" if ok else "refuse", [i + 1], \
            "line %d '%s' = %s" % (i + 1, k, raw)

    def deep(self):
        i, rec = self.pick()
        d = self.rng.choice([8, 9, 12, 40, 900, 1100, 5000, 100000]) if self.rng.random() < 0.7 else \
            self.rng.randint(1, 7)
        k = self.rng.choice(list(rec) + ["extra"])
        if self.rng.random() < 0.5:
            raw = "[" * d + "]" * d
        else:
            raw = '{"a":' * d + "1" + "}" * d
        # the record is depth 1, its value at k depth 2: d brackets make d + 1
        must = "refuse" if d + 1 > 8 or k in spec_of(rec) else "accept"
        return {i: with_raw(rec, k, raw).encode()}, must, [i + 1], "line %d '%s' nested %d" % (i + 1, k, d)

    def truncate_line(self):
        i, _ = self.pick()
        b = self.lines[i].encode("utf-8")
        cut = self.rng.randrange(1, len(b))
        return {i: b[:cut]}, "refuse", [i + 1], "line %d cut at byte %d" % (i + 1, cut)

    def truncate_file(self):
        data = self.file({})
        cut = self.rng.randrange(1, len(data))
        line = data[:cut].count(b"\n") + 1
        whole = data[cut - 1:cut] == b"\n"
        return data[:cut], "either" if whole else "refuse", [] if whole else [line], "file cut at byte %d" % cut

    def bad_utf8(self):
        i, _ = self.pick()
        b = self.lines[i].encode("utf-8")
        at = self.rng.randrange(1, len(b))
        bad = self.rng.choice(BAD_UTF8)
        return {i: b[:at] + bad + b[at:]}, "refuse", [i + 1], "line %d %r at byte %d" % (i + 1, bad, at)

    def surrogate(self):
        i, rec = self.pick()
        strs = [k for k, v in rec.items() if isinstance(v, str)]
        k = self.rng.choice(strs)
        s = self.rng.choice(SURROGATES)
        if self.rng.random() < 0.7:
            text = with_raw(rec, k, json.dumps(rec[k])[:-1] + s + '"')
        else:
            text = dumps(rec)[:-1] + ',"%s":1}' % s
        return {i: text.encode()}, "refuse", [i + 1], "line %d %s in '%s'" % (i + 1, s, k)

    def duplicate_key(self):
        i, rec = self.pick()
        k = self.rng.choice(list(rec))
        v = self.rng.choice([rec[k], "other", 0, None])
        text = dumps(rec)[:-1] + ",%s:%s}" % (json.dumps(k), json.dumps(v))
        return {i: text.encode()}, "refuse", [i + 1], "line %d '%s' twice" % (i + 1, k)

    def odd_text(self):
        i, rec = self.pick()
        spec = spec_of(rec)
        keys = [k for k, v in rec.items() if isinstance(v, str) and k != "kind" and
                not (rec["kind"] == "info" and k == "what")]
        k = self.rng.choice(keys)
        s = self.rng.choice(ODD_TEXT)
        v = self.rng.choice([s, rec[k] + s, s + rec[k]])
        if spec.get(k, (None,))[0] == NAME and not v.strip():
            v = "t" + v
        r = dict(rec, **{k: v})
        return {i: dumps(r).encode()}, "accept", [i + 1], "line %d '%s' = %s" % (i + 1, k, json.dumps(v)[:40])

    def odd_values(self):
        """A verdict, reason, kind or `what` this tool does not know: a
        newer monitor's; read (or skipped, as the contract allows)."""
        i, rec = self.pick()
        choices = [("kind", "newer-kind")]
        if rec["kind"] == "result":
            choices += [("verdict", "flaky"), ("reason", "warp-drive"), ("reason", "known"), ("verdict", "na"),
                        ("verdict", "skip"), ("verdict", "known"), ("verdict", "crashed")]
        if rec["kind"] == "info":
            choices += [("what", "newer-info")]
        k, v = self.rng.choice(choices)
        return {i: dumps(dict(rec, **{k: v})).encode()}, "accept", [i + 1], "line %d '%s' = %s" % (i + 1, k, v)

    def not_an_object(self):
        i, _ = self.pick(first=2)  # a first line not starting with '{' makes a console capture
        raw = self.rng.choice(["[1,2]", '"text"', "5", "null", "true", "{}", '{"kind":5}', '{"kind":null}',
                               '{"name":"not iommon"}', "", "   ", "{", "}", "{{}}", "\x00\x01", '{"kind":"result"',
                               "garbage here", "{'kind': 'result'}", '{"kind":"result",}'])
        return {i: raw.encode()}, "refuse", [i + 1], "line %d = %r" % (i + 1, raw)

    def rearrange(self):
        """Lines dropped, repeated or swapped: still records, maybe a
        different run (compare may find a regression)."""
        n = len(self.lines)
        order = list(range(n))
        what = self.rng.choice(["drop", "repeat", "swap"])
        i = self.rng.randrange(n)
        if what == "drop":
            order.remove(i)
        elif what == "repeat":
            order.insert(i, i)
        else:
            j = self.rng.randrange(n)
            order[i], order[j] = order[j], order[i]
        data = b"".join(self.lines[k].encode() + b"\n" for k in order)
        return data, "accept", [], "%s line %d" % (what, i + 1)

    def encoding(self):
        what = self.rng.choice(["crlf", "bom", "no-final-newline", "blank-last"])
        data = self.file({})
        if what == "crlf":
            return data.replace(b"\n", b"\r\n"), "accept", [], what
        if what == "bom":
            return b"\xef\xbb\xbf" + data, "accept", [], what
        if what == "no-final-newline":
            return data[:-1], "accept", [], what
        return data + b"\n", "refuse", [len(self.lines) + 1], what  # an empty line in a results file

    def byte_flip(self):
        i, _ = self.pick()
        b = bytearray(self.lines[i].encode("utf-8"))
        for _ in range(self.rng.randint(1, 3)):
            at = self.rng.randrange(1, len(b))
            b[at] = self.rng.randrange(256)
        return {i: bytes(b)}, "either", [i + 1], "line %d bytes flipped" % (i + 1)


SIMPLE = ["wrong_type", "wrong_type", "wrong_type", "null_field", "missing", "nonfinite", "nonfinite", "huge",
          "edge_number", "deep", "truncate_line", "bad_utf8", "surrogate", "duplicate_key", "odd_text",
          "odd_text", "odd_values", "not_an_object", "byte_flip"]
WHOLE = ["truncate_file", "rearrange", "encoding"]


def generate(n, rng, lines):
    """n cases: mostly one broken line, some two or three on different
    lines, some of the whole file."""
    mut = Mutator(lines, rng)
    cases = []
    for _ in range(n):
        r = rng.random()
        if r < 0.12:
            data, must, named, label = getattr(mut, rng.choice(WHOLE))()
            cases.append(Case(data, must, named, label))
            continue
        k = 1 if r < 0.8 else rng.randint(2, 3)
        changed, musts, named, labels = {}, [], [], []
        while len(changed) < k:
            ch, must, lines_named, label = getattr(mut, rng.choice(SIMPLE))()
            if set(ch) & set(changed):
                continue
            changed.update(ch)
            musts.append(must)
            named += lines_named if must == "refuse" else []
            labels.append(label)
        must = "refuse" if "refuse" in musts else "either" if "either" in musts else "accept"
        cases.append(Case(mut.file(changed), must, sorted(named), "; ".join(labels)))
    return cases


# ---- the tool, in this process, and as a process of its own
def load_tool():
    loader = importlib.machinery.SourceFileLoader("iommon_report", TOOL)
    spec = importlib.util.spec_from_loader("iommon_report", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


class InProcess:
    def __init__(self):
        self.mod = load_tool()
        # the tool's parser built once where it offers it (building one
        # costs more than a report); else its main as it is
        self.parser = self.mod.parser() if hasattr(self.mod, "parser") and hasattr(self.mod, "run") else None
        self.parsed = {}

    def __call__(self, argv):
        """(status, stdout, stderr, the exception that left the tool or None)."""
        out, err = io.StringIO(), io.StringIO()
        exc = None
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                if self.parser:
                    key = tuple(argv)
                    if key not in self.parsed:  # the same few command lines again and again
                        self.parsed[key] = self.parser.parse_args(argv)
                    rc = self.mod.run(self.parsed[key])
                else:
                    rc = self.mod.main(argv)
            except SystemExit as e:
                rc = e.code if isinstance(e.code, int) else 0 if e.code is None else 2
            except BaseException as e:  # what a process of its own would print as a traceback
                rc, exc = 1, "".join(traceback.format_exception(e)).strip().splitlines()[-1]
        return rc, out.getvalue(), err.getvalue(), exc


def subprocess_tool(argv):
    p = subprocess.run([TOOL] + argv, capture_output=True, text=True, errors="replace")
    return p.returncode, p.stdout, p.stderr, None


# ---- what a valid output is
_TAP_POINT = re.compile(r"(not )?ok (\d+)(?: - (.*))?$")


def _json_scalar(text):
    def no(c):
        raise ValueError(c)
    v = json.loads(text, parse_constant=no)
    if isinstance(v, (list, dict)) or (isinstance(v, float) and not math.isfinite(v)):
        raise ValueError(text)
    return v


def _hashes(desc):
    """The offsets of the '#' in a TAP description that are not escaped."""
    out, i = [], 0
    while i < len(desc):
        if desc[i] == "\\":
            i += 2
            continue
        if desc[i] == "#":
            out.append(i)
        i += 1
    return out


def tap_problem(text):
    """(why `text` is not TAP as this tool writes it, or None; its counts):
    a plan, points numbered in order each with a YAML block of JSON
    scalars, comments; a description with at most one '#' unescaped, a
    SKIP or TODO directive. Counts as JUnit's: points, failed (not ok, no
    TODO), skipped (SKIP or TODO)."""
    c = {"tests": 0, "failed": 0, "skipped": 0}
    lines = text.split("\n")
    if lines[-1] != "":
        return "no final newline", c
    lines.pop()
    if lines[:1] != ["TAP version 13"] or len(lines) < 2 or not re.fullmatch(r"1\.\.(\d+)", lines[1]):
        return "no version and plan lines", c
    plan, in_yaml = int(lines[1][3:]), False
    for no, line in enumerate(lines[2:], 3):
        if in_yaml:
            if line == "  ...":
                in_yaml = False
                continue
            if line == "  measures:":
                continue
            m = re.fullmatch(r"  (?:  [- ] )?([a-z_0-9]+): (.*)", line)
            if not m:
                return "line %d: not a YAML line of this tool's: %r" % (no, line[:60]), c
            try:
                _json_scalar(m.group(2))
            except ValueError:
                return "line %d: %s is no finite JSON scalar" % (no, m.group(2)[:40]), c
            continue
        if line.startswith("#"):
            continue
        if line == "  ---":
            in_yaml = True
            continue
        m = _TAP_POINT.fullmatch(line)
        if not m:
            return "line %d: neither a test point nor a comment: %r" % (no, line[:60]), c
        c["tests"] += 1
        if int(m.group(2)) != c["tests"]:
            return "line %d: point %s out of order" % (no, m.group(2)), c
        desc = m.group(3) or ""
        hashes = _hashes(desc)
        directive = re.match(r"#\s*(SKIP|TODO)\b", desc[hashes[0]:], re.I) if hashes else None
        if len(hashes) > 1 or (hashes and not directive):
            return "line %d: a '#' unescaped in its description: %r" % (no, line[:80]), c
        d = directive.group(1).upper() if directive else None
        c["skipped"] += d is not None
        c["failed"] += bool(m.group(1)) and d != "TODO"
    if in_yaml:
        return "a YAML block never closed", c
    if c["tests"] != plan:
        return "plan 1..%d, %d points" % (plan, c["tests"]), c
    return None, c


_SVG = "{http://www.w3.org/2000/svg}"
_COORDS = ("x", "y", "x1", "x2", "y1", "y2", "cx", "cy", "r", "width", "height")


def html_problem(text):
    try:
        root = ET.fromstring(text.encode("utf-8"))
    except ET.ParseError as e:
        return "not well-formed: %s" % e
    for el in root.iter():
        if el.tag.startswith(_SVG):
            for a in _COORDS:
                v = el.get(a)
                if v is not None:
                    try:
                        ok = math.isfinite(float(v))
                    except ValueError:
                        ok = False
                    if not ok:
                        return "a plot's %s is %r" % (a, v)
    return None


def junit_problem(text):
    """(not well-formed, or None; its testcases counted as tap_problem
    counts: failed a failure or error, skipped a skipped). xmllint checks
    the rest."""
    c = {"tests": 0, "failed": 0, "skipped": 0}
    try:
        root = ET.fromstring(text.encode("utf-8"))
    except ET.ParseError as e:
        return "not well-formed: %s" % e, c
    for case in root.iter("testcase"):
        tags = [el.tag for el in case]
        c["tests"] += 1
        c["failed"] += "failure" in tags or "error" in tags
        c["skipped"] += "skipped" in tags
    return None, c


def xmllint(paths):
    """{path: None or why}: each file against tests/junit.xsd, in one run of
    xmllint per few hundred files."""
    out = {}
    for i in range(0, len(paths), 400):
        chunk = paths[i:i + 400]
        p = subprocess.run(["xmllint", "--noout", "--schema", XSD] + chunk, capture_output=True, text=True,
                           errors="replace")
        why = {}
        for line in p.stderr.splitlines():
            for f in chunk:
                if line.startswith(f + ":") and f not in why:
                    why[f] = line[len(f) + 1:].strip()[:200]
        for f in chunk:
            ok = (f + " validates") in p.stderr
            out[f] = None if ok else why.get(f, "does not validate")
    return out


TAP_PARSER = r'''
use TAP::Parser;
for my $f (@ARGV) {
    open(my $fh, "<", $f) or die "$f: $!";
    my $tap = do { local $/; <$fh> };
    my $p = TAP::Parser->new({tap => $tap});
    1 while $p->next;
    my @e = $p->parse_errors;
    printf "%s\t%d\t%d\t%s\n", $f, scalar($p->tests_run), scalar(@e), join("; ", @e);
}
'''


def tap_parser(paths):
    """{path: (points, parse errors)} as TAP::Parser, the module under
    prove, reads each file."""
    out = {}
    for i in range(0, len(paths), 400):
        p = subprocess.run(["perl", "-e", TAP_PARSER] + paths[i:i + 400], capture_output=True, text=True,
                           errors="replace")
        for line in p.stdout.splitlines():
            f, n, ne, e = line.split("\t", 3)
            out[f] = (int(n), int(ne), e)
    return out


def applicable(data):
    """(the result records in `data`, a file every line of which is a
    record, whose verdict is not "na": the testcases JUnit must hold;
    whether it holds a platform record)."""
    n, platform = 0, False
    for line in data.decode("utf-8-sig").split("\n"):
        if line.strip():
            r = json.loads(line)
            n += r.get("kind") == "result" and r.get("verdict") != "na"
            platform |= r.get("kind") == "info" and r.get("what") == "platform"
    return n, platform


def _html_checked(text):
    return html_problem(text), None


CHECK = {"junit": junit_problem, "tap": tap_problem, "html": _html_checked}


# ---- one case through every subcommand
class Judge:
    def __init__(self, tool, scratch, base):
        self.tool, self.scratch, self.base = tool, scratch, base
        self.problems = []  # (case label, what)
        self.seen = {"junit": {}, "tap": {}, "html": {}}  # each output once: {text: ((why, counts), label)}
        self.status = {}

    def bad(self, label, what):
        self.problems.append((label, what))

    def named(self, err, path):
        return set(int(m) for m in re.findall(re.escape(path) + r":(\d+): ", err))

    def run_case(self, no, case):
        path = os.path.join(self.scratch, "case.jsonl")  # one name: outputs that agree are one output
        with open(path, "wb") as f:
            f.write(case.data)
        label = "case %d (%s, must %s)" % (no, case.label, case.must)
        files = [path] if no % 8 else [path, self.base]  # every eighth with a good file beside it
        counts, outputs = {}, {}
        said_any = False
        for fmt in ("junit", "tap", "html"):
            rc, out, err, exc = self.tool([fmt] + files)
            self.status[(fmt, rc)] = self.status.get((fmt, rc), 0) + 1
            if exc or "Traceback" in err:
                self.bad(label, "%s: %s" % (fmt, exc or err.strip().splitlines()[-1]))
                continue
            said = self.named(err, path)
            said_any |= bool(err)
            if rc not in (0, 2):
                self.bad(label, "%s: exit %d" % (fmt, rc))
            if (rc == 0) != (err == ""):
                self.bad(label, "%s: exit %d, yet said %r" % (fmt, rc, err[:120]))
            if any(not line.startswith(("iommon-report: " + path, "iommon-report: no records in any input"))
                   for line in err.splitlines()):
                self.bad(label, "%s: a message not naming the input first: %r" % (fmt, err[:160]))
            if rc == 2 and not said and not re.search(re.escape(path) + r": (empty|not an iommon)", err):
                self.bad(label, "%s: exit 2 without the input's file:line: %r" % (fmt, err[:160]))
            if case.must == "refuse":
                if rc != 2 or not set(case.lines) <= said:
                    self.bad(label, "%s: exit %d, lines named %s, not %s" % (fmt, rc, sorted(said), case.lines))
            elif case.must == "accept" and rc != 0:
                self.bad(label, "%s: exit %d: %s" % (fmt, rc, err.strip()[:200]))
            outputs[fmt] = out
            if not out:
                if "nothing written" not in err:
                    self.bad(label, "%s: no output, and not said why" % fmt)
                continue
            if out not in self.seen[fmt]:
                self.seen[fmt][out] = (CHECK[fmt](out), label)
            why, counts[fmt] = self.seen[fmt][out][0]
            if why:
                self.bad(label, "%s output: %s" % (fmt, why))
        if "junit" in counts and counts.get("junit") != counts.get("tap"):
            self.bad(label, "JUnit counts %s, TAP %s" % (counts.get("junit"), counts.get("tap")))
        if case.must == "accept" and "junit" in counts:  # read whole: every result that applies a testcase
            want, platform = applicable(case.data)
            want += applicable(open(self.base, "rb").read())[0] if len(files) > 1 else 0
            if counts["junit"]["tests"] != want:
                self.bad(label, "%d testcases for %d results that apply" % (counts["junit"]["tests"], want))
            if platform and '<property name="platform.' not in outputs["junit"]:
                self.bad(label, "JUnit without the platform record's fields")
        # compare, both ways round: a refused input is exit 2, never the regression status 1
        pair = [self.base, path] if no % 2 else [path, self.base]
        rc, out, err, exc = self.tool(["compare"] + pair)
        self.status[("compare", rc)] = self.status.get(("compare", rc), 0) + 1
        if exc or "Traceback" in err:
            return self.bad(label, "compare: %s" % (exc or err.strip().splitlines()[-1]))
        said = self.named(err, path)
        if rc not in (0, 1, 2):
            self.bad(label, "compare: exit %d" % rc)
        if said_any != (rc == 2):
            self.bad(label, "compare: exit %d, where the reports %s" % (rc, "said something" if said_any else
                                                                          "read it whole"))
        if rc == 2 and (not said and not re.search(re.escape(path) + r": (empty|not an iommon)", err)):
            self.bad(label, "compare: exit 2 without the input's file:line: %r" % err[:160])
        if case.must == "refuse" and (rc != 2 or not set(case.lines) <= said):
            self.bad(label, "compare: exit %d, lines named %s, not %s" % (rc, sorted(said), case.lines))
        last = re.match(r"compare: (\d+) regressions? ", out.rstrip().rsplit("\n", 1)[-1])
        if rc in (0, 1) and (not last or (int(last.group(1)) > 0) != (rc == 1)):
            self.bad(label, "compare: exit %d, and its last line %r" % (rc, out.strip()[-80:]))

    def validate(self, tap_parsed):
        """Every JUnit output against the schema, every TAP output through
        TAP::Parser, each once, as files."""
        files = {}
        for fmt, ext in (("junit", "xml"), ("tap", "tap")):
            for i, (text, ((why, counts), label)) in enumerate(self.seen[fmt].items()):
                if why:
                    continue
                p = os.path.join(self.scratch, "out-%05d.%s" % (i, ext))
                with open(p, "w", encoding="utf-8") as f:
                    f.write(text)
                files[p] = (label, counts)
        for p, why in xmllint([p for p in files if p.endswith(".xml")]).items():
            if why:
                self.bad(files[p][0], "JUnit not valid against tests/junit.xsd: %s" % why)
        # TAP::Parser takes 5 ms a file: the first tap_parsed outputs, those of
        # cases read whole first (their odd text is what could break a line);
        # every one has been read by tap_problem, stricter on this tool's lines
        taps = sorted((p for p in files if p.endswith(".tap")), key=lambda p: "must refuse" in files[p][0])
        taps = taps[:tap_parsed]
        got = tap_parser(taps)
        for p in taps:
            n, nerr, e = got.get(p, (-1, -1, "TAP::Parser did not read it"))
            if nerr or n != files[p][1]["tests"]:
                self.bad(files[p][0], "TAP::Parser: %d points of %d, parse errors: %s" % (
                    n, files[p][1]["tests"], e[:200]))
        self.checked = (sum(1 for p in files if p.endswith(".xml")), len(taps))


def run_part(job):
    """Cases k, k + n, k + 2n ... of the seed's, in a folder of its own,
    their outputs validated: (problems, exit statuses, outputs validated)."""
    k, n, cases, seed, scratch, base = job
    lines = open(base, encoding="utf-8").read().rstrip("\n").split("\n")
    folder = os.path.join(scratch, "part%d" % k)
    os.makedirs(folder, exist_ok=True)
    judge = Judge(InProcess(), folder, base)
    for no, case in enumerate(generate(cases, random.Random(seed), lines)):
        if no % n == k:
            judge.run_case(no, case)
    judge.validate(TAP_PARSED // n)
    return judge.problems, judge.status, judge.checked


# ---- the review's findings, one by one
def record_line(**fields):
    return json.dumps(fields, separators=(",", ":"))


def findings(tool, scratch, lines):
    """The review's findings, and what the generated cases found beside
    them, each through `tool`. A case: (name, argv, files {name: bytes},
    the exit status, the line to be named, "finite" where the output
    must be valid and free of NaN and infinity)."""
    good = "\n".join(lines) + "\n"
    n = len(lines) + 1  # the line a record appended to the sample is

    def appended(line):
        return (good + line + "\n").encode()

    res = [i for i, line in enumerate(lines) if '"kind":"result"' in line and '"verdict":"pass"' in line][0]
    mea = [i for i, line in enumerate(lines) if '"kind":"measure"' in line][0]

    def replaced(i, line):
        ls = list(lines)
        ls[i] = line
        return ("\n".join(ls) + "\n").encode()

    rec_res, rec_mea = json.loads(lines[res]), json.loads(lines[mea])
    deep = record_line(kind="result", test="deep.nest", verdict="pass")[:-1] + ',"detail":' + \
        "[" * 100000 + "]" * 100000 + "}"
    cases = []
    for fmt in ("junit", "tap", "html"):
        cases.append(("deep-" + fmt, [fmt], {"deep.jsonl": appended(deep)}, 2, n, None))
    cases.append(("deep-compare", ["compare", "@sample", "@deep.jsonl"], {"deep.jsonl": appended(deep)}, 2, n, None))
    cases.append(("wrong-type-html", ["html"], {"detail.jsonl": appended(record_line(
        kind="result", test="x.detail", verdict="pass", detail=5))}, 2, n, None))
    cases.append(("wrong-type-junit", ["junit"], {"checks.jsonl": appended(record_line(
        kind="result", test="x.checks", verdict="fail", checks="3", failures=1, detail="d"))}, 2, n, None))
    for raw in ("NaN", "Infinity", "-Infinity", "1e400"):
        for fmt in ("junit", "tap", "html"):
            text = with_raw(rec_res, "ms", raw) if fmt != "html" else with_raw(rec_mea, "p50", raw)
            line = res + 1 if fmt != "html" else mea + 1
            cases.append(("%s-%s" % (raw.lower(), fmt), [fmt], {"nonfinite.jsonl": replaced(line - 1, text)}, 2,
                          line, "finite"))
    # a sample count as text: compare's min() of it and a number raised, exit 1, "a regression"
    cases.append(("compare-malformed-new", ["compare", "@sample", "@bad.jsonl"],
                  {"bad.jsonl": replaced(mea, with_raw(rec_mea, "n", '"20"'))}, 2, mea + 1, None))
    cases.append(("compare-malformed-base", ["compare", "@bad.jsonl", "@sample"],
                  {"bad.jsonl": replaced(res, with_raw(rec_res, "ms", "NaN"))}, 2, res + 1, None))
    # found by the generated cases on the code before: a negative time is
    # no xs:decimal >= 0; a reason code outside the schema's set; a test
    # name that starts a TAP line of its own; a null interval the plot multiplied
    cases.append(("negative-ms-junit", ["junit"], {"neg.jsonl": replaced(res, with_raw(rec_res, "ms", "-1.5"))},
                  2, res + 1, "finite"))
    cases.append(("unknown-reason-junit", ["junit"], {"reason.jsonl": appended(record_line(
        kind="result", test="x.reason", verdict="skip", detail="d", reason="warp-drive"))}, 0, None, "finite"))
    cases.append(("name-newline-tap", ["tap"], {"name.jsonl": appended(record_line(
        kind="result", test="x.a\nok 99 - injected # SKIP", verdict="fail", detail="d"))}, 0, None, "finite"))
    cases.append(("null-interval-html", ["html"], {"null.jsonl": replaced(mea, with_raw(rec_mea, "p50_lo", "null"))},
                  0, None, "finite"))
    cases.append(("option-overflow", ["compare", "--k", "1e308", "@sample", "@sample"], {}, 2, None, None))
    cases.append(("duplicate-key", ["junit"], {"dup.jsonl": replaced(res, lines[res][:-1] + ',"verdict":"fail"}')},
                  2, res + 1, None))

    # every case in this process; the deep ones (one per subcommand) in a
    # process of their own too, where a traceback is what stderr shows
    runs, xml, taps = [], [], []
    for name, argv, files, want, line, check in cases:
        paths = {}
        for fn, data in files.items():
            paths[fn] = os.path.join(scratch, fn)
            with open(paths[fn], "wb") as f:
                f.write(data)
        args = [paths.get(a[1:], SAMPLE) if a.startswith("@") else a for a in argv]
        if not any(a.startswith("@") for a in argv) and files:
            args += list(paths.values())
        ext = {"junit": "xml", "tap": "tap", "html": "html"}.get(args[0], "txt")
        out_path = os.path.join(scratch, "finding-%s.%s" % (name, ext))
        if "--k" not in args:
            args[1:1] = ["-o", out_path]
        results = [("", tool(args))]
        if name.startswith("deep-"):
            results.append((" (a process of its own)", subprocess_tool(args)))
        problems = []
        for where, (rc, _, err, exc) in results:
            if exc or "Traceback" in err:
                problems.append("a traceback%s: %s" % (where, exc or [e for e in err.splitlines() if e.strip()][-1]))
            if rc != want:
                problems.append("exit %d%s, not %d" % (rc, where, want))
            if line and not any(re.search(re.escape(p) + r":%d: " % line, err) for p in paths.values()):
                problems.append("line %d not named%s: %r" % (line, where, err.strip()[-160:]))
        text = open(out_path, encoding="utf-8", errors="replace").read() if os.path.exists(out_path) else ""
        if check == "finite" and text:
            why = {"xml": lambda t: junit_problem(t)[0], "tap": lambda t: tap_problem(t)[0],
                   "html": html_problem}[ext](text)
            if not why and re.search(r'"(nan|-?inf)"|=(nan|-?inf)\b|: (NaN|-?Infinity)$', text, re.M | re.I):
                why = "NaN or infinity in it"
            if why:
                problems.append("%s output: %s" % (args[0], why))
            elif ext == "xml":
                xml.append(out_path)
            elif ext == "tap":
                # the plan: every result that applies, less one refused
                n_results = sum(1 for ln in files[list(files)[0]].decode().split("\n")
                                if '"kind":"result"' in ln and '"verdict":"na"' not in ln)
                refused = want == 2 and '"kind":"result"' in files[list(files)[0]].decode().split("\n")[line - 1]
                n_results -= refused
                if tap_problem(text)[1]["tests"] != n_results:
                    problems.append("TAP: %d points for %d results" % (tap_problem(text)[1]["tests"], n_results))
                taps.append((out_path, n_results))
        runs.append((name, out_path, problems, len(results) > 1, results[0][1][0], line, check))
    valid = xmllint(xml) if xml else {}
    parsed = tap_parser([p for p, _ in taps]) if taps else {}
    for p, n_results in taps:
        n, nerr, e = parsed.get(p, (-1, -1, "not read"))
        if nerr or n != n_results:
            valid[p] = "TAP::Parser: %d points for %d results, %s" % (n, n_results, e[:100])
    for name, out_path, problems, own, rc, line, check in runs:
        if valid.get(out_path):
            problems.append("output: %s" % valid[out_path])
        say(not problems, "finding." + name, "; ".join(problems) if problems else
            "exit %d%s, no traceback%s%s" % (rc, ", line %d named" % line if line else "",
                                             " (nor as a process of its own)" if own else "",
                                             ", the output valid" if check else ""))


def closed_stdout():
    """Standard output closed before the report is written (a reader that
    stopped, `| head`): said in a line, exit 2, no traceback."""
    r, w = os.pipe()
    os.close(r)
    try:
        p = subprocess.run([TOOL, "tap", SAMPLE], stdout=w, stderr=subprocess.PIPE, text=True, errors="replace")
    finally:
        os.close(w)
    ok = p.returncode == 2 and "Traceback" not in p.stderr and "standard output" in p.stderr
    say(ok, "closed-stdout", "exit %d: %s" % (p.returncode, (p.stderr.strip().splitlines() or [""])[-1][:160]))


def reason_sets():
    """The skip reason codes of the monitor, of tests/junit.xsd and of
    tools/report/junit.py: one set."""
    monitor = re.findall(r'X\(SKIP_[A-Z_]+, "([a-z-]+)", (?:true|false)\)', open(REPORT_H).read())
    xsd = re.findall(r'<xs:enumeration value="([a-z-]+)"/>',
                     re.search(r'name="skipType">(.*?)</xs:simpleType>', open(XSD).read(), re.S).group(1))
    sys.path.insert(0, os.path.join(ROOT, "tools", "report"))
    import junit  # noqa: E402
    tool = list(getattr(junit, "SKIP_TYPES", []))
    xsd = [c for c in xsd if c != "known"]
    ok = bool(monitor) and sorted(monitor) == sorted(xsd) == sorted(tool)
    say(ok, "reason-codes", "core/monitor/report.h, tests/junit.xsd and tools/report/junit.py: %s" % (
        "the same %d codes" % len(monitor) if ok else "differ: %s / %s / %s" % (monitor, xsd, tool)))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", type=int, default=CASES)
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--keep", metavar="DIR", help="leave the cases and outputs here")
    ap.add_argument("--workers", type=int, default=2, help="processes running the cases (default 2)")
    a = ap.parse_args()
    # in memory where there is some (a file opened on this disk costs more than a report)
    shm = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None
    scratch = a.keep or tempfile.mkdtemp(prefix="iommon-robust-", dir=shm)
    os.makedirs(scratch, exist_ok=True)
    try:
        t0 = time.monotonic()
        lines = open(SAMPLE, encoding="utf-8").read().rstrip("\n").split("\n")
        base = os.path.join(scratch, "sample-run.jsonl")
        shutil.copyfile(SAMPLE, base)
        # the generated cases in `workers` processes, the rest here meanwhile
        workers = max(1, min(a.workers, os.cpu_count() or 1))
        jobs = [(k, workers, a.cases, a.seed, scratch, base) for k in range(workers)]
        pool = None
        if workers > 1:
            import multiprocessing
            pool = multiprocessing.get_context("fork").Pool(workers)
            pending = pool.map_async(run_part, jobs)
        reason_sets()
        closed_stdout()
        findings(InProcess(), scratch, lines)
        if pool:
            parts = pending.get()
            pool.close()
            pool.join()
        else:
            parts = [run_part(jobs[0])]
        problems, st, checked = [], {}, [0, 0]
        for p, status, c in parts:
            problems += p
            for k, v in status.items():
                st[k] = st.get(k, 0) + v
            checked = [checked[0] + c[0], checked[1] + c[1]]
        took = time.monotonic() - t0
        cases = generate(a.cases, random.Random(a.seed), lines)
        musts = {m: sum(1 for c in cases if c.must == m) for m in ("refuse", "accept", "either")}
        detail = ("%d cases from seed %d (%d to be refused by line, %d read whole, %d either), each through junit, "
                  "tap, html and compare: the %d different JUnit outputs checked against tests/junit.xsd, %d of "
                  "the TAP outputs read by TAP::Parser (all by a strict reading); exit 0/2: junit %d/%d, tap %d/%d, "
                  "html %d/%d; compare 0/1/2: %d/%d/%d; this test %.1f s, the cases in %d process%s" % (
                      len(cases), a.seed, musts["refuse"], musts["accept"], musts["either"], checked[0],
                      checked[1], st.get(("junit", 0), 0), st.get(("junit", 2), 0), st.get(("tap", 0), 0),
                      st.get(("tap", 2), 0), st.get(("html", 0), 0), st.get(("html", 2), 0),
                      st.get(("compare", 0), 0), st.get(("compare", 1), 0), st.get(("compare", 2), 0), took,
                      workers, "" if workers == 1 else "es"))
        if problems:
            seen = {}
            for label, what in problems:  # one example of each kind of problem
                key = re.sub(r"\d+", "N", what.split(":")[0] + ":" + what.split(":")[1] if ":" in what else what)
                seen.setdefault(key, (label, what, 0))
                seen[key] = seen[key][:2] + (seen[key][2] + 1,)
            # an exception first: what a process of its own would print as a traceback
            for label, what, count in sorted(seen.values(), key=lambda e: not re.search(r"\w+Error\b", e[1]))[:12]:
                print("  %s: %s (%d like it)" % (label, what[:300], count))
            say(False, "generated", "%d problems in %d cases; %s" % (
                len(problems), len({label for label, _ in problems}), detail))
        else:
            say(True, "generated", detail)
    finally:
        if not a.keep:
            shutil.rmtree(scratch, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
