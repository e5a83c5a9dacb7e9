// import-fx on the constructs of real production dumps (autoparallel repros,
// joint graphs, MoE): dicts, comparisons, SymInt arithmetic, higher-order
// ops with submodules, triton kernel wrappers, several graph classes, and
// the shape rules of the ops they use. Expected shapes are derived by hand
// from torch's meta functions (the comment beside each says how).

#include <catch2/catch.hpp>

#include "fx/fx_import.h"
#include "test_support.h"

using namespace osched;
using namespace osched::test;

namespace {

FxImportResult import_text(const std::string& text, FxImportOptions opts = {}) {
  return import_fx_text(text, "g.py", opts);
}

std::string import_error(const std::string& text) {
  try {
    import_fx_text(text, "g.py", {});
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

const Node& node(const Graph& g, const std::string& name) {
  auto id = g.find(name);
  INFO(name);
  REQUIRE(id);
  return g.nodes[static_cast<size_t>(*id)];
}

// Shape as text: "[8, u0 + 2]" (symbols by name, hinted ones by value).
std::string shape(const Graph& g, const std::string& name, size_t out = 0) {
  const TensorMeta* m = node(g, name).output(out);
  if (!m)
    return "none";
  std::string s = "[";
  for (size_t i = 0; i < m->shape.size(); ++i) {
    const Dim& d = m->shape[i];
    s += (i ? ", " : "") +
         (d.is_symbolic() && !d.has_hint ? d.sym() : std::to_string(d.hint_or_zero()));
  }
  return s + "]";
}

std::string stride(const Graph& g, const std::string& name, size_t out = 0) {
  const TensorMeta* m = node(g, name).output(out);
  REQUIRE(m);
  std::string s = "[";
  for (size_t i = 0; i < m->stride.size(); ++i)
    s += (i ? ", " : "") + std::to_string(m->stride[i].hint_or_zero());
  return s + "]";
}

DType dtype(const Graph& g, const std::string& name, size_t out = 0) {
  const TensorMeta* m = node(g, name).output(out);
  REQUIRE(m);
  return m->dtype;
}

} // namespace

TEST_CASE("import-fx: a repro's MoE constructs (dicts, SymInts, flex attention, triton)") {
  // testdata/fx/repro_moe_constructs.py: primals_1 [10, 40], primals_4
  // [2, 16, 4, 64] bf16; u0 is _local_scalar_dense (no value).
  const std::string text = read_text(source_path("testdata/fx/repro_moe_constructs.py"));
  FxImportResult r = import_text(text);
  const Graph& g = r.graph;
  // The stub comes first; the largest forward is taken.
  CHECK(r.graph_index == 1);
  CHECK(r.graph_count == 2);
  CHECK(r.graph_class == "Repro");
  CHECK(r.unknown_shapes == 0);
  CHECK(r.unhinted_symbols == std::vector<std::string>{"_local_scalar_dense"});
  CHECK(node(g, "ge").target == "operator.ge");
  CHECK(node(g, "inv").target == "operator.invert");
  CHECK(node(g, "_assert_scalar").target == "aten._assert_scalar.default");
  // all_to_all_single's rows are the sum of its output splits: u + 3 here.
  CHECK(shape(g, "wait") == "[_local_scalar_dense + 3, 40]");
  // ((u + 10 + 1) + 7) // 8 * 8 from sym_size (10 rows) and the literal 1.
  CHECK(shape(g, "full") == "[((_local_scalar_dense + 10 + 1 + 7) // 8) * 8]");
  CHECK(dtype(g, "full") == DType::Int32);
  // The triton wrapper clones output_ptr: getitem by name has full's shape.
  CHECK(shape(g, "getitem") == shape(g, "full"));
  // The dict argument is a list of [key, value] pairs; its refs are edges.
  const Value* kw = node(g, "tkw").kwarg("kwargs");
  REQUIRE(kw);
  REQUIRE(kw->items().size() == 2);
  CHECK(kw->items()[1].items()[0].str() == "output_ptr");
  CHECK(kw->items()[1].items()[1].is_ref());
  // flex_attention: out (B, H, L, Dv) in the query's layout, logsumexp (B, H, L) f32.
  CHECK(shape(g, "getitem_1") == "[2, 4, 16, 64]");
  CHECK(stride(g, "getitem_1") == "[4096, 64, 256, 1]");
  CHECK(shape(g, "getitem_2") == "[2, 4, 16]");
  CHECK(dtype(g, "getitem_2") == DType::Float32);
  // get_pg_config() sizes the groups; the world is the largest.
  CHECK(g.process_groups.at("5").ranks.size() == 2);
  CHECK(g.world_size == 2);

  // A hint gives the unbacked symbol its value: 5 + 3 rows.
  FxImportOptions opts;
  opts.hints["_local_scalar_dense"] = 5;
  Graph hinted = import_text(text, opts).graph;
  CHECK(shape(hinted, "wait") == "[8, 40]");
  CHECK(shape(hinted, "full") == "[16]"); // (5 + 10 + 1 + 7) // 8 * 8

  // --graph 0 takes the stub.
  opts.graph_index = 0;
  CHECK(import_text(text, opts).graph.size() == 2);
}

TEST_CASE("import-fx: a joint graph's annotation-only inputs and tree_flatten_spec") {
  const std::string text =
      "class joint_helper(torch.nn.Module):\n"
      "    def forward(self, primals, tangents):\n"
      "        primals_1: \"f32[8, 4]\"; primals_2: \"i64[32, 1024]\"; tangents_1: \"f32[8, 4]\"; "
      "\n"
      "        primals_1, primals_2, tangents_1, = fx_pytree.tree_flatten_spec([primals, "
      "tangents], self._in_spec)\n"
      "        mul: \"f32[8, 4]\" = torch.ops.aten.mul.Tensor(primals_1, tangents_1);  tangents_1 "
      "= "
      "None\n"
      "        return pytree.tree_unflatten([mul, None], self._out_spec)\n";
  Graph g = import_text(text).graph;
  REQUIRE(g.size() == 5);
  CHECK(g.nodes[0].name == "primals_1");
  CHECK(g.nodes[1].name == "primals_2");
  CHECK(g.nodes[2].name == "tangents_1");
  CHECK(shape(g, "primals_2") == "[32, 1024]");
  CHECK(dtype(g, "primals_2") == DType::Int64);
  CHECK(shape(g, "mul") == "[8, 4]");
  // Unpacking anything else is not FX's: one error with line and column.
  CHECK(import_error("class G(torch.nn.Module):\n    def forward(self, x):\n        a, b = "
                     "torch.ops.aten.split.Tensor(x, 2)\n        return (a,)\n") ==
        "g.py:3:9: unpacking assignment of something other than the inputs");
}

TEST_CASE("import-fx: an input of unknown shape gives no shape, never a borrowed one") {
  // mystery's shape cannot be known; add broadcasts x with it, so its
  // shape cannot be known either (it must not take x's [4, 8]), nor can
  // anything computed from it.
  const std::string text = "class G(torch.nn.Module):\n"
                           "    def forward(self, x: \"bf16[4, 8]\"):\n"
                           "        mystery = torch.ops.mylib.mystery.default(x)\n"
                           "        add = torch.ops.aten.add.Tensor(x, mystery)\n"
                           "        cat = torch.ops.aten.cat.default([x, add])\n"
                           "        relu = torch.ops.aten.relu.default(x)\n"
                           "        return (cat, relu)\n";
  FxImportResult r = import_text(text);
  CHECK(shape(r.graph, "add") == "none");
  CHECK(shape(r.graph, "cat") == "none");
  CHECK(shape(r.graph, "relu") == "[4, 8]");
  CHECK(r.unknown_shapes == 3);
  CHECK(r.unknown_shape_nodes == std::vector<std::string>{"mystery", "add", "cat"});
}

TEST_CASE("import-fx: shape rules of the ops real graphs use") {
  const std::string text =
      "class G(torch.nn.Module):\n"
      "    def forward(self, f: \"f32[2, 16, 8, 64]\", w: \"bf16[1000, 32]\", i: \"i64[4, "
      "6]\", fc: \"c64[16, 32]\", q: \"bf16[2, 8, 128, 64]\", e: \"bf16[4, 64, 32]\", a: "
      "\"bf16[96, 64]\", offs: \"i32[4]\", m: \"b8[4, 6]\", g: \"bf16[128, 96]\", i2: \"i64[5]\", "
      "p: \"f32[2, 3]\", n: \"i32[10]\"):\n"
      "        view_as_complex = torch.ops.aten.view_as_complex.default(torch_view)\n"
      "        return (view_as_complex,)\n";
  // (The line above is a placeholder replaced below; each rule gets a line.)
  std::string body =
      "        v = torch.ops.aten.view.default(f, [2, 16, 8, 32, 2])\n"
      "        vc = torch.ops.aten.view_as_complex.default(v)\n"
      "        vr = torch.ops.aten.view_as_real.default(fc)\n"
      "        cj = torch.ops.aten._conj.default(fc)\n"
      "        emb = torch.ops.aten.embedding.default(w, i)\n"
      "        emb_bw = torch.ops.aten.embedding_dense_backward.default(emb, i, 1000, -1, False)\n"
      "        ip = torch.ops.aten.index_put.default(w, [i2], g)\n"
      "        att = torch.ops.aten._scaled_dot_product_cudnn_attention.default(q, q, q, None, "
      "True, 0.0, True)\n"
      "        att_bw = torch.ops.aten._scaled_dot_product_cudnn_attention_backward.default(q, q, "
      "q, q, q, q, q, q, None, None, None, 128, 128, 0.0, True)\n"
      "        gmm_23 = torch.ops.aten._grouped_mm.default(a, e, offs)\n"
      "        gmm_33 = torch.ops.aten._grouped_mm.default(e, e, None)\n"
      "        gmm_22 = torch.ops.aten._grouped_mm.default(g, a, offs)\n"
      "        gmm_32 = torch.ops.aten._grouped_mm.default(e, g, offs)\n"
      "        pad = torch.ops.aten.constant_pad_nd.default(p, [1, 2, 0, 3], 0.0)\n"
      "        idx = torch.ops.aten.index.Tensor(w, [i])\n"
      "        idx_mid = torch.ops.aten.index.Tensor(f, [None, i, None, None])\n"
      "        idx_apart = torch.ops.aten.index.Tensor(f, [i, None, i])\n"
      "        idx_mask = torch.ops.aten.index.Tensor(i, [m])\n"
      "        gat = torch.ops.aten.gather.default(w, 1, i)\n"
      "        top = torch.ops.aten.topk.default(w, 6, -1, True, False)\n"
      "        srt = torch.ops.aten.sort.stable(i2, stable = True)\n"
      "        hist = torch.ops.aten.histc.default(p, 64, 0, 64)\n"
      "        cs = torch.ops.aten.cumsum.default(n, 0)\n"
      "        cs32 = torch.ops.aten.cumsum.default(n, 0, dtype = torch.int32)\n"
      "        s = torch.ops.aten.sum.dim_IntList(n, [0])\n"
      "        cpu = torch.ops.prims.device_put.default(n, device(type='cpu'), True)\n"
      "        wh = torch.ops.aten.where.self(m, i, 0)\n"
      "        mx = torch.ops.aten.max.dim(f, -1, True)\n"
      "        mn = torch.ops.aten.min.dim(p, 0)\n"
      "        mx_all = torch.ops.aten.max.default(p)\n"
      "        stk = torch.ops.aten.stack.default([p, p, p], -1)\n"
      "        stk0 = torch.ops.aten.stack.default([i2, i2])\n"
      "        return (vc, vr, cj, emb_bw, ip, att, att_bw, gmm_23, gmm_33, gmm_22, gmm_32, pad, "
      "idx, idx_mid, idx_apart, idx_mask, gat, top, srt, hist, cs, cs32, s, cpu, wh, mx, mn, "
      "mx_all, stk, stk0)\n";
  std::string src = text.substr(0, text.find("        view_as_complex")) + body;
  FxImportResult r = import_text(src);
  const Graph& g = r.graph;
  // [..., 32, 2] f32 -> [..., 32] c64; strides in complex elements.
  CHECK(shape(g, "vc") == "[2, 16, 8, 32]");
  CHECK(stride(g, "vc") == "[4096, 256, 32, 1]");
  CHECK(dtype(g, "vc") == DType::Complex64);
  // c64 [16, 32] -> f32 [16, 32, 2], strides doubled.
  CHECK(shape(g, "vr") == "[16, 32, 2]");
  CHECK(stride(g, "vr") == "[64, 2, 1]");
  CHECK(dtype(g, "vr") == DType::Float32);
  CHECK(shape(g, "cj") == "[16, 32]");
  CHECK(dtype(g, "cj") == DType::Complex64);
  // embedding: indices' shape + the row width; its backward: [num_weights, width].
  CHECK(shape(g, "emb") == "[4, 6, 32]");
  CHECK(shape(g, "emb_bw") == "[1000, 32]");
  CHECK(shape(g, "ip") == "[1000, 32]");
  // cudnn SDPA: out in the query's layout, logsumexp [B, H, S, 1] f32,
  // seed and offset int64 scalars; backward: dq, dk, dv.
  CHECK(shape(g, "att", 0) == "[2, 8, 128, 64]");
  CHECK(shape(g, "att", 1) == "[2, 8, 128, 1]");
  CHECK(dtype(g, "att", 1) == DType::Float32);
  CHECK(node(g, "att").output(2) == nullptr);
  CHECK(shape(g, "att", 6) == "[]");
  CHECK(dtype(g, "att", 6) == DType::Int64);
  CHECK(node(g, "att").val.size() == 9);
  CHECK(node(g, "att_bw").val.size() == 3);
  CHECK(shape(g, "att_bw", 2) == "[2, 8, 128, 64]");
  // _grouped_mm: [M, K] x [G, K, N] -> [M, N]; [G, M, K] x [G, K, N] -> [G, M, N];
  // [K, M] x [M, N] with 4 groups -> [4, K, N]; [G, M, K] x [K, N] -> [M, N].
  CHECK(shape(g, "gmm_23") == "[96, 32]");
  CHECK(shape(g, "gmm_33") == "[4, 64, 32]"); // e is [4, 64, 32]: K=64 only matches by shape
  CHECK(shape(g, "gmm_22") == "[4, 128, 64]");
  CHECK(shape(g, "gmm_32") == "[64, 96]");
  // pad [1, 2] on the last dim, [0, 3] on the one before: [2+0+3, 3+1+2].
  CHECK(shape(g, "pad") == "[5, 6]");
  // Indexing: one index tensor [4, 6] at dim 0 of [1000, 32] -> [4, 6, 32];
  // at dim 1 of [2, 16, 8, 64] -> [2, 4, 6, 8, 64]; indices at dims 0 and
  // 2 (apart) lead -> [4, 6, 16, 64]; a bool mask -> data-dependent, none.
  CHECK(shape(g, "idx") == "[4, 6, 32]");
  CHECK(shape(g, "idx_mid") == "[2, 4, 6, 8, 64]");
  CHECK(shape(g, "idx_apart") == "[4, 6, 16, 64]");
  CHECK(shape(g, "idx_mask") == "none");
  CHECK(shape(g, "gat") == "[4, 6]");
  CHECK(dtype(g, "gat") == DType::BFloat16);
  CHECK(shape(g, "top", 0) == "[1000, 6]");
  CHECK(dtype(g, "top", 1) == DType::Int64);
  CHECK(shape(g, "srt", 1) == "[5]");
  CHECK(shape(g, "hist") == "[64]");
  // Integer cumsum and sum accumulate in int64 unless a dtype is given.
  CHECK(dtype(g, "cs") == DType::Int64);
  CHECK(dtype(g, "cs32") == DType::Int32);
  CHECK(dtype(g, "s") == DType::Int64);
  CHECK(node(g, "cpu").output()->device.str() == "cpu");
  // where takes its type from the values, not the bool condition.
  CHECK(dtype(g, "wh") == DType::Int64);
  // max.dim/min.dim: (values, int64 indices) reduced over dim, kept as 1
  // with keepdim; max.default reduces everything to a 0-d tensor.
  CHECK(shape(g, "mx", 0) == "[2, 16, 8, 1]");
  CHECK(shape(g, "mx", 1) == "[2, 16, 8, 1]");
  CHECK(dtype(g, "mx", 0) == DType::Float32);
  CHECK(dtype(g, "mx", 1) == DType::Int64);
  CHECK(shape(g, "mn", 0) == "[3]");
  CHECK(shape(g, "mx_all") == "[]");
  // stack adds an axis of the list's length: at -1 of [2, 3] -> [2, 3, 3];
  // at 0 of [5] -> [2, 5].
  CHECK(shape(g, "stk") == "[2, 3, 3]");
  CHECK(shape(g, "stk0") == "[2, 5]");
  CHECK(r.unknown_shapes == 1); // idx_mask
}

TEST_CASE("import-fx: errors in the new constructs carry line and column") {
  const std::string head = "class G(torch.nn.Module):\n    def forward(self, x: \"f32[4]\"):\n";
  CHECK(import_error(head + "        y = torch.ops.aten.relu.default(x, {'a': 1, 2})\n") ==
        "g.py:3:54: expected ':' before '}'");
  CHECK(import_error(head + "        y = x < 1 < 2\n        return (y,)\n") ==
        "g.py:3:19: chained comparison");
  CHECK(import_error(head + "        y = torch.ops.aten.relu.default(x)\n        return (y,)\n" +
                     "def get_pg_config():\n    return {'0': {'rank': 0}}\n") ==
        "g.py:6: get_pg_config(): each group needs a name and an integer 'size'");
}

TEST_CASE("import-fx: TORCH_TRACE structured logs") {
  // testdata/fx/torch_trace_tp.log: two post-grad graph records, [0/0]
  // (the forward, 11 nodes) and [0/1_1] (the backward, 17 nodes), among
  // an AOT graph, an artifact and output code.
  FxImportOptions opts;
  opts.world_size = 4;
  FxImportResult r =
      import_fx_text(read_text(source_path("testdata/fx/torch_trace_tp.log")), "t.log", opts);
  CHECK(r.trace_graphs == std::vector<std::string>{"[0/0] inductor_post_grad_graph, line 10",
                                                   "[0/1_1] inductor_post_grad_graph, line 28"});
  CHECK(r.trace_compile_id == "0/1_1"); // the largest
  CHECK(r.graph.size() == 17);
  CHECK(r.graph.name == "t_0_1_1");
  CHECK(shape(r.graph, "mm_4") == "[1024, 4096]");
  opts.graph_index = 0;
  r = import_fx_text(read_text(source_path("testdata/fx/torch_trace_tp.log")), "t.log", opts);
  CHECK(r.trace_compile_id == "0/0");
  CHECK(r.graph.size() == 11);
  opts.graph_index = 2;
  CHECK_THROWS_WITH(
      import_fx_text(read_text(source_path("testdata/fx/torch_trace_tp.log")), "t.log", opts),
      "t.log: --graph 2: the log has only 2 graph(s)");
  // An error inside a record names the log's line.
  std::string text = read_text(source_path("testdata/fx/torch_trace_tp.log"));
  text.replace(text.find("relu.default(mm)"), 16, "relu.default(zz)");
  opts.graph_index = 0;
  CHECK_THROWS_WITH(import_fx_text(text, "t.log", opts), "t.log:16: unknown name 'zz'");
  // PyTorch 2.x writes the post-grad graph as a named string artifact.
  const std::string artifact =
      "V1206 02:54:18.496000 26251 torch/_inductor/compile_fx.py:1725] {\"artifact\": "
      "{\"name\": \"inductor_post_grad_graph\", \"encoding\": \"string\"}, \"rank\": 0, "
      "\"frame_id\": 0, \"frame_compile_id\": 0, \"attempt\": 0, \"has_payload\": \"fc1f\"}\n"
      "\tclass GraphModule(torch.nn.Module):\n"
      "\t    def forward(self, x: \"f32[8, 64][64, 1]cpu\"):\n"
      "\t        r: \"f32[8, 64][64, 1]cpu\" = torch.ops.aten.relu.default(x)\n"
      "\t        return (r,)\n";
  r = import_fx_text(artifact, "a.log", {});
  CHECK(r.trace_graphs == std::vector<std::string>{"[0/0] inductor_post_grad_graph, line 1"});
  CHECK(shape(r.graph, "r") == "[8, 64]");
  // A log without graph records.
  CHECK_THROWS_WITH(
      import_fx_text("V1204 09:12:01.500000 4242 a.py:1] {\"dynamo_start\": {}}\n", "t.log", {}),
      "t.log: a TORCH_TRACE log without a post-grad or AOT graph record");
}

TEST_CASE("import-fx: SymInt inputs without a value and views of symbolic sizes") {
  // reader.symint(None): an unbacked SymInt input. view(x, [s0, -1]) of 16
  // elements has 16 // s0 columns, as an expression until s0 has a value.
  const std::string text = "class Repro(torch.nn.Module):\n"
                           "    def forward(self, s0, x):\n"
                           "        v = torch.ops.aten.view.default(x, [s0, -1])\n"
                           "        return (v,)\n"
                           "def load_args(reader):\n"
                           "    reader.symint(None)  # s0\n"
                           "    buf0 = reader.storage(None, 64)\n"
                           "    reader.tensor(buf0, (16,), is_leaf=True)  # x\n";
  FxImportResult r = import_text(text);
  CHECK(r.unknown_shapes == 0);
  CHECK(r.unhinted_symbols == std::vector<std::string>{"s0"});
  CHECK(shape(r.graph, "v") == "[s0, 16 // s0]");
  FxImportOptions opts;
  opts.hints["s0"] = 4;
  FxImportResult hinted = import_text(text, opts);
  CHECK(hinted.unhinted_symbols.empty());
  CHECK(shape(hinted.graph, "v") == "[4, 4]");
}

TEST_CASE("import-fx: auto_functionalized_v2 returns new values of its bases") {
  // A mutating custom op, functionalized: output 0 is the op's result (its
  // metadata unknown here), outputs 1.. the updated bases.
  const std::string text =
      "class G(torch.nn.Module):\n"
      "    def forward(self, x: \"f32[4, 8]\", y: \"bf16[2]\"):\n"
      "        af = torch.ops.higher_order.auto_functionalized_v2(torch.ops.mylib.inc.default, "
      "_x_base_index = 0, _y_base_index = 1, _all_bases = [x, y])\n"
      "        getitem_1 = af[1]\n"
      "        getitem_2 = af[2];  af = None\n"
      "        return (getitem_1, getitem_2)\n";
  FxImportResult r = import_text(text);
  CHECK(shape(r.graph, "getitem_1") == "[4, 8]");
  CHECK(dtype(r.graph, "getitem_2") == DType::BFloat16);
  CHECK(r.unknown_shapes == 0);
}
