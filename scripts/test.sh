#!/usr/bin/env bash
# Install dependencies, build, and run the whole test suite through ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
cd build && ctest --output-on-failure -j"$(nproc)"
cd ..
scripts/test-sanitize.sh "${FUZZ_SECONDS:-20}"
