#!/usr/bin/env bash
# bench/startup.sh [COUNT [BASE]]: start-up of the repo-mcp binary, this
# tree's ("ours") beside a build of revision BASE ("base", default main;
# "none" leaves it out) and git, in the same rounds, on the Go standard
# library's source committed (set REPO_MCP_BENCH_REPO to reuse one):
#   repo-mcp version                          vs git --version   (target: within 2x)
#   cold start to the first read_file answered vs git cat-file blob, on the
#     tests' small fixture repository (target: under 50 ms) and on the Go tree
#   a new process's first full listing, without sizes ("ours", list_files'
#     default) and with them ("ours-sizes"; a base from before list_files
#     took sizes lists with them)
#                                              vs git ls-tree -r -l (target: within 1.5x);
#     git ls-tree -r ("git-nosizes") is shown beside it
set -euo pipefail
dir=$(dirname "$0")
count=${1:-6}
base=${2:-main}
. "$dir/gosource.sh"
. "$dir/basebuild.sh"
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); base: $base"
BENCHFLAGS="-benchtime=40x" "$dir/ratio.sh" ./cmd/repo-mcp/ BenchmarkVersion "$count" git
BENCHFLAGS="-benchtime=20x" "$dir/ratio.sh" ./cmd/repo-mcp/ BenchmarkColdStartFixture "$count" git
BENCHFLAGS="-benchtime=20x" "$dir/ratio.sh" ./cmd/repo-mcp/ BenchmarkColdStart "$count" git
BENCHFLAGS="-benchtime=10x" "$dir/ratio.sh" ./cmd/repo-mcp/ BenchmarkListFilesFirst "$count" git
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
