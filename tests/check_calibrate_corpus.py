#!/usr/bin/env python3
"""calibrate on the real Kineto traces of ../shared/corpus/kineto.

The table's rows are recomputed here from the same trace events, apart from
the tool: the fastest duration of each (group, group size, collective, bytes)
(one rank: no skew correction possible), a least-squares line through them
(refitted through the origin if its latency came out negative, as the tool
documents), evaluated at 1 ... 2048 MiB. The table must then schedule a graph
through --collective-table. The sampled two-rank traces hold only send/recv
kernels without collective metadata: one error line, exit 2, nothing written.

Usage: check_calibrate_corpus.py OVERLAP_SCHED CORPUS_DIR WORK_DIR
Exits 77 (ctest's skip) when the corpus is absent.
"""
import gzip
import json
import os
import sys

import osched_testing as ot

SKIP = 77
DTYPE_BYTES = {"Float": 4, "Double": 8, "Half": 2, "BFloat16": 2, "Long": 8, "Int": 4,
               "Short": 2, "Char": 1, "Byte": 1, "Bool": 1}
KIND = {"allreduce": "all_reduce", "broadcast": "broadcast"}
SIZES = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048]


def expected_rows(path):
    events = json.load(gzip.open(path))["traceEvents"]
    fastest = {}
    for e in events:
        a = e.get("args", {})
        if e.get("cat") != "kernel" or not e.get("name", "").startswith("nccl") or \
                "Collective name" not in a:
            continue
        key = (a["Process Group Name"], a["Group size"], KIND[a["Collective name"]],
               a["In msg nelems"] * DTYPE_BYTES[a["dtype"]])
        fastest[key] = min(fastest.get(key, float("inf")), e["dur"])
    rows = {}
    for (group, size, kind, nbytes), us in fastest.items():
        rows.setdefault((group, size, kind), []).append((nbytes / 2**20, us / 1e3))
    out = {}
    for key, pts in rows.items():
        n = len(pts)
        mx = sum(x for x, _ in pts) / n
        my = sum(y for _, y in pts) / n
        sxx = sum((x - mx) ** 2 for x, _ in pts)
        if sxx > 0:
            b = sum((x - mx) * (y - my) for x, y in pts) / sxx
            a = my - b * mx
            if b < 0:
                a, b = my, 0.0
            elif a < 0:
                a, b = 0.0, sum(x * y for x, y in pts) / sum(x * x for x, _ in pts)
        elif mx >= 1:
            a, b = 0.0, my / mx
        else:
            a, b = my, 0.0
        out[key] = ([a + b * s for s in SIZES], 2 * max(x for x, _ in pts))
    return out


def read_table(path):
    rows, marks = {}, {}
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    for line in lines:
        w = line.split()
        if not w or w[0] in ("Group",) or set(w[0]) == {"-"}:
            continue
        if w[0] == "#":
            if line.startswith("# extrapolated beyond "):
                m = line[len("# extrapolated beyond "):].split()
                marks[(m[2], int(m[3]), m[4])] = float(m[0])
            continue
        rows[(w[0], int(w[1]), w[2])] = [float(v) for v in w[3:]]
    return rows, marks


def main():
    binary, (corpus, work) = ot.binary(sys.argv[1]), sys.argv[2:4]
    trace = os.path.join(corpus, "nccl_data.json.gz")
    if not os.path.exists(trace):
        print(f"skip: no corpus at {corpus}")
        return SKIP
    os.makedirs(work, exist_ok=True)
    failures = []
    table = os.path.join(work, "nccl.table")
    r = ot.run(binary, "calibrate", trace, "-o", table)
    if r.returncode != 0:
        print(r.stderr)
        return 1
    got, marks = read_table(table)
    want = expected_rows(trace)
    if set(got) != set(want):
        failures.append(f"rows {sorted(got)} != {sorted(want)}")
    for key, (values, limit) in want.items():
        if key not in got:
            continue
        for s, w, g in zip(SIZES, values, got[key]):
            if abs(w - g) > 1e-5 * max(1.0, abs(w)):
                failures.append(f"{key} at {s} MiB: expected {w:.6g}, table has {g}")
        if abs(marks.get(key, 0) - limit) > 1e-4 * limit:
            failures.append(f"{key}: extrapolated beyond {marks.get(key)}, expected {limit:.6g}")
    if "one rank traced" not in r.stderr:
        failures.append("no note that one rank allows no skew correction")
    # The table schedules a graph whose all_reduce runs on group '0' of 2 ranks.
    g = ot.GraphBuilder("ar", world_size=2)
    g.wait("w", g.all_reduce("ar", g.ph("x", [2**20])))
    g.output(["w"])
    gpath = os.path.join(work, "ar.json")
    g.save(gpath)
    rep = os.path.join(work, "ar.report.json")
    r = ot.run(binary, "schedule", gpath, "-q", "-o", os.path.join(work, "o.json"), "--report", rep,
               "--collective-table", table)
    if r.returncode != 0:
        failures.append("schedule with the table: " + r.stderr.strip())
    else:
        c = json.load(open(rep, encoding="utf-8"))["collectives"][0]
        # 4 MiB: inside twice the largest measured (about 30 MiB), so measured.
        if c["estimate_source"] != "table" or \
                abs(c["estimated_ms"] - want[("0", 2, "all_reduce")][0][2]) > 1e-5:
            failures.append(f"scheduled all_reduce: {c['estimate_source']} "
                            f"{c['estimated_ms']} ms")
    # Two ranks of send/recv kernels only: one error line, nothing written.
    bad = os.path.join(work, "sendrecv.table")
    r = ot.run(binary, "calibrate", os.path.join(corpus, "sampled_rank-0.json.gz"),
               os.path.join(corpus, "sampled_rank-1.json.gz"), "-o", bad)
    if r.returncode != 2 or r.stderr.count("\n") != 1 or os.path.exists(bad):
        failures.append(f"send/recv traces: exit {r.returncode}, {r.stderr!r}")
    for f in failures:
        print("FAIL:", f)
    if not failures:
        print("calibrate corpus: all checks passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
