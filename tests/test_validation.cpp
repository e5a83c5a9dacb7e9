// Every invalid input gives one line "FILE: node 'NAME': field: what", exit 2,
// and no output file.

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>

#include "test_support.h"
#include "validate/validate.h"

using namespace osched::test;

namespace {

struct Case {
  const char* file;
  const char* message; // expected substring of the single error line
};

const Case kCases[] = {
    {"duplicate_name.json", "node 'relu': name: duplicate node name"},
    {"unknown_ref.json", "node 'relu': args[0]: references unknown node 'nope'"},
    {"later_ref.json", "node 'mm': args[0]: references node 'mm_1' that does not come earlier"},
    {"control_cycle.json", "control_deps: cycle through control deps"},
    {"unknown_dtype.json", "node 'relu': val.dtype: unknown dtype 'float13'"},
    {"negative_dim.json", "node 'mm': val.shape[1]: negative dimension -4"},
    {"undeclared_group.json",
     "node 'all_reduce': group_name: process group '7' is not declared in process_groups"},
    {"missing_output.json", "nodes: missing output node"},
    {"output_not_last.json", "node 'output': op: the output node must be the last node"},
    {"bad_format.json", "format: expected \"overlap-sched.graph\""},
    {"bad_dim.json", "node 'mm': val.shape[0]: a dim must be an integer"},
    {"malformed.json", "malformed JSON: parse error at line 3"},
    {"malformed.pb", "malformed protobuf"},
    {"mutates_out_of_range.json",
     "node 'relu': mutates[0]: argument position 3 is out of range (the node has 1 arguments)"},
    {"mutates_unknown_kwarg.json",
     "node 'relu': mutates[0]: names keyword argument 'out', which the node does not have"},
    {"mutates_bad_entry.json", "node 'relu': mutates[0]: must be an array of argument positions"},
    // all_reduce keeps the element count: 4x4 in, 4x8 out.
    {"collective_wrong_size.json",
     "node 'all_reduce': val: output has 32 elements, but all_reduce of this input gives 16"},
    // group_size (4) disagrees with the declared group's two ranks.
    {"group_size_mismatch.json",
     "node 'all_reduce': group_size: 4 does not match process group '0' of 2 ranks"},
    {"all_gather_wrong_size.json",
     "node 'all_reduce': val: output has 16 elements, but all_gather of this input gives 32 (16 "
     "input elements x group size 2)"},
    {"legacy_rank_out_of_range.json", "node 'all_reduce': ranks: rank 5 is out of range"},
    // Output indices are 32-bit in the model: a bigger one is refused, not wrapped.
    {"output_index_too_big.json", "node 'relu': args[0].index: must be below 2^31"},
    {"long_target.json", "node 'relu': target: longer than 4096 bytes"},
    {"long_name.json",
     "node 'oooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooo...': name: longer "
     "than 4096 bytes"},
};

} // namespace

TEST_CASE("every file in testdata/invalid has its expected error in the table") {
  // Regression inputs (fuzzer finds among them) must say what they expect.
  for (const auto& e : std::filesystem::directory_iterator(source_path("testdata/invalid"))) {
    const std::string name = e.path().filename().string();
    INFO(name);
    CHECK(std::any_of(std::begin(kCases), std::end(kCases),
                      [&](const Case& c) { return name == c.file; }));
  }
}

TEST_CASE("invalid graphs: one clear line, exit 2, no output file") {
  for (const auto& c : kCases) {
    INFO(c.file);
    std::string path = source_path(std::string("testdata/invalid/") + c.file);
    TempDir tmp;
    std::string out = tmp.file("out.json");
    for (const std::string& cmd :
         {std::string("validate "), std::string("convert "), std::string("schedule ")}) {
      INFO(cmd);
      std::string args = cmd + "'" + path + "'";
      if (cmd == "convert ")
        args += " '" + out + "'";
      if (cmd == "schedule ")
        args += " -o '" + out + "' --report '" + tmp.file("report.json") + "'";
      CliResult r = run_cli(args);
      CHECK(r.exit_code == 2);
      CHECK(r.err == "error: " + path + ": " + r.err.substr(9 + path.size()));
      CHECK(r.err.find(c.message) != std::string::npos);
      CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
      CHECK(tmp.entries() == 0);
    }
  }
}

TEST_CASE("missing input file and bad options exit 2") {
  CliResult r = run_cli("validate /nonexistent/graph.json");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("/nonexistent/graph.json: cannot open") != std::string::npos);
  r = run_cli("validate --format yaml " + source_path("testdata/fsdp_tiny.json"));
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("unknown format 'yaml'") != std::string::npos);
  // Each format flag's error names that flag.
  r = run_cli("schedule " + source_path("testdata/fsdp_tiny.json") +
              " -o /tmp/osched_never_written.json --out-format bogus");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--out-format: unknown format 'bogus'") != std::string::npos);
  r = run_cli("schedule --format bogus " + source_path("testdata/fsdp_tiny.json") +
              " -o /tmp/osched_never_written.json");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--format: unknown format 'bogus'") != std::string::npos);
  r = run_cli("frobnicate");
  CHECK(r.exit_code == 2);
}

TEST_CASE("unwritable output directory exits 4 and leaves nothing") {
  CliResult r =
      run_cli("convert " + source_path("testdata/fsdp_tiny.json") + " /nonexistent-dir/out.json");
  CHECK(r.exit_code == 4);
  CHECK(r.err.find("/nonexistent-dir/out.json") != std::string::npos);
}

TEST_CASE("a string argument above 1 MiB is refused, naming node and argument") {
  osched::Graph g = osched::graph_from_json_text(read_text(source_path("testdata/fsdp_tiny.json")));
  osched::Node& n = g.nodes[*g.find("fwd_relu0")];
  n.args.push_back(osched::Value::string(std::string((size_t{1} << 20) + 1, 's')));
  const std::string field = "args[" + std::to_string(n.args.size() - 1) + "]";
  CHECK_THROWS_WITH(osched::validate_graph(g),
                    Catch::Contains("node 'fwd_relu0': " + field + ": string of 1048577 bytes"));
  // Inside a list, the path names the item.
  n.args.back() = osched::Value();
  n.args.back().kind = osched::Value::Kind::List;
  n.args.back().edit_items() = {osched::Value::string("ok"),
                                osched::Value::string(std::string((size_t{1} << 20) + 2, 's'))};
  CHECK_THROWS_WITH(osched::validate_graph(g),
                    Catch::Contains("node 'fwd_relu0': " + field + "[1]: string of 1048578 bytes"));
  n.args.back().edit_items() = {osched::Value::string(std::string(size_t{1} << 20, 's'))};
  CHECK_NOTHROW(osched::validate_graph(g));
}
