// --collective-bucketing and --insert-overlap-deps end to end: which
// collectives merge, what the rewritten graph holds, and that verify accepts it.

#include <catch2/catch.hpp>

#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "test_support.h"

using namespace osched::test;
using nlohmann::json;

namespace {

std::map<std::string, json> nodes_by_name(const json& g) {
  std::map<std::string, json> m;
  for (const auto& n : g["nodes"])
    m[n["name"].get<std::string>()] = n;
  return m;
}

std::set<std::string> deps_of(const json& node) {
  std::set<std::string> s;
  if (node.contains("control_deps"))
    for (const auto& d : node["control_deps"])
      s.insert(d.get<std::string>());
  return s;
}

} // namespace

TEST_CASE("bucketing merges same-group all-gathers hidden by the same matmul, across dtypes") {
  TempDir tmp;
  std::string in = source_path("testdata/scenarios/bucketing.json");
  std::string est = source_path("testdata/scenarios/estimates_bucketing.json");
  CliResult r =
      run_cli("schedule " + in + " -o " + tmp.file("o.json") + " --report " + tmp.file("r.json") +
              " --runtime-estimates " + est + " --collective-bucketing -q");
  REQUIRE(r.exit_code == 0);
  CHECK(run_cli("verify " + in + " " + tmp.file("o.json")).exit_code == 0);

  json rep = json::parse(read_text(tmp.file("r.json")));
  REQUIRE(rep["bucketing"]["buckets"].size() == 1);
  const json& b = rep["bucketing"]["buckets"][0];
  // ag_c is float32, the others bfloat16: gathers mix dtypes (upstream's
  // multidtype bucketing). ag_d: group 1; ag_e: hidden by mm2, not mm1.
  CHECK(b["members"] == json::array({"ag_a", "ag_b", "ag_c"}));
  CHECK(b["kind"] == "all_gather");
  CHECK(b["hiding_nodes"] == json::array({"mm1"}));
  CHECK(rep["bucketing"]["collectives_merged"] == 3);
  CHECK(rep["bucketing"]["collectives_after"] == 3);

  json g = json::parse(read_text(tmp.file("o.json")));
  auto n = nodes_by_name(g);
  for (const char* gone : {"ag_a", "ag_b", "ag_c", "ag_a_wait", "ag_b_wait", "ag_c_wait"})
    CHECK(n.count(gone) == 0);
  for (const char* kept : {"ag_d", "ag_e", "ag_d_wait"})
    CHECK(n.count(kept) == 1);
  const json& cat = n.at("bucket0_all_gather_cat");
  CHECK(cat["target"] == "overlap_sched.bucket_cat.default");
  CHECK(cat["args"][0] == json::array({{{"node", "a"}}, {{"node", "b"}}, {{"node", "c"}}}));
  // Mixed dtypes share a byte buffer: 2 x 64x64 bf16 + 64x64 f32.
  const int64_t bytes = 2 * 64 * 64 * 2 + 64 * 64 * 4;
  CHECK(cat["val"]["shape"] == json::array({bytes}));
  CHECK(cat["val"]["dtype"] == "uint8");
  const json& start = n.at("bucket0_all_gather");
  CHECK(start["args"][0] == json{{"node", "bucket0_all_gather_cat"}});
  CHECK(start["val"]["shape"] == json::array({4 * bytes}));
  CHECK(start["meta"]["overlap_sched"]["replaces"] == json::array({"ag_a", "ag_b", "ag_c"}));
  const json& split = n.at("bucket0_all_gather_split");
  CHECK(split["args"][1] == json::array({256 * 64, 256 * 64, 256 * 64}));
  CHECK(split["val"].size() == 3);
  CHECK(n.at("use_ag_a_wait")["args"][0] ==
        json{{"index", 0}, {"node", "bucket0_all_gather_split"}});
  CHECK(n.at("use_ag_b_wait")["args"][0] ==
        json{{"index", 1}, {"node", "bucket0_all_gather_split"}});

  // The merged collective starts before and is waited on after the matmul that hides it.
  std::map<std::string, size_t> pos;
  for (size_t i = 0; i < g["nodes"].size(); ++i)
    pos[g["nodes"][i]["name"].get<std::string>()] = i;
  CHECK(pos["bucket0_all_gather"] < pos["mm1"]);
  CHECK(pos["mm1"] < pos["bucket0_all_gather_wait"]);
  CHECK(pos["bucket0_all_gather_wait"] + 1 == pos["bucket0_all_gather_split"]);
}

TEST_CASE("bucketing honours --bucket-max-gb") {
  TempDir tmp;
  std::string in = source_path("testdata/scenarios/bucketing.json");
  std::string est = source_path("testdata/scenarios/estimates_bucketing.json");
  // ag_a + ag_b move 81920 bytes (inputs + outputs); allow only 60000.
  CliResult r = run_cli("schedule " + in + " -o " + tmp.file("o.json") + " --report " +
                        tmp.file("r.json") + " --runtime-estimates " + est +
                        " --collective-bucketing --bucket-max-gb 0.0000558 -q");
  REQUIRE(r.exit_code == 0);
  json rep = json::parse(read_text(tmp.file("r.json")));
  CHECK(rep["bucketing"]["buckets"].empty());
  CHECK(rep["bucketing"]["collectives_after"] == 5);
  CHECK(run_cli("schedule " + in + " -o " + tmp.file("x.json") +
                " --collective-bucketing --bucket-max-gb 0")
            .exit_code == 2);
}

TEST_CASE("bucketing the llama example keeps every member's overlap inside its bucket, "
          "deterministically") {
  TempDir tmp;
  std::string in = source_path("testdata/example_llama_fsdp.json");
  std::string args = " --collective-bucketing --insert-overlap-deps -q --cost-model compute-only";
  REQUIRE(run_cli("schedule " + in + " -o " + tmp.file("a.json") + " --report " +
                  tmp.file("a.r.json") + args)
              .exit_code == 0);
  REQUIRE(run_cli("schedule " + in + " -o " + tmp.file("b.json") + " --report " +
                  tmp.file("b.r.json") + args)
              .exit_code == 0);
  CHECK(read_text(tmp.file("a.json")) == read_text(tmp.file("b.json")));
  CHECK(read_text(tmp.file("a.r.json")) == read_text(tmp.file("b.r.json")));
  CHECK(run_cli("verify " + in + " " + tmp.file("a.json")).exit_code == 0);
  json rep = json::parse(read_text(tmp.file("a.r.json")));
  json out = json::parse(read_text(tmp.file("a.json")));
  // Independent of which buckets the planner picks: every bucket is one
  // group and kind, its members are gone from the graph, and every node
  // that hid a member lies between the bucket's start and its wait.
  std::map<std::string, size_t> pos;
  for (size_t i = 0; i < out["nodes"].size(); ++i)
    pos[out["nodes"][i]["name"]] = i;
  std::map<std::string, json> coll;
  for (const auto& c : rep["collectives"])
    coll[c["name"]] = c;
  // Each of the 4 layers prefetches several same-group all-gathers behind
  // one compute node in the forward and again in the backward: at least one
  // bucket per layer and direction.
  REQUIRE(rep["bucketing"]["buckets"].size() >= 8);
  for (const auto& b : rep["bucketing"]["buckets"]) {
    INFO(b.dump());
    REQUIRE(pos.count(b["name"]));
    size_t start = pos[b["name"]], wait = out["nodes"].size();
    for (size_t i = start + 1; i < out["nodes"].size(); ++i)
      if (out["nodes"][i]["target"] == "_c10d_functional.wait_tensor.default" &&
          out["nodes"][i]["args"][0].dump().find(b["name"].get<std::string>()) !=
              std::string::npos) {
        wait = i;
        break;
      }
    REQUIRE(wait < out["nodes"].size());
    for (const auto& m : b["members"]) {
      CHECK_FALSE(pos.count(m));
      CHECK(coll[m]["group"] == b["group"]);
      CHECK(coll[m]["kind"] == b["kind"]);
      for (const auto& h : coll[m]["hidden_by"]) {
        INFO(m << " hidden by " << h);
        CHECK(pos[h] > start);
        CHECK(pos[h] < wait);
      }
    }
  }
  for (const auto& b : rep["bucketing"]["buckets"])
    CHECK(b["size_bytes"].get<double>() <= 1024.0 * 1024 * 1024);
  // The final graph is simulated again; bucketing must not lose overlap
  // (both figures are rounded to 1e-6 ms in the report).
  CHECK(rep["bucketing"]["simulated_step_ms"].get<double>() <=
        rep["simulation"]["step_ms_after"].get<double>() + 1e-6);
  // A bucketed graph is valid input again.
  CHECK(run_cli("schedule " + tmp.file("a.json") + " -o " + tmp.file("c.json") + " -q").exit_code ==
        0);
}

TEST_CASE(
    "insert-overlap-deps pins start -> hiding compute -> wait for every fully hidden collective") {
  TempDir tmp;
  std::string in = source_path("testdata/example_llama_fsdp.json");
  REQUIRE(run_cli("schedule " + in + " -o " + tmp.file("o.json") + " --report " +
                  tmp.file("r.json") + " --insert-overlap-deps -q --cost-model compute-only")
              .exit_code == 0);
  CHECK(run_cli("verify " + in + " " + tmp.file("o.json")).exit_code == 0);
  json rep = json::parse(read_text(tmp.file("r.json")));
  auto n = nodes_by_name(json::parse(read_text(tmp.file("o.json"))));
  int expected = 0, hidden = 0;
  for (const auto& c : rep["collectives"]) {
    if (c["hidden_by"].empty() || c["exposed_ms"].get<double>() != 0)
      continue; // upstream pins only what is fully hidden
    ++hidden;
    std::string start = c["name"], wait = c["wait"];
    for (const auto& h : c["hidden_by"]) {
      std::string hn = h;
      bool coll = n.at(hn)["target"].get<std::string>().rfind("_c10d_functional.", 0) == 0;
      if (coll)
        continue; // collective-to-collective order is NCCL's stream order
      CHECK(deps_of(n.at(hn)).count(start) == 1);
      CHECK(deps_of(n.at(wait)).count(hn) == 1);
      expected += 2;
    }
  }
  CHECK(hidden > 10);
  CHECK(rep["overlap_deps"]["control_deps_added"] == expected);
}

TEST_CASE("bucketing gives buckets up rather than exceed the memory budget") {
  TempDir tmp;
  std::string in = source_path("testdata/example_llama_fsdp.json");
  REQUIRE(
      run_cli("schedule " + in + " -o " + tmp.file("o.json") + " --report " + tmp.file("r.json") +
              " --collective-bucketing --max-memory-increase-gb 0 --max-memory-increase-ratio 0 -q "
              "--cost-model compute-only")
          .exit_code == 0);
  CHECK(run_cli("verify " + in + " " + tmp.file("o.json")).exit_code == 0);
  json rep = json::parse(read_text(tmp.file("r.json")));
  const json& b = rep["bucketing"];
  int64_t limit = std::max(rep["memory"]["budget_bytes"].get<int64_t>(),
                           rep["memory"]["scheduled_peak_bytes"].get<int64_t>());
  CHECK(b["peak_bytes"].get<int64_t>() <= limit);
  CHECK(rep["memory"]["scheduled_peak_bytes"].get<int64_t>() <=
        rep["memory"]["budget_bytes"].get<int64_t>());
  CHECK(b["buckets"].size() >= 1);
  // Each bucket given up is listed with its reason, as many as counted.
  size_t memory = 0, time = 0;
  for (const json& u : b["given_up"]) {
    CHECK(u["members"].size() >= 2);
    memory += u["why"] == "memory";
    time += u["why"] == "time";
  }
  CHECK(memory == b["dropped_for_memory"].get<size_t>());
  CHECK(time == b["dropped_for_time"].get<size_t>());
}
