// Ports of PyTorch's test/distributed/test_aten_comm_compute_reordering.py
// (TestComputeCommReorderingMultiProc and TestComputeCommReorderingBucketing)
// as testdata graphs, with upstream's expectations: the FileCheck orders and
// counts over the reordered graph, and its exposed counters. Estimates are
// upstream's test estimator: every c10d op 1 ms, a matmul 1 ms (or the
// multiplier the test patches in), nothing else. Where stored upstream
// versions differ, these follow overlap_scheduling.py with per-group
// accounting and the memory budget (reduce-scatters first among candidates).
//
// Not ported: test_grouped_scheduler_node (skipped upstream), the manual
// bucketing tests (ManualOverlapScheduler takes module bucket plans, which
// the graph format does not carry), graph-view utilities, and tests of
// PyTorch's own plumbing (custom estimation under FakeTensorMode, the config
// switch, benchmarking with a real process group); test_overlap_scheduling_
// via_config has sink_waits' graph and expectation (test_scheduler.cpp).

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "analysis/verify.h"
#include "cost/estimator.h"
#include "format/graph_file.h"
#include "pipeline/schedule_pipeline.h"
#include "report/report_json.h"
#include "schedule_support.h"
#include "test_support.h"

using namespace osched;
using namespace osched::test;
using json = nlohmann::json;

namespace {

struct Port {
  Graph original;
  ScheduleOutput out;
};

Port run_port(const std::string& scenario, const std::string& estimates, bool bucketing,
              bool overlap_deps = false) {
  Port p;
  const std::string path = source_path("testdata/scenarios/" + scenario + ".json");
  p.original = read_graph_file(path);
  ScheduleConfig cfg;
  cfg.policy = OrderSearchKind::Upstream; // parity, whatever the default
  cfg.collective_bucketing = bucketing;
  cfg.insert_overlap_deps = overlap_deps;
  p.out = schedule_graph(p.original, read_text(path), cfg, scenario_estimates(estimates));
  auto violation = verify_reordering(p.original, p.out.graph);
  INFO((violation ? *violation : std::string("ok")));
  REQUIRE_FALSE(violation.has_value());
  return p;
}

// FileCheck's check(): each pattern (a substring of a node's target or
// name) matches a node after the previous match.
bool in_order(const Graph& g, const std::vector<std::string>& patterns) {
  size_t i = 0;
  for (const std::string& p : patterns) {
    while (i < g.nodes.size() && g.nodes[i].target.find(p) == std::string::npos &&
           g.nodes[i].name != p)
      ++i;
    if (i == g.nodes.size())
      return false;
    ++i;
  }
  return true;
}

size_t count_target(const Graph& g, const std::string& pattern) {
  size_t n = 0;
  for (const auto& node : g.nodes)
    if (node.target.find(pattern) != std::string::npos)
      ++n;
  return n;
}

const char* kAllGather = "_c10d_functional.all_gather_into_tensor";
const char* kWait = "_c10d_functional.wait_tensor";

} // namespace

TEST_CASE("upstream test_schedulable_wait: a wait on a wait is not a collective's wait") {
  Port p = run_port("schedulable_wait", "estimates_unit.json", false);
  const auto& colls = p.out.report.collectives;
  REQUIRE(colls.size() == 2);
  CHECK(colls[0].wait == "wait_tensor_default");
  CHECK(colls[1].wait == "wait_tensor_default_1");
  for (const auto& c : colls)
    CHECK(c.schedulable);
}

TEST_CASE("upstream test_custom_estimator_for_non_compute_nodes: an estimated relu hides the "
          "all-reduce") {
  Port p = run_port("custom_estimator_for_non_compute_nodes", "estimates_relu.json", false);
  CHECK(in_order(p.out.graph, {"all_reduce", "relu", "wait_tensor"}));
  CHECK(p.out.report.counts.exposed == 0);
  CHECK(p.out.report.collectives[0].hidden_by == std::vector<std::string>{"relu"});
  // Traced by hand: without the relu estimate, relu runs as plain work and
  // the matmul after it (1 ms) is the first chance to start the all-reduce.
  Port plain = run_port("custom_estimator_for_non_compute_nodes", "estimates_unit.json", false);
  CHECK(in_order(plain.out.graph, {"relu", "all_reduce", "aten.mm", "wait_tensor"}));
  CHECK(plain.out.report.collectives[0].hidden_by == std::vector<std::string>{"mm"});
  CHECK(plain.out.report.counts.exposed == 0);
}

TEST_CASE("upstream test_basic_all_gather_bucketing: three independent all-gathers become one") {
  Port p = run_port("basic_all_gather_bucketing", "estimates_unit.json", true);
  CHECK(count_target(p.out.graph, kAllGather) == 1);
}

TEST_CASE("upstream test_reduce_scatter_bucketing: three reduce-scatters become one") {
  Port p = run_port("reduce_scatter_bucketing", "estimates_unit.json", true);
  CHECK(count_target(p.out.graph, "_c10d_functional.reduce_scatter_tensor") == 1);
}

TEST_CASE("upstream test_basic_all_reduce_bucketing: three all-reduces, one wait") {
  Port p = run_port("basic_all_reduce_bucketing", "estimates_unit.json", true);
  CHECK(count_target(p.out.graph, kWait) == 1);
}

TEST_CASE("upstream test_multidtype_bucketing: all-gathers of different dtypes, one wait") {
  Port p = run_port("multidtype_bucketing", "estimates_unit.json", true);
  CHECK(count_target(p.out.graph, kWait) == 1);
}

TEST_CASE("upstream test_no_bucketing_with_dependent_hiding_nodes: two all-gathers stay") {
  Port p = run_port("no_bucketing_with_dependent_hiding_nodes", "estimates_unit.json", true);
  CHECK(count_target(p.out.graph, kAllGather) == 2);
}

TEST_CASE(
    "upstream test_no_bucketing_when_collective_depends_on_hiding_node: two all-gathers stay") {
  Port p =
      run_port("no_bucketing_when_collective_depends_on_hiding_node", "estimates_unit.json", true);
  CHECK(count_target(p.out.graph, kAllGather) == 2);
}

TEST_CASE("upstream test_bucketing_wait_sink: four all-gathers, one bucket, its wait below both "
          "matmuls") {
  Port p = run_port("bucketing_wait_sink", "estimates_mm2.json", true);
  CHECK(count_target(p.out.graph, kAllGather) == 1);
  CHECK(count_target(p.out.graph, "aten.mm") == 2);
  CHECK(in_order(p.out.graph, {kAllGather, "aten.mm", "aten.mm", kWait}));
}

TEST_CASE("upstream test_bucketing_split_for_overlap: 2 + 2 buckets, each before its matmul") {
  Port p = run_port("bucketing_split_for_overlap", "estimates_mm2.json", true);
  CHECK(count_target(p.out.graph, kAllGather) == 2);
  CHECK(in_order(p.out.graph, {kAllGather, "aten.mm", kAllGather, "aten.mm"}));
}

TEST_CASE(
    "upstream test_bucketing_split_for_overlap_blocking_deps: overlap pinned by control deps") {
  Port p = run_port("bucketing_split_for_overlap", "estimates_mm2.json", true, true);
  // Each bucket's matmul depends on the bucket's start, its wait on the matmul.
  const Graph& g = p.out.graph;
  int pinned = 0;
  for (NodeId i = 0; i < g.size(); ++i) {
    if (g.nodes[i].target != "aten.mm.default")
      continue;
    for (NodeId d : g.nodes[i].attrs().control_deps) {
      if (g.nodes[d].target.find(kAllGather) == std::string::npos)
        continue;
      for (NodeId w = i + 1; w < g.size(); ++w)
        for (NodeId wd : g.nodes[w].attrs().control_deps)
          if (wd == i && g.nodes[w].target.find(kWait) != std::string::npos)
            ++pinned;
    }
  }
  CHECK(pinned == 2);
  CHECK(in_order(g, {kAllGather, "aten.mm", kWait, kAllGather, "aten.mm", kWait}));
}

TEST_CASE(
    "upstream test_bucket_exposed_with_hidden_single_overlap: one bucket keeps ag1's overlap") {
  Port p = run_port("bucket_exposed_with_hidden_single_overlap", "estimates_unit.json", true);
  CHECK(count_target(p.out.graph, "wait_tensor.default") == 1);
  CHECK(in_order(p.out.graph, {kAllGather, "aten.mm", "wait_tensor"}));
}

TEST_CASE("upstream test_multiple_hiding_nodes_bucketing: one bucket before all three matmuls") {
  Port p = run_port("multiple_hiding_nodes_bucketing", "estimates_mm_half.json", true);
  CHECK(count_target(p.out.graph, kWait) == 1);
  CHECK(in_order(p.out.graph, {kAllGather, "aten.mm", "aten.mm", "aten.mm", "wait_tensor"}));
}

TEST_CASE("upstream test_bucketing_with_convert_dtype: one bucket, conversions fused") {
  Port p = run_port("bucketing_with_convert_dtype", "estimates_unit.json", true);
  CHECK(count_target(p.out.graph, kWait) == 1);
  CHECK(count_target(p.out.graph, "prims.convert_element_type") == 0);
}
