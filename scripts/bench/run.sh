#!/usr/bin/env bash
# Speed benchmark table (scripts/bench/run.py); not part of the test suite.
# Usage: scripts/bench/run.sh [--sizes 10000,100000,1000000] [--families llama,2d,moe] [--bucketing] [--one-core] [--repeat 2]
set -euo pipefail
cd "$(dirname "$0")/../.."
export PYTHONPATH=tests${PYTHONPATH:+:$PYTHONPATH}
exec python3 scripts/bench/run.py build/overlap-sched "$@"
