"""Reading iommon's records (README "Output contract") from results files
or console captures, with every refused line named by file and line."""

import json
import re

# A file's first few refused lines are named one by one; the rest counted.
NAMED_PER_FILE = 5

_XML_BAD = re.compile("[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_safe(v):
    """`v` as text XML 1.0 can hold: every character outside its Char
    production (controls but tab, newline and return; U+FFFE, U+FFFF;
    surrogates) becomes '?'. Firmware strings reach the records as they
    are (a control byte as \\u0001)."""
    return _XML_BAD.sub("?", str(v))


class Test:
    """One result record, with the measures its test made before it."""

    def __init__(self, rec, measures, boot):
        self.name = rec["test"]
        self.group = self.name.split(".", 1)[0]
        self.verdict = rec["verdict"]
        self.checks = rec.get("checks", 0)
        self.failures = rec.get("failures", 0)
        self.detail = rec.get("detail", "")
        self.reason = rec.get("reason")  # a skip's or not-applicable's reason code, where the monitor gives one
        self.finding = rec.get("finding") or ""  # a pass with what the unit did that its spec allows
        self.ms = rec.get("ms") or 0.0
        self.model = rec.get("model", False)
        self.measures = measures
        self.boot = boot  # which boot of the file recorded it, from 1


class Results:
    """What one file holds: the boots' info records, the tests in the
    order they ended, every measure, and the run summaries."""

    def __init__(self, path):
        self.path = path
        self.kind = "results file"  # or "console capture"
        self.platforms = []  # one `info/platform` record per boot
        self.units = []  # `info/iommu` records (the first boot's)
        self.pci = []
        self.price = []  # `info/price` rows
        self.price_queue = []  # `info/price-queue` rows: streams with DMAs in flight
        self.crashes = []
        self.tests = []
        self.measures = []  # every measure, in order, tests' or not
        self.summaries = []
        self.records = 0
        self.problems = []  # "PATH:LINE: what", or "PATH: what"

    @property
    def platform(self):
        return self.platforms[0] if self.platforms else {}

    @property
    def applicable(self):
        """The tests that apply to this machine: every verdict but "na"."""
        return [t for t in self.tests if t.verdict != "na"]

    def not_applicable(self):
        """The tests that did not apply, as the monitor's table folds them:
        (label, how many, why), a run of one group's tests for one reason
        (a group that did not apply) as one entry labelled by the group."""
        out = []
        for t in self.tests:
            if t.verdict != "na":
                continue
            last = out[-1] if out else None
            if last and last[3] == t.group and last[2] == t.detail:
                out[-1] = (t.group, last[1] + 1, t.detail, t.group)
            else:
                out.append((t.name, 1, t.detail, t.group))
        return [(label, n, why) for label, n, why, _ in out]

    def not_applicable_words(self):
        """not_applicable() in one line ("N tests: amdvi (28 tests): why;
        ..."), or "" when every test applied."""
        na = self.not_applicable()
        if not na:
            return ""
        return "%d tests: %s" % (sum(n for _, n, _ in na), "; ".join(
            "%s%s: %s" % (label, " (%d tests)" % n if n > 1 else "", why) for label, n, why in na))

    def totals(self):
        """The run summaries added up: what the monitor's closing lines said."""
        t = {"passed": 0, "failed": 0, "skipped": 0, "crashed": 0, "known": 0, "not_applicable": 0}
        for s in self.summaries:
            for k in t:
                t[k] += s.get(k, 0) or 0
        return t


def _need(rec, fields):
    """The name of the first required field missing or of the wrong type."""
    for name, types in fields:
        if not isinstance(rec.get(name), types):
            return name
    return None


_NUM = (int, float)
_REQUIRED = {
    "result": [("test", str), ("verdict", str)],
    "measure": [("test", str), ("path", str), ("backend", str), ("variant", str), ("unit", str), ("p50", _NUM),
                ("p99", _NUM)],
    "summary": [("passed", int), ("failed", int), ("skipped", int)],
    "info": [("what", str)],
}


class _Reader:
    def __init__(self, res):
        self.res = res
        self.refused = 0
        self.pending = {}  # test name -> its measures not yet followed by its result

    def refuse(self, line_no, why):
        self.refused += 1
        if self.refused <= NAMED_PER_FILE:
            self.res.problems.append("%s:%d: %s" % (self.res.path, line_no, why))

    def take(self, rec, line_no):
        res = self.res
        kind = rec["kind"]
        missing = _need(rec, _REQUIRED.get(kind, []))
        if missing:
            self.refuse(line_no, "a '%s' record without a valid '%s'" % (kind, missing))
            return
        res.records += 1
        if kind == "info":
            what = rec["what"]
            if what == "platform":
                res.platforms.append(rec)
            elif what == "iommu" and len(res.platforms) <= 1:
                res.units.append(rec)
            elif what == "pci" and len(res.platforms) <= 1:
                res.pci.append(rec)
            elif what == "price":
                res.price.append(rec)
            elif what == "price-queue":
                res.price_queue.append(rec)
            elif what == "crash":
                res.crashes.append(rec)
        elif kind == "measure":
            res.measures.append(rec)
            self.pending.setdefault(rec["test"], []).append(rec)
        elif kind == "result":
            ms = self.pending.pop(rec["test"], [])
            res.tests.append(Test(rec, ms, max(1, len(res.platforms))))
        elif kind == "summary":
            res.summaries.append(rec)
        # other kinds are newer than this tool: skipped, as the contract allows


def _lines(data):
    """(number, text, ended) per line; `ended` is False for a last line with no newline."""
    lines = data.split(b"\n")
    last = lines.pop()
    for i, l in enumerate(lines, 1):
        yield i, l, True
    if last:
        yield len(lines) + 1, last, False


def load(path):
    """Reads one results file (every line a record) or console capture
    (lines starting with '{' are the records; the rest are skipped)."""
    res = Results(path)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        res.problems.append("%s: cannot be read: %s" % (path, e.strerror or e))
        return res
    if not data.strip():
        res.problems.append("%s: empty: no records" % path)
        return res
    first = data.lstrip()[:1]
    console = first != b"{"
    if console:
        res.kind = "console capture"
    rd = _Reader(res)
    for no, raw, ended in _lines(data):
        raw = raw.rstrip(b"\r")
        if console and not raw.startswith(b"{"):
            continue
        if not raw.strip():
            rd.refuse(no, "an empty line (a results file has one record a line)")
            continue
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            rd.refuse(no, "not UTF-8 (byte 0x%02x at column %d)" % (raw[e.start], e.start + 1))
            continue
        try:
            rec = json.loads(text)
        except ValueError as e:
            cut = "" if ended else "; the file ends without a newline: the record was cut short"
            rd.refuse(no, "not a whole JSON record (%s)%s" % (e, cut))
            continue
        try:  # a lone surrogate ("\ud800") decodes but can be written nowhere
            json.dumps(rec, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            rd.refuse(no, "a string holding a lone UTF-16 surrogate escape: not text")
            continue
        if not isinstance(rec, dict) or not isinstance(rec.get("kind"), str):
            rd.refuse(no, "JSON without a 'kind': not an iommon record")
            continue
        rd.take(rec, no)
    if rd.refused > NAMED_PER_FILE:
        res.problems.append("%s: %d more lines refused" % (path, rd.refused - NAMED_PER_FILE))
    if res.records == 0:
        what = "no line starting with '{'" if console and rd.refused == 0 else "no line is an iommon record"
        res.problems.append("%s: not an iommon results file or console capture: %s" % (path, what))
    return res


def load_all(paths, warn):
    """Every readable file's results; each problem goes to `warn`."""
    out = []
    for p in paths:
        r = load(p)
        for msg in r.problems:
            warn(msg)
        if r.records:
            out.append(r)
    return out


def measure_key(m):
    """What names a measure across runs of one plan."""
    return (m["test"], m["path"], m["backend"], m["variant"])


def measure_value(m, which):
    """p50 or p99 in ns when the record gives it, else in its own unit."""
    ns = m.get(which + "_ns")
    if isinstance(ns, _NUM):
        return float(ns), "ns"
    return float(m[which]), m["unit"]


def flat(rec, skip=("kind", "what")):
    """A record's fields as (name, value), nested objects as name.key and
    lists joined with commas: how a table or a property list shows them."""
    for k, v in rec.items():
        if k in skip:
            continue
        if isinstance(v, dict):
            for k2, v2 in flat(v, ()):
                yield "%s.%s" % (k, k2), v2
        elif isinstance(v, list):
            yield k, ", ".join(str(x) for x in v)
        else:
            yield k, v
