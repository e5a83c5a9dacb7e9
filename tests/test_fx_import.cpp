// import-fx: each FX text form imports, schedules and verifies; metadata
// from annotations, load_args and propagation checked against hand-derived
// shapes; errors name FILE:LINE and leave no output.

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <map>

#include "format/graph_file.h"
#include "format/json_io.h"
#include "fx/fx_import.h"
#include "ops/collective_info.h"
#include "test_support.h"
#include "text/escape.h"

using namespace osched;
using namespace osched::test;

namespace {

FxImportResult import_file(const std::string& rel, FxImportOptions opts = {}) {
  return import_fx_text(read_text(source_path(rel)), rel, opts);
}

const Node& node(const Graph& g, const std::string& name) {
  auto id = g.find(name);
  REQUIRE(id);
  return g.nodes[static_cast<size_t>(*id)];
}

std::vector<int64_t> shape(const Graph& g, const std::string& name, size_t out = 0) {
  const TensorMeta* m = node(g, name).output(out);
  REQUIRE(m);
  std::vector<int64_t> s;
  for (const auto& d : m->shape)
    s.push_back(d.hint_or_zero());
  return s;
}

std::vector<int64_t> stride(const Graph& g, const std::string& name) {
  const TensorMeta* m = node(g, name).output();
  REQUIRE(m);
  std::vector<int64_t> s;
  for (const auto& d : m->stride)
    s.push_back(d.hint_or_zero());
  return s;
}

// A forward with the given body lines (8-space indented) and signature.
std::string forward(const std::string& params, const std::string& body) {
  return "class GraphModule(torch.nn.Module):\n    def forward(self, " + params + "):\n" + body;
}

std::string import_error(const std::string& text, FxImportOptions opts = {}) {
  opts.hints.emplace("s0", 8);
  try {
    import_fx_text(text, "g.py", opts);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

} // namespace

TEST_CASE("import-fx: every testdata/fx dump imports, schedules and verifies") {
  struct Case {
    std::string file, flags;
  };
  const std::vector<Case> cases = {
      {"fsdp_post_grad.py", ""},
      {"tp_post_grad_graphs.log", "--group tp=0-3"},
      {"tp_post_grad_graphs.log", "--group tp=0-3 --graph 1"},
      {"moe_all_to_all.py", "--hint s0=4096"},
      {"fsdp_tp_backward.py", "--world-size 4 --group tp=0,1 --group dp=0,2"},
      {"repro_load_args.py", ""},
      {"repro_moe_constructs.py", "--hint _local_scalar_dense=6"},
      {"torch_trace_tp.log", "--group tp=0-3"},
  };
  TempDir tmp;
  for (const auto& c : cases) {
    INFO(c.file << " " << c.flags);
    std::string g = tmp.file("g.json"), s = tmp.file("s.json");
    CliResult r =
        run_cli("import-fx " + source_path("testdata/fx/" + c.file) + " -o " + g + " " + c.flags);
    REQUIRE(r.exit_code == 0);
    CHECK(run_cli("validate " + g).exit_code == 0);
    r = run_cli("schedule " + g + " -o " + s + " -q --collective-bucketing --insert-overlap-deps");
    REQUIRE(r.exit_code == 0);
    CHECK(run_cli("verify " + g + " " + s).exit_code == 0);
    // Protobuf output too, identical content.
    r = run_cli("import-fx " + source_path("testdata/fx/" + c.file) + " -q -o " + tmp.file("g.pb") +
                " " + c.flags);
    REQUIRE(r.exit_code == 0);
    CHECK(graph_to_json_text(read_graph_file(tmp.file("g.pb"))) == read_text(g));
  }
}

TEST_CASE("import-fx: golden imported JSON") {
  // Reviewed by hand once (shapes below), then kept byte for byte.
  TempDir tmp;
  for (const std::string name : {"fsdp_post_grad", "repro_load_args"}) {
    INFO(name);
    CliResult r = run_cli("import-fx -q " + source_path("testdata/fx/" + name + ".py") + " -o " +
                          tmp.file("g.json"));
    REQUIRE(r.exit_code == 0);
    CHECK(read_text(tmp.file("g.json")) ==
          read_text(source_path("testdata/fx/expected/" + name + ".json")));
  }
}

TEST_CASE("import-fx: annotations give shapes, strides, dtypes and devices") {
  Graph g = import_file("testdata/fx/fsdp_post_grad.py").graph;
  CHECK(g.name == "fsdp_post_grad");
  CHECK(g.world_size == 8);
  REQUIRE(g.process_groups.count("0"));
  CHECK(g.process_groups.at("0").ranks.size() == 8);
  CHECK(node(g, "primals_1").op == NodeOp::Placeholder);
  CHECK(shape(g, "all_gather_into_tensor") == std::vector<int64_t>{32768, 1024});
  CHECK(stride(g, "permute") == std::vector<int64_t>{1, 8192});
  CHECK(node(g, "convert_element_type").output()->dtype == DType::BFloat16);
  CHECK(node(g, "convert_element_type").args[1].str() == "bfloat16");
  CHECK(node(g, "mm").target == "aten.mm.default");
  auto info = decode_collective(g, *g.find("all_gather_into_tensor"));
  REQUIRE(info);
  CHECK(info->group_size == 8);
  CHECK(*info->input_bytes == 4096 * 1024 * 2);
  const Node& out = g.nodes.back();
  CHECK(out.op == NodeOp::Output);
  REQUIRE(out.args.size() == 1);
  CHECK(out.args[0].items().size() == 2);
}

TEST_CASE("import-fx: TORCH_LOGS prefixes, several graphs, groups without a size") {
  FxImportOptions opts;
  // By default the largest graph of the file: here the backward.
  opts.world_size = 4;
  FxImportResult largest = import_file("testdata/fx/tp_post_grad_graphs.log", opts);
  CHECK(largest.graph_index == 1);
  CHECK(largest.graph_count == 2);
  CHECK(largest.graph.find("tangents_1"));
  opts.world_size.reset();
  opts.graph_index = 0;
  CHECK(import_error(read_text(source_path("testdata/fx/tp_post_grad_graphs.log")), opts)
            .find("g.py:12: node 'all_reduce': group 'tp' states no group_size") == 0);
  opts.world_size = 4;
  FxImportResult fwd = import_file("testdata/fx/tp_post_grad_graphs.log", opts);
  CHECK(fwd.graph.process_groups.at("tp").ranks == std::vector<int64_t>{0, 1, 2, 3});
  CHECK(fwd.graph.find("all_reduce"));
  CHECK(fwd.graph.nodes.size() == 11);
  opts.graph_index = 1;
  FxImportResult bwd = import_file("testdata/fx/tp_post_grad_graphs.log", opts);
  CHECK(bwd.graph.find("all_reduce_1"));
  CHECK(bwd.graph.find("tangents_1"));
  const Node& full = node(bwd.graph, "full_default");
  CHECK(full.kwarg("device")->str() == "cuda:0");
  CHECK(full.kwarg("dtype")->str() == "bfloat16");
  CHECK(full.kwarg("layout")->str() == "torch.strided");
  CHECK(full.kwarg("pin_memory")->kind == Value::Kind::Bool);
  CHECK(node(bwd.graph, "le").output()->dtype == DType::Bool);
  opts.graph_index = 2;
  CHECK(import_error(read_text(source_path("testdata/fx/tp_post_grad_graphs.log")), opts)
            .find("g.py: --graph 2: the file has only 2 forward graph(s)") == 0);
}

TEST_CASE("import-fx: symbolic dims, SymInt placeholders and hints") {
  FxImportOptions opts;
  opts.hints["s0"] = 4096;
  Graph g = import_file("testdata/fx/moe_all_to_all.py", opts).graph;
  CHECK(g.world_size == 2); // from the all_to_all split lists
  const TensorMeta* x = node(g, "primals_1").output();
  REQUIRE(x);
  CHECK(x->shape[0].is_symbolic());
  CHECK(x->shape[0].sym() == "s0");
  CHECK(x->shape[0].value == 4096);
  CHECK(stride(g, "primals_1") == std::vector<int64_t>{2048, 1}); // contiguous when not printed
  CHECK(x->device == "cuda:0");
  CHECK(node(g, "s0").val_kind == ValKind::Null);
  const TensorMeta* recv = node(g, "wait_tensor_1").output();
  CHECK_FALSE(recv->shape[0].has_hint);                        // u0 + u1: unbacked
  CHECK(shape(g, "view") == std::vector<int64_t>{8192, 1024}); // 2*s0
  CHECK(node(g, "mul").target == "operator.mul");
  CHECK(node(g, "floordiv").target == "operator.floordiv");
  // Without the hint s0 is unbacked (costed as 0), never an error.
  Graph u = import_file("testdata/fx/moe_all_to_all.py").graph;
  CHECK_FALSE(node(u, "mm").output()->shape[0].has_hint);
}

TEST_CASE("import-fx: minifier repro shapes from load_args and propagation") {
  FxImportResult r = import_file("testdata/fx/repro_load_args.py");
  const Graph& g = r.graph;
  // load_args: dtype default float32, explicit strides, shared storage.
  CHECK(shape(g, "primals_1") == std::vector<int64_t>{128, 512});
  CHECK(node(g, "primals_1").output()->dtype == DType::Float32);
  CHECK(node(g, "primals_3").output()->storage == std::optional<std::string>("buf2"));
  CHECK(node(g, "primals_4").output()->storage == std::optional<std::string>("buf2"));
  CHECK_FALSE(node(g, "primals_5").output()->storage);
  // Hand-derived propagation.
  CHECK(shape(g, "all_gather_into_tensor") == std::vector<int64_t>{512, 512}); // 128 * 4
  CHECK(node(g, "convert_element_type").output()->dtype == DType::BFloat16);
  CHECK(stride(g, "t") == std::vector<int64_t>{1, 512});
  CHECK(shape(g, "view") == std::vector<int64_t>{1024, 512}); // -1 = 4*256*512/512
  CHECK(shape(g, "addmm") == std::vector<int64_t>{1024, 512});
  CHECK(shape(g, "transpose") == std::vector<int64_t>{4, 8, 256, 64});
  CHECK(stride(g, "transpose") == std::vector<int64_t>{131072, 64, 512, 1});
  CHECK(shape(g, "getitem") == std::vector<int64_t>{4, 8, 256, 64});
  CHECK(shape(g, "getitem_1") == std::vector<int64_t>{4, 8, 256}); // logsumexp
  CHECK(node(g, "getitem_1").output()->dtype == DType::Float32);
  CHECK(shape(g, "permute") == std::vector<int64_t>{4, 256, 8, 64});
  CHECK(stride(g, "expand") == std::vector<int64_t>{0, 1});
  CHECK(shape(g, "split", 1) == std::vector<int64_t>{1024, 256});
  CHECK(node(g, "getitem_3").target == "operator.getitem");
  CHECK(shape(g, "cat") == std::vector<int64_t>{1024, 512});
  CHECK(shape(g, "slice_1") == std::vector<int64_t>{512, 512});
  CHECK(shape(g, "sum_1") == std::vector<int64_t>{1, 512});
  CHECK(shape(g, "mul") == std::vector<int64_t>{512, 512});
  CHECK(shape(g, "reduce_scatter_tensor") == std::vector<int64_t>{128, 512}); // 512 / 4
  CHECK(shape(g, "wait_tensor_1") == std::vector<int64_t>{128, 512});
  CHECK(shape(g, "amax") == std::vector<int64_t>{4, 8, 1});
  // The custom op cannot be known: a warning, costed as zero.
  CHECK(r.unknown_shapes == 1);
  CHECK(r.unknown_shape_nodes == std::vector<std::string>{"mystery"});
  CHECK(node(g, "mystery").val_kind == ValKind::Null);
  CliResult cli =
      run_cli("import-fx " + source_path("testdata/fx/repro_load_args.py") + " -o /dev/null");
  CHECK(cli.exit_code == 0);
  CHECK(cli.err.find("warning: 1 node(s) without shape, costed as 0: 'mystery'") !=
        std::string::npos);
  TempDir tmp;
  REQUIRE(run_cli("import-fx -q " + source_path("testdata/fx/repro_load_args.py") + " -o " +
                  tmp.file("r.json"))
              .exit_code == 0);
  cli = run_cli("stats --json " + tmp.file("r.json"));
  CHECK(nlohmann::json::parse(cli.out)["nodes_without_shape"] == 1);
}

TEST_CASE("import-fx: coalesced collectives, getitem and None outputs") {
  FxImportOptions opts;
  opts.groups["tp"] = {0, 1};
  opts.groups["dp"] = {0, 2};
  opts.world_size = 4;
  Graph g = import_file("testdata/fx/fsdp_tp_backward.py", opts).graph;
  const Node& coal = node(g, "all_gather_into_tensor_coalesced");
  CHECK(coal.val_kind == ValKind::List);
  CHECK(shape(g, "all_gather_into_tensor_coalesced", 1) == std::vector<int64_t>{1024, 1024});
  CHECK(node(g, "getitem").target == "getitem");
  CHECK(g.process_groups.at("dp").ranks == std::vector<int64_t>{0, 2});
  const Value& outs = g.nodes.back().args[0];
  REQUIRE(outs.items().size() == 5);
  CHECK(outs.items()[1].kind == Value::Kind::Null);
  // --group must agree with the graph's group_size.
  opts.groups["dp"] = {0, 1, 2};
  CHECK(import_error(read_text(source_path("testdata/fx/fsdp_tp_backward.py")), opts)
            .find("group 'dp' has group_size 2 but --group gives 3 ranks") != std::string::npos);
}

TEST_CASE("import-fx: assumed ranks are the rank's consecutive block") {
  std::string text =
      forward("x: \"f32[4, 4]\"",
              "        ag: \"f32[8, 4]\" = torch.ops._c10d_functional.all_gather_into_tensor."
              "default(x, 2, 'tp')\n"
              "        w: \"f32[8, 4]\" = torch.ops._c10d_functional.wait_tensor.default(ag)\n"
              "        return (w,)\n");
  FxImportOptions opts;
  opts.rank = 5;
  opts.world_size = 8;
  FxImportResult r = import_fx_text(text, "g.py", opts);
  CHECK(r.graph.process_groups.at("tp").ranks == std::vector<int64_t>{4, 5});
  CHECK(r.assumed_groups == std::vector<std::string>{"tp"});
  CHECK(r.graph.rank == 5);
}

TEST_CASE("import-fx: Python forms FX prints") {
  std::string text = forward(
      "L_x_ : torch.Tensor, y: \"f32[2, 3]\"",
      "        l_x_ = L_x_\n"
      "        _tensor_constant0 = self._tensor_constant0\n"
      "        add: \"f32[2, 3]\" = torch.ops.aten.add(y, 1.5e-3, alpha = -2)\n"
      "        cat: \"f32[4, 3]\" = torch.ops.aten.cat.default([add, y], -1);  add = None\n"
      "        neg: \"f32[4, 3]\" = torch.ops.aten.clamp.default(cat, -inf_ok, None) if False "
      "else cat\n");
  // Not the FX subset; the column is that of `if` (76 characters before it).
  CHECK(import_error(text).find("g.py:7:77: unexpected text after the expression before 'if'") ==
        0);
  text = forward("L_x_ : torch.Tensor, y: \"f32[2, 3]\"",
                 "        l_x_ = L_x_\n"
                 "        _tensor_constant0 = self._tensor_constant0\n"
                 "        add: \"f32[2, 3]\" = torch.ops.aten.add(y, 1.5e-3, alpha = -2)\n"
                 "        big = torch.ops.aten.slice.Tensor(add, 0, 0, "
                 "9223372036854775807)\n"
                 "        lo = torch.ops.aten.clamp.default(big, -9223372036854775808, 'a\\'b')\n"
                 "        return pytree.tree_unflatten([lo, l_x_, _tensor_constant0], "
                 "self._out_spec)\n");
  Graph g = import_fx_text(text, "g.py", {}).graph;
  CHECK(node(g, "add").target == "aten.add.default");
  CHECK(node(g, "add").args[1].kind == Value::Kind::Float);
  CHECK(node(g, "add").kwarg("alpha")->i == -2);
  CHECK(node(g, "_tensor_constant0").op == NodeOp::GetAttr);
  CHECK(node(g, "_tensor_constant0").target == "_tensor_constant0");
  CHECK(node(g, "big").args[3].i == INT64_MAX);
  CHECK(node(g, "lo").args[1].i == INT64_MIN);
  CHECK(node(g, "lo").args[2].str() == "a'b");
  // Keyword arguments are stored in key order; a keyword given twice (Python
  // rejects the call) is an error on its line.
  const std::string kwargs_text =
      forward("self, x: \"f32[4]\"",
              "        e = torch.ops.aten.empty.memory_format([4], pin_memory = False, dtype = "
              "torch.float32, device = 'cuda:0')\n"
              "        return (e,)\n");
  Graph kw = import_fx_text(kwargs_text, "g.py", {}).graph;
  REQUIRE(node(kw, "e").attrs().kwargs.size() == 3);
  CHECK(node(kw, "e").attrs().kwargs[0].first == "device");
  CHECK(node(kw, "e").attrs().kwargs[1].first == "dtype");
  CHECK(node(kw, "e").attrs().kwargs[2].first == "pin_memory");
  CHECK(import_error(forward("self, x: \"f32[4]\"",
                             "        a = torch.ops.aten.add.Tensor(x, x, alpha = 1, alpha = 2)\n"
                             "        return (a,)\n")) == "g.py:3: keyword 'alpha' given twice");
  CHECK(shape(g, "big") == std::vector<int64_t>{2, 3});
  const Value& out = g.nodes.back().args[0];
  REQUIRE(out.items().size() == 3);
  CHECK(out.items()[1].i == *g.find("L_x_")); // the alias names the placeholder
}

TEST_CASE("import-fx: errors name the file and line and leave no output") {
  struct Bad {
    std::string text, expected;
  };
  const std::string ok_param = "x: \"f32[4]\"";
  const std::vector<Bad> cases = {
      {"print('hello')\n", "g.py: no 'def forward(' found"},
      {forward(ok_param, "        y = torch.ops.aten.relu.default(z)\n        return (y,)\n"),
       "g.py:3: unknown name 'z'"},
      {forward(ok_param, "        y: \"q32[4]\" = torch.ops.aten.relu.default(x)\n"
                         "        return (y,)\n"),
       "g.py:3: node 'y': annotation 'q32[4]': unknown dtype 'q32'"},
      {forward(ok_param, "        y: \"f32[4][1, 1]\" = torch.ops.aten.relu.default(x)\n"
                         "        return (y,)\n"),
       "g.py:3: node 'y': annotation 'f32[4][1, 1]': 2 strides for 1 dims"},
      {forward(ok_param, "        y = torch.ops.aten.relu.default(x, 'open)\n"),
       "g.py:3:44: unterminated string"},
      {forward(ok_param, "        y = torch.ops.aten.relu.default(x)\n"), "forward has no return"},
      {forward(ok_param, "        x = torch.ops.aten.relu.default(x)\n        return (x,)\n"),
       "g.py:3: name 'x' defined twice"},
      {forward(ok_param, "        y = torch.ops.aten.add.Tensor(x, torch.relu(x))\n"
                         "        return (y,)\n"),
       "g.py:3: nested call 'torch.relu' in an argument"},
      {forward(ok_param, "        y = torch.ops.aten.view.default(x, " + std::string(100, '[') +
                             std::string(100, ']') + ")\n        return (y,)\n"),
       "g.py:3:108: expression nested deeper than 64 levels"},
      {forward(ok_param, "        y = 3\n        return (y,)\n"),
       "g.py:3: 'y' is assigned a constant, not a node"},
      {forward(ok_param, "        ag = torch.ops._c10d_functional.all_gather_into_tensor."
                         "default(x, 2, '0')\n        ag2 = torch.ops._c10d_functional."
                         "all_gather_into_tensor.default(x, 4, '0')\n        return (ag, ag2)\n"),
       "g.py:4: node 'ag2': group '0' has size 4 here and 2 at node 'ag'"},
      {forward(ok_param, "        y: \"f32[4]\" = torch.ops.aten.relu.default(x, $)\n"),
       "g.py:3:54: unexpected character '$'"},
      {forward(ok_param, "        y: \"f32[-24]\" = torch.ops.aten.relu.default(x)\n"
                         "        return (y,)\n"),
       "g.py:3: node 'y': negative size -24 = -24"},
      {forward("x: \"f32[s0 - 9]\"", "        return (x,)\n"),
       "g.py:2: node 'x': negative size s0 - 9 = -1"},
      {forward(ok_param, "        y = torch.ops.aten.relu.default(x, 'a\xff')\n"),
       "g.py:3: not UTF-8 text (byte 0xFF)"},
      {forward(ok_param, "        y = torch.ops.aten.relu.default(x, '\xed\xa0\x80')\n"),
       "g.py:3: not UTF-8 text (byte 0xED)"}, // a surrogate
  };
  for (const auto& c : cases) {
    INFO(c.text);
    CHECK(import_error(c.text).find(c.expected) != std::string::npos);
  }
  // Through the CLI: exit 2, one line, nothing written.
  TempDir tmp;
  std::ofstream(tmp.file("bad.py")) << cases[1].text;
  CliResult r = run_cli("import-fx " + tmp.file("bad.py") + " -o " + tmp.file("out.json"));
  CHECK(r.exit_code == 2);
  CHECK(r.err == "error: " + tmp.file("bad.py") + ":3: unknown name 'z'\n");
  CHECK(tmp.entries() == 1);
  for (const std::string flags :
       {"--group 0=3-1", "--group tp", "--hint s0=x", "--gpu Z80", "--world-size 0"}) {
    INFO(flags);
    r = run_cli("import-fx " + source_path("testdata/fx/fsdp_post_grad.py") + " -o " +
                tmp.file("out.json") + " " + flags);
    CHECK(r.exit_code == 2);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK(tmp.entries() == 1);
  }
}

TEST_CASE("import-fx: hardware stamped from --gpu and --hardware") {
  TempDir tmp;
  std::ofstream(tmp.file("hw.json")) << R"({"gpu": "H200", "inter_node_gbps": 25})";
  CliResult r = run_cli("import-fx -q " + source_path("testdata/fx/fsdp_post_grad.py") + " -o " +
                        tmp.file("g.json") + " --hardware " + tmp.file("hw.json") +
                        " --gpus-per-node 4 --name llama-rank3 --rank 3");
  REQUIRE(r.exit_code == 0);
  Graph g = read_graph_file(tmp.file("g.json"));
  CHECK(g.hardware["gpu"] == "H200");
  CHECK(g.hardware["gpus_per_node"] == 4);
  CHECK(g.hardware["inter_node_gbps"] == 25);
  CHECK(g.name == "llama-rank3");
  CHECK(g.rank == 3);
  std::ofstream(tmp.file("bad_hw.json")) << R"({"inter_node_gbps": -1})";
  r = run_cli("import-fx -q " + source_path("testdata/fx/fsdp_post_grad.py") + " -o " +
              tmp.file("h.json") + " --hardware " + tmp.file("bad_hw.json"));
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("hardware: ") != std::string::npos);
}

TEST_CASE("import-fx: regression inputs in testdata/fx/invalid fail cleanly") {
  // Inputs the fuzzer (tests/fuzz/fuzz_fx_import.cpp) found; each must give
  // exit 2, one line naming the file and line, and no output.
  // File -> the fuzz target's options as flags, and the expected message.
  const std::map<std::string, std::pair<std::string, std::string>> expected = {
      {"fuzz_non_utf8.py", {"", "not UTF-8 text (byte 0x"}},
      {"fuzz_negative_size.py", {"--world-size 8 --hint s0=64", "negative size"}},
      // Dicts become lists of pairs: 30 nested dicts are 60 lists, past what
      // a graph file can hold (it read back as "nested deeper than 64").
      {"fuzz_deep_dicts.py", {"", "argument nested deeper than 58 lists"}},
  };
  size_t seen = 0;
  TempDir tmp;
  for (const auto& e : std::filesystem::directory_iterator(source_path("testdata/fx/invalid"))) {
    const std::string name = e.path().filename().string();
    INFO(name);
    REQUIRE(expected.count(name));
    CliResult r = run_cli("import-fx " + e.path().string() + " -o " + tmp.file("out.json") + " " +
                          expected.at(name).first);
    CHECK(r.exit_code == 2);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK(r.err.find(e.path().string() + ":") != std::string::npos);
    CHECK(r.err.find(expected.at(name).second) != std::string::npos);
    CHECK(tmp.entries() == 0);
    ++seen;
  }
  CHECK(seen == expected.size());
}

TEST_CASE("escape and the UTF-8 check agree on what is UTF-8") {
  // RFC 3629: U+00E9 and U+1F600 are well formed; an overlong '/' (C0 AF),
  // a surrogate (ED A0 80), a truncated sequence and 0xFF are not.
  CHECK(escape_line("caf\xc3\xa9 \xf0\x9f\x98\x80") == "caf\xc3\xa9 \xf0\x9f\x98\x80");
  CHECK(invalid_utf8_offset("caf\xc3\xa9 \xf0\x9f\x98\x80") == std::string_view::npos);
  CHECK(escape_line("a\xc0\xaf") == "a\\xC0\\xAF");
  CHECK(invalid_utf8_offset("a\xc0\xaf") == 1);
  CHECK(escape_line("\xed\xa0\x80") == "\\xED\\xA0\\x80");
  CHECK(invalid_utf8_offset("ok\xed\xa0\x80") == 2);
  CHECK(invalid_utf8_offset("\xe2\x82") == 0);
  CHECK(escape_line("\xff") == "\\xFF");
}

TEST_CASE("import-fx: a negative storage_offset in load_args is an error on its line") {
  std::string text = read_text(source_path("testdata/fx/repro_load_args.py"));
  const std::string leaf = "reader.tensor(buf0, (128, 512), is_leaf=True)";
  const size_t at = text.find(leaf);
  REQUIRE(at != std::string::npos);
  text.replace(at, leaf.size(), "reader.tensor(buf0, (128, 512), storage_offset=-4, is_leaf=True)");
  const std::string err = import_error(text);
  CHECK(err.find("g.py:48: load_args: negative storage_offset -4") != std::string::npos);
  // Zero and positive offsets are kept.
  text.replace(text.find("storage_offset=-4"), 17, "storage_offset=16");
  CHECK(import_error(text).empty());
}

TEST_CASE("import-fx: every literal PyTorch prints in an argument") {
  const std::string text = R"(class GraphModule(torch.nn.Module):
    def forward(self, arg0_1: "f32[4, 8][8, 1]cuda:0", arg1_1: "u64[2][1]cuda:0", arg2_1: "c32[4][1]cuda:0", arg3_1: "f8e8m0fnu[4][1]cuda:0", arg4_1: "b16x1[4][1]cuda:0"):
        eq: "b8[4, 8][8, 1]cuda:0" = torch.ops.aten.eq.Scalar(arg0_1, -inf)
        fill: "f32[4, 8][8, 1]cuda:0" = torch.ops.aten.masked_fill.Scalar(arg0_1, eq, inf)
        ne: "b8[4, 8][8, 1]cuda:0" = torch.ops.aten.ne.Scalar(fill, nan)
        full: "f32[4, 8][8, 1]cuda:0" = torch.ops.aten.full.default([4, 8], float('-inf'), dtype = torch.float32, layout = torch.strided, device = device(type='cuda', index=0), pin_memory = False)
        clone: "f32[4, 8][8, 1]cuda:0" = torch.ops.aten.clone.default(full, memory_format = torch.contiguous_format)
        getitem: "f32[4, 4][8, 1]cuda:0" = arg0_1[(slice(None, None, None), slice(None, 4, None))]
        getitem_1: "f32[4, 8][8, 1]cuda:0" = arg0_1[(Ellipsis, None)]
        mul: "c64[4][1]cuda:0" = torch.ops.aten.mul.Scalar(arg2_1, 1j)
        add: "c64[4][1]cuda:0" = torch.ops.aten.add.Scalar(mul, (1.5+2j))
        sub: "c64[4][1]cuda:0" = torch.ops.aten.sub.Scalar(add, -2.5j)
        return (ne, clone, getitem, getitem_1, sub)
)";
  const Graph g = import_fx_text(text, "lit.py", {}).graph;
  const double inf = std::numeric_limits<double>::infinity();
  CHECK(node(g, "eq").args[1].kind == Value::Kind::Float);
  CHECK(node(g, "eq").args[1].f == -inf);
  CHECK(node(g, "fill").args[2].f == inf);
  CHECK(std::isnan(node(g, "ne").args[1].f));
  CHECK(node(g, "full").args[1].f == -inf);
  CHECK(node(g, "full").kwarg("layout")->str() == "torch.strided");
  CHECK(node(g, "clone").kwarg("memory_format")->str() == "torch.contiguous_format");
  // Python-level indices are kept as Python writes them.
  const Value& index = node(g, "getitem").args[1];
  REQUIRE(index.items().size() == 2);
  CHECK(index.items()[1].str() == "slice(None, 4, None)");
  CHECK(node(g, "getitem_1").args[1].items()[0].str() == "Ellipsis");
  CHECK(node(g, "getitem_1").args[1].items()[1].kind == Value::Kind::Null);
  // Complex numbers, which the format cannot hold as numbers: Python's text.
  CHECK(node(g, "mul").args[1].str() == "1j");
  CHECK(node(g, "add").args[1].str() == "(1.5+2j)");
  CHECK(node(g, "sub").args[1].str() == "-2.5j");
  // torch.fx's dtype abbreviations, with torch's item sizes.
  CHECK(node(g, "arg1_1").output()->dtype == DType::UInt64);
  CHECK(dtype_itemsize(DType::UInt64) == 8);
  CHECK(node(g, "arg2_1").output()->dtype == DType::Complex32);
  CHECK(dtype_itemsize(DType::Complex32) == 4);
  CHECK(node(g, "arg3_1").output()->dtype == DType::Float8E8M0FNU);
  CHECK(node(g, "arg4_1").output()->dtype == DType::Bits16);
  CHECK(dtype_itemsize(DType::Bits16) == 2);

  // Non-finite floats survive JSON ({"float": "-inf"}) and protobuf.
  TempDir tmp;
  for (const char* ext : {".json", ".pb"}) {
    INFO(ext);
    const std::string path = tmp.file(std::string("g") + ext);
    write_graph_file(path, g);
    const Graph back = read_graph_file(path);
    CHECK(node(back, "eq").args[1].f == -inf);
    CHECK(std::isnan(node(back, "ne").args[1].f));
    CHECK(node(back, "arg1_1").output()->dtype == DType::UInt64);
  }
  CHECK(graph_to_json_text(g).find(R"({"float":"-inf"})") != std::string::npos);
}

TEST_CASE("import-fx: slice_scatter keeps self's layout; prims.fma is pointwise") {
  // Expected values are PyTorch 2.15's meta results for the same calls.
  const std::string text = R"(class GraphModule(torch.nn.Module):
    def forward(self, arg0_1: "f32[8, 4][1, 8]cuda:0", arg1_1: "f32[2, 4][4, 1]cuda:0", arg2_1: "f32[4][1]cuda:0"):
        slice_scatter = torch.ops.aten.slice_scatter.default(arg0_1, arg1_1, 0, 0, 2)
        fma = torch.ops.prims.fma.default(arg1_1, arg1_1, arg2_1)
        eq = torch.ops.aten.eq.Scalar(slice_scatter, -inf)
        return (slice_scatter, fma, eq)
)";
  const Graph g = import_fx_text(text, "sc.py", {}).graph;
  CHECK(shape(g, "slice_scatter") == std::vector<int64_t>{8, 4});
  CHECK(stride(g, "slice_scatter") == std::vector<int64_t>{1, 8});
  CHECK(node(g, "slice_scatter").output()->dtype == DType::Float32);
  // [2, 4] * [2, 4] + [4] broadcasts to [2, 4], contiguous.
  CHECK(shape(g, "fma") == std::vector<int64_t>{2, 4});
  CHECK(stride(g, "fma") == std::vector<int64_t>{4, 1});
  // A comparison of a column-major tensor: bool, in its layout.
  CHECK(shape(g, "eq") == std::vector<int64_t>{8, 4});
  CHECK(stride(g, "eq") == std::vector<int64_t>{1, 8});
  CHECK(node(g, "eq").output()->dtype == DType::Bool);
}
