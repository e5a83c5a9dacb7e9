#!/usr/bin/env python3
"""Writes fuzz seeds of the shapes that crashed the tool before and that
libFuzzer's small mutations rarely build on their own: deep nesting (in
JSON, in protobuf arguments and in JSON embedded in protobuf) and long flat
chains (FX operators, subscripts, calls, annotations).

Usage: make_seeds.py CORPUS_DIR   (writes into CORPUS_DIR/{json,pb,fx,cfg,kineto,table})
Sizes stay under the fuzzers' -max_len (scripts/test-sanitize.sh).
"""
import os
import gzip
import json
import sys

from osched_testing.hostile import (field_len, field_str, fx_file, json_graph, nested_json, nested_obj,
                            pb_simple_graph, pb_value_float, pb_value_int, pb_value_list,
                            pb_value_nested)


def write(path, content):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(content if isinstance(content, bytes) else content.encode())


def main():
    out = sys.argv[1]
    for depth in (60, 61, 65, 200, 5000):
        write(f"{out}/json/deep_args_{depth}.json",
              json_graph(y_args_json='[{"node":"x"},' + nested_json(depth) + "]"))
        write(f"{out}/pb/deep_args_{depth}.pb",
              pb_simple_graph(x_args=[pb_value_nested(depth, pb_value_int(1))]))
        write(f"{out}/pb/deep_meta_json_{depth}.pb", pb_simple_graph(x_meta_json=nested_json(depth)))
        write(f"{out}/pb/deep_extra_json_{depth}.pb",
              pb_simple_graph(extra_json='{"k":' + nested_json(depth) + "}"))
    write(f"{out}/json/deep_meta.json", json_graph(extra_node_fields={"meta": nested_json(63, "{}")}))
    write(f"{out}/pb/dup_key.pb", pb_simple_graph(x_meta_json='{"a":1,"a":2}'))
    write(f"{out}/pb/nan_arg.pb", pb_simple_graph(x_args=[pb_value_list([pb_value_float(float("nan"))])]))
    write(f"{out}/pb/ref_arg.pb", pb_simple_graph(x_args=[field_len(7, field_str(1, "x"))]))
    for n in (50, 5000):
        chain = " + ".join(["1"] * n)
        write(f"{out}/fx/chain_add_{n}.py", fx_file([f"y = torch.ops.aten.add.Tensor(x, {chain})"]))
        write(f"{out}/fx/chain_list_{n}.py", fx_file([f"y = torch.ops.aten.add.Tensor(x, [{chain}])"]))
        write(f"{out}/fx/chain_mul_annotation_{n}.py",
              fx_file(["y = torch.ops.aten.relu.default(x)"],
                      params='x: "f32[' + " * ".join(["2"] * n) + ', 4][4, 1]cuda:0"'))
        write(f"{out}/fx/subscripts_{n}.py", fx_file(["y = x" + "[0]" * n]))
        write(f"{out}/fx/calls_{n}.py", fx_file(["y = f" + "()" * n]))
        write(f"{out}/fx/neg_{n}.py", fx_file(["y = torch.ops.aten.add.Tensor(x, " + "-" * n + "1)"]))
        write(f"{out}/fx/bitand_{n}.py", fx_file(["y = " + " & ".join(["x"] * n)]))
        write(f"{out}/fx/invert_{n}.py", fx_file(["y = " + "~" * n + "x"]))
        write(f"{out}/fx/dicts_{n}.py", fx_file(["y = torch.ops.aten.relu.default(x, " +
                                                   "{'k': " * n + "1" + "}" * n + ")"]))
    write(f"{out}/fx/long_list.py",
          fx_file(["y = torch.ops.aten.cat.default([" + ", ".join(["x"] * 20000) + "])"]))
    write(f"{out}/fx/slice_huge_step.py",
          fx_file(["y = torch.ops.aten.slice.Tensor(x, 0, 0, 4, 9223372036854775807)"]))
    write(f"{out}/fx/escapes.py", fx_file(["y = torch.ops.aten.relu.default(x, '\\xff\\u00e9\\U0001F600')"]))
    write(f"{out}/fx/div_zero.py", fx_file(["y = torch.ops.aten.view.default(x, [16 // 0])"]))
    # Config files: each option of testdata/configs/every_option.json alone,
    # with a value of the wrong type, and hardware objects nested too deep.
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    with open(os.path.join(root, "testdata", "configs", "every_option.json")) as f:
        every = json.load(f)
    for key, value in every.items():
        write(f"{out}/cfg/only_{key}.json", json.dumps({key: value}))
        wrong = "x" if not isinstance(value, str) else 1
        write(f"{out}/cfg/wrong_type_{key}.json", json.dumps({key: wrong}))
    write(f"{out}/cfg/deep_hardware.json", '{"hardware": ' + nested_obj(70) + "}")
    write(f"{out}/cfg/unknown_key.json", json.dumps(dict(every, no_such_option=1)))
    # Profiler traces: NCCL kernels with collective metadata, a shaped op.
    def nccl(ts, dur, nelems, seq):
        return {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_f32", "ts": ts,
                "dur": dur, "args": {"Collective name": "allreduce", "In msg nelems": nelems,
                                     "Out msg nelems": nelems, "Group size": 2, "dtype": "Float",
                                     "Process Group Name": "0", "Seq": seq}}
    events = [nccl(100 * i, 10 + i, 262144 * (1 << i), i) for i in range(6)]
    events += [{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "ts": 1, "dur": 2,
                "args": {"External id": 3, "Input Dims": [[64, 128], [128, 32]],
                         "Input type": ["c10::BFloat16", "c10::BFloat16"]}},
               {"ph": "X", "cat": "kernel", "name": "gemm", "ts": 2, "dur": 30,
                "args": {"External id": 3}}]
    trace = json.dumps({"distributedInfo": {"rank": 0, "world_size": 2}, "traceEvents": events})
    write(f"{out}/kineto/trace.json", trace)
    with gzip.open(f"{out}/kineto/trace.json.gz", "wb") as f:
        f.write(trace.encode())
    # Two gzip members: one stream to gzip.
    half = len(trace) // 2
    write(f"{out}/kineto/two_members.json.gz",
          gzip.compress(trace[:half].encode()) + gzip.compress(trace[half:].encode()))

    # Collective tables: a measured one with an extrapolation mark, columns
    # far apart and close together, and many rows.
    head = "Group  Group Size  Collective  1MB (ms)  2MB (ms)  4MB (ms)\n-----  ----------  ----------  ---  ---  ---\n"
    write(f"{out}/table/marked.table", head +
          "0  8  all_gather_into_tensor  0.05  0.07  0.11\n"
          "# extrapolated beyond 3 MiB: 0 8 all_gather_into_tensor\n"
          "1  8  all_reduce  0.03  0.04  0.06\n")
    write(f"{out}/table/close_columns.table",
          "Group  Group Size  Collective  1e-300MB (ms)  2e-300MB (ms)\n--  --  --  --  --\n"
          "0  8  all_reduce  0.05  100\n")
    write(f"{out}/table/many_rows.table",
          head + "".join(f"g{i}  8  all_reduce  0.03  0.04  0.06\n" for i in range(2000)))


if __name__ == "__main__":
    main()
