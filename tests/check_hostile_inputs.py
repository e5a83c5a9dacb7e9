#!/usr/bin/env python3
"""Hostile inputs: deep, long or flat-but-huge files that the fuzzers, bounded
to small inputs, never build. Every case must end with its expected exit code
(2 with exactly one error line naming the problem, or 0 where the input is
valid), never a signal, and leave no temporary file behind.

Usage: check_hostile_inputs.py BINARY WORKDIR [CASE-NAME-SUBSTRING] [--no-memory-limits]

Inputs are generated here (protobuf by hand: the format is small), so the
repository holds no large files.
"""
import json
import os
import shutil
import sys

import osched_testing as ot
from osched_testing.hostile import (fx_file, json_graph, nested_json, pb_graph, pb_meta, pb_node,
                                    pb_simple_graph, pb_value_float, pb_value_int, pb_value_list,
                                    pb_value_nested)

ARGS = [a for a in sys.argv[1:] if not a.startswith("--")]
BIN = ot.binary(ARGS[0])
WORK = ARGS[1]
ONLY = ARGS[2] if len(ARGS) > 2 else ""
MEMORY_LIMITS = "--no-memory-limits" not in sys.argv

# ------------------------------------------------------------------- cases

CASES = []


def case(name, files, argv, rc, expect=None, check=None, env=None):
    """files: {relative name: bytes or str}; argv: command line after the
    binary, with {d} standing for the case's directory; expect: substring of
    the one error line (rc 2/4) or None; check: extra function(dir)."""
    CASES.append(dict(name=name, files=files, argv=argv, rc=rc, expect=expect, check=check, env=env))


def outputs_read_back(*names):
    def check(d):
        for n in names:
            p = os.path.join(d, n)
            r = ot.run(BIN, "validate", p, text=False)
            assert r.returncode == 0, f"{n} written but validate says: {r.stderr.decode(errors='replace')}"
    return check


# 1. protobuf-embedded JSON: the same 64-level limit as JSON graphs.
case("pb meta_json 70k deep", {"g.pb": pb_simple_graph(x_meta_json=nested_json(70000))},
     ["convert", "{d}/g.pb", "{d}/g.json"], 2, "nested deeper than 64")
case("pb meta_json 70k deep schedule", {"g.pb": pb_simple_graph(x_meta_json=nested_json(70000))},
     ["schedule", "{d}/g.pb", "-o", "{d}/out.pb"], 2, "nested deeper than 64")
case("pb meta_json 70k deep validate", {"g.pb": pb_simple_graph(x_meta_json=nested_json(70000))},
     ["validate", "{d}/g.pb"], 2, "nested deeper than 64")
case("pb meta_json 65 deep", {"g.pb": pb_simple_graph(x_meta_json=nested_json(65))},
     ["convert", "{d}/g.pb", "{d}/g.json"], 2, "nested deeper than 64")
# meta sits at level 4 of the document (graph, nodes, node, meta): 61 levels fit.
case("pb meta_json 61 deep converts", {"g.pb": pb_simple_graph(x_meta_json=nested_json(61))},
     ["convert", "{d}/g.pb", "{d}/g.json"], 0, check=outputs_read_back("g.json"))
case("pb meta_json 62 deep", {"g.pb": pb_simple_graph(x_meta_json=nested_json(62))},
     ["convert", "{d}/g.pb", "{d}/g.json"], 2, "nested deeper than 64")
case("pb graph extra_json 70k deep", {"g.pb": pb_simple_graph(extra_json='{"k":' + nested_json(70000) + "}")},
     ["convert", "{d}/g.pb", "{d}/g.json"], 2, "nested deeper than 64")
case("pb graph extra_json 64 deep converts", {"g.pb": pb_simple_graph(extra_json='{"k":' + nested_json(63) + "}")},
     ["convert", "{d}/g.pb", "{d}/g.json"], 0, check=outputs_read_back("g.json"))
case("pb tensor extra_json deep", {"g.pb": pb_simple_graph(meta_extra='{"k":' + nested_json(70000) + "}")},
     ["convert", "{d}/g.pb", "{d}/g.json"], 2, "nested deeper than 64")
case("pb embedded JSON repeated key", {"g.pb": pb_simple_graph(x_meta_json='{"a":1,"a":2}')},
     ["validate", "{d}/g.pb"], 2, "duplicate key 'a'")
case("pb extra_json repeated key", {"g.pb": pb_simple_graph(extra_json='{"k":{"b":1,"b":2}}')},
     ["validate", "{d}/g.pb"], 2, "duplicate key 'b'")

# 2. protobuf args: the same limit, no recursion to overflow.
# Past protobuf's own recursion limit (100) the message cannot be parsed at all.
case("pb args 40k deep", {"g.pb": pb_simple_graph(x_args=[pb_value_nested(40000, pb_value_int(1))])},
     ["validate", "{d}/g.pb"], 2, "malformed protobuf")
case("pb args 40k deep schedule", {"g.pb": pb_simple_graph(x_args=[pb_value_nested(40000, pb_value_int(1))])},
     ["schedule", "{d}/g.pb", "-o", "{d}/o.pb"], 2, "malformed protobuf")
case("pb args 65 deep", {"g.pb": pb_simple_graph(x_args=[pb_value_nested(65, pb_value_int(1))])},
     ["validate", "{d}/g.pb"], 2, "nested deeper than 64")
case("pb args 1000 deep", {"g.pb": pb_simple_graph(x_args=[pb_value_nested(1000, pb_value_int(1))])},
     ["validate", "{d}/g.pb"], 2, "malformed protobuf")
case("pb args 90 deep", {"g.pb": pb_simple_graph(x_args=[pb_value_nested(90, pb_value_int(1))])},
     ["convert", "{d}/g.pb", "{d}/g.json"], 2, "nested deeper than 64")
# args sit at level 4 (graph, nodes, node, args): 60 lists inside them fit.
case("pb args 60 deep converts", {"g.pb": pb_simple_graph(x_args=[pb_value_nested(60, pb_value_int(1))])},
     ["convert", "{d}/g.pb", "{d}/g.json"], 0, check=outputs_read_back("g.json"))
case("pb args 61 deep", {"g.pb": pb_simple_graph(x_args=[pb_value_nested(61, pb_value_int(1))])},
     ["validate", "{d}/g.pb"], 2, "nested deeper than 64")
# PyTorch prints inf and nan in arguments: protobuf holds the double, JSON
# writes {"float": "nan"}, and both read back.
def json_holds(name, text):
    def check(d):
        outputs_read_back(name)(d)
        with open(os.path.join(d, name)) as f:
            assert text in f.read(), f"{name} lacks {text}"
    return check


case("pb NaN arg", {"g.pb": pb_simple_graph(x_args=[pb_value_float(float("nan"))])},
     ["convert", "{d}/g.pb", "{d}/g.json"], 0, check=json_holds("g.json", '{"float":"nan"}'))
case("pb inf arg", {"g.pb": pb_simple_graph(x_args=[pb_value_list([pb_value_float(float("inf"))])])},
     ["validate", "{d}/g.pb"], 0)
case("json float object not a non-finite name",
     {"g.json": json_graph(y_args_json='[{"node":"x"},{"float":"1.5"}]')},
     ["validate", "{d}/g.json"], 2, "a float object must be")

# 10. JSON args: one limit for every reader (validate, schedule and verify agree).
for depth, rc in ((60, 0), (61, 2), (65, 2), (1020, 2)):
    text = json_graph(y_args_json="[" + '{"node":"x"},' + nested_json(depth) + "]")
    for cmd in ("validate", "verify", "schedule"):
        argv = [cmd, "{d}/g.json"] + (["-o", "{d}/o.json"] if cmd == "schedule" else [])
        if cmd == "verify":
            argv = ["verify", "{d}/g.json", "{d}/g.json"]
        case(f"json args {depth} deep {cmd}", {"g.json": text}, argv, rc,
             "nested deeper than 64" if rc else None)
# A huge name is refused after one read, not two (peak RSS measured).
case("json name 100MB", {"g.json": json_graph(name="n" * (100 << 20))},
     ["validate", "{d}/g.json"], 2, "longer than 4096 bytes", env={"MAX_RSS_MB": "600"})
case("pb name 100MB", {"g.pb": pb_graph([pb_node("n" * (100 << 20), "placeholder", "x", meta=pb_meta([4]))])},
     ["validate", "{d}/g.pb"], 2, "longer than 4096 bytes", env={"MAX_RSS_MB": "350"})

# 3. import-fx: chains count like nesting.
chain = " + ".join(["1"] * 70000)
case("fx 70k chained adds", {"g.py": fx_file([f"y = torch.ops.aten.add.Tensor(x, {chain})"])},
     ["import-fx", "{d}/g.py", "-o", "{d}/g.json"], 2, "deeper than 64")
case("fx 70k chained adds inside list",
     {"g.py": fx_file([f"y = torch.ops.aten.add.Tensor(x, [{chain}])"])},
     ["import-fx", "{d}/g.py", "-o", "{d}/g.json"], 2, "deeper than 64")
case("fx 70k chained mults in annotation",
     {"g.py": fx_file(["y = torch.ops.aten.relu.default(x)"],
                      params='x: "f32[' + " * ".join(["2"] * 70000) + ', 4][4, 1]cuda:0"')},
     ["import-fx", "{d}/g.py", "-o", "{d}/g.json"], 2, "deeper than 64")
case("fx 500k subscripts", {"g.py": fx_file(["y = x" + "[0]" * 500000])},
     ["import-fx", "{d}/g.py", "-o", "{d}/g.json"], 2, "deeper than 64")
case("fx 200k calls", {"g.py": fx_file(["y = f" + "()" * 200000])},
     ["import-fx", "{d}/g.py", "-o", "{d}/g.json"], 2, None)
case("fx 70k unary minus", {"g.py": fx_file(["y = torch.ops.aten.add.Tensor(x, " + "-" * 70000 + "1)"])},
     ["import-fx", "{d}/g.py", "-o", "{d}/g.json"], 2, "deeper than 64")
case("fx 40 chained adds import", {"g.py": fx_file(["y = torch.ops.aten.add.Tensor(x, " + " + ".join(["1"] * 40) + ")"])},
     ["import-fx", "{d}/g.py", "-o", "{d}/g.json"], 0, check=outputs_read_back("g.json"))
# The operators and dicts production repros need: every link is a level.
for label, expr in (("70k chained &", " & ".join(["x"] * 70000)),
                    ("70k chained **", " ** ".join(["2"] * 70000)),
                    ("70k unary ~", "~" * 70000 + "x"),
                    ("70k nested dicts", "{'k': " * 70000 + "1" + "}" * 70000),
                    ("70k chained comparisons", " < ".join(["x"] * 70000))):
    case(f"fx {label}", {"g.py": fx_file([f"y = {expr}"])},
         ["import-fx", "{d}/g.py", "-o", "{d}/g.json"], 2, None)
case("fx 200k ;-separated statements", {"g.py": fx_file(["; ".join(f"y{i} = x" for i in range(200000)) + "; y = torch.ops.aten.relu.default(x)"])},
     ["import-fx", "{d}/g.py", "-o", "{d}/g.json"], 0, check=outputs_read_back("g.json"))
case("fx TORCH_TRACE record of 1 MB garbage JSON",
     {"t.log": "V1204 09:12:01.500000 4242 a.py:1] {\"inductor_post_grad_graph\": " + "[" * 100000 + "\n\tclass G(torch.nn.Module):\n"},
     ["import-fx", "{d}/t.log", "-o", "{d}/g.json"], 2, "without a post-grad or AOT graph record")
fx_ok = fx_file(["y = torch.ops.aten.relu.default(x)"])
for depth, rc in ((63, 0), (64, 2), (100, 2), (70000, 2)):
    case(f"fx --hardware {depth} deep", {"g.py": fx_ok, "hw.json": '{"k":' + nested_json(depth - 1) + "}"},
         ["import-fx", "{d}/g.py", "--hardware", "{d}/hw.json", "-o", "{d}/g.json"], rc,
         "nested deeper than" if rc else None, check=outputs_read_back("g.json") if rc == 0 else None)

# 4. import-fx memory: a statement is at most 4 MiB, and one near that size
# imports in bounded memory (peak RSS measured).
case("fx 3.9MB line memory",
     {"g.py": fx_file(["y = torch.ops.aten.cat.default([" + ", ".join(["x"] * ((39 << 20) // 30)) + "])"])},
     ["import-fx", "{d}/g.py", "-o", "{d}/g.json"], 0, env={"MAX_RSS_MB": "450"})
case("fx 10MB line", {"g.py": fx_file(["y = torch.ops.aten.cat.default([" + ", ".join(["x"] * ((10 << 20) // 3)) + "])"])},
     ["import-fx", "{d}/g.py", "-o", "{d}/g.json"], 2, "longer than 4 MiB", env={"MAX_RSS_MB": "200"})
case("fx 50MB line", {"g.py": fx_file(["y = torch.ops.aten.cat.default([" + ", ".join(["1"] * ((50 << 20) // 3)) + "])"])},
     ["import-fx", "{d}/g.py", "-o", "{d}/g.json"], 2, "longer than 4 MiB", env={"MAX_RSS_MB": "400"})
case("fx unclosed bracket", {"g.py": fx_file(["y = torch.ops.aten.cat.default([x,"] + ["x," for _ in range(2 << 20)])},
     ["import-fx", "{d}/g.py", "-o", "{d}/g.json"], 2, "longer than 4 MiB", env={"MAX_RSS_MB": "400"})

# 5. shape inference: overflow is an error, never a wrapped size.
case("fx slice huge step", {"g.py": fx_file(["y = torch.ops.aten.slice.Tensor(x, 0, 0, 4, 9223372036854775807)"])},
     ["import-fx", "{d}/g.py", "-o", "{d}/g.json"], 0,
     check=lambda d: expect_shape(d, "y", [1, 4]))
case("fx slice huge negative start", {"g.py": fx_file(["y = torch.ops.aten.slice.Tensor(x, 0, -9223372036854775807, 9223372036854775807)"])},
     ["import-fx", "{d}/g.py", "-o", "{d}/g.json"], 0,
     check=lambda d: expect_shape(d, "y", [4, 4]))
case("fx chunk huge", {"g.py": fx_file(["y = torch.ops.aten.chunk.default(x, 9223372036854775807)"],
                                       ret="y")},
     ["import-fx", "{d}/g.py", "-o", "{d}/g.json"], 0)
case("fx cat overflow", {"g.py": fx_file(["y = torch.ops.aten.cat.default([x, x])"],
                                         params='x: "f32[4611686018427387904, 4][4, 1]cuda:0"')},
     ["import-fx", "{d}/g.py", "-o", "{d}/g.json"], 2, None)
case("fx all_gather overflow", {"g.py": fx_file(["y = torch.ops._c10d_functional.all_gather_into_tensor.default(x, 8, '0')"],
                                                params='x: "f32[2305843009213693952, 4][4, 1]cuda:0"')},
     ["import-fx", "{d}/g.py", "-o", "{d}/g.json"], 2, None)
case("fx symbolic hint overflow", {"g.py": fx_file(["y = torch.ops.aten.cat.default([x, x])"],
                                                   params='x: "f32[s0, 4][4, 1]cuda:0"')},
     ["import-fx", "{d}/g.py", "-o", "{d}/g.json", "--hint", "s0=4611686018427387904"], 2, None)
case("fx hint product overflow", {"g.py": fx_file(["y = torch.ops.aten.relu.default(x)"],
                                                  params='x: "f32[4*s0, 4][4, 1]cuda:0"')},
     ["import-fx", "{d}/g.py", "-o", "{d}/g.json", "--hint", "s0=4611686018427387904"], 2,
     "dim '4*s0' with the given hints: integer overflow")
case("fx mul overflow", {"g.py": fx_file(["y = torch.ops.aten.view.default(x, [4611686018427387904 * 4])"])},
     ["import-fx", "{d}/g.py", "-o", "{d}/g.json"], 2, "overflow")
case("fx division by zero", {"g.py": fx_file(["y = torch.ops.aten.view.default(x, [16 // 0])"])},
     ["import-fx", "{d}/g.py", "-o", "{d}/g.json"], 2, "division by zero")

# 9. error lines: file named, one line, truncated.
case("fx bad escape", {"g.py": fx_file(["y = torch.ops.aten.relu.default(x, '\\xff')"])},
     ["import-fx", "{d}/g.py", "-o", "{d}/g.json"], None, "g.py:")
case("json 100KB dtype", {"g.json": json_graph(dtype="q" * 100000)},
     ["validate", "{d}/g.json"], 2, "unknown dtype")
case("json 100KB gpu", {"g.json": json_graph(top_extra='"hardware":{"gpu":"' + "g" * 100000 + '"},')},
     ["schedule", "{d}/g.json", "-o", "{d}/o.json"], 2, None)
case("config bad hardware", {"g.json": json_graph(), "c.json": '{"hardware":{"hbm_gbps":-1}}'},
     ["schedule", "{d}/g.json", "--config", "{d}/c.json", "-o", "{d}/o.json"], 2, "c.json")
for cmd in ("validate", "stats", "schedule"):
    for what, g in (("node", json_graph(name="a\nb")), ("graph", json_graph(top_extra='"name":"a\\nb",'))):
        case(f"{what} name with newline: {cmd}", {"g.json": g},
             [cmd, "{d}/g.json"] + (["-o", "{d}/o.json"] if cmd == "schedule" else []), 0)


# 6. batch: a file name that is not UTF-8 is escaped in the summaries, never lost.
def check_batch_summaries(d):
    rows = [json.loads(l) for l in open(os.path.join(d, "out", "summary.jsonl"))]
    assert len(rows) == 2, f"{len(rows)} rows in summary.jsonl"
    assert {r["status"] for r in rows} == {"ok"}, rows
    names = sorted(r["input"] for r in rows)
    assert names[1].lower().endswith("g\\xff.json"), names
    csv = open(os.path.join(d, "out", "summary.csv"), encoding="utf-8").read()
    assert "g\\xff.json" in csv.lower(), csv


case("batch non-UTF-8 file name", {"in/g.json": json_graph(), b"in/g\xff.json": json_graph()},
     ["batch", "{d}/in", "-o", "{d}/out", "-j", "2", "--quiet"], 0, check=check_batch_summaries)
case("batch output dir is a file", {"g.json": json_graph(), "out": "x"},
     ["batch", "{d}/g.json", "-o", "{d}/out", "--quiet"], 4, "cannot create the output directory")
case("batch output blocked by a directory", {"g.json": json_graph(), "out/g.json/keep": "x"},
     ["batch", "{d}/g.json", "-o", "{d}/out", "--quiet"], 4, None)


# 7. diff --format markdown: names stay inside their code spans.
def golden_report(name):
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "..", "testdata", "golden", name)) as f:
        return json.load(f)


def hostile_reports():
    base = golden_report("basic_all_gather_bucketing.default.report.json")
    evil = "a`b``<img src=x onerror=alert(1)>``\n# heading"
    base["collectives"][0]["name"] = evil
    new = json.loads(json.dumps(base))
    new["collectives"][0]["greedy_exposed_ms"] += 1.0
    new["collectives"][0]["exposed_ms"] += 1.0
    return json.dumps(base), json.dumps(new)


def code_spans_hold_html(d):
    text = open(os.path.join(d, ".out")).read()
    outside, i = [], 0
    while i < len(text):  # CommonMark: a run of n backticks closes at the next run of exactly n
        if text[i] == "`":
            j = i
            while j < len(text) and text[j] == "`":
                j += 1
            n, k = j - i, j
            close = -1
            while k < len(text):
                if text[k] == "`":
                    m = k
                    while m < len(text) and text[m] == "`":
                        m += 1
                    if m - k == n:
                        close = m
                        break
                    k = m
                else:
                    k += 1
            if close < 0:
                outside.append(text[i:j])
                i = j
            else:
                i = close
        else:
            outside.append(text[i])
            i += 1
    rest = "".join(outside)
    assert "<img" not in rest and "# heading" not in rest, rest


base_text, new_text = hostile_reports()
case("diff markdown backticks", {"base.json": base_text, "new.json": new_text},
     ["diff", "{d}/base.json", "{d}/new.json", "--format", "markdown"], 0, check=code_spans_hold_html,
     env={"STDOUT_TO": ".out"})


# 10. reliability 4: file errors name their path, devices stop at a size cap,
# and reading never takes quadratic time.
case("--runtime-estimates a directory", {"g.json": json_graph(), "est/keep": "x"},
     ["schedule", "{d}/g.json", "-o", "{d}/o.json", "--runtime-estimates", "{d}/est"], 2,
     "est: is a directory")
case("calibrate a directory", {"t/keep": "x"}, ["calibrate", "{d}/t", "-o", "{d}/o.table"], 2,
     "t: is a directory")
case("--config a directory", {"g.json": json_graph(), "c/keep": "x"},
     ["schedule", "{d}/g.json", "-o", "{d}/o.json", "--config", "{d}/c"], 2, "c: is a directory")
case("--collective-table /dev/zero", {"g.json": json_graph()},
     ["schedule", "{d}/g.json", "-o", "{d}/o.json", "--collective-table", "/dev/zero"], 2,
     "/dev/zero: larger than 256 MiB", env={"MAX_RSS_MB": "600"})
case("estimates with 300k node keys", {"g.json": json_graph(), "est.json": json.dumps(
         {"version": 1, "nodes": {f"n{i}": 0.01 for i in range(300000)}})},
     ["schedule", "{d}/g.json", "-o", "{d}/o.json", "--runtime-estimates", "{d}/est.json"], 0)
case("estimates with a repeated key among 300k", {"g.json": json_graph(), "est.json":
         '{"version": 1, "nodes": {' + ", ".join(f'"n{i % 299999}": 0.01' for i in range(300000)) + "}}"},
     ["schedule", "{d}/g.json", "-o", "{d}/o.json", "--runtime-estimates", "{d}/est.json"], 2,
     "duplicate key 'n0'")
case("calibrate writes over its trace", {"t.json": '{"traceEvents": []}'},
     ["calibrate", "{d}/t.json", "-o", "{d}/t.json"], 2, "is the input TRACE",
     check=lambda d: open(os.path.join(d, "t.json")).read() == '{"traceEvents": []}' or
     (_ for _ in ()).throw(AssertionError("the trace was overwritten")))

for table_name in ("../../etc/passwd", "/dev/zero", ".."):
    case(f"repro table name {table_name}", {"r.py": (
        'import torch\ndef get_colls_estimations_file():\n    return "' + table_name + '"\n'
        'class Repro(torch.nn.Module):\n    def forward(self, x: "f32[4, 4][4, 1]cuda:0"):\n'
        '        y = torch.ops.aten.relu.default(x)\n        return (y,)\n')},
         ["import-fx", "{d}/r.py", "-o", "{d}/r.json"], 2, "must return a plain file name")


def expect_shape(d, name, shape):
    g = ot.load_graph(os.path.join(d, "g.json"))
    for n in g["nodes"]:
        if n["name"] == name:
            assert n["val"]["shape"] == shape, f"{name}: shape {n['val']['shape']}, want {shape}"
            return
    raise AssertionError(f"no node {name}")


# ------------------------------------------------------------------ runner


LAUNCHER = """
import os, sys
pid = os.posix_spawn(sys.argv[2], sys.argv[2:], os.environ)
_, status, usage = os.wait4(pid, 0)
open(sys.argv[1], "w").write(str(usage.ru_maxrss))
code = os.waitstatus_to_exitcode(status)
if code < 0:
    os.kill(os.getpid(), -code)
sys.exit(code)
"""


def run_case(c):
    d = os.path.join(WORK, c["name"].replace(" ", "_").replace("/", "_"))
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    for rel, content in c["files"].items():
        path = os.path.join(os.fsencode(d), os.fsencode(rel))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(content if isinstance(content, bytes) else content.encode())
    argv = [BIN] + [a.replace("{d}", d) for a in c["argv"]]
    problems = []
    max_rss_mb = int((c["env"] or {}).get("MAX_RSS_MB", 0)) if MEMORY_LIMITS else 0
    rss_file = os.path.join(d, ".rss")
    if max_rss_mb:
        # Measured by a small launcher: a child forked from this process
        # would count this process's pages in its peak.
        argv = [sys.executable, "-c", LAUNCHER, rss_file] + argv
    r = ot.run(*argv, text=False, timeout=300)
    if max_rss_mb:
        rss_kb = int(open(rss_file).read())
        os.remove(rss_file)
        if rss_kb > max_rss_mb * 1024:
            problems.append(f"peak RSS {rss_kb >> 10} MB, over {max_rss_mb} MB")
    err = r.stderr.decode(errors="replace")
    if (c["env"] or {}).get("STDOUT_TO"):
        with open(os.path.join(d, c["env"]["STDOUT_TO"]), "wb") as f:
            f.write(r.stdout)
    if r.returncode < 0:
        problems.append(f"died of signal {-r.returncode}")
    elif c["rc"] is not None and r.returncode != c["rc"]:
        problems.append(f"exit {r.returncode}, want {c['rc']}")
    elif c["rc"] is None and r.returncode not in (0, 2):
        problems.append(f"exit {r.returncode}, want 0 or 2")
    if r.returncode == 2 or r.returncode == 4:
        lines = err.rstrip("\n").split("\n")
        if len(lines) != 1:
            problems.append(f"{len(lines)} error lines")
        if len(err) > 1000:
            problems.append(f"error line of {len(err)} characters")
        if "internal" in err:
            problems.append("internal error")
        if c["expect"] and c["expect"] not in err:
            problems.append(f"error does not say {c['expect']!r}")
    for line in (r.stdout.decode(errors="replace") + err).split("\n"):
        if len(line) > 2000:
            problems.append("an output line of over 2000 characters")
            break
    if r.returncode == 0 and "a\nb" in r.stdout.decode(errors="replace") + err:
        problems.append("a name printed with a raw newline")
    left = [os.path.join(root, f) for root, _, fs in os.walk(d) for f in fs if "osched-tmp" in f]
    if left:
        problems.append(f"temporaries left: {left}")
    if r.returncode != 0:
        for rel in ("g.json", "out.pb", "o.pb", "o.json"):
            if rel not in c["files"] and os.path.exists(os.path.join(d, rel)):
                problems.append(f"output {rel} written by a failing run")
    if not problems and c["check"] and r.returncode == 0:
        try:
            c["check"](d)
        except AssertionError as e:
            problems.append(str(e))
    shutil.rmtree(d, ignore_errors=True)
    return problems, err.strip()[:300]


def main():
    os.makedirs(WORK, exist_ok=True)
    failed = 0
    ran = 0
    for c in CASES:
        if ONLY and ONLY not in c["name"]:
            continue
        ran += 1
        problems, err = run_case(c)
        if problems:
            failed += 1
            print(f"FAIL {c['name']}: {'; '.join(problems)}\n     stderr: {err}")
        else:
            print(f"ok   {c['name']}")
    print(f"{ran - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
