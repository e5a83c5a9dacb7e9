#!/usr/bin/env bash
# Install dependencies, build, and run the whole test suite through ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
# The wheel, from the same build tree; the wheel_install test checks it.
scripts/build-wheel.sh --reuse-build
cd build && OSCHED_REQUIRE_WHEEL=1 ctest --output-on-failure -j"$(nproc)"
cd ..
scripts/test-sanitize.sh "${FUZZ_SECONDS:-20}"
