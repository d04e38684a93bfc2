#!/usr/bin/env bash
# bench/readtools.sh [COUNT]: the read tools through the repo-mcp binary over
# stdio against git on the same repository (the Go standard library's source,
# committed; set REPO_MCP_BENCH_REPO to reuse one), side by side:
#   read_file, warm, per file      vs git cat-file --batch   (target: p50 within 3x)
#   list_files, the whole tree     vs git ls-tree -r         (target: within 2x)
#   cold start to the first read_file answered                (target: under 150 ms)
set -euo pipefail
dir=$(dirname "$0")
if [ -z "${REPO_MCP_BENCH_REPO:-}" ]; then
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	cp -a "$(go env GOROOT)/src" "$tmp/src"
	(cd "$tmp/src" && git init -q -b main && git config gc.auto 0 && git add -A &&
		git -c user.name=bench -c user.email=bench@example.com commit -q -m snapshot && git gc -q)
	export REPO_MCP_BENCH_REPO=$tmp/src
fi
export BENCHFLAGS="-benchtime=300x"
"$dir/ratio.sh" ./cmd/repo-mcp/ BenchmarkReadFile "${1:-6}" git
"$dir/ratio.sh" ./cmd/repo-mcp/ BenchmarkListFiles "${1:-6}" git
BENCHFLAGS="-benchtime=20x" "$dir/ratio.sh" ./cmd/repo-mcp/ BenchmarkColdStart "${1:-6}" ours
