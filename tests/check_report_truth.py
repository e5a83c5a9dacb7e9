#!/usr/bin/env python3
"""One truth: every figure a report gives about the written graph is what
scheduling that written graph again finds before it moves anything.

For every golden case (tests/golden.py's list: each bundled graph under
its option sets), `schedule` runs once, then again on the graph it wrote,
with the same options. The second run's "before" figures must equal the
first run's "after" ones: step, exposed communication, peak memory,
each collective's exposure (a bucket's on the bucket), and the counts (the
written graph's collectives, fully and partially exposed, which the second
run lists with their exposure before it moves anything). The step must also
be at least the lower bound.

  tests/check_report_truth.py BIN
"""
import json
import os
import sys
import tempfile

import golden
import osched_testing as ot

TOL = 2e-6  # reports round to 6 decimals
COMPARED = [0]


def schedule(binary, graph, args, out_graph, report):
    cmd = [binary, "schedule", graph, "-o", out_graph, "--report", report, "-q"] + args
    p = ot.run(*cmd, cwd=ot.ROOT)
    if p.returncode != 0:
        raise SystemExit("%s: exit %d: %s" % (" ".join(cmd), p.returncode, p.stderr.strip()))
    with open(report) as f:
        return json.load(f)


def close(a, b):
    return abs(a - b) <= TOL * max(1.0, abs(a), abs(b))


def check_case(binary, name, graph, args, tmp):
    ext = ".pb" if "--out-format" in args and "pb" in args else ".json"
    first_graph = os.path.join(tmp, name + ".first" + ext)
    first = schedule(binary, graph, args, first_graph, os.path.join(tmp, name + ".first.report.json"))
    second = schedule(binary, first_graph, args, os.path.join(tmp, name + ".second" + ext),
                      os.path.join(tmp, name + ".second.report.json"))
    problems = []

    def same(what, a, b):
        COMPARED[0] += 1
        if not close(a, b):
            problems.append("%s: report says %s, the written graph simulates to %s" % (what, a, b))

    s1, s2 = first["simulation"], second["simulation"]
    same("step_ms", s1["step_ms_after"], s2["step_ms_before"])
    same("exposed_comm_ms", s1["exposed_comm_ms_after"], s2["exposed_comm_ms_before"])
    same("peak_bytes", first["memory"]["scheduled_peak_bytes"], second["memory"]["original_peak_bytes"])
    again = {c["name"]: c for c in second["collectives"]}
    for c in first["collectives"]:
        if c["name"] in again:
            same("collective %s exposed_ms" % c["name"], c["exposed_ms"], again[c["name"]]["exposed_ms_before"])
    for b in (first.get("bucketing") or {}).get("buckets", []):
        same("bucket %s exposed_ms" % b["name"], b["exposed_ms"], again[b["name"]]["exposed_ms_before"])
    # The counts, from the second run's list of the written graph's collectives.
    listed = second["collectives"]
    full = sum(1 for c in listed
               if c["exposed_ms_before"] > 0 and c["exposed_ms_before"] >= c["estimated_ms"] - TOL)
    partial = sum(1 for c in listed if 0 < c["exposed_ms_before"] < c["estimated_ms"] - TOL)
    counts = first["counts"]
    same("counts.collectives", counts["collectives"], len(listed))
    same("counts.exposed", counts["exposed"], full)
    same("counts.partially_exposed", counts["partially_exposed"], partial)
    for c in first["collectives"]:
        if "bucket" in c and c["exposed_ms"] != 0:
            problems.append("bucket member %s carries exposure of its own" % c["name"])
    if s1["step_ms_after"] < first["lower_bound"]["step_ms"] - TOL:
        problems.append("step %s below the lower bound %s" % (s1["step_ms_after"], first["lower_bound"]["step_ms"]))
    if s1["step_ms_before"] < first["lower_bound"]["step_ms"] - TOL and "bucketing" not in first:
        problems.append("input step %s below the lower bound %s" % (s1["step_ms_before"], first["lower_bound"]["step_ms"]))
    return problems


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    binary = ot.binary(sys.argv[1])
    failures = 0
    cases = golden.cases()
    with tempfile.TemporaryDirectory() as tmp:
        for name, graph, args in cases:
            for p in check_case(binary, name, graph, args, tmp):
                failures += 1
                print("%s: %s" % (name, p))
    print("%d figures compared over %d cases" % (COMPARED[0], len(cases)))
    print("%d passed, %d failed" % (len(cases) - min(failures, len(cases)), failures))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
