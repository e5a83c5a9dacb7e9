#!/usr/bin/env python3
"""A 2-D parallel (TP x FSDP) transformer-like graph, forward and backward,
for scale benchmarks: per layer an FSDP all-gather of the weight shard
(group "dp", 8 ranks), a matmul, a TP all-reduce of the activation (group
"tp", 8 ranks); backward re-gathers, all-reduces the input gradient and
reduce-scatters the weight gradient. About 17 nodes per layer.

  scripts/gen_2d_graph.py LAYERS OUT.json
"""
import json, sys
layers, path = int(sys.argv[1]), sys.argv[2]
nodes = []
def add(name, op, target, args, shape, dtype="bfloat16"):
    st, s = [], 1
    for d in reversed(shape):
        st.append(s); s *= d
    nodes.append({"name": name, "op": op, "target": target, "args": args, "kwargs": {},
                  "val": {"shape": shape, "stride": list(reversed(st)), "dtype": dtype, "device": "cuda:0"}})
ref = lambda n: {"node": n}
AG="_c10d_functional.all_gather_into_tensor.default"; RS="_c10d_functional.reduce_scatter_tensor.default"
AR="_c10d_functional.all_reduce.default"; W="_c10d_functional.wait_tensor.default"
add("x", "placeholder", "x", [], [2048, 4096])
for l in range(layers):
    add(f"p{l}", "placeholder", f"p{l}", [], [512, 4096])
h = "x"; acts = []
for l in range(layers):
    add(f"ag{l}", "call_function", AG, [ref(f"p{l}"), 8, "dp"], [4096, 4096])
    add(f"agw{l}", "call_function", W, [ref(f"ag{l}")], [4096, 4096])
    add(f"mm{l}", "call_function", "aten.mm.default", [ref(h), ref(f"agw{l}")], [2048, 4096])
    add(f"ar{l}", "call_function", AR, [ref(f"mm{l}"), "sum", "tp"], [2048, 4096])
    add(f"arw{l}", "call_function", W, [ref(f"ar{l}")], [2048, 4096])
    add(f"h{l}", "call_function", "aten.add.Tensor", [ref(f"arw{l}"), ref(h)], [2048, 4096])
    acts.append(h); h = f"h{l}"
g = h; outs = [h]
for l in reversed(range(layers)):
    add(f"bag{l}", "call_function", AG, [ref(f"p{l}"), 8, "dp"], [4096, 4096])
    add(f"bagw{l}", "call_function", W, [ref(f"bag{l}")], [4096, 4096])
    add(f"dmm{l}", "call_function", "aten.mm.default", [ref(g), ref(f"bagw{l}")], [2048, 4096])
    add(f"bar{l}", "call_function", AR, [ref(f"dmm{l}"), "sum", "tp"], [2048, 4096])
    add(f"barw{l}", "call_function", W, [ref(f"bar{l}")], [2048, 4096])
    add(f"dt{l}", "call_function", "aten.t.default", [ref(acts[l])], [4096, 2048])
    add(f"dw{l}", "call_function", "aten.mm.default", [ref(f"dt{l}"), ref(g)], [4096, 4096])
    add(f"rs{l}", "call_function", RS, [ref(f"dw{l}"), "sum", 8, "dp"], [512, 4096])
    add(f"rsw{l}", "call_function", W, [ref(f"rs{l}")], [512, 4096])
    add(f"g{l}", "call_function", "aten.add.Tensor", [ref(f"barw{l}"), ref(g)], [2048, 4096])
    g = f"g{l}"; outs.append(f"rsw{l}")
outs.append(g)
nodes.append({"name": "output", "op": "output", "target": "output", "args": [[ref(o) for o in outs]], "kwargs": {}, "val": None})
json.dump({"format": "overlap-sched.graph", "version": 1, "name": "2d", "rank": 0, "world_size": 64,
           "process_groups": {"tp": {"ranks": list(range(8))}, "dp": {"ranks": list(range(0, 64, 8))}}, "nodes": nodes}, open(path, "w"))
print(len(nodes), "nodes")
