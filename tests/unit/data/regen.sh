#!/bin/sh
# regen.sh: compiles each IORT/GTDT fixture source (*.asl, iasl's data table
# format; the template.asl files are `iasl -T IORT` / `iasl -T GTDT` as
# acpica-tools 20200925 writes them) into the table (*.bin) and iasl's own
# decode of it (*.dsl), which test_iort_fixtures compares field by field
# with the monitor's parsers. Needs iasl (acpica-tools, tools/deps.sh).
set -eu
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for asl in iort/*.asl gtdt/*.asl; do
	base=${asl%.asl}
	iasl -p "$tmp/t" "$asl" >/dev/null
	cp "$tmp/t.aml" "$base.bin"
	iasl -p "$tmp/d" -d "$base.bin" >/dev/null 2>&1
	# the decode, without iasl's banner (its date and file names)
	sed -n '/^\[/,$p' "$tmp/d.dsl" >"$base.dsl"
done
