#!/usr/bin/env python3
"""SIGTERM and SIGINT while outputs are being written leave no temporary and
no output behind, and the tool dies of the signal.

Usage: check_signal_cleanup.py BINARY WORKDIR

A graph big enough that writing its output takes a while is scheduled; as
soon as the temporary appears, the signal is sent. If the run finished before
the temporary was seen, it is tried again (at most 5 times per signal).
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import time


def make_graph(path, layers=6000):
    nodes = []

    def add(name, op, target, args, shape):
        stride, s = [], 1
        for d in reversed(shape):
            stride.append(s)
            s *= d
        nodes.append({"name": name, "op": op, "target": target, "args": args, "kwargs": {},
                      "val": {"shape": shape, "stride": list(reversed(stride)), "dtype": "bfloat16",
                              "device": "cuda:0"}})

    ref = lambda n: {"node": n}
    add("x", "placeholder", "x", [], [1024, 1024])
    for l in range(layers):
        add(f"p{l}", "placeholder", f"p{l}", [], [128, 1024])
    h = "x"
    for l in range(layers):
        add(f"ag{l}", "call_function", "_c10d_functional.all_gather_into_tensor.default",
            [ref(f"p{l}"), 8, "0"], [1024, 1024])
        add(f"w{l}", "call_function", "_c10d_functional.wait_tensor.default", [ref(f"ag{l}")], [1024, 1024])
        add(f"mm{l}", "call_function", "aten.mm.default", [ref(h), ref(f"w{l}")], [1024, 1024])
        h = f"mm{l}"
    nodes.append({"name": "output", "op": "output", "target": "output", "args": [[ref(h)]], "kwargs": {},
                  "val": None})
    with open(path, "w") as f:
        json.dump({"format": "overlap-sched.graph", "version": 1, "name": "signals", "rank": 0,
                   "world_size": 8, "process_groups": {"0": {"ranks": list(range(8))}}, "nodes": nodes}, f)


def one_try(binary, graph, out_dir, sig):
    for name in os.listdir(out_dir):
        os.unlink(os.path.join(out_dir, name))
    out = os.path.join(out_dir, "out.json")
    proc = subprocess.Popen([binary, "schedule", graph, "-o", out, "--report",
                             os.path.join(out_dir, "report.json"), "-q"], stderr=subprocess.DEVNULL)
    seen = False
    while proc.poll() is None:
        if any("osched-tmp" in n for n in os.listdir(out_dir)):
            proc.send_signal(sig)
            seen = True
            break
        time.sleep(0.0005)
    proc.wait()
    if not seen or proc.returncode == 0:
        return None  # finished before the signal landed: try again
    left = os.listdir(out_dir)
    ok = proc.returncode == -sig and left == []
    if not ok:
        print(f"signal {sig}: exit {proc.returncode}, left {left}")
    return ok


def main():
    binary, work = sys.argv[1], sys.argv[2]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(os.path.join(work, "out"))
    graph = os.path.join(work, "big.json")
    make_graph(graph)
    results = []
    for sig in (signal.SIGTERM, signal.SIGINT):
        for _ in range(5):
            r = one_try(binary, graph, os.path.join(work, "out"), sig)
            if r is not None:
                results.append(r)
                break
        else:
            print(f"signal {sig}: the temporary was never seen; cannot test")
            results.append(False)
    shutil.rmtree(work, ignore_errors=True)
    passed = sum(results)
    print(f"{passed} passed, {len(results) - passed} failed")
    sys.exit(0 if all(results) else 1)


if __name__ == "__main__":
    main()
