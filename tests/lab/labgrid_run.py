#!/usr/bin/python3
"""labgrid_run.py IMAGE OUT: tools/labgrid/test_iommon.py run by Debian's pytest
with labgrid's plugin (python3-labgrid) on tools/labgrid/env-qemu.yaml,
end to end: power on (tools/labgrid/qemu-power.sh), the countdown cut
short, a plan typed at the prompt through labgrid's console, the results
and the verdict read, power off. Then the SOL/IPMI environment
(tools/labgrid/env.yaml) read by labgrid's own configuration loader, its
drivers and their arguments checked against labgrid's.

  plan   a plan of the timer group and VT-d cases, the records on the
         console: pytest passes, the results the test read are the ones
         the records call for, and its JUnit names the verdict line.
  crash  a CPU exception with `set crash firmware`: no end banner, so the
         test fails on its console's timeout (a crashed monitor is no pass).

Prints "PASS labgrid.NAME: ..." / "FAIL ..." / "SKIP ..." lines as
tools/test.sh counts them, and where the time went."""

import collections
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

sys.dont_write_bytecode = True  # nothing written into the tree

HERE = os.path.dirname(os.path.realpath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "report"))
from lablines import expected_lines, monitor  # noqa: E402

LG = os.path.join(ROOT, "tools", "labgrid")
# The plan is short of the default: labgrid's SerialDriver on a network
# port reads a byte at a time (pyserial's socket in_waiting says 1): the
# default plan with its records, 120 KB of console, took 37 s, 16 s without.
CASES = {
    "plan": ("set records console; run timer vtd.takeover vtd.translate_4k vtd.read_not_present vtd.invalidate_queued_page "
             "vtd.latency dma.integrity", 900),
    "crash": ("set records console; set crash firmware; run timer.counter selftest.fault", 8),
}


def release():
    """This machine's Debian release as /etc/os-release names it."""
    try:
        with open("/etc/os-release", encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith("PRETTY_NAME="):
                    return line.split("=", 1)[1].strip().strip('"')
    except OSError:
        pass
    return "this system"


def labgrid_version():
    """The installed labgrid's version, or "unknown"."""
    try:
        import importlib.metadata
        return importlib.metadata.version("labgrid")
    except Exception:  # noqa: BLE001 - any failure to read it is "unknown", never a traceback
        return "unknown"


def say(verdict, name, detail):
    print("%s labgrid.%s: %s" % (verdict, name, detail), flush=True)


def run_case(name, image, out):
    plan, result_s = CASES[name]
    d = os.path.join(out, name)
    os.makedirs(d, exist_ok=True)
    env = dict(os.environ, IOMMON_IMAGE=image, IOMMON_PLAN=plan, IOMMON_RESULT_S=str(result_s), IOMMON_BOOT_S="120",
               IOMMON_CONSOLE=os.path.join(d, "console.txt"), IOMMON_RECORDS=os.path.join(d, "records.jsonl"),
               IOMMON_RESULTS=os.path.join(d, "results.json"))
    t0 = time.time()
    with open(os.path.join(d, "pytest.log"), "w") as log:
        p = subprocess.run(["pytest-3", "-q", "-p", "no:cacheprovider", "--lg-env",
                            os.path.join(LG, "env-qemu.yaml"), os.path.join(LG, "test_iommon.py"),
                            "--junitxml", os.path.join(d, "junit.xml")],
                           cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    subprocess.run([os.path.join(LG, "qemu-power.sh"), "off"], cwd=ROOT)  # whatever pytest left
    return p.returncode, time.time() - t0, d


def junit(d):
    try:
        root = ET.parse(os.path.join(d, "junit.xml")).getroot()
    except (OSError, ET.ParseError):
        return [], {}
    cases = list(root.iter("testcase"))
    props = {p.get("name"): p.get("value") for c in cases for p in c.iter("property")}
    return cases, props


def check_plan(rc, d):
    problems = []
    cases, props = junit(d)
    if rc != 0 or len(cases) != 1 or cases[0].find("failure") is not None:
        problems.append("pytest exit %d, %d JUnit testcases" % (rc, len(cases)))
    try:
        recs = [json.loads(l) for l in open(os.path.join(d, "records.jsonl"))]
        got = [tuple(r) for r in json.load(open(os.path.join(d, "results.json")))]
    except (OSError, ValueError) as e:
        return problems + ["the test left no records or results: %s" % e], 0
    want = expected_lines(recs, monitor().get("fixupdict", {}))
    if collections.Counter(got) != collections.Counter(want):
        problems.append("the results read through labgrid are not the records': missing %s, extra %s" %
                        (list(collections.Counter(want) - collections.Counter(got))[:3],
                         list(collections.Counter(got) - collections.Counter(want))[:3]))
    summary = [r for r in recs if r["kind"] == "summary"]
    line = props.get("iommon", "")
    if not summary or not line.startswith("%d passed, %d failed" % (summary[-1]["passed"], summary[-1]["failed"])):
        problems.append("JUnit's verdict property %r is not the summary record's" % line)
    if not any(g[2] for g in got):
        problems.append("no measurement came through")
    return problems, len(want)


def check_crash(rc, d):
    cases, _ = junit(d)
    fail = cases[0].find("failure") if len(cases) == 1 else None
    if rc == 0 or fail is None:
        return ["a crashed monitor passed (pytest exit %d)" % rc], 0
    if "Timeout" not in (fail.get("message", "") + (fail.text or "")):
        return ["it failed, but not on the console's timeout: %s" % fail.get("message", "")[:120]], 0
    return [], 0


def check_sol_template():
    """The IPMI environment as labgrid reads it: its loader, its driver
    registry and each driver's arguments (not started: they would run
    ipmitool)."""
    import attr
    from labgrid.config import Config
    from labgrid.factory import target_factory
    import labgrid.driver  # noqa: F401  registers the drivers

    path = os.path.join(LG, "env.yaml")
    cfg = Config(path)
    problems = []
    for name, target in cfg.get_targets().items():
        for drv, args in (target.get("drivers") or {}).items():
            cls = target_factory.drivers.get(drv)
            if cls is None:
                problems.append("%s: labgrid has no driver %s" % (name, drv))
                continue
            fields = {f.name: f for f in attr.fields(cls)}
            unknown = set(args or {}) - set(fields)
            missing = [f for f, a in fields.items() if a.default is attr.NOTHING and a.init and
                       f not in ("target", "name") and f not in (args or {})]
            if unknown or missing:
                problems.append("%s %s: unknown %s, missing %s" % (name, drv, sorted(unknown), missing))
    return problems, path


def main():
    image, out = os.path.realpath(sys.argv[1]), os.path.realpath(sys.argv[2])
    # labgrid is a pytest plugin: both must be there (Debian 12 has 0.4.1;
    # trixie has none, trixie-backports' lava-dispatcher brings 26.0)
    missing = None
    if not shutil.which("pytest-3"):
        missing = "no pytest-3 (Debian's python3-pytest: make deps)"
    elif importlib.util.find_spec("labgrid") is None:
        missing = "no labgrid (Debian's python3-labgrid, which make deps installs where the release has it: %s" \
            % release() + ")"
    if missing:
        for n in list(CASES) + ["sol-template"]:
            say("SKIP", n, missing)
        return 0
    shutil.rmtree(out, ignore_errors=True)
    times, failed = [], 0
    for name in CASES:
        rc, wall, d = run_case(name, image, out)
        problems, n = (check_plan if name == "plan" else check_crash)(rc, d)
        times.append("%s %.0f s" % (name, wall))
        if problems:
            failed += 1
            say("FAIL", name, "; ".join(problems[:3]) + " (log: %s)" % os.path.join(d, "pytest.log"))
        elif name == "plan":
            say("PASS", name, "pytest on env-qemu.yaml (labgrid %s: SerialDriver, ExternalPowerDriver): %d results "
                "and measures read through labgrid's console, each as the records say; the verdict in JUnit"
                % (labgrid_version(), n))
        else:
            say("PASS", name, "a crash with no end banner fails the test on its console's timeout")
    problems, path = check_sol_template()
    if problems:
        failed += 1
        say("FAIL", "sol-template", "; ".join(problems[:3]))
    else:
        say("PASS", "sol-template", "%s read by labgrid's Config, every driver and argument labgrid's"
            % os.path.relpath(path, ROOT))
    print("  labgrid wall time: %s (each: pytest's start, OVMF's boot, the plan, the crash's timeout)" %
          ", ".join(times))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
