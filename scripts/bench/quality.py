#!/usr/bin/env python3
"""Schedule quality on a corpus: each graph scheduled with --policy upstream
and --policy improved, against the report's lower bound.

usage: scripts/bench/quality.py [OVERLAP_SCHED] [--quick]

Corpus: generated FSDP llama steps (4 and 16 layers, one with a slow
inter-node network), the 2-D TP x FSDP family (osched_testing.two_d), MoE
with all-to-all (moe_a2a_sym_size), memory-tight variants (no memory
increase allowed), and every graph of testdata/. Prints one markdown table:
step before, default, improved, lower bound, gap %, peak vs budget, runtime,
then the mean gaps."""
import json
import os
import sys
import tempfile
import time

import osched_testing as ot  # PYTHONPATH=tests (the .sh wrappers set it)

tool = ot.binary(next((a for a in sys.argv[1:] if not a.startswith("--")), None))
quick = "--quick" in sys.argv


def corpus(d):
    out = []

    def save(name, g, flags=()):
        path = os.path.join(d, name + ".json")
        g.save(path)
        out.append((name, path, list(flags)))

    save("llama4", ot.llama_fsdp(layers=4))
    if not quick:
        save("llama16", ot.llama_fsdp(layers=16))
    slow = ot.llama_fsdp(layers=4)
    slow.doc["hardware"] = {"gpu": "H100-SXM", "gpus_per_node": 2, "inter_node_gbps": 12.5}
    save("llama4-slow-net", slow)
    save("moe8", ot.moe_a2a_sym_size(layers=8))
    two_d = os.path.join(d, "tp_fsdp_2d.json")
    ot.two_d(20 if quick else 60).save(two_d)
    out.append(("tp_fsdp_2d", two_d, []))
    tight = ["--max-memory-increase-gb", "0", "--max-memory-increase-ratio", "0"]
    out.append(("llama4-mem-tight", os.path.join(d, "llama4.json"), tight))
    out.append(("tp_fsdp_2d-mem-tight", two_d, tight))
    for sub in ("testdata", "testdata/scenarios"):
        for f in sorted(os.listdir(os.path.join(ot.ROOT, sub))):
            if f.endswith(".json") and not f.startswith("estimates"):
                out.append((f[:-5], os.path.join(ot.ROOT, sub, f), []))
    return out


def run(path, flags, policy, d):
    rep = os.path.join(d, "r.json")
    t0 = time.monotonic()
    ot.run(tool, "schedule", path, "-o", os.path.join(d, "o.pb"), "--report", rep, "-q",
           "--policy", policy, *flags, check=True)
    return json.load(open(rep)), time.monotonic() - t0


def main():
    rows = []
    with tempfile.TemporaryDirectory() as d:
        for name, path, flags in corpus(d):
            base, t_base = run(path, flags, "upstream", d)
            imp, t_imp = run(path, flags, "improved", d)
            lb = base["lower_bound"]["step_ms"]
            gap = lambda r: 100.0 * max(0.0, r["simulation"]["step_ms_after"] - lb) / lb if lb > 0 else 0.0
            m = imp["memory"]
            rows.append((name, base["simulation"]["step_ms_before"], base["simulation"]["step_ms_after"],
                         imp["simulation"]["step_ms_after"], lb, gap(base), gap(imp),
                         m["scheduled_peak_bytes"] <= m["budget_bytes"] or m["kept_original_order"],
                         m["scheduled_peak_bytes"] / 2**20, m["budget_bytes"] / 2**20, t_base, t_imp,
                         imp.get("policy", {}).get("moves", 0)))
    print("| graph | step before ms | upstream ms | improved ms | lower bound ms | gap upstream % | gap improved % | peak / budget MiB | moves | runtime upstream / improved s |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    worse = 0
    for r in rows:
        worse += r[3] > r[2] + 1e-9
        print(f"| {r[0]} | {r[1]:.3f} | {r[2]:.3f} | {r[3]:.3f} | {r[4]:.3f} | {r[5]:.2f} | {r[6]:.2f} | "
              f"{r[8]:.1f} / {r[9]:.1f}{'' if r[7] else ' OVER'} | {r[12]} | {r[10]:.2f} / {r[11]:.2f} |")
    n = len(rows)
    mean_up = sum(r[5] for r in rows) / n
    mean_imp = sum(r[6] for r in rows) / n
    print(f"\n{n} graphs: mean gap to the lower bound {mean_up:.2f}% (upstream) -> {mean_imp:.2f}% (improved); "
          f"graphs worse than upstream: {worse}; over budget: {sum(not r[7] for r in rows)}")
    return 1 if worse or any(not r[7] for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
