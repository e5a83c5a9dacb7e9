#!/usr/bin/env python3
"""Speed benchmark (not a test): per graph family and size, the phases of
`schedule --timings` (read; estimate+analyse; schedule; simulate, report
building and reordering; bucket; pin; write) for JSON
and protobuf input, read and write MB/s, wall time and peak RSS, and
`python3 json.load` of the same JSON file for comparison, all measured in
the same run.

usage: scripts/bench/run.py [OVERLAP_SCHED] [--sizes 10000,100000] [--families llama,2d,moe]
                            [--bucketing] [--one-core] [--repeat 2]

Each row is the fastest of --repeat runs."""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

import osched_testing as ot  # PYTHONPATH=tests (the .sh wrappers set it)

ap = argparse.ArgumentParser()
ap.add_argument("tool", nargs="?", help="the binary (default: $OSCHED_BINARY, else build/)")
ap.add_argument("--sizes", default="10000,100000")
ap.add_argument("--families", default="llama,2d,moe")
ap.add_argument("--bucketing", action="store_true", help="also --collective-bucketing --insert-overlap-deps")
ap.add_argument("--one-core", action="store_true",
                help="also run each graph pinned to one core (taskset -c 0): the rows marked '1 core'")
ap.add_argument("--repeat", type=int, default=2,
                help="runs per row; the fastest is shown (the first pays for pages the VM's host took back)")
args = ap.parse_args()
args.tool = ot.binary(args.tool)


def generate(family, nodes, path):
    if family == "llama":
        ot.llama_fsdp(layers=max(1, round(nodes / 70.6))).save(path)
    elif family == "moe":
        ot.moe_a2a_sym_size(layers=max(1, round(nodes / per_moe_layer))).save(path)
    else:
        ot.two_d(max(1, round(nodes / 17.1))).save(path)


def count_nodes(path):
    with open(path) as f:
        return len(json.load(f)["nodes"])


with tempfile.TemporaryDirectory() as d:
    probe = os.path.join(d, "probe.json")
    ot.moe_a2a_sym_size(layers=4).save(probe)
    per_moe_layer = count_nodes(probe) / 4


def schedule(path, out, extra, pin=False):
    cmd = ["/usr/bin/time", "-f", "RSS %M", *(["taskset", "-c", "0"] if pin else []), args.tool, "schedule",
           path, "-o", out, "-q", "--timings", "--report", out + ".report.json", *extra]
    t0 = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.monotonic() - t0
    if p.returncode != 0:
        sys.exit(p.stderr)
    phases = dict((m.group(1), float(m.group(2))) for m in re.finditer(r"timing: (\S+)\s+([\d.]+) s", p.stderr))
    rss = int(re.search(r"RSS (\d+)", p.stderr).group(1)) / 1024
    return phases, wall, rss


rows = []
with tempfile.TemporaryDirectory() as d:
    for family in args.families.split(","):
        for size in (int(s) for s in args.sizes.split(",")):
            src = os.path.join(d, f"{family}{size}.json")
            generate(family, size, src)
            nodes = count_nodes(src)
            pb = src[:-5] + ".pb"
            ot.run(args.tool, "convert", src, pb, check=True)
            first = len(rows)
            for fmt, path in (("json", src), ("pb", pb)):
                mb = os.path.getsize(path) / 1e6
                variants = [("", [], False)]
                if args.bucketing:
                    variants.append(("+bucket+deps", ["--collective-bucketing", "--insert-overlap-deps"], False))
                if args.one_core:
                    variants.append((" (1 core)", [], True))
                for label, extra, pin in variants:
                    out = os.path.join(d, "out." + fmt)
                    phases, wall, rss = min((schedule(path, out, extra, pin) for _ in range(max(1, args.repeat))),
                                            key=lambda run: run[1])
                    out_mb = os.path.getsize(out) / 1e6
                    rows.append([family + label, nodes, fmt, mb, phases, wall, rss, out_mb, None])
            # Python's load after the tool's runs: the gigabytes it frees
            # would otherwise be handed back to the host just before the
            # tool touches fresh memory (on these VMs, a second or more).
            t0 = time.monotonic()
            json.load(open(src))
            py_load = time.monotonic() - t0
            for row in rows[first:]:
                if row[2] == "json":
                    row[8] = py_load

print("| family | nodes | in | MB | read s | read MB/s | analyse s | schedule s | refine s | report s | bucket s | pin s "
      "| write s | write MB/s | wall s | peak RSS MB | python json.load s |")
print("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for fam, nodes, fmt, mb, ph, wall, rss, out_mb, py in rows:
    rd, wr = ph.get("read", 0), ph.get("write", 0)
    analyse = ph.get("estimate", 0) + ph.get("analyse", 0)
    report = sum(ph.get(k, 0) for k in ("simulate", "report", "reorder", "report-json"))
    print(f"| {fam} | {nodes} | {fmt} | {mb:.1f} | {rd:.3f} | {mb / rd if rd else 0:.0f} | {analyse:.3f} | "
          f"{ph.get('schedule', 0):.3f} | {ph.get('refine', 0):.3f} | {report:.3f} | {ph.get('bucket', 0):.3f} | {ph.get('pin', 0):.3f} | "
          f"{wr:.3f} | {out_mb / wr if wr else 0:.0f} | {wall:.2f} | {rss:.0f} | {'' if py is None else f'{py:.3f}'} |")
