#!/usr/bin/env python3
"""The real production repros of ../shared/corpus/autoparallel, end to end.

Each repro imports with no flags and every tensor node shaped, schedules and
verifies. The shapes are checked against facts read from the files
themselves, never against the importer's own output:

- the backward repro's load_args lists the forward's saved activations by
  name with shape, stride and dtype: each must equal the forward's node;
- the backward returns one gradient per forward input (None for integer
  inputs): each must have its parameter's shape and dtype;
- in the MoE forward, sizes derived by hand from its text.

Usage: check_corpus_graphs.py OVERLAP_SCHED CORPUS_DIR WORK_DIR
Exits 77 (ctest's skip) when the corpus is absent.
"""
import json
import os
import re
import sys

import osched_testing as ot

SKIP = 77
LOAD_TENSOR = re.compile(
    r"\s*reader\.tensor\(\w+, \(([^)]*)\)(?:, \(([^)]*)\))?(.*)#\s*(\w+)\s*$")


def ints(text):
    return [int(x) for x in text.split(",") if x.strip()]


def load_args(path):
    """name -> (shape, stride or None, dtype) from a repro's load_args."""
    out = {}
    for line in open(path, encoding="utf-8"):
        m = LOAD_TENSOR.match(line)
        if m:
            dtype = re.search(r"dtype=torch\.(\w+)", m.group(3))
            out[m.group(4)] = (ints(m.group(1)),
                               ints(m.group(2)) if m.group(2) else None,
                               dtype.group(1) if dtype else "float32")
    return out


class Checker:
    def __init__(self, binary, corpus, work):
        self.binary, self.corpus, self.work = binary, corpus, work
        self.failures = []

    def fail(self, msg):
        self.failures.append(msg)
        print("FAIL:", msg)

    def run(self, *args):
        return ot.run(self.binary, *args, timeout=300)

    def import_graph(self, stem, *flags):
        out = os.path.join(self.work, stem + ".json")
        r = self.run("import-fx", os.path.join(self.corpus, stem + ".py"), "-o", out, *flags)
        if r.returncode != 0:
            self.fail(f"{stem}: import-fx exit {r.returncode}: {r.stderr.strip()}")
            return None, r.stderr
        if "without shape" in r.stderr:
            self.fail(f"{stem}: nodes without shape: {r.stderr.strip()}")
        return ot.load_graph(out), r.stderr

    def schedule_and_verify(self, stem):
        src = os.path.join(self.work, stem + ".json")
        dst = os.path.join(self.work, stem + ".sched.json")
        r = self.run("schedule", src, "-q", "-o", dst)
        if r.returncode != 0:
            self.fail(f"{stem}: schedule exit {r.returncode}: {r.stderr.strip()}")
            return
        r = self.run("verify", src, dst)
        if r.returncode != 0:
            self.fail(f"{stem}: verify exit {r.returncode}: {r.stderr.strip()}")

    def expect_val(self, what, val, shape, dtype, stride=None):
        if not isinstance(val, dict):
            self.fail(f"{what}: expected one tensor, got {json.dumps(val)[:200]}")
            return
        got = (val["shape"], val["dtype"], val["stride"] if stride else None)
        if got != (shape, dtype, stride):
            self.fail(f"{what}: file says {shape} {dtype} {stride or ''}, import gives "
                      f"{val['shape']} {val['dtype']} {val['stride'] if stride else ''}")

    def llama(self):
        fw, _ = self.import_graph("repro_llama3_8b_fw_64_2d")
        bw, _ = self.import_graph("repro_llama3_8b_bw_64_2d")
        if not fw or not bw:
            return
        for stem in ("repro_llama3_8b_fw_64_2d", "repro_llama3_8b_bw_64_2d"):
            self.schedule_and_verify(stem)
        fw_nodes = ot.nodes_by_name(fw)
        bw_nodes = ot.nodes_by_name(bw)
        bw_inputs = load_args(os.path.join(self.corpus, "repro_llama3_8b_bw_64_2d.py"))
        saved = 0
        for name, (shape, stride, dtype) in bw_inputs.items():
            if name.startswith(("primals_", "tangents_")):
                continue
            saved += 1
            if name not in fw_nodes:
                self.fail(f"saved activation {name}: no such forward node")
                continue
            self.expect_val(f"saved activation {name}", fw_nodes[name].get("val"), shape,
                            dtype, stride)
        if saved < 100:
            self.fail(f"only {saved} saved activations found in the backward's load_args")
        # Gradient i belongs to primals_{i+1}.
        output = next(n for n in bw["nodes"] if n["op"] == "output")
        grads = 0
        for i, ref in enumerate(output["args"][0]):
            if ref is None:
                continue
            grads += 1
            shape, _, dtype = bw_inputs[f"primals_{i + 1}"]
            self.expect_val(f"gradient {i} ({ref['node']}) of primals_{i + 1}",
                            bw_nodes[ref["node"]].get("val"), shape, dtype)
        if grads < 100:
            self.fail(f"only {grads} gradients found in the backward's return")
        for g in (fw, bw):
            sizes = {k: len(v["ranks"]) for k, v in g["process_groups"].items()}
            if sizes != {"0": 8, "1": 8}:  # get_pg_config()
                self.fail(f"{g['name']}: groups {sizes}, get_pg_config says 8 and 8")

    def dsv3(self):
        stem = "repro_dsv3_fw_64"
        g, err = self.import_graph(stem)
        if not g:
            return
        self.schedule_and_verify(stem)
        nodes = ot.nodes_by_name(g)
        sizes = {k: len(v["ranks"]) for k, v in g["process_groups"].items()}
        if sizes != {"0": 64, "513": 8, "521": 8} or g["world_size"] != 64:
            self.fail(f"dsv3 groups {sizes}, world {g['world_size']}: get_pg_config says "
                      "'0' 64, '513' 8, '521' 8")
        if "416 size(s) read from data" not in err:  # 416 _local_scalar_dense
            self.fail("dsv3: no note about sizes read from data (_local_scalar_dense)")
        # By hand from the text: the routed tokens per rank are
        # full([49152, 2048]) (8192 tokens x top-6); expert weights
        # primals_33 (1, 1408, 2048) all-gathered over 8 ranks and permuted
        # to (8, 2048, 1408); flex attention's value is (2, 4096, 16, 128)
        # permuted to (2, 16, 4096, 128).
        self.expect_val("index_put_1", nodes["index_put_1"].get("val"), [49152, 2048], "bfloat16")
        self.expect_val("permute_20", nodes["permute_20"].get("val"), [8, 2048, 1408], "bfloat16",
                        [2883584, 1, 2048])
        self.expect_val("getitem_6 (flex_attention out)", nodes["getitem_6"].get("val"),
                        [2, 16, 4096, 128], "bfloat16")
        self.expect_val("getitem_7 (logsumexp)", nodes["getitem_7"].get("val"), [2, 16, 4096],
                        "float32")
        self.expect_val("view_as_complex", nodes["view_as_complex"].get("val"),
                        [2, 4096, 16, 32], "complex64")
        self.expect_val("topk[1] (getitem_19)", nodes["getitem_19"].get("val"), [8192, 6], "int64")
        self.expect_val("bmm", nodes["bmm"].get("val"), [8192, 1, 2048], "float32")
        # The dispatch all_to_all's size is the sum of its output splits,
        # unbacked (_local_scalar_dense_8.._15); hinted, it is a number.
        gm = nodes["_grouped_mm"]["val"]
        if not isinstance(gm["shape"][0], dict) or gm["shape"][1] != 1408:
            self.fail(f"_grouped_mm: expected [symbolic, 1408], got {gm['shape']}")
        hints = []
        for k in range(8, 16):
            hints += ["--hint", f"_local_scalar_dense_{k}={6144 + k}"]
        hinted, _ = self.import_graph(stem, *hints)
        if hinted:
            hn = ot.nodes_by_name(hinted)
            total = sum(6144 + k for k in range(8, 16))  # 49244
            a2a = hn["all_to_all_single_1"]["val"]["shape"]
            rows = a2a[0].get("hint") if isinstance(a2a[0], dict) else a2a[0]
            if rows != total:
                self.fail(f"all_to_all_single_1 with hints: expected {total} rows, got {a2a}")
            # mul_22 = ((sum + 64 + 8 - 1) // 8) * 8, the padded row count.
            padded = (total + 64 + 8 - 1) // 8 * 8
            gm = hn["_grouped_mm"]["val"]["shape"]
            if not isinstance(gm[0], dict) or gm[0].get("hint") != padded:
                self.fail(f"_grouped_mm with hints: expected {padded} rows, got {gm}")


def main():
    binary, (corpus, work) = ot.binary(sys.argv[1]), sys.argv[2:4]
    if not os.path.isdir(corpus) or not os.path.exists(
            os.path.join(corpus, "repro_dsv3_fw_64.py")):
        print(f"skip: no corpus at {corpus}")
        return SKIP
    os.makedirs(work, exist_ok=True)
    c = Checker(binary, corpus, work)
    c.llama()
    c.dsv3()
    if c.failures:
        print(f"{len(c.failures)} failure(s)")
        return 1
    print("corpus graphs: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
