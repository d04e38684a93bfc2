#!/usr/bin/env bash
# Benchmarks go_navigate (tools/gonav) against the gopls CLI v0.23.0 on
# the same tree, measured in the same run, and prints every figure of
# issue 16 side by side: go-git (HEAD~1 of a clone of
# ../shared/corpora/go-git.bundle, with a commit on top that changes 20
# files) and, with -std, the standard library (GOROOT/src committed
# alone, with such a commit too).
#
# Usage: bench/gonav.sh [-n PAIRS] [-std | -stdonly] [-nocompare] [-base DIR]
#
#   first answer   a new process's first references answer (export, go list
#                  in the sandbox, type-checking, the query) against
#                  `gopls references -d` in a new process: wall seconds and
#                  peak RSS from /usr/bin/time, pairs run alternately
#                  (A B A B ...) so each ratio holds while the machine's
#                  speed drifts; medians [min-max]; one discarded run of
#                  each comes first, so that gopls's go list finds the go
#                  command's build cache warm, as a user's does. Twice: with empty
#                  caches on both sides (go_navigate's cache directory,
#                  gopls's GOPLSCACHE), and with caches an earlier process
#                  filled (go_navigate: the export, go list's listing, and
#                  every package's types and index, the earlier process
#                  waiting for the indexes it builds after its answer;
#                  gopls: its file cache)
#   warm queries   the 30 queries of the corpus's gopls comparison on a
#                  loaded revision: median, 99th percentile and slowest
#   second load    HEAD after HEAD~1: its load time, wall and CPU, as a share
#                  of the first, PAIRS times (with -base alternately with the
#                  base's); PROFILE=FILE writes a CPU profile of one more
#                  second load to FILE
#   -std           the standard library too, then its 30 queries asked of
#                  go_navigate and of gopls (TestAgainstGoplsStdlib):
#                  tens of minutes, and gigabytes of memory
#   -stdonly       the standard library, not go-git
#   -nocompare     leaves the standard library's 30 queries out
#   -base DIR      first answers of the checkout DIR (another revision of
#                  repo-mcp) too, in each pair (ours, base, gopls), and
#                  ours / base
#
# The load average is printed before and after each corpus: the figures
# are only as quiet as the machine was.
set -euo pipefail

pairs=3
std=0
gogit=1
compare=1
base=
while [ $# -gt 0 ]; do
	case "$1" in
	-n) pairs=$2; shift 2 ;;
	-std) std=1; shift ;;
	-stdonly) std=1; gogit=0; shift ;;
	-nocompare) compare=0; shift ;;
	-base) base=$(cd "$2" && pwd); shift 2 ;;
	*) echo "usage: $0 [-n PAIRS] [-std | -stdonly] [-nocompare] [-base DIR]" >&2; exit 2 ;;
	esac
done

repo=$(cd "$(dirname "$0")/.." && pwd)
gopls=${REPO_MCP_PEERS:-$HOME/.cache/repo-mcp-peers}/gobin/gopls
[ -x "$gopls" ] || { echo "gopls is not installed: run .ci/install-peers" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/gonav-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
bin=$work/gonav.test
(cd "$repo" && go test -c -o "$bin" ./tools/gonav)
[ -z "$base" ] || (cd "$base" && go test -c -o "$work/base.test" ./tools/gonav)

# change20 STEP: commits a change of 20 Go files (every STEP-th non-test
# file gets a function) on top of the repository in the current directory.
change20() {
	local n=0 f
	for f in $(git ls-files '*.go' | grep -v -e _test.go -e testdata | awk -v s="$1" 'NR % s == 1' | head -20); do
		printf '\n// benchAdded%d is added by bench/gonav.sh.\nfunc benchAdded%d() int { return %d }\n' $n $n $n >>"$f"
		n=$((n + 1))
	done
	git -c user.name=bench -c user.email=bench@example.com commit -qam "bench: 20 changed files"
}

# timed CMD...: runs a command, prints "wall_s peak_kib"; a command that
# fails stops the benchmark with its error output.
timed() {
	if ! /usr/bin/time -o "$work/time" -f '%e %M' "$@" >/dev/null 2>"$work/err"; then
		echo "failed: $*" >&2
		tail -20 "$work/err" >&2
		exit 1
	fi
	cat "$work/time"
}

# stats: reads numbers, prints "median [min-max]".
stats() {
	sort -g | awk '{a[NR]=$1} END {m = (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2; printf "%.2f [%.2f-%.2f]", m, a[1], a[NR]}'
}

# ours [CACHE [BIN]]: go_navigate's first references answer in a new
# process, with CACHE as its cache directory (a new empty one when
# empty), of the test binary BIN (ours when not given). With FILL=1 in
# the environment, the process waits after its answer for the indexes
# it builds in the background, and their entries: it fills the cache.
ours() {
	timed env GONAV_BENCH_CACHE="${1:-}" GONAV_BENCH_FILL="${FILL:-}" "${2:-$bin}" -test.run '^$' -test.bench '^BenchmarkFirstReferences$' -test.benchtime 1x
}

# theirs CACHE: gopls's first references answer in a new process, in
# the HEAD~1 tree, with CACHE as its file cache.
theirs() {
	(cd "$tree" && timed env GOPLSCACHE="$1" "${gopls_env[@]}" "$gopls" references -d "$position")
}

# firstAnswers LABEL FILLED: pairs of first answers, both sides' caches
# empty, or filled by an earlier process of each (FILLED=1).
firstAnswers() {
	local label=$1 filled=$2 i ow ok gw gk bw bk
	: >"$work/ours" >"$work/gopls" >"$work/ratio" >"$work/base" >"$work/baseratio"
	if [ "$filled" = 0 ]; then
		# One discarded run of each first: gopls's go list -compiled fills
		# the go command's build cache (GOCACHE, not GOPLSCACHE): on a new
		# 2-core machine the standard library's first gopls run took 70 s,
		# the third 22 s. Ours warms the page cache of the tree.
		theirs "$work/goplswarm" >/dev/null
		rm -rf "$work/goplswarm"
		ours >/dev/null
	fi
	if [ "$filled" = 1 ]; then
		rm -rf "$work/ourcache" "$work/goplscache" "$work/basecache"
		FILL=1 ours "$work/ourcache" >/dev/null
		[ -z "$base" ] || FILL=1 ours "$work/basecache" "$work/base.test" >/dev/null
		theirs "$work/goplscache" >/dev/null
	fi
	for i in $(seq "$pairs"); do
		if [ "$filled" = 1 ]; then
			ours "$work/ourcache" >"$work/o"
			[ -z "$base" ] || ours "$work/basecache" "$work/base.test" >"$work/b"
		else
			rm -rf "$work/goplscache"
			ours >"$work/o"
			[ -z "$base" ] || ours "" "$work/base.test" >"$work/b"
		fi
		theirs "$work/goplscache" >"$work/g"
		read -r ow ok <"$work/o"
		read -r gw gk <"$work/g"
		echo "$ow $ok" >>"$work/ours"
		echo "$gw $gk" >>"$work/gopls"
		awk -v ow="$ow" -v gw="$gw" -v ok="$ok" -v gk="$gk" 'BEGIN {print ow/gw, ok/gk}' >>"$work/ratio"
		if [ -n "$base" ]; then
			read -r bw bk <"$work/b"
			echo "$bw $bk" >>"$work/base"
			awk -v ow="$ow" -v bw="$bw" -v ok="$ok" -v bk="$bk" 'BEGIN {print ow/bw, ok/bk}' >>"$work/baseratio"
			echo "  $corpus_name $label pair $i: base ${bw}s ${bk}KiB" >&2
		fi
		echo "  $corpus_name $label pair $i: go_navigate ${ow}s ${ok}KiB, gopls ${gw}s ${gk}KiB" >&2
	done
	echo "  first references answer, $label ($pairs pairs; seconds, peak MiB):"
	printf '    %-12s %s s   %s MiB\n' "go_navigate" "$(cut -d' ' -f1 "$work/ours" | stats)" "$(awk '{print $2/1024}' "$work/ours" | stats)"
	[ -z "$base" ] || printf '    %-12s %s s   %s MiB\n' "base" "$(cut -d' ' -f1 "$work/base" | stats)" "$(awk '{print $2/1024}' "$work/base" | stats)"
	printf '    %-12s %s s   %s MiB\n' "gopls CLI" "$(cut -d' ' -f1 "$work/gopls" | stats)" "$(awk '{print $2/1024}' "$work/gopls" | stats)"
	printf '    %-12s %s x time   %s x memory (targets: 0.5, 0.5)\n' "ratio" "$(cut -d' ' -f1 "$work/ratio" | stats)" "$(cut -d' ' -f2 "$work/ratio" | stats)"
	[ -z "$base" ] || printf '    %-12s %s x time   %s x memory\n' "ours / base" "$(cut -d' ' -f1 "$work/baseratio" | stats)" "$(cut -d' ' -f2 "$work/baseratio" | stats)"
}

# metrics BENCH NAMES [BIN]: runs one op of a benchmark of the test
# binary BIN (ours when not given) and prints the named metrics it
# reports, "name value" a line, in the order of NAMES.
metrics() {
	"${3:-$bin}" -test.run '^$' -test.bench "^$1\$" -test.benchtime 1x 2>&1 |
		awk -v names="$2" '/ns\/op/ {for (i = 1; i < NF; i++) v[$(i+1)] = $i; n = split(names, want, " "); for (j = 1; j <= n; j++) if (want[j] in v) print want[j], v[want[j]]}'
}

# corpus: measures the corpus the variables above name.
corpus() {
	echo "$corpus_name: load $(cut -d' ' -f1-3 /proc/loadavg) at the start"
	firstAnswers "empty caches" 0
	firstAnswers "caches filled by an earlier process" 1
	echo "  warm queries (the 30 of the gopls comparison, one loaded revision):"
	metrics BenchmarkWarmQueries "p50-ms p99-ms max-ms" | awk '{printf "    %-8s %s ms\n", $1, $2}'
	[ -z "$base" ] || metrics BenchmarkWarmQueries "p50-ms p99-ms max-ms" "$work/base.test" | awk '{printf "    base %-8s %s ms\n", $1, $2}'
	echo "    (target: p50 under 50 ms)"
	secondRevision
	echo "$corpus_name: load $(cut -d' ' -f1-3 /proc/loadavg) at the end"
}

# secondRevision: pairs of second loads (ours, and base with -base,
# alternately), each in a new process; medians [min-max] of the second
# load's wall time and CPU time as shares of the first's. With PROFILE
# set, the last of ours writes a CPU profile of its second load there.
secondRevision() {
	local i name
	: >"$work/second-ours" >"$work/second-base"
	for i in $(seq "$pairs"); do
		metrics BenchmarkSecondRevision "second-% second-cpu-% second-ms second-checked packages" >"$work/m"
		awk '{printf "%s ", $2} END {print ""}' "$work/m" >>"$work/second-ours"
		[ -z "$base" ] || metrics BenchmarkSecondRevision "second-% second-cpu-% second-ms second-checked packages" "$work/base.test" |
			awk '{printf "%s ", $2} END {print ""}' >>"$work/second-base"
	done
	[ -z "${PROFILE:-}" ] || GONAV_BENCH_PROFILE=$PROFILE metrics BenchmarkSecondRevision "second-%" >/dev/null
	echo "  second revision (20 changed files) after the first, $pairs runs (metrics in the order: second-% second-cpu-% second-ms second-checked packages):"
	for name in ours base; do
		[ -s "$work/second-$name" ] || continue
		printf '    %-5s wall %s %%   cpu %s %%   second load %s ms   checked %s of %s\n' "$name" \
			"$(cut -d' ' -f1 "$work/second-$name" | stats)" "$(cut -d' ' -f2 "$work/second-$name" | stats)" \
			"$(cut -d' ' -f3 "$work/second-$name" | stats)" "$(cut -d' ' -f4 "$work/second-$name" | head -1)" "$(cut -d' ' -f5 "$work/second-$name" | head -1)"
	done
	echo "    (target: wall under 10 %)"
}

echo "machine: $(nproc) cores; $(go version | cut -d' ' -f3); $("$gopls" version | head -1)"

# go-git: gopls reads a working tree, HEAD~1's, the revision ours answers at.
git clone -q "$repo/../shared/corpora/go-git.bundle" "$work/go-git"
(cd "$work/go-git" && change20 10 && git worktree add -q "$work/go-git-tree" HEAD~1)
corpus_name=go-git
export GONAV_BENCH_CORPUS=$work/go-git
tree=$work/go-git-tree
position=plumbing/hash.go:23:6
gopls_env=(GOFLAGS=-mod=readonly GOPROXY=off)
[ "$gogit" = 0 ] || corpus

[ "$std" = 1 ] || exit 0

# The standard library: src committed alone is a Go distribution's tree,
# which go_navigate lists with GOROOT set to its export. gopls is given
# the HEAD~1 tree as its GOROOT; it lists packages with -compiled, which
# wants the compiler, so the tree borrows the server's pkg directory (a
# link beside src, outside the revision). GOFLAGS is cleared: module std
# uses its vendor directory, which -mod=readonly would refuse.
goroot=$(go env GOROOT)
mkdir -p "$work/goroot" "$work/goroot-tree"
cp -a "$goroot/src" "$work/goroot/src"
(
	cd "$work/goroot/src"
	git init -q -b main && git config gc.auto 0 && git add -A
	git -c user.name=bench -c user.email=bench@example.com commit -q -m "snapshot of GOROOT/src"
	change20 250
	git gc -q
	git worktree add -q "$work/goroot-tree/src" HEAD~1
)
ln -s "$goroot/pkg" "$work/goroot-tree/pkg"
corpus_name="standard library"
export GONAV_BENCH_CORPUS=$work/goroot/src GONAV_BENCH_STD=1
tree=$work/goroot-tree/src
position=strings/builder.go:$(grep -n '^type Builder struct' "$tree/strings/builder.go" | cut -d: -f1):6
gopls_env=(GOROOT="$work/goroot-tree" GOFLAGS= GOPROXY=off)
corpus

[ "$compare" = 1 ] || exit 0
echo "standard library against gopls (go_navigate and gopls with GOROOT set to the committed tree):"
unset GONAV_BENCH_CORPUS GONAV_BENCH_STD
REPO_MCP_PEERS=${REPO_MCP_PEERS:-$HOME/.cache/repo-mcp-peers} REPO_MCP_GONAV_STDLIB=1 \
	"$bin" -test.run '^TestAgainstGoplsStdlib$' -test.v -test.timeout 60m 2>&1 |
	awk '/identical|ours only|explained|^(--- )?(PASS|FAIL)/ {sub(/^[ \t]+[a-z_]+\.go:[0-9]+: /, "  "); print}'
