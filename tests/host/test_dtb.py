#!/usr/bin/python3
"""test_dtb.py: tools/dtb.py on the trees QEMU 10.0 builds for riscv64 virt
(tests/fuzz/seeds/fdt, written by -machine dumpdtb) and the system QEMU
builds for aarch64 virt: each read and written back byte for byte; the edits a boot test makes (a node added, properties
set, a phandle given, one deleted) read back as made, and what was not
edited kept; broken blobs and bad edits refused in one line, never a
traceback (from the command line too). Prints "PASS name: detail" or
"FAIL name: why" a line, as tools/test.sh counts them."""

import glob
import os
import random
import struct
import subprocess
import sys

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.realpath(__file__))
ROOT = os.path.join(HERE, "..", "..")
TOOL = os.path.join(ROOT, "tools", "dtb.py")
sys.path.insert(0, os.path.join(ROOT, "tools"))

import dtb  # noqa: E402

failed = 0


def report(ok, name, detail):
    global failed
    print("%s dtb.%s: %s" % ("PASS" if ok else "FAIL", name, detail))
    failed += not ok


def cells(v):
    return [struct.unpack_from(">I", v, i)[0] for i in range(0, len(v), 4)]


def flat(node, path="", out=None):
    """Every property of the tree as {path: {name: value}}."""
    out = {} if out is None else out
    here = path + "/" + node.name if node.name else (path or "/")
    out[here] = {p.name: p.value for p in node.props()}
    for k in node.children():
        flat(k, "" if here == "/" else here, out)
    return out


seeds = sorted(glob.glob(os.path.join(ROOT, "tests", "fuzz", "seeds", "fdt", "qemu10-*.dtb")))
if not seeds:
    report(False, "roundtrip", "no QEMU tree in tests/fuzz/seeds/fdt")
for path in seeds:
    b = open(path, "rb").read()
    out = dtb.write(dtb.parse(b))
    report(out == b, "roundtrip." + os.path.basename(path)[:-4],
           "%d bytes read and written back the same" % len(b) if out == b else "written back differs")

# the system QEMU's aarch64 virt (Debian 12's 7.2 leaves its reservations
# at 48 and 1 MiB of free space after the strings): dumped here
tmp = os.path.join(ROOT, "build", "test-dtb")
os.makedirs(tmp, exist_ok=True)
aa = os.path.join(tmp, "aarch64-virt.dtb")
try:
    r = subprocess.run(["qemu-system-aarch64", "-machine", "virt,iommu=smmuv3,dumpdtb=" + aa, "-cpu", "cortex-a57",
                        "-display", "none", "-nodefaults"], capture_output=True, text=True, timeout=60)
    made = r.returncode == 0 and os.path.exists(aa)
except (OSError, subprocess.TimeoutExpired):
    made = False
if made:
    b = open(aa, "rb").read()
    ok = dtb.write(dtb.parse(b)) == b
    report(ok, "roundtrip.aarch64-virt", "the system QEMU's tree, %d bytes, read and written back %s" %
           (len(b), "the same" if ok else "differently"))
else:
    print("SKIP dtb.roundtrip.aarch64-virt: qemu-system-aarch64 wrote no tree here")

# the edits riscv64-fdt-disabled makes, on virt,iommu-sys=on's tree
base = os.path.join(ROOT, "tests", "fuzz", "seeds", "fdt", "qemu10-virt-iommu-sys.dtb")
if os.path.exists(base):
    b = open(base, "rb").read()
    t = dtb.parse(b)
    before = flat(t.root)
    sys_ph = cells(dtb.find(t, "/soc/iommu@3010000").prop("phandle").value)[0]
    for line in ['add-node /soc/iommu@9000000', 'set /soc/iommu@9000000 compatible "riscv,iommu"',
                 'set /soc/iommu@9000000 reg <0x0 0x9000000 0x0 0x1000>', 'set /soc/iommu@9000000 #iommu-cells <1>',
                 'set /soc/iommu@9000000 status "disabled"',
                 'set /soc/pci@30000000 iommu-map <0x0 &/soc/iommu@3010000 0x0 0xff00>, '
                 '<0xff00 &{/soc/iommu@9000000} 0xff00 0x100>',
                 'delete /soc/pci@30000000 dma-coherent']:
        dtb.apply(t, line)
    out = dtb.write(t)
    again = dtb.parse(out)
    after = flat(again.root)
    node = after.get("/soc/iommu@9000000", {})
    new_ph = cells(node.get("phandle", b"\0\0\0\0"))[0]
    used = dtb.phandles(dtb.parse(b).root, set())
    ok = (node.get("compatible") == b"riscv,iommu\0" and node.get("status") == b"disabled\0" and
          cells(node.get("reg", b"")) == [0, 0x9000000, 0, 0x1000] and cells(node.get("#iommu-cells", b"")) == [1]
          and new_ph == max(used) + 1)
    report(ok, "edit.add-node", "the node added with its properties and phandle 0x%x" % new_ph)
    pci = after["/soc/pci@30000000"]
    ok = (cells(pci.get("iommu-map", b"")) == [0, sys_ph, 0, 0xff00, 0xff00, new_ph, 0xff00, 0x100] and
          "dma-coherent" not in pci)
    report(ok, "edit.set-delete", "iommu-map set through both phandles, dma-coherent deleted")
    kept = all(after.get(p) == v for p, v in before.items() if p != "/soc/pci@30000000")
    rest = {k: v for k, v in pci.items() if k != "iommu-map"}
    kept &= rest == {k: v for k, v in before["/soc/pci@30000000"].items() if k not in ("iommu-map", "dma-coherent")}
    report(kept, "edit.kept", "every other node and property as QEMU wrote it")
    report(dtb.write(again) == out, "edit.roundtrip", "the edited tree read and written back the same")

    # broken blobs: refused by name, never another exception
    rng, refused, read, other = random.Random(45), 0, 0, []
    for _ in range(3000):
        m = bytearray(b)
        for _ in range(rng.randint(1, 6)):
            m[rng.randrange(len(m))] = rng.randrange(256)
        if rng.random() < 0.3:
            m = m[:rng.randrange(len(m))]
        try:
            dtb.show(dtb.parse(bytes(m)))
            read += 1
        except dtb.DtbError:
            refused += 1
        except Exception as e:  # noqa: BLE001 (what is looked for)
            other.append("%s: %s" % (type(e).__name__, e))
    report(not other, "broken", "%d mutated blobs: %d refused by name, %d read%s" %
           (refused + read + len(other), refused, read, "; " + other[0] if other else ""))

    # the command line: one line and status 1 on bad input, no traceback
    with open(os.path.join(tmp, "short.dtb"), "wb") as f:
        f.write(b[:100])
    cases = [["show", os.path.join(tmp, "short.dtb")], ["show", os.path.join(tmp, "missing.dtb")],
             ["edit", base, os.path.join(tmp, "x.dtb"), "set /soc x <1 2"],
             ["edit", base, os.path.join(tmp, "x.dtb"), "delete /soc nothing"],
             ["edit", base, os.path.join(tmp, "x.dtb"), "add-node /nowhere/x"],
             ["edit", base, os.path.join(tmp, "x.dtb"), "set /soc x <&/nowhere>"]]
    bad = []
    for args in cases:
        r = subprocess.run([sys.executable, TOOL] + args, capture_output=True, text=True)
        lines = r.stderr.strip().splitlines()
        if r.returncode != 1 or len(lines) != 1 or "Traceback" in r.stderr or not lines[0].startswith("dtb.py: "):
            bad.append("%s: status %d, %r" % (" ".join(args[-1:]), r.returncode, r.stderr[:120]))
    report(not bad, "cli.refusals", "%d bad inputs each refused in one line%s" % (len(cases), "; " + bad[0] if bad else ""))
    r = subprocess.run([sys.executable, TOOL, "roundtrip", base], capture_output=True, text=True)
    report(r.returncode == 0, "cli.roundtrip", r.stdout.strip() or r.stderr.strip())

sys.exit(1 if failed else 0)
