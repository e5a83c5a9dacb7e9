"""Start-up of overlap-sched binaries, side by side: the median wall time of
`--version` (start-up alone) and of scheduling a small graph, over interleaved
runs so that both binaries see the same machine load.

  PYTHONPATH=tests python3 scripts/bench/startup.py BIN [BIN...] [--graph G] [--runs N]
"""

import argparse
import os
import statistics
import subprocess
import tempfile
import time

import osched_testing as ot  # PYTHONPATH=tests (see the docstring)


def wall_ms(cmd):
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return (time.perf_counter() - t0) * 1000


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binaries", nargs="+")
    ap.add_argument("--graph", default=os.path.join(ot.ROOT, "testdata", "example_llama_fsdp.json"))
    ap.add_argument("--runs", type=int, default=200)
    args = ap.parse_args()
    args.binaries = [ot.binary(b) for b in args.binaries]
    out = os.path.join(tempfile.mkdtemp(), "out.json")
    cases = {"--version": lambda b: [b, "--version"],
             "schedule": lambda b: [b, "schedule", args.graph, "-o", out, "-q"]}
    times = {(b, c): [] for b in args.binaries for c in cases}
    for _ in range(args.runs):
        for c, make in cases.items():
            for b in args.binaries:
                times[(b, c)].append(wall_ms(make(b)))
    # What spawning any process costs here, /bin/true: start-up is the rest.
    floor = statistics.median(wall_ms(["/bin/true"]) for _ in range(args.runs))
    base = args.binaries[0]
    print(f"process floor (/bin/true): {floor:.2f} ms; start-up = --version minus the floor")
    print(f"{'binary':<50} {'case':<10} {'median ms':>9} {'vs first':>8}")
    for c in cases:
        ref = statistics.median(times[(base, c)])
        for b in args.binaries:
            m = statistics.median(times[(b, c)])
            print(f"{b:<50} {c:<10} {m:9.2f} {m / ref:8.2f}")
    ref = statistics.median(times[(base, "--version")]) - floor
    for b in args.binaries:
        s = statistics.median(times[(b, "--version")]) - floor
        print(f"start-up {b}: {s:.2f} ms, {s / ref:.2f} of the first")


if __name__ == "__main__":
    main()
