"""Captures what PyTorch 2.x users have of a distributed graph, for import-fx's
tests (tests/check_torch_artifacts.py):

  NAME_post_grad_graphs.log      stderr of a run with TORCH_LOGS=post_grad_graphs
  NAME_fx_graph_transformed_I.py TORCH_COMPILE_DEBUG=1's post-grad graph, one per compiled graph
  NAME_torch_trace.log           the TORCH_TRACE structured log
  NAME_repro.py                  a minifier-style repro (save_graph_repro) of the make_fx trace
  NAME.expect.json               for every artifact and graph: each node's shape and dtype as
                                 PyTorch's own meta["val"] gives it, recorded while compiling

Each model (FSDP, TP, MoE styles) is a small module calling the autograd
functional collectives under the fake process group; torch.compile runs
forward and backward on the CPU, so the logs hold a forward and a backward
graph, as a training step's do. Shapes are recorded from the graph as it
leaves Inductor's post-grad passes, the one all three logs print.

  .venv-torch/bin/python scripts/torch/capture_artifacts.py testdata/fx/torch2
"""

import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))  # on sys.path: the script's own folder

MODELS = ("fsdp", "tp", "moe", "transformer")
KINDS = {
    "post_grad_graphs": {"TORCH_LOGS": "post_grad_graphs"},
    "compile_debug": {"TORCH_COMPILE_DEBUG": "1"},
    "torch_trace": {},  # TORCH_TRACE is set to the work dir below
}


def build(name):
    """(module, inputs) of one model; parameters are this rank's shards."""
    import torch
    import torch.distributed._functional_collectives as funcol

    from overlap_sched import example_models as tm

    groups = tm.init_fake_world({"0": 8, "1": 4})
    torch.manual_seed(0)

    class Fsdp(torch.nn.Module):
        def __init__(self, layers=2, dim=64):
            super().__init__()
            self.shards = torch.nn.ParameterList(
                torch.nn.Parameter(torch.randn(dim // 8, dim) / dim**0.5) for _ in range(layers))

        def forward(self, x):
            for s in self.shards:
                x = torch.relu(x @ funcol.all_gather_single_autograd(s, 0, groups["0"]).t())
            return x.pow(2).mean()

    class Tp(torch.nn.Module):
        def __init__(self, dim=64, hidden=128):
            super().__init__()
            self.w_in = torch.nn.Parameter(torch.randn(hidden // 4, dim) / dim**0.5)
            self.w_out = torch.nn.Parameter(torch.randn(dim, hidden // 4) / hidden**0.5)

        def forward(self, x):
            full = funcol.all_gather_single_autograd(x, 0, groups["1"])
            y = torch.nn.functional.gelu(full @ self.w_in.t()) @ self.w_out.t()
            return (x + funcol.reduce_scatter_single_autograd(y, "sum", 0, groups["1"])).pow(2).mean()

    class Moe(torch.nn.Module):
        def __init__(self, experts=4, dim=64):
            super().__init__()
            self.router = torch.nn.Parameter(torch.randn(experts, dim))
            self.experts = torch.nn.Parameter(torch.randn(experts, dim, dim) / dim**0.5)
            self.dense = torch.nn.Parameter(torch.randn(dim, dim) / dim**0.5)

        def forward(self, x):
            weight, _ = torch.softmax(x @ self.router.t(), -1).max(-1, keepdim=True)
            splits = [x.shape[0] // 4] * 4
            recv = funcol.all_to_all_single_autograd(x * weight, splits, splits, groups["1"])
            out = torch.cat([torch.relu(c @ w.t()) for c, w in zip(recv.chunk(4), self.experts)])
            back = funcol.all_to_all_single_autograd(out, splits, splits, groups["1"])
            return (back + torch.tanh(x @ self.dense.t())).pow(2).mean()

    class Transformer(torch.nn.Module):
        # A plain nn.TransformerEncoderLayer under a causal mask: its
        # compiled graphs print -inf (the mask) as an argument.
        def __init__(self, dim=64):
            super().__init__()
            self.layer = torch.nn.TransformerEncoderLayer(dim, 4, 128, dropout=0.0,
                                                          batch_first=True)

        def forward(self, x):
            x = x.view(2, 8, 64)
            mask = torch.nn.Transformer.generate_square_subsequent_mask(8)
            return self.layer(x, src_mask=mask).pow(2).mean()

    module = {"fsdp": Fsdp, "tp": Tp, "moe": Moe, "transformer": Transformer}[name]()
    x = torch.randn({"fsdp": 16, "tp": 8, "moe": 32, "transformer": 16}[name], 64)
    return module, x


def describe(graph):
    """{node name: [shape, dtype] or a list of them} from PyTorch's meta["val"],
    and the call_function count: what import-fx must reproduce."""
    import torch

    def one(v):
        if isinstance(v, torch.Tensor):
            return [[int(d) for d in v.shape], str(v.dtype).replace("torch.", "")]
        return None

    shapes, calls = {}, 0
    for n in graph.nodes:
        calls += n.op == "call_function"
        if n.op == "output":
            continue
        v = n.meta.get("val")
        if isinstance(v, (list, tuple)):
            if any(isinstance(x, torch.Tensor) for x in v):
                shapes[n.name] = [one(x) for x in v]
        elif isinstance(v, torch.Tensor):
            shapes[n.name] = one(v)
    return {"call_functions": calls, "shapes": shapes}


def run_one(name, workdir):
    """In a child process whose environment holds the logging variables:
    compile the model, run forward and backward, and record each post-grad
    graph as Inductor hands it to its custom post pass."""
    import torch
    import torch._functorch.config
    import torch._inductor.compile_fx as compile_fx
    import torch._inductor.config as cfg

    graphs = []
    post_grad_passes = compile_fx.post_grad_passes

    def record(gm, is_inference):
        # The graph as it leaves the post-grad passes: what all three logs print.
        post_grad_passes(gm, is_inference)
        graphs.append(describe(gm.graph))

    compile_fx.post_grad_passes = record
    module, x = build(name)
    with cfg.patch(fx_graph_cache=False, compile_threads=1), \
            torch._functorch.config.patch(enable_autograd_cache=False):
        loss = torch.compile(module, fullgraph=True, dynamic=False)(x)
        loss.backward()
    with open(os.path.join(workdir, "expect.json"), "w") as f:
        json.dump(graphs, f)


def capture_repro(name, out):
    """A minifier-style repro of the make_fx trace of forward and backward."""
    import torch
    from torch._dynamo.repro.after_aot import save_graph_repro
    from torch.fx.experimental.proxy_tensor import make_fx

    module, x = build(name)
    params = list(module.parameters())

    def step(x, *ps):
        loss = torch.func.functional_call(module, dict(zip(dict(module.named_parameters()), ps)), (x,))
        return (loss, *torch.autograd.grad(loss, ps))

    gm = make_fx(step, tracing_mode="fake")(x, *[p.detach().requires_grad_(True) for p in params])
    with open(os.path.join(out, f"{name}_repro.py"), "w") as f:
        save_graph_repro(f, gm, [x, *params], "inductor", save_dir=None)
    return describe(gm.graph)


def capture(out, models=MODELS):
    import torch

    os.makedirs(out, exist_ok=True)
    for name in models:
        artifacts = []
        for kind, env in KINDS.items():
            with tempfile.TemporaryDirectory() as work:
                env = dict(os.environ, **env)
                if kind == "torch_trace":
                    env["TORCH_TRACE"] = os.path.join(work, "trace")
                with open(os.path.join(work, "stderr.log"), "w") as err:
                    subprocess.run([sys.executable, __file__, "--one", name, work], env=env,
                                   cwd=work, stderr=err, check=True)
                with open(os.path.join(work, "expect.json")) as f:
                    graphs = json.load(f)
                if kind == "post_grad_graphs":
                    dst = f"{name}_post_grad_graphs.log"
                    shutil.copy(os.path.join(work, "stderr.log"), os.path.join(out, dst))
                    artifacts += [{"file": dst, "graph": i, "expect": g} for i, g in enumerate(graphs)]
                elif kind == "compile_debug":
                    files = glob.glob(os.path.join(work, "torch_compile_debug", "**",
                                                   "fx_graph_transformed.py"), recursive=True)
                    # Directories end in the compile counter (model__0_forward_1.1): compile order.
                    files.sort(key=lambda p: int(re.search(r"_(\d+)\.\d+/", p).group(1)))
                    if len(files) != len(graphs):
                        raise RuntimeError(f"{name}: {len(files)} debug graphs, {len(graphs)} compiled")
                    for i, (src, g) in enumerate(zip(files, graphs)):
                        dst = f"{name}_fx_graph_transformed_{i}.py"
                        shutil.copy(src, os.path.join(out, dst))
                        artifacts.append({"file": dst, "graph": None, "expect": g})
                else:
                    logs = glob.glob(os.path.join(work, "trace", "*.log"))
                    if len(logs) != 1:
                        raise RuntimeError(f"{name}: expected one TORCH_TRACE log, found {logs}")
                    dst = f"{name}_torch_trace.log"
                    shutil.copy(logs[0], os.path.join(out, dst))
                    artifacts += [{"file": dst, "graph": i, "expect": g} for i, g in enumerate(graphs)]
        artifacts.append({"file": f"{name}_repro.py", "graph": None,
                          "expect": capture_repro(name, out)})
        with open(os.path.join(out, f"{name}.expect.json"), "w") as f:
            json.dump({"torch": torch.__version__, "artifacts": artifacts}, f, indent=1, sort_keys=True)
            f.write("\n")
        print(f"{name}: {len(artifacts)} artifacts")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("out", nargs="?", default=os.path.join(HERE, "..", "..", "testdata", "fx", "torch2"))
    p.add_argument("--models", default=",".join(MODELS), help="which models, comma-separated")
    p.add_argument("--one", nargs=2, metavar=("MODEL", "WORKDIR"), help=argparse.SUPPRESS)
    a = p.parse_args()
    if a.one:
        run_one(*a.one)
    else:
        capture(a.out, [m for m in a.models.split(",") if m])


if __name__ == "__main__":
    main()
