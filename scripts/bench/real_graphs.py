#!/usr/bin/env python3
"""Real production graphs end to end: one row per repro of a corpus folder.

For each `*.py` repro (default ../shared/corpus/autoparallel): import-fx with
no flags (wall time and peak memory of the process), then schedule with
default options and with collective bucketing, reading the repro's own
collective table when it sits beside it. Prints a markdown table; the
published columns quote upstream's simulator where SOURCES.md records a
result for that file and table. Not part of the test suite.

Usage: real_graphs.py OVERLAP_SCHED [DIR]
"""
import json
import os
import subprocess
import sys
import tempfile
import time

import osched_testing as ot  # PYTHONPATH=tests (the .sh wrappers set it)

# Upstream's published simulated steps (autoparallel pull request 319,
# quoted in the corpus's SOURCES.md): file -> (table, before ms, after ms).
PUBLISHED = {
    "repro_llama3_8b_bw_64_2d.py": ("colls8_8.table", 361.05, 263.00),
}

# The 0.3 s / 100 MB import target of the real-import issue.
IMPORT_SECONDS, IMPORT_MIB = 0.3, 100


def import_measured(binary, src, out):
    """Runs import-fx in a fresh Python child so its peak RSS is its own."""
    code = ("import resource,subprocess,sys,time,json;t=time.perf_counter();"
            "r=subprocess.run(sys.argv[1:],capture_output=True,text=True);"
            "s=time.perf_counter()-t;"
            "print(json.dumps([s,resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss/1024.0,"
            "r.returncode,r.stderr]))")
    r = subprocess.run([sys.executable, "-c", code, binary, "import-fx", src, "-o", out],
                       capture_output=True, text=True, check=True)
    return json.loads(r.stdout)


def main():
    binary = ot.binary(sys.argv[1] if len(sys.argv) > 1 else None)
    folder = sys.argv[2] if len(sys.argv) > 2 else os.path.join(
        os.path.dirname(__file__), "..", "..", "..", "shared", "corpus", "autoparallel")
    if not os.path.isdir(folder):
        print(f"skip: no corpus at {folder}")
        return 0
    repros = sorted(f for f in os.listdir(folder) if f.endswith(".py"))
    rows = []
    slow = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in repros:
            src = os.path.join(folder, name)
            graph = os.path.join(tmp, name[:-3] + ".json")
            secs, mib, rc, err = import_measured(binary, src, graph)
            if rc != 0:
                rows.append([name, "import failed: " + err.strip().splitlines()[-1]])
                continue
            if secs > IMPORT_SECONDS or mib > IMPORT_MIB:
                slow.append(f"{name}: import {secs:.3f} s, {mib:.0f} MiB")
            g = json.load(open(graph, encoding="utf-8"))
            nodes = len(g["nodes"])
            unknown = 0
            for line in err.splitlines():
                if "without shape" in line:
                    unknown = int(line.split("warning: ")[1].split()[0])
            shaped = sum(1 for n in g["nodes"] if n.get("val") is not None)
            pct = 100.0 * shaped / max(shaped + unknown, 1)
            table = (g.get("collective_table") or {}).get("file", "")
            beside = os.path.join(tmp, table)
            if table and not os.path.exists(os.path.join(folder, table)):
                table += " (absent)"
            elif table and not os.path.exists(beside):
                # schedule reads the table beside the graph it schedules.
                os.symlink(os.path.join(os.path.abspath(folder), table), beside)
            results = {}
            for label, flags in (("default", []), ("bucketed", ["--collective-bucketing"]),
                                 ("fusion", ["--fusion"])):
                report = os.path.join(tmp, f"{name}.{label}.report.json")
                out = os.path.join(tmp, f"{name}.{label}.sched.json")
                t0 = time.perf_counter()
                r = ot.run(binary, "schedule", graph, "-q", "-o", out, "--report", report, *flags)
                seconds = time.perf_counter() - t0
                if r.returncode != 0:
                    results[label] = None
                    continue
                rep = json.load(open(report, encoding="utf-8"))
                results[label] = (seconds, rep)
            d = results.get("default")
            b = results.get("bucketed")
            fu = results.get("fusion")
            if not d:
                rows.append([name, "schedule failed"])
                continue
            sim = d[1]["simulation"]
            pub = PUBLISHED.get(name)
            pub_text = (f"{pub[1]:.2f} -> {pub[2]:.2f} ({pub[0]})" if pub else "")
            rows.append([
                name, f"{nodes}", f"{pct:.1f}", f"{secs:.3f}", f"{mib:.0f}",
                f"{d[0]:.3f}", f"{sim['step_ms_before']:.2f}", f"{sim['step_ms_after']:.2f}",
                f"{b[1]['simulation']['step_ms_after']:.2f}" if b else "failed",
                (f"{fu[1]['simulation']['step_ms_before']:.2f} -> "
                 f"{fu[1]['simulation']['step_ms_after']:.2f}") if fu else "failed",
                f"{d[1]['lower_bound']['step_ms']:.2f}", table or "none (model)", pub_text
            ])
    header = ["graph", "nodes", "% shaped", "import s", "import MiB", "schedule s",
              "step before ms", "step after ms", "after, bucketed ms", "--fusion before -> after ms",
              "lower bound ms",
              "collective table", "published before -> after ms"]
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join("---" for _ in header) + "|")
    for r in rows:
        print("| " + " | ".join(r + [""] * (len(header) - len(r))) + " |")
    if slow:
        print("\nover the import target (%.1f s, %d MiB): %s" % (IMPORT_SECONDS, IMPORT_MIB,
                                                               "; ".join(slow)))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
