#!/usr/bin/env bash
# Prints the layering metrics of docs/design.md for the module checked out
# in DIR (default: this repository): per package, its exported names (the
# top-level ones go doc -short lists, plus exported methods; struct fields
# are not counted) and its imports of the module's own packages, then the
# total of those import edges. Compare two checkouts side by side:
#
#	bench/layering-metrics.sh /path/to/before > before.txt
#	bench/layering-metrics.sh > after.txt
#	join -a1 -a2 before.txt after.txt
#
# Test files and commands (package main) are left out.
set -euo pipefail
dir=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$dir"
module=$(go list -m)
edges=0
while read -r pkg name imports; do
	[ "$name" = main ] && continue
	rel=${pkg#"$module"}
	rel=${rel#/}
	[ -n "$rel" ] || rel=.
	top=$(go doc -short "$pkg" 2>/dev/null | grep -c . || true)
	methods=$(go doc -all "$pkg" 2>/dev/null | grep -cE '^func \([^)]*\) [A-Z]' || true)
	exported=$((top + methods))
	own=0
	for imp in $imports; do
		case "$imp" in "$module"/*) own=$((own + 1)) ;; esac
	done
	edges=$((edges + own))
	echo "$rel exported=$exported imports=$own"
done < <(go list -f '{{.ImportPath}} {{.Name}} {{join .Imports " "}}' ./... | sort)
echo "~total edges=$edges"
