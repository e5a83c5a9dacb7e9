#!/usr/bin/env bash
# Idempotent: installs the Debian packages overlap-sched builds and tests with.
# Skips apt entirely when everything is already present.
set -euo pipefail
PKGS=(cmake g++ make zlib1g-dev libcli11-dev nlohmann-json3-dev libprotobuf-dev protobuf-compiler
      libspdlog-dev catch2 libopenmpi-dev openmpi-bin python3 python3-jsonschema
      clang-14 libclang-rt-14-dev clang-format-14 python3-torch chromium libsimdjson-dev
      libxxhash-dev)
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
