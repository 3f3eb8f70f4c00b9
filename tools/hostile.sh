#!/bin/sh
# hostile.sh: firmware states no person wrote, booted and judged. Each boot
# starts the stand-in firmware's campaign (tests/standin/hostile.c) as
# OVMF's -kernel with the monitor as a fw_cfg file: from the boot's seed it
# leaves the VT-d unit in one random but plausible state after another
# (translation, tables, queue, remapping; pointers into the firmware's
# memory, freed memory, 0xAF-filled pages, another device's configuration
# page or BAR, the monitor's image, the unit's registers, holes, beyond the
# address space; reserved bits), starts the monitor on each ("run
# vtd.takeover vtd.translate_4k; exit firmware") and, when it returns,
# compares the unit's registers, every configuration header on buses 0-1
# and the firmware's tables with what they were.
#
# QEMU traces every configuration write (pci_cfg_write): after the
# stand-in's mark, pci-testdev must get none, from anyone.
#
# A state passes when: the monitor came back (no hang, no crash), what
# the stand-in compared is as found, and the monitor did what the state
# demands: a state with a pointer that is not the firmware's memory, or a
# table that is not one, has its unit refused by name (vtd.takeover does
# not pass and says why: "not the firmware's", "is no table"; no vtd case
# passes); any other is taken over and given back (vtd.takeover passes).
# A third of the states also change the machine's own DMAR or MCFG in
# place (restored after): the first unit's base moved to another device's
# BAR or configuration page, RAM, a hole, zero or beyond ("expect
# no-unit": no vtd case may pass), or lengths, flags, the address width,
# bytes, ECAM's base or bus range changed, the checksum fixed or not
# ("expect any": the invariants alone).
#
#   tools/hostile.sh [--seed S] [--boots B] [--states N] [--jobs J] [--out DIR]
#
# Boot k runs seed S + k (default S 1, B 2, N 10, J 2, DIR build/hostile),
# up to N states: a state that leaves a queue QEMU cannot turn off again
# (one at memory no wait descriptor may be written to) ends its boot.
# Every failure prints the line that reproduces it. QEMU=... and
# FIRMWARE=... pick the QEMU and firmware as for tools/qemu-run.sh.
# Prints one line per state (PASS/FAIL), then "hostile: ..." with the
# counts and the time; exits 1 when any state failed, 2 on bad usage.
set -u
repo=$(cd "$(dirname "$0")/.." && pwd)
seed=1 boots=2 states=10 jobs=2 out=$repo/build/hostile
while [ $# -gt 0 ]; do
	case $1 in
	--seed | --boots | --states | --jobs | --out)
		[ $# -ge 2 ] || { echo "hostile: $1 needs a value" >&2; exit 2; }
		case $1 in --seed) seed=$2 ;; --boots) boots=$2 ;; --states) states=$2 ;; --jobs) jobs=$2 ;; --out) out=$2 ;; esac
		shift 2 ;;
	*) echo "hostile: unknown option $1 (--seed, --boots, --states, --jobs, --out)" >&2; exit 2 ;;
	esac
done
for n in "$seed" "$boots" "$states" "$jobs"; do
	case $n in '' | *[!0-9]*) echo "hostile: '$n' is not a whole number" >&2; exit 2 ;; esac
done
[ "$seed" -ge 1 ] && [ "$boots" -ge 1 ] && [ "$states" -ge 1 ] && [ "$states" -le 1000 ] && [ "$jobs" -ge 1 ] ||
	{ echo "hostile: seed, boots and jobs at least 1, states 1 to 1000" >&2; exit 2; }
for f in build/standin.efi build/iommon.efi; do
	[ -f "$repo/$f" ] || { echo "hostile: no $f (make $f)" >&2; exit 2; }
done
mkdir -p "$out"

# The machine: 4 GiB (the tables below 4 GiB, ECAM among RAM's addresses),
# the unit, the device under test behind a root port (01:00.0), an edu on
# bus 0 the take-over keeps DMAing, and QEMU's pci-testdev, which the
# monitor never drives: its configuration page and BAR are the targets
# that belong to another device, compared afterwards.
machine="-m 4096 -device intel-iommu,aw-bits=39 -device pcie-root-port,id=rp1,bus=pcie.0,chassis=1,slot=1 \
-device edu,bus=rp1 -device edu,bus=pcie.0 -device pci-testdev,bus=pcie.0"

boot() { # k: one boot, its console in $out/boot-$k
	s=$((seed + $1))
	# a state takes a few seconds under TCG; 30 s each is a hang
	sh "$repo/tools/qemu-run.sh" --medium kernel --image "$repo/build/standin.efi" \
		--append "hostile $s $states" \
		--qemu "$machine -fw_cfg name=opt/iommon/monitor.efi,file=$repo/build/iommon.efi -trace enable=pci_cfg_write,file=$out/cfg-trace-$1" \
		--timeout $((60 + 30 * states)) --out "$out/boot-$1" >/dev/null 2>&1
	echo "$?" >"$out/boot-$1/rc"
}

start=$(date +%s)
k=0
while [ $k -lt "$boots" ]; do
	running=0
	while [ $running -lt "$jobs" ] && [ $k -lt "$boots" ]; do
		boot $k &
		k=$((k + 1)) running=$((running + 1))
	done
	wait
done

# The judge: one awk pass per boot's console.
total=0 failed=0
k=0
while [ $k -lt "$boots" ]; do
	s=$((seed + k))
	res=$(awk -v seed="$s" -v states="$states" -v repro="tools/hostile.sh --seed $s --boots 1 --states $states" '
	function judge(   why) {
		why = ""
		if (!after) why = "the monitor never came back (a hang or a crash)"
		else if (after !~ /after: as found$/) why = "not as found:" substr(after, index(after, "after:") + 6)
		else if (expect == "taken" && !taken_pass) why = "expected the unit taken and vtd.takeover to pass: " (tk_line ? tk_line : "no vtd.takeover result")
		else if ((expect == "refused" || expect == "no-unit") && passed) why = "a vtd case passed on a unit that must be refused or is not described: " pass_line
		else if (expect == "refused" && !refused) why = "the unit was not refused by name: " (tk_line ? tk_line : "no vtd.takeover result")
		if (why == "") { printf "PASS hostile seed %s state %d: %s\n", seed, n, desc; ok++ }
		else { printf "FAIL hostile seed %s state %d: %s: %s (reproduce: %s)\n", seed, n, desc, why, repro; bad++ }
	}
	/^hostile: state [0-9]+\/[0-9]+ / {
		if (n) judge()
		n = $3; sub(/\/.*/, "", n); n += 0
		desc = $0; sub(/^[^)]*\): /, "", desc); sub(/: expect [a-z]+$/, "", desc)
		expect = $NF; after = ""; taken_pass = 0; passed = 0; refused = 0; tk_line = ""; pass_line = ""
		next
	}
	/^hostile: state [0-9]+: after: / { after = $0; next }
	/^hostile: state [0-9]+ ends the boot/ { ended = 1; next }
	n && /"kind":"result"/ && /"test":"vtd\./ {
		if (/"test":"vtd.takeover"/) tk_line = $0
		if (/"verdict":"pass"/) { passed = 1; pass_line = $0; if (/"test":"vtd.takeover"/) taken_pass = 1 }
		if (/"test":"vtd.takeover"/ && !/"verdict":"pass"/ && /not the firmware.s|is no table|where no RAM is|moved under/) refused = 1
	}
	END {
		if (n) judge()
		if (n < states && !ended) { printf "FAIL hostile seed %s: %d of %d states reached (reproduce: %s)\n", seed, n, states, repro; bad++ }
		printf "#counts %d %d\n", ok, bad
	}' "$out/boot-$k/console.txt" 2>/dev/null)
	# QEMU's trace of configuration writes: after the stand-in's mark (0xa5
	# into pci-testdev's interrupt line, then its value back), none into it
	w=$(awk '/pci_cfg_write pci-testdev .*@0x3c <- 0xa5$/ && !m { m = 1; next }
		m == 1 && /pci_cfg_write pci-testdev .*@0x3c/ { m = 2; next }
		m == 2 && /pci_cfg_write pci-testdev/ { n++; if (!l) l = $0 }
		END { if (m < 2) print "no mark"; else if (n) print n " writes, first: " l }' "$out/cfg-trace-$k" 2>/dev/null)
	[ -f "$out/cfg-trace-$k" ] || w="no trace"
	if [ -n "$w" ]; then
		res="$res
FAIL hostile seed $s: configuration writes into pci-testdev, which no one drives: $w (reproduce: tools/hostile.sh --seed $s --boots 1 --states $states)"
		res=$(printf '%s\n' "$res" | awk '/^#counts/ { $3 += 1 } { print }')
	fi
	printf '%s\n' "$res" | grep -v '^#counts'
	set -- $(printf '%s\n' "$res" | sed -n 's/^#counts //p')
	total=$((total + ${1:-0} + ${2:-0})) failed=$((failed + ${2:-1}))
	k=$((k + 1))
done
echo "hostile: $total states in $boots boots (seeds $seed-$((seed + boots - 1)), $states each), $failed failed, $(($(date +%s) - start)) s; consoles in $out"
[ "$failed" = 0 ]
