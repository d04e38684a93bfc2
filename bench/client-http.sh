#!/usr/bin/env bash
# bench/client-http.sh [COUNT]: a trivial tools/call over Streamable HTTP
# through client/ and through the go-sdk client, against the same in-process
# go-sdk server, side by side.
exec "$(dirname "$0")/ratio.sh" ./client/ BenchmarkCallHTTP "$@"
