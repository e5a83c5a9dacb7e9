#!/usr/bin/env bash
# Scale benchmark: generates an N-layer graph (default ~100k nodes), schedules
# it and prints wall time and peak RSS. Not part of the test suite.
# Usage: scripts/bench_scale.sh [LAYERS] [fsdp|2d]
#   fsdp: one FSDP group, 10 nodes per layer (default)
#   2d:   TP x FSDP, two groups, ~17 nodes per layer (scripts/gen_2d_graph.py)
set -euo pipefail
cd "$(dirname "$0")/.."
LAYERS=${1:-2000}
FAMILY=${2:-fsdp}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
if [[ $FAMILY == 2d ]]; then
  python3 scripts/gen_2d_graph.py "$LAYERS" "$TMP/big.json"
else
python3 - "$LAYERS" "$TMP/big.json" <<'PY'
import json, sys
layers, path = int(sys.argv[1]), sys.argv[2]
nodes = []
def add(name, op, target, args, shape, dtype="bfloat16"):
    st, s = [], 1
    for d in reversed(shape):
        st.append(s); s *= d
    nodes.append({"name": name, "op": op, "target": target, "args": args, "kwargs": {},
                  "val": {"shape": shape, "stride": list(reversed(st)), "dtype": dtype, "device": "cuda:0"}})
ref = lambda n: {"node": n}
add("x", "placeholder", "x", [], [4096, 4096])
h = "x"
for l in range(layers):
    add(f"p{l}", "placeholder", f"p{l}", [], [512, 4096])
for l in range(layers):
    add(f"ag{l}", "call_function", "_c10d_functional.all_gather_into_tensor.default", [ref(f"p{l}"), 8, "0"], [4096, 4096])
    add(f"w{l}", "call_function", "_c10d_functional.wait_tensor.default", [ref(f"ag{l}")], [4096, 4096])
    add(f"t{l}", "call_function", "aten.t.default", [ref(f"w{l}")], [4096, 4096])
    add(f"mm{l}", "call_function", "aten.mm.default", [ref(h), ref(f"t{l}")], [4096, 4096])
    add(f"act{l}", "call_function", "aten.silu.default", [ref(f"mm{l}")], [4096, 4096])
    add(f"mm{l}b", "call_function", "aten.mm.default", [ref(f"act{l}"), ref(f"t{l}")], [4096, 4096])
    add(f"r{l}", "call_function", "aten.add.Tensor", [ref(f"mm{l}b"), ref(h)], [4096, 4096])
    add(f"rs{l}", "call_function", "_c10d_functional.reduce_scatter_tensor.default", [ref(f"act{l}"), "sum", 8, "0"], [512, 4096])
    add(f"rsw{l}", "call_function", "_c10d_functional.wait_tensor.default", [ref(f"rs{l}")], [512, 4096])
    h = f"r{l}"
nodes.append({"name": "output", "op": "output", "target": "output", "args": [[ref(h)] + [ref(f"rsw{l}") for l in range(layers)]], "kwargs": {}, "val": None})
json.dump({"format": "overlap-sched.graph", "version": 1, "name": "scale", "rank": 0, "world_size": 8,
           "process_groups": {"0": {"ranks": list(range(8))}}, "nodes": nodes}, open(path, "w"))
print(f"{len(nodes)} nodes")
PY
fi
/usr/bin/time -f "convert (IO only): wall %e s" ./build/overlap-sched convert "$TMP/big.json" "$TMP/io.pb"
/usr/bin/time -f "schedule: wall %e s, peak RSS %M KiB" ./build/overlap-sched schedule "$TMP/big.json" -o "$TMP/out.pb" --report "$TMP/report.json" -q
./build/overlap-sched verify "$TMP/big.json" "$TMP/out.pb"
/usr/bin/time -f "schedule + bucketing + overlap deps: wall %e s, peak RSS %M KiB" ./build/overlap-sched schedule \
  "$TMP/big.json" -o "$TMP/outb.pb" --report "$TMP/reportb.json" -q --collective-bucketing --insert-overlap-deps
./build/overlap-sched verify "$TMP/big.json" "$TMP/outb.pb"
python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print('buckets', len(r['bucketing']['buckets']), 'merged', r['bucketing']['collectives_merged'], 'deps', r['overlap_deps']['control_deps_added'])" "$TMP/reportb.json"
