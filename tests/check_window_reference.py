#!/usr/bin/env python3
"""The exact window reference (scripts/bench/window_reference.py, CP-SAT) against
brute force over every order of 30 random step models, the whole graph and a
middle window; and the tool's --sim-model against its own reports (the
model simulates to the report's step).

usage: check_window_reference.py [OVERLAP_SCHED]   (PYTHONPATH=tests:scripts/bench)"""
import json
import math
import os
import random
import sys
import tempfile

import osched_testing as ot
import window_reference as wr


def main():
    binary = ot.binary(sys.argv[1] if len(sys.argv) > 1 else None)
    try:
        import ortools  # noqa: F401
    except ImportError:
        print("skip: ortools is not installed (scripts/install-deps.sh installs it)")
        return 0
    rng = random.Random(20261207)
    improved = 0
    for trial in range(30):
        m = wr.random_model(rng, rng.randrange(4, 7))
        order = list(range(m.n))
        brute = min(wr.simulate(m, o)[0] for o in wr.topological_orders(m))
        # A window of the whole graph, and one of its middle part.
        whole = wr.solve_window(m, order, 0, m.n, seconds=20)
        if not whole["optimal"] or whole["best"] != brute:
            print(f"trial {trial}: whole-graph optimum {whole['best']} "
                  f"(optimal={whole['optimal']}), brute force {brute}")
            return 1
        a, b = 1, max(2, m.n - 1)
        part = wr.solve_window(m, order, a, b, seconds=20)
        fixed = [o for o in wr.topological_orders(m) if o[:a] == order[:a] and o[b:] == order[b:]]
        brute_part = min(wr.simulate(m, o)[0] for o in fixed)
        if part["best"] != brute_part:
            print(f"trial {trial}: window optimum {part['best']}, brute force {brute_part}")
            return 1
        improved += brute < wr.simulate(m, order)[0]
    if improved < 10:
        print(f"only {improved} of 30 random orders could improve: the check is too weak")
        return 1
    # The tool's model of the graphs it writes simulates to its report's step.
    with tempfile.TemporaryDirectory() as tmp:
        for graph, extra in (("testdata/example_llama_fsdp.json", []),
                             ("testdata/tp_two_groups.json", ["--collective-bucketing"])):
            out, report, model = (os.path.join(tmp, f) for f in ("o.json", "r.json", "m.json"))
            ot.run(binary, "schedule", os.path.join(ot.ROOT, graph), "-o", out, "--report", report,
                   "--sim-model", model, "-q", *extra, check=True)
            with open(model) as f:
                m = wr.Model(json.load(f))
            with open(report) as f:
                step = json.load(f)["simulation"]["step_ms_after"]
            got = wr.simulate(m, list(range(m.n)), times=m.ms)[0]
            if not math.isclose(got, step, abs_tol=1e-5):
                print(f"{graph}: the model simulates to {got} ms, the report says {step}")
                return 1
    print(f"window reference: 30 random models agree with brute force ({improved} improvable); "
          "the tool's models match its reports")
    return 0



if __name__ == "__main__":
    sys.exit(main())
