"""Reading iommon's records (README "Output contract") from results files
or console captures, with every refused line named by file and line."""

import json
import math
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


def _given(rec, name, default):
    v = rec.get(name)
    return default if v is None else v


class Test:
    """One result record, with the measures its test made before it."""

    def __init__(self, rec, measures, boot):
        self.name = rec["test"]
        self.group = self.name.split(".", 1)[0]
        self.verdict = rec["verdict"]
        # a field absent or null (records.parse and _FIELDS have checked the rest) takes its default
        self.checks = _given(rec, "checks", 0)
        self.failures = _given(rec, "failures", 0)
        self.detail = _given(rec, "detail", "")
        self.reason = rec.get("reason")  # a skip's or not-applicable's reason code, where the monitor gives one
        self.finding = rec.get("finding") or ""  # a pass with what the unit did that its spec allows
        self.ms = rec.get("ms") or 0.0
        self.model = _given(rec, "model", False)
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
        self.verdicts = []  # `verdict` records: each plan's own, in order
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

    def verdict(self):
        """(word, why): the file's verdict as the monitor gave it. "fail"
        when a test failed or crashed; else the last plan's `verdict`
        record ("pass", "inconclusive" or "error", a plan that could not
        run, with its `why`); a file from before those records passes when
        a test passed and is "inconclusive" (nothing ran) when none did."""
        if any(t.verdict in ("fail", "crashed") for t in self.tests):
            return "fail", ""
        last = self.verdicts[-1] if self.verdicts else {}
        said = last.get("verdict")
        if said in ("pass", "inconclusive", "error", "fail"):
            why = last.get("why") or ""
            return said, why or ("the plan could not run" if said == "error" else "")
        if any(t.verdict in ("pass", "known") for t in self.tests):
            return "pass", ""
        return "inconclusive", "nothing ran: no test passed or failed"

    def totals(self):
        """The run summaries added up: what the monitor's closing lines said."""
        t = {"passed": 0, "failed": 0, "skipped": 0, "crashed": 0, "known": 0, "not_applicable": 0}
        for s in self.summaries:
            for k in t:
                t[k] += s.get(k, 0) or 0
        return t


# What a record may hold, checked where it is read so that no report meets
# a value it cannot show. JSON has no NaN or infinity (the monitor writes
# null for a figure it could not compute, core/base/json.c), and every
# number iommon writes is a u64 or a double printed with a few decimals:
# a number beyond 2^64, or nearer zero than 1e-9 but not zero, is no
# figure of iommon's and would overflow the arithmetic of a plot or of
# compare's log ratios. The monitor's records nest two deep (a record
# holding a list of names).
NUM_MAX = 2 ** 64
NUM_MIN = 1e-9
MAX_DEPTH = 8


class _Refused(ValueError):
    """A line read as JSON but refused as an iommon record; why, in words."""


def _short(text, limit=24):
    return text if len(text) <= limit else text[:limit] + "..."


def _float(text):
    v = float(text)
    if NUM_MIN <= abs(v) <= NUM_MAX or v == 0:  # false for NaN
        return v
    if math.isinf(v):
        raise _Refused("the number %s is beyond a double's range: no figure iommon writes" % _short(text))
    raise _Refused("the number %s is outside what a record holds (0, or 1e-9 to 2^64 either way)" % _short(text))


def _int(text):
    if len(text) < 20:  # 19 digits, or a sign and 18: below 2^64
        return int(text)
    # the length before int(): thousands of digits take long, and past 4300 int() refuses them
    v = int(text) if len(text) <= 21 else None
    if v is None or abs(v) > NUM_MAX:
        raise _Refused("the number %s is outside what a record holds (at most 2^64 either way)" % _short(text))
    return v


def _constant(name):
    raise _Refused("%s: JSON has no NaN or infinity (iommon writes null for a figure it has not)" % name)


def _object(pairs):
    rec = dict(pairs)
    if len(rec) != len(pairs):
        seen = set()
        for k, _ in pairs:
            if k in seen:
                raise _Refused("the key '%s' twice in one object: which one holds is anyone's guess" % _short(k))
            seen.add(k)
    return rec


_SURROGATE = re.compile("[\ud800-\udfff]")
# A string holds a surrogate only from a \u escape (a raw one is no
# UTF-8): a line without one, and without brackets enough to nest too
# deep, needs no look beyond the decoder's hooks.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_DECODER = json.JSONDecoder(parse_float=_float, parse_int=_int, parse_constant=_constant, object_pairs_hook=_object)


def _check_tree(rec):
    todo = [(rec, 1)]
    while todo:
        v, depth = todo.pop()
        if isinstance(v, str):
            if _SURROGATE.search(v):  # "\ud800" decodes, but can be written nowhere
                raise _Refused("a string holding a lone UTF-16 surrogate escape: not text")
        elif isinstance(v, (dict, list)):
            if depth > MAX_DEPTH:
                raise _Refused("nested more than %d deep: no iommon record nests so" % MAX_DEPTH)
            items = v.items() if isinstance(v, dict) else ((None, x) for x in v)
            for k, x in items:
                if k is not None and _SURROGATE.search(k):
                    raise _Refused("a key holding a lone UTF-16 surrogate escape: not text")
                todo.append((x, depth + 1))


def parse(text):
    """One line's record, or _Refused (RecursionError past Python's own
    nesting limit) with why; a ValueError when it is not JSON at all."""
    rec = _DECODER.decode(text)
    if ("\\u" in text and _SURROGATE_ESCAPE.search(text)) or text.count("[") + text.count("{") > MAX_DEPTH:
        _check_tree(rec)
    return rec


# Field types: (the Python types JSON gives it, its floor, the types of a
# list's items, a test beyond those, what a value must be in words).
# bool is no int here: type(), not isinstance().
TEXT = ((str,), None, None, None, "text")
NAME = ((str,), None, None, str.strip, "a name (text, not empty)")
COUNT = ((int,), 0, None, None, "a count (a whole number, 0 or more)")
FIGURE = ((int, float), 0, None, None, "a figure (a number, 0 or more)")
NUMBER = ((int, float), None, None, None, "a number")
RATE = ((int, float), 0, None, bool, "a rate (a number above 0)")
FLAG = ((bool,), None, None, None, "true or false")
TEXTS = ((list,), None, (str,), None, "a list of text")
INTS = ((list,), None, (int,), None, "a list of whole numbers")


def _is_num(v):
    return type(v) in (int, float)


def _tables(kinds):
    """{kind: {field: (type, required)}} as _wrong walks it."""
    return dict((k, tuple((name, t, req) for name, (t, req) in fields.items())) for k, fields in kinds.items())


# Every field a report reads, by kind (and by `what` for info records):
# True where the record is nothing without it. A field absent or null is
# absent; one present must be of its type.
_FIELDS = _tables({
    "result": {"test": (NAME, True), "verdict": (NAME, True), "checks": (COUNT, False), "failures": (COUNT, False),
               "detail": (TEXT, False), "reason": (TEXT, False), "finding": (TEXT, False), "ms": (FIGURE, False),
               "model": (FLAG, False)},
    "measure": dict([("test", (NAME, True))] + [(k, (TEXT, True)) for k in ("path", "backend", "variant", "unit")] +
                    [("n", (COUNT, True))] + [(k, (FIGURE, True)) for k in ("min", "p50", "p90", "p99", "max")] +
                    [(k, (FIGURE, False)) for k in ("p50_lo", "p50_hi", "p50_ns", "p99_ns")] +
                    [("counter_hz", (RATE, False)), ("hist_from", (COUNT, False)), ("hist", (INTS, False))]),
    "summary": dict([(k, (COUNT, k in ("passed", "failed", "skipped")))
                     for k in ("passed", "failed", "skipped", "crashed", "known", "not_applicable")] +
                    [("inconclusive", (TEXT, False))]),
    "verdict": dict([("verdict", (NAME, True)), ("plan", (TEXT, False)), ("why", (TEXT, False)),
                     ("units", (TEXT, False))] +
                    [(k, (COUNT, False)) for k in ("passed", "failed", "skipped", "known", "not_applicable",
                                                    "devices")]),
    "info": {"what": (NAME, True)},
})
_PRICE = dict([(k, (TEXT, False)) for k in ("test", "backend", "variant", "overhead_verdict")] +
              [(k, (NUMBER, False)) for k in ("map_cycles", "unmap_cycles", "invalidation_cycles", "latency_p50_ns",
                                              "latency_p99_ns", "dmas_per_s_p50", "dmas_per_s", "mb_per_s", "overhead_pct",
                                              "overhead_lo_pct", "overhead_hi_pct", "pending_max", "reachable",
                                              "probes", "depth", "cpu_pct", "cycles_per_kib")])
_INFO = _tables({
    "platform": dict((k, (TEXT, False)) for k in (
        "iommon", "platform", "cpu", "firmware", "date", "system_manufacturer", "system_product", "system_serial",
        "bios_vendor", "bios_version", "bios_date")),
    "iommu": dict([(k, (TEXT, False)) for k in ("name", "type", "base", "refused", "cap", "ecap", "efr", "idr0", "idr1",
                                                 "idr3", "idr5", "aidr")] +
                  [("segment", (COUNT, False)), ("devices", (TEXTS, False))]),
    "price": _PRICE,
    "price-queue": _PRICE,
    "crash": {"test": (TEXT, False), "reason": (TEXT, False), "then": (TEXT, False)},
})


def _wrong(rec, fields):
    """Why the record's fields do not do, or None."""
    for name, (types, floor, items, test, words), required in fields:
        v = rec.get(name)
        if v is None:
            if required:
                return "without a '%s'" % name
        elif type(v) not in types or (floor is not None and v < floor) or (test is not None and not test(v)) or \
                (items is not None and not all(type(x) in items for x in v)):
            return "whose '%s' is not %s: %s" % (name, words, _short(json.dumps(v, ensure_ascii=True), 40))
    return None


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
        why = _wrong(rec, _FIELDS.get(kind, ()))
        label = kind
        if not why and kind == "info":
            why = _wrong(rec, _INFO.get(rec["what"], ()))
            label = "info/" + rec["what"]
        if why:
            self.refuse(line_no, "a '%s' record %s" % (_short(label, 40), why))
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
        elif kind == "verdict":
            res.verdicts.append(rec)
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
    if data.startswith(b"\xef\xbb\xbf"):  # a byte order mark an editor on Windows wrote: no part of a record
        data = data[3:]
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
            rec = parse(text)
        except _Refused as e:
            rd.refuse(no, str(e))
            continue
        except RecursionError:
            rd.refuse(no, "nested deeper than JSON reading allows: no iommon record nests so")
            continue
        except ValueError as e:
            cut = "" if ended else "; the file ends without a newline: the record was cut short"
            rd.refuse(no, "not a whole JSON record (%s)%s" % (e, cut))
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
    if _is_num(ns):
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


def verdict_of_all(results):
    """(word, why) over several files: "fail" when one failed; else the
    first that is not a pass ("inconclusive", "error"), named by file when
    there are several; else "pass"."""
    said = [(r, r.verdict()) for r in results]
    if any(v == "fail" for _, (v, _) in said):
        return "fail", ""
    for r, (v, why) in said:
        if v != "pass":
            return v, ("%s: %s" % (r.path, why)) if len(results) > 1 else why
    return ("pass", "") if results else ("inconclusive", "no results")
