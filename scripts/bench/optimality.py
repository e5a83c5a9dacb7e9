#!/usr/bin/env python3
"""How far each corpus schedule is from the optimum, and whose fault the gap is.

For each `*.py` repro (default ../shared/corpus/autoparallel): import-fx,
then schedule with collective bucketing and the repro's own table and group
mapping (as import-fx records them), writing the report and the simulation
model (`--sim-model`). The report's `optimality` section gives the step and
a bound no order and no bucketing of
the input beats. Then CP-SAT (scripts/bench/window_reference.py) solves
windows of the written order for the whole step, centred on the waits of the
most exposed collectives, one after another on the improving order: each
window's proven optimum against the tool's cost of it. Whatever the windows
gain is the schedule's part of the gap (at least that much is there); what
they leave is the bound's looseness or lies beyond any window's reach. The
windows ignore memory and in-flight limits, so a gain found is an upper
estimate of what an order within the budget could take there.

Usage: optimality.py OVERLAP_SCHED [DIR] [--windows K | --tile] [--size W] [--seconds S]
Needs ortools (scripts/install-deps.sh puts it in .venv-torch). Not part of
the test suite; its check against brute force is tests/check_window_reference.py.
"""
import argparse
import json
import os
import sys
import tempfile
import time

import window_reference as wr

import osched_testing as ot  # PYTHONPATH=tests (the .sh wrappers set it)


def exposed_waits(m, report, count):
    """Positions of the first waits of the `count` most exposed collectives
    (buckets included), most exposed first."""
    exposure = {}
    for c in report["collectives"]:
        if c.get("bucket") is None and c["exposed_ms"] > 0:
            exposure[c["name"]] = c["exposed_ms"]
    for b in (report.get("bucketing") or {}).get("buckets", []):
        if b.get("exposed_ms", 0) > 0:
            exposure[b["name"]] = b["exposed_ms"]
    index = {name: v for v, name in enumerate(m.names)}
    first_wait = {}
    for v in range(m.n):
        for c in m.waits_on[v]:
            first_wait.setdefault(c, v)
    ranked = sorted(exposure.items(), key=lambda kv: (-kv[1], kv[0]))
    out = []
    for name, _ in ranked:
        v = index.get(name)
        if v is not None and v in first_wait and first_wait[v] not in out:
            out.append(first_wait[v])
        if len(out) == count:
            break
    return out


def one_graph(binary, src, args, tmp):
    base = os.path.basename(src)[:-3]
    graph, out, report_path, model_path = (os.path.join(tmp, base + ext) for ext in
                                           (".json", ".sched.json", ".report.json", ".model.json"))
    ot.run(binary, "import-fx", src, "-o", graph, check=True)
    # The repro's own table with its group mapping, as import-fx recorded
    # them: schedule reads that table beside the graph. (--collective-table
    # would name the file without the mapping, and a mapped group, such as
    # DeepSeek's 64-rank FSDP group, would find no row.)
    with open(graph, encoding="utf-8") as f:
        table = (json.load(f).get("collective_table") or {}).get("file")
    found = table and os.path.exists(os.path.join(os.path.dirname(src), table))
    if found and not os.path.exists(os.path.join(tmp, table)):
        os.symlink(os.path.join(os.path.abspath(os.path.dirname(src)), table),
                   os.path.join(tmp, table))
    table_args = [] if found else ["--collective-table", "none"]
    t = time.perf_counter()
    ot.run(binary, "schedule", graph, "-o", out, "--collective-bucketing", "--report", report_path,
           "--sim-model", model_path, "-q", *table_args, check=True)
    tool_s = time.perf_counter() - t
    with open(report_path) as f:
        report = json.load(f)
    with open(model_path) as f:
        m = wr.Model(json.load(f))
    order = list(range(m.n))
    step0 = wr.simulate(m, order)[0]
    opt = report["optimality"]
    windows = []
    t = time.perf_counter()
    def spans():
        if args.tile:
            # Every window of the order at half-window strides that holds a
            # collective or a wait (one of compute alone changes no time).
            for a in range(0, m.n, max(1, args.size // 2)):
                b = min(m.n, a + args.size)
                if any(m.role[v] == "collective" or m.waits_on[v] for v in order[a:b]):
                    yield a, b, m.names[order[a]]
            return
        for centre in exposed_waits(m, report, args.windows):
            # The window around the wait, in positions of the current order.
            a = max(0, order.index(centre) - args.size // 2)
            yield a, min(m.n, a + args.size), m.names[centre]

    for a, b, at in spans():
        r = wr.solve_window(m, order, a, b, seconds=args.seconds)
        windows.append({"at": at, "written_ns": r["written"], "best_ns": r["best"],
                        "bound_ns": r["bound"], "optimal": r["optimal"]})
        if r["best"] < r["written"]:
            order = r["order"]
    solve_s = time.perf_counter() - t
    final = wr.simulate(m, order)[0]
    return {"graph": base, "nodes": m.n, "step_ms": opt["step_ms"], "bound_ms": opt["bound_ms"],
            "gap_percent": opt["gap_percent"], "model_step_ms": step0 / 1e6,
            "windows_step_ms": final / 1e6, "windows": windows, "tool_s": tool_s,
            "solve_s": solve_s}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("folder", nargs="?", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "shared", "corpus",
        "autoparallel"))
    ap.add_argument("--windows", type=int, default=8, help="windows per graph")
    ap.add_argument("--size", type=int, default=40, help="nodes per window")
    ap.add_argument("--seconds", type=float, default=10.0, help="solver limit per window")
    ap.add_argument("--tile", action="store_true",
                    help="windows over the whole order (half-window strides) instead of around "
                         "the most exposed waits")
    ap.add_argument("--json", help="also write the rows here")
    args = ap.parse_args()
    try:
        import ortools  # noqa: F401
    except ImportError:
        print("ortools is not installed: run scripts/install-deps.sh, then use .venv-torch/bin/python")
        return 2
    if not os.path.isdir(args.folder):
        print(f"skip: no corpus at {args.folder}")
        return 0
    binary = ot.binary(args.binary)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in sorted(f for f in os.listdir(args.folder) if f.endswith(".py")):
            rows.append(one_graph(binary, os.path.join(args.folder, name), args, tmp))
    where = "over the whole order" if args.tile else f"up to {args.windows} per graph"
    print(f"windows: {where}, {args.size} nodes each, {args.seconds:g} s each "
          "(CP-SAT; memory and in-flight limits not modelled)\n")
    print("| graph | nodes | step ms | bound ms | gap % | windows proven optimal | "
          "schedule's part ms | step after windows ms | rest of gap % | tool s | solver s |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        proven = sum(w["optimal"] for w in r["windows"])
        gain = r["model_step_ms"] - r["windows_step_ms"]
        rest = 100.0 * (r["windows_step_ms"] - r["bound_ms"]) / r["bound_ms"]
        print(f"| {r['graph']} | {r['nodes']} | {r['step_ms']:.2f} | {r['bound_ms']:.2f} | "
              f"{r['gap_percent']:.2f} | {proven} of {len(r['windows'])} | {gain:.3f} | "
              f"{r['windows_step_ms']:.2f} | {rest:.2f} | {r['tool_s']:.2f} | {r['solve_s']:.1f} |")
    print()
    for r in rows:
        if args.tile:
            gains = [w for w in r["windows"] if w["best_ns"] < w["written_ns"]]
            print(f"- {r['graph']}: {len(r['windows'])} windows, {len(gains)} improved" +
                  "".join(f"; at {w['at']} {(w['written_ns'] - w['best_ns']) / 1e6:.3f} ms"
                          for w in gains[:10]))
            continue
        print(f"- {r['graph']}: " + "; ".join(
            f"{w['at']}: {w['written_ns'] / 1e6:.3f} -> {w['best_ns'] / 1e6:.3f} ms"
            + ("" if w["optimal"] else f" (bound {w['bound_ns'] / 1e6:.3f})")
            for w in r["windows"]))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
