"""Writes what the pinned PyTorch's op schemas (torch._C._jit_get_all_schemas)
say about aliasing, for the aten, prims, _c10d_functional and inductor_prims
namespaces; the build embeds both files (lib/ops/op_writes.cpp):

  schemas/torch_op_writes.tsv  every overload whose schema marks an argument
      written in place (`Tensor(a!)`), one per line: TARGET<TAB>WRITES, where
      TARGET is the overload as the graph format names it (aten.add_.Tensor;
      an unnamed overload is `default`) and WRITES lists the written
      arguments as INDEX:NAME, with :kw for keyword-only ones, comma-separated;
  schemas/torch_op_views.tsv   every op (overload packet) one of whose
      overloads returns an alias of an input it does not write (`-> Tensor(a)`):
      a view, whose output shares its input's storage.

usage: .venv-torch/bin/python scripts/torch/dump_op_writes.py   (writes both)
tests/check_op_schemas.py checks that both files are what it would write.
"""

import os
import sys

NAMESPACES = ("aten", "prims", "_c10d_functional", "inductor_prims")
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
WRITES = os.path.join(ROOT, "schemas", "torch_op_writes.tsv")
VIEWS = os.path.join(ROOT, "schemas", "torch_op_views.tsv")


def tables():
    """(writes text, views text)."""
    import torch
    import torch._inductor.inductor_prims  # noqa: F401 - registers inductor_prims and prims.fma
    import torch.distributed  # noqa: F401 - registers _c10d_functional

    writes, views = set(), set()
    for s in torch._C._jit_get_all_schemas():
        ns, _, name = s.name.partition("::")
        if ns not in NAMESPACES:
            continue
        written = [f"{i}:{a.name}" + (":kw" if a.kwarg_only else "")
                   for i, a in enumerate(s.arguments)
                   if a.alias_info is not None and a.alias_info.is_write]
        if written:
            writes.add(f"{ns}.{name}.{s.overload_name or 'default'}\t{','.join(written)}")
        if any(r.alias_info is not None and not r.alias_info.is_write for r in s.returns):
            views.add(f"{ns}.{name}")
    source = f"PyTorch {torch.__version__}'s op schemas (scripts/torch/dump_op_writes.py)"
    return (f"# In-place writes from {source}.\n" + "".join(w + "\n" for w in sorted(writes)),
            f"# Views (outputs aliasing an input) from {source}.\n" +
            "".join(v + "\n" for v in sorted(views)))


def main():
    for path, text in zip((WRITES, VIEWS), tables()):
        with open(path, "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
