#!/usr/bin/env bash
# bench/floor.sh [ROUNDS [BASE]]: how close `repo-mcp version` is to the
# floor its dependencies set, and the CPU of a cold start. Builds, static as the binary is shipped, from mains
# generated in a temporary directory:
#   hello     a Go program that prints a line (the runtime's own start)
#   floor     the same, importing what any MCP server for git needs:
#             go-sdk's mcp, net/http, go-git and go/types
#   deps      the same, importing every package outside this module that
#             this module's packages import and repo-mcp links
#   repo-mcp  this tree's, running `version`
#   base      with BASE (a revision; default none), its build's `version`
# then runs each, and git --version, under `perf stat -r 10` in ROUNDS
# interleaved rounds (default 5) and prints the medians of CPU (task-clock),
# wall time and page faults, and each one's ratio to git's. Then the same
# for a cold start: a new `repo-mcp serve` on a small repository made here
# answering initialize and one read_file, its input a file, for this tree's
# binary and, unless BASE is "none" (the default), a build of revision
# BASE; CPU is the figure to read on a loaded machine, where wall time
# is mostly the run queue.
set -euo pipefail
dir=$(dirname "$0")
cd "$dir/.."
dir=bench
rounds=${1:-5}
base=${2:-none}
command -v perf >/dev/null || { echo "floor.sh: needs perf (linux-perf)" >&2; exit 1; }
tmp=$(mktemp -d)
bench_tmp=$tmp # basebuild.sh's trap removes it, with its own
. "$dir/basebuild.sh" # sets REPO_MCP_BENCH_BASE unless $base is none

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

# measure VARIANT...: ROUNDS interleaved rounds of 10 runs of each variant
# (cmd_VARIANT names its command line), then a table of medians.
measure() {
	for _ in $(seq "$rounds"); do
		for v in "$@"; do
			# A command reading a file goes through sh for the redirection
			# (both sides of a comparison alike); the others run as they are.
			if [[ $(cmd "$v") == *"<"* ]]; then run=(sh -c "exec $(cmd "$v")"); else read -ra run <<<"$(cmd "$v")"; fi
			perf stat -x, -r 10 -e task-clock,page-faults "${run[@]}" 2>&1 >/dev/null |
				awk -F, -v v="$v" '$3 == "task-clock" { cpu = $1 } $3 == "page-faults" { pf = $1 } END { print v, cpu, pf }'
			# Wall time: perf's CSV output leaves it out; time the same 10 runs.
			start=$(date +%s%N)
			for _ in $(seq 10); do "${run[@]}" >/dev/null 2>&1; done
			echo "$v wall $((($(date +%s%N) - start) / 10000))"
		done
	done | awk -v first="$1" '
	function median(list,    n, a, i, j, t) {
		n = split(list, a, " ")
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	$2 == "wall" { wall[$1] = wall[$1] " " $3 / 1000; next }
	{ if (!($1 in cpu)) order[++n] = $1; cpu[$1] = cpu[$1] " " $2; pf[$1] = pf[$1] " " $3 }
	END {
		printf "%-9s %9s %9s %9s %11s %11s\n", "variant", "CPU ms", "wall ms", "faults", "CPU ratio", "wall ratio"
		cg = median(cpu[first]); wg = median(wall[first])
		for (k = 1; k <= n; k++) {
			v = order[k]; c = median(cpu[v]); w = median(wall[v])
			printf "%-9s %9.2f %9.2f %9d %10.2fx %10.2fx\n", v, c, w, median(pf[v]), c / cg, w / wg
		}
		printf "(medians of %d rounds of 10 runs each; ratios against %s)\n", split(cpu[first], x, " "), first
	}'
}

cmd() {
	case $1 in
	git) echo "git --version" ;;
	repo-mcp) echo "$tmp/repo-mcp version" ;;
	base) echo "$REPO_MCP_BENCH_BASE version" ;;
	cold) echo "$tmp/repo-mcp serve --workspace fx=$tmp/fx --audit-log /dev/null <$tmp/cold.jsonl" ;;
	cold-base) echo "$REPO_MCP_BENCH_BASE serve --workspace fx=$tmp/fx --audit-log /dev/null <$tmp/cold.jsonl" ;;
	*) echo "$tmp/$1.bin" ;;
	esac
}

if [ "$base" != none ]; then
	measure git hello floor deps repo-mcp base
else
	measure git hello floor deps repo-mcp
fi

# The cold start: the tests' fixture, as loose objects, and a client's
# first messages; the server answers both requests before it sees the end
# of its input and exits.
git init -q "$tmp/fx"
printf '# Fixture\nread by peers\n' >"$tmp/fx/README.md"
git -C "$tmp/fx" add README.md
git -C "$tmp/fx" -c user.name=b -c user.email=b@example.com commit -qm first
cat >"$tmp/cold.jsonl" <<'MSG'
{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"floor","version":"0"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read_file","arguments":{"workspace_id":"fx","path":"README.md"}}}
MSG
sh -c "exec $(cmd cold)" 2>/dev/null | grep -q '"id":2,"result":{"_meta"' || { echo "floor.sh: the cold start did not answer read_file" >&2; exit 1; }
if [ "$base" != none ]; then
	measure cold-base cold
else
	measure cold
fi
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
