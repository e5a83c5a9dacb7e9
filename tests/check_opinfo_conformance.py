"""import-fx against PyTorch's own OpInfo database.

For every op of torch.testing._internal.common_methods_invocations.op_db that
runs in float32 on the CPU, its first two sample inputs are traced to ATen
with make_fx on fake tensors, twice: as traced (the ATen graph), and with
Inductor's decomposition table (the prims and ATen ops Inductor's lowering
sees). Each graph is printed as PyTorch prints it (print_readable with
strides and devices) and imported twice: as printed, and with the
annotations of every node but the inputs removed, so the tool's own shape
rules must give each node's metadata. Every node's shape, stride and dtype
is compared with PyTorch's meta["val"].

  wrong   : a node whose imported metadata differs from PyTorch's (a defect)
  missing : a node the tool leaves without metadata (said, not guessed)
  failed  : the import stopped (a defect)

Exit 1 on any wrong node or failed import; --table FILE writes the status of
every op as a markdown table (docs/op-conformance.md).

usage: .venv-torch/bin/python tests/check_opinfo_conformance.py TOOL WORKDIR [--table FILE]
"""

import argparse
import os
import re
import sys
import warnings

import osched_testing as ot


def traced_graphs(decompose):
    """Yields (op name, sample index, GraphModule or the trace error)."""
    import torch
    from torch._inductor.decomposition import select_decomp_table
    from torch.fx.experimental.proxy_tensor import make_fx
    from torch.testing._internal.common_methods_invocations import op_db

    table = select_decomp_table() if decompose else None
    for op in op_db:
        name = op.name + (f".{op.variant_test_name}" if op.variant_test_name else "")
        try:
            if torch.float32 not in op.supported_dtypes("cpu"):
                continue
            samples = list(op.sample_inputs("cpu", torch.float32, requires_grad=False))[:2]
        except Exception:  # noqa: BLE001 - the sample generator itself fails
            continue
        for k, s in enumerate(samples):
            try:
                gm = make_fx(lambda *a, s=s: op.op(a[0], *a[1:], **s.kwargs),
                             tracing_mode="fake", decomposition_table=table)(s.input, *s.args)
            except Exception as e:  # noqa: BLE001 - PyTorch cannot trace it: not the tool's
                yield name, k, e
                continue
            yield name, k, gm


ANNOTATED = re.compile(r'^(\s+)([A-Za-z_][A-Za-z0-9_]*): "[^"]*" = ')


def strip_annotations(text):
    """The node lines without their annotations; the inputs keep theirs."""
    out = []
    for line in text.splitlines():
        m = ANNOTATED.match(line)
        out.append(ANNOTATED.sub(r"\1\2 = ", line, count=1) if m else line)
    return "\n".join(out) + "\n"


def expected_metas(gm):
    """{node name: [(shape, stride, dtype) or None per output]} from meta['val']."""
    import torch

    def one(v):
        if not isinstance(v, torch.Tensor) or v.layout != torch.strided:
            return None
        dims = [*v.shape, *v.stride()]
        if not all(isinstance(d, int) for d in dims):
            return None  # data-dependent sizes (nonzero, ...): symbols, not compared
        return ([int(d) for d in v.shape], [int(s) for s in v.stride()],
                str(v.dtype).replace("torch.", ""))

    want = {}
    for n in gm.graph.nodes:
        if n.op not in ("call_function", "placeholder"):
            continue
        v = n.meta.get("val")
        if isinstance(v, (list, tuple)):
            want[n.name] = [one(x) for x in v]
        elif isinstance(v, torch.Tensor):
            want[n.name] = [one(v)]
    return want


def got_metas(path):
    got = {}
    for n in ot.load_graph(path)["nodes"]:
        v = n.get("val")
        vals = v if isinstance(v, list) else [v]
        got[n["name"]] = [(x["shape"], x.get("stride"), x["dtype"]) if isinstance(x, dict) else None
                          for x in vals]
    return got


def compare(want, got):
    """(wrong, missing) node names."""
    wrong, missing = [], []
    for name, outs in want.items():
        have = got.get(name)
        for i, w in enumerate(outs):
            if w is None:
                continue
            h = have[i] if have and i < len(have) else None
            if h is None:
                missing.append(name)
                break
            shape, stride, dtype = h
            if shape != w[0] or dtype != w[2] or (stride is not None and stride != w[1]):
                wrong.append(f"{name}: {h} != {w}")
                break
    return wrong, missing


def main():
    warnings.filterwarnings("ignore")
    ap = argparse.ArgumentParser()
    ap.add_argument("tool")
    ap.add_argument("work")
    ap.add_argument("--table")
    a = ap.parse_args()
    a.tool = ot.binary(a.tool)
    try:
        import torch  # noqa: F401
        import expecttest  # noqa: F401 - op_db's import
    except ImportError as e:
        print(f"skipped: {e} (scripts/install-deps.sh installs it)")
        return 0
    os.makedirs(a.work, exist_ok=True)
    status = {}  # (op, pass) -> worst status
    totals = {"graphs": 0, "nodes": 0, "untraced": 0, "wrong": 0, "missing": 0, "failed": 0}
    problems = []
    rank = {"ok": 0, "untraced": 1, "missing": 2, "wrong": 3, "failed": 4}
    for label, decompose in (("aten", False), ("decomposed", True)):
        for op, k, gm in traced_graphs(decompose):
            if isinstance(gm, Exception):
                totals["untraced"] += 1
                for form in ("annotated", "inferred"):
                    status.setdefault((op, label, form), "untraced")
                continue
            totals["graphs"] += 1
            text = gm.print_readable(print_output=False, include_stride=True, include_device=True)
            want = expected_metas(gm)
            totals["nodes"] += len(want)
            for form, src in (("annotated", text), ("inferred", strip_annotations(text))):
                key = (op, label, form)
                worst = "ok"
                stem = os.path.join(a.work, f"{label}.{k}.{form}")
                with open(stem + ".py", "w") as f:
                    f.write(src)
                r = ot.run(a.tool, "import-fx", stem + ".py", "-o", stem + ".json")
                if r.returncode != 0:
                    totals["failed"] += 1
                    problems.append(f"{label} {op}#{k} {form}: {r.stderr.strip()}")
                    worst = "failed"
                else:
                    wrong, missing = compare(want, got_metas(stem + ".json"))
                    totals["wrong"] += len(wrong)
                    totals["missing"] += len(missing)
                    for w in wrong:
                        problems.append(f"{label} {op}#{k} {form}: wrong {w}")
                    if wrong:
                        worst = "wrong"
                    elif missing:
                        worst = "missing"
                if key not in status or rank[worst] > rank[status[key]] or status[key] == "untraced":
                    status[key] = worst
    for p in problems:
        print(p)
    ops = sorted({op for op, _, _ in status})
    columns = [(lab, form) for lab in ("aten", "decomposed") for form in ("annotated", "inferred")]
    counts = {f"{lab} {form}": {} for lab, form in columns}
    for (op, lab, form), st in status.items():
        c = counts[f"{lab} {form}"]
        c[st] = c.get(st, 0) + 1
    print(f"{len(ops)} ops, {totals['graphs']} graphs, {totals['nodes']} nodes per import; "
          f"{totals['wrong']} wrong, {totals['missing']} missing, {totals['failed']} failed imports, "
          f"{totals['untraced']} samples PyTorch could not trace; by op: {counts}")
    if a.table:
        with open(a.table, "w") as f:
            f.write("| op | ATen, as printed | ATen, inferred | decomposed, as printed | "
                    "decomposed, inferred |\n|---|---|---|---|---|\n")
            for op in ops:
                cells = " | ".join(status.get((op, lab, form), "-") for lab, form in columns)
                f.write(f"| `{op}` | {cells} |\n")
    return 1 if totals["wrong"] or totals["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
