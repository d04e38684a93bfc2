#!/usr/bin/env bash
# bench/readtools.sh [COUNT]: the read tools through the repo-mcp binary over
# stdio against git on the same repository (the Go standard library's source,
# committed; set REPO_MCP_BENCH_REPO to reuse one), side by side:
#   read_file, warm, per file      vs git cat-file --batch   (target: p50 within 3x;
#                                  "ours" through client/, "wire" the server alone)
#   list_files, the whole tree     vs git ls-tree -r         (target: within 2x)
# The first listing of a new process and the cold start are in
# bench/startup.sh, beside a build of another revision.
set -euo pipefail
dir=$(dirname "$0")
. "$dir/gosource.sh"
export BENCHFLAGS="-benchtime=300x"
"$dir/ratio.sh" ./cmd/repo-mcp/ BenchmarkReadFile "${1:-6}" git
"$dir/ratio.sh" ./cmd/repo-mcp/ BenchmarkListFiles "${1:-6}" git
