#!/bin/sh
# capture-qemu.sh: the IORT and GTDT that qemu-system-aarch64 (virt with an
# SMMUv3, AAVMF firmware) really publishes, saved as iort/qemu-virt-real.bin
# and gtdt/qemu-virt-real.bin. The firmware's shell prints where the ACPI
# tables are (dmem); QEMU's QMP pmemsave copies that memory out; each table
# is found by its signature, length and checksum. Run regen.sh afterwards
# for iasl's decode. QEMU_EXTRA adds QEMU arguments (devices). Needs
# qemu-system-aarch64, qemu-efi-aarch64, mtools.
set -eu
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'kill "$(cat "$tmp/pid" 2>/dev/null)" 2>/dev/null; rm -rf "$tmp"' EXIT
printf 'dmem\r\n' >"$tmp/startup.nsh"
truncate -s 16M "$tmp/disk.img"
mformat -i "$tmp/disk.img" ::
mcopy -i "$tmp/disk.img" "$tmp/startup.nsh" ::/
# shellcheck disable=SC2086 # QEMU_EXTRA is split into its arguments on purpose
qemu-system-aarch64 -M virt,iommu=smmuv3 -cpu cortex-a57 -m 512 -bios /usr/share/qemu-efi-aarch64/QEMU_EFI.fd \
	-drive if=none,file="$tmp/disk.img",format=raw,id=d0 -device virtio-blk-pci,drive=d0 -display none \
	-serial file:"$tmp/console.txt" -net none -no-reboot -qmp unix:"$tmp/qmp.sock",server=on,wait=off ${QEMU_EXTRA:-} &
echo $! >"$tmp/pid"
i=0
until grep -aq "ACPI 2.0 Table" "$tmp/console.txt" 2>/dev/null; do
	i=$((i + 1))
	[ $i -lt 120 ] || { echo "capture-qemu: the shell never printed the ACPI table address" >&2; exit 1; }
	sleep 1
done
sleep 1
python3 - "$tmp" <<'PY'
import json, re, socket, struct, sys
tmp = sys.argv[1]
rsdp = int(re.search(rb"ACPI 2.0 Table +([0-9A-F]+)", open(tmp + "/console.txt", "rb").read()).group(1), 16)
base = (rsdp & ~0xfffff) - 0x100000  # the firmware puts the tables just below and around the RSDP
s = socket.socket(socket.AF_UNIX)
s.connect(tmp + "/qmp.sock")
f = s.makefile("rw")
def cmd(c, **a):
    f.write(json.dumps({"execute": c, "arguments": a}) + "\n")
    f.flush()
    while True:
        r = json.loads(f.readline())
        if "return" in r or "error" in r:
            return r
f.readline()
cmd("qmp_capabilities")
cmd("pmemsave", val=base, size=0x300000, filename=tmp + "/mem.bin")
d = open(tmp + "/mem.bin", "rb").read()
for sig in ("IORT", "GTDT"):
    for m in re.finditer(sig.encode(), d):
        i = m.start()
        n = struct.unpack_from("<I", d, i + 4)[0]
        if 36 <= n < 0x10000 and i + n <= len(d) and sum(d[i:i + n]) % 256 == 0:
            open("%s/qemu-virt-real.bin" % sig.lower(), "wb").write(d[i:i + n])
            print("%s at 0x%x, %d bytes" % (sig, base + i, n))
            break
    else:
        sys.exit("capture-qemu: no %s found" % sig)
PY
