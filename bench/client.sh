#!/usr/bin/env bash
# bench/client.sh [COUNT]: a trivial tools/call through client/ and through the
# go-sdk client, against the same go-sdk server, in one run. Prints the median
# calls/s and p50 latency of each over COUNT runs (default 6) and their ratio
# (>1 calls/s ratio and <1 p50 ratio mean client/ is faster).
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-6}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
# One run per iteration, so the two clients alternate on a noisy machine.
for _ in $(seq "$count"); do
	go test -run='^$' -bench='^BenchmarkCall$' -benchmem -count=1 ./client/ | grep '^BenchmarkCall/'
done | tee "$out" >&2

awk '
function median(list,    n, a, i, j, t) {
	n = split(list, a, " ")
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
/^BenchmarkCall\// {
	split($1, name, "/"); sub(/-[0-9]+$/, "", name[2])
	for (i = 3; i < NF; i++) {
		if ($(i + 1) == "calls/s") rate[name[2]] = rate[name[2]] " " $i
		if ($(i + 1) == "p50-µs") p50[name[2]] = p50[name[2]] " " $i
	}
}
END {
	if (!("ours" in rate) || !("gosdk" in rate)) { print "missing benchmark results" > "/dev/stderr"; exit 1 }
	ro = median(rate["ours"]); rg = median(rate["gosdk"])
	po = median(p50["ours"]); pg = median(p50["gosdk"])
	printf "%-8s %12s %12s\n", "client", "calls/s", "p50 µs"
	printf "%-8s %12.0f %12.1f\n", "ours", ro, po
	printf "%-8s %12.0f %12.1f\n", "gosdk", rg, pg
	printf "ratio ours/gosdk: calls/s %.2fx, p50 %.2fx (median of %d runs)\n", ro / rg, po / pg, split(rate["ours"], x, " ")
}' "$out"
