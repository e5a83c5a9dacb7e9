"""Bridge between torch.fx and overlap-sched.

export_graph(gm, path)        write a post-grad GraphModule (or fx.Graph) as graph-format v1 JSON
apply_schedule(gm, path)      reorder gm's graph to the order in overlap-sched's output, its
                              buckets built with PyTorch's own bucketing ops
pin_order(gm)                 make the order of collectives, waits and compute explicit
                              (Inductor's control_deps), so Inductor's scheduler keeps it
OverlapSchedPass(...)         a post_grad_custom_post_pass for torch._inductor that runs the CLI
                              and pins its order; .inductor_options() for torch.compile

Command line:
  python3 -m overlap_sched.torch_bridge demo [--tool build/overlap-sched] [--keep DIR]
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

from . import _binary

FORMAT = "overlap-sched.graph"

# Collective ops whose arguments name a process group (functional collectives).
_GROUP_ARGS = {
    # op name: (index of group_size or None, index of group_name)
    "all_gather_into_tensor": (1, 2),
    "all_gather_into_tensor_out": (1, 2),
    "all_gather_into_tensor_coalesced": (1, 2),
    "reduce_scatter_tensor": (2, 3),
    "reduce_scatter_tensor_out": (2, 3),
    "reduce_scatter_tensor_coalesced": (2, 3),
    "all_reduce": (None, 2),
    "all_reduce_": (None, 2),
    "all_reduce_coalesced": (None, 2),
    "all_reduce_coalesced_": (None, 2),
    "all_to_all_single": (None, 3),
    "broadcast": (None, 2),
    "broadcast_": (None, 2),
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
    if isinstance(t, torch._ops.HigherOrderOperator):
        return f"higher_order.{t.name()}"  # as the FX printer and import-fx write it
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
            # JSON numbers hold no inf or nan: the graph format's {"float": ...}.
            if a != a:
                return {"float": "nan"}
            if a in (float("inf"), float("-inf")):
                return {"float": "inf" if a > 0 else "-inf"}
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


_BUCKET_CAT = "overlap_sched.bucket_cat.default"
_BUCKET_SPLIT = "overlap_sched.bucket_split.default"
_WAIT = "_c10d_functional.wait_tensor.default"

# Ops the tool costs as compute (matmul, attention, convolution): with the
# collectives and waits they are the nodes whose order pin_order keeps.
_COMPUTE_PACKETS = (
    "aten.mm", "aten.addmm", "aten.bmm", "aten.baddbmm", "aten._scaled_mm", "aten._grouped_mm",
    "aten._scaled_grouped_mm", "aten.convolution", "aten._convolution",
    "aten.convolution_backward", "aten._scaled_dot_product_efficient_attention",
    "aten._scaled_dot_product_efficient_attention_backward",
    "aten._scaled_dot_product_flash_attention", "aten._scaled_dot_product_flash_attention_backward",
    "aten._scaled_dot_product_cudnn_attention", "aten._scaled_dot_product_cudnn_attention_backward",
    "aten._scaled_dot_product_flash_attention_for_cpu",
    "aten._scaled_dot_product_flash_attention_for_cpu_backward", "aten._flash_attention_forward",
    "aten._flash_attention_backward", "aten._efficient_attention_forward",
    "aten._efficient_attention_backward", "higher_order.flex_attention",
    "higher_order.flex_attention_backward",
)


def _tool_meta(entry):
    meta = entry.get("meta")
    return meta.get("overlap_sched", {}) if isinstance(meta, dict) else {}


def _packet(target_name):
    parts = target_name.split(".")
    return ".".join(parts[:2])


def _is_collective_start(node):
    t = _target_name(node)
    return node.op == "call_function" and t.startswith(("_c10d_functional.", "c10d_functional.")) \
        and ".wait_tensor." not in t


def _is_wait(node):
    return node.op == "call_function" and ".wait_tensor." in _target_name(node)


def _is_compute(node):
    """A compute kernel pin_order orders: not a higher-order op, whose
    subgraph arguments control_deps would have to carry along."""
    return node.op == "call_function" and _packet(_target_name(node)) in _COMPUTE_PACKETS \
        and not isinstance(node.target, torch._ops.HigherOrderOperator)


def read_schedule(path):
    """Node names in the scheduled order and each node's control deps."""
    with open(path) as f:
        doc = json.load(f)
    if doc.get("format") != FORMAT:
        raise ValueError(f"{path}: not an overlap-sched graph")
    order = [n["name"] for n in doc["nodes"]]
    deps = {n["name"]: list(n.get("control_deps", [])) for n in doc["nodes"]}
    return order, deps


class _WrittenBuckets:
    """The buckets of a written graph: per merged collective, its members
    and where the tool put its copy-in (cat) and its wait."""

    def __init__(self, nodes, path):
        self.buckets = []  # (start entry, member names, cat index, wait index)
        self.created = set()  # names of the nodes bucketing made
        self.removed = set()  # names of the nodes they replace
        index = {e["name"]: i for i, e in enumerate(nodes)}
        waits = {}
        for e in nodes:
            if e["target"] == _WAIT and e.get("args") and isinstance(e["args"][0], dict):
                waits[e["args"][0].get("node")] = e
        for e in nodes:
            meta = _tool_meta(e)
            if meta.get("created") in ("bucket_cat", "bucket_split"):
                self.created.add(e["name"])
                self.removed.update(meta.get("replaces", []))  # conversions fused into the cat
            elif meta.get("replaces"):
                self.created.add(e["name"])
                self.removed.update(meta["replaces"])
                if e["target"] == _WAIT:
                    continue
                cat = e["args"][0].get("node") if e.get("args") and isinstance(e["args"][0], dict) else None
                wait = waits.get(e["name"])
                if cat not in index or wait is None:
                    raise ValueError(f"{path}: bucket '{e['name']}' without its copy-in or wait")
                self.buckets.append((e, list(meta["replaces"]), index[cat], index[wait["name"]]))


def _merge_bucket(graph, start_target, members):
    """Merges `members` (collective start nodes) with PyTorch's own
    bucketing (torch/_inductor/fx_passes/bucketing.py): the same copy-in,
    collective and unpacking ops its FX bucketing emits. Returns its new nodes."""
    from torch._inductor.fx_passes import bucketing

    if "all_gather" in start_target:
        # Members of several dtypes share a byte buffer, as PyTorch's
        # multi-dtype mode lays them out (its default mode casts them to one).
        dtypes = {m.meta["val"].dtype for m in members}
        mode = "custom_ops_multidtype" if len(dtypes) > 1 else None
        new_nodes, _ = bucketing.merge_all_gather_bucket(graph, members, mode=mode)
        return new_nodes
    if "reduce_scatter" in start_target:
        merge = bucketing.merge_reduce_scatter_bucket
    elif "all_reduce" in start_target:
        merge = bucketing.merge_all_reduce_bucket
    else:
        raise ValueError(f"bucket of '{start_target}': PyTorch has no bucketing for it")
    new_nodes, _ = merge(graph, members)
    return new_nodes


def _stable_topological_order(nodes, key):
    """`nodes` in a topological order that takes, of the ready ones, the
    smallest key first."""
    import heapq

    pos = {n: i for i, n in enumerate(nodes)}
    missing = {n: 0 for n in nodes}
    users = {n: [] for n in nodes}
    for n in nodes:
        for d in n.all_input_nodes:
            if d in missing:
                missing[n] += 1
                users[d].append(n)
    ready = [(key(n), pos[n], n) for n in nodes if missing[n] == 0]
    heapq.heapify(ready)
    out = []
    while ready:
        _, _, n = heapq.heappop(ready)
        out.append(n)
        for u in users[n]:
            missing[u] -= 1
            if missing[u] == 0:
                heapq.heappush(ready, (key(u), pos[u], u))
    if len(out) != len(nodes):
        raise ValueError("the schedule's order has a cycle with the graph's dependencies")
    return out


def apply_schedule(gm, reordered_path, pin=False):
    """Reorders gm's graph (GraphModule or fx.Graph) in place to the node order
    of overlap-sched's output, and builds the output's buckets
    (--collective-bucketing) with PyTorch's own bucketing ops. Control
    dependencies (--insert-overlap-deps) are recorded in each node's
    meta["overlap_sched_control_deps"]. With pin=True the order of every
    collective start, wait and compute kernel is made explicit with
    Inductor's control_deps operator (pin_order), so Inductor's scheduler
    issues them in this order. Returns gm."""
    graph = _graph_of(gm)
    with open(reordered_path) as f:
        doc = json.load(f)
    if doc.get("format") != FORMAT:
        raise ValueError(f"{reordered_path}: not an overlap-sched graph")
    written = doc["nodes"]
    order = [e["name"] for e in written]
    deps = {e["name"]: list(e.get("control_deps", [])) for e in written}
    buckets = _WrittenBuckets(written, reordered_path)
    by_name = {n.name: n for n in graph.nodes}
    kept = set(order) - buckets.created
    missing = sorted(set(by_name) - kept - buckets.removed)
    extra = sorted(kept - set(by_name))
    if missing or extra:
        raise ValueError(
            f"{reordered_path}: not a schedule of this graph "
            f"(missing {missing[:3]}, unknown {extra[:3]})"
        )
    index = {name: i for i, name in enumerate(order)}
    key_of = {}
    for start, members, cat_at, wait_at in buckets.buckets:
        new_nodes = _merge_bucket(graph, start["target"], [by_name[m] for m in members])
        first_wait = next((i for i, n in enumerate(new_nodes) if _is_wait(n)), len(new_nodes))
        for i, n in enumerate(new_nodes):
            key_of[n] = (cat_at, i) if i < first_wait else (wait_at, i)
        for name in members:
            node = by_name.get(name)
            if node is not None and not node._erased:
                raise ValueError(f"{reordered_path}: bucket member '{name}' was not merged")
    nodes = [n for n in graph.nodes if n.op != "output"]

    def key(n):
        if n in key_of:
            return key_of[n]
        if n.name in index and n.name not in buckets.created:
            return (index[n.name], 0)
        # A node only PyTorch keeps (a conversion the tool fused): before its first user.
        return (min((key(u)[0] for u in n.users if u.op != "output"), default=len(order)), -1)

    placeholders = [n for n in nodes if n.op == "placeholder"]
    rest = [n for n in _stable_topological_order(nodes, key) if n.op != "placeholder"]
    anchor = placeholders[-1] if placeholders else None
    if anchor is None and rest:
        graph._root.append(rest[0])
        anchor = rest[0]
        rest = rest[1:]
    for node in rest:
        if anchor.next is not node:
            anchor.append(node)
        anchor = node
    by_name = {n.name: n for n in graph.nodes}
    for name, d in deps.items():
        if d and name in by_name:
            by_name[name].meta["overlap_sched_control_deps"] = d
    if pin:
        pin_order(graph)
    graph.lint()
    if isinstance(gm, torch.fx.GraphModule):
        gm.recompile()
    return gm


def written_sequence(written):
    """The collective starts ("s"), waits ("w") and matmul kernels ("mm") of a
    written graph's [(name, target)] (OverlapSchedPass.last_written), in
    order: what Inductor's generated code must issue in the same order."""
    out = []
    for _, target in written:
        if target.startswith("_c10d_functional."):
            out.append("w" if ".wait_tensor." in target else "s")
        elif target.startswith(("aten.mm.", "aten.bmm.", "aten.addmm.", "aten.baddbmm.")):
            out.append("mm")
    return out


def pin_order(gm_or_graph):
    """Makes the graph's order of collective starts, waits and compute
    kernels explicit: each depends on the one before it through Inductor's
    control_deps operator (torch/_inductor/fx_passes/control_dependencies.py,
    what PyTorch's own overlap pass uses with insert_overlap_deps). Inductor's
    scheduler, its peak-memory reordering and its simple overlap then keep
    that order. Returns the number of nodes pinned."""
    from torch._inductor.fx_passes.control_dependencies import preserve_node_ordering
    from torch.utils._ordered_set import OrderedSet

    graph = _graph_of(gm_or_graph)
    anchors = [n for n in graph.nodes if _is_collective_start(n) or _is_wait(n) or _is_compute(n)]
    extra = {}
    for before, after in zip(anchors, anchors[1:]):
        if before not in after.all_input_nodes:
            extra[after] = OrderedSet([before])
    preserve_node_ordering(graph, extra)
    return len(extra)


def _schedule_graph(gm, tool, args, workdir, pin, export_kwargs):
    """export_graph -> `tool schedule` -> apply_schedule: (report, [(name,
    target)] of the written graph in its order)."""
    tool = tool or _binary.binary()
    with tempfile.TemporaryDirectory(dir=workdir) as d:
        src, out, report = (os.path.join(d, f) for f in ("in.json", "out.json", "report.json"))
        export_graph(gm, src, **export_kwargs)
        cmd = [tool, "schedule", src, "-o", out, "--report", report, "-q", *args]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)}: exit {r.returncode}: {r.stderr.strip()}")
        apply_schedule(gm, out, pin=pin)
        with open(out) as f:
            written = [(n["name"], n["target"]) for n in json.load(f)["nodes"]]
        with open(report) as f:
            return json.load(f), written


def schedule_with_tool(gm, tool=None, args=(), workdir=None, pin=False,
                       **export_kwargs):
    """export_graph -> `tool schedule` -> apply_schedule. Returns the report (dict).
    tool: the binary's path; by default overlap_sched.binary()."""
    return _schedule_graph(gm, tool, args, workdir, pin, export_kwargs)[0]


# Inductor settings that move collectives after a post-grad pass: its own
# overlap scheduler and FX bucketing rewrite the graph, and its scheduler
# may reorder for compute/communication overlap. inductor_options turns them
# off for one compile; the pins (pin_order) keep the order through the
# peak-memory reordering and the simple overlap pass, which honour
# dependencies.
_REORDERING_OPTIONS = {
    "aten_distributed_optimizations.enable_overlap_scheduling": False,
    "aten_distributed_optimizations.enable_simple_overlap": False,
    "reorder_for_compute_comm_overlap": False,
    "bucket_all_gathers_fx": "none",
    "bucket_reduce_scatters_fx": "none",
}


def _reordering_settings_on(pinned):
    """The settings of _REORDERING_OPTIONS that are on in the current config
    and would move collectives (with pins, those that rewrite the graph or
    may ignore its dependencies)."""
    import torch._inductor.config as cfg

    on = []
    for key, off in _REORDERING_OPTIONS.items():
        if pinned and key.endswith("enable_simple_overlap"):
            continue  # it honours the pins
        obj = cfg
        *path, leaf = key.split(".")
        for p in path:
            obj = getattr(obj, p)
        if getattr(obj, leaf, off) != off:
            on.append(key)
    return on


class OverlapSchedPass(CustomGraphPass):
    """post_grad_custom_post_pass that reorders Inductor's post-grad graph with
    overlap-sched and pins the result so Inductor runs it in that order:

        p = OverlapSchedPass(args=["--max-in-flight-gb", "2"])
        compiled = torch.compile(step, options=p.inductor_options())

    inductor_options() also turns off, for that compile, Inductor's own
    passes that would reorder collectives again. Set as a global
    post_grad_custom_post_pass instead, the pass warns when one of them is on.
    tool: the binary's path; by default overlap_sched.binary().
    """

    def __init__(self, tool=None, args=(), pin=True, **export_kwargs):
        self.tool = tool or _binary.binary()
        self.args = list(args)
        self.pin = pin
        self.export_kwargs = export_kwargs
        self.last_report = None
        self.last_written = None  # [(name, target)] of the last written graph, in order

    def inductor_options(self):
        """torch.compile(options=...) for one compile: this pass, and
        Inductor's collective-reordering passes off (logged at INFO)."""
        import logging

        logging.getLogger("overlap_sched").info(
            "overlap-sched: for this compile, Inductor's collective-reordering settings are "
            "turned off: %s", ", ".join(f"{k}={v!r}" for k, v in _REORDERING_OPTIONS.items()))
        return {"post_grad_custom_post_pass": self, **_REORDERING_OPTIONS}

    def __call__(self, graph):
        on = _reordering_settings_on(self.pin)
        if on:
            import warnings

            warnings.warn(
                "overlap-sched: Inductor settings that reorder collectives after this pass are "
                f"on ({', '.join(on)}): compile with options=pass.inductor_options() to keep "
                "the tool's order",
                stacklevel=2,
            )
        self.last_report, self.last_written = _schedule_graph(
            graph, self.tool, self.args, None, self.pin, self.export_kwargs)

    def uuid(self):
        return json.dumps(["overlap-sched", self.tool, self.args, self.pin], sort_keys=True)


# --- demo / self-check --------------------------------------------------------

def demo(tool=None, keep=None):
    """Traces an FSDP-style step (example_models.fsdp_step) with make_fx under
    the fake process group, schedules it with the tool, applies the order and
    checks both GraphModules compute the same outputs."""
    from torch.fx.experimental.proxy_tensor import make_fx

    from . import example_models as tm

    tool = tool or _binary.binary()
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
    d.add_argument("--tool", help="path of the overlap-sched binary (default: overlap_sched.binary())")
    d.add_argument("--keep", help="directory to keep the exported and scheduled graphs in")
    a = p.parse_args(argv)
    if a.cmd == "demo":
        return 0 if demo(a.tool, a.keep) else 1
    return 2


if __name__ == "__main__":
    sys.exit(main())
