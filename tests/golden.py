#!/usr/bin/env python3
"""Golden outputs of `schedule`: every bundled graph under several option
sets, compared byte for byte with testdata/golden/.

  tests/golden.py BIN --check     (what ctest runs)
  tests/golden.py BIN --update    (after an intended change of output)

Reports are stored whole (they are what a reviewer diffs); reordered graphs
and the stderr summaries as a SHA-256 each, since the report already names what moved and the graphs
would triple the size of the repository's test data. Runs from the
repository root so the paths echoed in reports are the same everywhere.
"""
import hashlib
import os
import sys
import tempfile

import osched_testing as ot

ROOT = ot.ROOT
GOLDEN = os.path.join("testdata", "golden")

BUCKET = ["--collective-bucketing", "--insert-overlap-deps"]
UNIT = ["--runtime-estimates", "testdata/scenarios/estimates_unit.json"]


def est(name):
    return ["--runtime-estimates", "testdata/scenarios/" + name]


def graphs():
    out = []
    for d in ("testdata", "testdata/scenarios"):
        for f in sorted(os.listdir(os.path.join(ROOT, d))):
            if f.endswith(".json") and not f.startswith("estimates"):
                out.append(d + "/" + f)
    return out


def cases():
    """(case name, graph, extra args)."""
    out = []
    for g in graphs():
        stem = os.path.splitext(os.path.basename(g))[0]
        out.append((stem + ".default", g, []))
        out.append((stem + ".upstream", g, ["--policy", "upstream"]))
        out.append((stem + ".bucketed", g, BUCKET))
        out.append((stem + ".unit_bucketed", g, UNIT + BUCKET))
    sc = "testdata/scenarios/"
    out += [
        ("custom_non_compute.relu", sc + "custom_estimator_for_non_compute_nodes.json", est("estimates_relu.json")),
        ("bucketing_wait_sink.mm2", sc + "bucketing_wait_sink.json", est("estimates_mm2.json") + BUCKET),
        ("split_for_overlap.mm2", sc + "bucketing_split_for_overlap.json", est("estimates_mm2.json") + BUCKET),
        ("split_for_overlap.mm2_order", sc + "bucketing_split_for_overlap.json",
         est("estimates_mm2.json") + BUCKET + ["--preserve-group-order"]),
        ("bucketing.estimates", sc + "bucketing.json", est("estimates_bucketing.json") + BUCKET),
        ("bucketing.slow", sc + "bucketing.json", est("estimates_bucketing_slow.json") + BUCKET),
        ("mm_half.multi_group", sc + "multi_group.json", est("estimates_mm_half.json")),
        ("example.group_order", "testdata/example_llama_fsdp.json", ["--preserve-group-order"]),
        ("example.release_early", "testdata/example_llama_fsdp.json", ["--release-memory-early"]),
        ("example.tight_limits", "testdata/example_llama_fsdp.json",
         ["--max-in-flight-gb", "0.01", "--max-compute-pre-fetch", "1", "--max-coll-distance", "2",
          "--max-memory-increase-gb", "0", "--max-memory-increase-ratio", "0"]),
        ("example.h100", "testdata/example_llama_fsdp.json",
         ["--gpu", "H100-SXM", "--gpus-per-node", "4", "--compute-overlap-multiplier", "0.5"]),
        ("example.small_buckets", "testdata/example_llama_fsdp.json", BUCKET + ["--bucket-max-gb", "0.05"]),
        ("fsdp_tiny.synthetic_bench", "testdata/fsdp_tiny.json",
         ["--benchmark-compute", "--collective-estimator", "benchmark", "--benchmark-backend", "synthetic"]),
        ("memory_tight.pb_out", sc + "memory_tight.json", ["--out-format", "pb"]),
        ("example.mem_tight", "testdata/example_llama_fsdp.json",
         ["--max-memory-increase-gb", "0", "--max-memory-increase-ratio", "0"]),
        ("example.upstream_mem_tight", "testdata/example_llama_fsdp.json",
         ["--policy", "upstream", "--max-memory-increase-gb", "0", "--max-memory-increase-ratio", "0"]),
        ("memory_tight.upstream_bucketed", sc + "memory_tight.json", ["--policy", "upstream"] + BUCKET),
    ]
    return out


def run_case(binary, name, graph, args, tmp):
    out_graph = os.path.join(tmp, name + ".graph")
    report = os.path.join(tmp, name + ".report.json")
    cmd = [binary, "schedule", graph, "-o", out_graph, "--report", report, "--format", "json"] + args
    if "--out-format" not in args:
        cmd += ["--out-format", "json"]
    p = ot.run(*cmd, cwd=ROOT)
    if p.returncode != 0:
        sys.exit("%s: exit %d: %s" % (name, p.returncode, p.stderr.strip()))
    with open(out_graph, "rb") as f:
        graph_hash = hashlib.sha256(f.read()).hexdigest()
    summary_hash = hashlib.sha256(p.stderr.encode()).hexdigest()
    with open(report, "rb") as f:
        return f.read(), graph_hash, summary_hash


def main():
    if len(sys.argv) != 3 or sys.argv[2] not in ("--check", "--update"):
        sys.exit(__doc__)
    binary, mode = ot.binary(sys.argv[1]), sys.argv[2]
    golden_dir = os.path.join(ROOT, GOLDEN)
    os.makedirs(golden_dir, exist_ok=True)
    hashes, failures = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for name, graph, args in cases():
            report, graph_hash, summary_hash = run_case(binary, name, graph, args, tmp)
            hashes.append("%s  %s\n" % (graph_hash, name))
            hashes.append("%s  %s.summary\n" % (summary_hash, name))
            path = os.path.join(golden_dir, name + ".report.json")
            if mode == "--update":
                with open(path, "wb") as f:
                    f.write(report)
            elif not os.path.exists(path) or open(path, "rb").read() != report:
                failures.append("%s: report differs from %s" % (name, os.path.relpath(path, ROOT)))
    hash_path = os.path.join(golden_dir, "graphs.sha256")
    if mode == "--update":
        with open(hash_path, "w") as f:
            f.writelines(hashes)
        print("golden: wrote %d reports with graph and summary hashes" % (len(hashes) // 2))
        return
    want = open(hash_path).readlines() if os.path.exists(hash_path) else []
    if want != hashes:
        got = dict((l.split()[1], l.split()[0]) for l in hashes)
        for l in want:
            h, n = l.split()
            if got.get(n) != h:
                what = "stderr summary" if n.endswith(".summary") else "reordered graph"
                failures.append("%s: %s differs (sha256 %s, golden %s)" % (n, what, got.get(n), h))
        if len(want) != len(hashes):
            failures.append("golden has %d cases, this run %d: run --update" % (len(want), len(hashes)))
    for f in failures:
        print(f)
    if failures:
        sys.exit("golden: %d mismatches (tests/golden.py BIN --update if intended)" % len(failures))
    print("golden: %d cases match" % (len(hashes) // 2))


if __name__ == "__main__":
    main()
