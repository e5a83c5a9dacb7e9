// diff: metric changes, collective changes, thresholds and exit codes, on
// hand-written reports (so every expectation is computed by hand) and on
// graphs scheduled by the command itself.

#include <catch2/catch.hpp>

#include <limits>

#include <fstream>

#include "errors/error.h"
#include "report/report_diff.h"
#include "test_support.h"

using namespace osched;
using namespace osched::test;

namespace {

// A minimal report: what diff reads.
nlohmann::json report(double step, double exposed, int64_t peak,
                      std::vector<std::tuple<std::string, double, double>> colls,
                      int buckets = -1) {
  nlohmann::json cs = nlohmann::json::array();
  int exposed_count = 0;
  for (const auto& [name, est, exp] : colls) {
    cs.push_back({{"name", name}, {"estimated_ms", est}, {"exposed_ms", exp}});
    exposed_count += exp > 0;
  }
  nlohmann::json r = {
      {"simulation",
       {{"step_ms_after", step}, {"exposed_comm_ms_after", exposed}, {"compute_ms", 10.0}}},
      {"memory", {{"scheduled_peak_bytes", peak}}},
      {"greedy", {{"hideable_exposed_ms", 0.5}}},
      {"counts",
       {{"collectives", colls.size()}, {"exposed", exposed_count}, {"partially_exposed", 0}}},
      {"collectives", cs}};
  if (buckets >= 0)
    r["bucketing"] = {{"buckets", nlohmann::json::array()}};
  for (int i = 0; i < buckets; ++i)
    r["bucketing"]["buckets"].push_back(nlohmann::json::object());
  return r;
}

const MetricChange& metric(const ReportDiff& d, const std::string& name) {
  for (const auto& m : d.metrics)
    if (m.name == name)
      return m;
  FAIL("no metric " << name);
  return d.metrics[0];
}

} // namespace

TEST_CASE("diff: metrics and collective changes") {
  auto base = report(20.0, 2.0, 1000,
                     {{"ag0", 1.0, 0.0}, {"ag1", 1.0, 0.5}, {"rs0", 2.0, 1.0}, {"gone", 1.0, 0.0}});
  auto next =
      report(20.5, 1.5, 1200,
             {{"ag0", 1.0, 0.25}, {"ag1", 1.0, 0.0}, {"rs0", 2.5, 1.0}, {"new", 1.0, 0.0}}, 3);
  ReportDiff d = diff_reports(base, next);
  CHECK(metric(d, "step_ms").delta() == Approx(0.5));
  CHECK(*metric(d, "step_ms").percent() == Approx(2.5));
  CHECK(metric(d, "exposed_ms").delta() == Approx(-0.5));
  CHECK(metric(d, "exposed_count").base == 2); // ag1, rs0
  CHECK(metric(d, "exposed_count").next == 2); // ag0, rs0
  CHECK(metric(d, "peak_bytes").delta() == 200);
  CHECK(metric(d, "buckets").base == 0);
  CHECK(metric(d, "buckets").next == 3);
  CHECK_FALSE(metric(d, "buckets").percent());
  std::vector<std::string> lines;
  for (const auto& c : d.collectives)
    lines.push_back(c.name + ":" + std::to_string(static_cast<int>(c.kind)));
  using K = CollectiveChange::Kind;
  auto code = [](const char* n, K k) {
    return std::string(n) + ":" + std::to_string(static_cast<int>(k));
  };
  CHECK(lines == std::vector<std::string>{code("ag0", K::BecameExposed),
                                          code("ag1", K::BecameHidden), code("gone", K::Removed),
                                          code("rs0", K::EstimateChanged), code("new", K::Added)});
}

TEST_CASE("diff: each threshold kind") {
  auto base = report(20.0, 2.0, 1000, {{"ag0", 1.0, 0.0}});
  auto next = report(20.5, 1.5, 1000, {{"ag0", 1.0, 0.25}});
  ReportDiff d = diff_reports(base, next);
  auto fails = [&](const std::string& spec) {
    auto ts = parse_thresholds(spec);
    return find_regressions(d, ts).size();
  };
  CHECK(fails("step_ms>+2%") == 1); // +2.5%
  CHECK(fails("step_ms>+3%") == 0);
  CHECK(fails("step_ms>+0.4") == 1);  // +0.5 ms absolute
  CHECK(fails("step_ms>+0.5") == 0);  // not past the limit
  CHECK(fails("peak_bytes>+0") == 0); // unchanged
  CHECK(fails("exposed_count>+0") == 1);
  CHECK(fails("exposed_count>+0%") == 1); // from 0: an unbounded rise
  CHECK(fails("exposed_ms<-0.4") == 1);   // a fall past the limit
  CHECK(fails("exposed_ms<-25%") == 0);   // -25% is not below -25%
  CHECK(fails("step_ms>+2%, peak_bytes>+0 ,exposed_count>+0") == 2);
  CHECK(fails("") == 0);
  for (const std::string bad :
       {"step_ms", "step>1", ">1", "step_ms>x", "step_ms>1%%", "step_ms>inf"}) {
    INFO(bad);
    CHECK_THROWS_AS(parse_thresholds(bad), Error);
  }
}

TEST_CASE("diff: counts come from the written graph's counts, and the gap to the bound gates") {
  // With bucketing the per-collective list keeps merged members (no
  // exposure of their own) while the written graph has the bucket: the
  // counts section says 2 collectives, 1 exposed (the bucket).
  auto base = report(20.0, 2.0, 1000, {{"ag0", 1.0, 0.0}, {"ag1", 1.0, 0.0}, {"rs0", 1.0, 0.0}});
  auto next = base;
  next["counts"] = {{"collectives", 2}, {"exposed", 0}, {"partially_exposed", 1}};
  base["optimality"] = {{"gap_percent", 4.0}};
  next["optimality"] = {{"gap_percent", 6.5}};
  ReportDiff d = diff_reports(base, next);
  CHECK(metric(d, "collectives").base == 3);
  CHECK(metric(d, "collectives").next == 2);
  CHECK(metric(d, "exposed_count").base == 0);
  CHECK(metric(d, "exposed_count").next == 1);
  CHECK(metric(d, "gap_percent").delta() == Approx(2.5));
  CHECK(find_regressions(d, parse_thresholds("gap_percent>+2")).size() == 1);
  CHECK(find_regressions(d, parse_thresholds("gap_percent>+3")).empty());
  // A report made before the section existed: asking for it is an error.
  base.erase("optimality");
  d = diff_reports(base, next);
  CHECK_THROWS_AS(find_regressions(d, parse_thresholds("gap_percent>+1")), Error);
  CHECK(find_regressions(d, parse_thresholds("step_ms>+1")).empty());
}

TEST_CASE("diff: exit codes and formats through the CLI") {
  TempDir tmp;
  std::ofstream(tmp.file("base.json")) << report(20.0, 2.0, 1000, {{"ag0", 1.0, 0.0}}).dump();
  std::ofstream(tmp.file("next.json")) << report(20.5, 1.5, 1000, {{"ag0", 1.0, 0.25}}).dump();
  std::ofstream(tmp.file("broken.json")) << R"({"simulation": {}, "collectives": []})";
  const std::string pair = tmp.file("base.json") + " " + tmp.file("next.json");
  CliResult r = run_cli("diff " + pair);
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("step_ms                  20.000           20.500  +0.500 (+2.5%)") !=
        std::string::npos);
  CHECK(r.out.find("ag0 became exposed: exposed 0.000 -> 0.250 ms") != std::string::npos);
  CHECK(r.out.find("no regression") != std::string::npos);
  r = run_cli("diff " + pair + " --fail-on 'step_ms>+2%,peak_bytes>+0'");
  CHECK(r.exit_code == 1);
  CHECK(r.out.find("REGRESSION: step_ms +0.500 (+2.5%) breaks step_ms>+2%") != std::string::npos);
  r = run_cli("diff " + pair + " --fail-on 'step_ms>+2%' --format markdown");
  CHECK(r.exit_code == 1);
  CHECK(r.out.find("| step_ms | 20.000 | 20.500 | +0.500 (+2.5%) |") != std::string::npos);
  r = run_cli("diff " + pair + " --format json --fail-on 'exposed_count>+0'");
  CHECK(r.exit_code == 1);
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["ok"] == false);
  CHECK(j["regressions"][0]["metric"] == "exposed_count");
  CHECK(j["metrics"]["step_ms"]["delta"].get<double>() == Approx(0.5));
  // Bad input: exit 2, one line.
  for (const std::string& args :
       {pair + " --fail-on 'bogus>1'", tmp.file("broken.json") + " " + tmp.file("next.json"),
        tmp.file("missing.json") + " " + tmp.file("next.json"),
        pair + " --runtime-estimates " + tmp.file("broken.json")}) {
    INFO(args);
    r = run_cli("diff " + args);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("internal") == std::string::npos);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  }
  CHECK(run_cli("diff " + pair + " --format yaml").exit_code == 2); // CLI11's usage error
}

TEST_CASE("diff: graphs are scheduled with the given options") {
  const std::string g = source_path("testdata/example_llama_fsdp.json");
  CliResult r = run_cli("diff " + g + " " + g + " --fail-on 'step_ms>+0,peak_bytes>+0'");
  CHECK(r.exit_code == 0); // the same graph and options: no change at all
  CHECK(r.out.find("collective changes: 0") != std::string::npos);
  // A report against a graph scheduled with other options.
  TempDir tmp;
  REQUIRE(run_cli("schedule " + g + " -o " + tmp.file("o.json") + " -q --cost-model compute-only " +
                  "--report " + tmp.file("r.json"))
              .exit_code == 0);
  r = run_cli("diff " + tmp.file("r.json") + " " + g +
              " --cost-model compute-only --max-in-flight-gb 0.5 --fail-on 'exposed_count>+0'");
  CHECK(r.exit_code == 1);
}

TEST_CASE("diff: a 100x tighter in-flight limit is a regression (the limit is kept, so it costs)") {
  TempDir dir;
  const std::string g = source_path("testdata/example_llama_fsdp.json");
  REQUIRE(run_cli("schedule '" + g + "' -q -o '" + dir.file("a.json") + "' --report '" +
                  dir.file("a.report.json") + "'")
              .exit_code == 0);
  REQUIRE(run_cli("schedule '" + g + "' -q --max-in-flight-gb 0.05 -o '" + dir.file("b.json") +
                  "' --report '" + dir.file("b.report.json") + "'")
              .exit_code == 0);
  CliResult r = run_cli("diff '" + dir.file("a.report.json") + "' '" + dir.file("b.report.json") +
                        "' --fail-on 'step_ms>+2%,exposed_count>+0'");
  CHECK(r.exit_code == 1);
  CHECK(r.out.find("REGRESSION: step_ms") != std::string::npos);
  CHECK(r.out.find("REGRESSION: exposed_count") != std::string::npos);
}

TEST_CASE("diff: a figure that is not finite is refused, never compared") {
  const nlohmann::json base = report(100, 10, 1000, {{"ag", 1.0, 0.5}});
  nlohmann::json inf_step = base;
  inf_step["simulation"]["step_ms_after"] = std::numeric_limits<double>::infinity();
  CHECK_THROWS_WITH(diff_reports(base, inf_step),
                    Catch::Contains("simulation.step_ms_after: not a finite number"));
  nlohmann::json null_exposed = base; // how JSON writes inf or nan
  null_exposed["collectives"][0]["exposed_ms"] = nullptr;
  CHECK_THROWS_WITH(diff_reports(null_exposed, base),
                    Catch::Contains("collectives[ag].exposed_ms: not a finite number"));
}
