#!/bin/sh
# fuzz.sh: runs each libFuzzer target, seeded with the real tables and
# keeping what it finds in build/fuzz/corpus-*. Prints one PASS/FAIL line
# per target with the inputs it ran (libFuzzer's
# stat::number_of_executed_units); a crash leaves its input in build/fuzz/
# and fails. The targets' own stdout is closed (-close_fd_mask=1): what the
# code under test prints would only slow it down.
#
#   FUZZ_SECONDS  time per target (default 6: the short run in make test)
#   FUZZ_RUNS     inputs per target instead; FUZZ_SECONDS then caps the time
#   FUZZ_JOBS     targets run side by side (default 1)
#   FUZZ_ONLY     one target's name (acpi, pci, ...)
set -u
cd "$(dirname "$0")/.."
secs=${FUZZ_SECONDS:-6}
runs_goal=${FUZZ_RUNS:-}
jobs=${FUZZ_JOBS:-1}
fixtures=${IOMMON_ACPI_FIXTURES:-../shared/data/acpi-real}
if ! ls build/fuzz/fuzz_* >/dev/null 2>&1; then
	echo "FAIL fuzz: no fuzz targets were built (clang and libclang-rt-14-dev: make deps)"
	exit 1
fi

one() { # binary: runs it, writes its PASS/FAIL line to build/fuzz/NAME.result
	bin=$1
	name=$(basename "$bin")
	corpus=build/fuzz/corpus-$name
	mkdir -p "$corpus"
	seeds=""
	case $name in
	fuzz_dmar) [ -d "$fixtures/dmar" ] && seeds=$fixtures/dmar ;;
	fuzz_ivrs) [ -d "$fixtures/ivrs" ] && seeds=$fixtures/ivrs ;;
	fuzz_acpi) seeds=tests/fuzz/seeds/acpi ;;
	fuzz_smbios) seeds=tests/fuzz/seeds/smbios ;; # QEMU's tables, behind the mode byte
	fuzz_iort) seeds="tests/unit/data/iort tests/unit/data/gtdt" ;; # the iasl-compiled fixtures
	fuzz_madt) seeds=tests/unit/data/madt ;;
	fuzz_rimt) seeds=tests/fuzz/seeds/rimt ;; # built as QEMU 10.0 and a platform unit lay it out
	fuzz_fdt) seeds=tests/fuzz/seeds/fdt ;; # QEMU 10.0's riscv64 virt (dumpdtb), one with a disabled unit added
	esac
	limit=""
	[ -n "$runs_goal" ] && limit="-runs=$runs_goal"
	start=$(date +%s)
	# shellcheck disable=SC2086
	"$bin" -max_total_time="$secs" $limit -max_len=65536 -artifact_prefix=build/fuzz/"$name"- \
		-print_final_stats=1 -close_fd_mask=1 "$corpus" $seeds >build/fuzz/"$name".log 2>&1
	rc=$?
	took=$(($(date +%s) - start))
	[ "$took" -gt 0 ] || took=1
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' build/fuzz/"$name".log | tail -1)
	rate=""
	if [ -n "$runs" ]; then
		rate=" ($((runs / took)) exec/s)"
	else
		runs="?"
	fi
	if [ $rc = 0 ]; then
		short=""
		[ -n "$runs_goal" ] && [ "$runs" != "?" ] && [ "$runs" -lt "$runs_goal" ] &&
			short="; stopped at the ${secs} s cap before $runs_goal runs"
		echo "PASS fuzz.${name#fuzz_}: ${runs} runs in ${took} s${rate}, 0 crashes, no sanitizer report$short"
	else
		echo "FAIL fuzz.${name#fuzz_}: ${runs} runs, exit $rc; see build/fuzz/$name.log and build/fuzz/$name-*"
	fi >build/fuzz/"$name".result
}

targets=""
for bin in build/fuzz/fuzz_*; do
	[ -x "$bin" ] && [ -f "$bin" ] || continue
	[ -n "${FUZZ_ONLY:-}" ] && [ "$(basename "$bin")" != "fuzz_$FUZZ_ONLY" ] && continue
	targets="$targets $bin"
	rm -f "build/fuzz/$(basename "$bin").result"
done
# at most $jobs at a time, started in order
running=0
for bin in $targets; do
	one "$bin" &
	running=$((running + 1))
	if [ "$running" -ge "$jobs" ]; then
		wait
		running=0
	fi
done
wait
status=0
for bin in $targets; do
	r=build/fuzz/$(basename "$bin").result
	if [ -f "$r" ]; then
		cat "$r"
		grep -q '^PASS' "$r" || status=1
	else
		echo "FAIL fuzz.$(basename "$bin" | sed 's/^fuzz_//'): no result"
		status=1
	fi
done
exit $status
