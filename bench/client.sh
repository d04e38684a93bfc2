#!/usr/bin/env bash
# bench/client.sh [COUNT]: a trivial tools/call through client/ and through
# the go-sdk client, against the same go-sdk server, side by side.
exec "$(dirname "$0")/ratio.sh" ./client/ BenchmarkCall "$@"
