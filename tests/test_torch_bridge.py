"""The PyTorch bridge (the overlap_sched package) on PyTorch 2.x
(the pinned wheel in .venv-torch): FSDP-, TP- and MoE-style steps that call
the real `_c10d_functional` collectives are traced with make_fx under the fake
process group, exported, scheduled by the real binary and reordered; both
GraphModules then run on the same inputs and must give identical outputs.
The post-grad pass runs inside a real torch.compile on the CPU."""

import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
# OSCHED_TEST_INSTALLED=1: test the installed package (the wheel), not this
# checkout's sources (which ctest puts on PYTHONPATH).
INSTALLED = os.environ.get("OSCHED_TEST_INSTALLED") == "1"

import torch  # noqa: E402
from torch.fx.experimental.proxy_tensor import make_fx  # noqa: E402

import overlap_sched  # noqa: E402
from overlap_sched import example_models as tm  # noqa: E402
from overlap_sched import torch_bridge as ost  # noqa: E402

# The binary under test: the build's (ctest sets OSCHED_BINARY), or the one
# installed with the package.
TOOL = overlap_sched.binary()
if INSTALLED:
    for path in (overlap_sched.__file__, TOOL):
        assert os.path.realpath(path).startswith(os.path.realpath(sys.prefix) + os.sep), \
            f"{path} is not in the environment the package was installed into"
GROUPS = tm.init_fake_world({"0": 8, "1": 4})
C10D = "_c10d_functional."


def fsdp():
    x, shards = tm.fsdp_inputs()
    return (lambda x, *s: tm.fsdp_step(x, list(s), GROUPS["0"])), [x, *shards]


def tp():
    x, w_in, w_out = tm.tp_inputs()
    n = len(w_in)
    return (lambda x, *w: tm.tp_step(x, w[:n], w[n:], GROUPS["1"])), [x, *w_in, *w_out]


def moe():
    x, router, experts, dense = tm.moe_inputs()
    return (lambda x, r, d, *e: tm.moe_step(x, r, list(e), d, GROUPS["1"], 4)), \
        [x, router, dense, *experts]


def traced(model):
    fn, args = model()
    return make_fx(fn, tracing_mode="fake")(*args), args


def collectives(gm):
    """{op name: count} of the functional collectives in gm, wait excluded."""
    out = {}
    for n in gm.graph.nodes:
        t = str(n.target)
        if n.op == "call_function" and t.startswith(C10D) and "wait_tensor" not in t:
            out[t] = out.get(t, 0) + 1
    return out


def run(*args):
    r = subprocess.run([TOOL, *args], capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr


@torch.library.custom_op("osched_test::send_to_peer", mutates_args=())
def send_to_peer(buf: torch.Tensor, dst: int) -> torch.Tensor:
    """A point-to-point send the tool has never heard of."""
    torch.distributed.send(buf, dst)
    return buf.clone()


@send_to_peer.register_fake
def _(buf, dst):
    return torch.empty_like(buf)


def send_step(x, buf, w1, w2):
    """mm0, send, ag1, wait, mm1, mm2, ag2, wait, mm3: the order of the
    issue's example."""
    import torch.distributed._functional_collectives as funcol

    mm0 = x @ x
    sent = send_to_peer(buf, 1)
    f1 = funcol.all_gather_single(w1, 0, GROUPS["0"])
    mm2 = (mm0 @ x) @ f1.t()
    f2 = funcol.all_gather_single(w2, 0, GROUPS["0"])
    return mm2 @ f2, sent


def send_step_inputs():
    torch.manual_seed(0)
    return [torch.randn(512, 512), torch.randn(1024), torch.randn(64, 512), torch.randn(64, 512)]


# --- what Inductor runs ------------------------------------------------------

_CODE_START = re.compile(r"^(\w+ = )?torch\.ops\._c10d_functional\.(\w+)\.")
_CODE_MM = re.compile(r"^(\w+ = )?extern_kernels\.(mm|bmm|addmm|baddbmm)\(")


def code_sequence(code):
    """The collective starts (s), waits (w) and matmul kernels (mm) of
    Inductor's generated code, in the order it issues them."""
    out = []
    for line in code.splitlines():
        line = line.strip()
        m = _CODE_START.match(line)
        if m:
            out.append("w" if m.group(2) == "wait_tensor" else "s")
        elif _CODE_MM.match(line):
            out.append("mm")
    return out


written_sequence = ost.written_sequence  # the same classes for the tool's written graph


def compile_with_pass(fn, args, tool_args):
    """fn compiled by Inductor (CPU) with the pass and its inductor_options:
    (outputs, generated code, pass)."""
    import torch._dynamo
    import torch._functorch.config
    import torch._inductor.config as cfg
    from torch._inductor.utils import run_and_get_code

    p = ost.OverlapSchedPass(tool=TOOL, args=tool_args, device="cuda:0")
    torch._dynamo.reset()
    with cfg.patch(compile_threads=1, fx_graph_cache=False), \
            torch._functorch.config.patch(enable_autograd_cache=False):
        out, codes = run_and_get_code(torch.compile(fn, fullgraph=True,
                                                    options=p.inductor_options()), *args)
    return out, "\n".join(codes), p


def eager(fn, args):
    out = fn(*args)
    out = out if isinstance(out, (list, tuple)) else [out]
    return [t.wait() if hasattr(t, "wait") else t for t in out]


def fsdp_forward(x, *shards):
    """The FSDP-style forward of the issue: each layer all-gathers its weight
    shard, then a matmul."""
    import torch.distributed._functional_collectives as funcol

    h = x
    for s in shards:
        h = h @ funcol.all_gather_single(s, 0, GROUPS["0"]).t()
    return h


def fsdp_forward_inputs():
    torch.manual_seed(0)
    return [torch.randn(256, 512)] + [torch.randn(64, 512) / 20 for _ in range(6)]


def bucket_step(a, b, c, p, x):
    """Three small all-gathers of mixed dtypes that one matmul hides, and a
    fourth that depends on it (testdata/scenarios/bucketing.json in PyTorch)."""
    import torch.distributed._functional_collectives as funcol

    g = GROUPS["0"]
    wa, wb, wc = (funcol.all_gather_single(t, 0, g) for t in (a, b, c))
    mm1 = x @ x
    e = funcol.all_gather_single(p @ mm1, 0, g)
    mm2 = mm1 @ mm1
    return torch.relu(wa), torch.relu(wb), torch.relu(wc), mm2 + e[: mm2.shape[0]]


def bucket_estimates(directory):
    """Runtime estimates under which the tool buckets bucket_step's three
    all-gathers (testdata/scenarios/estimates_bucketing.json's)."""
    path = os.path.join(directory, "est.json")
    with open(path, "w") as f:
        json.dump({"version": 1, "ops": {C10D + "all_gather_into_tensor.default": 0.2,
                                         "aten.mm.default": 1.0}}, f)
    return path


def bucket_step_inputs():
    torch.manual_seed(0)
    return [torch.randn(64, 64, dtype=torch.bfloat16), torch.randn(64, 64, dtype=torch.bfloat16),
            torch.randn(64, 64), torch.randn(64, 256) / 16, torch.randn(256, 256) / 16]


class Bridge(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.path = lambda name: os.path.join(self.dir.name, name)

    def tearDown(self):
        self.dir.cleanup()

    def round_trip(self, model, must_move):
        gm, args = traced(model)
        expected = gm(*args)
        before = [n.name for n in gm.graph.nodes]
        ost.export_graph(gm, self.path("g.json"), device="cuda:0")
        rc, _, err = run("schedule", self.path("g.json"), "-o", self.path("s.json"), "-q",
                         "--report", self.path("r.json"))
        self.assertEqual(rc, 0, err)
        ost.apply_schedule(gm, self.path("s.json"))
        after = [n.name for n in gm.graph.nodes]
        order, _ = ost.read_schedule(self.path("s.json"))
        self.assertEqual(after, order)
        if must_move:
            self.assertNotEqual(after, before, "the tool moved nothing: the graph must need overlap")
        got = gm(*args)
        got = got if isinstance(got, (list, tuple)) else [got]
        expected = expected if isinstance(expected, (list, tuple)) else [expected]
        self.assertEqual(len(got), len(expected))
        for a, b in zip(expected, got):
            self.assertTrue(torch.equal(a, b))
        with open(self.path("r.json")) as f:
            return gm, json.load(f)

    def test_fsdp_step_round_trip(self):
        gm, report = self.round_trip(fsdp, must_move=True)
        # 3 weight all-gathers and 3 gradient reduce-scatters (fsdp_inputs: 3 layers).
        self.assertEqual(collectives(gm), {C10D + "all_gather_into_tensor.default": 3,
                                           C10D + "reduce_scatter_tensor.default": 3})
        self.assertEqual(report["counts"]["collectives"], 6)
        self.assertLess(report["simulation"]["step_ms_after"], report["simulation"]["step_ms_before"])
        # The regenerated code follows the new order too.
        order, _ = ost.read_schedule(self.path("s.json"))
        code = [line.split(" = ")[0].strip() for line in gm.code.splitlines() if " = torch.ops" in line]
        self.assertEqual(code, [n for n in order if n in code])

    def test_tp_step_round_trip(self):
        gm, report = self.round_trip(tp, must_move=False)
        # 2 layers: an all-gather and a reduce-scatter each, then one all-reduce.
        self.assertEqual(collectives(gm), {C10D + "all_gather_into_tensor.default": 2,
                                           C10D + "reduce_scatter_tensor.default": 2,
                                           C10D + "all_reduce.default": 1})
        self.assertEqual(report["counts"]["collectives"], 5)

    def test_moe_step_round_trip(self):
        gm, report = self.round_trip(moe, must_move=True)
        self.assertEqual(collectives(gm), {C10D + "all_to_all_single.default": 2})
        self.assertEqual(report["counts"]["collectives"], 2)
        # The dense matmul is independent of the dispatch: it must hide part of it.
        first = [c for c in report["collectives"] if c["kind"] == "all_to_all"]
        self.assertTrue(any(c["hidden_by"] for c in first), first)

    def test_export_describes_the_graph(self):
        gm, _ = traced(fsdp)
        ost.export_graph(gm, self.path("g.json"), device="cuda:0", hardware={"gpu": "H100-SXM"})
        rc, _, err = run("validate", self.path("g.json"))
        self.assertEqual(rc, 0, err)
        with open(self.path("g.json")) as f:
            doc = json.load(f)
        self.assertEqual(doc["process_groups"], {"0": {"ranks": list(range(8))}})
        self.assertEqual(doc["world_size"], 8)
        self.assertEqual(doc["hardware"], {"gpu": "H100-SXM"})
        ag = [n for n in doc["nodes"] if n["target"] == C10D + "all_gather_into_tensor.default"]
        self.assertEqual(len(ag), 3)
        self.assertEqual(ag[0]["args"][1:], [8, "0"])
        # A [64/8, 64] shard gathered over 8 ranks.
        self.assertEqual(ag[0]["val"]["shape"], [64, 64])
        self.assertEqual(ag[0]["val"]["device"], "cuda:0")
        rs = [n for n in doc["nodes"] if n["target"] == C10D + "reduce_scatter_tensor.default"]
        self.assertEqual(rs[0]["args"][1:], ["sum", 8, "0"])
        self.assertEqual(rs[0]["val"]["shape"], [8, 64])
        rc, out, _ = run("stats", "--json", self.path("g.json"))
        stats = json.loads(out)
        self.assertEqual(stats["collectives"], 6)
        self.assertEqual(stats["waits"], 6)

    def test_export_declares_the_group_of_every_collective_op(self):
        # A graph whose only collectives are a broadcast and an in-place
        # all-reduce still declares their group.
        import torch.distributed._functional_collectives as funcol

        def f(x):
            y = funcol.broadcast(x, 0, GROUPS["0"])
            z = torch.ops._c10d_functional.all_reduce_(x.clone(), "sum", "0")
            return torch.ops._c10d_functional.wait_tensor(z) + y

        gm = make_fx(f, tracing_mode="fake")(torch.randn(8, 8))
        ost.export_graph(gm, self.path("g.json"), device="cuda:0")
        rc, _, err = run("validate", self.path("g.json"))
        self.assertEqual(rc, 0, err)
        with open(self.path("g.json")) as f:
            self.assertEqual(json.load(f)["process_groups"], {"0": {"ranks": list(range(8))}})

    def test_views_share_a_storage_id(self):
        def f(x):
            v = x.view(-1)
            t = x.t()
            return torch.relu(v), t.sum()

        gm = make_fx(f, tracing_mode="fake")(torch.randn(4, 8))
        ost.export_graph(gm, self.path("v.json"))
        with open(self.path("v.json")) as f:
            nodes = {n["name"]: n for n in json.load(f)["nodes"]}
        sid = nodes["x_1"]["val"]["storage"]
        self.assertEqual(nodes["view"]["val"]["storage"], sid)
        self.assertEqual(nodes["t"]["val"]["storage"], sid)
        self.assertEqual(nodes["t"]["val"]["stride"], [1, 8])
        self.assertNotIn("storage", nodes["relu"]["val"])  # not shared: fresh allocation

    def test_control_deps_recorded(self):
        # Traced only, never run: a batch large enough that the matmuls hide
        # whole all-gathers, which is when the tool pins them.
        x, shards = tm.fsdp_inputs(dim=1024, batch=8192)
        gm = make_fx(lambda x, *s: tm.fsdp_step(x, list(s), GROUPS["0"]),
                     tracing_mode="fake")(x, *shards)
        ost.export_graph(gm, self.path("g.json"), device="cuda:0")
        rc, _, err = run("schedule", self.path("g.json"), "-o", self.path("s.json"), "-q",
                         "--insert-overlap-deps")
        self.assertEqual(rc, 0, err)
        _, deps = ost.read_schedule(self.path("s.json"))
        self.assertTrue(any(deps.values()), "an FSDP step has overlap to pin")
        ost.apply_schedule(gm, self.path("s.json"))
        recorded = {n.name: n.meta["overlap_sched_control_deps"] for n in gm.graph.nodes
                    if "overlap_sched_control_deps" in n.meta}
        self.assertEqual(recorded, {k: v for k, v in deps.items() if v})

    def test_schedule_of_another_graph_is_refused(self):
        gm, _ = traced(fsdp)
        ost.export_graph(gm, self.path("g.json"), device="cuda:0")
        with open(self.path("g.json")) as f:
            doc = json.load(f)
        doc["nodes"].insert(1, dict(doc["nodes"][0], name="bucket_0"))
        with open(self.path("b.json"), "w") as f:
            json.dump(doc, f)
        with self.assertRaisesRegex(ValueError, "not a schedule of this graph"):
            ost.apply_schedule(gm, self.path("b.json"))

    def test_symbolic_dims_export_with_hints(self):
        def f(x):
            return torch.relu(x.view(-1, 2))

        gm = make_fx(f, tracing_mode="symbolic")(torch.randn(4, 8))
        ost.export_graph(gm, self.path("s.json"))
        rc, _, err = run("validate", self.path("s.json"))
        self.assertEqual(rc, 0, err)
        with open(self.path("s.json")) as f:
            nodes = {n["name"]: n for n in json.load(f)["nodes"]}
        dim = nodes["view"]["val"]["shape"][0]
        self.assertIsInstance(dim, dict)
        self.assertEqual(dim["hint"], 16)

    def assert_close_outputs(self, got, expected):
        got = got if isinstance(got, (list, tuple)) else [got]
        self.assertEqual(len(got), len(expected))
        for a, b in zip(got, expected):
            torch.testing.assert_close(a.float(), b.float(), rtol=1e-3, atol=1e-3)

    def test_inductor_runs_the_tools_order(self):
        # Without the pins Inductor issued s w mm six times (the original
        # order) whatever the pass wrote.
        args = fsdp_forward_inputs()
        expected = eager(fsdp_forward, args)
        for tool_args in ([], ["--insert-overlap-deps"],
                          ["--collective-bucketing", "--pre-bucketing", "off"]):
            with self.subTest(tool_args=tool_args):
                out, code, p = compile_with_pass(fsdp_forward, args, tool_args)
                written = written_sequence(p.last_written)
                self.assertEqual(written.count("s"), 6)
                self.assertNotEqual(written, ["s", "w", "mm"] * 6, "the tool moved nothing")
                self.assertEqual(code_sequence(code), written)
                self.assert_close_outputs(out, expected)

    def test_inductor_runs_the_pre_bucketed_graph(self):
        # The six gathers each read one parameter shard (64 KB in, 256 KB
        # out), far under the 10 MB floor of a bucket: pre-bucketing merges
        # them into one call, which saves five calls' latency.
        args = fsdp_forward_inputs()
        expected = eager(fsdp_forward, args)
        out, code, p = compile_with_pass(fsdp_forward, args, ["--collective-bucketing"])
        pre = p.last_report["bucketing"]["pre_bucketing"]
        self.assertTrue(pre["kept"], pre["why"])
        self.assertEqual([len(b["members"]) for b in pre["buckets"]], [6])
        written = written_sequence(p.last_written)
        self.assertEqual(written.count("s"), 1)
        self.assertEqual(code.count(C10D + "all_gather_into_tensor_out.default("), 1)
        self.assertEqual(code_sequence(code), written)
        self.assert_close_outputs(out, expected)

    def test_inductor_runs_the_tools_buckets(self):
        with tempfile.TemporaryDirectory() as d:
            est = bucket_estimates(d)
            args = bucket_step_inputs()
            expected = eager(bucket_step, args)
            out, code, p = compile_with_pass(
                bucket_step, args, ["--collective-bucketing", "--runtime-estimates", est])
        buckets = p.last_report["bucketing"]["buckets"]
        self.assertEqual([len(b["members"]) for b in buckets], [3])
        # PyTorch's own bucketed all-gather (a copy-in, the _out collective, a split).
        self.assertEqual(code.count(C10D + "all_gather_into_tensor_out.default("), 1)
        self.assertEqual(code_sequence(code), written_sequence(p.last_written))
        self.assertEqual(code_sequence(code).count("s"), 2)
        self.assert_close_outputs(out, expected)

    def test_inductor_runs_the_tools_order_on_model_steps(self):
        for name, model in (("tp", tp), ("moe", moe)):
            with self.subTest(model=name):
                fn, args = model()
                expected = eager(fn, args)
                out, code, p = compile_with_pass(fn, args, ["--insert-overlap-deps"])
                self.assertEqual(code_sequence(code), written_sequence(p.last_written))
                self.assert_close_outputs(out, expected)

    def test_inductor_runs_the_tools_order_forward_and_backward(self):
        # Inductor compiles the forward and the backward graph apart; the
        # pass runs on each, and each runs in the tool's order.
        import torch._dynamo
        import torch._functorch.config
        import torch._inductor.config as cfg
        import torch.distributed._functional_collectives as funcol
        from torch._inductor.utils import run_and_get_code

        def train_forward(x, *shards):
            h = x
            for s in shards:
                h = torch.relu(h @ funcol.all_gather_tensor_autograd(s, 0, GROUPS["0"]).t())
            return h

        class Recording(ost.OverlapSchedPass):
            def __call__(self, graph):
                super().__call__(graph)
                self.written.append(self.last_written)

        args = fsdp_forward_inputs()
        eager_shards = [s.clone().requires_grad_(True) for s in args[1:]]
        expected = train_forward(args[0], *eager_shards)
        expected = expected.wait() if hasattr(expected, "wait") else expected
        expected.sum().backward()
        p = Recording(tool=TOOL, args=["--insert-overlap-deps"], device="cuda:0")
        p.written = []
        shards = [s.clone().requires_grad_(True) for s in args[1:]]
        compiled = torch.compile(train_forward, options=p.inductor_options())

        def step():
            out = compiled(args[0], *shards)
            out.sum().backward()
            return out

        torch._dynamo.reset()
        with cfg.patch(compile_threads=1, fx_graph_cache=False), \
                torch._functorch.config.patch(enable_autograd_cache=False):
            out, codes = run_and_get_code(step)
        self.assertEqual(len(codes), 2)  # forward, backward
        self.assertEqual(len(p.written), 2)
        for code, written in zip(codes, p.written):
            self.assertEqual(code_sequence(code), written_sequence(written))
        # The backward reduce-scatters every weight's gradient.
        self.assertEqual(written_sequence(p.written[1]).count("s"), 6)
        self.assert_close_outputs(out, [expected])
        for a, b in zip(shards, eager_shards):
            torch.testing.assert_close(a.grad, b.grad, rtol=1e-3, atol=1e-3)

    def test_bucketed_schedule_applied_back(self):
        # Outside Inductor too: the buckets become PyTorch's bucketing ops in
        # the GraphModule, which computes what it did.
        with tempfile.TemporaryDirectory() as d:
            est = bucket_estimates(d)
            args = bucket_step_inputs()
            gm = make_fx(bucket_step, tracing_mode="fake")(*args)
            expected = gm(*args)
            ost.export_graph(gm, self.path("g.json"), device="cuda:0")
            rc, _, err = run("schedule", self.path("g.json"), "-o", self.path("b.json"), "-q",
                             "--collective-bucketing", "--runtime-estimates", est)
        self.assertEqual(rc, 0, err)
        ost.apply_schedule(gm, self.path("b.json"))
        self.assertEqual(collectives(gm), {C10D + "all_gather_into_tensor_out.default": 1,
                                           C10D + "all_gather_into_tensor.default": 1})
        for a, b in zip(expected, gm(*args)):
            self.assertTrue(torch.equal(a, b))

    def test_custom_send_keeps_its_place(self):
        # A custom op that talks to another rank: the tool cannot classify
        # it, so no collective start or wait may cross it (pytorch 189454:
        # an overlap pass moved a recv above an unrecognised send and hung
        # torchcomms CI).
        args = send_step_inputs()
        gm = make_fx(send_step, tracing_mode="fake")(*args)
        expected = gm(*args)
        ost.export_graph(gm, self.path("g.json"), device="cuda:0")
        with open(self.path("g.json")) as f:
            exported = {n["name"]: n for n in json.load(f)["nodes"]}
        self.assertEqual(exported["send_to_peer"]["target"], "osched_test.send_to_peer.default")
        before = [n.name for n in gm.graph.nodes]
        comm = [n.name for n in gm.graph.nodes if str(n.target).startswith(C10D)]
        self.assertEqual(len(comm), 4)  # two all-gathers and their waits

        def side(order):
            return {c: order.index(c) < order.index("send_to_peer") for c in comm}

        # Declared pure, the send is free to move and the tool issues an
        # all-gather before it: the property below is not vacuous.
        rc, _, err = run("schedule", self.path("g.json"), "-o", self.path("free.json"), "-q",
                         "--assume-pure", "osched_test.send_to_peer")
        self.assertEqual(rc, 0, err)
        free, _ = ost.read_schedule(self.path("free.json"))
        self.assertNotEqual(side(free), side(before))

        rc, _, err = run("schedule", self.path("g.json"), "-o", self.path("s.json"),
                         "--report", self.path("r.json"))
        self.assertEqual(rc, 0, err)
        self.assertIn("send_to_peer (osched_test.send_to_peer.default, communication op)", err)
        with open(self.path("r.json")) as f:
            ops = json.load(f)["safety"]["opaque_ops"]
        self.assertEqual([(o["name"], o["why"]) for o in ops], [("send_to_peer", "communication op")])
        order, _ = ost.read_schedule(self.path("s.json"))
        self.assertEqual(side(order), side(before))
        ost.apply_schedule(gm, self.path("s.json"))
        calls = [n.name for n in gm.graph.nodes if n.op == "call_function"]
        self.assertEqual(calls, [n for n in order if exported[n]["op"] == "call_function"])
        self.assertEqual(side(calls), side(before))
        for a, b in zip(expected, gm(*args)):
            self.assertTrue(torch.equal(a, b))

    def test_custom_send_inside_torch_compile(self):
        import torch._dynamo
        import torch._functorch.config
        import torch._inductor.config as cfg

        args = send_step_inputs()
        expected = [t.wait() if hasattr(t, "wait") else t for t in send_step(*args)]

        class Recording(ost.OverlapSchedPass):
            def __call__(self, graph):
                self.before = [(n.name, str(n.target)) for n in graph.nodes]
                super().__call__(graph)
                self.after = [n.name for n in graph.nodes]

        p = Recording(tool=TOOL, device="cuda:0")
        torch._dynamo.reset()
        with cfg.patch(post_grad_custom_post_pass=p, compile_threads=1, fx_graph_cache=False), \
                torch._functorch.config.patch(enable_autograd_cache=False):
            got = torch.compile(send_step, fullgraph=True)(*args)
        self.assertIsNotNone(p.last_report, "Inductor did not run the pass")
        ops = p.last_report["safety"]["opaque_ops"]
        self.assertEqual([o["target"] for o in ops], ["osched_test.send_to_peer.default"])
        # Post-grad, Inductor already placed the send after both waits; the
        # pass keeps every collective start and wait on its side of it.
        send = [n for n, t in p.before if "send_to_peer" in t][0]
        comm = [n for n, t in p.before if t.startswith("_c10d_functional.")]
        self.assertEqual(len(comm), 4)
        for order in ([n for n, _ in p.before], p.after):
            self.assertEqual([order.index(c) < order.index(send) for c in comm], [True] * 4)
        for a, b in zip(expected, got):
            torch.testing.assert_close(b, a, rtol=1e-4, atol=1e-4)

    def test_post_grad_pass_inside_torch_compile(self):
        import torch._dynamo
        import torch._functorch.config
        import torch._inductor.config as cfg

        fn, args = tp()
        expected = fn(*args).wait()  # eager: an AsyncCollectiveTensor
        p = ost.OverlapSchedPass(tool=TOOL, args=["--max-in-flight-gb", "2"], device="cuda:0")
        torch._dynamo.reset()
        # A cache hit would skip the passes: compile afresh every time.
        with cfg.patch(post_grad_custom_post_pass=p, compile_threads=1, fx_graph_cache=False), \
                torch._functorch.config.patch(enable_autograd_cache=False):
            got = torch.compile(fn, fullgraph=True)(*args)
        self.assertIsNotNone(p.last_report, "Inductor did not run the pass")
        self.assertEqual(p.last_report["config"]["max_in_flight_gb"], 2.0)
        # tp_inputs: 2 layers of all-gather + reduce-scatter, and the all-reduce.
        self.assertEqual(p.last_report["counts"]["collectives"], 5)
        # Inductor fuses and reassociates float sums: close, not identical.
        torch.testing.assert_close(got, expected, rtol=1e-4, atol=1e-4)
        self.assertIn("--max-in-flight-gb", p.uuid())

    def test_demo_command(self):
        env = dict(os.environ)
        if not INSTALLED:
            env["PYTHONPATH"] = os.path.join(HERE, "..", "scripts", "torch")
        r = subprocess.run([sys.executable, "-m", "overlap_sched.torch_bridge", "demo",
                            "--tool", TOOL], capture_output=True, text=True, env=env)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("outputs identical: True", r.stdout)


class PackageTest(unittest.TestCase):
    def test_run_and_errors(self):
        r = overlap_sched.run(["--version"])
        self.assertEqual(r.stdout.strip(), "overlap-sched " + overlap_sched.__version__)
        with self.assertRaises(overlap_sched.RunError) as e:
            overlap_sched.run(["validate", "/nonexistent/graph.json"])
        self.assertEqual(e.exception.returncode, 2)
        self.assertIn("/nonexistent/graph.json", str(e.exception))

    def test_bridge_names_from_the_package(self):
        self.assertIs(overlap_sched.OverlapSchedPass, ost.OverlapSchedPass)
        self.assertIs(overlap_sched.export_graph, ost.export_graph)


if __name__ == "__main__":
    unittest.main()
