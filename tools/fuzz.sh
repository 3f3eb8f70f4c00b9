#!/bin/sh
# fuzz.sh: runs each libFuzzer target for FUZZ_SECONDS (default 6), seeded
# with the real tables and keeping what it finds in build/fuzz/corpus-*.
# Prints one PASS/FAIL line per target; a crash leaves its input in
# build/fuzz/ and fails.
set -u
cd "$(dirname "$0")/.."
secs=${FUZZ_SECONDS:-6}
fixtures=${IOMMON_ACPI_FIXTURES:-../shared/data/acpi-real}
status=0
if ! ls build/fuzz/fuzz_* >/dev/null 2>&1; then
	echo "FAIL fuzz: no fuzz targets were built (clang and libclang-rt-14-dev: make deps)"
	exit 1
fi
for bin in build/fuzz/fuzz_*; do
	[ -x "$bin" ] || continue
	name=$(basename "$bin")
	corpus=build/fuzz/corpus-$name
	mkdir -p "$corpus"
	seeds=""
	case $name in
	fuzz_dmar) [ -d "$fixtures/dmar" ] && seeds=$fixtures/dmar ;;
	fuzz_ivrs) [ -d "$fixtures/ivrs" ] && seeds=$fixtures/ivrs ;;
	esac
	# shellcheck disable=SC2086
	"$bin" -max_total_time="$secs" -max_len=65536 -artifact_prefix=build/fuzz/"$name"- \
		"$corpus" $seeds >build/fuzz/"$name".log 2>&1
	rc=$?
	runs=$(grep -Eo 'Done [0-9]+ runs' build/fuzz/"$name".log | grep -Eo '[0-9]+' || echo "?")
	if [ $rc = 0 ]; then
		echo "PASS fuzz.${name#fuzz_}: ${runs} inputs in ${secs}s, no crash, no sanitizer report"
	else
		echo "FAIL fuzz.${name#fuzz_}: exit $rc; see build/fuzz/$name.log and build/fuzz/$name-*"
		status=1
	fi
done
exit $status
