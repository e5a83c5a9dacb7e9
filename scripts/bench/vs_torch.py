"""overlap-sched side by side with PyTorch's own overlap pass
(torch._inductor.fx_passes.overlap_scheduling.schedule_overlap_bucketing).

For each graph, traced with make_fx in fake mode (the corpus repros of
../shared/corpus/autoparallel as autoparallel's harness runs them, and 2-D
FSDP x TP decoder steps of several depths from scripts/torch/overlap_sched/example_models.py,
on an 8 x 8 mesh and on a 32 x 8 mesh whose FSDP group spans hosts):

 1. export the GraphModule (the overlap_sched package's bridge) and run the
    tool on it with collective bucketing, timing the whole process;
 2. run PyTorch's pass on the same GraphModule with bucketing on and
    custom_runtime_estimation returning the tool's estimate of every node
    (read from the tool's --trace), timing the pass alone;
 3. export PyTorch's reordered (and bucketed) graph and have the tool simulate
    both written graphs the same way (`schedule`'s "before" figures of each):
    step time, peak memory and, per collective, whether it is hidden.

Prints a markdown table and, per graph, the collectives one order hides
(exposed under 1 us) and the other does not. The last column runs the
tool's order through Inductor (OverlapSchedPass with its pins, on a CPU
trace of the same graph, up to Inductor's scheduler: code generation for
CUDA needs a GPU) and says whether its collective starts, waits and matmul
kernels come in the tool's written order. Not part of the test suite.

usage: .venv-torch/bin/python scripts/bench/vs_torch.py TOOL [--layers 2,16,96]
                                                         [--dp32-layers 2,16] [--only NAME]
                                                         [--keep DIR]
"""

import argparse
import copy
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
import osched_testing as ot  # PYTHONPATH=tests (the .sh wrappers set it)
CORPUS = os.path.join(ROOT, "..", "shared", "corpus", "autoparallel")
HIDDEN_MS = 0.001


# --- graphs ------------------------------------------------------------------

def corpus_graph(path):
    """make_fx of a minifier repro on fake inputs (unbacked sizes allowed), its
    process groups registered under their names in the fake world; returns
    (gm, collective table path or None)."""
    from torch.fx.experimental.proxy_tensor import make_fx

    import minifier_repro

    mod, inputs, table = minifier_repro.load_repro(path)
    gm = make_fx(mod.Repro(), tracing_mode="fake")(*inputs)
    corpus_graph.inputs = inputs  # for inductor_order
    # The repro's mapping of its groups onto the table's (DeepSeek's groups
    # 513 and 521 read the table's group 1), as import-fx records it.
    corpus_graph.group_mapping = (mod.get_colls_group_mapping()
                                  if hasattr(mod, "get_colls_group_mapping") else None)
    return gm, table


def generated_graph(layers, dp=8):
    """A 2-D FSDP x TP decoder step of `layers` layers on a dp x 8 mesh; with
    dp = 32 the FSDP group spans four hosts, and the corpus's 32 x 8 table
    (colls32_8.table: group 0 of 32 ranks, group 1 of 8) costs its calls
    when the corpus is there. Returns (gm, table path or None)."""
    from torch._subclasses.fake_tensor import FakeTensorMode
    from torch.fx.experimental.proxy_tensor import make_fx

    from overlap_sched import example_models as tm

    groups = tm.init_fake_world({"0": dp, "1": 8})
    # CPU fake tensors: the autograd engine would ask for a CUDA context.
    # The export writes them as cuda:0, so the tool costs them as GPU work.
    with FakeTensorMode(allow_non_fake_inputs=True):
        x, ws = tm.transformer_inputs(layers, dp=dp)
    flat = [w for t in ws for w in t]

    def step(x, *flat):
        return tm.transformer_step(x, [flat[i:i + 4] for i in range(0, len(flat), 4)],
                                   groups["0"], groups["1"])

    gm = make_fx(step, tracing_mode="fake")(x, *flat)
    generated_graph.inputs = [x, *flat]
    table = os.path.join(CORPUS, "colls32_8.table")
    return gm, table if dp == 32 and os.path.exists(table) else None


def generated_name(arg):
    """Job argument "N" (dp 8) or "N/32" (dp 32) -> (layers, dp, row name)."""
    layers, _, dp = arg.partition("/")
    dp = int(dp or 8)
    return int(layers), dp, f"fsdp_tp_{layers}_layers" + ("_dp32" if dp == 32 else "")


# --- the tool's order as Inductor compiles it ---------------------------------

def inductor_order(gm, inputs, tool, table_args, decompose):
    """Runs Inductor (post-grad passes with OverlapSchedPass and its pins,
    lowering, its scheduler with fusion and reordering) on `gm` up to code
    generation, which needs a GPU for CUDA graphs: the graph is traced on CPU
    fake tensors and stopped once Inductor's scheduler has ordered its nodes,
    the order code generation emits. Returns "same" when the collective
    starts, waits and matmul kernels come in the tool's written order, else
    where they first differ. `decompose`: apply Inductor's decompositions
    first (a make_fx trace; the corpus repros are post-grad graphs already)."""
    import torch
    import torch._inductor.config as cfg
    from torch._inductor import graph as inductor_graph
    from torch._inductor import ir
    from torch._inductor.compile_fx import compile_fx_inner
    from torch._inductor.decomposition import select_decomp_table
    from torch._subclasses.fake_tensor import FakeTensorMode
    from torch.fx.experimental.proxy_tensor import make_fx
    from torch.fx.experimental.symbolic_shapes import ShapeEnv

    from overlap_sched import torch_bridge as ost

    scheduled = []

    def stop_at_codegen(self):
        self._update_scheduler()
        scheduled.append(list(self.scheduler.nodes))
        raise RuntimeError("stop before code generation")

    def classes(nodes):
        out = []
        for snode in nodes:
            for n in snode.get_nodes():
                if isinstance(n.node, ir._WaitKernel):
                    out.append("w")
                elif isinstance(n.node, ir._CollectiveKernel):
                    out.append("s")
                elif n.is_extern() and str(getattr(n.node, "python_kernel_name", "")).split(".")[-1] \
                        in ("mm", "bmm", "addmm", "baddbmm"):
                    out.append("mm")
        return out

    p = ost.OverlapSchedPass(tool=tool, args=["--collective-bucketing", *table_args],
                             device="cuda:0", hardware={"gpu": "H100-SXM"})
    # The graph moves to the CPU: its inputs (fresh fake tensors of the same
    # shapes) and its own device arguments; Inductor's decompositions are
    # applied as compile_fx would.
    mode = FakeTensorMode(shape_env=ShapeEnv(), allow_non_fake_inputs=True)
    with mode:
        inputs = [torch.empty_strided(t.shape, t.stride(), dtype=t.dtype, device="cpu")
                  if isinstance(t, torch.Tensor) else t for t in inputs]
    cpu = torch.device("cpu")
    for node in gm.graph.nodes:
        node.args, node.kwargs = torch.utils._pytree.tree_map(
            lambda a: cpu if isinstance(a, torch.device) else a, (node.args, node.kwargs))
        # The CPU has no histc of integers (MoE routing counts tokens so):
        # count them as floats, a kernel like any other for the order.
        if node.target is torch.ops.aten.histc.default and not node.args[0].meta["val"].is_floating_point():
            with gm.graph.inserting_before(node):
                as_float = gm.graph.call_function(torch.ops.prims.convert_element_type.default,
                                                  (node.args[0], torch.float32))
            node.args = (as_float, *node.args[1:])
    gm.recompile()
    if decompose:
        with mode:
            gm = make_fx(gm, decomposition_table=select_decomp_table())(*inputs)
    saved = inductor_graph.GraphLowering.codegen
    inductor_graph.GraphLowering.codegen = stop_at_codegen
    try:
        with cfg.patch(p.inductor_options()), mode:
            compile_fx_inner(gm, inputs)
    except Exception:  # the stop, wrapped by Inductor; anything else leaves no order
        if not scheduled:
            raise
    finally:
        inductor_graph.GraphLowering.codegen = saved
    got, want = classes(scheduled[0]), ost.written_sequence(p.last_written)
    if got == want:
        return f"same ({len(got)})"
    k = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b), min(len(got), len(want)))
    return f"differs at {k} of {len(want)}"


# --- one row -----------------------------------------------------------------

def tool_wall(tool, args, runs=5):
    """Wall seconds of the whole tool process (read, schedule, bucket,
    write), best of `runs`, timed by bash: a Python parent that has loaded
    torch adds tens of milliseconds to every spawn."""
    script = 'TIMEFORMAT=%R; for i in $(seq $0); do { time "$@" >/dev/null 2>&1; } 2>&1; done'
    r = subprocess.run(["bash", "-c", script, str(runs), tool, *args], capture_output=True,
                       text=True, check=True)
    return min(float(x) for x in r.stdout.split())


def simulate(tool, graph, table, work, tag):
    """The tool's figures for a graph in its written order."""
    report = os.path.join(work, tag + ".report.json")
    ot.run(tool, "schedule", graph, "-o", os.path.join(work, tag + ".resched.json"),
           "--report", report, "-q", *table, check=True)
    with open(report) as f:
        r = json.load(f)
    hidden = {c["name"]: c["exposed_ms_before"] <= HIDDEN_MS for c in r["collectives"]}
    return {"step_ms": r["simulation"]["step_ms_before"],
            "peak_mib": r["memory"]["original_peak_bytes"] / 2**20,
            "hidden": hidden}


def record_table(path, table, group_mapping):
    """Names `table` and the repro's group mapping in the exported graph, as
    import-fx does for a repro: schedule reads the table beside the graph
    with the mapping (--collective-table names a file without one)."""
    with open(path, encoding="utf-8") as f:
        g = json.load(f)
    g["collective_table"] = {"file": os.path.basename(table),
                             "group_mapping": {str(k): str(v) for k, v in group_mapping.items()}}
    with open(path, "w", encoding="utf-8") as f:
        json.dump(g, f)
    beside = os.path.join(os.path.dirname(path), os.path.basename(table))
    if not os.path.exists(beside):
        os.symlink(os.path.abspath(table), beside)


def row(name, gm, table, tool, keep=None, group_mapping=None):
    from overlap_sched import torch_bridge as ost
    from torch._inductor.fx_passes.overlap_scheduling import schedule_overlap_bucketing

    table_args = ["--collective-table", table] if table and not group_mapping else []
    with tempfile.TemporaryDirectory() as tmp:
        work = keep or tmp
        os.makedirs(work, exist_ok=True)
        src = os.path.join(work, "graph.json")
        ost.export_graph(gm, src, device="cuda:0", hardware={"gpu": "H100-SXM"}, name=name)
        if table and group_mapping:
            record_table(src, table, group_mapping)
        nodes = sum(1 for _ in gm.graph.nodes)

        tool_out = os.path.join(work, "tool.json")
        trace = os.path.join(work, "tool.trace.json")
        tool_args = ["schedule", src, "-o", tool_out, "--collective-bucketing", "-q", *table_args]
        tool_s = tool_wall(tool, tool_args)
        first_report = os.path.join(work, "tool.schedule.report.json")
        ot.run(tool, *tool_args, "--trace", trace, "--report", first_report, check=True)
        with open(first_report) as f:
            first = json.load(f)
        original_peak = first["memory"]["original_peak_bytes"]
        # The bound no order and no bucketing of the input beats: PyTorch's
        # written graph is one of those graphs.
        bound = first["optimality"]["bound_ms"]
        with open(trace) as f:
            events = json.load(f)["traceEvents"]
        # The original order's timeline (pid 1) carries every timed node once.
        est = {e["name"]: e["args"]["estimate_ms"] for e in events
               if e.get("pid") == 1 and e.get("ph") == "X" and e.get("cat") != "exposed_wait"}

        def estimate(node, override_size):
            if override_size is not None:
                return None  # a bucket's size: PyTorch's own model prices it
            return est.get(node.name, 0.0)

        # compute_estimator="analytical": with "benchmark" (the default) the
        # pass times each compute node on real tensors (here, the CPU) before
        # it asks custom_runtime_estimation; "analytical" takes the custom
        # estimate of every node as given.
        def torch_pass(g):
            return schedule_overlap_bucketing(g, collective_bucketing=True,
                                              custom_runtime_estimation=estimate,
                                              compute_estimator="analytical")

        torch_pass(copy.deepcopy(gm))  # warm-up: lazy imports and caches are not the pass
        t = time.perf_counter()
        torch_gm = torch_pass(gm)
        torch_s = time.perf_counter() - t
        torch_out = os.path.join(work, "torch.json")
        ost.export_graph(torch_gm, torch_out, device="cuda:0", hardware={"gpu": "H100-SXM"},
                         name=name)
        if table and group_mapping:
            record_table(torch_out, table, group_mapping)

        ours = simulate(tool, tool_out, table_args, work, "tool")
        theirs = simulate(tool, torch_out, table_args, work, "torch")
        # Where the tool spent more of the memory budget than PyTorch did, run
        # it again with the peak allowed to grow only to PyTorch's.
        capped = ours
        if ours["peak_mib"] > theirs["peak_mib"]:
            grow = max(0.0, theirs["peak_mib"] * 2**20 - original_peak) / 2**30
            capped_out = os.path.join(work, "tool.capped.json")
            ot.run(tool, *tool_args[:3], capped_out, *tool_args[4:], "--max-memory-increase-gb",
                   f"{grow:.9f}", "--max-memory-increase-ratio", "0", check=True)
            capped = simulate(tool, capped_out, table_args, work, "capped")
    both = sorted(set(ours["hidden"]) & set(theirs["hidden"]))
    only_torch = [c for c in both if theirs["hidden"][c] and not ours["hidden"][c]]
    only_tool = [c for c in both if ours["hidden"][c] and not theirs["hidden"][c]]
    return {"graph": name, "nodes": nodes, "torch_s": torch_s, "tool_s": tool_s,
            "torch_step": theirs["step_ms"], "tool_step": ours["step_ms"], "bound": bound,
            "torch_peak": theirs["peak_mib"], "tool_peak": ours["peak_mib"],
            "capped_step": capped["step_ms"], "capped_peak": capped["peak_mib"],
            "only_torch_hides": only_torch, "only_tool_hides": only_tool,
            "torch_collectives": len(theirs["hidden"]), "tool_collectives": len(ours["hidden"]),
            "estimated_nodes": len(est)}


def child(tool, kind, arg, out, keep):
    if kind == "corpus":
        gm, table = corpus_graph(arg)
        name = os.path.basename(arg)[:-3]
    else:
        layers, dp, name = generated_name(arg)
        gm, table = generated_graph(layers, dp)
    result = row(name, gm, table, tool, os.path.join(keep, name) if keep else None,
                 corpus_graph.group_mapping if kind == "corpus" else None)
    # Traced again: PyTorch's pass above rewrote the first graph.
    try:
        if kind == "corpus":
            gm, _ = corpus_graph(arg)
            inputs = corpus_graph.inputs
        else:
            gm, _ = generated_graph(layers, dp)
            inputs = generated_graph.inputs
        result["inductor"] = inductor_order(gm, inputs, tool,
                                            ["--collective-table", table] if table else [],
                                            decompose=kind != "corpus")
    except Exception as e:  # noqa: BLE001 - the column says why
        why = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        result["inductor"] = f"not compiled: {why[:80]}"
    with open(out, "w") as f:
        json.dump(result, f)


# --- driver ------------------------------------------------------------------

def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("tool")
    p.add_argument("--layers", default="2,16,96", help="depths of the generated decoder steps")
    p.add_argument("--dp32-layers", default="2,16",
                   help="depths of generated steps whose FSDP group has 32 ranks (inter-node)")
    p.add_argument("--only", help="run just the graphs whose name contains this")
    p.add_argument("--keep", help="keep each graph's files (exported, scheduled, reports) here")
    p.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    a = p.parse_args()
    tool = ot.binary(a.tool)
    if a.child:
        child(tool, *a.child, a.keep)
        return 0

    import torch

    jobs = []
    if os.path.isdir(CORPUS):
        jobs += [("corpus", os.path.join(CORPUS, f)) for f in sorted(os.listdir(CORPUS))
                 if f.endswith(".py")]
    else:
        print(f"(no corpus at {CORPUS}: generated graphs only)")
    jobs += [("generated", n) for n in a.layers.split(",") if n]
    jobs += [("generated", n + "/32") for n in a.dp32_layers.split(",") if n]
    if a.only:
        jobs = [j for j in jobs
                if a.only in (os.path.basename(j[1]) if j[0] == "corpus" else generated_name(j[1])[2])]
    rows = []
    with tempfile.TemporaryDirectory() as work:
        for i, (kind, arg) in enumerate(jobs):
            out = os.path.join(work, f"{i}.json")
            # One process per graph: the fake world's size is per graph.
            keep = ["--keep", os.path.abspath(a.keep)] if a.keep else []
            r = subprocess.run([sys.executable, __file__, tool, "--child", kind, str(arg), out,
                                *keep], capture_output=True, text=True)
            if r.returncode != 0:
                tail = r.stderr.strip().splitlines()[-1:] or ["?"]
                rows.append({"graph": os.path.basename(str(arg)), "error": tail[0]})
                continue
            with open(out) as f:
                rows.append(json.load(f))

    print(f"PyTorch {torch.__version__}: schedule_overlap_bucketing(collective_bucketing=True, "
          "compute_estimator='analytical') with the tool's per-node estimates; "
          "both written graphs simulated by overlap-sched (H100-SXM)\n")
    print("| graph | nodes | torch s | tool s | torch step ms | tool step ms | torch peak MiB | "
          "tool peak MiB | tool step ms at <= torch peak (peak MiB) | Inductor's order of the "
          "tool's graph |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        if "error" in r:
            print(f"| {r['graph']} | failed: {r['error']} |||||||||")
            continue
        print(f"| {r['graph']} | {r['nodes']} | {r['torch_s']:.2f} | {r['tool_s']:.3f} | "
              f"{r['torch_step']:.2f} | {r['tool_step']:.2f} | {r['torch_peak']:.0f} | "
              f"{r['tool_peak']:.0f} | {r['capped_step']:.2f} ({r['capped_peak']:.0f}) | "
              f"{r.get('inductor', '')} |")
    print()
    for r in rows:
        if "error" in r:
            continue
        speed = r["torch_s"] / r["tool_s"] if r["tool_s"] > 0 else float("inf")
        print(f"- {r['graph']}: tool {speed:.0f}x faster; step {r['tool_step'] / r['torch_step']:.3f}x "
              f"of PyTorch's; collectives after bucketing: torch {r['torch_collectives']}, "
              f"tool {r['tool_collectives']}; bound over every bucketing {r['bound']:.2f} ms "
              + ("(at most PyTorch's step)" if r["bound"] <= r["torch_step"] + 1e-6
                 else "(ABOVE PyTorch's step: the bound is wrong)"))
        for label, names in (("only PyTorch's order hides", r["only_torch_hides"]),
                             ("only the tool's order hides", r["only_tool_hides"])):
            if names:
                shown = ", ".join(names[:8]) + (f" and {len(names) - 8} more" if len(names) > 8 else "")
                print(f"  - {label}: {shown}")
    broken = [r["graph"] for r in rows if "error" not in r and r["bound"] > r["torch_step"] + 1e-6]
    if broken:
        print(f"the bound over every bucketing is above PyTorch's written step on: {', '.join(broken)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
