#!/usr/bin/env bash
# bench/history.sh [COUNT]: the history reads against git on the go-git
# corpus (../shared/corpora/go-git.bundle, cloned by each benchmark), side
# by side in one run. Each job runs three ways: "cold" opens the repository
# with empty caches (target: within 2x of git), "warm" repeats the call
# (target: at most 0.1x of cold), "git" runs the git command that answers
# the same question:
#   log of one file (git log -- path)           BenchmarkHistoryLogPath
#   the same with a commit-graph written         BenchmarkHistoryLogPathGraph
#   the same with changed-path Bloom filters     BenchmarkHistoryLogPathBloom
#   log with content added/removed (git log -S)  BenchmarkHistoryPickaxe
#   the largest commit, stats and patches        BenchmarkHistoryShow
#   line counts between v4.0.0 and v5.10.0       BenchmarkHistoryDiffTags
#   blame of the ten most changed files          BenchmarkHistoryBlame
set -euo pipefail
dir=$(dirname "$0")
export BENCHFLAGS="-benchtime=3x"
for b in LogPath LogPathGraph LogPathBloom Pickaxe Show DiffTags Blame; do
	"$dir/ratio.sh" ./workspace/ "BenchmarkHistory$b" "${1:-3}" git
done
