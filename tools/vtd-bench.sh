#!/bin/sh
# vtd-bench.sh: the vtd group's wall time on `make run`'s machine (q35,
# intel-iommu, the null-backed NVMe) against the floor: the same machine
# booted to `exit qemu` alone (OVMF's start, the monitor's start and exit).
# Whole QEMU processes, the two kinds interleaved, one at a time in one slot
# of tools/test.sh's boot pool (a boot test beside it in the other: both
# kinds see the same load); VTD_BENCH_PAIRS pairs, 3 by default, 0 leaves it
# out. Printed and never asserted: QEMU's TCG on this host, not silicon, and
# a shared host's load shows in the spread. Each boot as the boot tests
# start them (qemu-run.sh --warm-vars).
set -u
cd "$(dirname "$0")/.."
pairs=${VTD_BENCH_PAIRS:-3}
if [ "$pairs" -gt 0 ] 2>/dev/null; then
	echo "benchmark: the vtd group on make run's VT-d machine against its empty boot (qemu-tcg; never asserted)"
	bdir=build/bench-vtd
	rm -rf "$bdir"
	mkdir -p "$bdir"
	printf 'set records console\nrun vtd\nexit qemu\n' >"$bdir/vtd.cfg"
	printf 'exit qemu\n' >"$bdir/empty.cfg"
	bdev="-device intel-iommu -blockdev driver=null-co,node-name=nvm0,size=67108864,read-zeroes=on -device nvme,drive=nvm0,serial=iommon0"
	i=0
	while [ $i -lt "$pairs" ]; do
		for k in empty vtd; do
			t0=$(date +%s%N)
			tools/qemu-run.sh --image build/iommon.img --cfg "$bdir/$k.cfg" --out "$bdir/$k$i" --timeout 120 \
				--warm-vars build/warm-vars --qemu "$bdev" >/dev/null 2>&1
			brc=$? # 1: isa-debug-exit's status for the verdict pass
			echo "$k $(($(date +%s%N) - t0)) $brc" >>"$bdir/times"
		done
		i=$((i + 1))
	done
	awk -v qv="$(tools/qemu-run.sh --qemu-version 2>/dev/null)" '
	function median(a, n,   i, j, t) {
		for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	{ n[$1]++; s[$1, n[$1]] = $2 / 1e9; if ($3 != ($1 == "vtd" ? 1 : 5)) bad[$1]++ }
	END {
		for (k in n) { for (i = 1; i <= n[k]; i++) v[i] = s[k, i]; m[k] = median(v, n[k]); lo[k] = hi[k] = s[k, 1]
			for (i = 1; i <= n[k]; i++) { if (s[k, i] < lo[k]) lo[k] = s[k, i]; if (s[k, i] > hi[k]) hi[k] = s[k, i] } }
		printf "  QEMU %s, TCG, q35 + intel-iommu + NVMe (make run), %d pairs interleaved, whole QEMU process:\n", qv, n["vtd"]
		printf "  empty boot (exit qemu):  median %6.2f s (%.2f-%.2f)\n", m["empty"], lo["empty"], hi["empty"]
		printf "  run vtd:                 median %6.2f s (%.2f-%.2f)\n", m["vtd"], lo["vtd"], hi["vtd"]
		printf "  the vtd group over the floor: %.2f s; the whole boot %.2f times the empty one\n", m["vtd"] - m["empty"], m["vtd"] / m["empty"]
		if (bad["empty"] || bad["vtd"]) printf "  (%d boots did not exit with the verdict pass: figures suspect)\n", bad["empty"] + bad["vtd"]
	}' "$bdir/times"
	awk -F'[,:]' '/"kind":"summary"/ { for (i = 1; i < NF; i++) if ($i == "\"ms\"") ms = $(i + 1) }
		END { if (ms) printf "  inside the monitor (the summary record, the last pair): %.2f s\n", ms / 1000 }' \
		"$bdir/vtd$((pairs - 1))/records.jsonl" 2>/dev/null
	echo "  (kvm-unit-tests' intel_iommu: about 0.1-0.2 s over its own empty boot by an earlier hand measurement; README, \"Wall time beside kvm-unit-tests\")"
fi

