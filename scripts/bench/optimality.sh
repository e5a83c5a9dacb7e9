#!/usr/bin/env bash
# The distance to the optimum per corpus graph (scripts/bench/optimality.py):
# step, bound, and CP-SAT windows that split the gap. Not part of the test suite.
# Usage: scripts/bench/optimality.sh [DIR] [--windows K] [--size W] [--seconds S]
set -euo pipefail
cd "$(dirname "$0")/../.."
export PYTHONPATH=tests${PYTHONPATH:+:$PYTHONPATH}
exec .venv-torch/bin/python scripts/bench/optimality.py build/overlap-sched "$@"
