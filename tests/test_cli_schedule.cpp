// The schedule command end to end through the binary.

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "test_support.h"

using namespace osched::test;

TEST_CASE("schedule writes graph + report, verify passes, reruns are byte-identical") {
  TempDir tmp;
  std::string in = source_path("testdata/example_llama_fsdp.json");
  CliResult r = run_cli("schedule " + in + " -o " + tmp.file("a.json") + " --report " +
                        tmp.file("a.rep.json"));
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.find("simulated step:") != std::string::npos);
  CHECK(run_cli("verify " + in + " " + tmp.file("a.json")).exit_code == 0);
  r = run_cli("schedule " + in + " -o " + tmp.file("b.pb") + " --report " + tmp.file("b.rep.json") +
              " -q");
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.empty());
  CHECK(read_text(tmp.file("a.rep.json")) == read_text(tmp.file("b.rep.json")));
  CHECK(run_cli("verify " + in + " " + tmp.file("b.pb")).exit_code == 0);
  auto rep = nlohmann::json::parse(read_text(tmp.file("a.rep.json")));
  for (const char* key :
       {"tool", "input", "config", "counts", "memory", "greedy", "simulation", "collectives"})
    CHECK(rep.contains(key));
  CHECK(rep["config"]["max_in_flight_gb"] == 5.0);
  CHECK(rep["config"]["max_compute_pre_fetch"] == 200);
}

TEST_CASE("schedule options from --config, overridden by flags") {
  TempDir tmp;
  std::ofstream(tmp.file("cfg.json")) << R"({"max_in_flight_gb": 2.5, "max_coll_distance": 50,
    "runtime_estimates": ")" << source_path("testdata/scenarios/estimates_unit.json")
                                      << R"("})";
  std::string in = source_path("testdata/scenarios/sink_waits.json");
  CliResult r =
      run_cli("schedule " + in + " -o " + tmp.file("o.json") + " --report " + tmp.file("r.json") +
              " --config " + tmp.file("cfg.json") + " --max-coll-distance 7 -q");
  REQUIRE(r.exit_code == 0);
  auto rep = nlohmann::json::parse(read_text(tmp.file("r.json")));
  CHECK(rep["config"]["max_in_flight_gb"] == 2.5);
  CHECK(rep["config"]["max_coll_distance"] == 7);
  CHECK(rep["collectives"][0]["estimate_source"] == "custom");
}

TEST_CASE("schedule rejects bad options with exit 2 and writes nothing") {
  TempDir tmp;
  std::string in = source_path("testdata/scenarios/sink_waits.json");
  std::string out = " -o " + tmp.file("o.json") + " --report " + tmp.file("r.json");
  CliResult r = run_cli("schedule " + in + out + " --max-in-flight-gb -1");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--max-in-flight-gb") != std::string::npos);
  r = run_cli("schedule " + in + out + " --collective-estimator magic");
  CHECK(r.exit_code == 2);
  std::ofstream(tmp.file("bad_cfg.json")) << R"({"max_in_flght_gb": 1})";
  r = run_cli("schedule " + in + out + " --config " + tmp.file("bad_cfg.json"));
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("max_in_flght_gb: unknown option") != std::string::npos);
  std::ofstream(tmp.file("est.json")) << R"({"ops": {"aten.mm.default": "fast"}})";
  r = run_cli("schedule " + in + out + " --runtime-estimates " + tmp.file("est.json"));
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("ops.aten.mm.default") != std::string::npos);
  // --sim-model names a file of its own, never stdout nor another output.
  r = run_cli("schedule " + in + out + " --sim-model -");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--sim-model: needs a file path") != std::string::npos);
  r = run_cli("schedule " + in + out + " --sim-model " + tmp.file("r.json"));
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--sim-model") != std::string::npos);
  CHECK(tmp.entries() == 2); // only the two inputs written above
}

TEST_CASE("schedule --sim-model writes the written graph's model: its nodes in order, each "
          "collective's wait, and times that sum to the report's compute") {
  TempDir tmp;
  CliResult r =
      run_cli("schedule " + source_path("testdata/fsdp_tiny.json") + " -o " + tmp.file("o.json") +
              " --report " + tmp.file("r.json") + " --sim-model " + tmp.file("m.json") + " -q");
  REQUIRE(r.exit_code == 0);
  auto model = nlohmann::json::parse(read_text(tmp.file("m.json")));
  auto graph = nlohmann::json::parse(read_text(tmp.file("o.json")));
  auto rep = nlohmann::json::parse(read_text(tmp.file("r.json")));
  CHECK(model["format"] == "overlap-sched.sim-model");
  REQUIRE(model["nodes"].size() == graph["nodes"].size());
  double compute = 0;
  int collectives = 0, waits = 0;
  for (size_t i = 0; i < model["nodes"].size(); ++i) {
    const auto& n = model["nodes"][i];
    CHECK(n["name"] == graph["nodes"][i]["name"]);
    const std::string role = n["role"];
    if (role == "compute" || role == "reader")
      compute += n["ms"].get<double>();
    if (role == "collective") {
      ++collectives;
      CHECK(n["group"].get<int>() >= 0);
    }
    for (const auto& c : n["waits_on"]) {
      ++waits;
      CHECK(model["nodes"][c.get<size_t>()]["role"] == "collective");
      CHECK(c.get<size_t>() < i);
    }
  }
  CHECK(collectives == rep["counts"]["collectives"].get<int>());
  CHECK(waits >= collectives);
  CHECK(compute == Approx(rep["simulation"]["compute_ms"].get<double>()).margin(1e-6)); // rounded
}

TEST_CASE("schedule reads the graph from stdin once and matches the file result") {
  TempDir tmp;
  std::string in = source_path("testdata/fsdp_tiny.json");
  REQUIRE(run_cli("schedule - -o " + tmp.file("a.json") + " --report " + tmp.file("a.r.json") +
                  " -q < " + in)
              .exit_code == 0);
  REQUIRE(run_cli("schedule " + in + " -o " + tmp.file("b.json") + " --report " +
                  tmp.file("b.r.json") + " -q")
              .exit_code == 0);
  CHECK(read_text(tmp.file("a.json")) == read_text(tmp.file("b.json")));
  CHECK(read_text(tmp.file("a.r.json")) == read_text(tmp.file("b.r.json")));
}

TEST_CASE("preserve-group-order keeps each group's issue order, which the default changes") {
  TempDir tmp;
  std::string in = source_path("testdata/example_llama_fsdp.json");
  REQUIRE(run_cli("schedule " + in + " -o " + tmp.file("d.json") + " --report " +
                  tmp.file("d.r.json") + " -q --cost-model compute-only")
              .exit_code == 0);
  CHECK(run_cli("verify " + in + " " + tmp.file("d.json")).exit_code == 0);
  CliResult v = run_cli("verify --group-order " + in + " " + tmp.file("d.json"));
  CHECK(v.exit_code == 1);
  CHECK(v.err.find("changing the group's issue order") != std::string::npos);

  std::ofstream(tmp.file("cfg.json")) << R"({"preserve_group_order": true})";
  REQUIRE(run_cli("schedule " + in + " -o " + tmp.file("p.json") + " --report " +
                  tmp.file("p.r.json") + " --config " + tmp.file("cfg.json") +
                  " -q --cost-model compute-only")
              .exit_code == 0);
  CHECK(run_cli("verify --group-order " + in + " " + tmp.file("p.json")).exit_code == 0);
  auto d = nlohmann::json::parse(read_text(tmp.file("d.r.json")));
  auto p = nlohmann::json::parse(read_text(tmp.file("p.r.json")));
  CHECK(p["config"]["preserve_group_order"] == true);
  CHECK(d["config"]["preserve_group_order"] == false);
  // Keeping the order gives up overlap upstream finds.
  CHECK(p["simulation"]["step_ms_after"].get<double>() >=
        d["simulation"]["step_ms_after"].get<double>());
  // The flag form, and bucketing under it, keep the order too.
  REQUIRE(run_cli("schedule " + in + " -o " + tmp.file("b.json") +
                  " --preserve-group-order --collective-bucketing -q")
              .exit_code == 0);
  CHECK(run_cli("verify --group-order " + in + " " + tmp.file("b.json")).exit_code == 0);
}
