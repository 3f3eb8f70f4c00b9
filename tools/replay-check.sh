#!/bin/sh
# replay-check.sh BOOTTESTS OUTDIR: the replay folders the boot tests
# replay-vtd, replay-smmuv3 and amdvi-discovery saved, replayed by the host monitor
# (build/host/iommon --replay): the acpi verdicts must be the live run's,
# the pci cases skip for want of live hardware, and the saved registers
# decode. Then doctored copies of the VT-d folder (a DMAR with a bad
# checksum, a table cut short, a missing file, garbage in iommu.txt) must
# each be named and the replay go on to its closing line.
# Prints "PASS|FAIL|SKIP name: detail" lines; exits 1 when one failed.
set -u
boot=$1 out=$2
mkdir -p "$out"
bad=0
note() {
	[ "$1" = FAIL ] && bad=1
	printf '%s %s%s\n' "$1" "$2" "${3:+: $3}"
}

# verdicts FILE PREFIX: "test verdict checks detail" of each result record
# of the group; acpi.mcfg's without its checks and its ECAM-against-CF8
# part, which reads configuration space live
verdicts() {
	sed -n 's/^{"kind":"result","test":"\('"$2"'\.[a-z_0-9]*\)","verdict":"\([a-z]*\)","checks":\([0-9]*\),.*"detail":"\([^"]*\)".*/\1 \2 \3 \4/p' "$1" |
		sed 's/^\(acpi\.mcfg [a-z]*\) [0-9]* \([0-9]* regions\); ECAM .*/\1 \2/' | sort
}

# replay NAME DIR: the host monitor on DIR, its console in $out/NAME.txt
replay() {
	rm -rf "$out/$1.vol" && mkdir -p "$out/$1.vol"
	IOMMON_VOLUME="$out/$1.vol" build/host/iommon --replay "$2" 'set records console; iommu; run acpi pci; exit qemu' >"$out/$1.txt" 2>&1
	echo $?
}

closing='^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped(, [0-9]+ not applicable)?$'
# what a replay's verdict says: no live hardware, no unit taken over
untested='^  inconclusive: no IOMMU unit was tested: '

# amdvi-discovery's folder too: an IVRS and an AMD-Vi unit's registers
# (REPLAY_TESTS: the boot tests whose folders to judge, when only some ran)
for t in ${REPLAY_TESTS:-replay-vtd replay-smmuv3 amdvi-discovery}; do
	run=$boot/$t/run
	if [ ! -f "$run/records.jsonl" ]; then
		note SKIP "$t.replayed" "the boot test $t left no records"
		continue
	fi
	set -- "$run"/results/*/*.replay
	if [ ! -d "$1" ] || [ $# != 1 ]; then
		note FAIL "$t.saved" "$# replay folders under $run/results, expected 1"
		continue
	fi
	dir=$1
	rc=$(replay "$t" "$dir")
	verdicts "$run/records.jsonl" acpi >"$out/$t.live"
	grep '^{' "$out/$t.txt" >"$out/$t.jsonl"
	# the acpi cases the live run ran (a plan may name some only)
	cut -d' ' -f1 "$out/$t.live" | sed 's/$/ /' >"$out/$t.ran"
	verdicts "$out/$t.jsonl" acpi | grep -F -f "$out/$t.ran" >"$out/$t.replayed"
	if [ ! -s "$out/$t.live" ]; then
		note FAIL "$t.verdicts" "the live run has no acpi verdicts"
	elif ! cmp -s "$out/$t.live" "$out/$t.replayed"; then
		note FAIL "$t.verdicts" "replayed acpi verdicts differ: $(diff "$out/$t.live" "$out/$t.replayed" | grep '^[<>]' | head -4 | tr '\n' ';')"
	elif ! grep -Eq "$closing" "$out/$t.txt" || [ "$rc" != 7 ] || ! grep -q "$untested" "$out/$t.txt"; then
		# a replay tests no unit: inconclusive (7), never a pass
		note FAIL "$t.verdicts" "no closing line, no '$untested' or exit status $rc, not 7 (console: $out/$t.txt)"
	else
		note PASS "$t.verdicts" "$(wc -l <"$out/$t.live") acpi verdicts, checks and details as the live run's ($(cut -d' ' -f1,2 "$out/$t.live" | tr '\n' ' ' | sed 's/ $//'))"
	fi
	if grep -q '^{"kind":"info","what":"platform",.*"platform":"replay",.*"replay":"' "$out/$t.jsonl" &&
		[ "$(grep -c '^{"kind":"result","test":"pci\.[a-z]*","verdict":"skip",.*"detail":"replay: no live hardware"' "$out/$t.jsonl")" = 2 ]; then
		note PASS "$t.records" "platform \"replay\" with its folder named; the pci cases skip: replay: no live hardware"
	else
		note FAIL "$t.records" "no replay platform record, or the pci cases did not skip (console: $out/$t.txt)"
	fi
done

# The saved registers, decoded by `iommu` as on the machine.
if [ -f "$out/replay-vtd.txt" ]; then
	if grep -q '^      CAP: domains 65536, MGAW 39' "$out/replay-vtd.txt"; then
		note PASS replay-vtd.registers "dmar0's saved CAP decoded: $(grep -m1 '^      CAP: ' "$out/replay-vtd.txt" | sed 's/^ *//')"
	else
		note FAIL replay-vtd.registers "no CAP decode in $out/replay-vtd.txt"
	fi
fi
if [ -f "$out/replay-smmuv3.txt" ]; then
	if grep -q '^      AIDR 0x[0-9a-f]*: SMMUv3' "$out/replay-smmuv3.txt"; then
		note PASS replay-smmuv3.registers "smmu0's saved IDRs decoded: $(grep -m1 '^      AIDR ' "$out/replay-smmuv3.txt" | sed 's/^ *//')"
	else
		note FAIL replay-smmuv3.registers "no IDR decode in $out/replay-smmuv3.txt"
	fi
fi

if [ -f "$out/amdvi-discovery.txt" ]; then
	if grep -q '^      EFR 0x[0-9a-f]*: .*HATS' "$out/amdvi-discovery.txt"; then
		note PASS amdvi-discovery.registers "amdvi0's saved EFR decoded: $(grep -m1 '^      EFR ' "$out/amdvi-discovery.txt" | sed 's/^ *//')"
	else
		note FAIL amdvi-discovery.registers "no EFR decode in $out/amdvi-discovery.txt"
	fi
fi

# Every case on the VT-d folder: none may reach for the machine that is
# not there (a port or register read on the host would end the process);
# the cases that need it skip, saying so.
set -- "$boot"/replay-vtd/run/results/*/*.replay
if [ -d "$1" ]; then
	rm -rf "$out/all.vol" && mkdir -p "$out/all.vol"
	IOMMON_VOLUME="$out/all.vol" build/host/iommon --replay "$1" 'set records console; run all; exit qemu' >"$out/all.txt" 2>&1
	rc=$?
	n=$(grep -c '^{"kind":"result",.*"verdict":"skip",.*replay: no live hardware' "$out/all.txt")
	# the VT-d unit's cases skip (no live hardware); the groups of units the
	# folder does not have do not apply, one line each
	# the machine's unit is never tested in a replay; the models are (price.models): a pass on them alone
	if [ $rc = 1 ] && grep -q '^{"kind":"verdict","plan":"options","verdict":"pass",.*"units":"[^"]*model' "$out/all.txt" &&
		! grep -q '^{"kind":"verdict",.*"units":"[^"]*dmar0' "$out/all.txt" && grep -Eq "$closing" "$out/all.txt" && [ "$n" -gt 30 ] &&
		grep -q '^  amdvi: not applicable' "$out/all.txt" && grep -q '^  smmuv3: not applicable' "$out/all.txt" &&
		! grep -q '^{"kind":"result",.*"verdict":"\(fail\|crashed\)"' "$out/all.txt"; then
		note PASS replay-vtd.run-all "run all on the folder ends: $(grep -E "$closing" "$out/all.txt"), $n skipped: replay: no live hardware; amdvi and smmuv3 not applicable"
	else
		note FAIL replay-vtd.run-all "exit status $rc, $n cases skipped for want of hardware (console: $out/all.txt)"
	fi
fi

# Doctored copies of the VT-d folder: each problem named, the replay goes on.
set -- "$boot"/replay-vtd/run/results/*/*.replay
[ -d "$1" ] || exit $bad
orig=$1
# doctor NAME SHELL-COMMAND: a copy of the folder changed in $d
doctor() {
	d=$out/$1.folder
	rm -rf "$d" && cp -r "$orig" "$d" && (cd "$d" && sh -c "$2")
	rc=$(replay "$1" "$d")
}
# expect NAME WHAT ERE...: every ERE has a line in the console, and the
# replay reached its closing line
expect() {
	name=$1 what=$2
	shift 2
	for ere in "$@" "$closing"; do
		if ! grep -Eq -- "$ere" "$out/$name.txt"; then
			note FAIL "replay.$name" "no line matching /$ere/ (console: $out/$name.txt)"
			return
		fi
	done
	note PASS "replay.$name" "$what"
}

# the checksum byte (offset 9) one higher
doctor bad-checksum 'printf "\\$(printf %o $((($(od -An -tu1 -j9 -N1 dmar.dat) + 1) % 256)))" | dd of=dmar.dat bs=1 seek=9 conv=notrunc 2>/dev/null'
expect bad-checksum "a DMAR with a bad checksum: acpi.tables fails naming it, acpi.dmar finds no DMAR" \
	'FAIL: DMAR at 0x[0-9a-f]+ \(120 bytes\): checksum bad; the table is skipped' \
	'^\{"kind":"result","test":"acpi.tables","verdict":"fail"' \
	'^\{"kind":"result","test":"acpi.dmar","verdict":"na"'

doctor truncated 'head -c 60 dmar.dat >cut && mv cut dmar.dat'
expect truncated "a DMAR cut short is named and left out; the other tables are judged" \
	'^warning: replay: dmar.dat holds 60 bytes, manifest.txt says 120$' \
	'^warning: replay: dmar.dat is cut short: its header says 120 bytes, the file holds 60: left out$' \
	'^\{"kind":"result","test":"acpi.tables","verdict":"pass"' \
	'^\{"kind":"result","test":"acpi.dmar","verdict":"na"'

doctor missing 'rm hpet.dat pci.txt'
expect missing "missing files are named where listed and where wanted; scopes without pci.txt not judged" \
	'^warning: replay: hpet.dat, listed in manifest.txt, is missing$' \
	'^warning: replay: hpet.dat is missing: left out$' \
	'^warning: replay: no pci.txt: no PCI functions' \
	'^    note: 6 scopes not checked: the replay folder lists no PCI functions$' \
	'^\{"kind":"result","test":"acpi.dmar","verdict":"pass"'

doctor garbage 'printf "garbage\ndmar0 vtd 0xfed90000 0x00008 8 ECAP 0x1\ndmar0 vtd 0xfed90000 0x00000 4 VER 0x123456789\n" >>iommu.txt; echo 0x2000 0x1000 7 >>memmap.txt'
expect garbage "garbage in iommu.txt and memmap.txt: each bad line named by number and left out, the rest decoded" \
	"^warning: replay: memmap.txt:[0-9]+: not 'base end type'; the line is left out$" \
	'^warning: replay: iommu.txt:18: not .unit type base offset bytes register value.; the line is left out$' \
	"^warning: replay: iommu.txt:19: the register's name is not the one at that offset; the line is left out$" \
	'^warning: replay: iommu.txt:20: the value does not fit in 4 bytes; the line is left out$' \
	'^      CAP: domains 65536, MGAW 39'

# a name in the manifest that leads out of the folder is not opened
doctor outside 'echo "table ../outside.dat DMAR 120" >>manifest.txt'
expect outside "a manifest naming a file outside the folder: the line refused, the rest judged" \
	"^warning: replay: manifest.txt:[0-9]+: a file name outside the folder" \
	'^\{"kind":"result","test":"acpi.dmar","verdict":"pass"'

# an SMBIOS entry point declaring more table than the file holds (2.x:
# the length at 0x16): left out, never walked past the file
doctor smbios-long 'printf "\377\377" | dd of=smbios-entry.dat bs=1 seek=22 conv=notrunc 2>/dev/null'
expect smbios-long "an SMBIOS entry point declaring a longer table than its file: SMBIOS left out" \
	'^warning: replay: smbios-entry.dat declares a 65535-byte table and smbios.dat holds [0-9]+: SMBIOS left out$'

exit $bad
