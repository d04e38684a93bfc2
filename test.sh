#!/usr/bin/env bash
# The project's test command: unit, wire, peer and short fuzz tests, with the
# race detector. Peers (npm packages, Node 22) come from .ci/install-peers;
# set REPO_MCP_PEERS to their folder, or the peer tests skip.
set -euo pipefail
cd "$(dirname "$0")"

go test -race -count=1 ./...

# Brief fuzzing of every fuzz target (a regression corpus runs in the plain
# go test above; this explores a little further on every run).
go list -f '{{.ImportPath}} {{.Dir}}' ./... | while read -r pkg dir; do
	for target in $(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null | sed 's/^func //'); do
		go test -run='^$' -fuzz="^${target}\$" -fuzztime=10s "$pkg"
	done
done
