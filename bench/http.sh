#!/usr/bin/env bash
# bench/http.sh [COUNT]: a tools/call round trip over Streamable HTTP, in one
# process, for a trivial tool served through server/ (with and without a
# bearer token check) and registered directly on go-sdk's stateless
# handler, with the same client, side by side.
exec "$(dirname "$0")/ratio.sh" ./server/ BenchmarkHTTPRoundTrip "$@"
