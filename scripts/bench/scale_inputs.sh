#!/usr/bin/env bash
# Growth of the readers and passes that were quadratic (issue "reliability
# 4"): each input kind doubled from 10^4 to 10^6 units, wall seconds and
# peak RSS per size, so non-linear growth shows at a glance (a doubling
# should about double the time). Not part of the test suite.
#   trace events   calibrate on a Kineto trace of N events (the corpus
#                  trace's events repeated; a generated one without it)
#   estimate keys  schedule with --runtime-estimates naming N nodes
#   table rows     schedule with a --collective-table of N rows
#   unary chain    schedule of N relus ahead of an all-gather
# Usage: scripts/bench/scale_inputs.sh [MAX_UNITS]   (default 1000000)
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=${BIN:-build/overlap-sched}
MAX=${1:-1000000}
[[ -x $BIN ]] || scripts/build.sh
export PYTHONPATH=tests${PYTHONPATH:+:$PYTHONPATH}
exec python3 - "$BIN" "$MAX" <<'PY'
import gzip, json, os, sys, tempfile, time

import osched_testing as ot

BIN, MAX = ot.binary(sys.argv[1]), int(sys.argv[2])
CORPUS = os.path.join("..", "shared", "corpus", "kineto", "nccl_data.json.gz")
tmp = tempfile.mkdtemp()
graph = "testdata/fsdp_tiny.json"


def run(argv):
    t = time.perf_counter()
    r = ot.run("/usr/bin/time", "-f", "%M", BIN, *argv)
    wall = time.perf_counter() - t
    if r.returncode != 0:
        raise SystemExit(f"{' '.join(argv[:2])}: exit {r.returncode}: {r.stderr.strip()[-300:]}")
    return wall, int(r.stderr.strip().splitlines()[-1]) / 1024


def trace_events(n):
    if os.path.exists(CORPUS):
        base = json.load(gzip.open(CORPUS))
        # Its NCCL kernels first, so a prefix of any length holds some.
        nccl = [e for e in base["traceEvents"] if str(e.get("name", "")).startswith("nccl")]
        events = nccl + [e for e in base["traceEvents"] if e not in nccl]
    else:
        base = {"distributedInfo": {"rank": 0, "world_size": 2}}
        events = [{"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_f32_RING_LL",
                   "ts": i * 10, "dur": 5 + i % 7, "args": {"Collective name": "allreduce",
                   "In msg nelems": 1 << (10 + i % 10), "Group size": 2, "dtype": "Float",
                   "Process Group Name": "0"}} for i in range(1000)]
    doc = dict(base)
    doc["traceEvents"] = (events * (n // len(events) + 1))[:n]
    path = os.path.join(tmp, f"trace{n}.json")
    json.dump(doc, open(path, "w"))
    return ["calibrate", path, "-o", os.path.join(tmp, "t.table"), "-q"], os.path.getsize(path)


def estimate_keys(n):
    path = os.path.join(tmp, f"est{n}.json")
    json.dump({"version": 1, "nodes": {f"node_{i}": 0.01 for i in range(n)}}, open(path, "w"))
    return ["schedule", graph, "-o", os.path.join(tmp, "o.json"), "-q",
            "--runtime-estimates", path], os.path.getsize(path)


def table_rows(n):
    path = os.path.join(tmp, f"t{n}.table")
    with open(path, "w") as f:
        f.write("Group  Group Size  Collective  1MB (ms)  2MB (ms)\n-----  ---  ---  ---  ---\n")
        for i in range(n):
            f.write(f"g{i}  8  all_gather_into_tensor  0.05  0.07\n")
            if i % 7 == 0:
                f.write(f"# extrapolated beyond 1.5 MiB: g{i} 8 all_gather_into_tensor\n")
    return ["schedule", graph, "-o", os.path.join(tmp, "o.json"), "-q",
            "--collective-table", path], os.path.getsize(path)


def unary_chain(n):
    meta = {"shape": [1024], "stride": [1], "dtype": "float32", "device": "cuda:0"}
    nodes = [{"name": "x", "op": "placeholder", "target": "x", "args": [], "val": meta}]
    prev = "x"
    for i in range(n):
        nodes.append({"name": f"r{i}", "op": "call_function", "target": "aten.relu.default",
                      "args": [{"node": prev}], "val": meta})
        prev = f"r{i}"
    nodes += [{"name": "ag", "op": "call_function",
               "target": "_c10d_functional.all_gather_into_tensor.default",
               "args": [{"node": prev}, 2, "0"], "val": dict(meta, shape=[2048])},
              {"name": "w", "op": "call_function", "target": "_c10d_functional.wait_tensor.default",
               "args": [{"node": "ag"}], "val": dict(meta, shape=[2048])},
              {"name": "output", "op": "output", "target": "output", "args": [[{"node": "w"}]]}]
    path = os.path.join(tmp, f"chain{n}.json")
    json.dump({"format": "overlap-sched.graph", "version": 1, "world_size": 2,
               "process_groups": {"0": {"ranks": [0, 1]}}, "nodes": nodes}, open(path, "w"))
    return ["schedule", path, "-o", os.path.join(tmp, "o.json"), "-q"], os.path.getsize(path)


sizes = []
n = 10000
while n <= MAX:
    sizes.append(n)
    n *= 2
if sizes[-1] != MAX and MAX > 10000:
    sizes.append(MAX)
print("| input | units | file MB | wall s | peak RSS MB | s per 10^5 units |")
print("|---|---:|---:|---:|---:|---:|")
for label, make in (("trace events", trace_events), ("estimate keys", estimate_keys),
                    ("table rows", table_rows), ("unary chain nodes", unary_chain)):
    for n in sizes:
        argv, size = make(n)
        wall, rss = run(argv)
        print(f"| {label} | {n} | {size / 1e6:.1f} | {wall:.3f} | {rss:.0f} | {wall / n * 1e5:.3f} |",
              flush=True)
        for f in os.listdir(tmp):
            os.remove(os.path.join(tmp, f))
PY
