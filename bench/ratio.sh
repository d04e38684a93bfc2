#!/usr/bin/env bash
# bench/ratio.sh PKG BENCHMARK [COUNT [BASELINE]]: runs a Go benchmark whose
# sub-benchmarks are variants of one operation, one of them the baseline
# (named BASELINE, default "gosdk"), COUNT times (default 6) so that variants
# alternate on a noisy machine. Extra go test flags come from BENCHFLAGS.
# Prints the median calls/s, p50 and p99 latency of each variant
# and its ratios to the baseline: calls/s ratio > 1 and p50 ratio < 1 mean
# faster than the baseline.
set -euo pipefail
cd "$(dirname "$0")/.."
pkg=${1:?usage: ratio.sh PKG BENCHMARK [COUNT [BASELINE]]}
bench=${2:?usage: ratio.sh PKG BENCHMARK [COUNT [BASELINE]]}
count=${3:-6}
baseline=${4:-gosdk}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for _ in $(seq "$count"); do
	go test -run='^$' -bench="^${bench}\$" -benchmem -count=1 ${BENCHFLAGS:-} "$pkg" | grep "^${bench}/"
done | tee "$out" >&2

awk -v bench="$bench" -v base="$baseline" '
function median(list,    n, a, i, j, t) {
	n = split(list, a, " ")
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
$1 ~ "^" bench "/" {
	split($1, name, "/"); sub(/-[0-9]+$/, "", name[2])
	if (!(name[2] in rate)) order[++n] = name[2]
	for (i = 3; i < NF; i++) {
		if ($(i + 1) == "calls/s") rate[name[2]] = rate[name[2]] " " $i
		if ($(i + 1) == "p50-µs") p50[name[2]] = p50[name[2]] " " $i
		if ($(i + 1) == "p99-µs") p99[name[2]] = p99[name[2]] " " $i
	}
}
END {
	if (!(base in rate)) { print "no " base " baseline in the results" > "/dev/stderr"; exit 1 }
	rb = median(rate[base]); pb = median(p50[base]); qb = median(p99[base])
	printf "%-14s %10s %10s %10s %14s %12s %12s\n", "variant", "calls/s", "p50 µs", "p99 µs", "calls/s ratio", "p50 ratio", "p99 ratio"
	for (k = 1; k <= n; k++) {
		v = order[k]; r = median(rate[v]); p = median(p50[v]); q = median(p99[v])
		printf "%-14s %10.0f %10.1f %10.1f %13.2fx %11.2fx %11.2fx\n", v, r, p, q, r / rb, p / pb, (qb > 0 ? q / qb : 0)
	}
	printf "(medians of %d runs; ratios against %s)\n", split(rate[base], x, " "), base
}' "$out"
