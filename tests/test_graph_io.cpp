// Graph model and IO: parsing, canonical printing, JSON <-> protobuf round trips.

#include <catch2/catch.hpp>

#include "graph.pb.h"

#include <filesystem>

#include <algorithm>
#include <cstring>
#include <limits>

#include "format/graph_file.h"
#include "format/graph_snapshot.h"
#include "format/json_fast_reader.h"
#include "format/json_io.h"
#include "format/json_node_writer.h"
#include "format/proto_fast_reader.h"
#include "format/proto_io.h"
#include "graph/dedupe.h"
#include "ops/collective.h"
#include "ops/op_table.h"
#include "scheduler/reorder.h"
#include "test_support.h"
#include "text/chunked_render.h"
#include "validate/graph_error.h"

using namespace osched;
using namespace osched::test;

namespace {

// A graph's nodes as JSON, one line each (what the readers built).
std::string node_lines(const Graph& g) {
  std::string out;
  for (const Node& n : g.nodes) {
    append_node_json(out, n, g);
    out += '\n';
  }
  return out;
}

} // namespace

TEST_CASE("every testdata graph round-trips JSON -> pb -> JSON byte-identically") {
  auto graphs = valid_graphs();
  REQUIRE(graphs.size() >= 10);
  for (const auto& path : graphs) {
    INFO(path);
    Graph g = read_graph_file(path);
    std::string canonical = graph_to_json_text(g);
    std::string pb = graph_to_proto_bytes(g);
    Graph back = graph_from_proto_bytes(pb);
    CHECK(graph_to_json_text(back) == canonical);
    // Canonical JSON re-reads to itself, and protobuf bytes are deterministic.
    CHECK(graph_to_json_text(graph_from_json_text(canonical)) == canonical);
    CHECK(graph_to_proto_bytes(back) == pb);
  }
}

TEST_CASE("a graph snapshot restores the graph as it was, as a copy and as protobuf bytes") {
  Graph g = read_graph_file(source_path("testdata/example_llama_fsdp.json"));
  const std::string before = graph_to_json_text(g);
  const GraphSnapshot copy(g, g.nodes.size() + 1); // below the compact size: a copy
  const GraphSnapshot compact(g, 1);               // from one node on: protobuf bytes
  std::reverse(g.nodes.begin(), g.nodes.end());    // the graph changes after the snapshots
  g.nodes.pop_back();
  CHECK(graph_to_json_text(copy.restore()) == before);
  CHECK(graph_to_json_text(compact.restore()) == before);
  CHECK(graph_to_json_text(compact.restore()) == before); // restoring twice gives it twice
}

TEST_CASE("the direct node writer prints exactly what the JSON tree prints") {
  auto same = [](const Node& n, const Graph& g) {
    std::string direct;
    append_node_json(direct, n, g);
    CHECK(direct == node_to_json(n, g).dump());
  };
  for (const auto& path : valid_graphs()) {
    INFO(path);
    Graph g = read_graph_file(path);
    for (const Node& n : g.nodes)
      same(n, g);
  }
  // Every field and the awkward values: escapes, UTF-8, floats, symbols,
  // storages, kwarg mutations, unknown fields, kwargs out of key order.
  Graph g;
  Node a;
  a.name = "a\"q\"\\ \u00e9\t\x01";
  a.op = NodeOp::Placeholder;
  g.nodes.push_back(a);
  Node b;
  b.name = "b";
  b.target = "aten.foo.default";
  b.args = {Value::node_ref(0),
            Value::node_ref(0, 2),
            Value::real(1.0),
            Value::real(0.1),
            Value::real(-1e300),
            Value::real(std::numeric_limits<double>::quiet_NaN()),
            Value::integer(INT64_MIN),
            Value::boolean(false),
            Value::null(),
            Value::string("x/y\u2028\x7f")};
  Value list;
  list.kind = Value::Kind::List;
  list.edit_items() = {Value::integer(1), Value::string("s")};
  b.args.push_back(list);
  b.edit_attrs().kwargs = {{"alpha", Value::real(2.5)}, {"out", Value::node_ref(0)}};
  b.val_kind = ValKind::List;
  TensorMeta t;
  t.shape = {Dim::of(4), Dim::of(0)};
  t.shape[1].sym_id = intern_symbol("s0 + 1");
  t.shape[1].value = 7;
  Dim unbacked;
  unbacked.sym_id = intern_symbol("u0");
  unbacked.has_hint = false;
  t.stride = {unbacked, Dim::of(1)};
  t.dtype = DType::BFloat16;
  t.device = "cuda:0";
  t.storage = "st\"1";
  t.storage_offset = 3;
  t.storage_bytes = 1024;
  b.val = {t, std::nullopt};
  b.edit_attrs().tags = std::vector<std::string>{"pointwise", "\n"};
  b.is_view = false;
  b.edit_attrs().mutates = std::vector<MutatedArg>{{0, ""}, {-1, "out"}};
  b.edit_attrs().control_deps = {0};
  b.edit_attrs().meta = {{"stack", "line\n"}, {"n", 1.5}};
  g.nodes.push_back(b);
  same(g.nodes[1], g);
  Node c = b;
  c.edit_attrs().kwargs = {{"z", Value::integer(1)}, {"a", Value::integer(2)}}; // out of order
  same(c, g);
  Node d = b;
  d.edit_attrs().extra = {{"zz", 1}, {"aa", {1, 2}}};
  same(d, g);
  Node e = b;
  TensorMeta with_extra = *e.val[0];
  with_extra.extra = {{"requires_grad", true}};
  e.val[0] = with_extra;
  same(e, g);
  Node f = b;
  f.val_kind = ValKind::Single;
  f.val.resize(1);
  same(f, g);
  f.val[0].reset();
  same(f, g);
  f.val_kind = ValKind::Null;
  f.val.clear();
  same(f, g);
}

TEST_CASE("unknown fields, meta, symbolic dims and multi-output vals survive round trips") {
  const std::string text = R"({
    "format": "overlap-sched.graph", "version": 1, "name": "extras", "rank": 1, "world_size": 2,
    "exporter": {"torch": "2.9"},
    "process_groups": {"0": {"ranks": [0, 1], "desc": "default"}},
    "hardware": {"gpu": "A100-SXM", "gpus_per_node": 4},
    "nodes": [
      {"name": "x", "op": "placeholder", "target": "x", "args": [], "kwargs": {},
       "val": {"shape": [{"sym": "s0", "hint": 128}, {"sym": "u0"}], "stride": [{"sym": "u0"}, 1],
               "dtype": "bfloat16", "device": "cuda:1", "storage": "st0", "requires_grad": true}},
      {"name": "split", "op": "call_function", "target": "aten.split.Tensor",
       "args": [{"node": "x"}, 64], "kwargs": {"dim": 0},
       "val": [{"shape": [64, 4], "stride": [4, 1], "dtype": "bfloat16", "device": "cuda:1",
                "storage": "st0", "storage_offset": 0}, null],
       "is_view": true, "tags": [], "meta": {"stack": ["a.py:3"], "nn_module": null}},
      {"name": "g1", "op": "call_function", "target": "aten.add.Tensor",
       "args": [{"node": "split", "index": 1}, 1.5, -2, true, null, "s", [1, [2, 3]]], "kwargs": {},
       "val": null, "control_deps": ["x"], "custom_field": 7},
      {"name": "output", "op": "output", "target": "output", "args": [[{"node": "g1"}]], "kwargs": {}, "val": null}
    ]})";
  Graph g = graph_from_json_text(text);
  REQUIRE(g.size() == 4);
  const TensorMeta* x = g.nodes[0].output();
  REQUIRE(x);
  CHECK(x->shape[0].is_symbolic());
  CHECK(x->shape[0].value == 128);
  CHECK_FALSE(x->shape[1].has_hint);
  CHECK(x->has_unbacked_dims());
  CHECK(x->extra["requires_grad"] == true);
  CHECK(g.nodes[1].val_kind == ValKind::List);
  CHECK_FALSE(g.nodes[1].val[1].has_value());
  CHECK(g.nodes[2].args[0].ref_output == 1);
  CHECK(g.nodes[2].attrs().control_deps == std::vector<NodeId>{0});
  CHECK(g.nodes[2].attrs().extra["custom_field"] == 7);
  CHECK(g.extra["exporter"]["torch"] == "2.9");
  CHECK(g.process_groups["0"].extra["desc"] == "default");

  std::string canonical = graph_to_json_text(g);
  Graph back = graph_from_proto_bytes(graph_to_proto_bytes(g));
  CHECK(graph_to_json_text(back) == canonical);
  CHECK(canonical.find("\"custom_field\":7") != std::string::npos);
  CHECK(canonical.find("\"requires_grad\":true") != std::string::npos);
  CHECK(canonical.find("\"tags\":[]") != std::string::npos);
  CHECK(canonical.find("1.5") != std::string::npos);
}

TEST_CASE("operator table classifies compute, view, pointwise and collectives") {
  CHECK(is_compute_target("aten.mm.default"));
  CHECK(is_compute_target("aten._scaled_dot_product_flash_attention.default"));
  CHECK(is_compute_target("aten.convolution_backward.default"));
  CHECK_FALSE(is_compute_target("aten.add.Tensor"));
  CHECK(is_view_target("aten.view.default"));
  // Views by their PyTorch schemas (schemas/torch_op_views.tsv), which the
  // hand list never named: _conj(Tensor(a) self) -> Tensor(a), and the
  // decomposed graphs' prims.broadcast_in_dim(Tensor(a) a, ...) -> Tensor(a).
  CHECK(is_view_target("aten._conj.default"));
  CHECK(is_view_target("prims.broadcast_in_dim.default"));
  CHECK(is_view_target("prims.view_of.default"));
  // Aliases only when nothing is to be done: copies where a graph keeps them.
  CHECK_FALSE(is_view_target("aten.contiguous.default"));
  CHECK_FALSE(is_view_target("aten.to.dtype"));
  CHECK_FALSE(is_view_target("aten.clone.default"));
  CHECK(is_view_target("getitem"));
  CHECK(is_pointwise_target("prims.convert_element_type.default"));
  CHECK(overload_packet("aten.mm.default") == "aten.mm");

  Node n;
  n.op = NodeOp::CallFunction;
  n.target = "aten.add.Tensor";
  CHECK(is_pointwise_node(n));
  n.edit_attrs().tags = std::vector<std::string>{}; // exporter says: no tags
  CHECK_FALSE(is_pointwise_node(n));
  n.target = "aten.clone.default";
  n.is_view = true;
  CHECK(is_view_node(n));

  Node c;
  c.op = NodeOp::CallFunction;
  c.target = "_c10d_functional.reduce_scatter_tensor.default";
  c.args = {Value::node_ref(0), Value::string("sum"), Value::integer(4), Value::string("dp")};
  REQUIRE(is_collective_node(c));
  CHECK(collective_signature(c.target)->kind == CollectiveKind::ReduceScatter);
  CHECK(collective_group_name(c) == std::optional<std::string>("dp"));
  c.edit_attrs().kwargs = {{"group_name", Value::string("tp")}};
  CHECK(collective_group_name(c) == std::optional<std::string>("tp"));
}

TEST_CASE("tensor sizes follow shape, stride and dtype") {
  TensorMeta t;
  t.dtype = DType::BFloat16;
  t.shape = {Dim::of(8), Dim::of(4)};
  t.stride = {Dim::of(1), Dim::of(8)};
  CHECK(t.numel() == 32);
  CHECK(t.nbytes() == 64);
  CHECK(t.allocation_bytes() == 64);
  t.stride = {Dim::of(16), Dim::of(1)}; // padded rows
  CHECK(t.allocation_bytes() == (7 * 16 + 3 + 1) * 2);
  t.storage_bytes = 1000;
  CHECK(t.allocation_bytes() == 1000);
  t.shape[0] = Dim::of(0);
  CHECK(t.numel() == 0);
}

TEST_CASE("stdin format is sniffed and pb files are chosen by extension") {
  TempDir tmp;
  Graph g = read_graph_file(source_path("testdata/fsdp_tiny.json"));
  write_graph_file(tmp.file("g.pb"), g);
  std::string bytes = read_text(tmp.file("g.pb"));
  CHECK(bytes.find('{') != 0);
  Graph back = read_graph_file(tmp.file("g.pb"));
  CHECK(graph_to_json_text(back) == graph_to_json_text(g));
  CHECK(tmp.entries() == 1); // no temp files left behind
}

TEST_CASE("dedupe keeps first occurrences in order, small and large") {
  std::vector<int> small{3, 1, 3, 2, 1};
  osched::dedupe_keep_order(small);
  CHECK(small == std::vector<int>{3, 1, 2});
  std::vector<int> large;
  for (int i = 0; i < 1000; ++i)
    large.push_back((i * 7) % 100);
  osched::dedupe_keep_order(large);
  REQUIRE(large.size() == 100);
  for (int i = 0; i < 100; ++i)
    CHECK(large[static_cast<size_t>(i)] == (i * 7) % 100);
}

TEST_CASE("reordering permutes the nodes in place and remaps every reference") {
  osched::Graph g = osched::read_graph_file(source_path("testdata/example_llama_fsdp.json"));
  std::vector<osched::NodeId> order(g.nodes.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = static_cast<osched::NodeId>(i);
  // Any permutation will do for the mechanics: reverse all but the output, then rotate.
  std::reverse(order.begin(), order.end() - 1);
  std::rotate(order.begin(), order.begin() + 17, order.end() - 1);
  osched::Graph moved = osched::apply_order(osched::Graph(g), order);
  REQUIRE(moved.nodes.size() == g.nodes.size());
  for (size_t i = 0; i < order.size(); ++i) {
    const osched::Node& now = moved.nodes[i];
    const osched::Node& was = g.nodes[order[i]];
    REQUIRE(now.name == was.name);
    REQUIRE(moved.find(now.name) == static_cast<osched::NodeId>(i));
    // References name the same producers as before.
    std::vector<osched::NodeId> a = osched::node_inputs(now), b = osched::node_inputs(was);
    REQUIRE(a.size() == b.size());
    for (size_t k = 0; k < a.size(); ++k)
      CHECK(moved.nodes[a[k]].name == g.nodes[b[k]].name);
  }
}

TEST_CASE("the fast JSON path reads what the general reader reads, and declines the rest") {
  // Outcome of one reader: the canonical graph, or the error.
  auto outcome = [](const std::string& text, bool general) {
    try {
      Graph g = general ? graph_from_json_text_general(text) : graph_from_json_text(text);
      return graph_to_json_text(g);
    } catch (const Error& e) {
      return std::string("error: ") + e.what();
    }
  };
  auto fast_reads = [](const std::string& text) {
    return read_nodes_fast(text.data(), text.size(), text.size()).has_value();
  };
  for (const auto& path : valid_graphs()) {
    INFO(path);
    const std::string text = read_text(path);
    CHECK(outcome(text, false) == outcome(text, true));
    // Bundled graphs carry no per-node meta: the fast path takes them all,
    // as written and canonical.
    CHECK(fast_reads(text));
    CHECK(fast_reads(outcome(text, true)));
  }
  for (const auto& e : std::filesystem::directory_iterator(source_path("testdata/invalid"))) {
    if (e.path().extension() != ".json")
      continue;
    INFO(e.path());
    const std::string text = read_text(e.path().string());
    const std::string want = outcome(text, true);
    CHECK(want.rfind("error: ", 0) == 0);
    CHECK(outcome(text, false) == want);
  }
  // Inputs the fast path must decline or read identically: repeated keys
  // at every level, integers past int64, -0 and floats, escapes, forward
  // and unknown references, meta and unknown fields, deep nesting, "nodes"
  // twice or escaped, trailing garbage.
  const std::string head =
      R"({"format":"overlap-sched.graph","version":1,"world_size":1,"process_groups":{},)";
  const std::string x =
      R"({"name":"x","op":"placeholder","target":"x","val":{"shape":[2],"dtype":"float32"}})";
  const std::string out =
      R"({"name":"output","op":"output","target":"output","args":[[{"node":"y"}]]})";
  auto graph = [&](const std::string& y) {
    return head + R"("nodes":[)" + x + "," + y + "," + out + "]}";
  };
  const std::string y = R"({"name":"y","op":"call_function","target":"aten.relu.default",)";
  const std::vector<std::string> cases = {
      graph(y + R"("args":[{"node":"x"}],"val":{"shape":[2],"dtype":"float32"}})"),
      graph(y + R"("args":[{"node":"x"}],"args":[],"val":null})"),
      graph(y + R"("args":[{"node":"x","node":"x"}],"val":null})"),
      graph(y + R"("args":[{"node":"x"}],"kwargs":{"a":1,"a":2}})"),
      graph(y +
            R"("args":[{"node":"x"}],"kwargs":{"b":9223372036854775808,"a":-0,"c":-0.0,"d":1e2}})"),
      graph(y + R"("args":[{"node":"x"}],"kwargs":{"s":"\u00e9\n\"","t":"\ud83d\ude00"}})"),
      graph(y + R"("args":[{"node":"z"}]})"),
      graph(y + R"("args":[{"node":"y"}]})"),
      graph(y + R"("args":[{"node":"x"}],"meta":{"stack":"f"}})"),
      graph(y + R"("args":[{"node":"x"}],"custom":1})"),
      graph(y + R"("args":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]})"),
      graph(
          y +
          R"("args":[{"node":"x"}],"val":{"shape":[{"sym":"s0","hint":null},{"sym":"s1","hint":3}],"dtype":"float32","storage":7,"storage_offset":0,"storage_bytes":64}})"),
      graph(y +
            R"("args":[{"node":"x"}],"val":{"shape":[2],"dtype":"float32","requires_grad":true}})"),
      graph(y + R"("args":[{"node":"x"}],"val":{"shape":[-2],"dtype":"float32"}})"),
      graph(y + R"("args":[{"node":"x","index":-1}]})"),
      graph(y + R"("args":[{"node":"x"}],"control_deps":["output"]})"),
      graph(y + R"("args":[{"node":"x"}],"mutates":[0,"kwarg:out","kwarg:"]})"),
      graph(y + R"("args":[{"node":"x"}],"tags":["pointwise"],"is_view":false})"),
      graph(y + R"("args":[{"node":"x"}]})") + " x",
      head + R"("nodes":[)" + x + "]," + R"("nodes":[]})",
      head + R"("nod\u0065s":[)" + x + "]}",
      graph(y + R"("args":[{"node":"x"}]} )"),
  };
  for (const std::string& text : cases) {
    INFO(text);
    CHECK(outcome(text, false) == outcome(text, true));
  }
  CHECK(fast_reads(cases[0]));
  CHECK_FALSE(fast_reads(cases[1])); // a repeated field
  CHECK_FALSE(fast_reads(cases[8])); // meta: the general reader keeps it

  // Read in two halves on two threads (big graphs), the nodes are those of
  // one pass, and what one pass declines the halves decline: forward,
  // unknown and cross-half references, a name in both halves.
  auto nodes_text = [](const std::string& text, size_t parallel_min) {
    // Split (from a guessed middle) and read on two threads, or all on one.
    std::optional<FastNodes> f = read_nodes_fast(text.data(), text.size(), text.size(),
                                                 parallel_min, {}, parallel_min ? SIZE_MAX : 0);
    if (!f)
      return std::string("declined");
    Graph g;
    g.nodes = std::move(f->nodes);
    return node_lines(g);
  };
  std::vector<std::string> texts = cases;
  for (const auto& path : valid_graphs())
    texts.push_back(read_text(path));
  const std::string z =
      R"({"name":"z","op":"call_function","target":"aten.relu.default","args":[{"node":"x"}]})";
  texts.push_back(graph(z + "," + y + R"("args":[{"node":"x"}],"control_deps":["z","x"]})"));
  texts.push_back(graph(y + R"("args":[{"node":"x"}],"control_deps":["output"]})"));
  // The guessed middle of the split lands in strings holding ", {", in
  // lists of objects, between nodes: it is kept only where a node starts.
  // The scan reads 64-byte blocks: escapes, quotes and brackets land at
  // every offset of a block and across block ends.
  for (size_t pad = 0; pad < 140; ++pad) {
    const std::string s(pad, 'p');
    texts.push_back(graph(y + R"("args":[[{"node":"x"}, {"node":"x"}], {"node":"x"}],)" +
                          R"("kwargs":{"s":")" + s + R"(, {\", {, { ]"}})"));
    texts.push_back(
        graph(y + R"("args":[{"node":"x"}],"kwargs":{"s":")" + s + R"(\\", "t":"}]\\\"[{"}})"));
    CHECK(fast_reads(texts.back()));
    CHECK(fast_reads(texts[texts.size() - 2]));
    texts.push_back(graph(z + ",\n  " + y + R"("args":[{"node":"z"},  {"node":"x"}],)" +
                          R"("kwargs":{"s":")" + s + R"("}})"));
  }
  texts.push_back(graph(R"({"name":"x","op":"placeholder","target":"x"})"));
  int declined = 0;
  for (const std::string& text : texts) {
    INFO(text.substr(0, 300));
    const std::string one = nodes_text(text, SIZE_MAX);
    CHECK(nodes_text(text, 0) == one);
    declined += one == "declined";
  }
  CHECK(declined > 3);
  CHECK(nodes_text(texts.back(), 0) == "declined"); // x in both halves
}

TEST_CASE("protobuf: the direct path writes and reads what the general path does") {
  auto outcome = [](const std::string& bytes, bool general) {
    try {
      Graph g = general ? graph_from_proto_bytes_general(bytes) : graph_from_proto_bytes(bytes);
      return graph_to_json_text(g);
    } catch (const Error& e) {
      return std::string("error: ") + e.what();
    }
  };
  for (const auto& path : valid_graphs()) {
    INFO(path);
    const Graph g = read_graph_file(path);
    const std::string pb = graph_to_proto_bytes(g);
    CHECK(pb == graph_to_proto_bytes_general(g));
    CHECK(outcome(pb, false) == outcome(pb, true));
  }
  // Every field, escapes, symbols, meta and unknown fields (declined by the
  // direct reader), a dangling and a forward reference, negative dims.
  Graph g = read_graph_file(source_path("testdata/fsdp_tiny.json"));
  Node& n = g.nodes[1];
  n.edit_attrs().kwargs = {{"z", Value::real(0.5)}, {"a", Value::string("\u00e9")}};
  n.edit_attrs().tags = std::vector<std::string>{"pointwise"};
  n.is_view = false;
  n.edit_attrs().mutates = std::vector<MutatedArg>{};
  n.edit_attrs().control_deps = {0};
  const std::string plain = graph_to_proto_bytes(g);
  CHECK(plain == graph_to_proto_bytes_general(g));
  INFO(outcome(plain, true));
  CHECK(outcome(plain, false).rfind("error: ", 0) != 0);
  CHECK(outcome(plain, false) == outcome(plain, true));
  Graph with_meta = g;
  with_meta.nodes[1].edit_attrs().meta = {{"stack", "x"}};
  with_meta.nodes[1].edit_attrs().extra = {{"custom", 1}};
  const std::string meta = graph_to_proto_bytes(with_meta);
  CHECK(meta == graph_to_proto_bytes_general(with_meta));
  CHECK(outcome(meta, false) == outcome(meta, true));
  CHECK(outcome(meta, false).find("\"custom\":1") != std::string::npos);
  // Broken graphs: the same error from both.
  Graph broken = g;
  broken.nodes[1].edit_attrs().control_deps = {
      static_cast<NodeId>(g.nodes.size() - 1)}; // later node
  const std::string later = graph_to_proto_bytes(broken);
  CHECK(outcome(later, false) == outcome(later, true));
  Graph negative = g;
  for (auto& node : negative.nodes)
    if (node.output()) {
      TensorMeta m = *node.val[0];
      m.shape[0].value = -1;
      node.val[0] = m;
    }
  const std::string neg = graph_to_proto_bytes(negative);
  CHECK(outcome(neg, false).rfind("error: ", 0) == 0);
  CHECK(outcome(neg, false) == outcome(neg, true));
  const std::string malformed = read_text(source_path("testdata/invalid/malformed.pb"));
  CHECK(outcome(malformed, false) == outcome(malformed, true));
}

TEST_CASE("protobuf: the fast reader reads in one pass or two halves what the general path "
          "reads, and declines the rest") {
  // The nodes as JSON lines, or "declined".
  auto fast_nodes = [](const std::string& bytes, size_t parallel_min) {
    std::optional<ProtoFastNodes> f = read_proto_nodes_fast(bytes, parallel_min);
    if (!f)
      return std::string("declined");
    Graph g;
    g.nodes = std::move(f->nodes);
    return node_lines(g);
  };
  auto general_nodes = [](const std::string& bytes) {
    return node_lines(graph_from_proto_bytes_general(bytes));
  };
  for (const auto& path : valid_graphs()) {
    INFO(path);
    const std::string pb = graph_to_proto_bytes(read_graph_file(path));
    const std::string one = fast_nodes(pb, SIZE_MAX);
    if (one == "declined") // meta or unknown fields
      continue;
    CHECK(one == general_nodes(pb));
    CHECK(fast_nodes(pb, 2) == one);
  }

  // Every field, and references across the halves.
  Graph g = read_graph_file(source_path("testdata/fsdp_tiny.json"));
  REQUIRE(g.nodes.size() >= 6);
  const NodeId last = g.size() - 2;
  Node& n = g.nodes[static_cast<size_t>(last)];
  n.edit_attrs().kwargs = {{"z", Value::real(-0.5)},    {"a", Value::node_ref(0)},
                           {"s", Value::string("s")},   {"i", Value::integer(-7)},
                           {"b", Value::boolean(true)}, {"n", Value::null()}};
  Value list;
  list.kind = Value::Kind::List;
  list.edit_items() = {Value::node_ref(0, 0), Value::node_ref(1), Value::integer(3)};
  n.args.push_back(list);
  n.edit_attrs().tags = std::vector<std::string>{"pointwise", ""};
  n.is_view = false;
  n.edit_attrs().mutates = std::vector<MutatedArg>{MutatedArg{0, ""}, MutatedArg{-1, "a"}};
  n.edit_attrs().control_deps = {0, 2};
  for (Node& node : g.nodes)
    if (node.output()) {
      TensorMeta m = *node.val[0];
      m.storage = "s0";
      m.storage_offset = 4;
      m.storage_bytes = 1 << 20;
      m.shape.insert(m.shape.begin(), Dim{8, intern_symbol("s0"), true});
      m.stride.insert(m.stride.begin(), Dim{0, intern_symbol("u0"), false});
      node.val[0] = m;
    }
  g.nodes[1].val_kind = ValKind::List;
  g.nodes[1].val.push_back(std::nullopt);
  const std::string pb = graph_to_proto_bytes(g);
  const std::string one = fast_nodes(pb, SIZE_MAX);
  CHECK(one != "declined");
  CHECK(one == general_nodes(pb));
  CHECK(fast_nodes(pb, 2) == one);
  CHECK(graph_to_proto_bytes(graph_from_proto_bytes(pb)) == pb);

  // The reader decodes each distinct meta's bytes once: metas repeated and
  // metas one field apart (the storage offset, a dim's symbol) read as the
  // general path reads them, and a meta it rejects is rejected every time.
  Graph apart = g;
  int k = 0;
  for (Node& node : apart.nodes)
    if (node.output()) {
      TensorMeta m = *node.val[0];
      m.storage_offset = 4 + (k % 3 == 0);
      if (k % 4 == 1)
        m.shape[0].sym_id = intern_symbol("s1");
      node.val[0] = m;
      ++k;
    }
  REQUIRE(k >= 4);
  const std::string apart_pb = graph_to_proto_bytes(apart);
  const std::string apart_one = fast_nodes(apart_pb, SIZE_MAX);
  CHECK(apart_one != "declined");
  CHECK(apart_one == general_nodes(apart_pb));
  CHECK(apart_one != one);
  {
    std::optional<ProtoFastNodes> f = read_proto_nodes_fast(apart_pb, SIZE_MAX);
    REQUIRE(f);
    for (size_t i = 0; i < apart.nodes.size(); ++i)
      if (apart.nodes[i].output()) {
        CHECK(f->nodes[i].val[0] == apart.nodes[i].val[0]); // the same interned meta
      }
  }
  Graph mismatched = apart;
  for (Node& node : mismatched.nodes)
    if (node.output()) {
      TensorMeta m = *node.val[0];
      m.stride.resize(m.stride.size() - 1); // shape and stride of different lengths
      node.val[0] = m;
    }
  const std::string mismatched_pb = graph_to_proto_bytes(mismatched);
  CHECK(fast_nodes(mismatched_pb, SIZE_MAX) == "declined");
  CHECK(fast_nodes(mismatched_pb, 2) == "declined");

  // Declined, read by the general path instead: a name in both halves, a
  // forward reference, a non-ASCII string, an unknown field, a repeated
  // singular field, embedded JSON, a repeated keyword. graph_from_proto_bytes still answers as
  // the general path does.
  overlap_sched::pb::Graph msg;
  REQUIRE(msg.ParseFromString(pb));
  std::vector<std::string> declined;
  auto variant = [&](auto&& edit) {
    overlap_sched::pb::Graph m = msg;
    edit(m);
    declined.push_back(m.SerializeAsString());
  };
  variant([&](auto& m) { m.mutable_nodes(last)->set_name(m.nodes(0).name()); });
  variant([&](auto& m) { m.mutable_nodes(1)->add_control_deps(m.nodes(last).name()); });
  variant([&](auto& m) { m.mutable_nodes(1)->set_target("caf\u00e9"); });
  variant([&](auto& m) {
    m.mutable_nodes(1)->GetReflection()->MutableUnknownFields(m.mutable_nodes(1))->AddVarint(20, 1);
  });
  variant([&](auto& m) { m.mutable_nodes(1)->set_meta_json("{\"k\":1}"); });
  variant([&](auto& m) { // a keyword given twice (the message keeps the last)
    auto* again = m.mutable_nodes(last)->add_kwargs();
    again->set_key("z");
    again->mutable_value()->set_int_value(9);
  });
  variant([&](auto& m) {
    // The name field twice in one node (the message keeps the last one):
    // the nodes as raw fields 8, the second one with a field 1 appended.
    const std::string second_name = {'\x0a', '\x03', 'd', 'u', 'p'}; // field 1, 3 bytes
    m.mutable_nodes()->Clear();
    auto* raw = m.GetReflection()->MutableUnknownFields(&m);
    for (int i = 0; i < msg.nodes_size(); ++i)
      raw->AddLengthDelimited(8, msg.nodes(i).SerializeAsString() + (i == 1 ? second_name : ""));
  });
  for (const std::string& bytes : declined) {
    CHECK(fast_nodes(bytes, SIZE_MAX) == "declined");
    CHECK(fast_nodes(bytes, 2) == "declined");
    std::string direct, general;
    try {
      direct = graph_to_json_text(graph_from_proto_bytes(bytes));
    } catch (const Error& e) {
      direct = std::string("error: ") + e.what();
    }
    try {
      general = graph_to_json_text(graph_from_proto_bytes_general(bytes));
    } catch (const Error& e) {
      general = std::string("error: ") + e.what();
    }
    CHECK(direct == general);
  }
}

TEST_CASE("name index: first of a repeated name, misses, and renumbering after a permutation") {
  Graph g;
  for (const char* n : {"a", "b", "a", "a_long_name_that_is_not_inline_in_the_string", ""})
    g.nodes.emplace_back().name = n;
  CHECK_FALSE(g.find("a").has_value()); // nothing indexed yet
  g.rebuild_index();
  CHECK(g.find("a") == NodeId{0});
  CHECK(g.find("b") == NodeId{1});
  CHECK(g.find("a_long_name_that_is_not_inline_in_the_string") == NodeId{3});
  CHECK(g.find("") == NodeId{4});
  CHECK_FALSE(g.find("c").has_value());
  CHECK_FALSE(g.find("a_long").has_value());
  // Many names: every one found at its index.
  Graph big;
  for (int i = 0; i < 5000; ++i)
    big.nodes.emplace_back().name = "n" + std::to_string(i * 7919);
  big.rebuild_index();
  for (int i = 0; i < 5000; ++i)
    REQUIRE(big.find("n" + std::to_string(i * 7919)) == NodeId{i});
  // Reversed in place: the index follows.
  std::vector<NodeId> new_index(big.nodes.size());
  for (size_t i = 0; i < new_index.size(); ++i)
    new_index[i] = static_cast<NodeId>(new_index.size() - 1 - i);
  std::reverse(big.nodes.begin(), big.nodes.end());
  big.remap_index(new_index);
  for (int i = 0; i < 5000; ++i)
    REQUIRE(big.find("n" + std::to_string(i * 7919)) == NodeId{4999 - i});
  // A range added in one go stops at the first name already there.
  NameIndex index;
  index.reserve(g.nodes.size());
  CHECK(index.insert_range(g.nodes, 0, 2) == 2);
  CHECK(index.insert_range(g.nodes, 2, 5) == 2); // "a" again
  CHECK(index.insert_range(g.nodes, 3, 5) == 5);
  CHECK(index.size() == 4);
  CHECK(index.find(g.nodes, "a_long_name_that_is_not_inline_in_the_string") == NodeId{3});
  // A reader's insert with the hash prefetch() gave behaves as insert().
  NameIndex hashed;
  hashed.reserve(g.nodes.size());
  for (NodeId id = 0; id < 5; ++id) {
    const uint32_t h = hashed.prefetch(g.nodes[static_cast<size_t>(id)].name);
    CHECK(hashed.insert(g.nodes, id, h) == (id != 2)); // node 2 repeats "a"
  }
  CHECK(hashed.size() == 4);
  CHECK(hashed.find(g.nodes, "a") == NodeId{0});
  CHECK(hashed.find(g.nodes, "a_long_name_that_is_not_inline_in_the_string") == NodeId{3});
}

TEST_CASE("chunks rendered on two threads come out in order, errors stop both threads") {
  auto render = [](size_t begin, size_t end, std::string& out) {
    for (size_t i = begin; i < end; ++i)
      out += std::to_string(i) + ",";
  };
  for (size_t count : {size_t{0}, size_t{1}, size_t{7}, size_t{64}, size_t{1001}}) {
    std::string want;
    render(0, count, want);
    for (size_t chunk : {size_t{1}, size_t{3}, size_t{64}, size_t{5000}}) {
      for (size_t parallel_min : {size_t{0}, size_t{1} << 30}) {
        INFO("count " << count << " chunk " << chunk << " parallel_min " << parallel_min);
        std::string got;
        render_in_order(count, chunk, parallel_min, render,
                        [&](std::string_view piece) { got.append(piece); });
        CHECK(got == want);
      }
    }
  }
  // A failing emit (a full disk) and a failing render both reach the caller.
  size_t emitted = 0;
  CHECK_THROWS_WITH(render_in_order(1000, 10, 0, render,
                                    [&](std::string_view) {
                                      if (++emitted == 5)
                                        throw std::runtime_error("disk full");
                                    }),
                    "disk full");
  CHECK(emitted == 5);
  CHECK_THROWS_WITH(render_in_order(
                        1000, 10, 0,
                        [](size_t begin, size_t, std::string&) {
                          if (begin == 510)
                            throw std::runtime_error("render failed");
                        },
                        [](std::string_view) {}),
                    "render failed");
}

TEST_CASE("protobuf: a NaN argument with any bits reads as the one quiet NaN") {
  // fuzz_proto_graph's find: a NaN whose payload differs from the canonical
  // quiet NaN was kept by the direct path and canonicalized by the general
  // one (through JSON's {"float": "nan"}), so the two wrote different bytes.
  Graph g = read_graph_file(source_path("testdata/fsdp_tiny.json"));
  g.nodes[1].args = {Value::real(1.5)};
  std::string pb = graph_to_proto_bytes(g);
  const std::string one_and_half("\x21\x00\x00\x00\x00\x00\x00\xf8\x3f", 9); // float_value 1.5
  const size_t at = pb.find(one_and_half);
  REQUIRE(at != std::string::npos);
  pb.replace(at, one_and_half.size(), std::string("\x21\x00\x00\x00\x00\xad\x00\xf8\x7f", 9));
  for (bool general : {false, true}) {
    const Graph read = general ? graph_from_proto_bytes_general(pb) : graph_from_proto_bytes(pb);
    const double d = read.nodes[1].args.at(0).f;
    const double quiet = std::numeric_limits<double>::quiet_NaN();
    CHECK(std::memcmp(&d, &quiet, sizeof d) == 0);
    CHECK(graph_to_proto_bytes(read) == graph_to_proto_bytes_general(read));
  }
}
