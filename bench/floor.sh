#!/usr/bin/env bash
# bench/floor.sh [ROUNDS]: how close `repo-mcp version` is to the floor its
# dependencies set. Builds, static as the binary is shipped, from mains
# generated in a temporary directory:
#   hello     a Go program that prints a line (the runtime's own start)
#   floor     the same, importing what any MCP server for git needs:
#             go-sdk's mcp, net/http, go-git and go/types
#   deps      the same, importing every package outside this module that
#             this module's packages import and repo-mcp links
#   repo-mcp  this tree's, running `version`
# then runs each, and git --version, under `perf stat -r 10` in ROUNDS
# interleaved rounds (default 5) and prints the medians of CPU (task-clock),
# wall time and page faults, and each one's ratio to git's.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
command -v perf >/dev/null || { echo "floor.sh: needs perf (linux-perf)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# main writes a program that imports the packages named on stdin.
main() {
	echo 'package main'
	echo 'import ('
	echo '	"fmt"'
	sed 's/.*/	_ "&"/'
	echo ')'
	echo 'func main() { fmt.Println("floor") }'
}
mkdir "$tmp/hello" "$tmp/floor" "$tmp/deps"
main </dev/null >"$tmp/hello/main.go"
printf '%s\n' github.com/modelcontextprotocol/go-sdk/mcp net/http github.com/go-git/go-git/v5 go/types | main >"$tmp/floor/main.go"
module=$(go list -m)
# Packages outside the module imported directly by one of its packages that
# the binary links (the binary's dependencies, not the tests' or tools').
go list -deps ./cmd/repo-mcp | sort >"$tmp/linked"
go list -f '{{join .Imports "\n"}}' ./... | grep -v "^$module" | sort -u >"$tmp/direct"
comm -12 "$tmp/linked" "$tmp/direct" | main >"$tmp/deps/main.go"
for b in hello floor deps; do
	CGO_ENABLED=0 go build -o "$tmp/$b.bin" "$tmp/$b/main.go"
done
CGO_ENABLED=0 go build -o "$tmp/repo-mcp" ./cmd/repo-mcp
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
for b in hello floor deps; do
	printf '%-9s %3d packages initialized, %9d bytes\n' "$b" \
		"$(GODEBUG=inittrace=1 "$tmp/$b.bin" 2>&1 >/dev/null | grep -c '^init ')" "$(stat -c %s "$tmp/$b.bin")"
done
printf '%-9s %3d packages initialized, %9d bytes\n' repo-mcp \
	"$(GODEBUG=inittrace=1 "$tmp/repo-mcp" version 2>&1 >/dev/null | grep -c '^init ')" "$(stat -c %s "$tmp/repo-mcp")"

for _ in $(seq "$rounds"); do
	for v in git hello floor deps repo-mcp; do
		case $v in
		git) cmd=(git --version) ;;
		repo-mcp) cmd=("$tmp/repo-mcp" version) ;;
		*) cmd=("$tmp/$v.bin") ;;
		esac
		perf stat -x, -r 10 -e task-clock,page-faults "${cmd[@]}" 2>&1 >/dev/null |
			awk -F, -v v="$v" '$3 == "task-clock" { cpu = $1 } $3 == "page-faults" { pf = $1 } END { print v, cpu, pf }'
		# Wall time: perf's CSV output leaves it out; time the same 10 runs.
		start=$(date +%s%N)
		for _ in $(seq 10); do "${cmd[@]}" >/dev/null; done
		echo "$v wall $((($(date +%s%N) - start) / 10000))"
	done
done | awk '
function median(list,    n, a, i, j, t) {
	n = split(list, a, " ")
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
$2 == "wall" { wall[$1] = wall[$1] " " $3 / 1000; next }
{ if (!($1 in cpu)) order[++n] = $1; cpu[$1] = cpu[$1] " " $2; pf[$1] = pf[$1] " " $3 }
END {
	printf "%-9s %9s %9s %9s %11s %11s\n", "variant", "CPU ms", "wall ms", "faults", "CPU ratio", "wall ratio"
	cg = median(cpu["git"]); wg = median(wall["git"])
	for (k = 1; k <= n; k++) {
		v = order[k]; c = median(cpu[v]); w = median(wall[v])
		printf "%-9s %9.2f %9.2f %9d %10.2fx %10.2fx\n", v, c, w, median(pf[v]), c / cg, w / wg
	}
	printf "(medians of %d rounds of 10 runs each; ratios against git --version)\n", split(cpu["git"], x, " ")
}'
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
