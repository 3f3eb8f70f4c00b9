#!/bin/sh
# price-plot.sh RESULTS.jsonl OUTDIR: the price group's records as plots
# (gnuplot, PNG), the way the seed paper showed its results:
#   OUTDIR/price-latency.png   DMA latency per strategy (p50 bar, up to p99)
#   OUTDIR/price-overhead.png  time per DMA against translation off, per
#                              backend and strategy
# Each row is one backend-strategy-size from the 'price' info records. The
# title says the platform, and whether the figures came from models.
set -eu
[ $# = 2 ] || { echo "usage: price-plot.sh RESULTS.jsonl OUTDIR" >&2; exit 2; }
in=$1 out=$2
command -v gnuplot >/dev/null || { echo "price-plot: gnuplot is missing (make deps installs gnuplot-nox)" >&2; exit 1; }
mkdir -p "$out"
data="$out/price.dat"
# backend variant p50_us p99_us overhead_pct model platform
awk -F'[,{}]' '/"kind":"info","what":"price"/ {
	b = v = pl = ""; p50 = p99 = ov = 0; m = "false"
	for (i = 1; i <= NF; i++) {
		split($i, kv, ":"); k = kv[1]; val = substr($i, length(k) + 2)
		gsub(/"/, "", k); gsub(/"/, "", val)
		if (k == "backend") b = val; else if (k == "variant") v = val
		else if (k == "latency_p50_ns") p50 = val / 1000; else if (k == "latency_p99_ns") p99 = val / 1000
		else if (k == "overhead_pct") ov = val; else if (k == "model") m = val; else if (k == "platform") pl = val
	}
	printf "%s %s %.3f %.3f %.1f %s %s\n", b, v, p50, p99, ov, m, pl
}' "$in" >"$data"
rows=$(wc -l <"$data")
[ "$rows" -gt 0 ] || { echo "price-plot: no 'price' records in $in ('run price' makes them)" >&2; exit 1; }
platform=$(awk 'NR == 1 { print $7 }' "$data")
models=$(awk '$6 == "true" { n++ } END { print n + 0 }' "$data")
note="platform $platform; $models of $rows rows on register-level models (CPU cycles of the driver, not silicon)"
width=$((400 + rows * 22))
gnuplot <<GP
set terminal pngcairo size $width,700 noenhanced font ",9"
set datafile separator " "
set style fill solid 0.6 border -1
set boxwidth 0.6
set xtics rotate by 60 right
set grid ytics
set bmargin 20
set output "$out/price-latency.png"
set title "DMA latency per strategy: p50 (bar) to p99 (line)\n$note"
set ylabel "microseconds (log)"
set logscale y
plot "$data" using 0:3:xtic(sprintf("%s %s", stringcolumn(1), stringcolumn(2))) with boxes title "p50", \
     "" using 0:3:3:4 with yerrorbars pointtype 0 title "p99"
unset logscale y
set output "$out/price-overhead.png"
set title "Time per DMA against translation off, by backend and strategy\n$note"
set ylabel "overhead (percent)"
plot "$data" using 0:5:xtic(sprintf("%s %s", stringcolumn(1), stringcolumn(2))) with boxes title "overhead"
GP
for f in price-latency.png price-overhead.png; do
	head -c 8 "$out/$f" | od -An -tx1 | grep -q '89 50 4e 47 0d 0a 1a 0a' ||
		{ echo "price-plot: $out/$f is not a PNG" >&2; exit 1; }
done
echo "price-plot: $rows rows -> $out/price-latency.png, $out/price-overhead.png"
