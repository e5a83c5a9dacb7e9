// validate / convert / stats / verify through the real binary.

#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>

#include "format/graph_file.h"
#include "format/json_io.h"
#include "test_support.h"

using namespace osched;
using namespace osched::test;

TEST_CASE("validate, convert and stats on a valid graph") {
  std::string g = source_path("testdata/tp_two_groups.json");
  CliResult r = run_cli("validate " + g);
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("ok (15 nodes)") != std::string::npos);

  TempDir tmp;
  r = run_cli("convert " + g + " " + tmp.file("a.pb"));
  REQUIRE(r.exit_code == 0);
  r = run_cli("convert " + tmp.file("a.pb") + " " + tmp.file("b.json"));
  REQUIRE(r.exit_code == 0);
  CHECK(read_text(tmp.file("b.json")) == graph_to_json_text(read_graph_file(g)));
  r = run_cli("convert --to pb - - < " + g);
  CHECK(r.exit_code == 0);
  CHECK(r.out == read_text(tmp.file("a.pb")));

  r = run_cli("stats --json " + g);
  REQUIRE(r.exit_code == 0);
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["compute_nodes"] == 3);
  CHECK(j["collectives"] == 3);
  CHECK(j["groups"]["tp"]["count"] == 2);
  CHECK(j["groups"]["dp"]["count"] == 1);
  CHECK(j["groups"]["tp"]["bytes"] == 2 * 64 * 256 * 4);
  r = run_cli("stats " + g);
  CHECK(r.out.find("group dp: 1 collectives") != std::string::npos);
}

TEST_CASE("cli prints version and help") {
  CliResult r = run_cli("--version");
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("overlap-sched ") == 0);
  r = run_cli("--help");
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("Examples:") != std::string::npos);
}

namespace {

// Writes g with nodes a and b swapped.
std::string write_swapped(const TempDir& tmp, Graph g, const std::string& a, const std::string& b) {
  auto ia = *g.find(a), ib = *g.find(b);
  nlohmann::json doc = graph_to_json(g);
  std::swap(doc["nodes"][ia], doc["nodes"][ib]);
  std::string path = tmp.file("swapped.json");
  std::ofstream(path) << doc.dump();
  return path;
}

} // namespace

TEST_CASE("verify accepts legal reorders and reports the first violation") {
  TempDir tmp;
  std::string orig = source_path("testdata/tp_two_groups.json");
  Graph g = read_graph_file(orig);
  CHECK(run_cli("verify " + orig + " " + orig).exit_code == 0);

  // Independent nodes may swap.
  CliResult r = run_cli("verify " + orig + " " + write_swapped(tmp, g, "w2", "grad_w_prev"));
  CHECK(r.exit_code == 0);

  // A data dependency broken.
  r = run_cli("verify " + orig + " " + write_swapped(tmp, g, "mm1", "ar_tp1"));
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("data dependency violated: 'ar_tp1'") != std::string::npos);

  // Two collectives of one group swapped: legal (upstream may do it), except
  // under --group-order.
  std::string sgo = source_path("testdata/scenarios/default_comms_ordering.json");
  std::string swapped = write_swapped(tmp, read_graph_file(sgo), "all_reduce", "all_reduce_1");
  CHECK(run_cli("verify " + sgo + " " + swapped).exit_code == 0);
  r = run_cli("verify --group-order " + sgo + " " + swapped);
  CHECK(r.exit_code == 1);
  CHECK(r.err.find(
            "process group '0': collective 'all_reduce_1' is now issued before 'all_reduce'") !=
        std::string::npos);

  // Missing node.
  nlohmann::json doc = graph_to_json(g);
  doc["nodes"].erase(doc["nodes"].begin() + 4);
  std::ofstream(tmp.file("missing.json")) << doc.dump();
  r = run_cli("verify " + orig + " " + tmp.file("missing.json"));
  CHECK(r.exit_code != 0);
}

TEST_CASE("verify checks control dependencies of the original") {
  TempDir tmp;
  nlohmann::json doc = graph_to_json(read_graph_file(source_path("testdata/tp_two_groups.json")));
  // x must come before grad_w_prev by a control dep in the "original".
  doc["nodes"][3]["control_deps"] = {"x"};
  std::ofstream(tmp.file("orig.json")) << doc.dump();
  std::swap(doc["nodes"][0], doc["nodes"][3]);
  doc["nodes"][0].erase("control_deps");
  std::ofstream(tmp.file("re.json")) << doc.dump();
  CliResult r = run_cli("verify " + tmp.file("orig.json") + " " + tmp.file("re.json"));
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("control dependency violated") != std::string::npos);
}

TEST_CASE("CLI: option-parse errors are one error line, exit 2") {
  for (const char* args : {"schedule testdata/fsdp_tiny.json -o /tmp/x.json --max-in-flight-gb abc",
                           "stats --graph -2", "schedule"}) {
    INFO(args);
    const CliResult r = run_cli(args);
    CHECK(r.exit_code == 2);
    CHECK(r.err.rfind("error: ", 0) == 0);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  }
}

TEST_CASE("CLI: an error line is at most 2048 bytes, newline included, and cuts no escape") {
  TempDir tmp;
  const std::string cfg = tmp.file("c.json");
  std::ofstream(cfg) << "{\"" << std::string(1 << 20, 'k') << "\": 1}";
  CliResult r = run_cli("schedule " + source_path("testdata/fsdp_tiny.json") + " -o " +
                        tmp.file("o.json") + " --config " + cfg);
  CHECK(r.exit_code == 2);
  CHECK(r.err.size() <= 2048);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK(r.err.find("more bytes)") != std::string::npos);
  // A key of escapes: the cut falls between two of them.
  std::string key;
  for (int i = 0; i < 3000; ++i)
    key += "\\u0001";
  std::ofstream(cfg) << "{\"" << key << "\": 1}";
  r = run_cli("schedule " + source_path("testdata/fsdp_tiny.json") + " -o " + tmp.file("o.json") +
              " --config " + cfg);
  CHECK(r.err.size() <= 2048);
  const size_t cut = r.err.find("... (");
  REQUIRE(cut != std::string::npos);
  CHECK(r.err.substr(cut - 4, 4) == "\\x01");
}
