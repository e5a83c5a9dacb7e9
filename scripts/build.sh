#!/usr/bin/env bash
# Configure and build into ./build (Release). Usage: scripts/build.sh [extra cmake args]
set -euo pipefail
cd "$(dirname "$0")/.."
# CI builds fail on any compiler warning.
werror=OFF
[[ -n ${CI:-} ]] && werror=ON
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DOSCHED_WERROR=$werror "$@" >/dev/null
cmake --build build -j"$(nproc)"
