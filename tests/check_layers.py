#!/usr/bin/env python3
"""The library's layers: each folder of lib/ may include only itself and the
folders listed before it in README.md's Layout block (the order is read from
there, so the README's claim and the code cannot drift apart); the FX
importer is an end, never a base: no other library folder includes fx/,
whatever the order says. And a comment
in lib/ or apps/ that names a library file (folder/file.h) names one that
exists: files move, and their mentions must move with them. And no
function in lib/pipeline/ takes more than 5 parameters or hands a result
back through a non-const reference or pointer (the rank communicator, which
every collective call changes, is not a result). No file in lib/fx/ is
longer than 600 lines. And at most 8 catch blocks in lib/ and apps/ raise
again (throw, or a fail() that throws), each adding context: an error is
raised with what its raiser knows and gains the rest once (with_context).
And the Python checks ctest runs are all under tests/, and no Python file
edits sys.path (PYTHONPATH is set in tests/CMakeLists.txt and the benches'
wrappers).

usage: check_layers.py REPO_ROOT"""

import os
import re
import sys


# Folders that no other library folder includes, whatever the layer order.
SIDEWAYS = {"fx"}

# The FX importer's files stay small: one job each (shape rules by family,
# lexer, parser, logical lines, the importer's phases).
MAX_FX_FILE_LINES = 600

MAX_RERAISING_CATCHES = 8

MAX_PARAMS = 5
# Non-const reference parameters that are not results.
NOT_RESULTS = {"RankContext"}

SIGNATURE = re.compile(
    r"^[A-Za-z_][\w:<>,\s*&]*?[\s*&]([A-Za-z_]\w*)\(([^()]*(?:\([^()]*\)[^()]*)*)\)\s*(?:const)?\s*"
    r"(?:&&)?\s*(?:\{|;|->|:)", re.M)


def split_params(text):
    """Top-level comma-separated parameters of a parameter list."""
    params, depth, cur = [], 0, ""
    for ch in text:
        depth += ch in "<({[" 
        depth -= ch in ">)}]"
        if ch == "," and depth == 0:
            params.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        params.append(cur.strip())
    return params


def sources(root):
    """Every C++ file of lib/ and apps/: (path, its text)."""
    for top in ("lib", "apps"):
        for base, _, names in os.walk(os.path.join(root, top)):
            for name in sorted(names):
                if name.endswith((".h", ".cpp")):
                    path = os.path.join(base, name)
                    with open(path) as f:
                        yield path, f.read()


def reraising_catches(root):
    """Catch blocks in lib/ and apps/ whose body throws or calls a fail()."""
    found = []
    for path, text in sources(root):
        for m in re.finditer(r"\bcatch\s*\(", text):
            start = text.find("{", m.end())
            depth, end = 0, start
            while True:
                depth += text[end] == "{"
                depth -= text[end] == "}"
                if depth == 0:
                    break
                end += 1
            body = re.sub(r"//[^\n]*", "", text[start:end])
            if re.search(r"\bthrow\b|\bfail\(", body):
                line = text.count("\n", 0, m.start()) + 1
                found.append(f"{os.path.relpath(path, root)}:{line}")
    return found


def pipeline_signatures(root):
    """Functions in lib/pipeline/ with too many parameters or result parameters."""
    bad = []
    folder = os.path.join(root, "lib", "pipeline")
    for name in sorted(os.listdir(folder)):
        if not name.endswith((".h", ".cpp")):
            continue
        with open(os.path.join(folder, name)) as f:
            text = f.read()
        for m in SIGNATURE.finditer(text):
            fn, params = m.group(1), split_params(m.group(2))
            if fn in ("if", "for", "while", "switch", "return", "catch"):
                continue
            line = text.count("\n", 0, m.start()) + 1
            where = f"lib/pipeline/{name}:{line}: {fn}"
            if len(params) > MAX_PARAMS:
                bad.append(f"{where} takes {len(params)} parameters (at most {MAX_PARAMS})")
            for p in params:
                p = p.split("=")[0].strip()
                if p.startswith("const ") or "&&" in p or not re.search(r"[&*]\s*\w+$", p):
                    continue
                if re.sub(r"[&*]\s*\w+$", "", p).strip() in NOT_RESULTS:
                    continue
                bad.append(f"{where} returns through '{p}'")
    return bad


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
    for path, text in sources(root):
        for n, line in enumerate(text.split("\n"), 1):
            if "//" not in line:
                continue
            comment = line[line.index("//"):]
            for folder, file in re.findall(r"\b([a-z_]+)/([a-z_0-9]+\.(?:h|cpp))\b", comment):
                if folder in rank and not os.path.exists(os.path.join(lib, folder, file)):
                    rel = os.path.relpath(path, root)
                    stale.append(f"{rel}:{n}: names {folder}/{file}, which does not exist")
    signatures = pipeline_signatures(root)
    for top in ("scripts", "tests"):
        for base, _, names in os.walk(os.path.join(root, top)):
            for name in sorted(names):
                if name.endswith(".py"):
                    path = os.path.join(base, name)
                    with open(path) as f:
                        if re.search(r"sys\.path\.(insert|append)|sys\.path\s*=", f.read()):
                            signatures.append(f"{os.path.relpath(path, root)}: edits sys.path")
    with open(os.path.join(root, "tests", "CMakeLists.txt")) as f:
        for script in re.findall(r"\$\{PROJECT_SOURCE_DIR\}/(\S+\.py)", f.read()):
            if not script.startswith("tests/"):
                signatures.append(f"tests/CMakeLists.txt: a Python check outside tests/: {script}")
    catches = reraising_catches(root)
    if len(catches) > MAX_RERAISING_CATCHES:
        signatures.append(f"{len(catches)} catch blocks raise again (at most "
                          f"{MAX_RERAISING_CATCHES}): " + ", ".join(catches))
    fx = os.path.join(lib, "fx")
    for name in sorted(os.listdir(fx)):
        if name.endswith((".h", ".cpp")):
            with open(os.path.join(fx, name)) as f:
                n = sum(1 for _ in f)
            if n > MAX_FX_FILE_LINES:
                signatures.append(f"lib/fx/{name}: {n} lines (at most {MAX_FX_FILE_LINES})")
    for line in bad + stale + signatures:
        print(line)
    print(f"{len(folders)} folders, {len(bad)} include(s) against the layer order, "
          f"{len(stale)} comment(s) naming a missing file, "
          f"{len(signatures)} other structure rule(s) broken")
    return 1 if bad or stale or signatures else 0


if __name__ == "__main__":
    sys.exit(main())
