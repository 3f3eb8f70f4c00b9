"""The lab lines' contract, shared by the checks that read them (check.py
on saved consoles, tests/lab/ on real LAVA and labgrid runs): the LAVA
job's monitors block, what its pattern reads off a console, and what the
records call for."""

import os
import re

import yaml  # Debian's python3-yaml: the LAVA job is read as LAVA reads it

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
JOB = os.path.join(ROOT, "tools", "lava", "iommon-job.yaml")


def monitor(job=JOB):
    """The job's monitors entry: start, end, pattern, fixupdict."""
    with open(job) as f:
        spec = yaml.safe_load(f)
    return [a["test"]["monitors"][0] for a in spec["actions"] if "test" in a][0]


def lava_lines(pattern, fixup, console):
    return [(m["test_case_id"], fixup.get(m["result"], m["result"]), m["measurement"], m["units"])
            for m in re.finditer(pattern, console)]


def expected_lines(recs, fixup):
    """The lab lines the records call for: a result line for each test that
    applies (one that does not is no lab result), one per measure, and one
    per plan, its verdict (`verdict` records: pass, fail, error,
    inconclusive)."""
    out = []
    for r in recs:
        if r["kind"] == "result" and r["verdict"] != "na":
            out.append((r["test"], fixup.get(r["verdict"], r["verdict"]), None, None))
        elif r["kind"] == "verdict":
            out.append(("verdict", fixup.get(r["verdict"], r["verdict"]), None, None))
        elif r["kind"] == "measure":
            ns = r["unit"] == "cycles" and r.get("counter_hz")
            # a series cut short (the record's `cut`) is no pass
            out.append(("%s/%s/%s/%s" % (r["test"], r["path"], r["backend"], r["variant"]),
                        "fail" if r.get("cut") else "pass",
                        "%.1f" % r["p50_ns"] if ns else str(r["p50"]), "ns" if ns else r["unit"]))
    return out
