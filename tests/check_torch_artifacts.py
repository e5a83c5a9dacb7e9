#!/usr/bin/env python3
"""import-fx on real PyTorch 2.x artifacts (testdata/fx/torch2, made by
scripts/torch/capture_artifacts.py): TORCH_LOGS=post_grad_graphs output,
TORCH_COMPILE_DEBUG's fx_graph_transformed.py, TORCH_TRACE logs and
minifier-style repros of FSDP-, TP- and MoE-style steps, forward and
backward. Each imported graph must have every call_function node, and every
node the shape and dtype that PyTorch's own meta["val"] gave it while
compiling (recorded beside the artifacts in NAME.expect.json).

usage: check_torch_artifacts.py TOOL DIR WORKDIR"""

import glob
import json
import os
import sys

import osched_testing as ot


def one(meta):
    if not meta:
        return None
    return [meta["shape"], meta["dtype"]]


def main():
    tool, (folder, work) = ot.binary(sys.argv[1]), sys.argv[2:4]
    os.makedirs(work, exist_ok=True)
    expects = sorted(glob.glob(os.path.join(folder, "*.expect.json")))
    if not expects:
        print(f"no *.expect.json under {folder}")
        return 1
    failures, checked = [], 0
    for path in expects:
        with open(path) as f:
            spec = json.load(f)
        for art in spec["artifacts"]:
            where = f"{art['file']}" + ("" if art["graph"] is None else f" graph {art['graph']}")
            out = os.path.join(work, "imported.json")
            graph = [] if art["graph"] is None else ["--graph", str(art["graph"])]
            r = ot.run(tool, "import-fx", os.path.join(folder, art["file"]), "-o", out, "-q", *graph)
            if r.returncode != 0:
                failures.append(f"{where}: exit {r.returncode}: {r.stderr.strip()}")
                continue
            with open(out) as f:
                nodes = ot.nodes_by_name(json.load(f))
            calls = sum(n["op"] == "call_function" for n in nodes.values())
            want = art["expect"]
            if calls != want["call_functions"]:
                failures.append(f"{where}: {calls} call_function nodes, torch has {want['call_functions']}")
            for name, meta in want["shapes"].items():
                node = nodes.get(name)
                if node is None:
                    failures.append(f"{where}: node '{name}' missing")
                    continue
                val = node.get("val")
                got = [one(m) for m in val] if isinstance(val, list) else one(val)
                if got != meta:
                    failures.append(f"{where}: node '{name}': {got}, torch has {meta}")
            checked += 1
    for line in failures[:40]:
        print(line)
    print(f"{checked} imported graphs checked, {len(failures)} mismatch(es)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
