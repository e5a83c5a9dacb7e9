"""schedule under mpirun -np 2: the ranks agree before anyone writes. With
the same inputs both succeed and the report records the check; with cost
tables whose contents differ, or graphs whose collectives differ, every
rank stops with exit 2 and one line naming the rank and the table or group,
and no output file is left.

usage: check_rank_agreement.py OVERLAP_SCHED TESTDATA WORKDIR"""
import json
import os
import shutil
import sys

import osched_testing as ot

binary = ot.binary(sys.argv[1])
testdata, work = (os.path.abspath(a) for a in sys.argv[2:4])
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
mpirun = shutil.which("mpirun")
if not mpirun:
    sys.exit("mpirun not found: install openmpi-bin (scripts/install-deps.sh)")
root = ["--allow-run-as-root"] if os.geteuid() == 0 else []
env = dict(os.environ, OMPI_MCA_btl_vader_single_copy_mechanism="none")
graph = os.path.join(testdata, "fsdp_tiny.json")


def launch(per_rank):
    """mpirun with one program per rank (MPMD): per_rank is a list of argument lists."""
    cmd = [mpirun, "--oversubscribe"] + root
    for i, args in enumerate(per_rank):
        cmd += ([":"] if i else []) + ["-np", "1", binary] + args
    return ot.run(*cmd, env=env, timeout=120)


def fail(msg, r):
    sys.exit(f"{msg}: exit {r.returncode}\nstdout: {r.stdout}\nstderr: {r.stderr}")


out = os.path.join(work, "out.json")
report = os.path.join(work, "r.json")

# The same inputs: written once, the report says what was compared.
r = launch([["schedule", graph, "-o", out, "--report", report, "-q"]] * 2)
if r.returncode != 0:
    fail("identical ranks", r)
check = json.load(open(report))["safety"].get("rank_check")
if check != {"ranks": 2, "cost_inputs_identical": True, "written_orders_identical": True}:
    sys.exit(f"report's rank_check: {check}")
os.remove(out)
os.remove(report)

# Tables with different contents (a calibrated table per rank).
table = ("Group  Group Size  Collective  1MB (ms)  2MB (ms)\n"
         "-----  ----------  ----------  --------  --------\n"
         "    0           4  all_gather_into_tensor  0.05  0.07\n")
t0, t1 = os.path.join(work, "t0.table"), os.path.join(work, "t1.table")
open(t0, "w").write(table)
open(t1, "w").write(table.replace("0.07", "0.09"))
r = launch([["schedule", graph, "-o", out, "-q", "--collective-table", t] for t in (t0, t1)])
lines = [l for l in r.stderr.splitlines() if l.startswith("error:")]
if r.returncode != 2 or not lines or "rank 1's collective table " + t1 not in lines[0]:
    fail("different tables", r)
if os.path.exists(out):
    sys.exit("different tables: an output was written")

# Graphs whose collectives differ: rank 1's has one more all-reduce.
g = ot.load_graph(graph)
extra = [
    {"name": "extra_ar", "op": "call_function", "target": "_c10d_functional.all_reduce.default",
     "args": [{"node": "x"}, "sum", "0"], "val": g["nodes"][0]["val"]},
    {"name": "extra_ar_wait", "op": "call_function",
     "target": "_c10d_functional.wait_tensor.default", "args": [{"node": "extra_ar"}],
     "val": g["nodes"][0]["val"]},
]
g["nodes"][-1:-1] = extra
g["nodes"][-1]["args"][0].append({"node": "extra_ar_wait"})
other = os.path.join(work, "other.json")
json.dump(g, open(other, "w"))
r = launch([["schedule", p, "-o", out, "-q"] for p in (graph, other)])
lines = [l for l in r.stderr.splitlines() if l.startswith("error:")]
if r.returncode != 2 or not lines or "rank 1's written graph issues group 0's collectives" not in lines[0]:
    fail("different graphs", r)
if os.path.exists(out):
    sys.exit("different graphs: an output was written")
print("rank agreement under mpirun -np 2: identical ranks pass; a differing table and a "
      "differing collective sequence stop every rank before anything is written")
