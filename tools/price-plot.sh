#!/bin/sh
# price-plot.sh RESULTS.jsonl OUTDIR: the price group's records as plots
# (gnuplot, PNG), the way the seed paper showed its results:
#   OUTDIR/price-latency.png   DMA latency per strategy (p50 bar, up to p99)
#   OUTDIR/price-overhead.png  each DMA's median cost against translation
#                              off, per backend and strategy, with its 95 %
#                              interval as an error bar; bars whose interval
#                              holds 0 are grey and labelled inconclusive
# Each row is one backend-strategy-size from the 'price' info records; a
# label that would repeat (the same variant in two tests or on two models)
# gets the test and a number. The title says the platform, and whether the
# figures came from models.
set -eu
[ $# = 2 ] || { echo "usage: price-plot.sh RESULTS.jsonl OUTDIR" >&2; exit 2; }
in=$1 out=$2
command -v gnuplot >/dev/null || { echo "price-plot: gnuplot is missing (make deps installs gnuplot-nox)" >&2; exit 1; }
mkdir -p "$out"
data="$out/price.dat"
# label p50_us p99_us overhead_pct model platform lo_pct hi_pct colour verdict
awk -F'[,{}]' '/"kind":"info","what":"price"/ {
	b = v = pl = t = ""; p50 = p99 = ov = 0; m = "false"; lo = hi = "?"; vd = "-"
	for (i = 1; i <= NF; i++) {
		split($i, kv, ":"); k = kv[1]; val = substr($i, length(k) + 2)
		gsub(/"/, "", k); gsub(/"/, "", val)
		if (k == "backend") b = val; else if (k == "variant") v = val; else if (k == "test") t = val
		else if (k == "latency_p50_ns") p50 = val / 1000; else if (k == "latency_p99_ns") p99 = val / 1000
		else if (k == "overhead_pct") ov = val; else if (k == "model") m = val; else if (k == "platform") pl = val
		else if (k == "overhead_lo_pct") lo = val; else if (k == "overhead_hi_pct") hi = val
		else if (k == "overhead_verdict") vd = val
	}
	label = b "-" v
	if (seen[label]++) label = label "(" t "," seen[label] ")"
	if (lo == "?") { lo = ov; hi = ov }
	# 1 higher, 2 lower, 3 inconclusive, 4 the baseline or no verdict
	c = vd == "higher" ? 1 : vd == "lower" ? 2 : vd == "inconclusive" ? 3 : 4
	printf "%s %.3f %.3f %.1f %s %s %.1f %.1f %d %s\n", label, p50, p99, ov, m, pl, lo, hi, c, vd
}' "$in" >"$data"
rows=$(wc -l <"$data")
[ "$rows" -gt 0 ] || { echo "price-plot: no 'price' records in $in ('run price' makes them)" >&2; exit 1; }
platform=$(awk 'NR == 1 { print $6 }' "$data")
models=$(awk '$5 == "true" { n++ } END { print n + 0 }' "$data")
inconclusive=$(awk '$10 == "inconclusive" { n++ } END { print n + 0 }' "$data")
note="platform $platform; $models of $rows rows on register-level models (CPU cycles of the driver, not silicon)"
width=$((400 + rows * 22))
gnuplot <<GP
set terminal pngcairo size $width,700 noenhanced font ",9"
set datafile separator " "
set style fill solid 0.6 border -1
set boxwidth 0.6
set xtics rotate by 60 right
set grid ytics
set bmargin 24
set key outside top center horizontal
set output "$out/price-latency.png"
set title "DMA latency per strategy: p50 (bar) to p99 (line)\n$note"
set ylabel "microseconds (log)"
set logscale y
plot "$data" using 0:2:xtic(stringcolumn(1)) with boxes title "p50", \
     "" using 0:2:2:3 with yerrorbars pointtype 0 title "p99"
unset logscale y
set output "$out/price-overhead.png"
set title "Each DMA's median cost against translation off, with its 95% interval (bootstrap of the ratio of medians)\n$note; $inconclusive rows inconclusive (grey: the interval holds 0)"
set ylabel "overhead (percent)"
set palette defined (1 "#c0392b", 2 "#2471a3", 3 "#a6a6a6", 4 "#404040")
set cbrange [1:4]
unset colorbox
plot "$data" using 0:4:9:xtic(stringcolumn(1)) with boxes lc palette notitle, \
     "" using 0:4:7:8 with yerrorbars pointtype 0 lc rgb "black" title "95% interval", \
     "" using 0:(\$8):(strcol(10) eq "inconclusive" ? "inconclusive" : "") with labels rotate by 90 left offset 0,0.5 notitle
GP
for f in price-latency.png price-overhead.png; do
	head -c 8 "$out/$f" | od -An -tx1 | grep -q '89 50 4e 47 0d 0a 1a 0a' ||
		{ echo "price-plot: $out/$f is not a PNG" >&2; exit 1; }
done
echo "price-plot: $rows rows -> $out/price-latency.png, $out/price-overhead.png"
