#!/usr/bin/env python3
"""An exact reference for the tool's own step model, by CP-SAT (OR-Tools).

The model is what `schedule --sim-model` writes (lib/sim/simulate.h's rules):
one compute stream runs compute nodes and timed readers in order; each
group's stream runs its collectives in issue order, each starting when it is
issued and its stream is free; a node that waits on a collective starts no
earlier than the collective's end. Times are integers (nanoseconds) so the
solver and the simulation here agree exactly.

A window is a run of consecutive positions of an order: everything outside
it keeps its place. The solver finds the best order of the window's nodes
(keeping every dependency) for the whole step: the prefix is simulated to
give the window's starting state, and the suffix, whose order is fixed, is a
max-plus function of the state the window leaves (the compute stream's
time, each group stream's free time, each collective's end), so the step is
the largest of those times plus their "tails" (the suffix's longest path
from each). Memory and in-flight limits are not modelled: a window's optimum
is the best any order of it can do ignoring them, so where it equals the
tool's cost the tool's window is optimal, and where it is lower the
difference is at most what a better order could gain there.

A library for scripts/bench/optimality.py; tests/check_window_reference.py
checks it against brute force.
"""
import itertools
import math

NEG = float("-inf")


class Model:
    """A sim-model file: nodes in the written order, integer times."""

    def __init__(self, doc):
        if doc.get("format") != "overlap-sched.sim-model":
            raise ValueError("not an overlap-sched.sim-model file")
        self.groups = doc["groups"]
        nodes = doc["nodes"]
        self.names = [n["name"] for n in nodes]
        self.role = [n["role"] for n in nodes]
        self.ms = [n["ms"] for n in nodes]
        self.ns = [int(round(n["ms"] * 1e6)) for n in nodes]
        self.group = [n["group"] for n in nodes]
        self.inputs = [n["inputs"] for n in nodes]
        self.waits_on = [n["waits_on"] for n in nodes]
        self.n = len(nodes)

    def runs_on_stream(self, v):
        return self.role[v] == "compute" or (self.role[v] == "reader" and self.ms[v] > 0)


def simulate(m, order, times=None, state=None):
    """The step of `order` by the simulation's rules. `times`: per node
    durations (default the integer ns). `state`: (t, free per group, finish
    per collective) to start from, for a suffix; returns the step and the
    final state."""
    times = m.ns if times is None else times
    if state is None:
        t, free, finish = 0, [0] * len(m.groups), {}
    else:
        t, free, finish = state[0], list(state[1]), dict(state[2])
    for v in order:
        r = m.role[v]
        if r == "collective":
            g = m.group[v]
            start = max(t, free[g])
            free[g] = finish[v] = start + times[v]
        elif r in ("reader", "compute"):
            for c in m.waits_on[v]:
                f = finish.get(c)
                if f is not None and f > t:
                    t = f
            if r == "compute" or times[v] > 0:
                t += times[v]
    step = max([t] + list(finish.values()))
    return step, (t, free, finish)


def tails(m, suffix, pending):
    """The suffix's longest path from each state variable to the step's end:
    the compute stream ('t'), each group's stream (('g', i)) and each
    collective in `pending` (('c', v)); NEG where none."""
    out = {}
    # A collective no suffix node waits on reaches the step only through its
    # own end (its group's stream covers what runs after it): tail 0.
    waited = {c for v in suffix for c in m.waits_on[v]}
    for c in pending:
        if c not in waited:
            out[("c", c)] = 0
    keys = [("t",)] + [("g", i) for i in range(len(m.groups))]
    keys += [("c", c) for c in pending if c in waited]
    for key in keys:
        t = 0 if key[0] == "t" else NEG
        free = [0 if key == ("g", i) else NEG for i in range(len(m.groups))]
        finish = {c: (0 if key == ("c", c) else NEG) for c in pending if c in waited}
        step, _ = simulate(m, suffix, state=(t, free, finish))
        out[key] = step
    return out


def solve_window(m, order, a, b, seconds=10.0, workers=2):
    """Best order of positions [a, b) of `order` for the whole step. Returns
    a dict: written (the step as written), best (the solver's best step),
    bound (its proven lower bound), optimal (proven), order (the best full
    order, checked by simulate)."""
    from ortools.sat.python import cp_model

    prefix, window, suffix = order[:a], order[a:b], order[b:]
    _, (t0, free0, finish0) = simulate(m, prefix)
    issued = set(finish0) | {v for v in window if m.role[v] == "collective"}
    tail = tails(m, suffix, sorted(issued))
    written, _ = simulate(m, order)
    horizon = written + 1
    for v in order:
        horizon += m.ns[v]
    cp = cp_model.CpModel()
    w = len(window)
    at = {v: i for i, v in enumerate(window)}
    pos = {v: cp.NewIntVar(0, w - 1, f"p{v}") for v in window}
    cp.AddAllDifferent(list(pos.values()))
    tb = {v: cp.NewIntVar(t0, horizon, f"b{v}") for v in window}
    ta = {v: cp.NewIntVar(t0, horizon, f"a{v}") for v in window}
    start, fin = {}, {}
    for v in window:
        dur = m.ns[v] if m.runs_on_stream(v) else 0
        cp.Add(ta[v] >= tb[v] + dur)
        if m.role[v] == "collective":
            start[v] = cp.NewIntVar(0, horizon, f"s{v}")
            fin[v] = cp.NewIntVar(0, horizon, f"f{v}")
            cp.Add(start[v] >= tb[v])
            cp.Add(start[v] >= free0[m.group[v]])
            cp.Add(fin[v] == start[v] + m.ns[v])
        for p in m.inputs[v]:
            if p in at:
                cp.Add(pos[p] < pos[v])
    for v in window:
        if m.role[v] in ("reader", "compute"):
            dur = m.ns[v] if m.runs_on_stream(v) else 0
            for c in m.waits_on[v]:
                if c in fin:
                    cp.Add(ta[v] >= fin[c] + dur)
                elif c in finish0:
                    cp.Add(ta[v] >= finish0[c] + dur)
    # Order of each pair: the later starts after the earlier's end on the
    # compute stream, and runs after it on their group's stream.
    for u, v in itertools.combinations(window, 2):
        before = cp.NewBoolVar(f"o{u}_{v}")
        cp.Add(pos[u] < pos[v]).OnlyEnforceIf(before)
        cp.Add(pos[v] < pos[u]).OnlyEnforceIf(before.Not())
        cp.Add(tb[v] >= ta[u]).OnlyEnforceIf(before)
        cp.Add(tb[u] >= ta[v]).OnlyEnforceIf(before.Not())
        if u in start and v in start and m.group[u] == m.group[v]:
            cp.Add(start[v] >= fin[u]).OnlyEnforceIf(before)
            cp.Add(start[u] >= fin[v]).OnlyEnforceIf(before.Not())
    # The state the window leaves, and the step through the suffix's tails.
    t_end = cp.NewIntVar(t0, horizon, "t_end")
    for v in window:
        cp.Add(t_end >= ta[v])
    step = cp.NewIntVar(0, horizon, "step")
    if tail[("t",)] != NEG:
        cp.Add(step >= t_end + int(tail[("t",)]))
    for g in range(len(m.groups)):
        tg = tail[("g", g)]
        if tg == NEG:
            continue
        cp.Add(step >= free0[g] + int(tg))
        for v in start:
            if m.group[v] == g:
                cp.Add(step >= fin[v] + int(tg))
    for c in issued:
        tc = tail[("c", c)]
        if tc == NEG:
            continue
        cp.Add(step >= (fin[c] if c in fin else finish0[c]) + int(tc))
    cp.Minimize(step)
    for i, v in enumerate(window):
        cp.AddHint(pos[v], i)
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = seconds
    solver.parameters.num_workers = workers
    solver.parameters.random_seed = 1
    status = solver.Solve(cp)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        raise RuntimeError(f"window [{a}, {b}): solver status {solver.StatusName(status)}")
    best_window = sorted(window, key=lambda v: solver.Value(pos[v]))
    best_order = prefix + best_window + suffix
    best, _ = simulate(m, best_order)
    # The solver's times are feasible, so its step is at least the simulated
    # one of its order; proven optimal, the two are equal (or the model and
    # the simulation disagree).
    objective = int(round(solver.ObjectiveValue()))
    optimal = status == cp_model.OPTIMAL
    if best > objective or (optimal and best != objective):
        raise RuntimeError(f"window [{a}, {b}): the solver's step {objective} does not match "
                           f"the simulated step {best} of its order")
    return {"written": written, "best": best, "bound": int(math.ceil(solver.BestObjectiveBound())),
            "optimal": optimal, "order": best_order}


def topological_orders(m):
    """Every order of the model's nodes that keeps its inputs first."""
    missing = [len(set(m.inputs[v])) for v in range(m.n)]
    users = [[] for _ in range(m.n)]
    for v in range(m.n):
        for p in set(m.inputs[v]):
            users[p].append(v)
    order, placed = [], [False] * m.n

    def rec():
        if len(order) == m.n:
            yield list(order)
            return
        for v in range(m.n):
            if placed[v] or missing[v]:
                continue
            placed[v] = True
            order.append(v)
            for u in users[v]:
                missing[u] -= 1
            yield from rec()
            for u in users[v]:
                missing[u] += 1
            order.pop()
            placed[v] = False

    yield from rec()


def random_model(rng, steps):
    """A small random model: compute nodes reading earlier results, and
    collectives on two groups, each with a reader that waits on it."""
    nodes = [{"name": "x", "role": "passive", "ms": 0, "group": -1, "inputs": [],
              "waits_on": []}]
    results = [0]
    for i in range(steps):
        if rng.random() < 0.5:
            ins = sorted({rng.choice(results), rng.choice(results)})
            nodes.append({"name": f"mm{i}", "role": "compute", "ms": rng.choice([1, 2, 3]) * 0.25,
                          "group": -1, "inputs": ins, "waits_on": []})
            results.append(len(nodes) - 1)
        else:
            src = rng.choice(results)
            nodes.append({"name": f"c{i}", "role": "collective", "ms": rng.choice([1, 2, 3]) * 0.3,
                          "group": rng.randrange(2), "inputs": [src], "waits_on": []})
            c = len(nodes) - 1
            nodes.append({"name": f"w{i}", "role": "reader", "ms": 0, "group": -1,
                          "inputs": [c], "waits_on": [c]})
            results.append(len(nodes) - 1)
    return Model({"format": "overlap-sched.sim-model", "groups": ["a", "b"], "nodes": nodes})
