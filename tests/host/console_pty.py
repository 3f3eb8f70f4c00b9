#!/usr/bin/python3
"""console_pty.py IMAGE OUT -- QEMU-RUN-ARGS...: `make console` as a person
at a terminal meets it, on a pseudo-terminal that is QEMU's controlling
terminal (so a Ctrl-C that reached the terminal driver would be SIGINT):
the countdown interrupted, Ctrl-C at the prompt, a command after it, a run
stopped with Ctrl-C, 'save', then 'exit qemu'. Passes when QEMU is still
there after each Ctrl-C, the run says it was stopped, QEMU leaves by the
exit command with make console's status 0 (the verdict's) and the saved
results file copied out, the console log holds what was typed and QEMU's
own messages are in their file, not on the console. Prints "PASS name: detail" or "FAIL
name: why", as tools/test.sh counts them."""

import fcntl
import os
import re
import select
import signal
import subprocess
import sys
import termios
import time

NAME = "console.ctrl-c"


def main():
    out = sys.argv[1]
    cmd = sys.argv[sys.argv.index("--") + 1:]
    master, slave = os.openpty()

    def child():
        os.setsid()
        fcntl.ioctl(slave, termios.TIOCSCTTY, 0)

    p = subprocess.Popen(cmd + ["--out", out], stdin=slave, stdout=slave, stderr=slave, preexec_fn=child,
                         close_fds=True)
    os.close(slave)
    seen = bytearray()
    at = [0]  # where the next wait looks from: just after the last match
    deadline = time.monotonic() + 150

    def fail(why):
        try:  # the runner and QEMU under it: their own session, one group
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        tail = re.sub(rb"\x1b\[[0-9;?=]*[A-Za-z]", b"", bytes(seen[-600:])).decode("ascii", "replace")
        print("FAIL %s: %s; the console's last lines: %s" % (NAME, why, " | ".join(tail.splitlines()[-6:])))
        sys.exit(1)

    def pump():  # what the console said in the next 0.2 s
        r, _, _ = select.select([master], [], [], 0.2)
        if r:
            try:
                seen.extend(os.read(master, 4096))
            except OSError:
                pass

    def wait(pattern, what, within=60):
        end = min(deadline, time.monotonic() + within)
        while time.monotonic() < end:
            m = re.search(pattern, bytes(seen[at[0]:]))
            if m:  # what came with it may hold the next wait's text: looked at from here on
                at[0] += m.end()
                return
            if p.poll() is not None:
                fail("QEMU ended (status %s) while waiting for %s" % (p.returncode, what))
            pump()
        fail("no %s within %d s" % (what, within))

    def send(text):
        at[0] = len(seen)  # an answer to this comes after it
        os.write(master, text.encode())

    def alive_after(seconds):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            if p.poll() is not None:
                fail("QEMU ended (status %s) after a Ctrl-C" % p.returncode)
            pump()

    wait(rb"any other key opens the menu", "countdown")
    send("m")
    wait(rb"iommon> ", "prompt after the countdown")
    send("\x03")  # Ctrl-C at the prompt
    alive_after(1.0)
    send("echo still-here-after-ctrl-c\r")
    wait(rb"\nstill-here-after-ctrl-c", "echo after Ctrl-C")
    send("run price.queue\r")
    wait(rb"price\.queue: streams", "price.queue's start")
    time.sleep(1.0)
    send("\x03")  # Ctrl-C during a run: it stops the run, not QEMU
    wait(rb"stop requested", "the run stopped", 60)
    wait(rb"\n0 passed, 0 failed, 1 skipped", "the stopped test counted as skipped, not failed", 60)
    wait(rb"\ninconclusive: nothing ran: every test that applies here skipped \(1\)",
         "a run that was all skipped said inconclusive, not pass", 30)
    wait(rb"iommon> ", "prompt after the stopped run")
    alive_after(0.5)
    send("run vtd.translate_4k\r")  # a test of the unit that passes: the session is a pass
    wait(rb"\n1 passed, 0 failed, 0 skipped", "vtd.translate_4k passed", 60)
    wait(rb"iommon> ", "prompt after vtd.translate_4k")
    send("save\r")
    wait(rb"saved [0-9]+ records to iommon/results/", "the records saved", 30)
    wait(rb"iommon> ", "prompt after save")
    send("exit qemu\r")
    end = time.monotonic() + 30
    while p.poll() is None and time.monotonic() < end:
        pump()
    if p.poll() is None:
        fail("QEMU did not leave after 'exit qemu'")
    log = os.path.join(out, "console.log")
    qlog = os.path.join(out, "qemu.log")
    text = open(log, "rb").read() if os.path.exists(log) else b""
    if b"still-here-after-ctrl-c" not in text:
        fail("%s does not hold the session" % log)
    if not os.path.exists(qlog):
        fail("no %s for QEMU's own messages" % qlog)
    if b"qemu-system" in seen.split(b"any other key")[-1]:
        fail("QEMU's own messages reached the console")
    # `exit qemu` after a session that tested the unit and failed nothing:
    # make console's status is the verdict's (0), not QEMU's own 1, and the
    # saved file is copied out
    if p.returncode != 0:
        fail("'exit qemu' after a session that passed left with status %d, not 0 (make would say "
             "Error %d)" % (p.returncode, p.returncode))
    res = os.path.join(out, "results")
    saved = [f for f in os.listdir(res) if f.endswith(".jsonl")] if os.path.isdir(res) else []
    if len(saved) != 1:
        fail("%d results files copied to %s, expected the one 'save' wrote" % (len(saved), res))
    print("PASS %s: Ctrl-C at the prompt and during price.queue reached the monitor (the run stopped, QEMU "
          "stayed); 'exit qemu' left with status %d and the results file copied to %s; the session in "
          "console.log (%d bytes), QEMU's messages in qemu.log" % (NAME, p.returncode, saved[0], len(text)))


if __name__ == "__main__":
    main()
