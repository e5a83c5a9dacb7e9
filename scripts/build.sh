#!/usr/bin/env bash
# Configure and build into ./build (Release).
# Usage: scripts/build.sh [--target T]... [extra cmake args]
#   --target overlap-sched builds the binary and its plugins alone (the quick
#   start); without --target, everything: tests and benchmark tools too.
set -euo pipefail
cd "$(dirname "$0")/.."
targets=()
cmake_args=()
while (($#)); do
  case $1 in
    --target) targets+=(--target "$2"); shift 2 ;;
    *) cmake_args+=("$1"); shift ;;
  esac
done
# CI builds fail on any compiler warning.
werror=OFF
[[ -n ${CI:-} ]] && werror=ON
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DOSCHED_WERROR=$werror "${cmake_args[@]}" >/dev/null
cmake --build build -j"$(nproc)" "${targets[@]}"
