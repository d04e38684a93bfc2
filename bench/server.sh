#!/usr/bin/env bash
# bench/server.sh [COUNT]: a tools/call round trip over stdio for a trivial
# tool served through server/ and registered directly on go-sdk, with the
# same client, side by side. Target: ours within 1.10x of gosdk at p50.
exec "$(dirname "$0")/ratio.sh" ./internal/testserver/ BenchmarkRoundTrip "$@"
