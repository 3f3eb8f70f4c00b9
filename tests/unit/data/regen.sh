#!/bin/sh
# regen.sh: compiles each IORT/GTDT fixture source (*.asl, iasl's data table
# format; the template.asl files are `iasl -T IORT` / `iasl -T GTDT` as
# acpica-tools 20200925 writes them) into the table (*.bin), then writes
# iasl's decode of every table (*.dsl; iort, gtdt, mcfg), those compiled here and those
# captured from QEMU by capture-qemu.sh (*-real.bin). test_iort_fixtures
# compares the decodes field by field with the monitor's parsers. Needs iasl
# (acpica-tools, tools/deps.sh).
set -eu
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for asl in iort/*.asl gtdt/*.asl madt/*.asl; do
	iasl -p "$tmp/t" "$asl" >/dev/null
	cp "$tmp/t.aml" "${asl%.asl}.bin"
done
for bin in iort/*.bin gtdt/*.bin mcfg/*.bin; do
	iasl -p "$tmp/d" -d "$bin" >/dev/null 2>&1
	# the decode, without iasl's banner (its date and file names)
	sed -n '/^\[/,$p' "$tmp/d.dsl" >"${bin%.bin}.dsl"
done
