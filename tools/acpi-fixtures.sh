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
for kind in dmar ivrs; do
	n=0 bad=0 fields=0 warned=0
	: >"$tmp/failures"
	for bin in "$dir/$kind"/*.bin; do
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
	if [ "$n" = 0 ]; then
		echo "SKIP acpi-real.$kind: no fixtures in $dir/$kind"
	elif [ "$bad" = 0 ]; then
		echo "PASS acpi-real.$kind: $n tables, $fields fields agree with iasl; $warned with warnings (acpidecode --diag)"
	else
		echo "FAIL acpi-real.$kind: $bad of $n tables disagree or fail"
		head -5 "$tmp/failures"
		status=1
	fi
done
exit $status
