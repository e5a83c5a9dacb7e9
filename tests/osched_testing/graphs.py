"""Graphs in the graph format, built a node at a time, and the generated
families the tests and benchmarks use (llama FSDP, MoE all-to-all, 2-D
TP x FSDP)."""

import json

ITEM = {"float32": 4, "bfloat16": 2, "float16": 2, "int64": 8, "bool": 1}


def contiguous(shape):
    st, s = [], 1
    for d in reversed(shape):
        st.append(s)
        s *= max(d, 1)
    return list(reversed(st))


class GraphBuilder:
    """A graph in the graph format, built a node at a time: shapes and
    strides as a real FX export would carry them."""

    def __init__(self, name, world_size=2, groups=None, rank=0, hardware=None):
        self.doc = {
            "format": "overlap-sched.graph", "version": 1, "name": name, "rank": rank,
            "world_size": world_size,
            "process_groups": {k: {"ranks": v} for k, v in (groups or {"0": list(range(world_size))}).items()},
            "nodes": [],
        }
        if hardware:
            self.doc["hardware"] = hardware
        self.shapes = {}
        self.dtypes = {}

    def group_size(self, g):
        return len(self.doc["process_groups"][g]["ranks"])

    def add(self, name, op, target, args=(), kwargs=None, shape=None, dtype="float32", **extra):
        node = {"name": name, "op": op, "target": target, "args": list(args), "kwargs": kwargs or {}}
        if shape is not None:
            node["val"] = {"shape": list(shape), "stride": contiguous(shape), "dtype": dtype, "device": "cuda:0"}
            self.shapes[name], self.dtypes[name] = list(shape), dtype
        else:
            node["val"] = None
        node.update(extra)
        self.doc["nodes"].append(node)
        return name

    def ref(self, n):
        return {"node": n}

    def ph(self, name, shape, dtype="float32"):
        return self.add(name, "placeholder", name, shape=shape, dtype=dtype)

    def fn(self, name, target, ins, shape=None, dtype=None, extra_args=(), **kw):
        shape = shape if shape is not None else self.shapes[ins[0]]
        dtype = dtype or self.dtypes[ins[0]]
        return self.add(name, "call_function", target, [self.ref(i) for i in ins] + list(extra_args), shape=shape, dtype=dtype, **kw)

    def mm(self, name, a, b):
        return self.fn(name, "aten.mm.default", [a, b], shape=[self.shapes[a][0], self.shapes[b][1]])

    def t(self, name, a):
        s = self.shapes[a]
        n = self.add(name, "call_function", "aten.t.default", [self.ref(a)], shape=[s[1], s[0]], dtype=self.dtypes[a])
        self.doc["nodes"][-1]["val"]["stride"] = [1, s[1]]
        return n

    def relu(self, name, a):
        return self.fn(name, "aten.relu.default", [a])

    def all_reduce(self, name, x, group="0"):
        return self.fn(name, "_c10d_functional.all_reduce.default", [x], extra_args=["sum", group])

    def all_gather(self, name, x, group="0"):
        s = list(self.shapes[x]); s[0] *= self.group_size(group)
        return self.fn(name, "_c10d_functional.all_gather_into_tensor.default", [x], shape=s,
                       extra_args=[self.group_size(group), group])

    def reduce_scatter(self, name, x, group="0"):
        s = list(self.shapes[x]); s[0] //= self.group_size(group)
        return self.fn(name, "_c10d_functional.reduce_scatter_tensor.default", [x], shape=s,
                       extra_args=["sum", self.group_size(group), group])

    def wait(self, name, c):
        return self.fn(name, "_c10d_functional.wait_tensor.default", [c])

    def output(self, outs):
        self.add("output", "output", "output", [[self.ref(o) for o in outs]])

    def save(self, path):
        with open(path, "w") as f:
            json.dump(self.doc, f, indent=1, sort_keys=True)
            f.write("\n")


def llama_fsdp(layers=4, hidden=4096, seq=4096, ffn=11008, world=8):
    """A transformer step under FSDP: per layer all-gathers of the attention and
    MLP weights in forward and backward, reduce-scatters of their gradients."""
    g = GraphBuilder("llama-fsdp-example", world_size=world,
          hardware={"gpu": "H100-SXM", "gpus_per_node": 8})
    bf = "bfloat16"
    x = g.ph("tokens_embed", [seq, hidden], bf)
    shard = lambda rows: [rows // world, hidden]
    params = []
    for l in range(layers):
        params.append({
            "qkv": g.ph(f"l{l}_qkv_shard", [3 * hidden // world, hidden], "float32"),
            "o": g.ph(f"l{l}_o_shard", [hidden // world, hidden], "float32"),
            "up": g.ph(f"l{l}_up_shard", [ffn // world, hidden], "float32"),
            "down": g.ph(f"l{l}_down_shard", [hidden // world, ffn], "float32"),
        })

    def gather(l, key, tag):
        p = params[l][key]
        c = g.fn(f"{tag}{l}_{key}_cast", "prims.convert_element_type.default", [p], dtype=bf, extra_args=[bf])
        ag = g.all_gather(f"{tag}{l}_{key}_ag", c)
        return g.wait(f"{tag}{l}_{key}_ag_wait", ag)

    h = x
    saved = []
    for l in range(layers):
        wq = gather(l, "qkv", "fwd")
        qkv = g.mm(f"l{l}_qkv_mm", h, g.t(f"l{l}_qkv_t", wq))
        heads = 32
        q = g.add(f"l{l}_q_view", "call_function", "aten.view.default",
                  [g.ref(qkv), [1, heads, seq, 3 * hidden // heads]], shape=[1, heads, seq, 3 * hidden // heads], dtype=bf)
        attn = g.add(f"l{l}_attn", "call_function", "aten._scaled_dot_product_flash_attention.default",
                     [g.ref(q), g.ref(q), g.ref(q)], shape=[1, heads, seq, hidden // heads], dtype=bf)
        a2 = g.add(f"l{l}_attn_view", "call_function", "aten.view.default", [g.ref(attn), [seq, hidden]],
                   shape=[seq, hidden], dtype=bf)
        wo = gather(l, "o", "fwd")
        o = g.mm(f"l{l}_o_mm", a2, g.t(f"l{l}_o_t", wo))
        h1 = g.fn(f"l{l}_resid1", "aten.add.Tensor", [h, o])
        wu = gather(l, "up", "fwd")
        u = g.mm(f"l{l}_up_mm", h1, g.t(f"l{l}_up_t", wu))
        act = g.fn(f"l{l}_silu", "aten.silu.default", [u])
        wd = gather(l, "down", "fwd")
        d = g.mm(f"l{l}_down_mm", act, g.t(f"l{l}_down_t", wd))
        saved.append((h, a2, h1, act))
        h = g.fn(f"l{l}_resid2", "aten.add.Tensor", [h1, d])
    loss_grad = g.fn("loss_grad", "aten.mul.Tensor", [h], extra_args=[1.0])
    grad = loss_grad
    outs = []
    for l in reversed(range(layers)):
        hin, a2, h1, act = saved[l]
        # FSDP issues a layer's backward all-gathers before its gradient
        # reduce-scatters (prefetch order), as the runtime does.
        wd = gather(l, "down", "bwd")
        wu = gather(l, "up", "bwd")
        wo = gather(l, "o", "bwd")
        wq = gather(l, "qkv", "bwd")
        dact = g.mm(f"l{l}_bwd_dact", grad, wd)
        gdt = g.t(f"l{l}_bwd_grad_t", grad)
        ddown = g.mm(f"l{l}_bwd_ddown", gdt, act)
        ddown32 = g.fn(f"l{l}_bwd_ddown_cast", "prims.convert_element_type.default", [ddown], dtype="float32", extra_args=["float32"])
        outs.append(g.wait(f"l{l}_down_rs_wait", g.reduce_scatter(f"l{l}_down_rs", ddown32)))
        du = g.fn(f"l{l}_bwd_silu", "aten.silu_backward.default", [dact, act])
        dh1 = g.mm(f"l{l}_bwd_dh1", du, wu)
        dut = g.t(f"l{l}_bwd_du_t", du)
        dup = g.mm(f"l{l}_bwd_dup", dut, h1)
        dup32 = g.fn(f"l{l}_bwd_dup_cast", "prims.convert_element_type.default", [dup], dtype="float32", extra_args=["float32"])
        outs.append(g.wait(f"l{l}_up_rs_wait", g.reduce_scatter(f"l{l}_up_rs", dup32)))
        gsum = g.fn(f"l{l}_bwd_gsum", "aten.add.Tensor", [grad, dh1])
        da = g.mm(f"l{l}_bwd_da", gsum, wo)
        gst = g.t(f"l{l}_bwd_gsum_t", gsum)
        do = g.mm(f"l{l}_bwd_do", gst, a2)
        do32 = g.fn(f"l{l}_bwd_do_cast", "prims.convert_element_type.default", [do], dtype="float32", extra_args=["float32"])
        outs.append(g.wait(f"l{l}_o_rs_wait", g.reduce_scatter(f"l{l}_o_rs", do32)))
        dq = g.fn(f"l{l}_bwd_dqkv_in", "aten.repeat.default", [da], shape=[seq, 3 * hidden], extra_args=[[1, 3]])
        dqt = g.t(f"l{l}_bwd_da_t", da)
        dqkv = g.mm(f"l{l}_bwd_dqkv", dqt, hin)
        dqkv_full = g.fn(f"l{l}_bwd_dqkv_rep", "aten.repeat.default", [dqkv], shape=[3 * hidden, hidden], extra_args=[[3, 1]])
        dqkv32 = g.fn(f"l{l}_bwd_dqkv_cast", "prims.convert_element_type.default", [dqkv_full], dtype="float32", extra_args=["float32"])
        outs.append(g.wait(f"l{l}_qkv_rs_wait", g.reduce_scatter(f"l{l}_qkv_rs", dqkv32)))
        dwq = g.mm(f"l{l}_bwd_dx", dq, wq)
        grad = g.fn(f"l{l}_bwd_grad_next", "aten.add.Tensor", [gsum, dwq])
    g.output(outs + [grad])
    return g


# --- ports of PyTorch's test_aten_comm_compute_reordering.py scenarios --------


def moe_a2a_sym_size(layers=4):
    """MoE dispatch: each all_to_all_single's raw result is read by its wait
    and by sym_size.int (a size returned for backward, off the compute path).
    The shared expert's matmul can hide each all-to-all."""
    g = GraphBuilder("moe-a2a-sym-size", world_size=4)
    h = g.ph("x", [8192, 1024], "bfloat16")
    outs = []
    for l in range(layers):
        we = g.ph(f"w_expert{l}", [1024, 1024], "bfloat16")
        ws = g.ph(f"w_shared{l}", [1024, 1024], "bfloat16")
        sh = g.mm(f"shared{l}", h, ws)
        d = g.fn(f"dispatch{l}", "_c10d_functional.all_to_all_single.default", [h],
                 extra_args=[[2048] * 4, [2048] * 4, "0"])
        g.add(f"tokens{l}", "call_function", "aten.sym_size.int", [g.ref(d), 0])
        outs.append(f"tokens{l}")
        w = g.wait(f"dispatch{l}_wait", d)
        e = g.mm(f"expert{l}", w, we)
        h = g.fn(f"combine{l}", "aten.add.Tensor", [e, sh])
    outs.append(h)
    g.output(outs)
    return g


def two_d(layers):
    """A 2-D parallel (TP x FSDP) transformer-like step, forward and backward,
    for scale benchmarks: per layer an FSDP all-gather of the weight shard
    (group "dp", 8 ranks), a matmul, a TP all-reduce of the activation (group
    "tp", 8 ranks); backward re-gathers, all-reduces the input gradient and
    reduce-scatters the weight gradient. About 17 nodes per layer."""
    g = GraphBuilder("2d", world_size=64, groups={"tp": list(range(8)), "dp": list(range(0, 64, 8))})
    bf = "bfloat16"
    g.ph("x", [2048, 4096], bf)
    for l in range(layers):
        g.ph(f"p{l}", [512, 4096], bf)
    h, acts = "x", []
    for l in range(layers):
        g.wait(f"agw{l}", g.all_gather(f"ag{l}", f"p{l}", "dp"))
        g.mm(f"mm{l}", h, f"agw{l}")
        g.wait(f"arw{l}", g.all_reduce(f"ar{l}", f"mm{l}", "tp"))
        g.fn(f"h{l}", "aten.add.Tensor", [f"arw{l}", h])
        acts.append(h)
        h = f"h{l}"
    grad, outs = h, [h]
    for l in reversed(range(layers)):
        g.wait(f"bagw{l}", g.all_gather(f"bag{l}", f"p{l}", "dp"))
        g.mm(f"dmm{l}", grad, f"bagw{l}")
        g.wait(f"barw{l}", g.all_reduce(f"bar{l}", f"dmm{l}", "tp"))
        g.t(f"dt{l}", acts[l])
        g.mm(f"dw{l}", f"dt{l}", grad)
        g.wait(f"rsw{l}", g.reduce_scatter(f"rs{l}", f"dw{l}", "dp"))
        g.fn(f"g{l}", "aten.add.Tensor", [f"barw{l}", grad])
        grad = f"g{l}"
        outs.append(f"rsw{l}")
    outs.append(grad)
    g.output(outs)
    return g


def fsdp_guard(layers):
    """The FSDP-style guard graph of the speed targets: one group of 8 ranks,
    per layer an all-gather of the weight shard, two matmuls around a SiLU,
    a residual add and a reduce-scatter of the activation. 10 nodes per
    layer."""
    g = GraphBuilder("scale", world_size=8)
    bf = "bfloat16"
    h = g.ph("x", [4096, 4096], bf)
    for l in range(layers):
        g.ph(f"p{l}", [512, 4096], bf)
    for l in range(layers):
        g.wait(f"w{l}", g.all_gather(f"ag{l}", f"p{l}"))
        g.t(f"t{l}", f"w{l}")
        g.mm(f"mm{l}", h, f"t{l}")
        g.fn(f"act{l}", "aten.silu.default", [f"mm{l}"])
        g.mm(f"mm{l}b", f"act{l}", f"t{l}")
        g.fn(f"r{l}", "aten.add.Tensor", [f"mm{l}b", h])
        g.wait(f"rsw{l}", g.reduce_scatter(f"rs{l}", f"act{l}"))
        h = f"r{l}"
    g.output([h] + [f"rsw{l}" for l in range(layers)])
    return g


def main(argv):
    """python3 -m osched_testing FAMILY LAYERS OUT.json: one generated graph
    (families: llama, moe, 2d, fsdp)."""
    family, size, path = argv[1], int(argv[2]), argv[3]
    make = {"llama": lambda n: llama_fsdp(layers=n), "moe": moe_a2a_sym_size, "2d": two_d,
            "fsdp": fsdp_guard}[family]
    g = make(size)
    g.save(path)
    print(len(g.doc["nodes"]), "nodes")

