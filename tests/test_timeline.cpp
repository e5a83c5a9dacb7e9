// schedule --trace and --html: the simulated timelines as Chrome trace-event
// JSON (checked against the report's simulation) and the HTML page.

#include <catch2/catch.hpp>

#include <map>

#include "test_support.h"

using namespace osched;
using namespace osched::test;

namespace {

struct Interval {
  double start, end;
};

} // namespace

TEST_CASE("timeline: --trace writes both timelines as trace events that match the simulation") {
  TempDir tmp;
  const std::string g = source_path("testdata/tp_two_groups.json");
  CliResult r = run_cli("schedule " + g + " -o " + tmp.file("s.json") + " --report " +
                        tmp.file("r.json") + " --trace " + tmp.file("t.json") + " -q");
  REQUIRE(r.exit_code == 0);
  auto trace = nlohmann::json::parse(read_text(tmp.file("t.json")));
  auto report = nlohmann::json::parse(read_text(tmp.file("r.json")));
  REQUIRE(trace["traceEvents"].is_array());
  CHECK(trace["displayTimeUnit"] == "ms");
  std::map<int, std::string> processes;
  std::map<std::pair<int, int>, std::string> threads;
  std::map<std::pair<int, int>, std::vector<Interval>> busy;
  std::map<int, double> exposed_us, end_us;
  std::map<int, int> counters;
  for (const auto& e : trace["traceEvents"]) {
    const std::string ph = e["ph"];
    const int pid = e["pid"];
    if (ph == "M" && e["name"] == "process_name")
      processes[pid] = e["args"]["name"];
    if (ph == "M" && e["name"] == "thread_name")
      threads[{pid, e["tid"].get<int>()}] = e["args"]["name"];
    if (ph == "C")
      ++counters[pid];
    if (ph != "X")
      continue;
    REQUIRE(e.contains("name"));
    REQUIRE(e["args"].contains("op"));
    REQUIRE(e["args"].contains("estimate_ms"));
    const double ts = e["ts"], dur = e["dur"];
    CHECK(dur >= 0);
    end_us[pid] = std::max(end_us[pid], ts + dur);
    const std::string cat = e["cat"];
    if (cat == "exposed_wait") {
      CHECK(e["tid"] == 0);
      CHECK(e["args"].contains("waits_on"));
      exposed_us[pid] += dur;
    }
    if (cat == "collective")
      CHECK(e["args"]["bytes"].get<int64_t>() > 0);
    busy[{pid, e["tid"].get<int>()}].push_back({ts, ts + dur});
  }
  REQUIRE(processes.size() == 2);
  CHECK(processes[1].rfind("original order", 0) == 0);
  CHECK(processes[2].rfind("scheduled order", 0) == 0);
  for (int pid : {1, 2}) {
    CHECK(threads[{pid, 0}] == "compute");
    CHECK(threads[{pid, 1}] == "group dp");
    CHECK(threads[{pid, 2}] == "group tp");
    CHECK(counters[pid] > 0);
  }
  // One stream runs one thing at a time.
  for (auto& [key, v] : busy)
    for (size_t i = 1; i < v.size(); ++i)
      CHECK(v[i].start >= v[i - 1].end - 1e-3);
  // The compute stream's waits are the simulation's exposed time, and the
  // last interval ends with the step.
  const auto& sim = report["simulation"];
  CHECK(exposed_us[1] / 1000 == Approx(sim["exposed_comm_ms_before"].get<double>()).margin(2e-6));
  CHECK(exposed_us[2] / 1000 == Approx(sim["exposed_comm_ms_after"].get<double>()).margin(2e-6));
  CHECK(end_us[1] / 1000 == Approx(sim["step_ms_before"].get<double>()).margin(2e-6));
  CHECK(end_us[2] / 1000 == Approx(sim["step_ms_after"].get<double>()).margin(2e-6));
}

TEST_CASE("timeline: --html writes a self-contained page, the same on every run") {
  TempDir tmp;
  const std::string g = source_path("testdata/example_llama_fsdp.json");
  for (const char* name : {"a.html", "b.html"}) {
    CliResult r = run_cli("schedule " + g + " -o " + tmp.file("s.json") + " --html " +
                          tmp.file(name) + " -q --collective-bucketing --cost-model compute-only");
    REQUIRE(r.exit_code == 0);
  }
  const std::string page = read_text(tmp.file("a.html"));
  CHECK(page == read_text(tmp.file("b.html")));
  for (const char* part :
       {"<svg id=\"timeline-original\"", "<svg id=\"timeline-scheduled\"", "<table id=\"exposed\"",
        "<svg id=\"memory\"", "<pre id=\"summary\">", "32.794 ms &rarr;", "why_exposed"}) {
    INFO(part);
    if (std::string(part) == "why_exposed")
      CHECK(page.find("no compute node is independent of it") != std::string::npos);
    else
      CHECK(page.find(part) != std::string::npos);
  }
  // Nothing fetched, nothing run.
  CHECK(page.find("<script") == std::string::npos);
  CHECK(page.find("http://") == page.find("http://www.w3.org/2000/svg"));
  CHECK(page.find("https://") == std::string::npos);
}

TEST_CASE("timeline: --html lists an exposed bucket among the exposed collectives") {
  // Three all-gathers (1 ms each by the estimates) merged into one bucket;
  // only three small adds run beside them, so its transfer is exposed: the
  // written graph has one collective, exposed, and its members are not in it.
  TempDir tmp;
  CliResult r = run_cli(
      "schedule " + source_path("testdata/scenarios/basic_all_gather_bucketing.json") + " -o " +
      tmp.file("s.json") + " --html " + tmp.file("p.html") + " --report " + tmp.file("r.json") +
      " -q --collective-bucketing "
      "--runtime-estimates " +
      source_path("testdata/scenarios/estimates_unit.json"));
  REQUIRE(r.exit_code == 0);
  const std::string report = read_text(tmp.file("r.json"));
  REQUIRE(report.find("\"bucket\": \"bucket0_all_gather\"") != std::string::npos);
  const std::string page = read_text(tmp.file("p.html"));
  CHECK(page.find("<td>bucket0_all_gather</td>") != std::string::npos);
  CHECK(page.find("a bucket of 3 collectives") != std::string::npos);
  CHECK(page.find("None: every collective is hidden") == std::string::npos);
}

TEST_CASE("timeline: --trace and --html are refused where they would clash") {
  TempDir tmp;
  const std::string g = source_path("testdata/fsdp_tiny.json");
  for (const std::string& flags : std::vector<std::string>{
           "--trace " + tmp.file("s.json"), "--html -", "--trace " + g,
           "--report " + tmp.file("x.json") + " --html " + tmp.file("x.json")}) {
    INFO(flags);
    CliResult r = run_cli("schedule " + g + " -o " + tmp.file("s.json") + " -q " + flags);
    CHECK(r.exit_code == 2);
    CHECK(tmp.entries() == 0);
  }
}
