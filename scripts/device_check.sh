#!/usr/bin/env bash
# One prepared run on a GPU machine (the `device` tool): benchmark the matmuls
# of two graphs with cuBLAS, show measured vs analytical ms per op, re-run from
# the cache, and exercise the collective path. Writes everything to ${OUT:-/tmp/device_check}.
#   scripts/device_check.sh [BUILD_DIR]
# BACKEND=synthetic dry-runs the same steps without a GPU.
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
OUT=${OUT:-/tmp/device_check}
BACKEND=${BACKEND:-gpu}
mkdir -p "$OUT"
BIN="$BUILD/overlap-sched"
if ! "$BIN" --version >/dev/null 2>&1; then
  echo "== building (no runnable $BIN)"
  cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DOSCHED_BUILD_TESTS=OFF >"$OUT/cmake.log" 2>&1 &&
    cmake --build "$BUILD" -j"$(nproc)" >>"$OUT/cmake.log" 2>&1 || { tail -20 "$OUT/cmake.log"; exit 1; }
fi
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader || true

for g in testdata/example_llama_fsdp.json testdata/fsdp_tiny.json; do
  name=$(basename "$g" .json)
  echo "== $name: --benchmark-compute (cuBLAS)"
  /usr/bin/time -f "%e s" "$BIN" schedule "$g" -o "$OUT/$name.sched.json" --report "$OUT/$name.report.json" \
    --benchmark-compute --benchmark-backend "$BACKEND" --benchmark-cache "$OUT/cache.json" -q
  echo "exit $?"
  python3 - "$OUT/$name.report.json" <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))["benchmark"]
print(f"device {b['devices'][0]}: {b['measured']} measured, {b['cache_hits']} from cache")
print(f"{'op key':90s} {'measured':>10s} {'roofline':>10s} {'ratio':>6s}")
for e in b["compute"]:
    r = e["analytical_ms"] / e["median_ms"] if e["median_ms"] > 0 else 0
    print(f"{e['key'][:90]:90s} {e['median_ms']:10.5f} {e['analytical_ms']:10.5f} {r:6.2f}")
PY
  "$BIN" verify "$g" "$OUT/$name.sched.json"
done
echo "== re-run: every key from the cache"
"$BIN" schedule testdata/example_llama_fsdp.json -o "$OUT/rerun.json" --report "$OUT/rerun.report.json" \
  --benchmark-compute --benchmark-backend "$BACKEND" --benchmark-cache "$OUT/cache.json" -q
python3 -c "import json,sys; b=json.load(open(sys.argv[1]))['benchmark']; print('measured', b['measured'], 'cache hits', b['cache_hits'])" "$OUT/rerun.report.json"

ngpu=$(nvidia-smi -L 2>/dev/null | wc -l)
[ "$BACKEND" = synthetic ] && ngpu=2
root=""; [ "$(id -u)" = 0 ] && root="--allow-run-as-root"
echo "== collectives with NCCL over $ngpu GPU(s)"
if [ "$ngpu" -ge 2 ]; then
  mpirun -np "$ngpu" --oversubscribe $root "$BIN" schedule testdata/example_llama_fsdp.json -o "$OUT/coll.json" \
    --report "$OUT/coll.report.json" --collective-estimator benchmark --benchmark-compute \
    --benchmark-backend "$BACKEND" -q
  echo "exit $?"
  python3 -c "
import json,sys; b=json.load(open(sys.argv[1]))['benchmark']
for e in b['collectives']: print(f\"{e['key']:60s} {e['median_ms']:10.4f} {e['analytical_ms']:10.4f}\")" "$OUT/coll.report.json"
else
  # One GPU: NCCL needs a GPU per rank, so this must fail cleanly with exit 3.
  mpirun -np 2 --oversubscribe $root "$BIN" schedule testdata/fsdp_tiny.json -o "$OUT/coll.json" \
    --collective-estimator benchmark -q
  echo "exit $? (expected 3 on one GPU); output written: $(ls "$OUT/coll.json" 2>/dev/null || echo none)"
fi
