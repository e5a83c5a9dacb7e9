#!/usr/bin/env python3
"""SIGTERM and SIGINT while outputs are being written leave no temporary and
no output behind, and the tool dies of the signal.

Usage: check_signal_cleanup.py BINARY WORKDIR

A graph big enough that writing its output takes a while is scheduled; as
soon as the temporary appears, the signal is sent. If the run finished before
the temporary was seen, it is tried again (at most 5 times per signal).
"""
import os
import shutil
import signal
import subprocess
import sys
import time

import osched_testing as ot


def make_graph(path, layers=6000):
    """A chain of all-gather -> matmul layers: big enough that writing its
    output takes a while."""
    g = ot.GraphBuilder("signals", world_size=8)
    h = g.ph("x", [1024, 1024], "bfloat16")
    for l in range(layers):
        g.ph(f"p{l}", [128, 1024], "bfloat16")
    for l in range(layers):
        g.wait(f"w{l}", g.all_gather(f"ag{l}", f"p{l}"))
        h = g.mm(f"mm{l}", h, f"w{l}")
    g.output([h])
    g.save(path)


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
    binary, work = ot.binary(sys.argv[1]), sys.argv[2]
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
