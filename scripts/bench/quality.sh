#!/usr/bin/env bash
# Schedule quality benchmark (not part of the test suite): the corpus table
# of scripts/bench/quality.py. Usage: scripts/bench/quality.sh [--quick]
set -euo pipefail
cd "$(dirname "$0")/../.."
export PYTHONPATH=tests${PYTHONPATH:+:$PYTHONPATH}
exec python3 scripts/bench/quality.py build/overlap-sched "$@"
