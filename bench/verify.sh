#!/usr/bin/env bash
# bench/verify.sh [COUNT]: verify_patch's sandbox against plain go: the same
# go vet + go test of a small module with an httptest server, warm caches,
# through verify's bubblewrap sandbox ("sandbox") and run directly
# ("direct"), side by side; prints the medians and their ratio (the
# sandbox's overhead). Needs root and bubblewrap.
set -euo pipefail
dir=$(dirname "$0")
BENCHFLAGS="-benchtime=3x" "$dir/ratio.sh" ./tools/patch/verify/ BenchmarkVerify "${1:-5}" direct
