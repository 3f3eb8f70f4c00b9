"""labgrid: power the machine on, wait for iommon's plan banner, read every
result line until the end banner, and fail when a test failed or crashed.

    pytest --lg-env tools/labgrid/env.yaml tools/labgrid/test_iommon.py --junitxml=plan.xml

The banners and the result pattern are read from tools/lava/iommon-job.yaml,
the one place they are written down (make test checks them on real
consoles). The console between the banners is saved to iommon-console.txt
(or $IOMMON_CONSOLE): `tools/iommon-report junit|tap|html` reads it as it
reads a results file, for a JUnit testcase per iommon test, when the plan
begins with `set records console` (records go to the results file only by
default)."""

import os

import yaml  # labgrid depends on PyYAML

JOB = os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "lava", "iommon-job.yaml")
BOOT_S = float(os.environ.get("IOMMON_BOOT_S", 600))  # power-on to the plan banner
RESULT_S = float(os.environ.get("IOMMON_RESULT_S", 900))  # the longest a single test may take


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


def test_iommon_plan(target, record_property):
    power = target.get_driver("PowerProtocol")
    console = target.get_driver("ConsoleProtocol")
    power.cycle()
    results, transcript = read_plan(console, monitor())
    with open(os.environ.get("IOMMON_CONSOLE", "iommon-console.txt"), "w") as f:
        f.write(transcript)
    for r in results:
        if r["measurement"] is not None:
            record_property(r["test_case_id"], "%s %s" % (r["measurement"], r["units"]))
    failed = [r["test_case_id"] for r in results if r["result"] == "fail"]
    assert results, "the plan ran no test"
    assert not failed, "failed: " + ", ".join(failed)


