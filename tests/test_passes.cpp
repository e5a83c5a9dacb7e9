// The passes below the pipeline on small inline graphs: the scheduler's
// analysis, its rankings and mechanism, the step simulation, the bucket
// planner and the graph rewrite. Estimates are set by hand (1 ms per
// matmul and per collective) so every expectation is traced by hand.

#include <catch2/catch.hpp>

#include <algorithm>
#include <limits>
#include <random>

#include "bucketing/apply_buckets.h"
#include "bucketing/bucket_planner.h"
#include "bucketing/overlap_interval.h"
#include "cost/estimator.h"
#include "format/graph_file.h"
#include "report/exposure_text.h"
#include "scheduler/ancestor_bits.h"
#include "scheduler/descendant_query.h"
#include "scheduler/forward_range_max.h"
#include "scheduler/greedy_ranking.h"
#include "scheduler/overlap_scheduler.h"
#include "scheduler/potential_overlap.h"
#include "scheduler/range_max.h"
#include "scheduler/reorder.h"
#include "scheduler/schedule_analysis.h"
#include "sim/simulate.h"
#include "test_support.h"

using namespace osched;
using osched::test::inline_graph;

namespace {

const char* kW = R"({"name": "w", "op": "placeholder", "target": "w",
  "val": {"dtype": "float32", "shape": [8, 8], "stride": [8, 1], "device": "cuda:0"}})";

std::string mm(const std::string& name, const std::string& a, const std::string& rows) {
  return R"({"name": ")" + name + R"(", "op": "call_function", "target": "aten.mm.default",
    "args": [{"node": ")" +
         a + R"("}, {"node": "w"}],
    "val": {"dtype": "float32", "shape": [)" +
         rows + R"(, 8], "stride": [8, 1], "device": "cuda:0"}})";
}

std::string all_gather(const std::string& name) {
  return R"({"name": ")" + name + R"(", "op": "call_function",
    "target": "_c10d_functional.all_gather_into_tensor.default", "args": [{"node": "x"}, 4, "tp"],
    "val": {"dtype": "float32", "shape": [16, 8], "stride": [8, 1], "device": "cuda:0"}})";
}

std::string reduce_scatter(const std::string& name) {
  return R"({"name": ")" + name + R"(", "op": "call_function",
    "target": "_c10d_functional.reduce_scatter_tensor.default", "args": [{"node": "x"}, "sum", 4, "tp"],
    "val": {"dtype": "float32", "shape": [1, 8], "stride": [8, 1], "device": "cuda:0"}})";
}

std::string wait(const std::string& name, const std::string& of, const std::string& rows) {
  return R"({"name": ")" + name +
         R"(", "op": "call_function", "target": "_c10d_functional.wait_tensor.default",
    "args": [{"node": ")" +
         of + R"("}],
    "val": {"dtype": "float32", "shape": [)" +
         rows + R"(, 8], "stride": [8, 1], "device": "cuda:0"}})";
}

// mm runs first in the graph; ag is independent of it and used after.
Graph one_gather() {
  return inline_graph(std::string(kW) + ",\n" + mm("mm", "x", "4") + ",\n" + all_gather("ag") +
                          ",\n" + wait("ag_w", "ag", "16") + ",\n" + mm("use", "ag_w", "16"),
                      R"([{"node": "mm"}, {"node": "use"}])");
}

// Two gathers and a reduce-scatter, all independent of mm0.
Graph three_collectives() {
  return inline_graph(std::string(kW) + ",\n" + mm("mm0", "x", "4") + ",\n" + all_gather("ag1") +
                          ",\n" + all_gather("ag2") + ",\n" + reduce_scatter("rs") + ",\n" +
                          wait("ag1_w", "ag1", "16") + ",\n" + wait("ag2_w", "ag2", "16") + ",\n" +
                          wait("rs_w", "rs", "1") + ",\n" + mm("use1", "ag1_w", "16") + ",\n" +
                          mm("use2", "ag2_w", "16") + ",\n" + mm("use3", "rs_w", "1"),
                      R"([{"node": "mm0"}, {"node": "use1"}, {"node": "use2"}, {"node": "use3"}])");
}

RuntimeTable unit_estimates(const Graph& g, double mm0_ms = 1.0) {
  CustomEstimates est;
  est.nodes = {{"mm0", mm0_ms}};
  est.ops = {{"aten.mm.default", 1.0},
             {"_c10d_functional.all_gather_into_tensor.default", 1.0},
             {"_c10d_functional.reduce_scatter_tensor.default", 1.0}};
  AnalyticalEstimator analytical(default_hardware());
  return estimate_runtimes(g, &est, nullptr, analytical);
}

std::vector<std::string> names(const Graph& g, const std::vector<NodeId>& order) {
  std::vector<std::string> out;
  for (NodeId n : order)
    out.push_back(g.nodes[n].name);
  return out;
}

std::vector<NodeId> original_order(const Graph& g) {
  std::vector<NodeId> o(g.nodes.size());
  for (size_t i = 0; i < o.size(); ++i)
    o[i] = static_cast<NodeId>(i);
  return o;
}

} // namespace

TEST_CASE("schedule analysis: kinds, the compute each node blocks, potential overlap") {
  Graph g = one_gather();
  RuntimeTable rt = unit_estimates(g);
  ScheduleAnalysis a(g, rt, SchedulerOptions{});
  const NodeId ag = *g.find("ag"), ag_w = *g.find("ag_w"), m = *g.find("mm"), use = *g.find("use");
  CHECK(a.kind[ag] == NodeKind::CollectiveStart);
  CHECK(a.kind[ag_w] == NodeKind::Wait);
  CHECK(a.kind[m] == NodeKind::Compute);
  CHECK(a.kind[*g.find("x")] == NodeKind::Placeholder);
  CHECK(a.kind[*g.find("output")] == NodeKind::Output);
  CHECK(a.compute_nodes == std::vector<NodeId>{m, use});
  CHECK(a.dom[ag] == 1); // it blocks the second compute node, `use`
  CHECK(a.dom[m] == 0);
  REQUIRE(a.collectives.size() == 1);
  CHECK(a.collective_of[ag] == 0);
  CHECK(a.collective_of[ag_w] == 0);
  CHECK(a.collectives[0].potentially_hideable); // mm is independent of it
  CHECK(a.collectives[0].estimated_ms == 1.0);
  CHECK(a.group_names == std::vector<std::string>{"tp"});
  CHECK(a.original_peak > 0);
}

TEST_CASE("mechanism: the gather starts before the independent matmul and is hidden by it") {
  Graph g = one_gather();
  RuntimeTable rt = unit_estimates(g);
  ScheduleResult r = schedule_overlap(g, rt, SchedulerOptions{});
  CHECK(names(g, r.order) ==
        std::vector<std::string>{"x", "s", "w", "ag", "mm", "ag_w", "use", "output"});
  REQUIRE(r.collectives.size() == 1);
  CHECK(r.collectives[0].exposed_ms == 0);
  CHECK(r.collectives[0].hiding_nodes == std::vector<NodeId>{*g.find("mm")});
  CHECK(r.exposed == 0);
  CHECK(r.potentially_hidden == 1);
  // Simulated: mm (1 ms) then the gather (1 ms) then use; reordered, the
  // gather runs under mm.
  SimulationResult before = simulate_step(g, rt, original_order(g));
  SimulationResult after = simulate_step(g, rt, r.order);
  CHECK(before.step_ms == 3.0);
  CHECK(before.exposed_comm_ms == 1.0);
  CHECK(after.step_ms == 2.0);
  CHECK(after.exposed_comm_ms == 0.0);
  CHECK(after.compute_ms == 2.0);
}

TEST_CASE("mechanism: a refused candidate records why, as an enum the report renders") {
  Graph g = one_gather();
  RuntimeTable rt = unit_estimates(g);
  SchedulerOptions opt;
  opt.max_in_flight_gb = 1e-9; // 1 byte: nothing fits in flight
  ScheduleResult r = schedule_overlap(g, rt, opt);
  const CollectiveOutcome& c = r.collectives.at(0);
  CHECK(c.exposed_ms == 1.0);
  REQUIRE_FALSE(c.why_exposed.empty());
  // Checked in upstream's order: the budget (1 GB of headroom) passes, the
  // bytes prefetched across mm would pass the in-flight limit.
  CHECK(c.why_exposed[0] == ExposureNote{ExposureReason::PrefetchInFlight, *g.find("mm"), -1});
  CHECK(exposure_text(g, c, c.why_exposed[0]).find("before 'mm' would keep more than") !=
        std::string::npos);
  CHECK(exposure_reason_name(c.why_exposed[0].why) == "prefetch_in_flight");
}

TEST_CASE("upstream ranking: reduce-scatters are tried first, then by the compute they block") {
  Graph g = three_collectives();
  RuntimeTable rt = unit_estimates(g);
  SchedulerOptions opt;
  ScheduleAnalysis a(g, rt, opt);
  std::unique_ptr<GreedyRanking> ranking = ranking_for(opt);
  CHECK(ranking->name() == "upstream");
  std::vector<bool> scheduled(g.nodes.size(), false);
  std::vector<CollectiveOutcome> colls = a.collectives;
  MemoryTracker memory(a.storages);
  RankingContext ctx{a, opt, scheduled, colls, memory};
  std::vector<NodeId> starts = {*g.find("ag1"), *g.find("ag2"), *g.find("rs")};
  REQUIRE(std::is_sorted(starts.begin(), starts.end())); // graph order, as the scheduler gives
  auto key = [&](NodeId s) { return ranking->candidate_key(ctx, s); };
  CHECK(key(*g.find("rs")) < key(*g.find("ag1")));
  CHECK(key(*g.find("ag1")) < key(*g.find("ag2")));
  // Ready nodes by the compute they block: mm0 (compute 0) before ag1 (compute 1).
  CHECK(ranking->ready_score(ctx, *g.find("mm0")) < ranking->ready_score(ctx, *g.find("ag1")));
  opt.release_memory_early = true;
  CHECK(ranking_for(opt)->name() == "release_early");
  CHECK(ranking_for(opt)->scores_last_readers());
}

TEST_CASE("bucket planner and rewrite: two gathers hidden by one matmul become one bucket") {
  Graph g = three_collectives();
  RuntimeTable rt = unit_estimates(g, 3.0); // mm0 hides all three collectives
  ScheduleResult r = schedule_overlap(g, rt, SchedulerOptions{});
  Graph scheduled = apply_order(Graph(g), r.order);
  std::vector<OverlapInterval> intervals = overlap_intervals(r, r.order);
  REQUIRE(intervals.size() == 3);
  std::vector<Bucket> buckets = plan_buckets(scheduled, intervals, BucketOptions{});
  REQUIRE(buckets.size() == 1); // the reduce-scatter has no partner of its kind
  REQUIRE(buckets[0].members.size() == 2);
  CHECK(scheduled.nodes[intervals[buckets[0].members[0]].start].name == "ag1");
  CHECK(scheduled.nodes[intervals[buckets[0].members[1]].start].name == "ag2");
  CHECK(buckets[0].size_bytes == 2 * (128 + 512));

  BucketedGraph out = apply_buckets(std::move(scheduled), intervals, buckets);
  REQUIRE(out.buckets.size() == 1);
  const BucketSummary& b = out.buckets[0];
  CHECK(b.name == "bucket0_all_gather");
  CHECK(b.members == std::vector<std::string>{"ag1", "ag2"});
  CHECK(b.group == "tp");
  CHECK(b.size_bytes == 2 * (128 + 512));
  for (const char* gone : {"ag1", "ag2", "ag1_w", "ag2_w"})
    CHECK_FALSE(out.graph.find(gone).has_value());
  for (const char* made : {"bucket0_all_gather_cat", "bucket0_all_gather",
                           "bucket0_all_gather_wait", "bucket0_all_gather_split"})
    CHECK(out.graph.find(made).has_value());
  CHECK(out.graph.find("rs").has_value());
  CHECK(out.intervals.size() == 2); // the bucket and the reduce-scatter
  // The members' users read the split, in member order.
  const Node& use2 = out.graph.nodes[*out.graph.find("use2")];
  CHECK(use2.args[0].i == *out.graph.find("bucket0_all_gather_split"));
  CHECK(use2.args[0].ref_output == 1);
}

TEST_CASE("bucket planner: gathers whose waits a long chain through a hiding node orders stay "
          "apart") {
  // ag1's wait feeds a chain (with side branches off x) into mm_b, which
  // hides ag2: with upstream's start -> hiding -> wait edges ag1's wait is
  // an ancestor of ag2's, so one merged wait would need to come before
  // itself. With the chain reading x instead, the two merge.
  for (bool chained : {true, false}) {
    std::string nodes = std::string(kW) + ",\n" + all_gather("ag1") + ",\n" + all_gather("ag2") +
                        ",\n" + mm("mm_a", "x", "4") + ",\n" + wait("ag1_w", "ag1", "16");
    std::string prev = chained ? "ag1_w" : "x";
    for (int i = 0; i < 30; ++i) {
      const std::string c = "c" + std::to_string(i);
      nodes += ",\n" + mm(c, prev, "16") + ",\n" + mm(c + "_side", "x", "4");
      prev = c;
    }
    nodes += ",\n" + mm("mm_b", prev, chained ? "16" : "4") + ",\n" + wait("ag2_w", "ag2", "16") +
             ",\n" + mm("use", "ag2_w", "16") + ",\n" + mm("use1", "ag1_w", "16");
    Graph g = inline_graph(
        nodes, R"([{"node": "mm_a"}, {"node": "mm_b"}, {"node": "use"}, {"node": "use1"}])");
    auto at = [&](const char* name) { return *g.find(name); };
    std::vector<OverlapInterval> intervals(2);
    intervals[0] = {at("ag1"), at("ag1_w"), {at("mm_a")}, 640, 1.0, 0.0, true};
    intervals[1] = {at("ag2"), at("ag2_w"), {at("mm_b")}, 640, 1.0, 0.0, true};
    const std::vector<Bucket> buckets = plan_buckets(g, intervals, BucketOptions{});
    INFO("chained " << chained);
    CHECK(buckets.size() == (chained ? 0u : 1u));
  }
}

namespace {
std::vector<NodeId> identity(size_t n) {
  std::vector<NodeId> order(n);
  for (size_t i = 0; i < n; ++i)
    order[i] = static_cast<NodeId>(i);
  return order;
}
} // namespace

TEST_CASE("bucket rewrite: nodes two buckets move past each other come out in a valid order") {
  // Bucket B (b1, b2) sinks Y, a reader of b1's wait, after its merged wait;
  // bucket A (a1, a2) raises X, which a2 reads and which reads Y, before its
  // merged start, earlier than B's wait. Emitted as planned, X would come
  // before Y; the rewrite's stable topological pass puts it right after.
  auto gather = [](const std::string& name, const std::string& in, int rows) {
    return R"({"name": ")" + name + R"(", "op": "call_function",
      "target": "_c10d_functional.all_gather_into_tensor.default",
      "args": [{"node": ")" +
           in + R"("}, 4, "tp"],
      "val": {"dtype": "float32", "shape": [)" +
           std::to_string(4 * rows) + R"(, 8], "stride": [8, 1], "device": "cuda:0"}})";
  };
  Graph g =
      inline_graph(std::string(kW) + ",\n" + gather("b1", "x", 4) + ",\n" + gather("a1", "x", 4) +
                       ",\n" + wait("b1w", "b1", "16") + ",\n" + mm("Y", "b1w", "16") + ",\n" +
                       mm("X", "Y", "16") + ",\n" + gather("a2", "X", 16) + ",\n" +
                       gather("b2", "x", 4) + ",\n" + wait("b2w", "b2", "16") + ",\n" +
                       wait("a1w", "a1", "16") + ",\n" + wait("a2w", "a2", "64"),
                   R"([{"node": "b2w"}, {"node": "a1w"}, {"node": "a2w"}])");
  auto at = [&](const char* name) { return *g.find(name); };
  auto interval = [&](const char* start, const char* wait) {
    OverlapInterval iv;
    iv.start = at(start);
    iv.wait = at(wait);
    iv.size_bytes = 1;
    return iv;
  };
  const std::vector<OverlapInterval> intervals = {interval("b1", "b1w"), interval("a1", "a1w"),
                                                  interval("a2", "a2w"), interval("b2", "b2w")};
  Bucket b; // merged start at b1's, wait at b2w's
  b.members = {0, 3};
  b.start_at = 0;
  b.wait_at = 3;
  b.sunk = {at("Y")};
  Bucket a; // merged start at a1's, wait at a1w's
  a.members = {1, 2};
  a.start_at = a.wait_at = 1;
  a.hoisted = {at("X")};
  BucketedGraph out = apply_buckets(std::move(g), intervals, {b, a});
  std::vector<std::string> order;
  for (const Node& n : out.graph.nodes)
    order.push_back(n.name);
  CHECK(order ==
        std::vector<std::string>{"x", "s", "w", "bucket0_all_gather_cat", "bucket0_all_gather",
                                 "bucket0_all_gather_wait", "bucket0_all_gather_split", "Y", "X",
                                 "bucket1_all_gather_cat", "bucket1_all_gather",
                                 "bucket1_all_gather_wait", "bucket1_all_gather_split", "output"});
  // Every reference points back, to what the member it replaces stood for.
  for (NodeId i = 0; i < out.graph.size(); ++i)
    for_each_data_input(out.graph.nodes[i], [&](NodeId d) { CHECK(d < i); });
  const Node& y = out.graph.nodes[*out.graph.find("Y")];
  CHECK(y.args[0].i == *out.graph.find("bucket0_all_gather_split"));
  CHECK(y.args[0].ref_output == 0);
  const Node& output = out.graph.nodes.back();
  CHECK(output.args[0].items()[2].i == *out.graph.find("bucket1_all_gather_split"));
  CHECK(output.args[0].items()[2].ref_output == 1);
  // The intervals follow the final positions; nothing was renamed twice.
  REQUIRE(out.intervals.size() == 2);
  CHECK(out.intervals[0].start == *out.graph.find("bucket0_all_gather"));
  CHECK(out.intervals[1].wait == *out.graph.find("bucket1_all_gather_wait"));
  CHECK(out.buckets[1].members == std::vector<std::string>{"a1", "a2"});
  for (NodeId i = 0; i < out.graph.size(); ++i)
    CHECK(out.graph.find(out.graph.nodes[i].name) == i);
  // Old positions: -1 for the nodes the rewrite made.
  CHECK(out.origin[*out.graph.find("X")] == 7);
  CHECK(out.origin[*out.graph.find("bucket0_all_gather")] == -1);
}

TEST_CASE("simulation plan: permuted to the schedule, it simulates as the reordered graph's own") {
  // The bucketing pass judges merged collectives on the scheduled graph
  // with a plan permuted from the input's: every figure must equal the one
  // a plan made from the reordered graph gives, merged collectives included.
  const Graph g = read_graph_file(test::source_path("testdata/example_llama_fsdp.json"));
  AnalyticalEstimator analytical(default_hardware());
  const RuntimeTable rt = estimate_runtimes(g, nullptr, nullptr, analytical);
  const ScheduleResult r = schedule_overlap(g, rt, SchedulerOptions{});
  REQUIRE(r.order != identity(g.nodes.size()));
  const Graph scheduled = apply_order(Graph(g), r.order);
  const SimulationPlan own =
      make_simulation_plan(scheduled, estimate_runtimes(scheduled, nullptr, nullptr, analytical));
  const SimulationPlan permuted = permute_plan(make_simulation_plan(g, rt), r.order);
  CHECK(permuted.role == own.role);
  CHECK(permuted.ms == own.ms);
  CHECK(permuted.blocks_offset == own.blocks_offset);
  CHECK(permuted.blocks_on == own.blocks_on);
  CHECK(permuted.collectives == own.collectives);
  // Two gathers merged, issued by the first.
  const std::vector<OverlapInterval> iv = overlap_intervals(r, r.order);
  REQUIRE(iv.size() > 3);
  MergedCollective two;
  two.starts = {iv[1].start, iv[2].start};
  two.ms = 0.5;
  two.issued_by = iv[1].start;
  const std::vector<MergedCollective> merged{two};
  const std::vector<NodeId> in_order = identity(g.nodes.size());
  for (const auto* m : {&merged, static_cast<const std::vector<MergedCollective>*>(nullptr)}) {
    const std::vector<MergedCollective> none;
    const SimulationResult a = simulate_step(permuted, in_order, m ? *m : none);
    const SimulationResult b = simulate_step(own, in_order, m ? *m : none);
    CHECK(a.step_ms == b.step_ms);
    CHECK(a.exposed_comm_ms == b.exposed_comm_ms);
    CHECK(a.collective_exposed_ms == b.collective_exposed_ms);
  }
}

namespace {

// The nearest compute node (the earlier on a tie) neither ancestor nor
// descendant of x, found by marking x's relatives one by one: the slow,
// obviously right answer PotentialOverlap must match.
// A graph of n nodes named n<i>: `sources` placeholders, then call_function
// nodes whose references inputs(i, node) adds (to nodes before i).
template <typename Inputs> Graph random_dag(NodeId n, NodeId sources, Inputs&& inputs) {
  Graph g;
  for (NodeId i = 0; i < n; ++i) {
    Node node;
    node.name = "n" + std::to_string(i);
    node.op = i < sources ? NodeOp::Placeholder : NodeOp::CallFunction;
    node.target = "t";
    if (i >= sources)
      inputs(i, node);
    g.nodes.push_back(std::move(node));
  }
  g.rebuild_index();
  return g;
}

NodeId nearest_independent_by_marking(const DependencyGraph& dg, const std::vector<NodeId>& compute,
                                      NodeId x) {
  std::vector<char> related(static_cast<size_t>(dg.size()), 0);
  related[x] = 1;
  for (int dir = 0; dir < 2; ++dir) {
    std::vector<NodeId> stack(1, x);
    while (!stack.empty()) {
      NodeId v = stack.back();
      stack.pop_back();
      auto [b, e] = dir == 0 ? dg.inputs(v) : dg.users(v);
      for (auto p = b; p != e; ++p)
        if (!related[*p]) {
          related[*p] = 1;
          stack.push_back(*p);
        }
    }
  }
  NodeId want = -1;
  for (NodeId c : compute) // ascending: a tie keeps the earlier node
    if (!related[c] && (want < 0 || std::abs(c - x) < std::abs(want - x)))
      want = c;
  return want;
}

} // namespace

TEST_CASE("potential overlap: the nearest independent compute, exactly, near and far") {
  // A chain-like random DAG (each node reads one or two recent nodes, some
  // read far back) where most nodes are related to almost every compute
  // node, so many queries exhaust the windowed search and take the batched
  // whole-graph path. Checked against marking each query's relatives alone.
  std::mt19937 rng(7);
  const NodeId n = 3000;
  const Graph g = random_dag(n, 1, [&](NodeId i, Node& node) {
    // The first half a plain chain (every query there is related to every
    // compute node), the second with side branches.
    const NodeId back = i < n / 2 ? 0 : static_cast<NodeId>(rng() % std::min<NodeId>(i, 3));
    node.args.push_back(Value::node_ref(i - 1 - back));
    if (i >= n / 2 && rng() % 8 == 0)
      node.args.push_back(Value::node_ref(static_cast<NodeId>(rng() % i)));
  });
  DependencyGraph dg(g);
  std::vector<NodeId> compute, queries;
  for (NodeId i = 0; i < n; ++i)
    (i % 3 == 0 ? compute : queries).push_back(i);
  std::vector<NodeId> got = PotentialOverlap(dg, compute).find_hiding(queries);
  size_t independent = 0;
  for (size_t k = 0; k < queries.size(); ++k) {
    const NodeId x = queries[k];
    const NodeId want = nearest_independent_by_marking(dg, compute, x);
    INFO("query " << x);
    CHECK(got[k] == want);
    independent += want >= 0;
  }
  // Both kinds occur: hideable queries and ones related to every compute node.
  CHECK(independent > 0);
  CHECK(independent < queries.size());
}

TEST_CASE("potential overlap: exact on branchy DAGs (the coverage proof and the search agree)") {
  // Pairs of compute nodes on parallel branches (a 2-D backward's input and
  // weight gradients), chains, and random far reads: the proven coverage
  // must never claim "no independent compute" where brute force finds one.
  for (uint32_t seed : {1u, 2u, 3u, 4u}) {
    std::mt19937 rng(seed);
    const NodeId n = 1500;
    const Graph g = random_dag(n, 1, [&](NodeId i, Node& node) {
      const NodeId fan = 1 + static_cast<NodeId>(rng() % (seed == 1 ? 1 : 3));
      for (NodeId k = 0; k < fan; ++k) {
        const NodeId back = static_cast<NodeId>(rng() % std::min<NodeId>(i, seed * 2));
        node.args.push_back(Value::node_ref(i - 1 - back));
      }
      if (rng() % 50 == 0)
        node.args.push_back(Value::node_ref(static_cast<NodeId>(rng() % i)));
    });
    DependencyGraph dg(g);
    std::vector<NodeId> compute, queries;
    for (NodeId i = 0; i < n; ++i)
      (rng() % 3 == 0 ? compute : queries).push_back(i);
    const std::vector<NodeId> got = PotentialOverlap(dg, compute).find_hiding(queries);
    for (size_t k = 0; k < queries.size(); ++k) {
      const NodeId x = queries[k];
      INFO("seed " << seed << " query " << x);
      REQUIRE(got[k] == nearest_independent_by_marking(dg, compute, x));
    }
  }
}

TEST_CASE("bounded ancestor query and ancestor bits agree with the plain walk for every member "
          "of the class") {
  for (uint32_t seed : {1u, 2u, 3u}) {
    std::mt19937 rng(seed);
    const NodeId n = 600;
    const Graph g = random_dag(n, 1, [&](NodeId i, Node& node) {
      for (NodeId k = 0; k < 1 + static_cast<NodeId>(rng() % 3); ++k)
        node.args.push_back(Value::node_ref(
            rng() % 20 == 0 ? static_cast<NodeId>(rng() % i)
                            : i - 1 - static_cast<NodeId>(rng() % std::min<NodeId>(i, 6))));
    });
    DependencyGraph dg(g);
    std::vector<char> member(n);
    for (auto& m : member)
      m = rng() % (seed + 2) == 0;
    const std::vector<NodeId> latest = latest_ancestors_in(dg, member);
    const AncestorBits bits(dg, member);
    REQUIRE(bits.answers());
    CHECK_FALSE(AncestorBits(dg, member, 0).answers()); // no room: callers walk
    int related = 0, unrelated = 0;
    for (NodeId a = 0; a < n; ++a) {
      if (!member[static_cast<size_t>(a)])
        continue;
      for (int q = 0; q < 40; ++q) {
        const NodeId b = static_cast<NodeId>(rng() % n);
        const bool want = dg.is_ancestor(a, b);
        INFO("seed " << seed << " a " << a << " b " << b);
        REQUIRE(dg.is_ancestor_bounded(a, b, latest) == want);
        REQUIRE(bits.is_ancestor(a, b) == want);
        (want ? related : unrelated)++;
      }
    }
    CHECK(related > 100);
    CHECK(unrelated > 100);
  }
}

TEST_CASE("descendant query: exact against a full walk, with chains and ancestor bounds") {
  // Random DAGs with chain runs (MoE-like: every candidate below the
  // overlap node), branches and far reads; queries from random overlap
  // nodes over windows of collective starts, checked against marking every
  // descendant.
  for (uint32_t seed : {1u, 2u, 3u, 4u, 5u, 6u}) {
    std::mt19937 rng(seed);
    const NodeId n = 1200;
    const Graph g = random_dag(n, 4, [&](NodeId i, Node& node) {
      // Seed 1: one chain; seed 6: long runs of single users (unary chains)
      // that fork now and then; others: 1-3 inputs nearby, sometimes only a
      // placeholder (a weight's gather), sometimes far back.
      if (seed == 6) {
        node.args.push_back(
            Value::node_ref(rng() % 8 == 0 ? i - 1 - static_cast<NodeId>(rng() % 3) : i - 1));
        return;
      }
      const NodeId fan = seed == 1 ? 1 : 1 + static_cast<NodeId>(rng() % 3);
      for (NodeId k = 0; k < fan; ++k) {
        if (seed > 1 && rng() % 10 == 0) {
          node.args.push_back(Value::node_ref(static_cast<NodeId>(rng() % 4)));
          continue;
        }
        const NodeId back = static_cast<NodeId>(rng() % std::min<NodeId>(i - 3, 4 * seed));
        node.args.push_back(Value::node_ref(i - 1 - back));
      }
      if (rng() % 40 == 0)
        node.args.push_back(Value::node_ref(static_cast<NodeId>(rng() % i)));
    });
    DependencyGraph dg(g);
    std::vector<char> can_overlap(n);
    std::vector<NodeId> starts, overlaps;
    for (NodeId i = 4; i < n; ++i) {
      const uint32_t r = rng() % 6;
      if (r == 0)
        starts.push_back(i);
      can_overlap[static_cast<size_t>(i)] = r >= 3;
      if (r >= 3)
        overlaps.push_back(i);
    }
    // Both ways of answering: the window's bits where it holds the query,
    // and the walk alone.
    const CollectiveChains chains = build_collective_chains(dg, starts, can_overlap);
    for (bool window : {true, false}) {
      DescendantQuery query(dg, chains, window);
      std::vector<char> got;
      bool some_below = false, some_not = false;
      for (int q = 0; q < 300; ++q) {
        const NodeId from = overlaps[rng() % overlaps.size()];
        // A window of starts from a random point, some skipped (the
        // scheduler skips other groups' and too-distant ones).
        std::vector<NodeId> window;
        for (size_t k = rng() % starts.size(); k < starts.size() && window.size() < 40; ++k)
          if (rng() % 4 != 0)
            window.push_back(starts[k]);
        query.classify(from, window, got);
        std::vector<char> below(static_cast<size_t>(n), 0);
        std::vector<NodeId> stack{from};
        while (!stack.empty()) {
          const NodeId v = stack.back();
          stack.pop_back();
          auto [b, e] = dg.users(v);
          for (auto p = b; p != e; ++p)
            if (!below[static_cast<size_t>(*p)]) {
              below[static_cast<size_t>(*p)] = 1;
              stack.push_back(*p);
            }
        }
        REQUIRE(got.size() == window.size());
        for (size_t k = 0; k < window.size(); ++k) {
          INFO("seed " << seed << " from " << from << " candidate " << window[k]);
          REQUIRE(static_cast<bool>(got[k]) ==
                  static_cast<bool>(below[static_cast<size_t>(window[k])]));
          (got[k] ? some_below : some_not) = true;
        }
      }
      CHECK(some_below);
      if (seed > 1)
        CHECK(some_not);
    }
  }
}

TEST_CASE("forward range max agrees with a plain array, short scans and long tree queries") {
  std::mt19937_64 rng(11);
  for (size_t n : {size_t{1}, size_t{2}, size_t{9}, size_t{700}, size_t{1500}}) {
    std::vector<int64_t> plain(n);
    for (auto& v : plain)
      v = static_cast<int64_t>(rng() % 1000) - 500;
    ForwardRangeMax ranges(plain);
    size_t cursor = 0;
    for (int step = 0; step < 3000; ++step) {
      if (rng() % 8 == 0)
        cursor = std::min(n, cursor + rng() % 4); // forward only
      // Ranges of every length, some past the end (clamped), some empty.
      const size_t hi = cursor + (rng() % 2 ? rng() % 16 : rng() % (n + 3));
      if (rng() % 3 == 0) {
        const int64_t delta = static_cast<int64_t>(rng() % 1001);
        ranges.add(cursor, hi, delta);
        for (size_t i = cursor; i < std::min(hi, n); ++i)
          plain[i] += delta;
      } else {
        int64_t most = std::numeric_limits<int64_t>::min();
        for (size_t i = cursor; i < std::min(hi, n); ++i)
          most = std::max(most, plain[i]);
        if (cursor >= std::min(hi, n)) { // empty: nothing is above any limit
          REQUIRE_FALSE(ranges.any_above(cursor, hi, std::numeric_limits<int64_t>::min()));
          continue;
        }
        // Limits just below, at and above the true max.
        for (int64_t limit : {most - 1, most, most + 1}) {
          INFO("n " << n << " step " << step << " [" << cursor << ", " << hi << ") limit "
                    << limit);
          REQUIRE(ranges.any_above(cursor, hi, limit) == (most > limit));
        }
      }
    }
  }
}

TEST_CASE("range add / range max agrees with a plain array") {
  std::mt19937_64 rng(7);
  for (size_t n : {size_t{1}, size_t{2}, size_t{3}, size_t{17}, size_t{64}, size_t{100}}) {
    std::vector<int64_t> plain(n);
    for (auto& v : plain)
      v = static_cast<int64_t>(rng() % 1000) - 500;
    RangeAddMax tree(plain);
    for (int step = 0; step < 2000; ++step) {
      size_t lo = rng() % (n + 1), hi = rng() % (n + 3); // past the end: clamped
      if (rng() % 2) {
        const int64_t delta = static_cast<int64_t>(rng() % 2001) - 1000;
        tree.add(lo, hi, delta);
        for (size_t i = lo; i < std::min(hi, n); ++i)
          plain[i] += delta;
      } else {
        int64_t want = std::numeric_limits<int64_t>::min();
        for (size_t i = lo; i < std::min(hi, n); ++i)
          want = std::max(want, plain[i]);
        INFO("n " << n << " step " << step << " [" << lo << ", " << hi << ")");
        REQUIRE(tree.max(lo, hi) == want);
      }
      REQUIRE(tree.max_all() == *std::max_element(plain.begin(), plain.end()));
    }
  }
}
