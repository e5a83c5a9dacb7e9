#!/usr/bin/python3
"""mpirun -np 3 with the synthetic backend, whose values differ on every rank:
all ranks must write byte-identical graphs and reports whose benchmark
entries hold each rank's value and the median; rank 0 alone writes without
--output-per-rank; a re-run is served from the cache.

usage: check_rank_alignment.py OVERLAP_SCHED GRAPH WORKDIR
"""
import json
import os
import shutil
import subprocess
import sys

import osched_testing as ot

binary = ot.binary(sys.argv[1])
graph, work = (os.path.abspath(a) for a in sys.argv[2:4])
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
mpirun = shutil.which("mpirun")
if not mpirun:
    sys.exit("mpirun not found: install openmpi-bin (scripts/install-deps.sh)")
launch = [mpirun, "-np", "3", "--oversubscribe"]
if os.geteuid() == 0:
    launch.append("--allow-run-as-root")
bench = ["--benchmark-compute", "--collective-estimator", "benchmark", "--benchmark-backend", "synthetic", "-q"]


# Containers often forbid the cross-memory-attach copy OpenMPI tries first.
env = dict(os.environ, OMPI_MCA_btl_vader_single_copy_mechanism="none")


def run(cmd, cwd=None, expect=0):
    try:
        p = ot.run(*cmd, cwd=cwd or work, timeout=120, env=env)
    except subprocess.TimeoutExpired:
        sys.exit(f"{' '.join(cmd)} hung (ranks waiting on each other?)")
    if p.returncode != expect:
        sys.exit(f"{' '.join(cmd)} exited {p.returncode}, expected {expect}:\n{p.stdout}\n{p.stderr}")
    return p


def read(name):
    with open(os.path.join(work, name), "rb") as f:
        return f.read()


failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)


# 1. One output per rank: identical bytes.
run(launch + [binary, "schedule", graph, "-o", "out.json", "--report", "rep.json", "--output-per-rank",
              "--benchmark-cache", "cache.json"] + bench)
outs = [read(f"out.rank{r}.json") for r in range(3)]
reps = [read(f"rep.rank{r}.json") for r in range(3)]
check(outs[0] == outs[1] == outs[2], "ranks wrote different graphs")
check(reps[0] == reps[1] == reps[2], "ranks wrote different reports")

# 2. The report holds every rank's value and the median of them.
b = json.loads(reps[0])["benchmark"]
check(b["ranks"] == 3 and b["backend"] == "synthetic", f"unexpected benchmark header {b}")
entries = b["compute"] + b["collectives"]
check(len(b["compute"]) > 0 and len(b["collectives"]) > 0, "no compute or no collective benchmarks")
for e in entries:
    v = e["per_rank_ms"]
    check(len(v) == 3 and len(set(v)) == 3, f"{e['key']}: per-rank values should all differ: {v}")
    check(e["median_ms"] == sorted(v)[1], f"{e['key']}: median {e['median_ms']} of {v}")
    check(e["median_ms"] == v[1], f"{e['key']}: the synthetic median is rank 1's value")
    check(e["source"] == "measured", f"{e['key']}: first run should measure")

# 3. Alignment changes the decision: rank 0's own values alone give another order.
run([binary, "schedule", graph, "-o", "single.json"] + bench)
check(read("single.json") != outs[0], "rank 0's unaligned values give the same graph; the test graph is too weak")

# 4. Without --output-per-rank only rank 0 writes, and the cache serves every key.
sub = os.path.join(work, "rank0")
os.makedirs(sub)
shutil.copy(os.path.join(work, "cache.json"), sub)
run(launch + [binary, "schedule", graph, "-o", "out.json", "--report", "rep.json",
              "--benchmark-cache", "cache.json"] + bench, cwd=sub)
check(sorted(os.listdir(sub)) == ["cache.json", "out.json", "rep.json"], f"files written: {os.listdir(sub)}")
check(read("rank0/out.json") == outs[0], "rank-0 output differs from the per-rank outputs")
b2 = json.loads(read("rank0/rep.json"))["benchmark"]
check(b2["measured"] == 0 and b2["cache_hits"] == len(entries), f"cache not used: {b2['measured']} measured")
cache = json.loads(read("cache.json"))
check(all(k.split("|")[1] == "synthetic" for k in cache["entries"]), "cache keys lack the device name")

# 5. Ranks that disagree fail together, promptly, and write nothing (MPMD launch:
#    rank 0 gets one command line, ranks 1-2 another).
other = os.path.join(os.path.dirname(graph), "tp_two_groups.json")
bad = os.path.join(work, "bad")
os.makedirs(bad)
first = launch[:1] + ["-np", "1"] + launch[3:]
rest = ["-np", "2"]
p = run(first + [binary, "schedule", graph, "-o", "o.json"] + bench + [":"] + rest +
        [binary, "schedule", other, "-o", "o.json"] + bench, cwd=bad, expect=3)
check("different graph" in p.stderr, f"no 'different graph' error: {p.stderr}")
p = run(first + [binary, "schedule", "missing.json", "-o", "o.json"] + bench + [":"] + rest +
        [binary, "schedule", graph, "-o", "o.json"] + bench, cwd=bad, expect=2)
check("rank 0: " in p.stderr and "missing.json" in p.stderr, f"ranks 1-2 did not name rank 0's error: {p.stderr}")
check(os.listdir(bad) == [], f"failed runs left files: {os.listdir(bad)}")

if failures:
    print("\n".join(failures))
    sys.exit(1)
print(f"ok: {len(entries)} aligned benchmark keys, identical outputs on 3 ranks")
