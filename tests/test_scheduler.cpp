// The overlap scheduler on ports of PyTorch's test_aten_comm_compute_reordering
// scenarios (a matmul hides exactly one collective: both estimated at 1 ms),
// plus memory limits, multi-group overlap and same-group ordering. Every
// schedule is checked with verify.

#include <catch2/catch.hpp>

#include "analysis/verify.h"
#include "cost/estimator.h"
#include "format/graph_file.h"
#include "pipeline/schedule_pipeline.h"
#include "report/report_json.h"
#include "schedule_support.h"
#include "sim/simulate.h"
#include "test_support.h"

using namespace osched;
using namespace osched::test;

namespace {

struct Scheduled {
  Graph original;
  ScheduleOutput out;
  nlohmann::json report; // out.report as written
  std::vector<std::string> order;
  const nlohmann::json& collective(const std::string& name) const {
    for (const auto& c : report["collectives"])
      if (c["name"] == name)
        return c;
    FAIL("no collective " << name);
    return report;
  }
  size_t pos(const std::string& name) const {
    return std::find(order.begin(), order.end(), name) - order.begin();
  }
};

// Ports of upstream's tests: upstream's policy, whatever the default.
Scheduled run_scenario(const std::string& name, ScheduleConfig cfg = {}) {
  cfg.policy = OrderSearchKind::Upstream;
  Scheduled s;
  std::string path = source_path("testdata/scenarios/" + name + ".json");
  s.original = read_graph_file(path);
  s.out =
      schedule_graph(s.original, read_text(path), cfg, scenario_estimates("estimates_unit.json"));
  s.report = report_to_json(s.out.report);
  for (const auto& n : s.out.graph.nodes)
    s.order.push_back(n.name);
  auto violation = verify_reordering(s.original, s.out.graph);
  INFO((violation ? *violation : std::string("ok")));
  REQUIRE_FALSE(violation.has_value());
  return s;
}

// FileCheck-style: names appear in this relative order.
void check_order(const Scheduled& s, const std::vector<std::string>& names) {
  for (size_t i = 1; i < names.size(); ++i) {
    INFO(names[i - 1] << " before " << names[i]);
    CHECK(s.pos(names[i - 1]) < s.pos(names[i]));
  }
}

} // namespace

TEST_CASE("sink waits: the wait sinks below the independent matmul") {
  auto s = run_scenario("sink_waits");
  check_order(s, {"all_reduce", "mm", "wait_tensor", "mm_1"});
  CHECK(s.out.report.counts.exposed == 0);
  CHECK(s.collective("all_reduce")["hidden_by"] == nlohmann::json{"mm"});
}

TEST_CASE("raise comms: the all-reduce is raised above the second matmul") {
  auto s = run_scenario("raise_comms");
  check_order(s, {"mm", "all_reduce", "mm_1", "wait_tensor", "mm_2"});
  CHECK(s.out.report.counts.exposed == 0);
}

TEST_CASE("sink waits and raise comms: exact schedule of PyTorch's expected graph") {
  auto s = run_scenario("sink_waits_raise_comms");
  CHECK(s.order == std::vector<std::string>{"arg0_1", "mm", "relu", "all_reduce", "mm_1", "relu_1",
                                            "mm_2", "wait_tensor", "mm_3", "output"});
  CHECK(s.out.report.counts.exposed == 0);
}

TEST_CASE("reorder compute for overlap: each collective overlaps one matmul, one stays exposed") {
  auto s = run_scenario("reorder_compute_for_overlap_mul");
  check_order(s, {"all_reduce", "mm", "mm_1", "wait_tensor", "mul_1", "all_reduce_1",
                  "wait_tensor_1", "mm_2"});
  CHECK(s.out.report.counts.exposed == 1);
  CHECK(s.collective("all_reduce_1")["exposed_ms"] == 1.0);
  CHECK_FALSE(s.collective("all_reduce_1")["why_exposed"].empty());
}

TEST_CASE("default comms ordering: collectives stay in order, none hideable") {
  auto s = run_scenario("default_comms_ordering");
  check_order(s, {"all_reduce", "all_reduce_1", "all_reduce_2"});
  CHECK(s.out.report.counts.exposed == 3);
  CHECK(s.out.report.greedy.exposed_though_hideable == 0);
  CHECK(s.collective("all_reduce")["why_exposed"][0] == "no compute node is independent of it");
}

TEST_CASE("multi-group: one matmul hides a collective of each group independently") {
  auto s = run_scenario("multi_group");
  CHECK(s.collective("ar_tp")["hidden_by"] == nlohmann::json{"mm0"});
  CHECK(s.collective("ar_dp")["hidden_by"] == nlohmann::json{"mm0"});
  CHECK(s.out.report.counts.exposed == 0);
  CHECK(s.out.report.simulation.step_ms_after == 3.0);
  CHECK(s.out.report.simulation.step_ms_before == 5.0);
}

TEST_CASE("same-group order: upstream lets a ready later collective go first, waits stay in issue "
          "order") {
  // Traced by hand through upstream's pass: mm0 cannot hide ar1 (it feeds
  // it) but hides ar2, which is ready; mm1 then hides ar1. Waiting on ar1
  // first waits on ar2, issued earlier on the same group.
  auto s = run_scenario("same_group_order");
  CHECK(s.order == std::vector<std::string>{"a", "ar2", "mm0", "ar1", "mm1", "mm2", "wait2",
                                            "wait1", "add", "mm3", "output"});
  CHECK(s.out.report.counts.exposed == 0);
  CHECK(s.collective("ar2")["hidden_by"] == nlohmann::json{"mm0"});
  CHECK(s.collective("ar1")["hidden_by"] == nlohmann::json{"mm1"});
}

TEST_CASE("preserve-group-order: a later collective never overtakes an earlier one") {
  ScheduleConfig cfg;
  cfg.scheduler.preserve_group_order = true;
  auto s = run_scenario("same_group_order", cfg);
  check_order(s, {"mm0", "ar1", "mm1", "ar2", "mm2"});
  CHECK(s.collective("ar1")["hidden_by"] == nlohmann::json{"mm1"});
  CHECK(s.collective("ar2")["hidden_by"] == nlohmann::json{"mm2"});
  CHECK(s.out.report.counts.exposed == 0);
  CHECK_FALSE(verify_reordering(s.original, s.out.graph, {true, true, ""}).has_value());
  CHECK(s.out.report.config["preserve_group_order"] == true);

  auto upstream = run_scenario("same_group_order");
  auto v = verify_reordering(upstream.original, upstream.out.graph, {true, true, ""});
  REQUIRE(v.has_value());
  CHECK(v->find("collective 'ar2' is now issued before 'ar1'") != std::string::npos);
}

TEST_CASE("preserve-group-order: buckets only merge collectives adjacent in their group's order") {
  ScheduleConfig cfg;
  cfg.collective_bucketing = true;
  auto merged = run_scenario("bucketing_group_order", cfg);
  REQUIRE(merged.out.report.bucketing->buckets.size() == 1);
  CHECK(verify_reordering(merged.original, merged.out.graph, {true, true, ""}).has_value());
  cfg.scheduler.preserve_group_order = true;
  auto kept = run_scenario("bucketing_group_order", cfg);
  CHECK(kept.out.report.bucketing->buckets.empty());
  CHECK_FALSE(verify_reordering(kept.original, kept.out.graph, {true, true, ""}).has_value());
}

TEST_CASE("max_coll_distance counts unscheduled collectives, not node positions") {
  // The all-gather is 501 nodes after mm0, which still hides it at the
  // default of 200; with no candidates beyond the first, too.
  auto s = run_scenario("far_collective");
  CHECK(s.collective("ag")["hidden_by"] == nlohmann::json{"mm0"});
  check_order(s, {"ag", "mm0", "relu0"});
  ScheduleConfig one;
  one.scheduler.max_coll_distance = 0;
  CHECK(run_scenario("far_collective", one).collective("ag")["hidden_by"] == nlohmann::json{"mm0"});
}

TEST_CASE("memory budget stops a prefetch that would raise the peak") {
  ScheduleConfig tight;
  tight.scheduler.max_memory_increase_gb = 0;
  tight.scheduler.max_memory_increase_ratio = 0;
  auto s = run_scenario("memory_limit", tight);
  check_order(s, {"big_mm", "ag"});
  const auto& c = s.collective("ag");
  CHECK(c["exposed_ms"] == 1.0);
  CHECK(c["why_exposed"][0].get<std::string>().find("peak-memory budget") != std::string::npos);

  auto loose = run_scenario("memory_limit"); // default budget: +1 GB
  check_order(loose, {"ag", "big_mm", "ag_wait"});
  CHECK(loose.collective("ag")["hidden_by"] == nlohmann::json{"big_mm"});
}

TEST_CASE("in-flight byte limit keeps a collective from starting early") {
  ScheduleConfig cfg;
  cfg.scheduler.max_in_flight_gb = 1e-9; // smaller than any collective
  auto s = run_scenario("sink_waits", cfg);
  CHECK(s.collective("all_reduce")["exposed_ms"] == 1.0);
}

TEST_CASE("every testdata graph schedules, verifies and reports deterministically") {
  for (const char* name : {"testdata/fsdp_tiny.json", "testdata/tp_two_groups.json",
                           "testdata/example_llama_fsdp.json"}) {
    INFO(name);
    std::string path = source_path(name);
    Graph g = read_graph_file(path);
    ScheduleOutput a = schedule_graph(g, read_text(path), {});
    ScheduleOutput b = schedule_graph(g, read_text(path), {});
    auto violation = verify_reordering(g, a.graph);
    INFO((violation ? *violation : std::string("ok")));
    CHECK_FALSE(violation.has_value());
    CHECK(report_to_json(a.report).dump() == report_to_json(b.report).dump());
    CHECK(a.report.simulation.step_ms_after <= a.report.simulation.step_ms_before + 1e-9);
    CHECK(a.report.collectives.size() == a.report.counts.collectives);
  }
}

TEST_CASE("the FSDP example hides most of its communication") {
  std::string path = source_path("testdata/example_llama_fsdp.json");
  Graph g = read_graph_file(path);
  ScheduleConfig cfg;
  cfg.cost_model = CostModel::ComputeOnly; // the reason below is that model's
  ScheduleOutput out = schedule_graph(g, read_text(path), cfg);
  const auto& sim = out.report.simulation;
  CHECK(sim.exposed_comm_ms_after < 0.5 * sim.exposed_comm_ms_before);
  CHECK(out.report.memory.scheduled_peak_bytes <= out.report.memory.budget_bytes);
  // The very first all-gather has nothing to hide behind.
  for (const auto& c : out.report.collectives)
    if (c.name == "fwd0_qkv_ag")
      CHECK(c.why_exposed.at(0) == "no compute node is independent of it");
  // Every kernel costed: the exposure still falls by more than half.
  ScheduleOutput kernels = schedule_graph(g, read_text(path), {});
  CHECK(kernels.report.simulation.exposed_comm_ms_after <
        0.5 * kernels.report.simulation.exposed_comm_ms_before);
}

TEST_CASE("the report's direct text is its JSON tree printed with indent 2") {
  for (const auto& path : valid_graphs()) {
    INFO(path);
    ScheduleConfig cfg;
    cfg.collective_bucketing = true;
    cfg.insert_overlap_deps = true;
    cfg.policy = OrderSearchKind::Improved;
    const Graph g = read_graph_file(path);
    const ScheduleOutput out = schedule_graph(g, read_text(path), cfg);
    CHECK(report_json_text(out.report) == report_to_json(out.report).dump(2) + "\n");
  }
  // Names needing escapes, empty and long lists, no collectives at all.
  ScheduleReport r;
  r.input.name = "weird \"collectives\": \x01";
  CHECK(report_json_text(r) == report_to_json(r).dump(2) + "\n");
  ReportCollective c;
  c.name = "a\"b\\c\n\u00e9";
  c.kind = "all_gather";
  c.group = "\x01";
  c.bytes = -5;
  c.estimated_ms = 0.1;
  c.exposed_ms = 1e-300;
  c.greedy_exposed_ms = 3;
  c.hidden_by = {"x", "y\t"};
  c.wait = "w";
  c.exposed = true;
  c.why_exposed = {"because \"q\""};
  r.collectives = {c, ReportCollective{}};
  CHECK(report_json_text(r) == report_to_json(r).dump(2) + "\n");
  // Big reports are rendered in chunks on two threads: still the same text.
  r.collectives.clear();
  for (int i = 0; i < 30000; ++i) {
    c.name = "c" + std::to_string(i);
    c.bytes = i;
    r.collectives.push_back(c);
  }
  CHECK(report_json_text(r) == report_to_json(r).dump(2) + "\n");
}

TEST_CASE("lower bound: the critical path by hand, and no order simulates below the bound") {
  // x -> mm1 (2 ms) -> all_reduce (3 ms) -> wait -> mm2 (1 ms), beside an
  // independent mm3 (4 ms): the chain is 6 ms, compute 7 ms. A metadata read
  // of the in-flight result does not wait for it.
  const std::string text = R"({"format":"overlap-sched.graph","version":1,"world_size":2,
    "process_groups":{"g":{"ranks":[0,1]}},"nodes":[
    {"name":"x","op":"placeholder","target":"x","val":{"shape":[64,64],"dtype":"float32","device":"cuda:0"}},
    {"name":"mm1","op":"call_function","target":"aten.mm.default","args":[{"node":"x"},{"node":"x"}],"val":{"shape":[64,64],"dtype":"float32","device":"cuda:0"}},
    {"name":"ar","op":"call_function","target":"_c10d_functional.all_reduce.default","args":[{"node":"mm1"},"sum","g"],"val":{"shape":[64,64],"dtype":"float32","device":"cuda:0"}},
    {"name":"size","op":"call_function","target":"aten.sym_size.int","args":[{"node":"ar"},0],"val":null},
    {"name":"w","op":"call_function","target":"_c10d_functional.wait_tensor.default","args":[{"node":"ar"}],"val":{"shape":[64,64],"dtype":"float32","device":"cuda:0"}},
    {"name":"mm2","op":"call_function","target":"aten.mm.default","args":[{"node":"w"},{"node":"x"}],"val":{"shape":[64,64],"dtype":"float32","device":"cuda:0"}},
    {"name":"mm3","op":"call_function","target":"aten.mm.default","args":[{"node":"x"},{"node":"x"}],"val":{"shape":[64,64],"dtype":"float32","device":"cuda:0"}},
    {"name":"output","op":"output","target":"output","args":[[{"node":"mm2"},{"node":"mm3"},{"node":"size"}]]}]})";
  const Graph g = graph_from_json_text(text);
  RuntimeTable rt;
  rt.ms = {0, 2, 3, 0, 0, 1, 4, 0};
  rt.source.assign(rt.ms.size(), RuntimeSource::Custom);
  CHECK(critical_path_ms(g, rt) == Approx(6.0));
  rt.ms[6] = 7; // now the lone mm3 is the longest chain
  CHECK(critical_path_ms(g, rt) == Approx(7.0));

  // Every bundled graph, both policies: the original order and the output
  // both simulate at or above the bound, and the bound is the largest term.
  for (const auto& path : valid_graphs()) {
    INFO(path);
    for (const OrderSearchKind policy : {OrderSearchKind::Upstream, OrderSearchKind::Improved}) {
      ScheduleConfig cfg;
      cfg.policy = policy;
      const Graph in = read_graph_file(path);
      const ScheduleOutput out = schedule_graph(in, read_text(path), cfg);
      const ReportLowerBound& lb = out.report.lower_bound;
      CHECK(lb.terms.critical_path_ms > 0);
      CHECK(lb.step_ms >= lb.terms.critical_path_ms);
      CHECK(lb.step_ms >= lb.terms.busiest_group_comm_ms);
      CHECK(out.report.simulation.step_ms_before >= lb.step_ms - 1e-6);
      CHECK(out.report.simulation.step_ms_after >= lb.step_ms - 1e-6);
    }
  }
}
