#!/usr/bin/env bash
# Idempotent: installs the Debian packages overlap-sched builds and tests with,
# and the PyTorch virtual environment (.venv-torch) the bridge, its tests and
# scripts/bench/vs_torch.sh use. A second run changes nothing and costs ~1 s.
# Usage: scripts/install-deps.sh [--no-torch | --build]
#   --no-torch: the Debian packages only; --build: only those that build the
#   overlap-sched binary and its plugins (the quick start).
set -euo pipefail
cd "$(dirname "$0")/.."
PKGS=(cmake g++ make zlib1g-dev libcli11-dev nlohmann-json3-dev libprotobuf-dev protobuf-compiler
      libspdlog-dev libopenmpi-dev libsimdjson-dev libxxhash-dev)
if [[ ${1:-} != --build ]]; then
  PKGS+=(catch2 openmpi-bin python3 python3-venv python3-pip python3-jsonschema clang-14
         libclang-rt-14-dev clang-format-14 chromium)
fi
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  SUDO=""
  [[ $(id -u) -ne 0 ]] && SUDO="sudo"
  echo "installing: ${missing[*]}" >&2
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

[[ ${1:-} == --no-torch || ${1:-} == --build ]] && exit 0

# PyTorch from PyPI, pinned. The Linux wheel is a CUDA build; it runs on the
# CPU, and its nvidia-* dependencies are what `import torch` loads.
TORCH_PIN="torch==2.15.0"
VENV=.venv-torch
STAMP="$VENV/.installed"
want="$TORCH_PIN numpy==2.4.6"
if [[ ! -f $STAMP || $(cat "$STAMP") != "$want" ]]; then
  echo "creating $VENV with $want (about 4 GB, once)" >&2
  rm -rf "$VENV"
  /usr/bin/python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q --disable-pip-version-check --no-input $want
  "$VENV/bin/python" -c "import torch, torch.distributed, torch._inductor" >/dev/null
  echo "$want" >"$STAMP"
fi
# PyTorch's own OpInfo database (the conformance test) imports expecttest.
if ! "$VENV/bin/python" -c "import expecttest" 2>/dev/null; then
  "$VENV/bin/pip" install -q --disable-pip-version-check --no-input expecttest==0.3.0
fi
# OR-Tools' CP-SAT: the exact window reference (scripts/bench/optimality.py
# and its ctest on a small graph).
ORTOOLS_PIN="ortools==9.12.4544"
if ! "$VENV/bin/python" -c "import ortools, sys; sys.exit(ortools.__version__ != '${ORTOOLS_PIN#*==}')" 2>/dev/null; then
  "$VENV/bin/pip" install -q --disable-pip-version-check --no-input "$ORTOOLS_PIN"
fi
