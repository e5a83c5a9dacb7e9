#!/usr/bin/env python3
"""schemas/torch_op_writes.tsv and torch_op_views.tsv (the in-place writes and
views the build embeds) are what the pinned PyTorch's op schemas say: what
scripts/torch/dump_op_writes.py would write now.

usage: check_op_schemas.py   (PYTHONPATH=tests:scripts/torch; .venv-torch's python)"""
import sys

import dump_op_writes as dump


def main():
    bad = False
    for path, text in zip((dump.WRITES, dump.VIEWS), dump.tables()):
        with open(path) as f:
            if f.read() != text:
                print(f"{path} differs from the pinned PyTorch's schemas: "
                      "run scripts/torch/dump_op_writes.py")
                bad = True
            else:
                print(f"{path}: {text.count(chr(10)) - 1} ops, as the pinned PyTorch's schemas say")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
