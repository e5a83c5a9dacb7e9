"""batch under mpirun -np 3: the files are split across ranks, rank 0 writes
the summary of all of them, and every output equals a single-process run's.

usage: check_batch_mpi.py OVERLAP_SCHED TESTDATA WORKDIR"""
import os
import shutil
import sys

import osched_testing as ot

binary = ot.binary(sys.argv[1])
testdata, work = (os.path.abspath(a) for a in sys.argv[2:4])
shutil.rmtree(work, ignore_errors=True)
inp = os.path.join(work, "in")
os.makedirs(inp)
names = sorted(n for n in os.listdir(os.path.join(testdata, "scenarios"))
               if n.endswith(".json") and not n.startswith("estimates"))[:8]
for n in names:
    shutil.copy(os.path.join(testdata, "scenarios", n), inp)
mpirun = shutil.which("mpirun")
if not mpirun:
    sys.exit("mpirun not found: install openmpi-bin (scripts/install-deps.sh)")
launch = [mpirun, "-np", "3", "--oversubscribe"] + (["--allow-run-as-root"] if os.geteuid() == 0 else [])
env = dict(os.environ, OMPI_MCA_btl_vader_single_copy_mechanism="none")
r = ot.run(launch[0], *launch[1:], binary, "batch", inp, "-o", os.path.join(work, "mpi"), env=env,
           timeout=240)
if r.returncode != 0:
    sys.exit(f"mpirun batch: exit {r.returncode}\n{r.stdout}\n{r.stderr}")
if r.stdout.count(f"{len(names)} graphs:") != 1:
    sys.exit("rank 0 alone prints the table of all graphs:\n" + r.stdout)
r = ot.run(binary, "batch", inp, "-o", os.path.join(work, "one"), "-q")
if r.returncode != 0:
    sys.exit("single-process batch failed: " + r.stderr)
for n in names + ["summary.jsonl", "summary.csv"]:
    for f in [n, n.replace(".json", ".report.json")] if n.endswith(".json") else [n]:
        a = open(os.path.join(work, "mpi", f), "rb").read()
        b = open(os.path.join(work, "one", f), "rb").read()
        if a != b:
            sys.exit(f"{f}: differs between mpirun -np 3 and one process")
print(f"batch under mpirun -np 3: {len(names)} graphs, outputs identical to one process")
