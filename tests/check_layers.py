#!/usr/bin/env python3
"""The library's layers: each folder of lib/ may include only itself and the
folders listed before it in README.md's Layout block (the order is read from
there, so the README's claim and the code cannot drift apart); the FX
importer is an end, never a base: no other library folder includes fx/,
whatever the order says. And a comment
in lib/ or apps/ that names a library file (folder/file.h) names one that
exists: files move, and their mentions must move with them.

usage: check_layers.py REPO_ROOT"""

import os
import re
import sys


# Folders that no other library folder includes, whatever the layer order.
SIDEWAYS = {"fx"}


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
                    elif m and m.group(1) in SIDEWAYS and d != m.group(1):
                        bad.append(f"lib/{d}/{name}:{n}: includes {m.group(1)}/, which only "
                                   "its own folder and apps/ may")
    stale = []
    for top in ("lib", "apps"):
        for base, _, names in os.walk(os.path.join(root, top)):
            for name in sorted(names):
                if not name.endswith((".h", ".cpp")):
                    continue
                path = os.path.join(base, name)
                with open(path) as f:
                    for n, line in enumerate(f, 1):
                        if "//" not in line:
                            continue
                        comment = line[line.index("//"):]
                        for folder, file in re.findall(r"\b([a-z_]+)/([a-z_0-9]+\.(?:h|cpp))\b", comment):
                            if folder in rank and not os.path.exists(os.path.join(lib, folder, file)):
                                rel = os.path.relpath(path, root)
                                stale.append(f"{rel}:{n}: names {folder}/{file}, which does not exist")
    for line in bad + stale:
        print(line)
    print(f"{len(folders)} folders, {len(bad)} include(s) against the layer order, "
          f"{len(stale)} comment(s) naming a missing file")
    return 1 if bad or stale else 0


if __name__ == "__main__":
    sys.exit(main())
