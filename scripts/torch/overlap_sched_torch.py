"""Bridge between torch.fx and overlap-sched.

export_graph(gm, path)        write a post-grad GraphModule (or fx.Graph) as graph-format v1 JSON
apply_schedule(gm, path)      reorder gm's graph to the order in overlap-sched's output
OverlapSchedPass(...)         a post_grad_custom_post_pass for torch._inductor that runs the CLI

Command line:
  python3 scripts/torch/overlap_sched_torch.py demo [--tool build/overlap-sched] [--keep DIR]
traces a small FSDP-style model with make_fx, exports it, schedules it with the tool, applies
the order and checks that both GraphModules compute the same outputs.
"""

import argparse
import json
import operator
import os
import subprocess
import sys
import tempfile

import torch
import torch.fx
from torch._inductor.custom_graph_pass import CustomGraphPass

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

FORMAT = "overlap-sched.graph"

# Collective ops whose arguments name a process group (functional collectives).
_GROUP_ARGS = {
    # op name: (index of group_size or None, index of group_name)
    "all_gather_into_tensor": (1, 2),
    "all_gather_into_tensor_coalesced": (1, 2),
    "reduce_scatter_tensor": (2, 3),
    "reduce_scatter_tensor_coalesced": (2, 3),
    "all_reduce": (None, 2),
    "all_reduce_coalesced": (None, 2),
    "all_to_all_single": (None, 3),
}


class ExportError(ValueError):
    """The graph holds something the graph format cannot express."""


def _graph_of(gm_or_graph):
    return gm_or_graph.graph if isinstance(gm_or_graph, torch.fx.GraphModule) else gm_or_graph


def _target_name(node):
    t = node.target
    if node.op in ("placeholder", "get_attr", "output"):
        return str(t)
    if isinstance(t, torch._ops.OpOverload):
        return str(t)  # "aten.mm.default"
    if isinstance(t, torch._ops.OpOverloadPacket):
        return str(t) + ".default"
    if t is operator.getitem:
        return "getitem"
    if callable(t):
        module = getattr(t, "__module__", None) or ""
        module = "operator" if module == "_operator" else module
        return f"{module}.{t.__name__}" if module else t.__name__
    return str(t)


def _dim(d):
    """An int, or {"sym", "hint"} for a SymInt (no hint when unbacked)."""
    if isinstance(d, int):
        return d
    node = getattr(d, "node", None)
    if node is not None and hasattr(node, "hint"):  # a SymInt
        out = {"sym": str(d)}
        if node.hint is not None:
            out["hint"] = int(node.hint)
        return out
    return int(d)


def _dtype_name(dtype):
    return str(dtype).replace("torch.", "")


def _storage_key(t):
    try:
        if hasattr(t, "untyped_storage"):
            return t.untyped_storage()._cdata
        return t.storage()._cdata
    except Exception:  # tensors without storage (some subclasses)
        return None


class _Exporter:
    def __init__(self, device=None):
        self.device = device
        self.storage_ids = {}
        self.storage_users = {}

    def tensor_meta(self, t):
        if isinstance(t, torch.Tensor):
            meta = {
                "shape": [_dim(s) for s in t.shape],
                "stride": [_dim(s) for s in t.stride()],
                "dtype": _dtype_name(t.dtype),
                "device": self.device or str(t.device),
            }
            key = _storage_key(t)
            if key is not None:
                sid = self.storage_ids.setdefault(key, f"st{len(self.storage_ids)}")
                meta["storage"] = sid
                self.storage_users[sid] = self.storage_users.get(sid, 0) + 1
            return meta
        # torch.fx.passes.shape_prop.TensorMetadata
        if hasattr(t, "shape") and hasattr(t, "dtype") and hasattr(t, "stride"):
            return {
                "shape": [_dim(s) for s in t.shape],
                "stride": [_dim(s) for s in t.stride],
                "dtype": _dtype_name(t.dtype),
                "device": self.device or "cuda:0",
            }
        return None

    def val(self, node):
        v = node.meta.get("val", node.meta.get("tensor_meta"))
        if isinstance(v, (list, tuple)) and not hasattr(v, "dtype"):
            return [self.tensor_meta(x) for x in v]
        return self.tensor_meta(v) if v is not None else None

    def value(self, a, where):
        if isinstance(a, torch.fx.Node):
            return {"node": a.name}
        if a is None or isinstance(a, (bool, int, str)):
            return a
        if isinstance(a, float):
            if a != a or a in (float("inf"), float("-inf")):
                raise ExportError(f"{where}: non-finite float {a!r} cannot be written as JSON")
            return a
        if isinstance(a, (list, tuple)):
            return [self.value(x, where) for x in a]
        if isinstance(a, dict):  # e.g. flex_attention's kernel_options, as import-fx writes dicts
            return [[str(k), self.value(v, where)] for k, v in a.items()]
        if isinstance(a, torch.dtype):
            return _dtype_name(a)
        if isinstance(a, torch.device):
            return self.device or str(a)
        if isinstance(a, (torch.layout, torch.memory_format)):
            return str(a)
        if hasattr(a, "node") and hasattr(a.node, "hint"):  # a SymInt literal
            return int(a.node.hint) if a.node.hint is not None else str(a)
        raise ExportError(f"{where}: argument of type {type(a).__name__} has no graph-format form")


def _live_group_ranks(name):
    """The global ranks of the process group registered under `name` in this
    process (a real or fake process group), or None."""
    try:
        import torch.distributed as dist
        from torch._C._distributed_c10d import _resolve_process_group

        if not dist.is_available() or not dist.is_initialized():
            return None
        return [int(r) for r in dist.get_process_group_ranks(_resolve_process_group(name))]
    except (ImportError, RuntimeError, ValueError):
        return None


def _groups_from_collectives(nodes, rank):
    groups = {}
    for node in nodes:
        if node.op != "call_function" or not isinstance(node.target, torch._ops.OpOverload):
            continue
        name = node.target._schema.name  # "_c10d_functional::all_reduce"
        ns, _, op = name.partition("::")
        if ns not in ("_c10d_functional", "_c10d_functional_autograd") or op not in _GROUP_ARGS:
            continue
        size_pos, name_pos = _GROUP_ARGS[op]
        group = node.args[name_pos] if len(node.args) > name_pos else node.kwargs.get("group_name")
        size = node.args[size_pos] if size_pos is not None and len(node.args) > size_pos else None
        if size is None and op == "all_to_all_single" and isinstance(node.args[1], (list, tuple)):
            size = len(node.args[1])
        if group is None:
            raise ExportError(f"node '{node.name}': collective without a group_name")
        if str(group) in groups:
            continue
        live = _live_group_ranks(str(group))
        if live is not None:
            if size is not None and len(live) != size:
                raise ExportError(f"node '{node.name}': group '{group}' has {len(live)} ranks "
                                  f"in this process but the graph gives size {size}")
            groups[str(group)] = live
            continue
        if size is None:
            raise ExportError(
                f"node '{node.name}': group '{group}' has no size in the graph; "
                "pass process_groups={name: ranks}"
            )
        base = (rank // size) * size
        groups.setdefault(str(group), list(range(base, base + size)))
    return groups


def export_graph(gm, path, *, process_groups=None, hardware=None, rank=0, world_size=None,
                 name="fx-graph", device=None):
    """Writes gm (a GraphModule or fx.Graph whose nodes carry meta["val"] or
    meta["tensor_meta"]) to `path` as graph-format v1 JSON.

    process_groups: {group_name: [ranks]}; default: from the collectives'
    group_name/group_size, as the consecutive block holding `rank`.
    device: write this device for every tensor (e.g. "cuda:0" for a graph
    traced on CPU, so it is costed as a GPU graph)."""
    graph = _graph_of(gm)
    ex = _Exporter(device)
    nodes = []
    for node in graph.nodes:
        where = f"node '{node.name}'"
        if node.op not in ("placeholder", "get_attr", "call_function", "output"):
            raise ExportError(f"{where}: op '{node.op}' (run after functionalization/post-grad)")
        entry = {
            "name": node.name,
            "op": node.op,
            "target": _target_name(node),
            "args": ex.value(list(node.args), where),
            "kwargs": {k: ex.value(v, where) for k, v in sorted(node.kwargs.items())},
        }
        if node.op != "output":
            entry["val"] = ex.val(node)
        nodes.append(entry)
    # Storage ids matter only where tensors share one: drop the rest.
    for entry in nodes:
        vals = entry.get("val")
        for m in vals if isinstance(vals, list) else [vals]:
            if m and "storage" in m and ex.storage_users.get(m["storage"], 0) < 2:
                del m["storage"]
    if process_groups is None:
        process_groups = _groups_from_collectives(graph.nodes, rank)
    groups = {str(k): {"ranks": [int(r) for r in v]} for k, v in process_groups.items()}
    if world_size is None:
        world_size = max([rank + 1] + [max(g["ranks"]) + 1 for g in groups.values()])
    doc = {
        "format": FORMAT,
        "version": 1,
        "name": name,
        "rank": rank,
        "world_size": world_size,
        "process_groups": groups,
        "nodes": nodes,
    }
    if hardware is not None:
        doc["hardware"] = hardware
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
        f.write("\n")
    os.replace(tmp, path)


def read_schedule(path):
    """Node names in the scheduled order and each node's control deps."""
    with open(path) as f:
        doc = json.load(f)
    if doc.get("format") != FORMAT:
        raise ValueError(f"{path}: not an overlap-sched graph")
    order = [n["name"] for n in doc["nodes"]]
    deps = {n["name"]: list(n.get("control_deps", [])) for n in doc["nodes"]}
    return order, deps


def apply_schedule(gm, reordered_path):
    """Reorders gm's graph (GraphModule or fx.Graph) in place to the node order
    of overlap-sched's output. The output must come from a schedule of this
    same graph without --collective-bucketing (bucketing adds and removes
    nodes, which needs the rewrite in the graph file itself). Control
    dependencies (--insert-overlap-deps) are recorded in each node's
    meta["overlap_sched_control_deps"]: FX has no ordering edges, so they
    document the pinned overlap for later passes. Returns gm."""
    graph = _graph_of(gm)
    order, deps = read_schedule(reordered_path)
    by_name = {n.name: n for n in graph.nodes}
    missing = sorted(set(by_name) - set(order))
    extra = sorted(set(order) - set(by_name))
    if missing or extra:
        raise ValueError(
            f"{reordered_path}: not a schedule of this graph "
            f"(missing {missing[:3]}, unknown {extra[:3]}); schedule without bucketing"
        )
    placeholders = [n for n in graph.nodes if n.op == "placeholder"]
    anchor = placeholders[-1] if placeholders else None
    rest = [by_name[name] for name in order if by_name[name].op != "placeholder"]
    if anchor is None:
        first = rest[0]
        rest = rest[1:]
        # Moving the first node before every other node: prepend through the root.
        graph._root.append(first)
        anchor = first
    for node in rest:
        if node.op == "output":
            continue
        if anchor.next is not node:
            anchor.append(node)
        anchor = node
    for name, d in deps.items():
        if d:
            by_name[name].meta["overlap_sched_control_deps"] = d
    graph.lint()
    if isinstance(gm, torch.fx.GraphModule):
        gm.recompile()
    return gm


def schedule_with_tool(gm, tool="overlap-sched", args=(), workdir=None, **export_kwargs):
    """export_graph -> `tool schedule` -> apply_schedule. Returns the report (dict)."""
    with tempfile.TemporaryDirectory(dir=workdir) as d:
        src, out, report = (os.path.join(d, f) for f in ("in.json", "out.json", "report.json"))
        export_graph(gm, src, **export_kwargs)
        cmd = [tool, "schedule", src, "-o", out, "--report", report, "-q", *args]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)}: exit {r.returncode}: {r.stderr.strip()}")
        apply_schedule(gm, out)
        with open(report) as f:
            return json.load(f)


class OverlapSchedPass(CustomGraphPass):
    """post_grad_custom_post_pass that reorders Inductor's post-grad graph with
    overlap-sched:

        import torch._inductor.config as cfg
        cfg.post_grad_custom_post_pass = OverlapSchedPass(tool="overlap-sched",
                                                          args=["--max-in-flight-gb", "2"])
    """

    def __init__(self, tool="overlap-sched", args=(), **export_kwargs):
        self.tool = tool
        self.args = list(args)
        self.export_kwargs = export_kwargs
        self.last_report = None

    def __call__(self, graph):
        self.last_report = schedule_with_tool(graph, self.tool, self.args, **self.export_kwargs)

    def uuid(self):
        return json.dumps(["overlap-sched", self.tool, self.args], sort_keys=True)


# --- demo / self-check --------------------------------------------------------

def demo(tool, keep=None):
    """Traces an FSDP-style step (torch_models.fsdp_step) with make_fx under
    the fake process group, schedules it with the tool, applies the order and
    checks both GraphModules compute the same outputs."""
    from torch.fx.experimental.proxy_tensor import make_fx

    import torch_models as tm

    groups = tm.init_fake_world({"0": 8})
    x, shards = tm.fsdp_inputs()

    def step(x, *shards):
        return tm.fsdp_step(x, list(shards), groups["0"])

    gm = make_fx(step, tracing_mode="fake")(x, *shards)
    before = [n.name for n in gm.graph.nodes]
    expected = gm(x, *shards)
    workdir = keep or tempfile.mkdtemp()
    path = os.path.join(workdir, "demo.json")
    export_graph(gm, path, device="cuda:0", name="torch-demo")
    out = os.path.join(workdir, "demo.sched.json")
    r = subprocess.run([tool, "schedule", path, "-o", out, "-q"], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(r.stderr.strip())
    apply_schedule(gm, out)
    after = [n.name for n in gm.graph.nodes]
    order, _ = read_schedule(out)
    got = gm(x, *shards)
    same = all(torch.equal(a, b) for a, b in zip(expected, got))
    print(f"demo: {len(before)} nodes, order changed: {before != after}, "
          f"order is the tool's: {after == order}, outputs identical: {same}")
    return before != after and after == order and same


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("demo", help="trace, export, schedule, apply and compare a small model")
    d.add_argument("--tool", default="overlap-sched", help="path of the overlap-sched binary")
    d.add_argument("--keep", help="directory to keep the exported and scheduled graphs in")
    a = p.parse_args(argv)
    if a.cmd == "demo":
        return 0 if demo(a.tool, a.keep) else 1
    return 2


if __name__ == "__main__":
    sys.exit(main())
