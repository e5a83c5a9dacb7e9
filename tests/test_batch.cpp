// batch: a mixed directory (one bad graph never stops the others), mirrored
// names, resume after a partial run, up-to-date skipping and its
// invalidation, and identical outputs for any -j.

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "test_support.h"

using namespace osched;
using namespace osched::test;
namespace fs = std::filesystem;

namespace {

// in/a.json, in/b.json, in/sub/tiny.json, in/sub/bad.json (invalid),
// in/sub/notes.txt (not a graph).
void make_inputs(const TempDir& tmp) {
  fs::create_directories(tmp.path / "in" / "sub");
  fs::copy_file(source_path("testdata/scenarios/sink_waits.json"), tmp.path / "in" / "a.json");
  fs::copy_file(source_path("testdata/scenarios/multi_group.json"), tmp.path / "in" / "b.json");
  fs::copy_file(source_path("testdata/fsdp_tiny.json"), tmp.path / "in" / "sub" / "tiny.json");
  fs::copy_file(source_path("testdata/invalid/negative_dim.json"),
                tmp.path / "in" / "sub" / "bad.json");
  std::ofstream(tmp.path / "in" / "sub" / "notes.txt") << "not a graph";
}

std::vector<nlohmann::json> summary(const TempDir& tmp, const std::string& out) {
  std::vector<nlohmann::json> rows;
  std::ifstream in(tmp.file(out + "/summary.jsonl"));
  for (std::string line; std::getline(in, line);)
    rows.push_back(nlohmann::json::parse(line));
  return rows;
}

std::vector<std::string> statuses(const std::vector<nlohmann::json>& rows) {
  std::vector<std::string> s;
  for (const auto& r : rows)
    s.push_back(fs::path(r["input"].get<std::string>()).filename().string() + ":" +
                r["status"].get<std::string>());
  return s;
}

} // namespace

TEST_CASE("batch: mixed directory, mirrored names, failures collected") {
  TempDir tmp;
  make_inputs(tmp);
  CliResult r = run_cli("batch " + tmp.file("in") + " -o " + tmp.file("out") + " -j 2");
  CHECK(r.exit_code == 2); // one graph failed
  auto rows = summary(tmp, "out");
  CHECK(statuses(rows) ==
        std::vector<std::string>{"a.json:ok", "b.json:ok", "bad.json:failed", "tiny.json:ok"});
  CHECK(rows[2]["error"].get<std::string>().find("bad.json: node 'mm': val.shape[1]: negative "
                                                 "dimension -4") != std::string::npos);
  for (const char* f : {"out/a.json", "out/a.report.json", "out/a.osched-stamp.json",
                        "out/sub/tiny.json", "out/sub/tiny.report.json", "out/summary.csv"}) {
    INFO(f);
    CHECK(fs::exists(tmp.file(f)));
  }
  CHECK_FALSE(fs::exists(tmp.file("out/sub/bad.json")));
  // Each output is what schedule writes for that graph.
  REQUIRE(run_cli("schedule " + tmp.file("in/sub/tiny.json") + " -o " + tmp.file("one.json") +
                  " --report " + tmp.file("one.report.json") + " -q")
              .exit_code == 0);
  CHECK(read_text(tmp.file("out/sub/tiny.json")) == read_text(tmp.file("one.json")));
  CHECK(read_text(tmp.file("out/sub/tiny.report.json")) == read_text(tmp.file("one.report.json")));
  CHECK(run_cli("verify " + tmp.file("in/a.json") + " " + tmp.file("out/a.json")).exit_code == 0);
  // The table names the failure on one line under it; the CSV has a row per graph.
  CHECK(r.out.find("4 graphs: 3 scheduled, 0 up to date, 1 failed in ") != std::string::npos);
  CHECK(r.out.find("FAILED") != std::string::npos);
  const std::string csv = read_text(tmp.file("out/summary.csv"));
  CHECK(std::count(csv.begin(), csv.end(), '\n') == 5);
}

TEST_CASE("batch: reruns skip what is up to date, and redo what changed") {
  TempDir tmp;
  make_inputs(tmp);
  fs::remove(tmp.path / "in" / "sub" / "bad.json");
  const std::string cmd = "batch " + tmp.file("in") + " -o " + tmp.file("out") + " -q";
  REQUIRE(run_cli(cmd).exit_code == 0);
  // A partial earlier run: one output lost.
  fs::remove(tmp.file("out/b.json"));
  REQUIRE(run_cli(cmd).exit_code == 0);
  CHECK(statuses(summary(tmp, "out")) ==
        std::vector<std::string>{"a.json:skipped", "b.json:ok", "tiny.json:skipped"});
  // An input changed: only it is redone.
  fs::copy_file(source_path("testdata/scenarios/raise_comms.json"), tmp.path / "in" / "a.json",
                fs::copy_options::overwrite_existing);
  REQUIRE(run_cli(cmd).exit_code == 0);
  CHECK(statuses(summary(tmp, "out")) ==
        std::vector<std::string>{"a.json:ok", "b.json:skipped", "tiny.json:skipped"});
  // Other options: everything is redone; --force too.
  REQUIRE(run_cli(cmd + " --max-in-flight-gb 1").exit_code == 0);
  CHECK(statuses(summary(tmp, "out")) ==
        std::vector<std::string>{"a.json:ok", "b.json:ok", "tiny.json:ok"});
  REQUIRE(run_cli(cmd + " --max-in-flight-gb 1 --force").exit_code == 0);
  CHECK(statuses(summary(tmp, "out")) ==
        std::vector<std::string>{"a.json:ok", "b.json:ok", "tiny.json:ok"});
}

TEST_CASE("batch: outputs and summary are the same for any -j, list files too") {
  TempDir tmp;
  make_inputs(tmp);
  std::ofstream(tmp.file("list.txt")) << "# graphs\n"
                                      << tmp.file("in/a.json") << "\n"
                                      << tmp.file("in/sub") << "\n";
  for (const char* j : {"1", "3"})
    CHECK(run_cli(std::string("batch --list ") + tmp.file("list.txt") + " " +
                  tmp.file("in/b.json") + " -o " + tmp.file(std::string("out") + j) + " -q -j " +
                  j + " --collective-bucketing")
              .exit_code == 2);
  for (const char* f : {"a.json", "a.report.json", "b.json", "tiny.json", "tiny.report.json",
                        "summary.jsonl", "summary.csv"}) {
    INFO(f);
    CHECK(read_text(tmp.file(std::string("out1/") + f)) ==
          read_text(tmp.file(std::string("out3/") + f)));
  }
  // A list names files directly: they mirror by file name.
  CHECK(fs::exists(tmp.file("out1/tiny.json")));
  // Bad invocations: exit 2, nothing scheduled.
  for (const std::string& bad :
       std::vector<std::string>{tmp.file("missing") + " -o " + tmp.file("o"),
                                tmp.file("in") + " -o " + tmp.file("o") + " -j 0",
                                tmp.file("in/sub/notes.txt") + " -o " + tmp.file("o"),
                                tmp.file("in") + " -o " + tmp.file("o") + " --runtime-estimates " +
                                    tmp.file("in/sub/notes.txt")}) {
    INFO(bad);
    CliResult r = run_cli("batch " + bad);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("internal") == std::string::npos);
  }
}
