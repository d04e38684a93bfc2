#!/usr/bin/env bash
# The project's test command: unit, wire, peer and short fuzz tests, with the
# race detector. Peers (npm packages, Node 22) come from .ci/install-peers;
# set REPO_MCP_PEERS to their folder, or the peer tests skip.
set -euo pipefail
cd "$(dirname "$0")"

# Integration tests (verify in its sandbox with a cold build cache, the
# gopls and git grep comparisons) can pass go test's 10-minute default per
# package on a fresh 2-core machine; the whole run stays far below CI's budget.
go test -race -count=1 -timeout 30m ./...

# mcp-go, a client hosts build on, is a test-only peer: its tests live in a
# module of their own (internal/mcpgopeer), which keeps it out of the
# product's dependency graph, and so are run here by name.
(cd internal/mcpgopeer && go test -race -count=1 -timeout 30m ./...)

# fuzz PKG TARGET fuzzes one target for 10 s. Go 1.26's fuzzing coordinator
# can fail a target as its time runs out, with a bare "context deadline
# exceeded" and no input to blame (go.dev/issue/75804, fixed in Go 1.27);
# such a run is tried once more. A real finding writes its failing input
# and fails at once.
fuzz() {
	local out
	for attempt in 1 2; do
		if out=$(go test -run='^$' -fuzz="^$2\$" -fuzztime=10s "$1" 2>&1); then
			printf '%s\n' "$out" | tail -n 1
			return 0
		fi
		printf '%s\n' "$out"
		if ! grep -q 'context deadline exceeded' <<<"$out" || grep -q 'Failing input written' <<<"$out"; then
			return 1
		fi
		echo "test.sh: $2 hit Go's fuzzing shutdown race (go.dev/issue/75804), not an input; trying again" >&2
	done
	return 1
}

# Brief fuzzing of every fuzz target (a regression corpus runs in the plain
# go test above; this explores a little further on every run).
go list -f '{{.ImportPath}} {{.Dir}}' ./... | while read -r pkg dir; do
	for target in $(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null | sed 's/^func //'); do
		fuzz "$pkg" "$target"
	done
done
