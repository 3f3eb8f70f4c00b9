#!/bin/sh
# debian13-check.sh OUTDIR: Debian 13 guarded from a Debian 12 machine. In
# the root tools/trixie-root.sh makes (gcc 14, gnu-efi 3.0.18, newlib 4.5),
# `make debian13` builds the three monitors and their stick into
# build/debian13/; their relocations and PE headers are checked as the
# suite checks the host's; then that stick boots on the root's QEMU 11.1
# with its edk2 2025.02, U-Boot 2025.01 and OpenSBI 1.6: the x86_64,
# aarch64 and riscv64 default plans and each backend's main test.
# Prints "PASS|FAIL|SKIP debian13.NAME: ..." lines, as tools/test.sh
# tallies them. Without the root every line is a SKIP saying how to make it.
set -u
cd "$(dirname "$0")/.."
out=$1
rm -rf "$out"
mkdir -p "$out"
BOOTS="default-config vtd-nvme amdvi-nvme aarch64-boot smmuv3-nvme riscv64-iommu"
say() { printf '%s debian13.%s: %s\n' "$1" "$2" "$3"; }

if ! why=$(tools/trixie-root.sh status 2>&1); then
	for n in build images $BOOTS; do say SKIP "$n" "$why"; done
	exit 0
fi
root=$(tools/trixie-root.sh path)
ver() { chroot "$root" dpkg-query -W -f='${Version}' "$1" 2>/dev/null | sed 's/^[0-9]*://; s/[-+~].*//'; }
tools_used="gcc $(ver gcc-14), gnu-efi $(ver gnu-efi), newlib $(ver newlib-source), binutils $(ver binutils)"
start=$(date +%s)
# one job: it runs beside the boot pool's QEMUs
if ! make --no-print-directory -j1 debian13 >"$out/build.log" 2>&1; then
	say FAIL build "make debian13 failed ($tools_used): $(grep -m1 -E 'error|Error' "$out/build.log" || tail -1 "$out/build.log") (log: $out/build.log)"
	for n in images $BOOTS; do say SKIP "$n" "the Debian 13 build failed"; done
	exit 0
fi
say PASS build "three monitors and the stick with Debian 13's $tools_used ($(($(date +%s) - start)) s)"

d=build/debian13 problems=""
for e in iommon iommon-aa64 iommon-rv64; do
	tools/check-relocs.sh "$d/$e.so" >"$out/relocs-$e.log" 2>&1 || problems="$problems $e.so relocations;"
	build/host/petool check "$d/$e.efi" >"$out/pe-$e.log" 2>&1 || problems="$problems $e.efi: $(grep FAIL "$out/pe-$e.log" | head -1);"
done
if [ -z "$problems" ]; then
	say PASS images "x86_64, aarch64 and riscv64: RELATIVE relocations only, PE headers as the firmware needs them (petool check)"
else
	say FAIL images "$problems"
fi

for t in $BOOTS; do
	line=$(QEMU=11 tools/boottest.sh "tests/boot/$t.test" "$d/iommon.img" "$out/$t" 2>&1 | tail -n 1)
	case $line in
	PASS*) say PASS "$t" "Debian 13's stick on QEMU 11.1: ${line#PASS }" ;;
	SKIP*) say SKIP "$t" "${line#SKIP }" ;;
	*) say FAIL "$t" "Debian 13's stick on QEMU 11.1: ${line#FAIL }" ;;
	esac
done
