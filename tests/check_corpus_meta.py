"""import-fx on the corpus repros against PyTorch's own metadata.

Each minifier repro of ../shared/corpus/autoparallel runs once under
PyTorch's fake tensors (scripts/torch/minifier_repro.py, its frees removed
so every intermediate stays bound); each value's shape, stride and dtype is
then what PyTorch computes for it. The repro imported with `import-fx` (no
annotations: every node's metadata from the tool's own rules) must give
every such node the same shape, stride and dtype, and leave none without.

usage: .venv-torch/bin/python tests/check_corpus_meta.py TOOL CORPUS_DIR WORKDIR
"""

import json
import os
import sys
import warnings

import osched_testing as ot



def pytorch_metas(path):
    """{variable name: (shape, stride, dtype)} of every tensor forward binds."""
    import torch

    import minifier_repro

    mod, inputs, _ = minifier_repro.load_repro(path, keep_values=True)
    mode = next(t.fake_mode for t in inputs if isinstance(t, torch.Tensor))
    bound = {}

    def tracer(frame, event, _arg):
        if event == "return" and frame.f_code.co_name == "forward":
            bound.update(frame.f_locals)
        return tracer

    with mode:
        sys.settrace(tracer)
        try:
            mod.Repro()(*inputs)
        finally:
            sys.settrace(None)
    out = {}
    for name, v in bound.items():
        if isinstance(v, torch.Tensor) and v.layout == torch.strided:
            try:
                out[name] = ([int(d) for d in v.shape], [int(s) for s in v.stride()],
                             str(v.dtype).replace("torch.", ""))
            except Exception:  # noqa: BLE001 - a data-dependent size (a symbol): not compared
                pass
    return out


def main():
    warnings.filterwarnings("ignore")
    tool, (corpus, work) = ot.binary(sys.argv[1]), sys.argv[2:4]
    if not os.path.isdir(corpus):
        print(f"skipped: no corpus at {corpus}")
        return 0
    os.makedirs(work, exist_ok=True)
    failed = False
    for f in sorted(os.listdir(corpus)):
        if not f.endswith(".py"):
            continue
        path = os.path.join(corpus, f)
        want = pytorch_metas(path)
        out = os.path.join(work, f[:-3] + ".json")
        r = ot.run(tool, "import-fx", path, "-o", out)
        if r.returncode != 0:
            print(f"FAIL {f}: import-fx: {r.stderr.strip()}")
            failed = True
            continue
        with open(out) as fh:
            nodes = ot.nodes_by_name(json.load(fh))
        wrong, missing, checked = [], [], 0
        for name, w in want.items():
            n = nodes.get(name)
            if n is None:
                continue  # a Python value of forward that is not a node
            v = n.get("val")
            if not isinstance(v, dict):
                missing.append(name)
                continue
            checked += 1
            got = (v["shape"], v.get("stride"), v["dtype"])
            if got != w:
                wrong.append(f"{name}: {got} != PyTorch's {w}")
        print(f"{'FAIL' if wrong or missing else 'ok  '} {f}: {checked} nodes compared, "
              f"{len(wrong)} wrong, {len(missing)} without metadata")
        for line in wrong[:10]:
            print("    " + line)
        if missing:
            print("    without metadata: " + ", ".join(missing[:10]))
        failed |= bool(wrong or missing)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
