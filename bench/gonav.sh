#!/usr/bin/env bash
# Benchmarks go_navigate (tools/gonav) against the gopls CLI v0.23.0 on
# the same tree, measured in the same run: go-git at HEAD~1 of a clone of
# ../shared/corpora/go-git.bundle with a commit on top that changes 20
# files.
#
# Usage: bench/gonav.sh [-n PAIRS] [-std]
#
#   first answer   a new process's first references answer (export, go list
#                  in the sandbox, type-checking, the query) against
#                  `gopls references -d` in a new process: wall seconds and
#                  peak RSS from /usr/bin/time, pairs run alternately
#                  (A B A B ...) so each ratio holds while the machine's
#                  speed drifts; medians [min-max]
#   disk-warm      the first answer of a new process whose cache directory
#                  an earlier process filled (export and dependencies' types)
#   warm p50       the 30 queries of the gopls comparison on a loaded
#                  revision: median, 99th percentile and slowest
#   second load    HEAD after HEAD~1: its load time as a share of the first
#   -std           then the 30 standard-library queries asked of go_navigate
#                  and of gopls on GOROOT/src committed as a repository
#                  (TestAgainstGoplsStdlib: minutes, and gigabytes of memory)
set -euo pipefail

pairs=3
std=0
while [ $# -gt 0 ]; do
	case "$1" in
	-n) pairs=$2; shift 2 ;;
	-std) std=1; shift ;;
	*) echo "usage: $0 [-n PAIRS] [-std]" >&2; exit 2 ;;
	esac
done

repo=$(cd "$(dirname "$0")/.." && pwd)
gopls=${REPO_MCP_PEERS:-$HOME/.cache/repo-mcp-peers}/gobin/gopls
[ -x "$gopls" ] || { echo "gopls is not installed: run .ci/install-peers" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/gonav-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
bin=$work/gonav.test
(cd "$repo" && go test -c -o "$bin" ./tools/gonav)

corpus=$work/go-git
git clone -q "$repo/../shared/corpora/go-git.bundle" "$corpus"
(
	cd "$corpus"
	n=0
	for f in $(git ls-files '*.go' | grep -v -e _test.go -e testdata | awk 'NR % 10 == 1' | head -20); do
		printf '\n// benchAdded%d is added by bench/gonav.sh.\nfunc benchAdded%d() int { return %d }\n' $n $n $n >>"$f"
		n=$((n + 1))
	done
	git -c user.name=bench -c user.email=bench@example.com commit -qam "bench: 20 changed files"
	# gopls reads a working tree: HEAD~1's, the revision ours answers at.
	git worktree add -q "$work/tree" HEAD~1
)
export GONAV_BENCH_CORPUS=$corpus

# timed CMD...: runs a command, prints "wall_s peak_kib".
timed() {
	local out
	out=$( { /usr/bin/time -f 'TIME %e %M' "$@" >/dev/null 2>"$work/err"; } 2>&1; cat "$work/err")
	awk '/^TIME/ {print $2, $3}' <<<"$out" | tail -1
}

# stats: reads numbers, prints "median [min-max]".
stats() {
	sort -g | awk '{a[NR]=$1} END {m = (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2; printf "%.2f [%.2f-%.2f]", m, a[1], a[NR]}'
}

: >"$work/ours" >"$work/gopls" >"$work/ratio"
for i in $(seq "$pairs"); do
	read -r ow ok < <(timed "$bin" -test.run '^$' -test.bench '^BenchmarkFirstReferences$' -test.benchtime 1x)
	read -r gw gk < <(cd "$work/tree" && timed env GOFLAGS=-mod=readonly GOPROXY=off "$gopls" references -d plumbing/hash.go:23:6)
	echo "$ow $ok" >>"$work/ours"
	echo "$gw $gk" >>"$work/gopls"
	awk -v ow="$ow" -v gw="$gw" -v ok="$ok" -v gk="$gk" 'BEGIN {print ow/gw, ok/gk}' >>"$work/ratio"
	echo "pair $i: go_navigate ${ow}s ${ok}KiB, gopls ${gw}s ${gk}KiB" >&2
done

echo "first references answer, process start to answer (go-git, $pairs pairs):"
printf '  %-12s %s s   %s MiB\n' "go_navigate" "$(cut -d' ' -f1 "$work/ours" | stats)" "$(awk '{print $2/1024}' "$work/ours" | stats)"
printf '  %-12s %s s   %s MiB\n' "gopls CLI" "$(cut -d' ' -f1 "$work/gopls" | stats)" "$(awk '{print $2/1024}' "$work/gopls" | stats)"
printf '  %-12s %s x time   %s x memory (targets: 0.5, 0.5)\n' "ratio" "$(cut -d' ' -f1 "$work/ratio" | stats)" "$(cut -d' ' -f2 "$work/ratio" | stats)"

# A new process whose cache directory an earlier one filled: the export
# and the dependencies' type information come from disk.
export GONAV_BENCH_CACHE=$work/cache
"$bin" -test.run '^$' -test.bench '^BenchmarkFirstReferences$' -test.benchtime 1x >/dev/null
: >"$work/warm"
for i in $(seq "$pairs"); do
	timed "$bin" -test.run '^$' -test.bench '^BenchmarkFirstReferences$' -test.benchtime 1x >>"$work/warm"
done
unset GONAV_BENCH_CACHE
echo "first references answer of a new process, cache directory filled by an earlier one:"
printf '  %-12s %s s   %s MiB\n' "go_navigate" "$(cut -d' ' -f1 "$work/warm" | stats)" "$(awk '{print $2/1024}' "$work/warm" | stats)"

echo "warm queries (the 30 of the gopls comparison, one loaded revision):"
"$bin" -test.run '^$' -test.bench '^BenchmarkWarmQueries$' -test.benchtime 1x 2>&1 |
	awk '/ns\/op/ {for (i = 1; i < NF; i++) if ($(i+1) ~ /-ms$/) printf "  %s %s ms\n", $(i+1), $i}'
echo "second revision (20 changed files) after the first:"
"$bin" -test.run '^$' -test.bench '^BenchmarkSecondRevision$' -test.benchtime 1x 2>&1 |
	awk '/ns\/op/ {for (i = 1; i < NF; i++) if ($(i+1) ~ /^(first-ms|second-ms|second-%|second-checked|packages)$/) printf "  %s %s\n", $(i+1), $i}'
echo "  (target: second-% under 10)"

if [ "$std" = 1 ]; then
	echo "standard library against gopls (go_navigate and gopls with GOROOT set to the committed tree):"
	REPO_MCP_PEERS=${REPO_MCP_PEERS:-$HOME/.cache/repo-mcp-peers} REPO_MCP_GONAV_STDLIB=1 \
		"$bin" -test.run '^TestAgainstGoplsStdlib$' -test.v -test.timeout 60m 2>&1 |
		awk '/identical|ours only|explained|^(--- )?(PASS|FAIL)/ {sub(/^[ \t]+[a-z_]+\.go:[0-9]+: /, "  "); print}'
fi
