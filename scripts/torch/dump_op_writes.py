"""Writes schemas/torch_op_writes.tsv: every operator of the aten, prims,
_c10d_functional and inductor_prims namespaces whose schema marks an
argument written in place (`Tensor(a!)`), from the pinned PyTorch's
registry (torch._C._jit_get_all_schemas). The build embeds the file
(lib/ops/op_writes.cpp); the tool's in-place write rules read it.

One line per overload: TARGET<TAB>WRITES, where TARGET is the overload as
the graph format names it (aten.add_.Tensor; an unnamed overload is
`default`) and WRITES lists the written arguments as INDEX:NAME, with :kw
for keyword-only ones (out=, ...), comma-separated.

usage: .venv-torch/bin/python scripts/torch/dump_op_writes.py [OUT]   (default: the file above)
       .venv-torch/bin/python scripts/torch/dump_op_writes.py --check  (exit 1 if the file differs)
"""

import os
import sys

NAMESPACES = ("aten", "prims", "_c10d_functional", "inductor_prims")
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
DEFAULT = os.path.join(ROOT, "schemas", "torch_op_writes.tsv")


def table():
    import torch
    import torch._inductor.inductor_prims  # noqa: F401 - registers inductor_prims and prims.fma
    import torch.distributed  # noqa: F401 - registers _c10d_functional

    lines = set()
    for s in torch._C._jit_get_all_schemas():
        ns, _, name = s.name.partition("::")
        if ns not in NAMESPACES:
            continue
        writes = [f"{i}:{a.name}" + (":kw" if a.kwarg_only else "")
                  for i, a in enumerate(s.arguments)
                  if a.alias_info is not None and a.alias_info.is_write]
        if writes:
            lines.add(f"{ns}.{name}.{s.overload_name or 'default'}\t{','.join(writes)}")
    header = (f"# In-place writes from PyTorch {torch.__version__}'s op schemas "
              "(scripts/torch/dump_op_writes.py).\n")
    return header + "".join(line + "\n" for line in sorted(lines))


def main():
    text = table()
    if sys.argv[1:] == ["--check"]:
        with open(DEFAULT) as f:
            if f.read() != text:
                print(f"{DEFAULT} differs from the pinned PyTorch's schemas: "
                      "run scripts/torch/dump_op_writes.py")
                return 1
        print(f"{DEFAULT}: {text.count(chr(10)) - 1} ops, as the pinned PyTorch's schemas say")
        return 0
    out = sys.argv[1] if len(sys.argv) > 1 else DEFAULT
    with open(out, "w") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
