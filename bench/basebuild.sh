# Sourced by the benchmark scripts that compare with another revision:
# unless $base is "none", build repo-mcp at revision $base into a temporary
# directory (removed at exit, with gosource.sh's corpus if there is one)
# and export REPO_MCP_BENCH_BASE naming the binary; the benchmarks then
# run it as their "base" variant in the same rounds as this tree's. It is
# built static, as the binary under test is (internal/testbin).
if [ "$base" != none ]; then
	base_tmp=$(mktemp -d)
	trap 'rm -rf "$base_tmp" ${bench_tmp:+"$bench_tmp"}' EXIT
	git -C "$dir/.." archive "$base" | tar -x -C "$base_tmp"
	(cd "$base_tmp" && CGO_ENABLED=0 go build -o "$base_tmp/repo-mcp" ./cmd/repo-mcp)
	export REPO_MCP_BENCH_BASE=$base_tmp/repo-mcp
fi
