#!/bin/sh
# qemu-run.sh: boot an iommon image in QEMU (OVMF, TCG by default), feed
# keys to its serial console, enforce a timeout, and collect what it said.
#
#   --arch A          x86_64 (default: q35, OVMF), aarch64 (virt, a
#                     Cortex-A57, AAVMF, semihosting on for `exit qemu`) or
#                     riscv64 (virt, OpenSBI and U-Boot's S-mode UEFI, the
#                     stick on virtio-blk; QEMU 10.0: QEMU=10)
#   --machine M       the machine with its options (default q35 or virt;
#                     e.g. virt,iommu=smmuv3)
#   --image IMG       base image (copied; the copy takes the results)
#   --medium M        how IMG reaches the machine: stick (default: a GPT disk
#                     image as a USB stick), cd (an ISO on a USB CD-ROM, as a
#                     BMC's virtual media: usb-bot + scsi-cd), or net (IMG is
#                     the bare .efi, served with --cfg and --put files by QEMU's
#                     user-network TFTP server to the firmware's PXE boot; no
#                     disk at all), or net-ipxe (the same through QEMU's default
#                     virtio-net option ROM, iPXE, which labs chain-load: iPXE
#                     fetches and starts the .efi)
#                     or kernel (x86_64: IMG is an .efi OVMF starts as QEMU's
#                     -kernel, with --append as its load options; it reaches
#                     the firmware through fw_cfg, which no IOMMU translates:
#                     no disk, no PCI medium any state of an IOMMU could cut
#                     off; files it needs go in fw_cfg too, -fw_cfg in --qemu.
#                     QEMU's Linux loader takes no -initrd beside a plain PE)
#   --append TEXT     kernel: QEMU's -append (the .efi's load options)
#   --bootfile NAME   net, net-ipxe: the file DHCP names (default iommon.efi;
#                     an iPXE script put beside it, for net-ipxe)
#   --cfg FILE        iommon.cfg for this boot ("none" removes it)
#   --put LOCAL=DEST  copy a file onto the disk copy (repeatable)
#   --move SRC=DEST   rename a file on the disk copy (repeatable)
#   --stick-readonly  the USB stick is write-protected (the firmware sees
#                     read-only media)
#   --fill-volume N   fill the stick's file system until N bytes are free
#   --reboot          let the guest reset (a watchdog reset, `exit reset`):
#                     QEMU then boots the same disk and firmware variables again
#   --vars FILE       keep the firmware's variables in FILE across boots
#                     (default: a fresh copy each boot)
#   --warm-vars DIR   (x86_64, stick) start from the variables a first boot of this
#                     firmware left, not from empty ones: DIR/ARCH-KEY.fd, made
#                     once by an empty boot of the same machine type (OVMF's
#                     first boot with empty variables takes 1.2 s longer under
#                     TCG; a lab's machine has booted before; AAVMF's showed no
#                     such cost). The boot tests' (tools/boottest.sh) unless they
#                     keep variables of their own
#   --qemu "ARGS"     extra QEMU arguments (devices under test)
#   --keys FILE       console script: "wait ERE", "send TEXT", "sleep S",
#                     "monitor CMD" (a QEMU monitor command, e.g. device_del),
#                     "stop" (end QEMU now: what was to be seen was seen),
#                     "deadline S" (the waits after it must be met within S
#                     seconds of this line, or QEMU is ended: one test of a
#                     shared boot that hangs ends the boot, not the timeout)
#   --no-exit-device  no isa-debug-exit (x86_64), no semihosting (aarch64):
#                     `exit qemu` says its verdict and stays (the boot tests'
#                     shared boot, tools/boot-batch.py, reads the status there)
#   --timeout S       kill QEMU after S seconds (default 120)
#   --out DIR         keep console.txt, console-records.jsonl (the records
#                     the console showed), records.jsonl (those, else the
#                     saved results files'), results/, status
#   --accel A         tcg (default) or kvm
#   --interactive     the serial console on this terminal, no timeout:
#                     Ctrl-C and Esc reach the monitor (they stop a run),
#                     Ctrl-A x ends QEMU; the console logged to
#                     OUT/console.log, QEMU's own messages to OUT/qemu.log
#   --bench           make run: show the console live, press Enter at the
#                     countdown, leave after the verdict, print boot times
#   --firmware K      riscv64's firmware: uboot (default: OpenSBI, then
#                     U-Boot's S-mode UEFI) or edk2 (OpenSBI, then EDK II's
#                     RISC-V virt build from two flash images, ACPI on: a
#                     RISC-V server's firmware; the stick on virtio-blk-pci)
#   --qemu-version    print the chosen QEMU's version (10.0.2) and exit
#   --dumpdtb FILE    write the device tree QEMU builds for this machine (every
#                     other option as a boot would have it, plus -machine
#                     dumpdtb=FILE: QEMU exits once it is written) and exit
#
# QEMU=...          which QEMU (an environment variable, as make passes it:
#                   `make run QEMU=10`): unset or "system", the system's
#                   (/usr/bin, Debian 12's 7.2); "10", Debian 13's 10.0 as
#                   `make deps` unpacks it into build/qemu-10.0 from
#                   bookworm-backports; or the folder of any QEMU unpacked
#                   the same way (PREFIX/usr/bin/qemu-system-*). A private
#                   one runs with its own ROMs and modules first. "11":
#                   Debian 13's trixie-backports QEMU 11.1, run inside the
#                   Debian 13 root tools/trixie-root.sh makes (it needs
#                   trixie's glibc), with that root's firmware.
# FIRMWARE=...      which firmware files: unset or "system", the release's
#                   packages (Debian 12: edk2 2022.11, OpenSBI 1.1, U-Boot
#                   2023.01), or under QEMU=11 the root's; "2025", Debian 13's
#                   (edk2 2025.02, OpenSBI 1.6, U-Boot 2025.01) as make deps
#                   unpacks them into build/firmware-trixie; or a folder
#                   holding usr/share/... laid out the same way.
# Exit status: QEMU's, or 124 on timeout.
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)

append="" image="" cfg="" extra="" keys="" timeout=120 out="" accel=tcg bench=0 vars_keep="" interactive=0 arch=x86_64 mach=""
puts="" moves="" readonly="" fill="" reboot=0 medium=stick version_only=0 bootfile=iommon.efi rvfw=uboot
dumpdtb="" noexit=0 warm=""
while [ $# -gt 0 ]; do
	case $1 in
	--image) image=$2; shift 2 ;;
	--arch) arch=$2; shift 2 ;;
	--medium) medium=$2; shift 2 ;;
	--append) append=$2; shift 2 ;;
	--machine) mach=$2; shift 2 ;;
	--cfg) cfg=$2; shift 2 ;;
	--put) puts="$puts $2"; shift 2 ;;
	--move) moves="$moves $2"; shift 2 ;;
	--stick-readonly) readonly=",readonly=on"; shift ;;
	--fill-volume) fill=$2; shift 2 ;;
	--reboot) reboot=1; shift ;;
	--vars) vars_keep=$2; shift 2 ;;
	--warm-vars) warm=$2; shift 2 ;;
	--qemu) extra=$2; shift 2 ;;
	--keys) keys=$2; shift 2 ;;
	--bootfile) bootfile=$2; shift 2 ;;
	--no-exit-device) noexit=1; shift ;;
	--timeout) timeout=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--accel) accel=$2; shift 2 ;;
	--bench) bench=1; shift ;;
	--interactive) interactive=1; shift ;;
	--qemu-version) version_only=1; shift ;;
	--dumpdtb) dumpdtb=$2; shift 2 ;;
	--firmware) rvfw=$2; shift 2 ;;
	*) echo "qemu-run: unknown option $1" >&2; exit 2 ;;
	esac
done
[ $version_only = 1 ] || [ -f "$image" ] || { echo "qemu-run: no image '$image' (make image)" >&2; exit 2; }
# Where the firmware files are read on this host (fwhost) and as QEMU
# names them (fwqemu): the same folder, except under QEMU=11, whose QEMU
# runs in the Debian 13 root and sees that root's files at /usr/share.
case ${QEMU:-system} in 11 | 11.*) inroot=1 ;; *) inroot=0 ;; esac
case ${FIRMWARE:-system} in
system) fwqemu="" fwhost=""
	[ $inroot = 1 ] && fwhost=$("$repo/tools/trixie-root.sh" path) ;;
2025 | 2025.*) fwqemu=$repo/build/firmware-trixie fwhost=$fwqemu
	[ -d "$fwhost/usr/share" ] || { echo "qemu-run: FIRMWARE=2025: no $fwhost (make deps)" >&2; exit 2; } ;;
/*) fwqemu=$FIRMWARE fwhost=$FIRMWARE ;;
*) echo "qemu-run: FIRMWARE=$FIRMWARE: system, 2025 or an absolute folder" >&2; exit 2 ;;
esac
case $arch in
x86_64)
	code=/usr/share/OVMF/OVMF_CODE_4M.fd vars=/usr/share/OVMF/OVMF_VARS_4M.fd pkg=ovmf
	qemubin=qemu-system-x86_64 mach=${mach:-q35} cpu=""
	exitdev="-device isa-debug-exit,iobase=0xf4,iosize=4"
	[ $noexit = 1 ] && exitdev="" ;;
aarch64)
	# the pflash pair rather than QEMU_EFI.fd as -bios: the variables
	# (breadcrumbs, --vars) live in the second flash, as with OVMF
	code=/usr/share/AAVMF/AAVMF_CODE.fd vars=/usr/share/AAVMF/AAVMF_VARS.fd pkg=qemu-efi-aarch64
	qemubin=qemu-system-aarch64 mach=${mach:-virt} cpu="-cpu cortex-a57"
	# `exit qemu` leaves through semihosting's SYS_EXIT_EXTENDED; without
	# this option its HLT would be an undefined instruction
	exitdev="-semihosting-config enable=on,target=native"
	[ $noexit = 1 ] && exitdev="" ;;
riscv64)
	# OpenSBI in M-mode jumps to U-Boot's S-mode build (-kernel), whose
	# UEFI boots the stick's EFI/BOOT/BOOTRISCV64.EFI; U-Boot keeps its
	# variables in memory (no flash pair); `exit qemu` writes the virt
	# machine's test finisher
	code=/usr/lib/u-boot/qemu-riscv64_smode/u-boot.bin vars="" pkg=u-boot-qemu
	sbi=/usr/lib/riscv64-linux-gnu/opensbi/generic/fw_jump.bin
	[ -f "$fwhost$sbi" ] || { echo "qemu-run: $fwhost$sbi missing (package opensbi)" >&2; exit 2; }
	qemubin=qemu-system-riscv64 mach=${mach:-virt} cpu=""
	exitdev=""
	case $rvfw in
	uboot) ;;
	edk2) # OpenSBI (fw_dynamic, the firmware QEMU ships as its default
		# -bios) starts EDK II from the first flash; its variables in
		# the second; ACPI tables instead of a device tree for the OS
		code=/usr/share/qemu-efi-riscv64/RISCV_VIRT_CODE.fd vars=/usr/share/qemu-efi-riscv64/RISCV_VIRT_VARS.fd
		pkg="qemu-efi-riscv64 (Debian 13; FIRMWARE=2025 on Debian 12)"
		mach="$mach,pflash0=pf0,pflash1=pf1,acpi=on"
		# Debian 12 packages no RISC-V EDK II: Debian 13's, as make deps
		# unpacks it, when no FIRMWARE was named
		if [ -z "${FIRMWARE:-}" ] && [ ! -f "$fwhost$code" ] && [ -f "$repo/build/firmware-trixie$code" ]; then
			fwqemu=$repo/build/firmware-trixie fwhost=$fwqemu
			echo "qemu-run: this system has no RISC-V EDK II: Debian 13's from $fwhost (FIRMWARE=2025)" >&2
		fi ;;
	*) echo "qemu-run: --firmware $rvfw: uboot or edk2 (riscv64)" >&2; exit 2 ;;
	esac ;;
*) echo "qemu-run: unknown --arch $arch (x86_64, aarch64 or riscv64)" >&2; exit 2 ;;
esac
[ -f "$fwhost$code" ] || { echo "qemu-run: $fwhost$code missing (package $pkg)" >&2; exit 2; }
[ "$arch" = riscv64 ] || [ "$rvfw" = uboot ] || { echo "qemu-run: --firmware is riscv64's choice" >&2; exit 2; }
code=$fwqemu$code sbi=${sbi:+$fwqemu$sbi}
qemuopts=""
case ${QEMU:-system} in
system) ;;
11 | 11.*) # in the Debian 13 root: the wrapper execs QEMU there, same PID
	"$repo/tools/trixie-root.sh" status >&2 || exit 2
	qemuroot="$repo/tools/trixie-root.sh run --"
	[ -n "$fwqemu" ] && qemuroot="$repo/tools/trixie-root.sh run --bind $fwqemu --"
	qemubin="$qemuroot $qemubin" ;;
*)
	prefix=$QEMU
	case $prefix in 10 | 10.0) prefix=$repo/build/qemu-10.0 ;; esac
	# Debian 13: the system's QEMU is 10.0 already (make deps fetches none)
	if [ "$prefix" = "$repo/build/qemu-10.0" ] && [ ! -d "$prefix" ] &&
		qemu-system-x86_64 --version 2>/dev/null | grep -q '^QEMU emulator version 10\.'; then
		prefix=""
	fi
	[ -z "$prefix" ] || [ -x "$prefix/usr/bin/$qemubin" ] || {
		echo "qemu-run: QEMU=$QEMU: no $prefix/usr/bin/$qemubin (make deps fetches build/qemu-10.0)" >&2
		exit 2
	}
	if [ -n "$prefix" ]; then
		qemubin=$prefix/usr/bin/$qemubin
		qemuopts="-L $prefix/usr/share/qemu -L /usr/share/qemu"
		# its own modules: the system's are another build's, which QEMU refuses
		QEMU_MODULE_DIR=$(ls -d "$prefix"/usr/lib/*/qemu 2>/dev/null | head -n 1)
		export QEMU_MODULE_DIR
	fi ;;
esac
# QEMU started with io_uring_setup refused (tools/no-io-uring.c): QEMU
# 11.1's main loop, watched through io_uring, wakes seconds late on a
# loaded host (NVMe completions past the monitor's deadline, the stick's
# writes stalled until the firmware resets it); without io_uring it polls
# as 7.2 and 10.0 always do, which never call io_uring at all.
if [ -x "$repo/build/host/no-io-uring" ]; then
	qemubin="$repo/build/host/no-io-uring $qemubin"
else
	case ${QEMU:-system} in
	11 | 11.*) echo "qemu-run: no build/host/no-io-uring (make build/host/no-io-uring): QEMU 11.1 runs with io_uring, whose main loop wakes late on a loaded host" >&2 ;;
	esac
fi
if [ $version_only = 1 ]; then
	$qemubin --version | sed -n '1s/^QEMU emulator version \([0-9][0-9.]*\).*/\1/p'
	exit 0
fi
# A device property a boot test names by the name another QEMU gives it:
# renamed only where this QEMU's device lacks the name and offers the
# other (asked of the QEMU itself, -device NAME,help), never by version.
# QEMU 11.1 dropped VT-d's experimental x- names for scalable-mode and fsts,
# and AMD-Vi's pt=off (translate, no pass-through) is dma-remap=on there.
rename_prop() { # DEVICE OLD=VALUE NEW=VALUE
	case " $extra " in *"$1"*"$2"*) ;; *) return 0 ;; esac
	props=$($qemubin -device "$1,help" 2>/dev/null) || return 0
	printf '%s\n' "$props" | grep -q "^  ${2%%=*}=" && return 0
	printf '%s\n' "$props" | grep -q "^  ${3%%=*}=" || return 0
	extra=$(printf '%s' "$extra" | sed "s/\($1,[^ ]*\)$2/\1$3/g")
}
rename_prop intel-iommu x-scalable-mode= scalable-mode=
rename_prop intel-iommu x-flts= fsts=
rename_prop amd-iommu pt=off dma-remap=on
if [ -z "$out" ]; then
	out=$(mktemp -d "${TMPDIR:-/tmp}/iommon-run.XXXXXX")
fi
if [ -e "$out" ] && [ -n "$(ls -A "$out" 2>/dev/null)" ] && [ ! -f "$out/status" ] && [ ! -f "$out/serial.log" ] &&
	[ ! -f "$out/console.log" ]; then
	echo "qemu-run: --out $out holds something other than an earlier run; not touching it" >&2
	exit 2
fi
rm -rf "$out"
mkdir -p "$out/results"
$qemubin --version 2>/dev/null | head -n 1 >"$out/qemu-version" || true
export MTOOLS_SKIP_CHECK=1
part="$out/disk.img@@1M"

case $medium in
stick) cp --sparse=always "$image" "$out/disk.img" ;;
cd | net | net-ipxe)
	# a CD takes its plan when the ISO is made (tools/mkiso.sh); a network
	# boot takes the files put beside the .efi on the TFTP server
	if [ $medium = cd ] && [ -n "$cfg$puts$moves$fill" ]; then
		echo "qemu-run: --medium cd takes no --cfg, --put, --move or --fill-volume (make the ISO with them)" >&2
		exit 2
	fi
	[ -n "$moves$fill$readonly" ] && { echo "qemu-run: --medium net has no disk to change" >&2; exit 2; } ;;
kernel)
	[ "$arch" = x86_64 ] || { echo "qemu-run: --medium kernel: x86_64 only" >&2; exit 2; }
	[ -z "$cfg$puts$moves$fill$readonly" ] || { echo "qemu-run: --medium kernel has no disk to change" >&2; exit 2; } ;;
*) echo "qemu-run: unknown --medium $medium (stick, cd, net, net-ipxe or kernel)" >&2; exit 2 ;;
esac
if [ -z "$vars" ]; then
	varsfile="" # no variables store (U-Boot)
elif [ -n "$vars_keep" ]; then
	[ -f "$vars_keep" ] || cp --sparse=always "$fwhost$vars" "$vars_keep"
	varsfile=$vars_keep
elif [ -n "$warm" ] && [ $medium = stick ] && [ "$arch" = x86_64 ]; then
	# the variables a first boot of this firmware left, made once (under a
	# lock: boot tests run side by side) by an empty boot of the same
	# machine type from the same image, then copied for each boot: the boot
	# options in them name where the stick was (q35's 00:01.0 is pc's
	# 00:02.0; from another type's, OVMF starts its shell before the stick)
	# (the type: --machine and any -machine among the extra arguments)
	mtype=$(printf '%s\n' "$extra" | grep -o -- '-machine [^ ]*' | tr '\n' ' ')
	key=$( (echo "${QEMU:-system} $arch $mach $mtype"; cat "$fwhost$vars" "$fwhost${code#"$fwqemu"}") | sha256sum | cut -c1-16)
	tmpl=$warm/$arch-$key.fd
	mkdir -p "$warm"
	(
		flock 9
		if [ ! -f "$tmpl" ]; then
			printf 'exit qemu\n' >"$warm/exit.cfg"
			rm -rf "$warm/$key.boot"
			cp --sparse=always "$fwhost$vars" "$warm/$key.fd"
			"$repo/tools/qemu-run.sh" --arch "$arch" --machine "$mach" --image "$image" --cfg "$warm/exit.cfg" \
				--vars "$warm/$key.fd" --qemu "$mtype" --out "$warm/$key.boot" --timeout 120 >/dev/null 2>&1 || true
			# kept only when the firmware started the monitor from it
			grep -q '^exit qemu: verdict' "$warm/$key.boot/console.txt" 2>/dev/null && mv "$warm/$key.fd" "$tmpl"
		fi
	) 9>"$warm/lock"
	if [ -f "$tmpl" ]; then
		cp --sparse=always "$tmpl" "$out/vars.fd"
		echo "firmware variables: $tmpl (a first boot's)" >"$out/vars-from"
	else
		cp --sparse=always "$fwhost$vars" "$out/vars.fd"
	fi
	varsfile=$out/vars.fd
else
	cp --sparse=always "$fwhost$vars" "$out/vars.fd"
	varsfile=$out/vars.fd
fi
if [ $medium = net ] || [ $medium = net-ipxe ]; then
	# the TFTP server's folder: the .efi as the DHCP boot file, the plan beside it
	mkdir -p "$out/tftp"
	cp "$image" "$out/tftp/iommon.efi"
	for p in $puts; do
		mkdir -p "$out/tftp/$(dirname "${p#*=}")"
		cp "${p%%=*}" "$out/tftp/${p#*=}"
	done
	[ -n "$cfg" ] && [ "$cfg" != none ] && cp "$cfg" "$out/tftp/iommon.cfg"
	puts="" cfg=""
fi
mkparent() { # the folders above file $1 on the stick (mmd refuses one that exists)
	case $1 in */*) mkparent "${1%/*}"; mmd -i "$part" "::/${1%/*}" 2>/dev/null || true ;; esac
}
for m in $moves; do
	mkparent "${m#*=}"
	mmove -i "$part" "::/${m%%=*}" "::/${m#*=}"
done
for p in $puts; do
	mkparent "${p#*=}"
	mcopy -o -i "$part" "${p%%=*}" "::/${p#*=}"
done
if [ "$cfg" = none ]; then
	mdel -i "$part" ::/iommon.cfg
elif [ -n "$cfg" ]; then
	mcopy -o -i "$part" "$cfg" ::/iommon.cfg
fi

if [ -n "$fill" ]; then
	# one file as large as the free space less N bytes (FAT32 clusters here
	# are 512 bytes: what is left is within a cluster of N)
	free=$(minfo -i "$part" :: 2>/dev/null | sed -n 's/^free clusters=\([0-9]*\).*/\1/p')
	csize=$(minfo -i "$part" :: 2>/dev/null | awk '/cluster size:/ {print $3}')
	spc=$(minfo -i "$part" :: 2>/dev/null | awk '/sector size:/ {print $3}')
	bytes=$((free * csize * spc - fill))
	[ "$bytes" -gt 0 ] && head -c "$bytes" /dev/zero >"$out/filler.bin" && mcopy -o -i "$part" "$out/filler.bin" ::/filler.bin
	rm -f "$out/filler.bin"
fi
noreboot=-no-reboot
[ $reboot = 1 ] && noreboot=""
vga="-vga none"
[ "$arch" = aarch64 ] && vga=""
machine="$qemuopts -machine $mach $cpu -accel $accel -m 1024 -smp 1 -display none $vga $noreboot -nodefaults"
firmware="-drive if=pflash,format=raw,unit=0,readonly=on,file=$code -drive if=pflash,format=raw,unit=1,file=$varsfile"
stick="-drive if=none,id=stick,format=raw,file=$out/disk.img$readonly -device qemu-xhci,id=xhci -device usb-storage,bus=xhci.0,drive=stick,removable=on"
if [ "$arch" = riscv64 ] && [ "$rvfw" = uboot ]; then
	firmware="-bios $sbi -kernel $code"
	# virtio-mmio, outside the PCIe tree and so outside any PCI IOMMU
	# (U-Boot's virtio also refuses iommu_platform devices)
	stick="-drive if=none,id=stick,format=raw,file=$out/disk.img$readonly -device virtio-blk-device,drive=stick"
elif [ "$arch" = riscv64 ]; then
	# QEMU's own OpenSBI (its default -bios) starts EDK II from the flash
	firmware="-blockdev node-name=pf0,driver=file,read-only=on,filename=$code -blockdev node-name=pf1,driver=file,filename=$varsfile"
	# EDK II's RISC-V virt build reads no virtio-mmio disk: a PCI one
	stick="-drive if=none,id=stick,format=raw,file=$out/disk.img$readonly -device virtio-blk-pci,drive=stick"
fi
case $medium in
cd) # a USB CD-ROM, as a BMC presents its virtual media; on riscv64 a
	# virtio disk holding the ISO, read-only: U-Boot 2023.01's qemu-riscv64
	# build boots from no USB device, and reads El Torito from virtio
	stick="-drive if=none,id=cd,format=raw,media=cdrom,readonly=on,file=$image -device qemu-xhci,id=xhci \
-device usb-bot,bus=xhci.0,id=bot -device scsi-cd,bus=bot.0,drive=cd"
	[ "$arch" = riscv64 ] && stick="-drive if=none,id=cd,format=raw,readonly=on,file=$image -device virtio-blk-device,drive=cd" ;;
net) # no disk: the firmware's boot manager has only the network to boot.
	# OVMF's and AAVMF's own virtio-net driver (romfile= : no iPXE ROM),
	# QEMU's DHCP server names iommon.efi and its TFTP server serves it
	stick="-netdev user,id=n0,tftp=$out/tftp,bootfile=$bootfile -device virtio-net-pci,netdev=n0,romfile=,bootindex=0" ;;
kernel) stick="-kernel $image" ;;
net-ipxe) # the same server, booted by iPXE: QEMU's default option ROM for
	# virtio-net (efi-virtio.rom, Debian's ipxe-qemu), which takes the NIC
	# from the firmware's own driver and starts the .efi itself
	stick="-netdev user,id=n0,tftp=$out/tftp,bootfile=$bootfile -device virtio-net-pci,netdev=n0,bootindex=0" ;;
esac
# results sit in a folder named for the machine (SMBIOS serial or
# product) when the firmware gives one: gathered flat into results/
gather_results() {
	[ $medium = stick ] && { mcopy -s -n -i "$part" '::/iommon/results/*' "$out/results/" 2>/dev/null || true; }
	find "$out/results" -mindepth 2 -type f -name '*.jsonl' -exec mv {} "$out/results/" \; 2>/dev/null || true
	find "$out/results" -mindepth 1 -type d -empty -delete 2>/dev/null || true
}

if [ -n "$dumpdtb" ]; then
	rm -f "$dumpdtb"
	rc=0 # under set -e a failing QEMU would end the script before rc was read
	# shellcheck disable=SC2086
	timeout -k 2 "$timeout" $qemubin $machine -monitor none $firmware $stick $exitdev $extra \
		-machine dumpdtb="$dumpdtb" >"$out/qemu.stderr" 2>&1 || rc=$?
	echo "$rc" >"$out/status"
	[ -s "$dumpdtb" ] || { echo "qemu-run: QEMU (status $rc) wrote no device tree to $dumpdtb: $(tail -n 1 "$out/qemu.stderr")" >&2; exit 1; }
	exit 0
fi

if [ $interactive = 1 ]; then
	# signal=off: Ctrl-C is a key for the monitor (it stops a run), not
	# SIGINT for QEMU; mux=on gives QEMU's escape keys (Ctrl-A x ends it);
	# QEMU's own messages go to a file, so they do not read as the monitor's
	echo "qemu-run: the monitor's serial console on this terminal: Ctrl-C or Esc stops a run, Ctrl-A x ends QEMU,"
	echo "          Ctrl-A h lists QEMU's keys; the console is logged to $out/console.log, QEMU's messages to"
	echo "          $out/qemu.log; the boot medium's copy and the results are in $out"
	# `exit qemu` ends QEMU with status 1, 3, 5 or 7: under set -e that
	# would end this script before the results were copied
	rc=0
	# shellcheck disable=SC2086
	$qemubin $machine -monitor none $firmware $stick $exitdev \
		-chardev stdio,id=con0,mux=on,signal=off,logfile="$out/console.log" -serial chardev:con0 $extra ${append:+-append "$append"} \
		2>"$out/qemu.log" || rc=$?
	gather_results
	echo "$rc" >"$out/status"
	# 'exit qemu' leaves with verdict * 2 + 1: this script's status is the
	# verdict (0 passed, 1 failed, 2 the plan could not run, 3
	# inconclusive), so make does not call a pass an error; any other
	# status is QEMU's own
	case $rc in
	0) ;;
	1 | 3 | 5 | 7) exit $(((rc - 1) / 2)) ;;
	*)
		echo "qemu-run: QEMU ended with status $rc; its messages ($out/qemu.log):" >&2
		tail -n 20 "$out/qemu.log" >&2
		;;
	esac
	exit $rc
fi

mkfifo "$out/serial.in" "$out/serial.out" "$out/monitor.in" "$out/monitor.out"
cat <"$out/monitor.out" >"$out/monitor.log" &
monreader=$!
: >"$out/serial.log"
if [ $bench = 1 ]; then
	tee -a "$out/serial.log" <"$out/serial.out" &
else
	cat <"$out/serial.out" >>"$out/serial.log" &
fi
reader=$!

start=$(date +%s.%N)
# shellcheck disable=SC2086
timeout -k 2 "$timeout" $qemubin $machine -monitor pipe:"$out/monitor" $firmware $stick $exitdev \
	-serial pipe:"$out/serial" $extra ${append:+-append "$append"} \
	>"$out/qemu.stderr" 2>&1 &
qemu=$!
# read-write: never blocks, even if QEMU never opened its end
exec 3<>"$out/serial.in" 4<>"$out/monitor.in"

elapsed() { echo "$(date +%s.%N) $start" | awk '{printf "%.1f", $1 - $2}'; }
alive() { kill -0 "$qemu" 2>/dev/null; }
# the console as plain text: no CR, no terminal escapes from the firmware
plainf() { tr -d '\r\000' | sed 's/\x1b\[[0-9;?=]*[A-Za-z]//g'; }
plain() { plainf <"$out/serial.log"; }
# What the waits read, made plain once: the console's whole lines are
# appended to plain.txt as they arrive (praw: the bytes of serial.log
# taken), the line still being written made plain at each look (a prompt
# ends in no newline). Under TCG the harness's CPU is the guest's: a shared
# boot's console reaches megabytes, and making all of it plain at every
# look took a fifth of a core.
praw=0
: >"$out/plain.txt"
plain_update() { # whole lines that came since, appended (in this shell: praw is kept)
	size=$(stat -c %s "$out/serial.log")
	if [ "$size" -gt "$praw" ]; then
		tail -c +$((praw + 1)) "$out/serial.log" | head -c $((size - praw)) >"$out/chunk"
		keep=$((size - praw))
		# up to the chunk's last newline
		[ "$(tail -c 1 "$out/chunk" | od -An -tx1 | tr -d ' ')" = 0a ] || keep=$((keep - $(tail -n 1 "$out/chunk" | wc -c)))
		if [ "$keep" -gt 0 ]; then
			head -c "$keep" "$out/chunk" | plainf >>"$out/plain.txt"
			praw=$((praw + keep))
		fi
	fi
}
plain_from() { # the plain console from its byte N on (read only: run in a subshell)
	pt=$(stat -c %s "$out/plain.txt")
	if [ "$1" -le "$pt" ]; then
		tail -c +$(($1 + 1)) "$out/plain.txt"
		tail -c +$((praw + 1)) "$out/serial.log" | plainf
	else
		tail -c +$((praw + 1)) "$out/serial.log" | plainf | tail -c +$(($1 - pt + 1))
	fi
}

# Polling is kept cheap (one stat per 0.2 s while nothing new arrives):
# under TCG every process forked here takes CPU from the guest.
woff=0 # console text before this offset was matched by an earlier wait
seen=-1
deadline="" # the key script's: seconds since the epoch
wait_for() { # ERE: wait until the console shows it after the last match
	while :; do
		if [ -n "$deadline" ] && [ "$(date +%s)" -gt "$deadline" ]; then
			echo "qemu-run: /$1/ did not appear by the key script's deadline" >>"$out/notes"
			return 1
		fi
		size=$(stat -c %s "$out/serial.log")
		if [ "$size" != "$seen" ]; then
			seen=$size
			plain_update
			m=$(plain_from "$woff" | grep -Eob -m1 -- "$1" | head -n 1)
			if [ -n "$m" ]; then
				rest=${m#*:}
				woff=$((woff + ${m%%:*} + ${#rest}))
				seen=-1 # the same text may hold the next match too
				return 0
			fi
		fi
		if ! alive; then
			echo "qemu-run: QEMU ended before /$1/ appeared" >>"$out/notes"
			return 1
		fi
		sleep 0.2
	done
}

send() { printf '%s' "$1" >&3; }

if [ -n "$keys" ]; then
	while IFS= read -r line || [ -n "$line" ]; do
		case $line in
		"wait "*)
			wait_for "${line#wait }" || {
				# a wait missed by its deadline ends the boot there
				[ -n "$deadline" ] && kill "$qemu" 2>/dev/null
				break
			} ;;
		"deadline "*) deadline=$(($(date +%s) + ${line#deadline })) ;;
		"send "*) send "$(printf '%b' "${line#send }")" ;;
		"monitor "*) printf '%s\n' "${line#monitor }" >&4 ;;
		"sleep "*) sleep "${line#sleep }" ;;
		# QEMU may have ended already (the guest powered off): nothing to stop
		stop) echo "qemu-run: stopped by the key script" >>"$out/notes"; kill "$qemu" 2>/dev/null || true; break ;;
		""|"#"*) ;;
		*) echo "qemu-run: bad key line: $line" >>"$out/notes" ;;
		esac
	done <"$keys"
fi

t_prompt="" t_verdict=""
if [ $bench = 1 ]; then
	if wait_for 'unattended run in|iommon> '; then
		t_prompt=$(elapsed)
		plain | grep -q 'unattended run in' && send "$(printf '\r')"
	fi
	if wait_for '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped'; then
		t_verdict=$(elapsed)
		wait_for 'iommon> ' && send "$(printf 'exit qemu\r')"
	fi
fi

status=0
wait "$qemu" || status=$?
exec 3>&- 4>&-
# the reader ends by itself when QEMU closes the pipe; give it 2 s
i=0
while kill -0 "$reader" 2>/dev/null && [ $i -lt 20 ]; do
	sleep 0.1
	i=$((i + 1))
done
kill "$reader" "$monreader" 2>/dev/null || true
wait "$reader" 2>/dev/null || true
wait "$monreader" 2>/dev/null || true

plain >"$out/console.txt"
grep '^{' "$out/console.txt" >"$out/console-records.jsonl" || true
gather_results
# the records: the console's, where the monitor printed them (`set records
# console`, or a medium that keeps no file); else the results files saved
if [ -s "$out/console-records.jsonl" ]; then
	cp "$out/console-records.jsonl" "$out/records.jsonl"
else
	find "$out/results" -maxdepth 1 -name '*.jsonl' 2>/dev/null | sort | xargs -r cat >"$out/records.jsonl"
	[ -f "$out/records.jsonl" ] || : >"$out/records.jsonl"
fi
echo "$status" >"$out/status"

if [ $bench = 1 ]; then
	echo
	case $medium in
	cd) how="a USB CD-ROM" ;;
	net) how="the network (TFTP)" ;;
	net-ipxe) how="the network (iPXE, TFTP)" ;;
	*) how="a USB stick" ;;
	esac
	echo "boot benchmark (qemu-tcg $arch on this host, UEFI, from $how; wall-clock seconds from QEMU start):"
	echo "  power-on to first prompt:          ${t_prompt:-not reached}"
	echo "  power-on to default plan verdict:  ${t_verdict:-not reached} (countdown skipped with Enter)"
	echo "  console log and records: $out"
fi
[ "$status" = 124 ] && echo "qemu-run: timed out after ${timeout}s (log: $out/console.txt)" >&2
if [ $bench = 1 ]; then
	# isa-debug-exit (x86_64) and semihosting (aarch64): status = verdict * 2 + 1;
	# report the verdict itself
	case $status in
	1) exit 0 ;;
	3) exit 1 ;;
	7) exit 3 ;; # inconclusive: nothing ran, no IOMMU unit tested, a require unmet
	0) # a poweroff that carries no verdict (riscv64 under EDK II: no
		# test finisher the firmware describes, the SBI's shutdown): the
		# console's verdict line then says it
		v=$(sed -n 's/^verdict: \([a-z]*\).*/\1/p' "$out/console.txt" | tail -n 1)
		echo "qemu-run: QEMU exited 0, which carries no verdict; the console's: ${v:-none}" >&2
		case $v in pass) exit 0 ;; fail) exit 1 ;; inconclusive) exit 3 ;; *) exit 2 ;; esac ;;
	*) exit 2 ;;
	esac
fi
exit "$status"
