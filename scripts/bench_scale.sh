#!/usr/bin/env bash
# Scale benchmark: generates an N-layer graph (default ~100k nodes), schedules
# it and prints wall time and peak RSS. Not part of the test suite.
# Usage: scripts/bench_scale.sh [LAYERS] [fsdp|2d]
#   fsdp: one FSDP group, 10 nodes per layer (default)
#   2d:   TP x FSDP, two groups, ~17 nodes per layer
# (both from tests/osched_testing/graphs.py)
set -euo pipefail
cd "$(dirname "$0")/.."
LAYERS=${1:-2000}
FAMILY=${2:-fsdp}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
PYTHONPATH=tests python3 -m osched_testing "$([[ $FAMILY == 2d ]] && echo 2d || echo fsdp)" \
  "$LAYERS" "$TMP/big.json"
/usr/bin/time -f "convert (IO only): wall %e s" ./build/overlap-sched convert "$TMP/big.json" "$TMP/io.pb"
/usr/bin/time -f "schedule: wall %e s, peak RSS %M KiB" ./build/overlap-sched schedule "$TMP/big.json" -o "$TMP/out.pb" --report "$TMP/report.json" -q
./build/overlap-sched verify "$TMP/big.json" "$TMP/out.pb"
/usr/bin/time -f "schedule + bucketing + overlap deps: wall %e s, peak RSS %M KiB" ./build/overlap-sched schedule \
  "$TMP/big.json" -o "$TMP/outb.pb" --report "$TMP/reportb.json" -q --collective-bucketing --insert-overlap-deps
./build/overlap-sched verify "$TMP/big.json" "$TMP/outb.pb"
python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print('buckets', len(r['bucketing']['buckets']), 'merged', r['bucketing']['collectives_merged'], 'deps', r['overlap_deps']['control_deps_added'])" "$TMP/reportb.json"
