#!/bin/sh
# acpi-fixtures.sh DIR DECODER: every real DMAR/IVRS table under DIR must
# parse without an error and agree, field by field (offset, name, value),
# with iasl's reference decode beside it. Where iasl did not know a
# subtable ("Unknown Subtable Type") the comparison stops at that offset:
# the reference has nothing to say past it. Prints one line per kind,
# "PASS acpi-real.dmar: 308 tables, N fields agree" (and how many tables the
# parser warned about: a new check that starts warning on real firmware
# shows here) or FAIL with the first disagreements; exits 1 on any failure.
set -u
dir=$1 dec=$2
[ -x "$dec" ] || { echo "FAIL acpi-real: no decoder at $dec"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
names_dmar() {
	printf '%s\n' "Host Address Width" "Flags" "Subtable Type" "Length" "PCI Segment Number" \
		"Register Base Address" "Base Address" "End Address (limit)" "Proximity Domain" "Device Number" \
		"Device Name" "Device Scope Type" "Entry Length" "Enumeration ID" "PCI Bus Number" "PCI Path"
}
names_ivrs() {
	printf '%s\n' "Virtualization Info" "Subtable Type" "Flags" "Length" "DeviceId" "Auxiliary Data" \
		"Start Address" "Memory Length" "Capability Offset" "Base Address" "PCI Segment Group" \
		"Feature Reporting" "Attributes" "EFR Image" "Entry Type" "Device ID" "Data Setting" \
		"Source Used Device ID" "Handle" "Variety"
}
# Every other table ($3: 0 the even ones, 1 the odd) of one kind ($1), in
# a scratch folder of its own ($2): its counts "n bad fields warned" in
# $2/counts, its disagreements in $2/failures. Two halves run at once (a
# few thousand small processes each kind).
check_part() {
	kind=$1 tmp=$2 part=$3 i=0
	mkdir -p "$tmp"
	n=0 bad=0 fields=0 warned=0
	: >"$tmp/failures"
	for bin in "$dir/$kind"/*.bin; do
		[ -e "$bin" ] || continue # no table at all: the pattern itself
		i=$((i + 1))
		[ $((i % 2)) = "$part" ] || continue
		dsl=${bin%.bin}.dsl
		n=$((n + 1))
		if ! "$dec" --fields "$bin" >"$tmp/ours" 2>"$tmp/err"; then
			bad=$((bad + 1))
			echo "  $(basename "$bin"): parser reported errors: $("$dec" --diag "$bin" | head -2 | tr '\n' ' ')" >>"$tmp/failures"
			continue
		fi
		# iasl's decode as OFFSET|Name|Value (offsets as 4 upper-case hex
		# digits, which compare correctly as strings), up to its first
		# unknown subtable, whose offset becomes the stop
		awk '
			function pad(h) { while (length(h) < 4) h = "0" h; return h }
			/^\[[0-9A-F]+h [0-9]+ +[0-9]+\]/ {
				off = pad(substr($1, 2, length($1) - 2))
				if ($0 ~ /Unknown Subtable Type/) { print "STOP|" off; exit }
				line = $0; sub(/^\[[^]]*\] */, "", line)
				i = index(line, " : "); if (i == 0) next
				name = substr(line, 1, i - 1); val = substr(line, i + 3)
				if (val !~ /^"/) sub(/ .*/, "", val)
				print off "|" name "|" val
			}' "$dsl" >"$tmp/ref.all"
		stop=$(awk -F'|' '$1 == "STOP" {print $2}' "$tmp/ref.all")
		grep -v '^STOP|' "$tmp/ref.all" >"$tmp/ref.norm" || true
		# the fields the parser must decode (a fixed list: a field the
		# parser stopped printing must show up as a difference), only
		# below iasl's stop offset
		names_$kind >"$tmp/names"
		filter() { awk -F'|' -v stop="$stop" 'NR == FNR { want[$0] = 1; next }
			($2 in want) && (stop == "" || $1 < stop) { print }' "$tmp/names" "$1" | sort; }
		filter "$tmp/ref.norm" >"$tmp/a"
		filter "$tmp/ours" >"$tmp/b"
		[ -s "$tmp/b" ] || { bad=$((bad + 1)); echo "  $(basename "$bin"): nothing to compare" >>"$tmp/failures"; continue; }
		if cmp -s "$tmp/a" "$tmp/b"; then
			fields=$((fields + $(wc -l <"$tmp/b")))
			"$dec" --diag "$bin" | grep -q '^warning:' && warned=$((warned + 1))
		else
			bad=$((bad + 1))
			echo "  $(basename "$bin"): $(diff "$tmp/a" "$tmp/b" | grep '^[<>]' | head -3 | tr '\n' ' ')" >>"$tmp/failures"
		fi
	done
	echo "$n $bad $fields $warned" >"$tmp/counts"
}
for kind in dmar ivrs; do
	check_part $kind "$tmp/$kind.0" 0 & # subshells: check_part's variables stay its own
	check_part $kind "$tmp/$kind.1" 1 &
	wait
	read -r n0 b0 f0 w0 <"$tmp/$kind.0/counts" || n0=0 b0=0 f0=0 w0=0
	read -r n1 b1 f1 w1 <"$tmp/$kind.1/counts" || n1=0 b1=0 f1=0 w1=0
	n=$((n0 + n1)) bad=$((b0 + b1)) fields=$((f0 + f1)) warned=$((w0 + w1))
	if [ "$n" = 0 ]; then
		echo "SKIP acpi-real.$kind: no fixtures in $dir/$kind"
	elif [ "$bad" = 0 ]; then
		echo "PASS acpi-real.$kind: $n tables, $fields fields agree with iasl; $warned with warnings (acpidecode --diag)"
	else
		echo "FAIL acpi-real.$kind: $bad of $n tables disagree or fail"
		cat "$tmp/$kind.0/failures" "$tmp/$kind.1/failures" | head -5
		status=1
	fi
done
exit $status
