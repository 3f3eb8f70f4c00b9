#!/bin/sh
# boottest.sh TEST IMAGE OUTDIR: boot one test described as data in
# tests/boot/NAME.test, then judge what the monitor said. Prints one line,
# "PASS name", "FAIL name: why" or "SKIP name: why"; exits 0, 1 or 77.
#
# A .test file, one directive per line ('#' lines describe the test):
#   arch A                x86_64 (default), riscv64 (QEMU's virt machine, OpenSBI
#                         and U-Boot's S-mode UEFI, the stick on virtio-blk) or
#                         aarch64: QEMU's virt machine with
#                         a Cortex-A57, AAVMF and semihosting (tools/qemu-run.sh);
#                         its SMMUv3 through "qemu -machine iommu=smmuv3"
#   firmware K            riscv64's firmware (tools/qemu-run.sh --firmware): uboot
#                         (default) or edk2 (EDK II's RISC-V virt build, ACPI on, the
#                         stick on virtio-blk-pci); where the system has no RISC-V
#                         EDK II (Debian 12), FIRMWARE=2025 (build/firmware-trixie)
#   image M               how the machine boots: stick (default: IMAGE, the GPT
#                         disk, as a USB stick), iso (iommon.iso beside IMAGE,
#                         or one made by tools/mkiso.sh with the test's config
#                         lines, on a USB CD-ROM) or net (the bare .efi beside
#                         IMAGE and the config and put files on QEMU's TFTP
#                         server, booted by the firmware's PXE client; no disk)
#                         or net-ipxe (the same, booted by QEMU's default
#                         virtio-net option ROM: iPXE)
#   timeout S             seconds before QEMU is killed (default 90)
#   qemu ARGS             extra QEMU arguments; @OUT@ is the output folder,
#                         @DATA@ the folder tests/boot/data
#   layout                the test's tables name addresses the firmware chose
#                         (x86_64): a probe boots the same machine without the
#                         test's -acpitable files and reads where the firmware put
#                         ECAM (acpi mcfg) and edu's BAR0 at 00:02.0; the tables
#                         tests/boot/data/mkacpi.sh writes with those are in
#                         @LAYOUT@, and directives name @ECAM@, @CFG01@ (00:01.0's
#                         configuration header) and @BAR@. The probe boots each
#                         time (in OUTDIR/probe): a firmware upgraded between two
#                         runs may lay the machine out anew.
#   dtb EDIT              the machine boots its own device tree edited: QEMU
#                         writes the one it builds for the test's machine and
#                         arguments (qemu-run.sh --dumpdtb: -machine dumpdtb=FILE),
#                         tools/dtb.py applies the test's dtb lines in order
#                         (add-node PATH, set PATH PROP VALUE, delete PATH PROP,
#                         delete-node PATH; VALUE as in a .dts: "text", <cells
#                         &/path>, [bytes]) and QEMU boots the result (-dtb),
#                         kept as OUTDIR/test.dtb. For riscv64 and aarch64,
#                         whose virt machines QEMU describes by a tree. QEMU
#                         10.0 adds riscv-iommu-pci's node to a -dtb tree once
#                         more and stops (FDT_ERR_EXISTS): with a RISC-V IOMMU,
#                         the platform unit (-machine iommu-sys=on) boots so
#   config LINE           a line of iommon.cfg (none given: the image's own);
#                         the harness puts 'set records console' first, so the
#                         console shows every record whatever the medium
#   bootfile NAME         net, net-ipxe: the file QEMU's DHCP names (a put iPXE script)
#   records-default       ... unless the test says this: the monitor's default
#                         (records in the results file only)
#   no-config             boot without iommon.cfg
#   sparse NAME SIZE      a zero-filled file NAME (truncate's SIZE) in the test
#                         folder, @TEST@ in qemu lines (a disk that keeps data)
#   put DEST LINE         append LINE to file DEST on the disk copy
#   move SRC DEST         rename a file on the disk copy
#   file DEST COMMAND     the standard output of the shell COMMAND (run in
#                         tests/boot/data) becomes file DEST on the disk copy,
#                         byte for byte (BOMs, NULs, CR-only lines, 2 MiB files)
#   stick-readonly        the USB stick is write-protected
#   fill-volume N         the stick's file system is filled to N bytes free
#   reboot                the guest may reset; QEMU boots it again
#   alone                 tools/test.sh boots no other test beside this one
#                         (it runs BOOT_JOBS, default 2, at a time)
#   fresh                 the test never shares its boot with others on the
#                         same machine (tools/boot-batch.py): what it judges
#                         is the first monitor a firmware starts
#   long                  tools/test.sh starts this test among the first (it
#                         takes 14 s or more: left to the end, it would run
#                         with a core idle beside it)
#   key wait ERE | key send TEXT | key sleep S | key monitor CMD | key stop
#                         drive the serial console; a wait that is never
#                         satisfied fails the test
#   status N              QEMU's exit status (124 = killed at the timeout)
#   expect FILE ERE       FILE (console.txt, records.jsonl, ...) has a match
#   reject FILE ERE       FILE has no match
#   count FILE N ERE      FILE has exactly N matching lines
#   fits FILE COLS ROWS ERE  what follows the first line matching ERE up to the next
#                         prompt (a command's output) is at most ROWS lines (0: any)
#                         of at most COLS columns
#   if-qemu V DIRECTIVE   DIRECTIVE only on QEMU version V (10, 10.0, 10.0.2: the
#                         version or a leading part of it; 10+: 10 or later), as
#                         QEMU=... picks it (tools/qemu-run.sh); unless-qemu V
#                         DIRECTIVE: on others. For the machine's own options,
#                         which differ by version; expectations that differ by
#                         what the unit does take if-found (below)
#   if-found FILE ERE DIRECTIVE   a judging DIRECTIVE (expect, reject, count,
#                         fits) judged only when FILE has a line matching ERE (no
#                         spaces: . or [[:space:]] for one): expectations that differ by what the unit
#                         showed it does (e.g. the record saying it has no stage
#                         2), not by a version; unless-found: when it does not
#   skip-if-found FILE ERE REASON  the test is a SKIP, saying REASON, when FILE
#                         has a line matching ERE (no spaces): what the machine did
#                         shows the case cannot run there (a firmware without a
#                         network boot option), judged before anything else
#   qemu10-only           tools/test.sh boots every test on the system's QEMU
#                         and on QEMU 10.0; this one on 10.0 only (a machine
#                         Debian 12's QEMU lacks: riscv64 and its RISC-V IOMMU)
#   qemu11, qemu11-only   tools/test.sh boots this test on QEMU 11.1 too, or only
#                         (in the Debian 13 root tools/trixie-root.sh makes)
#   results-same          the saved results file holds exactly the console's records
#   results-only          the console shows no record, the saved results file holds
#                         them (the monitor's default: records-default or the plan
#                         not made of config lines)
#   results-prefix        the saved results file holds the console's first records,
#                         each line whole, and not all of them (the volume filled)
#   pty                   boot as 'make console' does (qemu-run.sh --interactive) on a
#                         pseudo-terminal, driven by tests/host/console_pty.py, whose
#                         verdict is the test's (the other judging directives unused)
set -u
test=$1 image=$2 out=$3
name=$(basename "$test" .test)
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
cfg="" qemu="" layout=0 timeout=90 puts="" moves="" flags="" nfile=0 arch=x86_64 medium=stick pty=0 records_default=0
rm -rf "$out/put"
mkdir -p "$out/put"
: >"$out/keys"
rm -f "$out/dtb-edits"
# the directives for this QEMU: if-qemu and unless-qemu lines resolved
# (BOOTTEST_QEMU_VERSION: already asked, by tools/boot-batch.py for many tests)
version=${BOOTTEST_QEMU_VERSION:-$("$here/qemu-run.sh" --qemu-version)} || { echo "FAIL $name: no QEMU (QEMU=${QEMU:-system})"; exit 1; }
awk -v v="$version" '
	# "10" or "10.0": that version or a release of it; "10+": 10 or later
	function is(p,  a, b, i) {
		if (p !~ /\+$/) return v == p || index(v, p ".") == 1
		split(substr(p, 1, length(p) - 1), a, "."); split(v, b, ".")
		for (i = 1; i in a; i++) if (b[i] + 0 != a[i] + 0) return b[i] + 0 > a[i] + 0
		return 1
	}
	$1 == "if-qemu" { if (is($2)) { sub(/^[ \t]*if-qemu[ \t]+[^ \t]+[ \t]+/, ""); print } next }
	$1 == "unless-qemu" { if (!is($2)) { sub(/^[ \t]*unless-qemu[ \t]+[^ \t]+[ \t]+/, ""); print } next }
	{ print }' "$test" >"$out/directives"
while IFS= read -r l || [ -n "$l" ]; do
	case $l in
	"timeout "*) timeout=${l#timeout } ;;
	"arch "*) arch=${l#arch } ;;
	"image "*) medium=${l#image } ;;
	"firmware "*)
		flags="$flags --firmware ${l#firmware }"
		# Debian 12 packages no RISC-V EDK II: Debian 13's, as make deps
		# unpacks it, unless a FIRMWARE or QEMU=11's root says otherwise
		case ${l#firmware }:${FIRMWARE:-}:${QEMU:-} in
		edk2::11 | edk2::11.*) ;;
		edk2::*) [ -f /usr/share/qemu-efi-riscv64/RISCV_VIRT_CODE.fd ] || export FIRMWARE=2025 ;;
		esac ;;
	"qemu "*) qemu="$qemu ${l#qemu }" ;;
	"layout") layout=1 ;;
	"config "*) cfg=$out/iommon.cfg; printf '%s\n' "${l#config }" >>"$out/iommon.cfg.new" ;;
	"no-config") cfg=none ;;
	"records-default") records_default=1 ;;
	"bootfile "*) flags="$flags --bootfile ${l#bootfile }" ;;
	"key "*) printf '%s\n' "${l#key }" >>"$out/keys" ;;
	"dtb "*) printf '%s\n' "${l#dtb }" >>"$out/dtb-edits" ;;
	"put "*)
		rest=${l#put }; dest=${rest%% *}; local=$out/put/$(echo "$dest" | tr / _)
		[ -f "$local" ] || puts="$puts --put $local=$dest"
		printf '%s\r\n' "${rest#* }" >>"$local" ;;
	"sparse "*)
		rest=${l#sparse }; rm -f "$out/${rest%% *}"; truncate -s "${rest#* }" "$out/${rest%% *}" ;;
	"move "*)
		rest=${l#move }; moves="$moves --move ${rest%% *}=${rest#* }" ;;
	"file "*)
		rest=${l#file }; nfile=$((nfile + 1)); local=$out/put/file$nfile
		(cd "$(dirname "$test")/data" && sh -c "${rest#* }") >"$local" ||
			{ echo "FAIL $name: the command for $(echo "$rest" | cut -d' ' -f1) failed"; exit 1; }
		puts="$puts --put $local=${rest%% *}" ;;
	"stick-readonly") flags="$flags --stick-readonly" ;;
	"fill-volume "*) flags="$flags --fill-volume ${l#fill-volume }" ;;
	"reboot") flags="$flags --reboot" ;;
	"pty") pty=1 ;;
	esac
done <"$out/directives"
if [ -f "$out/iommon.cfg.new" ]; then
	{ [ $records_default = 1 ] || echo "set records console"; cat "$out/iommon.cfg.new"; } >"$out/iommon.cfg"
	rm -f "$out/iommon.cfg.new"
fi
run="$out/run"
data=$(cd "$(dirname "$test")" && pwd)/data
qemu=$(printf '%s' "$qemu" | sed "s|@OUT@|$run|g; s|@DATA@|$data|g; s|@TEST@|$out|g")

# the other media are made from the files beside IMAGE (make test builds them)
dir=$(dirname "$image")
efi=$dir/iommon.efi
[ "$arch" = aarch64 ] && efi=$dir/iommon-aa64.efi
[ "$arch" = riscv64 ] && efi=$dir/iommon-rv64.efi
case $medium in
stick) ;;
iso)
	image=$dir/iommon.iso
	if [ -n "$cfg" ]; then # the plan is part of the CD: a CD made for this test
		image=$out/iommon.iso
		"$here/mkiso.sh" "$image" "$dir/iommon.efi" "$cfg" "$dir/iommon-aa64.efi=EFI/BOOT/BOOTAA64.EFI" \
			"$dir/iommon-rv64.efi=EFI/BOOT/BOOTRISCV64.EFI" >"$out/mkiso.log" 2>&1 || { echo "FAIL $name: tools/mkiso.sh failed: $(tail -1 "$out/mkiso.log")"; exit 1; }
		cfg=""
	fi ;;
net | net-ipxe) image=$efi ;;
*) echo "FAIL $name: unknown 'image $medium' (stick, iso, net or net-ipxe)"; exit 1 ;;
esac
[ -f "$image" ] || { echo "FAIL $name: no $image (make test builds it)"; exit 1; }

# BOOTTEST_MODE=prepare (tools/boot-batch.py): whether this test can share
# one boot with others on the same machine, and what it needs there, in
# OUTDIR/prepared; nothing boots. It can when the boot is the stick as the
# image has it, on x86_64 or aarch64 (riscv64's `exit qemu` is the test
# finisher of the machine's own device tree), its plan a config (or the image's own) that
# ends the boot with `exit qemu` (a status of 1, 3, 5 or 7), and nothing about
# the machine is the test's alone: no file put or moved, no firmware
# option, no QEMU monitor command, no output folder named in its QEMU
# line, no firmware output judged (the shared boot shows none between
# tests), and not marked `alone` or `fresh`.
if [ "${BOOTTEST_MODE:-}" = prepare ]; then
	why=""
	[ "$arch" != riscv64 ] || why="arch $arch"
	[ "$medium" = stick ] || why="${why:+$why, }image $medium"
	[ -z "$puts$moves" ] && [ $nfile = 0 ] || why="${why:+$why, }files put or moved"
	[ -z "$flags" ] || why="${why:+$why, }${flags# }"
	[ "$cfg" != none ] || why="${why:+$why, }no-config"
	[ $layout = 0 ] || why="${why:+$why, }layout"
	[ ! -s "$out/dtb-edits" ] || why="${why:+$why, }dtb"
	[ $pty = 0 ] || why="${why:+$why, }pty"
	grep -qx -e alone -e fresh "$out/directives" && why="${why:+$why, }alone or fresh"
	grep -qE '^(monitor|stop)( |$)' "$out/keys" && why="${why:+$why, }key monitor or stop"
	grep -q -e @OUT@ -e @TEST@ "$test" && why="${why:+$why, }its own output folder in its QEMU line"
	grep -qE 'BdsDxe|UiApp|Press ESC' "$out/directives" && why="${why:+$why, }judges the firmware's output"
	grep -qE '^status [1357]$' "$out/directives" || why="${why:+$why, }no status 1, 3, 5 or 7 (exit qemu)"
	t=$timeout
	{
		echo "why=$why"
		echo "timeout=$t"
		echo "cfg=$cfg"
		echo "machine=$arch $qemu"
	} >"$out/prepared"
	exit 0
fi

# `layout`: where this firmware put ECAM and edu's BAR0, read off the
# machine by a boot of its own, never assumed (OVMF 2022.11 and 2025.02 differ)
if [ $layout = 1 ]; then
	bare=$(printf '%s' "$qemu" | sed -E 's/-acpitable[[:space:]]+[^[:space:]]+//g')
	probe=$out/probe
	rm -rf "$probe" && mkdir -p "$probe"
	printf 'acpi mcfg\npci 00:02.0\nexit qemu\n' >"$probe/iommon.cfg"
	: >"$probe/keys"
	for try in 1 2; do # the firmware's rare hang before its boot manager (below)
		"$here/qemu-run.sh" --arch "$arch" --medium stick --image "$image" --out "$probe/run" --timeout 60 \
			--keys "$probe/keys" --cfg "$probe/iommon.cfg" --qemu "$bare" >"$probe/runner.log" 2>&1
		grep -q 'ECAM at' "$probe/run/console.txt" 2>/dev/null && break
	done
	c=$probe/run/console.txt
	ecam=$(sed -n 's/^  segment 0 buses 00-[0-9a-f]* ECAM at \(0x[0-9a-f]*\)\r*$/\1/p' "$c" 2>/dev/null | head -1)
	bar=$(sed -n 's|^  bar 0:m32 \(0x[0-9a-f]*\)/.*|\1|p' "$c" 2>/dev/null | head -1)
	grep -q '^  0000:00:02.0 1234:11e8 ' "$c" 2>/dev/null || bar=""
	[ -n "$ecam" ] && [ -n "$bar" ] || {
		echo "FAIL $name: the layout probe found no segment 0 ECAM (acpi mcfg) or no edu with a 32-bit BAR0 at 00:02.0 (console: $c)"
		exit 1
	}
	cfg01=$(printf '0x%x' $((ecam + 0x8000)))
	rm -rf "$out/layout" && mkdir -p "$out/layout"
	for t in $(printf '%s' "$qemu" | grep -o '@LAYOUT@/[a-z0-9-]*\.dat' | sed 's|@LAYOUT@/||; s|\.dat$||'); do
		ECAM=$ecam BAR=$bar sh "$data/mkacpi.sh" "$t" >"$out/layout/$t.dat" ||
			{ echo "FAIL $name: tests/boot/data/mkacpi.sh $t failed"; exit 1; }
	done
	qemu=$(printf '%s' "$qemu" | sed "s|@LAYOUT@|$out/layout|g")
	sed -i "s|@ECAM@|$ecam|g; s|@CFG01@|$cfg01|g; s|@BAR@|$bar|g" "$out/directives"
	echo "layout (probe $probe): ECAM $ecam, 00:01.0's configuration header $cfg01, edu's BAR0 $bar" >"$out/layout/what"
fi

[ "$medium" = iso ] && medium="cd"
# `dtb`: the tree QEMU builds for this machine, edited, booted instead
if [ -s "$out/dtb-edits" ]; then
	rm -rf "$out/dtb" "$out/machine.dtb" "$out/test.dtb"
	# shellcheck disable=SC2086
	"$here/qemu-run.sh" --arch "$arch" --medium "$medium" --image "$image" --out "$out/dtb" --timeout 60 \
		--qemu "$qemu" $flags --dumpdtb "$out/machine.dtb" >"$out/dtb.log" 2>&1 ||
		{ echo "FAIL $name: QEMU wrote no device tree: $(tail -n 1 "$out/dtb.log")"; exit 1; }
	"$here/dtb.py" edit "$out/machine.dtb" "$out/test.dtb" -f "$out/dtb-edits" >>"$out/dtb.log" 2>&1 ||
		{ echo "FAIL $name: $(tail -n 1 "$out/dtb.log")"; exit 1; }
	qemu="$qemu -dtb $out/test.dtb"
fi
set -- --arch "$arch" --medium "$medium" --image "$image" --out "$run" --timeout "$timeout" --keys "$out/keys" \
	--warm-vars "$here/../build/warm-vars"
[ -n "$cfg" ] && set -- "$@" --cfg "$cfg"
[ -n "$qemu" ] && set -- "$@" --qemu "$qemu"
# shellcheck disable=SC2086
set -- "$@" $moves $puts $flags
if [ $pty = 1 ]; then # the console as a person meets it: its own judge
	set -- --arch "$arch" --medium "$medium" --image "$image" --interactive
	[ -n "$cfg" ] && set -- "$@" --cfg "$cfg"
	[ -n "$qemu" ] && set -- "$@" --qemu "$qemu"
	rm -rf "$run"
	line=$(timeout -k 5 "$timeout" python3 "$here/../tests/host/console_pty.py" "$run" -- "$here/qemu-run.sh" "$@" \
		2>"$out/runner.log")
	case $line in
	PASS*) echo "PASS $name"; exit 0 ;;
	*) echo "FAIL $name: ${line#FAIL console.ctrl-c: }"; exit 1 ;;
	esac
fi
# BOOTTEST_MODE=judge (tools/boot-batch.py): OUTDIR/run holds this test's
# part of a shared boot already; it is judged as a boot of its own is
[ "${BOOTTEST_MODE:-}" = judge ] || "$here/qemu-run.sh" "$@" >"$out/runner.log" 2>&1
status=$(cat "$run/status" 2>/dev/null || echo none)
# QEMU's firmware (AAVMF and OVMF under TCG, 7.2 and 10.0 both seen, about
# one boot in fifty) sometimes hangs before its boot manager starts
# anything: the console holds the firmware's banner and nothing from
# BdsDxe or the monitor, until the timeout. Nothing of iommon ran, so the
# boot is made once more, and the test says so; a hang once the monitor
# started is never retried.
retried=""
if [ "${BOOTTEST_MODE:-}" != judge ] && [ "$status" = 124 ] && ! grep -q -e BdsDxe -e iommon "$run/console.txt" 2>/dev/null; then
	mv "$run" "$run.hung"
	"$here/qemu-run.sh" "$@" >"$out/runner.log" 2>&1
	status=$(cat "$run/status" 2>/dev/null || echo none)
	retried=" (booted twice: the firmware hung before its boot manager the first time; $run.hung)"
fi

rest() { # the line after its first N words
	printf '%s\n' "$2" | sed -E "s/^[[:space:]]*([^[:space:]]+[[:space:]]+){$1}//"
}

fail() {
	echo "FAIL $name: $*"
	[ -s "$run/near" ] && cat "$run/near"
	echo "      (console: $run/console.txt)"
	exit 1
}

# The lines of file $1 nearest to what ERE $2 wanted, for the log of a run
# whose console is gone by the time anyone reads it (CI): those holding the
# expression's literal start (up to its first operator), at most five.
near() {
	lit=$(printf '%s' "$2" | sed 's/^\^//; s/[][\\.*+?(){}|$].*//')
	[ ${#lit} -ge 4 ] || return 0
	grep -aF -m5 -- "$lit" "$1" | cut -c1-200 | sed 's/^/      near: /'
}

rm -f "$run/near"
while IFS= read -r l || [ -n "$l" ]; do
	case $l in
	"skip-if-found "*)
		set -f
		# shellcheck disable=SC2086
		set -- $l
		set +f
		if [ -f "$run/$2" ] && grep -aqE -- "$3" "$run/$2"; then
			echo "SKIP $name: $(rest 3 "$l")"
			exit 77
		fi ;;
	esac
done <"$out/directives"
if grep -q "QEMU ended before" "$run/notes" 2>/dev/null; then
	fail "$(grep -m1 "QEMU ended before" "$run/notes" | sed 's/^qemu-run: //')"
fi
while IFS= read -r l || [ -n "$l" ]; do
	set -f
	# shellcheck disable=SC2086
	set -- $l
	set +f
	case $l in
	"if-found "* | "unless-found "*)
		[ -f "$run/$2" ] || fail "no $2"
		found=0
		grep -aqE -- "$3" "$run/$2" && found=1
		[ "$1:$found" = if-found:1 ] || [ "$1:$found" = unless-found:0 ] || continue
		l=$(rest 3 "$l")
		set -f
		# shellcheck disable=SC2086
		set -- $l
		set +f ;;
	esac
	case $l in
	"status "*)
		[ "$status" = "$2" ] || fail "QEMU exit status $status, expected $2" ;;
	"expect "*)
		f=$2; ere=$(rest 2 "$l")
		[ -f "$run/$f" ] || fail "no $f"
		grep -aEq -- "$ere" "$run/$f" || {
			near "$run/$f" "$ere" >"$run/near"
			fail "$f has no line matching /$ere/"
		} ;;
	"reject "*)
		f=$2; ere=$(rest 2 "$l")
		[ -f "$run/$f" ] || fail "no $f"
		! grep -aEq -- "$ere" "$run/$f" || fail "$f has a line matching /$ere/: $(grep -aE -m1 -- "$ere" "$run/$f")" ;;
	"count "*)
		f=$2 n=$3; ere=$(rest 3 "$l")
		[ -f "$run/$f" ] || fail "no $f"
		got=$(grep -aEc -- "$ere" "$run/$f")
		[ "$got" = "$n" ] || fail "$f has $got lines matching /$ere/, expected $n" ;;
	"results-same")
		set -- "$run"/results/*.jsonl
		[ -f "$1" ] || fail "no results file was saved on the boot disk"
		[ $# = 1 ] || fail "$# results files were saved, expected 1"
		[ -s "$run/console-records.jsonl" ] || fail "the console showed no records"
		cmp -s "$1" "$run/console-records.jsonl" || fail "the results file differs from the console's records (diff $1 $run/console-records.jsonl)" ;;
	"fits "*)
		f=$2 cols=$3 rows=$4; ere=$(rest 4 "$l")
		[ -f "$run/$f" ] || fail "no $f"
		why=$(ere=$ere awk -v cols="$cols" -v rows="$rows" '
			!on && $0 ~ ENVIRON["ere"] { on = 1; next }
			on && /^iommon> / { done = 1; exit }
			on { n++; if (length($0) > cols) { printf "its line %d is %d columns: %s", n, length($0), $0; bad = 1; exit } }
			END { if (!on) print "no line matches"; else if (!bad && !done) print "no prompt after it"; else if (!bad && rows > 0 && n > rows) printf "%d lines, more than %d", n, rows }' "$run/$f")
		[ -z "$why" ] || fail "the output of /$ere/ in $f does not fit $cols x $rows: $why" ;;
	"results-only")
		set -- "$run"/results/*.jsonl
		[ -f "$1" ] || fail "no results file was saved on the boot disk"
		[ $# = 1 ] || fail "$# results files were saved, expected 1"
		[ ! -s "$run/console-records.jsonl" ] || fail "the console showed $(wc -l <"$run/console-records.jsonl") records: by default they go to the results file only"
		grep -q '^{"kind":"summary",' "$1" || fail "the results file holds no summary record"
		! grep -qv '^{.*}$' "$1" || fail "a line of the results file is not a whole record: $(grep -v -m1 '^{.*}$' "$1")" ;;
	"results-prefix")
		set -- "$run"/results/*.jsonl
		[ -f "$1" ] || fail "no results file was saved on the boot disk"
		[ $# = 1 ] || fail "$# results files were saved, expected 1"
		n=$(wc -l <"$1")
		[ "$n" -gt 0 ] || fail "the results file holds no whole record"
		[ "$(tail -c 1 "$1" | od -An -tx1 | tr -d ' ')" = 0a ] || fail "the results file ends in a partial line"
		head -n "$n" "$run/console-records.jsonl" | cmp -s - "$1" || fail "the results file is not the console's first $n records"
		[ "$(wc -l <"$run/console-records.jsonl")" -gt "$n" ] || fail "the results file holds every record: the volume never filled" ;;
	esac
done <"$out/directives"
echo "PASS $name$retried"
