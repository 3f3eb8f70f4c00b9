"""labgrid: power the machine on, wait for iommon's countdown or menu, run
a plan, read every result line and the verdict until the end banner, power
off; fail when a test failed or crashed, the plan's own verdict line is no
pass (inconclusive: it tested no IOMMU unit, or nothing ran), or the plan
never ended.

    pytest --lg-env tools/labgrid/env.yaml tools/labgrid/test_iommon.py --junitxml=plan.xml

Without IOMMON_PLAN the image's own iommon.cfg runs (Enter cuts its
countdown short). With IOMMON_PLAN="cmd; cmd; run ..." the countdown is
interrupted and the commands are typed at the prompt, the last being the
plan's `run` (start it with `set records console;` to have the records on
the console too).

The banners and the result pattern are read from tools/lava/iommon-job.yaml,
the one place they are written down (make test checks them on real
consoles, and runs this test through labgrid on QEMU). What it read goes
to files when asked: IOMMON_CONSOLE (the console between the banners, which
`tools/iommon-report junit|tap|html` reads as it reads a results file),
IOMMON_RECORDS (the JSON records among it) and IOMMON_RESULTS (the results
as read, one JSON list each: test case id, result, measurement, units)."""

import json
import os
import re

import yaml  # labgrid depends on PyYAML

JOB = os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "lava", "iommon-job.yaml")
BOOT_S = float(os.environ.get("IOMMON_BOOT_S", 600))  # power-on to the countdown or the menu
RESULT_S = float(os.environ.get("IOMMON_RESULT_S", 900))  # the longest a single test may take
COUNTDOWN = "Enter starts it now"
PROMPT = "iommon> "


def monitor():
    """The LAVA job's monitors entry: start, end, pattern, fixupdict."""
    with open(JOB) as f:
        job = yaml.safe_load(f)
    return [a["test"]["monitors"][0] for a in job["actions"] if "test" in a][0]


def _text(b):
    return b.decode("ascii", "replace") if isinstance(b, (bytes, bytearray)) else (b or "")


def read_plan(console, mon):
    """(results, transcript): each result line's groups, LAVA's words for
    the result; the console from the start banner to the end banner. A
    console without an end banner (a crash, a hang) raises the console's
    timeout, as LAVA's job times out."""
    console.expect(mon["start"], timeout=BOOT_S)
    transcript = [mon["start"]]
    results = []
    while True:
        index, before, match, _ = console.expect([mon["pattern"], mon["end"]], timeout=RESULT_S)
        transcript += [_text(before), _text(match.group(0))]
        if index == 1:
            return results, "".join(transcript) + "\n"
        g = {k: _text(v) if v is not None else None for k, v in match.groupdict().items()}
        g["result"] = mon.get("fixupdict", {}).get(g["result"], g["result"])
        results.append(g)


def start_plan(console, plan):
    """At the countdown or the menu: the image's own plan, or `plan`'s
    commands typed at the prompt (its last one starts the run)."""
    index, _, _, _ = console.expect([COUNTDOWN, PROMPT], timeout=BOOT_S)
    if not plan:
        if index == 0:
            console.write(b"\r")
        return
    if index == 0:
        console.write(b"m")  # any key but Enter opens the menu
        console.expect(PROMPT, timeout=60)
    commands = [c.strip() for c in plan.split(";") if c.strip()]
    for c in commands[:-1]:
        console.write(c.encode() + b"\r")
        console.expect(PROMPT, timeout=60)
    console.write(commands[-1].encode() + b"\r")


def _save(env, text):
    if os.environ.get(env):
        with open(os.environ[env], "w") as f:
            f.write(text)


def test_iommon_plan(target, record_property):
    power = target.get_driver("PowerProtocol")
    power.cycle()
    # after power: a console that is a network port needs its machine up
    console = target.get_driver("ConsoleProtocol")
    start_plan(console, os.environ.get("IOMMON_PLAN", ""))
    results, transcript = read_plan(console, monitor())
    power.off()
    _save("IOMMON_CONSOLE", transcript)
    lines = transcript.replace("\r", "").split("\n")
    _save("IOMMON_RECORDS", "".join(l + "\n" for l in lines if l.startswith('{"kind":')))
    _save("IOMMON_RESULTS", json.dumps([[r["test_case_id"], r["result"], r["measurement"], r["units"]]
                                        for r in results]) + "\n")
    verdict = [l for l in lines if re.match(r"[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped", l)]
    if verdict:
        record_property("iommon", verdict[-1])
    for r in results:
        if r["measurement"] is not None:
            record_property(r["test_case_id"], "%s %s" % (r["measurement"], r["units"]))
    failed = [r["test_case_id"] for r in results if r["result"] == "fail" and r["test_case_id"] != "verdict"]
    assert results, "the plan ran no test"
    assert not failed, "failed: " + ", ".join(failed)
    # the plan's own verdict: a plan that tested no IOMMU unit, or whose
    # tests all skipped, is inconclusive, never a pass
    said = [r["result"] for r in results if r["test_case_id"] == "verdict"]
    why = [l for l in lines if l.startswith("inconclusive: ")]
    assert said, "the plan ended without its verdict line"
    assert said[-1] == "pass", "the plan's verdict is %s%s" % (said[-1], ": " + why[-1][len("inconclusive: "):]
                                                              if why else "")
