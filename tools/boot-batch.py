#!/usr/bin/python3
"""boot-batch.py: boot tests that boot the same machine share one boot.

Under TCG, OVMF takes about 3.4 s to reach its boot manager; the monitor
then starts in 0.2 s. Tests whose machine is the same (QEMU, its devices,
firmware, the stick as the image has it) and whose plan ends with `exit
qemu` can run one after another in one boot: tests/standin/batch.c stands
in the stick's boot file, writes each test's plan as the stick's
iommon.cfg, starts the monitor from the stick and marks where each test
begins and ends on the console. Each test is then judged by
tools/boottest.sh on its own part of the console, its own results file
and the exit status its `exit qemu` line names, as if it had booted alone.

A test whose part never ends (it hung, crashed or the boot died) is booted
again on its own and judged from that boot; so is one that fails in the
shared boot. The boot of its own gives the verdict, the test as it was
always defined; a failure in the shared boot is said on its verdict line
with the shared console kept: the machine the earlier tests left was not as
they found it (a finding), or the failure does not repeat.

  boot-batch.py plan < POOL       rewrite tools/test.sh's pool ("PREFIX QEMU
                                  TEST" lines): tests that can share a boot
                                  become "batch:PREFIX QEMU T1,T2,..."
  boot-batch.py run PREFIX QEMU IMAGE T1,T2,...
                                  boot them, print a verdict line each
                                  ("PASS boot.NAME ...") as tools/test.sh
                                  prints them; one that cannot share a
                                  boot (fresh, alone, ...) boots alone
QEMU is as tools/qemu-run.sh takes it (system, 10, 11).
"""
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
BATCH_MAX = 8  # tests a boot: a longer one holds one core while the pool waits
# the program that stands in the stick's boot file, and that file, by arch
RUNNER = {"x86_64": ("batch.efi", "BOOTX64.EFI"), "aarch64": ("batch-aa64.efi", "BOOTAA64.EFI")}


def out_dir(prefix, test):
    name = os.path.basename(test)[: -len(".test")]
    sub = {"boot": "boot-tests", "boot10": "boot-tests-qemu10", "boot11": "boot-tests-qemu11"}[prefix]
    return os.path.join(REPO, "build", sub, name)


VERSIONS = {}


def env_for(qemu):
    e = dict(os.environ)
    e.pop("BOOTTEST_MODE", None)
    e.pop("BOOTTEST_QEMU_VERSION", None)
    if qemu not in ("system", "-"):
        e["QEMU"] = qemu
    if qemu not in VERSIONS:  # asked once: under QEMU=11 each asking enters the Debian 13 root
        p = subprocess.run(["sh", os.path.join(HERE, "qemu-run.sh"), "--qemu-version"], env=e,
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=False)
        VERSIONS[qemu] = p.stdout.decode("utf-8", "replace").strip() if p.returncode == 0 else ""
    if VERSIONS[qemu]:
        e["BOOTTEST_QEMU_VERSION"] = VERSIONS[qemu]
    return e


def prepare(prefix, qemu, test, image):
    """The test's prepared file as a dict, or None when it cannot be made."""
    out = out_dir(prefix, test)
    e = env_for(qemu)
    e["BOOTTEST_MODE"] = "prepare"
    try:
        if os.path.exists(os.path.join(out, "prepared")):  # never an earlier run's
            os.remove(os.path.join(out, "prepared"))
        subprocess.run(["sh", os.path.join(HERE, "boottest.sh"), test, image, out], env=e,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120, check=False)
        with open(os.path.join(out, "prepared"), encoding="utf-8") as f:
            d = dict(l.rstrip("\n").split("=", 1) for l in f if "=" in l)
    except (OSError, subprocess.SubprocessError, ValueError):
        return None
    return d


def plan(lines):
    """Pool lines in, pool lines out: batches first among their own kind
    (they are long), the rest in the order given."""
    image = os.path.join(REPO, "build", "iommon.img")
    groups, order, rest = {}, [], []
    wanted = [l.split() for l in lines]
    wanted = [p for p in wanted if len(p) == 3 and p[0] in ("boot", "boot10", "boot11")]
    for p in wanted:
        env_for(p[1])  # each QEMU's version asked once, before the threads
    # each test prepared by a shell of its own: one a core
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as ex:
        prepared = dict(zip([tuple(p) for p in wanted], ex.map(lambda p: prepare(p[0], p[1], p[2], image), wanted)))
    for line in lines:
        parts = line.split()
        if len(parts) != 3 or parts[0] not in ("boot", "boot10", "boot11"):
            rest.append(line)
            continue
        prefix, qemu, test = parts
        d = prepared.get(tuple(parts))
        arch = d.get("machine", "").split(" ")[0] if d else ""
        if not d or d.get("why") or arch not in RUNNER or \
                not os.path.exists(os.path.join(REPO, "build", RUNNER[arch][0])):
            rest.append(line)
            continue
        key = (prefix, qemu, d.get("machine", ""))
        if key not in groups:
            groups[key] = []
            order.append(key)
        groups[key].append(test)
    batches = []
    for key in order:
        tests = groups[key]
        if len(tests) == 1:
            rest.append("%s %s %s" % (key[0], key[1], tests[0]))
            continue
        for i in range(0, len(tests), BATCH_MAX):
            chunk = tests[i : i + BATCH_MAX]
            if len(chunk) == 1:
                rest.append("%s %s %s" % (key[0], key[1], chunk[0]))
            else:
                batches.append("batch:%s %s %s" % (key[0], key[1], ",".join(chunk)))
    return batches + rest


def boottest(prefix, qemu, test, image, mode=None):
    """tools/boottest.sh on the test, (rc, its line): booted on its own as
    tools/test.sh boots it, or (mode "judge") its part of a shared boot
    judged."""
    e = env_for(qemu)
    if mode:
        e["BOOTTEST_MODE"] = mode
    p = subprocess.run(["sh", os.path.join(HERE, "boottest.sh"), test, image, out_dir(prefix, test)], env=e,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, check=False)
    return p.returncode, p.stdout.decode("utf-8", "replace").strip()


def mtype(image, path):
    """A file of the stick image, or None."""
    e = dict(os.environ, MTOOLS_SKIP_CHECK="1")
    p = subprocess.run(["mtype", "-i", image + "@@1M", "::/" + path], env=e, stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, check=False)
    return p.stdout if p.returncode == 0 else None


BEGIN = re.compile(r"^<iommon-batch-begin n=(\d+) test=(\S+)>$")
EXIT = re.compile(r"^exit qemu: verdict (\d+) ")
# the monitor's words when the write that would have ended QEMU did not
NOT_EXITED = re.compile(r"^error: .*exit qemu did not happen")
# every file or folder the part names under the results folder: "saving
# results to ...", "saved 243 records to ...", "replay: ... saved to ..."
SAVED = re.compile(r"iommon/results/([^\s,;:()]+)", re.M)


ESCAPE = re.compile(rb"\x1b\[[0-9;?=]*[A-Za-z]")


def plain(raw):
    """A line of the serial log as qemu-run.sh makes console.txt of it: no
    CR or NUL, no terminal escapes."""
    return ESCAPE.sub(b"", raw.replace(b"\r", b"").replace(b"\0", b"")).decode("utf-8", "replace")


def split(serial, names):
    """Each test's part of the serial log, raw and plain: its lines from the
    monitor's start to where a boot of its own would have ended, the exit
    device's write (what the monitor gives back is said after its `exit
    qemu: verdict` line, before that write), and the status that line
    names; a part that never got there is left out."""
    parts = {}
    cur, raw, txt, status = None, [], [], None
    for line in serial.split(b"\n"):
        p = plain(line)
        m = BEGIN.match(p)
        if m:
            n = int(m.group(1))
            cur, raw, txt, status = (names[n - 1] if n <= len(names) else None), [], [], None
            continue
        if cur is None:
            continue
        if status is not None and NOT_EXITED.match(p):
            parts[cur] = (b"".join(l + b"\n" for l in raw), "".join(l + "\n" for l in txt), status)
            cur = None
            continue
        raw.append(line)
        txt.append(p)
        m = EXIT.match(p)
        if m:
            status = (int(m.group(1)) << 1) | 1
    return parts


def fill_run(run, serial, text, status, batch_results):
    """OUT/run as tools/qemu-run.sh leaves it, from one test's part."""
    shutil.rmtree(run, ignore_errors=True)
    os.makedirs(os.path.join(run, "results"))
    with open(os.path.join(run, "serial.log"), "wb") as f:
        f.write(serial)
    with open(os.path.join(run, "console.txt"), "w", encoding="utf-8", errors="replace") as f:
        f.write(text)
    records = "".join(l + "\n" for l in text.splitlines() if l.startswith("{"))
    with open(os.path.join(run, "console-records.jsonl"), "w", encoding="utf-8") as f:
        f.write(records)
    for rel in sorted(set(SAVED.findall(text))):
        rel = rel.rstrip(".")
        if rel.endswith(".jsonl"):  # qemu-run gathers results files flat
            src, dst = os.path.join(batch_results, os.path.basename(rel)), os.path.join(run, "results", os.path.basename(rel))
        else:
            src, dst = os.path.join(batch_results, rel), os.path.join(run, "results", rel)
        if os.path.isdir(src):
            shutil.copytree(src, dst, dirs_exist_ok=True)
        elif os.path.isfile(src):
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copyfile(src, dst)
    if records:
        shutil.copyfile(os.path.join(run, "console-records.jsonl"), os.path.join(run, "records.jsonl"))
    else:
        with open(os.path.join(run, "records.jsonl"), "wb") as out:
            for n in sorted(os.listdir(os.path.join(run, "results"))):
                if n.endswith(".jsonl"):
                    with open(os.path.join(run, "results", n), "rb") as f:
                        out.write(f.read())
    with open(os.path.join(run, "status"), "w", encoding="utf-8") as f:
        f.write("%d\n" % status)
    open(os.path.join(run, "notes"), "w", encoding="utf-8").close()


def run(prefix, qemu, image, tests):
    """A test that cannot share a boot (fresh, alone, files of its own:
    prepare's why) is booted on its own, as plan leaves it; the rest share
    one."""
    preps, shared, failed = {}, [], 0
    for t in tests:
        d = prepare(prefix, qemu, t, image)
        first = preps[shared[0]]["machine"] if shared else None
        if d is not None and not d.get("why") and (first is None or d.get("machine") == first):
            preps[t] = d
            shared.append(t)
            continue
        key = "%s.%s" % (prefix, os.path.basename(t)[: -len(".test")])
        why = (d or {}).get("why") or ("not prepared" if d is None else "its machine is not the first test's")
        rc, line = boottest(prefix, qemu, t, image)
        if rc == 0:
            print("PASS %s (booted alone: it cannot share a boot: %s)" % (key, why))
        elif rc == 77:
            print("SKIP %s.%s" % (prefix, line[len("SKIP "):]))
        else:
            failed += 1
            print("FAIL %s.%s (booted alone: it cannot share a boot: %s)"
                  % (prefix, line[len("FAIL "):] if line.startswith("FAIL ") else line, why))
    if shared and run_shared(prefix, qemu, image, shared, preps):
        failed += 1
    return 1 if failed else 0


def run_shared(prefix, qemu, image, tests, prepared):
    names = [os.path.basename(t)[: -len(".test")] for t in tests]
    label = "%s.%s" % (prefix, "+".join(names))
    work = os.path.join(REPO, "build", "boot-batches", "%s-%s" % (prefix, names[0]))
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(os.path.join(work, "stick"))
    start = time.time()
    preps, keys, puts, total = {}, [], [], 60
    own_cfg = mtype(image, "iommon.cfg")
    for i, (t, n) in enumerate(zip(tests, names), 1):
        d = prepared[t]
        preps[n] = d
        cfg = os.path.join(work, "stick", n + ".cfg")
        if d.get("cfg"):
            shutil.copyfile(d["cfg"], cfg)
        elif own_cfg is not None:
            with open(cfg, "wb") as f:
                f.write(own_cfg)
        puts += ["--put", "%s=batch/%s.cfg" % (cfg, n)]
        timeout = int(d.get("timeout", "90"))
        total += timeout
        keys.append("deadline %d" % timeout)
        keys.append("wait ^<iommon-batch-begin n=%d test=%s>" % (i, n))
        with open(os.path.join(out_dir(prefix, t), "keys"), encoding="utf-8") as f:
            keys += [l.rstrip("\n") for l in f if l.strip()]
        # the shared boot has no exit device: the monitor says its verdict,
        # then the prompt; `exit firmware` returns to batch.c
        keys += ["wait exit qemu did not happen", "wait iommon> ", "send exit firmware\\r"]
    keys += ["deadline 60", "wait ^<iommon-batch-done"]
    with open(os.path.join(work, "stick", "list"), "w", encoding="utf-8") as f:
        f.write("".join(n + "\n" for n in names))
    with open(os.path.join(work, "keys"), "w", encoding="utf-8") as f:
        f.write("".join(k + "\n" for k in keys))
    machine = preps[names[0]]["machine"].split(" ", 1)
    qemu_args = machine[1].strip() if len(machine) > 1 else ""
    runner, boot = RUNNER[machine[0]]
    cmd = ["sh", os.path.join(HERE, "qemu-run.sh"), "--arch", machine[0], "--image", image,
           "--out", os.path.join(work, "run"), "--timeout", str(total), "--keys", os.path.join(work, "keys"),
           "--warm-vars", os.path.join(REPO, "build", "warm-vars"), "--no-exit-device", "--move", "EFI/BOOT/%s=batch/%s" % (boot, boot),
           "--put", "%s=EFI/BOOT/%s" % (os.path.join(REPO, "build", runner), boot),
           "--put", os.path.join(work, "stick", "list") + "=batch/list"] + puts
    if qemu_args:
        cmd += ["--qemu", qemu_args]
    with open(os.path.join(work, "runner.log"), "wb") as log:
        subprocess.run(cmd, env=env_for(qemu), stdout=log, stderr=subprocess.STDOUT, check=False)
    secs = int(time.time() - start)
    try:
        with open(os.path.join(work, "run", "serial.log"), "rb") as f:
            serial = f.read()
    except OSError:
        serial = b""
    parts = split(serial, names)
    failed = 0
    for i, (t, n) in enumerate(zip(tests, names)):
        key = "%s.%s" % (prefix, n)
        before = ", ".join(names[:i])
        shared = "shared boot %d of %d" % (i + 1, len(names))
        if n in parts:
            raw, text, status = parts[n]
            fill_run(os.path.join(out_dir(prefix, t), "run"), raw, text, status,
                     os.path.join(work, "run", "results"))
            rc, line = boottest(prefix, qemu, t, image, "judge")
            if rc == 0:
                print("PASS %s (%s)" % (key, shared))
                continue
            if rc == 77:
                print("SKIP %s.%s" % (prefix, line[len("SKIP "):]))
                continue
            why_shared = line.split(": ", 1)[1] if ": " in line else line
            keep = out_dir(prefix, t) + "-shared"
            shutil.rmtree(keep, ignore_errors=True)
            shutil.copytree(out_dir(prefix, t), keep)
            rc2, line2 = boottest(prefix, qemu, t, image)
            if rc2 == 0:
                # the verdict is the boot of its own, the test as it was
                # always defined; the shared boot's failure is said beside
                # it, with its console kept: either the tests before gave
                # the machine back not as a fresh boot leaves it (QEMU's
                # SMMUv3 stream-table format was found so), or the failure
                # does not repeat (a timing check under load)
                print("PASS %s (booted alone, after it failed in a boot shared with %s: %s; kept in %s)"
                      % (key, before or "no test before it", why_shared.splitlines()[0], keep))
                continue
            rc, line = rc2, line2
        else:
            rc, line = boottest(prefix, qemu, t, image)
            if rc == 0:
                print("PASS %s (booted alone: the shared boot ended before its verdict, %s)"
                      % (key, os.path.join(work, "run", "console.txt")))
                continue
        if rc == 77:
            print("SKIP %s.%s" % (prefix, line[len("SKIP "):]))
        else:
            failed += 1
            print("FAIL %s.%s" % (prefix, line[len("FAIL "):] if line.startswith("FAIL ") else line))
    print("  (%s: one boot, %d s for %d tests)" % (label, secs, len(names)))
    return 1 if failed else 0


def main(argv):
    if len(argv) >= 2 and argv[1] == "plan":
        for line in plan([l.strip() for l in sys.stdin if l.strip()]):
            print(line)
        return 0
    if len(argv) == 6 and argv[1] == "run":
        return run(argv[2], argv[3], argv[4], argv[5].split(","))
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except KeyboardInterrupt:
        sys.exit(130)
    except Exception as e:  # a host tool says what went wrong in a line, never a traceback
        print("FAIL boot-batch: %s: %s" % (type(e).__name__, e))
        sys.exit(1)
