#!/usr/bin/env bash
# bench/patch.sh [COUNT]: the patch tools against git on the same repository
# (the Go standard library's source, committed; set REPO_MCP_BENCH_REPO to
# reuse one; the benchmarks work on a bare clone of it), side by side:
#   generate_patch + preview_diff + apply_patch to a new branch, 10 files
#     vs git apply --cached + write-tree + commit-tree + update-ref   (target: within 2x)
#   verify_patch's export of the whole tree
#     vs git archive | tar -x                                          (target: within 2x)
set -euo pipefail
dir=$(dirname "$0")
. "$dir/gosource.sh"
BENCHFLAGS="-benchtime=30x" "$dir/ratio.sh" ./tools/patch/ BenchmarkPropose "${1:-6}" git
BENCHFLAGS="-benchtime=3x" "$dir/ratio.sh" ./tools/patch/ BenchmarkExport "${1:-6}" git
