"""The PyTorch bridge (scripts/torch/overlap_sched_torch.py) with Debian's
python3-torch: trace with make_fx, export, schedule with the real binary,
apply the order, and run both GraphModules on the same inputs."""

import json
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "scripts", "torch"))

import torch  # noqa: E402
from torch.fx.experimental.proxy_tensor import make_fx  # noqa: E402

import overlap_sched_torch as ost  # noqa: E402

TOOL = os.environ["OSCHED_BINARY"]
_LIB = ost.register_test_collectives()


def inputs():
    torch.manual_seed(0)
    return [torch.randn(64, 128) for _ in range(4)]


def traced():
    return make_fx(ost.demo_model, tracing_mode="fake")(*inputs())


def run(*args):
    r = subprocess.run([TOOL, *args], capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr


class Bridge(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.path = lambda name: os.path.join(self.dir.name, name)

    def tearDown(self):
        self.dir.cleanup()

    def test_export_validates_and_describes_the_graph(self):
        gm = traced()
        ost.export_graph(gm, self.path("g.json"), device="cuda:0", hardware={"gpu": "H100-SXM"})
        rc, out, err = run("validate", self.path("g.json"))
        self.assertEqual(rc, 0, err)
        with open(self.path("g.json")) as f:
            doc = json.load(f)
        self.assertEqual(doc["process_groups"], {"0": {"ranks": [0, 1]}})
        self.assertEqual(doc["world_size"], 2)
        self.assertEqual(doc["hardware"], {"gpu": "H100-SXM"})
        nodes = {n["name"]: n for n in doc["nodes"]}
        ag = [n for n in doc["nodes"] if n["target"] == "_c10d_functional.all_gather_into_tensor.default"]
        self.assertEqual(len(ag), 3)
        self.assertEqual(ag[0]["args"][1:], [2, "0"])
        self.assertEqual(ag[0]["val"]["shape"], [128, 128])
        self.assertEqual(ag[0]["val"]["device"], "cuda:0")
        mm = [n for n in doc["nodes"] if n["target"] == "aten.mm.default"][0]
        self.assertEqual(mm["val"]["dtype"], "float32")
        self.assertEqual(nodes["output"]["op"], "output")
        rc, out, _ = run("stats", "--json", self.path("g.json"))
        stats = json.loads(out)
        self.assertEqual(stats["collectives"], 4)
        self.assertEqual(stats["waits"], 4)

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

    def test_round_trip_reorders_and_keeps_outputs(self):
        gm = traced()
        expected = gm(*inputs())
        before = [n.name for n in gm.graph.nodes]
        ost.export_graph(gm, self.path("g.json"), device="cuda:0")
        rc, _, err = run("schedule", self.path("g.json"), "-o", self.path("s.json"), "-q")
        self.assertEqual(rc, 0, err)
        ost.apply_schedule(gm, self.path("s.json"))
        after = [n.name for n in gm.graph.nodes]
        order, _ = ost.read_schedule(self.path("s.json"))
        self.assertEqual(after, order)
        self.assertNotEqual(after, before, "the tool moved nothing: the test graph must need overlap")
        got = gm(*inputs())
        for a, b in zip(expected, got):
            self.assertTrue(torch.equal(a, b))
        # The regenerated code follows the new order too.
        code_order = [line.split(" = ")[0].strip() for line in gm.code.splitlines() if " = torch.ops" in line]
        self.assertEqual(code_order, [n for n in order if n in code_order])

    def test_control_deps_recorded(self):
        gm = traced()
        ost.export_graph(gm, self.path("g.json"), device="cuda:0")
        rc, _, err = run("schedule", self.path("g.json"), "-o", self.path("s.json"), "-q",
                         "--insert-overlap-deps")
        self.assertEqual(rc, 0, err)
        _, deps = ost.read_schedule(self.path("s.json"))
        ost.apply_schedule(gm, self.path("s.json"))
        recorded = {n.name: n.meta["overlap_sched_control_deps"] for n in gm.graph.nodes
                    if "overlap_sched_control_deps" in n.meta}
        self.assertEqual(recorded, {k: v for k, v in deps.items() if v})

    def test_bucketed_schedule_is_refused(self):
        gm = traced()
        ost.export_graph(gm, self.path("g.json"), device="cuda:0")
        with open(self.path("g.json")) as f:
            doc = json.load(f)
        doc["nodes"].insert(1, dict(doc["nodes"][0], name="bucket_0"))
        with open(self.path("b.json"), "w") as f:
            json.dump(doc, f)
        with self.assertRaisesRegex(ValueError, "not a schedule of this graph"):
            ost.apply_schedule(gm, self.path("b.json"))

    def test_post_grad_pass_on_an_fx_graph(self):
        gm = traced()
        expected = gm(*inputs())
        p = ost.OverlapSchedPass(tool=TOOL, args=["--max-in-flight-gb", "2"], device="cuda:0")
        p(gm.graph)  # Inductor hands the pass an fx.Graph
        gm.recompile()
        self.assertEqual(p.last_report["config"]["max_in_flight_gb"], 2.0)
        self.assertEqual(p.last_report["counts"]["collectives"], 4)
        for a, b in zip(expected, gm(*inputs())):
            self.assertTrue(torch.equal(a, b))
        self.assertIn("--max-in-flight-gb", p.uuid())

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

    def test_demo_command(self):
        r = subprocess.run([sys.executable, os.path.join(os.path.dirname(__file__), "..", "scripts",
                                                         "torch", "overlap_sched_torch.py"),
                            "demo", "--tool", TOOL], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("outputs identical: True", r.stdout)


if __name__ == "__main__":
    unittest.main()
