#!/usr/bin/env bash
# overlap-sched side by side with PyTorch's own overlap pass
# (scripts/bench/vs_torch.py), on the corpus repros and generated 2-D
# decoder steps; prints a markdown table. Not part of the test suite.
# Usage: scripts/bench/vs_torch.sh [--layers 2,16,96] [--only NAME]
set -euo pipefail
cd "$(dirname "$0")/../.."
export PYTHONPATH=tests:scripts/torch${PYTHONPATH:+:$PYTHONPATH}
scripts/install-deps.sh
[[ -x build/overlap-sched ]] || scripts/build.sh
exec .venv-torch/bin/python scripts/bench/vs_torch.py build/overlap-sched --layers 2,16,96 "$@"
