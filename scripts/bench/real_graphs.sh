#!/usr/bin/env bash
# Real production graphs (scripts/bench/real_graphs.py): import, schedule
# and the published comparison, one row per repro. Not part of the test suite.
# Usage: scripts/bench/real_graphs.sh [DIR]   (default ../shared/corpus/autoparallel)
set -euo pipefail
cd "$(dirname "$0")/../.."
export PYTHONPATH=tests${PYTHONPATH:+:$PYTHONPATH}
exec python3 scripts/bench/real_graphs.py build/overlap-sched "$@"
