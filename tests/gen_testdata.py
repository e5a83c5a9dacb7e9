#!/usr/bin/env python3
"""Regenerates the graphs under testdata/ (deterministic; run from the repo
root: python3 tests/gen_testdata.py).

Each graph is small and readable; the builder below only saves typing the
shapes and strides that a real FX export would carry.
"""
import json
import os

from osched_testing.graphs import GraphBuilder as G, contiguous, llama_fsdp, moe_a2a_sym_size


def fsdp_tiny():
    g = G("fsdp-tiny", world_size=4)
    x = g.ph("x", [32, 128])
    params = [g.ph(f"p{i}", [32, 128]) for i in range(2)]
    h = x
    acts = []
    for i, p in enumerate(params):
        ag = g.all_gather(f"ag{i}", p)
        w = g.wait(f"ag{i}_wait", ag)
        wt = g.t(f"w{i}_t", w)
        acts.append((h, w))
        h = g.mm(f"fwd_mm{i}", h, wt)
        h = g.relu(f"fwd_relu{i}", h)
    grad = g.ph("grad_out", [32, 128])
    outs = []
    for i in reversed(range(2)):
        a, w = acts[i]
        gt = g.t(f"grad{i}_t", grad)
        dw = g.mm(f"bwd_dw{i}", gt, a)
        rs = g.reduce_scatter(f"rs{i}", dw)
        outs.append(g.wait(f"rs{i}_wait", rs))
        grad = g.mm(f"bwd_dx{i}", grad, w)
    g.output(outs + [grad])
    return g


def tp_two_groups():
    g = G("tp-two-groups", world_size=4, groups={"tp": [0, 1], "dp": [0, 2]})
    x = g.ph("x", [64, 256])
    w1 = g.ph("w1", [256, 256])
    w2 = g.ph("w2", [256, 256])
    gw = g.ph("grad_w_prev", [256, 256])
    ar_dp = g.all_reduce("ar_dp", gw, "dp")
    h = g.mm("mm1", x, w1)
    ar1 = g.all_reduce("ar_tp1", h, "tp")
    h1 = g.wait("ar_tp1_wait", ar1)
    r = g.relu("relu1", h1)
    h2 = g.mm("mm2", r, w2)
    ar2 = g.all_reduce("ar_tp2", h2, "tp")
    h3 = g.wait("ar_tp2_wait", ar2)
    side = g.mm("mm_side", x, w2)
    gdp = g.wait("ar_dp_wait", ar_dp)
    g.output([h3, side, gdp])
    return g


def sink_waits():
    g = G("sink-waits")
    a = g.ph("a", [4, 4])
    ar = g.all_reduce("all_reduce", a)
    w = g.wait("wait_tensor", ar)
    b = g.mm("mm", a, a)
    c = g.mm("mm_1", w, b)
    g.output([c])
    return g


def raise_comms():
    g = G("raise-comms")
    a = g.ph("a", [4, 4])
    b = g.mm("mm", a, a)
    c = g.relu("relu", b)
    d = g.mm("mm_1", c, c)
    b1 = g.fn("add", "aten.add.Tensor", [b], extra_args=[1])
    e = g.wait("wait_tensor", g.all_reduce("all_reduce", b1))
    g.output([g.mm("mm_2", d, e)])
    return g


def sink_waits_raise_comms():
    g = G("sink-waits-raise-comms")
    a = g.ph("arg0_1", [4, 4])
    b = g.mm("mm", a, a)
    c = g.relu("relu", b)
    d = g.mm("mm_1", c, c)
    ar = g.all_reduce("all_reduce", b)
    e = g.wait("wait_tensor", ar)
    f = g.relu("relu_1", d)
    gg = g.mm("mm_2", f, f)
    g.output([g.mm("mm_3", e, gg)])
    return g


def reorder_compute_for_overlap_mul():
    g = G("reorder-compute-for-overlap-mul")
    a = g.ph("a", [4, 4])
    ar = g.wait("wait_tensor", g.all_reduce("all_reduce", a))
    gm = g.mm("mm", a, a)
    c = g.relu("relu", a)
    d = g.mm("mm_1", c, c)
    f0 = g.fn("mul", "aten.mul.Tensor", [d, c])
    f = g.fn("mul_1", "aten.mul.Tensor", [f0, ar])
    fr = g.wait("wait_tensor_1", g.all_reduce("all_reduce_1", f))
    s0 = g.fn("add", "aten.add.Tensor", [d, ar])
    s1 = g.fn("add_1", "aten.add.Tensor", [s0, fr])
    g.output([g.mm("mm_2", s1, gm)])
    return g


def default_comms_ordering():
    g = G("default-comms-ordering")
    g1, g2, g3 = g.ph("arg0_1", [10, 10]), g.ph("arg1_1", [11, 11]), g.ph("arg2_1", [12, 12])
    h1 = g.all_reduce("all_reduce", g1)
    h2 = g.all_reduce("all_reduce_1", g2)
    h3 = g.all_reduce("all_reduce_2", g3)
    w3 = g.wait("wait_tensor", h3)
    w2 = g.wait("wait_tensor_1", h2)
    w1 = g.wait("wait_tensor_2", h1)
    g.output([w3, w2, w1])
    return g


def multi_group():
    """Two groups' collectives hidden by the same matmul independently."""
    g = G("multi-group", world_size=4, groups={"tp": [0, 1], "dp": [0, 2]})
    a = g.ph("a", [4, 4])
    b = g.ph("b", [4, 4])
    x = g.mm("mm0", a, a)
    r1 = g.wait("wait_tp", g.all_reduce("ar_tp", b, "tp"))
    r2 = g.wait("wait_dp", g.all_reduce("ar_dp", b, "dp"))
    y = g.mm("mm1", x, x)
    s = g.fn("add", "aten.add.Tensor", [r1, r2])
    g.output([g.mm("mm2", y, s)])
    return g


def memory_limit():
    """A large all-gather whose output would raise the peak: prefetching it above
    the big matmul is refused under a tight memory budget."""
    g = G("memory-limit", world_size=2)
    p = g.ph("p", [1024, 1024])
    a = g.ph("a", [2048, 2048])
    big = g.mm("big_mm", a, a)       # peak: a + big
    r = g.relu("relu", big)
    s = g.fn("sum", "aten.sum.default", [r], shape=[])
    ag = g.all_gather("ag", p)
    w = g.wait("ag_wait", ag)
    out = g.mm("mm_after", w, g.t("w_t", w))
    g.output([out, s])
    return g


def same_group_order():
    """Later collective ready earlier than its predecessor on the same group:
    issue order must be kept."""
    g = G("same-group-order")
    a = g.ph("a", [4, 4])
    x = g.mm("mm0", a, a)
    c1 = g.wait("wait1", g.all_reduce("ar1", x))
    c2 = g.wait("wait2", g.all_reduce("ar2", a))
    y = g.mm("mm1", a, a)
    z = g.mm("mm2", y, y)
    s = g.fn("add", "aten.add.Tensor", [c1, c2])
    g.output([g.mm("mm3", z, s)])
    return g


def bucketing():
    """Collectives that --collective-bucketing may or may not merge: ag_a,
    ag_b and ag_c (same group and kind, hidden by the same matmul; gathers
    mix dtypes) merge; ag_d has another group and ag_e is hidden by a later
    matmul, so neither joins."""
    g = G("bucketing", world_size=4, groups={"0": [0, 1, 2, 3], "1": [0, 1, 2, 3]})
    a = g.ph("a", [64, 64], "bfloat16")
    b = g.ph("b", [64, 64], "bfloat16")
    c = g.ph("c", [64, 64], "float32")
    d = g.ph("d", [64, 64], "bfloat16")
    p = g.ph("p", [64, 256], "bfloat16")
    x = g.ph("x", [256, 256], "bfloat16")
    waits = [g.wait(f"{n}_wait", g.all_gather(n, src, grp))
             for n, src, grp in (("ag_a", a, "0"), ("ag_b", b, "0"), ("ag_c", c, "0"), ("ag_d", d, "1"))]
    mm1 = g.mm("mm1", x, x)
    uses = [g.relu(f"use_{w}", w) for w in waits]
    e = g.mm("e_in", p, mm1)
    we = g.wait("ag_e_wait", g.all_gather("ag_e", e, "0"))
    mm2 = g.mm("mm2", mm1, mm1)
    out = g.fn("add", "aten.add.Tensor", [mm2, we])
    g.output(uses + [out])
    return g


def custom_estimator_for_non_compute_nodes():
    """relu has a user estimate (1 ms, as the collective): upstream lets
    such a node hide a collective, so the all-reduce starts before it."""
    g = G("custom-estimator-for-non-compute-nodes")
    a, b = g.ph("arg0_1", [4, 4]), g.ph("arg1_1", [4, 4])
    c = g.relu("relu", a)
    d = g.mm("mm", c, c)
    w = g.wait("wait_tensor", g.all_reduce("all_reduce", b))
    g.output([g.fn("mul", "aten.mul.Tensor", [d, w])])
    return g


def schedulable_wait():
    """A wait on a wait is not a collective's wait (upstream's
    _schedulable_wait_node): only the first two are."""
    g = G("schedulable-wait")
    inp = g.ph("inp", [4, 4])
    w0 = g.wait("wait_tensor_default", g.all_gather("all_gather_into_tensor_default", inp))
    w1 = g.wait("wait_tensor_default_1", g.all_gather("all_gather_into_tensor_default_1", w0))
    w2 = g.wait("wait_tensor_default_2", w1)
    g.output([w2])
    return g


def _sum(g, name, x):
    return g.fn(name, "aten.sum.default", [x], shape=[])


def _slice(g, name, x, end, dim=0):
    s = list(g.shapes[x]); s[dim] = end
    return g.fn(name, "aten.slice.Tensor", [x], shape=s, extra_args=[dim, 0, end])


def _add(g, name, x, y):
    return g.fn(name, "aten.add.Tensor", [x, y])


def _scale(g, name, x, k):
    return g.fn(name, "aten.mul.Tensor", [x], extra_args=[k])


def _fold_add(g, terms, prefix="acc"):
    """terms[0] + terms[1] + ... as a chain of adds named prefix_0, prefix_1, ..."""
    acc = terms[0]
    for i, t in enumerate(terms[1:]):
        acc = _add(g, f"{prefix}_{i}", acc, t)
    return acc


def basic_all_gather_bucketing():
    g = G("basic-all-gather-bucketing")
    outs = []
    for i, n in enumerate(("a", "b", "c")):
        x = g.ph(n, [4, 4])
        ag = "all_gather_into_tensor" + ("" if i == 0 else f"_{i}")
        w = g.wait("wait_tensor" + ("" if i == 0 else f"_{i}"), g.all_gather(ag, x))
        outs.append(g.fn(f"add_{i}", "aten.add.Tensor", [w], extra_args=[3 + i]))
    s = _add(g, "add_3", outs[0], outs[1])
    g.output([_add(g, "add_4", s, outs[2])])
    return g


def reduce_scatter_bucketing():
    g = G("reduce-scatter-bucketing")
    waits = []
    for i, n in enumerate(("a", "b", "c")):
        x = g.ph(n, [8, 4])
        rs = "reduce_scatter_tensor" + ("" if i == 0 else f"_{i}")
        waits.append(g.wait("wait_tensor" + ("" if i == 0 else f"_{i}"), g.reduce_scatter(rs, x)))
    g.output([g.fn("cat", "aten.cat.default", [], shape=[12, 4], dtype="float32",
                   extra_args=[[g.ref(w) for w in waits]])])
    return g


def basic_all_reduce_bucketing():
    g = G("basic-all-reduce-bucketing")
    sums = []
    for i, n in enumerate(("a", "b", "c")):
        x = g.ph(n, [4, 4])
        w = g.wait(f"wait_tensor_{i}", g.all_reduce(f"all_reduce_{i}", x))
        sums.append(_sum(g, f"sum_{i}", w))
    g.output([_fold_add(g, sums, "add")])
    return g


def multidtype_bucketing():
    g = G("multidtype-bucketing")
    sums = []
    for i, (n, dt) in enumerate((("a", "float32"), ("b", "float16"), ("c", "float16"))):
        x = g.ph(n, [4, 4], dt)
        w = g.wait(f"wait_tensor_{i}", g.all_gather(f"all_gather_{i}", x))
        sums.append(_sum(g, f"sum_{i}", w))
    g.output([_fold_add(g, sums, "add")])
    return g


def no_bucketing_with_dependent_hiding_nodes():
    """mm2 would hide ag2 but needs ag1's result: one bucket would have to
    complete ag1 after mm2."""
    g = G("no-bucketing-with-dependent-hiding-nodes")
    a, b = g.ph("a", [4, 4]), g.ph("b", [4, 4])
    w1 = g.wait("wait_ag1", g.all_gather("ag1", a))
    mm1 = g.mm("mm1", a, a)
    mm2 = g.mm("mm2", _slice(g, "slice_1", w1, 4), b)
    w2 = g.wait("wait_ag2", g.all_gather("ag2", b))
    p = g.fn("mul", "aten.mul.Tensor", [_sum(g, "sum_1", w1), _sum(g, "sum_2", w2)], shape=[])
    p = g.fn("mul_1", "aten.mul.Tensor", [p, mm1], shape=[4, 4])
    g.output([g.fn("mul_2", "aten.mul.Tensor", [p, mm2])])
    return g


def no_bucketing_when_collective_depends_on_hiding_node():
    g = G("no-bucketing-when-collective-depends-on-hiding-node")
    a = g.ph("a", [4, 4])
    w1 = g.wait("wait_ag1", g.all_gather("ag1", a))
    mm1 = g.mm("mm1", a, a)
    b = _scale(g, "mul", mm1, 2)
    w2 = g.wait("wait_ag2", g.all_gather("ag2", b))
    p = g.fn("mul_1", "aten.mul.Tensor", [_sum(g, "sum_1", w1), _sum(g, "sum_2", w2)], shape=[])
    g.output([g.fn("mul_2", "aten.mul.Tensor", [p, mm1], shape=[4, 4])])
    return g


def _four_gathers(g):
    a, b, c, d = (g.ph(n, [8, 8]) for n in "abcd")
    w1 = g.wait("wait_ag1", g.all_gather("ag1", a))
    w2 = g.wait("wait_ag2", g.all_gather("ag2", b))
    w3 = g.wait("wait_ag3", g.all_gather("ag3", _slice(g, "slice_c", c, 4)))
    w4 = g.wait("wait_ag4", g.all_gather("ag4", _slice(g, "slice_d", d, 4)))
    e = _scale(g, "mul_e", a, 5)
    mm1 = g.mm("mm1", e, g.t("t_e", e))
    return (a, b, c, d), (w1, w2, w3, w4), mm1


def _sum_all(g, waits, mms):
    terms = [_scale(g, f"scaled_{i}", _sum(g, f"sum_ag{i + 1}", w), 1.1 + 0.1 * i) for i, w in enumerate(waits)]
    terms += [_sum(g, f"sum_{m}", m) for m in mms]
    return _fold_add(g, terms)


def bucketing_wait_sink():
    """Four independent gathers: mm1 can hide ag1/ag2, mm2 ag3/ag4; all four
    bucket, started before mm1, with the wait after both matmuls."""
    g = G("bucketing-wait-sink")
    (a, b, c, d), waits, mm1 = _four_gathers(g)
    f = _scale(g, "mul_f", b, 6)
    mm2 = g.mm("mm2", f, g.t("t_f", f))
    g.output([_sum_all(g, waits, [mm1, mm2])])
    return g


def bucketing_split_for_overlap():
    """As wait_sink, but mm2 needs ag1 and ag2: 2 + 2 buckets, each before
    the matmul that hides it."""
    g = G("bucketing-split-for-overlap")
    (a, b, c, d), waits, mm1 = _four_gathers(g)
    inter = _add(g, "intermediate", _slice(g, "slice_w1", waits[0], 8), _slice(g, "slice_w2", waits[1], 8))
    mm2 = g.mm("mm2", _add(g, "add_mm1", mm1, inter), _slice(g, "slice_c8", c, 8))
    g.output([_sum_all(g, waits, [mm1, mm2])])
    return g


def bucket_exposed_with_hidden_single_overlap():
    """ag1 is hidden by the small matmul, ag2/ag3 are exposed: all three
    bucket without losing ag1's overlap."""
    g = G("bucket-exposed-with-hidden-single-overlap")
    a, b, c = (g.ph(n, [8, 8]) for n in "abc")
    waits = [g.wait(f"wait_ag{i + 1}", g.all_gather(f"ag{i + 1}", x)) for i, x in enumerate((a, b, c))]
    s = _slice(g, "slice_a", a, 2)
    mm1 = g.mm("mm1", s, g.t("t_a", s))
    sums = [_sum(g, f"sum_{i}", w) for i, w in enumerate(waits)] + [_sum(g, "sum_mm", mm1)]
    g.output([_fold_add(g, sums)])
    return g


def multiple_hiding_nodes_bucketing():
    """Matmuls at half a collective's time: ag1 needs mm1 and mm2, ag2 mm3;
    both bucket, started before all three."""
    g = G("multiple-hiding-nodes-bucketing")
    a, b = g.ph("a", [8, 8]), g.ph("b", [8, 8])
    w1 = g.wait("wait_ag1", g.all_gather("ag1", a))
    w2 = g.wait("wait_ag2", g.all_gather("ag2", b))
    mm1 = g.mm("mm1", a, g.t("t_a", a))
    mm2 = g.mm("mm2", b, g.t("t_b", b))
    ab = _add(g, "a_plus_b", a, b)
    mm3 = g.mm("mm3", ab, g.t("t_ab", ab))
    sums = [_sum(g, n, x) for n, x in (("sum_1", w1), ("sum_2", w2), ("sum_3", mm1), ("sum_4", mm2), ("sum_5", mm3))]
    g.output([_fold_add(g, sums)])
    return g


def far_collective():
    """500 pointwise nodes between a matmul and the next all-gather: the
    candidates are the next unscheduled collectives, not a window of node
    positions, so the matmul still hides it."""
    g = G("far-collective")
    x, p = g.ph("x", [64, 64]), g.ph("p", [32, 64])
    h = g.mm("mm0", x, x)
    for i in range(500):
        h = g.relu(f"relu{i}", h)
    w = g.wait("ag_wait", g.all_gather("ag", p))
    g.output([g.mm("mm1", w, h)])
    return g


def bucketing_group_order():
    """Two all-gathers with an all-reduce of the same group between them:
    bucketing them issues the second before the all-reduce, which only
    --preserve-group-order forbids."""
    g = G("bucketing-group-order")
    a, b, c = (g.ph(n, [4, 4]) for n in "abc")
    w1 = g.wait("wait_ag1", g.all_gather("ag1", a))
    w2 = g.wait("wait_ar", g.all_reduce("ar", b))
    w3 = g.wait("wait_ag2", g.all_gather("ag2", c))
    g.output([w1, w2, w3])
    return g


def bucketing_with_convert_dtype():
    """Gathers of converted inputs and plain ones, all returned: one bucket;
    the conversions fuse into the bucket's copy-in."""
    g = G("bucketing-with-convert-dtype")
    a, b = g.ph("a", [4, 4], "float32"), g.ph("b", [4, 4], "float64")
    c, d = g.ph("c", [4, 4], "float16"), g.ph("d", [4, 4], "float64")
    a16 = g.fn("convert_a", "prims.convert_element_type.default", [a], dtype="float16", extra_args=["float16"])
    b16 = g.fn("convert_b", "prims.convert_element_type.default", [b], dtype="float16", extra_args=["float16"])
    waits = [g.wait(f"wait_ag{i + 1}", g.all_gather(f"ag{i + 1}", x)) for i, x in enumerate((a16, b16, c, d))]
    g.output(waits)
    return g


# --- correctness on real graphs: mutation, collective variants, memory ------

def _list_val(shapes, dtype):
    return [{"shape": list(sh), "stride": contiguous(sh), "dtype": dtype, "device": "cuda:0"} for sh in shapes]


def fsdp2_copy_in():
    """FSDP2's all-gather as post-grad graphs hold it: copy-in writes the
    shards into one buffer, all_gather_into_tensor_out fills it in place, and
    split_with_sizes_copy writes the unsharded weights w0/w1, which the
    matmuls read as graph inputs, with no data edge from the copy. prev_mm can
    hide the all-gather."""
    g = G("fsdp2-copy-in", world_size=2)
    x = g.ph("x", [64, 128], "bfloat16")
    wprev = g.ph("wprev", [128, 128], "bfloat16")
    s0 = g.ph("p0_shard", [8192], "bfloat16")
    s1 = g.ph("p1_shard", [8192], "bfloat16")
    w0 = g.ph("w0", [128, 128], "bfloat16")
    w1 = g.ph("w1", [128, 128], "bfloat16")
    buf = g.add("ag_buf", "call_function", "aten.empty.memory_format", [[32768]],
                {"dtype": "bfloat16", "device": "cuda:0"}, shape=[32768], dtype="bfloat16")
    g.add("copy_in", "call_function", "fsdp.all_gather_copy_in.default",
          [[g.ref(s0), g.ref(s1)], g.ref(buf), [8192, 8192], 16384, 0])
    g.doc["nodes"][-1]["val"] = _list_val([[16384], [32768]], "bfloat16")
    g.add("ag", "call_function", "_c10d_functional.all_gather_into_tensor_out.default",
          [{"node": "copy_in", "index": 0}, 2, "0"], {"out": {"node": "copy_in", "index": 1}},
          shape=[32768], dtype="bfloat16")
    agw = g.wait("ag_wait", "ag")
    v = g.fn("ag_view", "aten.view.default", [agw], shape=[2, 16384], extra_args=[[2, -1]])
    w0v = g.fn("w0_view", "aten.view.default", [w0], shape=[2, 8192], extra_args=[[2, -1]])
    w1v = g.fn("w1_view", "aten.view.default", [w1], shape=[2, 8192], extra_args=[[2, -1]])
    g.add("split_copy", "call_function", "fsdp.split_with_sizes_copy.default", [g.ref(v), [8192, 8192]],
          {"dim": 1, "out": [g.ref(w0v), g.ref(w1v)]})
    h = g.mm("prev_mm", x, wprev)
    h = g.mm("mm0", h, w0)
    h = g.relu("relu0", h)
    h = g.mm("mm1", h, w1)
    g.output([h])
    return g


def fsdp2_chunk_cat_rs():
    """FSDP2's reduce-scatter: chunk_cat writes both gradients into rs_buf
    (out=), and the reduce-scatter reads rs_buf, the empty() buffer, not
    chunk_cat's (absent) result. dx can hide the reduce-scatter."""
    g = G("fsdp2-chunk-cat-rs", world_size=2)
    x = g.ph("x", [128, 128], "bfloat16")
    w = g.ph("w", [128, 128], "bfloat16")
    gy = g.ph("grad_out", [128, 128], "bfloat16")
    xt = g.t("x_t", x)
    g0 = g.mm("grad_w0", xt, gy)
    g1 = g.mm("grad_w1", g.t("gy_t", gy), x)
    buf = g.add("rs_buf", "call_function", "aten.empty.memory_format", [[32768]],
                {"dtype": "bfloat16", "device": "cuda:0"}, shape=[32768], dtype="bfloat16")
    g.add("chunk_cat", "call_function", "fsdp.chunk_cat.default", [[g.ref(g0), g.ref(g1)], 0, 2],
          {"out": g.ref(buf)})
    rs = g.reduce_scatter("rs", buf)
    rsw = g.wait("rs_wait", rs)
    dx = g.mm("dx", gy, w)
    g.output([rsw, dx])
    return g


def inplace_all_reduce():
    """all_reduce_ writes its input in place; mm_after reads the buffer
    itself, so it must follow the wait. mm_free can hide the all-reduce.
    mylib.accumulate states its write with `mutates`."""
    g = G("inplace-all-reduce", world_size=2)
    a = g.ph("a", [256, 256])
    b = g.ph("b", [256, 256])
    buf = g.mm("grad", a, b)
    g.add("ar_", "call_function", "_c10d_functional.all_reduce_.default", [g.ref(buf), "sum", "0"],
          shape=[256, 256])
    w = g.wait("ar_wait", "ar_")
    free = g.mm("mm_free", a, a)
    after = g.mm("mm_after", buf, b)
    # A custom op the built-in table does not know: the exporter says it
    # writes argument 0 (acc), which mm_acc then reads.
    acc = g.ph("acc", [256, 256])
    g.add("accumulate", "call_function", "mylib.accumulate.default", [g.ref(acc), g.ref(after)], mutates=[0])
    macc = g.mm("mm_acc", acc, b)
    g.output([w, free, after, macc])
    return g


def collective_variants():
    """One of each collective form post-grad graphs carry, plus two ops in
    collective namespaces that the tool does not model."""
    g = G("collective-variants", world_size=2)
    a = g.ph("a", [64, 64])
    b = g.ph("b", [64, 64])
    c = g.ph("c", [128, 64])
    out_buf = g.add("ag_out_buf", "call_function", "aten.empty.memory_format", [[128, 64]], {},
                    shape=[128, 64])
    g.add("ag_out", "call_function", "_c10d_functional.all_gather_into_tensor_out.default",
          [g.ref(a), 2, "0"], {"out": g.ref(out_buf)}, shape=[128, 64])
    w1 = g.wait("ag_out_wait", "ag_out")
    rs_buf = g.add("rs_out_buf", "call_function", "aten.empty.memory_format", [[64, 64]], {}, shape=[64, 64])
    g.add("rs_out", "call_function", "_c10d_functional.reduce_scatter_tensor_out.default",
          [g.ref(c), "sum", 2, "0"], {"out": g.ref(rs_buf)}, shape=[64, 64])
    w2 = g.wait("rs_out_wait", "rs_out")
    m = g.mm("mm_a", a, b)
    g.add("ar_inplace", "call_function", "_c10d_functional.all_reduce_.default", [g.ref(m), "sum", "0"],
          shape=[64, 64])
    w3 = g.wait("ar_inplace_wait", "ar_inplace")
    g.add("bcast", "call_function", "_c10d_functional.broadcast.default", [g.ref(b), 0, "0"], shape=[64, 64])
    w4 = g.wait("bcast_wait", "bcast")
    g.fn("a2a", "_c10d_functional.all_to_all_single.default", [a], extra_args=[[32, 32], [32, 32], "0"])
    w5 = g.wait("a2a_wait", "a2a")
    g.add("ag_coal", "call_function", "_c10d_functional.all_gather_into_tensor_coalesced.default",
          [[g.ref(a), g.ref(b)], 2, "0"])
    g.doc["nodes"][-1]["val"] = _list_val([[128, 64], [128, 64]], "float32")
    w6 = g.add("ag_coal_wait0", "call_function", "_c10d_functional.wait_tensor.default",
               [{"node": "ag_coal", "index": 0}], shape=[128, 64])
    w7 = g.add("ag_coal_wait1", "call_function", "_c10d_functional.wait_tensor.default",
               [{"node": "ag_coal", "index": 1}], shape=[128, 64])
    g.add("rs_coal", "call_function", "_c10d_functional.reduce_scatter_tensor_coalesced.default",
          [[g.ref(c), g.ref(c)], "sum", 2, "0"])
    g.doc["nodes"][-1]["val"] = _list_val([[64, 64], [64, 64]], "float32")
    gi0 = g.add("rs_coal_0", "call_function", "getitem", [g.ref("rs_coal"), 0], shape=[64, 64])
    gi1 = g.add("rs_coal_1", "call_function", "getitem", [g.ref("rs_coal"), 1], shape=[64, 64])
    w8 = g.wait("rs_coal_wait0", gi0)
    w9 = g.wait("rs_coal_wait1", gi1)
    g.fn("ag_autograd", "_c10d_functional_autograd.all_gather_into_tensor.default", [b], shape=[128, 64],
         extra_args=[2, "0"])
    w10 = g.wait("ag_autograd_wait", "ag_autograd")
    g.add("legacy_ar", "call_function", "c10d_functional.all_reduce.default", [g.ref(b), "sum", "", [0, 1], 2],
          shape=[64, 64])
    w11 = g.add("legacy_ar_wait", "call_function", "c10d_functional.wait_tensor.default", [g.ref("legacy_ar")],
                shape=[64, 64])
    g.add("legacy_ag", "call_function", "c10d_functional.all_gather_into_tensor.default",
          [g.ref(a), "", [0, 1], 2], shape=[128, 64])
    w12 = g.add("legacy_ag_wait", "call_function", "c10d_functional.wait_tensor.default", [g.ref("legacy_ag")],
                shape=[128, 64])
    g.add("c10d_allreduce", "call_function", "c10d.allreduce_.default", [[g.ref(b)], "sum", "0"])
    g.fn("dtensor_a2a", "_dtensor.shard_dim_alltoall.default", [c], shape=[128, 64], extra_args=[0, 1, "0"])
    hide = g.mm("mm_hide", c, b)
    g.output([w1, w2, w3, w4, w5, w6, w7, w8, w9, w10, w11, w12, hide, "dtensor_a2a"])
    return g


def memory_tight():
    """An all-gather whose result only the output reads is off the compute
    path, so upstream's prefetch check lets it start at the first matmul:
    its 16 MiB output then lives through the matmuls and raises the peak.
    With no increase allowed no reordering fits (a lower budget does not
    stop an exempt prefetch) and the original order is the answer."""
    g = G("memory-tight", world_size=2)
    x = g.ph("x", [1024, 1024])
    w = g.ph("w", [1024, 1024])
    p = g.ph("p", [2048, 1024])
    m0 = g.mm("mm0", x, w)
    r0 = g.relu("relu0", m0)
    m1 = g.mm("mm1", r0, w)
    agw = g.wait("ag_wait", g.all_gather("ag", p))
    g.output([m1, agw])
    return g


def flex_attention():
    """flex_attention and its backward are compute: they can hide the all-gather."""
    g = G("flex-attention", world_size=2)
    q = g.ph("q", [4, 16, 1024, 64], "bfloat16")
    k = g.ph("k", [4, 16, 1024, 64], "bfloat16")
    v = g.ph("v", [4, 16, 1024, 64], "bfloat16")
    p = g.ph("p", [1024, 1024], "bfloat16")
    ag = g.all_gather("ag", p)
    w = g.wait("ag_wait", ag)
    g.add("attn", "call_function", "higher_order.flex_attention", [g.ref(q), g.ref(k), g.ref(v), "score_mod", []],
          shape=None)
    g.doc["nodes"][-1]["val"] = _list_val([[4, 16, 1024, 64], [4, 16, 1024]], "bfloat16")
    o = g.add("attn_out", "call_function", "getitem", [g.ref("attn"), 0], shape=[4, 16, 1024, 64], dtype="bfloat16")
    g.output([o, w])
    return g


def invalid_cases(base):
    import copy
    out = {}

    def mutate(name, fn):
        d = copy.deepcopy(base.doc)
        fn(d)
        out[name] = d

    n = lambda d, name: next(x for x in d["nodes"] if x["name"] == name)
    mutate("duplicate_name", lambda d: n(d, "mm").__setitem__("name", "relu"))
    mutate("unknown_ref", lambda d: n(d, "relu")["args"].__setitem__(0, {"node": "nope"}))
    mutate("later_ref", lambda d: n(d, "mm")["args"].__setitem__(0, {"node": "mm_1"}))
    mutate("control_cycle", lambda d: (n(d, "mm").__setitem__("control_deps", ["relu"]),
                                       n(d, "relu").__setitem__("control_deps", ["mm"])))
    mutate("unknown_dtype", lambda d: n(d, "relu")["val"].__setitem__("dtype", "float13"))
    mutate("negative_dim", lambda d: n(d, "mm")["val"]["shape"].__setitem__(1, -4))
    mutate("undeclared_group", lambda d: n(d, "all_reduce")["args"].__setitem__(2, "7"))
    mutate("missing_output", lambda d: d["nodes"].pop())
    mutate("output_not_last", lambda d: d["nodes"].append(
        {"name": "late", "op": "placeholder", "target": "late", "args": [], "kwargs": {}, "val": None}))
    mutate("bad_format", lambda d: d.__setitem__("format", "fx-graph"))
    mutate("bad_dim", lambda d: n(d, "mm")["val"]["shape"].__setitem__(0, "four"))
    mutate("mutates_out_of_range", lambda d: n(d, "relu").__setitem__("mutates", [3]))
    mutate("mutates_unknown_kwarg", lambda d: n(d, "relu").__setitem__("mutates", ["kwarg:out"]))
    mutate("mutates_bad_entry", lambda d: n(d, "relu").__setitem__("mutates", ["out"]))
    mutate("collective_wrong_size", lambda d: n(d, "all_reduce")["val"]["shape"].__setitem__(1, 8))
    mutate("legacy_rank_out_of_range", lambda d: n(d, "all_reduce").update(
        target="c10d_functional.all_reduce.default", args=[{"node": "mm"}, "sum", "", [0, 5], 2]))
    # Names beyond the length limit (4096 bytes).
    mutate("long_target", lambda d: n(d, "relu").__setitem__("target", "aten." + "r" * 5000 + ".default"))
    mutate("long_name", lambda d: n(d, "output").__setitem__("name", "o" * 5000))
    return out


def main():
    os.makedirs("testdata/scenarios", exist_ok=True)
    os.makedirs("testdata/invalid", exist_ok=True)
    fsdp_tiny().save("testdata/fsdp_tiny.json")
    tp_two_groups().save("testdata/tp_two_groups.json")
    llama_fsdp().save("testdata/example_llama_fsdp.json")
    for fn in (sink_waits, raise_comms, sink_waits_raise_comms, reorder_compute_for_overlap_mul,
               default_comms_ordering, multi_group, memory_limit, same_group_order, bucketing,
               fsdp2_copy_in, fsdp2_chunk_cat_rs, inplace_all_reduce, moe_a2a_sym_size,
               collective_variants, flex_attention, memory_tight,
               custom_estimator_for_non_compute_nodes, schedulable_wait, basic_all_gather_bucketing,
               reduce_scatter_bucketing, basic_all_reduce_bucketing, multidtype_bucketing,
               no_bucketing_with_dependent_hiding_nodes, no_bucketing_when_collective_depends_on_hiding_node,
               bucketing_wait_sink, bucketing_split_for_overlap, bucket_exposed_with_hidden_single_overlap,
               multiple_hiding_nodes_bucketing, bucketing_with_convert_dtype, bucketing_group_order,
               far_collective):
        fn().save(f"testdata/scenarios/{fn.__name__}.json")
    for name, doc in invalid_cases(sink_waits_raise_comms()).items():
        with open(f"testdata/invalid/{name}.json", "w") as f:
            json.dump(doc, f, indent=1, sort_keys=True)
            f.write("\n")
    with open("testdata/invalid/malformed.json", "w") as f:
        f.write('{"format": "overlap-sched.graph", "version": 1, "nodes": [\n  {"name": "a",\n')
    with open("testdata/invalid/malformed.pb", "wb") as f:
        f.write(b"\x0a\xff\xff\xff\xff\x0f garbage that is not a protobuf message")
    # Custom estimates used by the ported PyTorch scenarios: a matmul hides one collective.
    with open("testdata/scenarios/estimates_unit.json", "w") as f:
        json.dump({"version": 1, "ops": {
            "aten.mm.default": 1.0,
            "_c10d_functional.all_reduce.default": 1.0,
            "_c10d_functional.all_gather_into_tensor.default": 1.0,
            "_c10d_functional.reduce_scatter_tensor.default": 1.0}}, f, indent=1, sort_keys=True)
        f.write("\n")
    # Upstream's test estimator: every c10d op 1 ms, a matmul `k` ms
    # (get_bucket_patches(k)), other nodes none; relu 1 ms for the
    # custom-estimator test.
    unit_colls = {f"_c10d_functional.{op}.default": 1.0
                  for op in ("all_reduce", "all_gather_into_tensor", "reduce_scatter_tensor")}
    for name, ops in (("estimates_mm2.json", {"aten.mm.default": 2.0}),
                      ("estimates_mm_half.json", {"aten.mm.default": 0.5}),
                      ("estimates_relu.json", {"aten.relu.default": 1.0})):
        with open(f"testdata/scenarios/{name}", "w") as f:
            json.dump({"version": 1, "ops": {**unit_colls, **ops}}, f, indent=1, sort_keys=True)
            f.write("\n")
    # Bucketing scenario where the merged all-gather (ag_a + ag_b + ag_c:
    # 2 x 64x64 bf16 + 64x64 f32 = 32768 bytes in) is measured slow:
    # bucketing must give it up.
    with open("testdata/scenarios/estimates_bucketing_slow.json", "w") as f:
        json.dump({"version": 1, "ops": {
            "aten.mm.default": 1.0,
            "_c10d_functional.all_gather_into_tensor.default": 0.2,
            "_c10d_functional.all_gather_into_tensor.default|uint8[32768]": 5.0}}, f, indent=1, sort_keys=True)
        f.write("\n")
    # Bucketing scenario: a matmul hides several small all-gathers.
    with open("testdata/scenarios/estimates_bucketing.json", "w") as f:
        json.dump({"version": 1, "ops": {
            "aten.mm.default": 1.0,
            "_c10d_functional.all_gather_into_tensor.default": 0.2}}, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
