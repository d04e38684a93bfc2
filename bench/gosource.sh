# Sourced by the benchmark scripts: unless REPO_MCP_BENCH_REPO names one
# already, commit $(go env GOROOT)/src into a temporary repository (removed
# at exit) and export REPO_MCP_BENCH_REPO pointing at it.
if [ -z "${REPO_MCP_BENCH_REPO:-}" ]; then
	bench_tmp=$(mktemp -d)
	trap 'rm -rf "$bench_tmp"' EXIT
	cp -a "$(go env GOROOT)/src" "$bench_tmp/src"
	(cd "$bench_tmp/src" && git init -q -b main && git config gc.auto 0 && git add -A &&
		git -c user.name=bench -c user.email=bench@example.com commit -q -m snapshot && git gc -q)
	export REPO_MCP_BENCH_REPO=$bench_tmp/src
fi
