"""Small training steps in the styles that produce collectives, for the
bridge's tests, the captured artifacts (capture_artifacts.py) and the
comparison with PyTorch's own pass (scripts/bench/vs_torch.py).

Every step is a plain function over tensors that calls the real functional
collectives (torch.distributed._functional_collectives), so make_fx and
torch.compile record `_c10d_functional` ops as they do for FSDP2, tensor
parallel and MoE code. They run on one process under PyTorch's fake process
group (init_fake_world); with `simulate_uniform_ranks` every rank is taken to
hold this rank's data, so the collectives compute real, deterministic values
and a reordered graph can be checked against the original output for output.
The functional collectives wait by themselves: when traced they record the
collective and its wait_tensor; in eager mode they return an
AsyncCollectiveTensor that waits on first use.
"""

import torch
import torch.distributed as dist
import torch.distributed._functional_collectives as funcol


def init_fake_world(groups):
    """Starts PyTorch's fake process group as rank 0 and registers one group
    per entry of `groups` ({name: size}, as a minifier repro's get_pg_config
    gives them), each over ranks 0..size-1. Idempotent for equal arguments.
    Returns {name: ProcessGroup}."""
    from torch._C._distributed_c10d import (_register_process_group, _resolve_process_group,
                                            _unregister_process_group)
    from torch.testing._internal.distributed.fake_pg import FakeProcessGroup, FakeStore

    world = max(groups.values())
    if not dist.is_initialized():
        opts = FakeProcessGroup.Options()
        opts.simulate_uniform_ranks = True
        dist.init_process_group("fake", store=FakeStore(), rank=0, world_size=world,
                                pg_options=opts)
    out = {}
    for name, size in sorted(groups.items()):
        try:
            pg = _resolve_process_group(name)
            if pg.size() == size:
                out[name] = pg
                continue
            _unregister_process_group(name)
        except (RuntimeError, ValueError):
            pass
        pg = dist.new_group(list(range(size)))
        if pg.group_name != name:
            _register_process_group(name, pg)
        out[name] = pg
    return out


def fsdp_step(x, shards, group):
    """FSDP2 style: each layer all-gathers its weight shard just before use;
    the backward (torch.autograd.grad, traced into aten ops) gives every full
    weight's gradient, and each is reduce-scattered back to a shard."""
    full = [funcol.all_gather_single(s, 0, group) for s in shards]
    full = [w.detach().requires_grad_(True) for w in full]
    h = x
    for w in full:
        h = torch.relu(h @ w.t())
    loss = h.float().pow(2).mean()
    grads = torch.autograd.grad(loss, full)
    out = [funcol.reduce_scatter_single(g, "sum", 0, group) for g in grads]
    return (loss.detach(), *out)


def fsdp_inputs(layers=3, dim=64, batch=16, world=8, dtype=torch.float32):
    torch.manual_seed(0)
    x = torch.randn(batch, dim, dtype=dtype)
    return x, [torch.randn(dim // world, dim, dtype=dtype) / dim**0.5 for _ in range(layers)]


def tp_step(x, w_in, w_out, group):
    """Tensor parallel with sequence parallelism: the sequence-sharded
    activation is all-gathered, a column-parallel and a row-parallel matmul
    follow, and the partial sums are reduce-scattered back to the sequence
    shards; the last layer's output is all-reduced."""
    h = x
    for a, b in zip(w_in, w_out):
        full = funcol.all_gather_single(h, 0, group)
        y = torch.nn.functional.gelu(full @ a.t()) @ b.t()
        h = h + funcol.reduce_scatter_single(y, "sum", 0, group)
    return funcol.all_reduce(h.sum(0), "sum", group)


def tp_inputs(layers=2, dim=64, hidden=128, tokens=32, tp=4, dtype=torch.float32):
    torch.manual_seed(1)
    x = torch.randn(tokens // tp, dim, dtype=dtype)
    w_in = [torch.randn(hidden // tp, dim, dtype=dtype) / dim**0.5 for _ in range(layers)]
    w_out = [torch.randn(dim, hidden // tp, dtype=dtype) / hidden**0.5 for _ in range(layers)]
    return x, w_in, w_out


def moe_step(x, router, experts, dense, group, ep):
    """MoE style: tokens pick their top expert, are dispatched with an
    all-to-all (equal splits, as capacity-padded MoE does), run through the
    local experts and come back with a second all-to-all; a dense matmul that
    does not depend on the exchange can hide it."""
    scores = torch.softmax(x @ router.t(), -1)
    weight, _ = scores.max(-1, keepdim=True)
    splits = [x.shape[0] // ep] * ep
    recv = funcol.all_to_all_single(x * weight, splits, splits, group)
    chunks = recv.chunk(len(experts))
    out = torch.cat([torch.relu(c @ w.t()) for c, w in zip(chunks, experts)])
    back = funcol.all_to_all_single(out, splits, splits, group)
    side = torch.tanh(x @ dense.t())
    return back + side


def moe_inputs(experts=4, dim=64, tokens=32, dtype=torch.float32):
    torch.manual_seed(2)
    x = torch.randn(tokens, dim, dtype=dtype)
    router = torch.randn(experts, dim, dtype=dtype)
    ws = [torch.randn(dim, dim, dtype=dtype) / dim**0.5 for _ in range(experts)]
    dense = torch.randn(dim, dim, dtype=dtype) / dim**0.5
    return x, router, ws, dense


def transformer_step(x, layers, dp, tp):
    """A 2-D (FSDP x TP) decoder step for generated graphs of any size: per
    layer, the FSDP shards of four weights are all-gathered over `dp`;
    attention-like and MLP matmuls run tensor-parallel with a reduce-scatter
    over `tp` each; the backward reduce-scatters every weight gradient over
    `dp`. `layers` is a list of (wq, wo, w1, w2) shard tuples."""
    full = []
    for ws in layers:
        full.append([funcol.all_gather_single(w, 0, dp).detach().requires_grad_(True)
                     for w in ws])
    h = x
    for wq, wo, w1, w2 in full:
        n = h * torch.rsqrt(h.float().pow(2).mean(-1, keepdim=True) + 1e-5).to(h.dtype)
        seq = funcol.all_gather_single(n, 0, tp)
        q = seq @ wq.t()
        att = torch.softmax((q @ q.t()) * q.shape[-1] ** -0.5, -1) @ q
        h = h + funcol.reduce_scatter_single(att @ wo.t(), "sum", 0, tp)
        seq = funcol.all_gather_single(h, 0, tp)
        mlp = torch.nn.functional.silu(seq @ w1.t()) @ w2.t()
        h = h + funcol.reduce_scatter_single(mlp, "sum", 0, tp)
    loss = h.float().pow(2).mean()
    flat = [w for ws in full for w in ws]
    grads = torch.autograd.grad(loss, flat)
    return (loss.detach(), *[funcol.reduce_scatter_single(g, "sum", 0, dp) for g in grads])


def transformer_inputs(n_layers, dim=4096, hidden=14336, tokens=8192, dp=8, tp=8,
                       dtype=torch.bfloat16):
    """Shapes of a Llama3-8B layer (dim 4096, MLP 14336) on a dp x tp mesh,
    as empty tensors: trace them under a FakeTensorMode."""
    x = torch.empty(tokens // tp, dim, dtype=dtype)
    layers = []
    for _ in range(n_layers):
        layers.append((torch.empty(dim // (tp * dp), dim, dtype=dtype),
                       torch.empty(dim // dp, dim // tp, dtype=dtype),
                       torch.empty(hidden // (tp * dp), dim, dtype=dtype),
                       torch.empty(dim // dp, hidden // tp, dtype=dtype)))
    return x, layers
