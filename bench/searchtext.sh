#!/usr/bin/env bash
# Benchmarks search_text's index (tools/searchtext) against git grep on the
# same commit and ripgrep on a checkout of it, measured in the same run, on
# $(go env GOROOT)/src committed (bench/gosource.sh; REPO_MCP_BENCH_REPO
# names one already made).
#
# Usage: bench/searchtext.sh [-n RUNS] [-base DIR]
#
# -base DIR measures the checkout in DIR too (a worktree of an earlier
# commit), in the same run, each of its figures printed before ours.
#
# Cold builds and git grep passes alternate (A B A B ...) so that each ratio
# holds while the machine's speed drifts; figures are medians [min-max]. On
# a shared machine wall time measures the neighbours too: CPU time (user +
# system) is printed beside it. Peak RSS is the whole process's, from
# /usr/bin/time.
set -euo pipefail

runs=3
base=
while [ $# -gt 0 ]; do
	case "$1" in
	-n) runs=$2; shift 2 ;;
	-base) base=$(cd "$2" && pwd); shift 2 ;;
	*) echo "usage: $0 [-n RUNS] [-base DIR]" >&2; exit 2 ;;
	esac
done

repo=$(cd "$(dirname "$0")/.." && pwd)
. "$repo/bench/gosource.sh"
work=$(mktemp -d "${TMPDIR:-/tmp}/searchtext-bench.XXXXXX")
trap 'rm -rf "$work" ${bench_tmp:+"$bench_tmp"}' EXIT
(cd "$repo" && go test -c -o "$work/ours.test" ./tools/searchtext)
labels=ours
if [ -n "$base" ]; then
	(cd "$base" && go test -c -o "$work/base.test" ./tools/searchtext)
	labels="base ours"
fi
bin=$work/ours.test

# bench NAME: one op of a Go benchmark in a new process; prints the
# benchmark's line followed by "TIME wall_s peak_kib".
bench() {
	/usr/bin/time -f 'TIME %e %M' "$bin" -test.run '^$' -test.bench "^Benchmark$1\$" -test.benchtime 1x 2>&1
}
# field LINE UNIT: the value before UNIT in a benchmark line.
field() { awk -v u="$2" '/ns\/op/ { for (i = 1; i < NF; i++) if ($(i+1) == u) print $i }' <<<"$1"; }
stats() {
	sort -g | awk '{v[NR] = $1} END {
		if (NR == 0) { print "n/a"; exit }
		m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%.3g [%.3g-%.3g]", m, v[1], v[NR] }'
}

echo "# searchtext benchmark, $(date -u +%Y-%m-%dT%H:%MZ)"
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); $(go version | cut -d' ' -f3); $(git --version); $(rg --version | head -1)"
bench GitGrepPass >/dev/null # warms the page cache

measure() {
	echo
	echo "## Cold index of HEAD vs one git grep pass over the tree (n=$runs pairs)"
	for f in cold cold_cpu git git_cpu ratio cpu_ratio rss second second_ratio; do : >"$work/$f"; done
	for _ in $(seq "$runs"); do
		c=$(bench ColdIndex); g=$(bench GitGrepPass); s=$(bench SecondRevision)
		c_ns=$(field "$c" ns/op); g_ns=$(field "$g" ns/op); s_ns=$(field "$s" ns/op)
		c_cpu=$(field "$c" cpu-s/op); g_cpu=$(field "$g" cpu-s/op)
		echo "$c_ns" >>"$work/cold"; echo "$c_cpu" >>"$work/cold_cpu"; echo "$g_ns" >>"$work/git"; echo "$g_cpu" >>"$work/git_cpu"
		awk -v a="$c_ns" -v b="$g_ns" 'BEGIN {print a / b}' >>"$work/ratio"
		awk -v a="$c_cpu" -v b="$g_cpu" 'BEGIN {print a / b}' >>"$work/cpu_ratio"
		awk '/^TIME/ {print $3 / 1024}' <<<"$c" >>"$work/rss"
		echo "$s_ns" >>"$work/second"
		awk -v a="$s_ns" -v b="$c_ns" 'BEGIN {print a / b}' >>"$work/second_ratio"
		index_bytes=$(field "$c" index-bytes); corpus_bytes=$(field "$c" corpus-bytes)
	done
	echo "cold index:         $(awk '{print $1 / 1e9}' "$work/cold" | stats) s wall, $(stats <"$work/cold_cpu") s CPU"
	echo "git grep, one pass: $(awk '{print $1 / 1e9}' "$work/git" | stats) s wall, $(stats <"$work/git_cpu") s CPU"
	echo "index / git grep:   $(stats <"$work/ratio") wall, $(stats <"$work/cpu_ratio") CPU   (target <= 5)"
	echo "peak RSS, building: $(stats <"$work/rss") MiB   (target <= 512)"
	echo "index on disk:      $index_bytes bytes for $corpus_bytes bytes of files: $(awk -v a="$index_bytes" -v b="$corpus_bytes" 'BEGIN {printf "%.3f", a / b}')x   (target <= 0.5)"
	echo "second revision (20 files changed): $(awk '{print $1 / 1e6}' "$work/second" | stats) ms; / cold: $(stats <"$work/second_ratio")   (target <= 0.05)"

	echo
	echo "## Warm queries: the 60 comparison queries, each once per tool, interleaved"
	q=$("$bin" -test.run '^$' -test.bench '^BenchmarkQueries$' -test.benchtime 1x 2>&1) || true
	grep -q ns/op <<<"$q" || { echo "BenchmarkQueries failed: $(tail -5 <<<"$q")"; return; }
	ours50=$(field "$q" ours-p50-ms); git50=$(field "$q" git-p50-ms); rg50=$(field "$q" rg-p50-ms)
	echo "search_text: p50 $ours50 ms, p99 $(field "$q" ours-p99-ms) ms, max $(field "$q" ours-max-ms) ms"
	echo "git grep:    p50 $git50 ms, p99 $(field "$q" git-p99-ms) ms"
	echo "ripgrep:     p50 $rg50 ms, p99 $(field "$q" rg-p99-ms) ms"
	echo "p50 ours / git grep: $(awk -v a="$ours50" -v b="$git50" 'BEGIN {printf "%.3f", a / b}')   (target <= 0.05)"
	echo "p50 ours / ripgrep:  $(awk -v a="$ours50" -v b="$rg50" 'BEGIN {printf "%.3f", a / b}')   (target <= 0.10)"
	echo "slowest query against git grep on the same query: $(field "$q" max-ours/git)x   (target < 1)"
}

for label in $labels; do
	bin=$work/$label.test
	echo
	echo "# $label"
	measure
done
