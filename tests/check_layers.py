#!/usr/bin/env python3
"""The library's layers: each folder of lib/ may include only itself and the
folders listed before it in README.md's Layout block (the order is read from
there, so the README's claim and the code cannot drift apart).

usage: check_layers.py REPO_ROOT"""

import os
import re
import sys


def main():
    root = sys.argv[1]
    with open(os.path.join(root, "README.md")) as f:
        readme = f.read()
    order = re.findall(r"^lib/([a-z_]+)/", readme, re.M)
    lib = os.path.join(root, "lib")
    folders = sorted(d for d in os.listdir(lib) if os.path.isdir(os.path.join(lib, d)))
    missing = sorted(set(folders) - set(order))
    if missing:
        print(f"README.md's Layout does not list lib/{', lib/'.join(missing)}")
        return 1
    rank = {d: i for i, d in enumerate(order)}
    bad = []
    for d in folders:
        for name in sorted(os.listdir(os.path.join(lib, d))):
            if not name.endswith((".h", ".cpp")):
                continue
            with open(os.path.join(lib, d, name)) as f:
                for n, line in enumerate(f, 1):
                    m = re.match(r'#include "([a-z_]+)/', line)
                    if m and m.group(1) in rank and rank[m.group(1)] > rank[d]:
                        bad.append(f"lib/{d}/{name}:{n}: includes {m.group(1)}/, a later layer")
    for line in bad:
        print(line)
    print(f"{len(folders)} folders, {len(bad)} include(s) against the layer order")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
