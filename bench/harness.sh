#!/usr/bin/env bash
# bench/harness.sh [COUNT]: one read-only tool call (read_file of a small
# file on the filesserver fixture, over stdio) bare through client/
# ("client", the baseline) and as a model's tool call through the harness
# ("harness": policy, validation, synced events, artifact, result; and
# "harness-think", with a model that takes 2 ms a turn, which is not
# counted, against "client-think", bare calls 2 ms apart), plus one synced
# event ("append") and one artifact with the event naming it, synced
# together ("artifact"), alone.
# Runs the benchmark COUNT times (default 6) and prints the median calls/s
# and p50 latency of each variant and its ratio to the baseline, then each
# harness variant's overhead per call (its p50 less the bare call's) and
# that overhead's ratio to the bare call's p50.
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-6}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for _ in $(seq "$count"); do
	go test -run='^$' -bench='^BenchmarkReadOnlyCall$' -benchtime=400x -count=1 ./harness/ | grep '^BenchmarkReadOnlyCall/'
done | tee "$out" >&2

awk '
function median(list,    n, a, i, j, t) {
	n = split(list, a, " ")
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{
	split($1, name, "/"); sub(/-[0-9]+$/, "", name[2])
	if (!(name[2] in rate)) order[++n] = name[2]
	for (i = 3; i < NF; i++) {
		if ($(i + 1) == "calls/s") rate[name[2]] = rate[name[2]] " " $i
		if ($(i + 1) == "p50-µs") p50[name[2]] = p50[name[2]] " " $i
	}
}
END {
	if (!("client" in rate)) { print "no client baseline in the results" > "/dev/stderr"; exit 1 }
	rb = median(rate["client"]); pb = median(p50["client"])
	printf "%-13s %10s %10s %14s %12s\n", "variant", "calls/s", "p50 µs", "calls/s ratio", "p50 ratio"
	for (k = 1; k <= n; k++) {
		v = order[k]; r = median(rate[v]); p = median(p50[v])
		printf "%-13s %10.0f %10.1f %13.2fx %11.2fx\n", v, r, p, r / rb, p / pb
	}
	printf "(medians of %d runs; ratios against client)\n", split(rate["client"], x, " ")
	# The issue counts the overhead of a harness call as its p50 less
	# the p50 of a bare call, and compares that with the bare call.
	# harness-think is compared with client-think, a bare call after the
	# same pause: a server idle for a while answers later. (No single
	# quote in this program: it is one quoted shell word.)
	for (k = 1; k <= n; k++) {
		v = order[k]
		if (v !~ /^harness/) continue
		base = "client"
		if (v ~ /-think$/ && ("client-think" in p50)) base = "client-think"
		b = median(p50[base]); o = median(p50[v]) - b
		printf "%s overhead per call: %.1f µs - %.1f µs = %.1f µs, %.2fx a bare %s call\n", v, median(p50[v]), b, o, o / b, base
	}
}' "$out"
