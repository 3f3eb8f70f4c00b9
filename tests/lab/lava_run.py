#!/usr/bin/python3
"""lava_run.py IMAGE OUT: real LAVA jobs on QEMU, run by Debian's
lava-dispatcher (lava-run: one job, one device, no server), from the
shipped template tools/lava/iommon-job.yaml with only its device-specific
parts substituted (device type, deploy, boot, the job's context and
timeouts) and its test action, the monitors block, as shipped. The device
is tools/lava/devices/qemu-iommon.yaml (lava-server's qemu device type,
rendered). Each job boots a copy of IMAGE whose iommon.cfg is the case's
plan with `set records console`, so the records arrive on the same serial
line LAVA reads:

  plan   the default plan on q35 with VT-d, an NVMe and an edu: LAVA's
         results for the monitor name every result the records hold (those
         that apply) with the same verdict, and every measure with its
         median and unit; the monitor action and the job pass.
  crash  a CPU exception (selftest.fault) under `set crash reset`: the
         machine resets, the plan resumes and goes on (timer.stall, after
         it), LAVA records the crashed test as fail and the rest as the
         records say.
  hang   a test that hangs (selftest.hang) with a watchdog longer than
         LAVA waits: the end banner never comes, the monitor action times
         out, the job fails, and the results LAVA has are the records
         printed before the hang.

Prints "PASS lava.NAME: ..." / "FAIL lava.NAME: ..." / "SKIP ..." lines
as tools/test.sh counts them, and where each job's time went."""

import collections
import json
import os
import re
import shutil
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # nothing written into the tree

import yaml  # noqa: E402

HERE = os.path.dirname(os.path.realpath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "report"))
from lablines import JOB, expected_lines, monitor  # noqa: E402

DEVICE = os.path.join(ROOT, "tools", "lava", "devices", "qemu-iommon.yaml")
OVMF_VARS = "/usr/share/OVMF/OVMF_VARS_4M.fd"

CASES = {
    "plan": ("run default", 300),
    # timer.stall in a run of its own: after the crash (a run puts its
    # destructive tests last), so it shows the plan resumed
    "crash": ("set crash reset\nrun timer.counter selftest.fault\nrun timer.stall", 120),
    # the watchdog outlasts LAVA's patience: to LAVA the monitor hangs
    "hang": ("set watchdog 600\nrun timer.counter selftest.hang", 25),
}


def say(verdict, name, detail):
    print("%s lava.%s: %s" % (verdict, name, detail), flush=True)


def job_for(image, test_seconds):
    """The shipped template with its device-specific parts put in for the
    QEMU device; the test action (the monitors block) as shipped, its
    timeout the case's."""
    with open(JOB) as f:
        job = yaml.safe_load(f)
    tests = [a for a in job["actions"] if "test" in a]
    assert len(tests) == 1, "the template has one test action"
    tests[0]["test"]["timeout"] = {"seconds": test_seconds}
    job["device_type"] = "qemu"
    job["context"] = {"arch": "amd64", "no_kvm": True}
    job["timeouts"] = {"job": {"seconds": test_seconds + 120}, "action": {"seconds": test_seconds + 60},
                       "connection": {"seconds": test_seconds + 30}}
    stick = ("-drive if=none,id=stick,format=raw,file={image} -device qemu-xhci,id=xhci "
             "-device usb-storage,bus=xhci.0,drive=stick,removable=on")
    job["actions"] = [
        {"deploy": {"to": "tmpfs", "timeout": {"minutes": 2}, "images": {
            "image": {"image_arg": stick, "url": "file://" + image},
            "vars": {"image_arg": "-drive if=pflash,format=raw,unit=1,file={vars}", "url": "file://" + OVMF_VARS}}}},
        {"boot": {"method": "qemu", "media": "tmpfs", "timeout": {"minutes": 2}}},
    ] + tests
    return job


def stick_with(image, plan, out):
    """A copy of IMAGE whose iommon.cfg is `plan`, its records on the console."""
    copy = os.path.join(out, "iommon.img")
    shutil.copyfile(image, copy)
    cfg = os.path.join(out, "iommon.cfg")
    with open(cfg, "w") as f:
        f.write("set records console\n%s\nexit poweroff\n" % plan)
    subprocess.run(["mcopy", "-o", "-i", copy + "@@1M", cfg, "::/iommon.cfg"], check=True)
    return copy


def run_job(name, image, out, job_id):
    plan, seconds = CASES[name]
    os.makedirs(out, exist_ok=True)
    job = job_for(stick_with(image, plan, out), seconds)
    path = os.path.join(out, "job.yaml")
    with open(path, "w") as f:
        yaml.safe_dump(job, f, sort_keys=False)
    t0 = time.time()
    with open(os.path.join(out, "lava-run.log"), "w") as log:
        p = subprocess.run(["lava-run", "--job-id", str(job_id), "--output-dir", os.path.join(out, "output"),
                            "--device", DEVICE, path], stdout=log, stderr=subprocess.STDOUT)
    return p.returncode, time.time() - t0


def read_log(out):
    """LAVA's results (the monitor's and its own), and the serial line as
    LAVA logged it, one target line each."""
    results, target, first_target, last = [], [], None, None
    with open(os.path.join(out, "lava-run.log"), errors="replace") as f:
        for line in f:
            try:
                entry = yaml.safe_load(line)
            except yaml.YAMLError:
                continue
            if not isinstance(entry, dict):
                continue
            if entry.get("lvl") == "results":
                results.append(entry["msg"])
            elif entry.get("lvl") == "target":
                target.append(entry["msg"])
                first_target = first_target or entry["dt"]
            last = entry.get("dt", last)
    return results, target, first_target, last


def monitor_results(results, name):
    """(test case id, result, measurement, units) of what LAVA recorded for
    the monitor: its definition is the monitor's name."""
    out = []
    for r in results:
        if r.get("definition") != name:
            continue
        m, u = r.get("measurement"), r.get("units")
        out.append((r.get("extra", {}).get("test_case_id", r["case"]), r["result"],
                    None if m in (None, "null") else str(m), None if u in (None, "null") else u))
    return out


def lava_result(results, case):
    return [r["result"] for r in results if r.get("definition") == "lava" and r.get("case") == case]


def serial(msg):
    """A target line as the monitor printed it: LAVA's log writes each
    double quote as \\" (lava_dispatcher/shell.py, for its YAML) and drops
    carriage returns and escapes; the quotes are put back."""
    return msg.replace('\\"', '"')


def records(target):
    recs, broken = [], 0
    for line in map(serial, target):
        if line.startswith('{"kind":'):
            try:
                recs.append(json.loads(line))
            except ValueError:
                broken += 1
    return recs, broken


def lava_case_name(test_case_id):
    """A test case id as LAVA records it. lava-dispatcher 2026.10 (Debian 13's
    trixie-backports) keeps letters, digits and underscores and writes an
    underscore for anything else ("timer.counter" is "timer_counter");
    2023.01 (Debian 12) keeps the id whole."""
    return re.sub(r"[^A-Za-z0-9_]", "_", test_case_id)


def check(name, rc, results, target, mon):
    """What the case must show; a list of problems (empty: it did)."""
    fix = mon.get("fixupdict", {})
    recs, broken = records(target)
    got = collections.Counter(monitor_results(results, mon["name"]))
    want_lines = expected_lines(recs, fix)
    # which of the two LAVA did is read from what it recorded: ids with a
    # dot left in them, or none where the records call for some
    if any("." in w[0] for w in want_lines) and not any("." in g[0] for g in got):
        want_lines = [(lava_case_name(w[0]),) + tuple(w[1:]) for w in want_lines]
        got = collections.Counter({(lava_case_name(k[0]),) + tuple(k[1:]): n for k, n in got.items()})
    want = collections.Counter(want_lines)
    problems = []
    if broken:
        problems.append("%d records on LAVA's serial log do not parse" % broken)
    if got != want:
        problems.append("LAVA's results are not the records': missing %s, extra %s" %
                        (list(want - got)[:3], list(got - want)[:3]))
    job, monitor_action = lava_result(results, "job"), lava_result(results, "lava-test-monitor")
    verdicts = {r["test"]: r["verdict"] for r in recs if r["kind"] == "result"}
    if name == "plan":
        # 2023.01 records the monitor action's pass; 2026.10 records only a failure
        if job != ["pass"] or monitor_action not in (["pass"], []) or rc != 0:
            problems.append("job %s, monitor %s, lava-run exit %d: not a finished job" % (job, monitor_action, rc))
        if not any(v == "pass" for v in verdicts.values()) or not any(g[2] for g in got):
            problems.append("the plan gave LAVA no pass or no measurement to compare")
    elif name == "crash":
        fault_line = [w for w in want if w[1] == "fail" and lava_case_name(w[0]) == "selftest_fault"]
        if verdicts.get("selftest.fault") != "crashed" or not fault_line or fault_line[0] not in got:
            problems.append("the crash is not a crashed record and a LAVA fail (records: %s)" %
                            verdicts.get("selftest.fault"))
        order = [r["test"] for r in recs if r["kind"] == "result"]
        if verdicts.get("timer.stall") != "pass" or "selftest.fault" not in order or \
                order.index("timer.stall") < order.index("selftest.fault"):
            problems.append("the plan did not go on after the crash's reset (results in order: %s)" % order)
    elif name == "hang":
        # 2026.10 retries the monitor action once: a failure each time
        if job == ["pass"] or not monitor_action or set(monitor_action) != {"fail"} or rc == 0:
            problems.append("a hung monitor came out as job %s, monitor %s, lava-run exit %d" %
                            (job, monitor_action, rc))
        if "selftest.hang" in verdicts or not verdicts:
            problems.append("the records before the hang are not what LAVA has")
    return problems, sum(want.values())


def main():
    image, out = os.path.realpath(sys.argv[1]), os.path.realpath(sys.argv[2])
    names = sys.argv[3:] or list(CASES)
    if not shutil.which("lava-run"):
        for n in names:
            say("SKIP", n, "no lava-run (Debian's lava-dispatcher: make deps)")
        return 0
    tmp = "/var/lib/lava/dispatcher/tmp"  # lava_common.constants.DISPATCHER_DOWNLOAD_DIR: lava-run's own
    if not os.access(tmp, os.W_OK):
        for n in names:
            say("SKIP", n, "lava-run downloads into %s, which this user cannot write (run as root)" % tmp)
        return 0
    mon = monitor()
    shutil.rmtree(out, ignore_errors=True)
    times, failed = [], 0
    for k, name in enumerate(names):
        d = os.path.join(out, name)
        rc, wall = run_job(name, image, d, 9000 + k)
        results, target, first, last = read_log(d)
        problems, n = check(name, rc, results, target, mon)
        times.append("%s %.0f s" % (name, wall))
        if problems:
            failed += 1
            say("FAIL", name, "; ".join(problems[:3]) + " (log: %s)" % os.path.join(d, "lava-run.log"))
        else:
            job = lava_result(results, "job")
            say("PASS", name, "lava-run of tools/lava/iommon-job.yaml on %s: %d results and measures, each LAVA's "
                "as the records say; job %s, monitor %s" % (os.path.basename(DEVICE), n, job[0] if job else "?",
                                                           lava_result(results, "lava-test-monitor")))
    print("  lava-run wall time: %s (each: lava-run's start, OVMF's boot, the plan, the cases' timeouts)" %
          ", ".join(times))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
