#!/usr/bin/env bash
# Build the wheel (pyproject.toml, scikit-build-core) into dist/: the
# overlap-sched binary, its plugins and the overlap_sched package.
# Usage: scripts/build-wheel.sh [--reuse-build] [pip wheel args]
#   -> dist/overlap_sched-VERSION-py3-none-<platform>.whl (any older one removed)
#   --reuse-build: build in ./build with scripts/build.sh's options, so after
#   that script only a relink and an install remain (scripts/test.sh does this).
set -euo pipefail
cd "$(dirname "$0")/.."
args=()
if [[ ${1:-} == --reuse-build ]]; then
  shift
  werror=OFF
  [[ -n ${CI:-} ]] && werror=ON
  args=(--config-settings=build-dir=build --config-settings=cmake.define.OSCHED_BUILD_TESTS=ON
        --config-settings=cmake.define.OSCHED_WERROR=$werror)
  export CMAKE_GENERATOR="Unix Makefiles" # build.sh's generator
fi
mkdir -p dist
rm -f dist/overlap_sched-*.whl
python3 -m pip wheel . -q --no-deps --disable-pip-version-check --wheel-dir dist "${args[@]}" "$@"
ls dist/overlap_sched-*.whl
