#!/bin/sh
# fuzz.sh: runs each libFuzzer target for FUZZ_SECONDS (default 6), seeded
# with the real tables and keeping what it finds in build/fuzz/corpus-*.
# Prints one PASS/FAIL line per target with the inputs it ran (libFuzzer's
# stat::number_of_executed_units); a crash leaves its input in build/fuzz/
# and fails. The targets' own stdout is closed (-close_fd_mask=1): what the
# code under test prints would only slow it down.
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
	fuzz_acpi) seeds=tests/fuzz/seeds/acpi ;;
	esac
	# shellcheck disable=SC2086
	"$bin" -max_total_time="$secs" -max_len=65536 -artifact_prefix=build/fuzz/"$name"- \
		-print_final_stats=1 -close_fd_mask=1 "$corpus" $seeds >build/fuzz/"$name".log 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' build/fuzz/"$name".log | tail -1)
	[ -n "$runs" ] || runs="?"
	rate=""
	[ "$runs" != "?" ] && [ "$secs" -gt 0 ] && rate=" ($((runs / secs)) exec/s)"
	if [ $rc = 0 ]; then
		echo "PASS fuzz.${name#fuzz_}: ${runs} runs in ${secs} s${rate}, 0 crashes, no sanitizer report"
	else
		echo "FAIL fuzz.${name#fuzz_}: ${runs} runs, exit $rc; see build/fuzz/$name.log and build/fuzz/$name-*"
		status=1
	fi
done
exit $status
