// Correctness on the graphs real training steps export: in-place writes
// (FSDP2 copy-in/copy-out, chunk_cat, all_reduce_, exporter-stated
// `mutates`), every collective variant, metadata-only users, and the memory
// budget as a guarantee. Expected orders follow from the write semantics (a
// reader of a buffer runs after the node that fills it), not from the tool's
// own output; each graph's docstring in tests/gen_testdata.py says why.

#include <catch2/catch.hpp>

#include <filesystem>
#include <numeric>

#include "analysis/stats.h"
#include "analysis/verify.h"
#include "cost/flops.h"
#include "format/graph_file.h"
#include "memory/memory_tracker.h"
#include "memory/storage_map.h"
#include "ops/collective.h"
#include "ops/mutation.h"
#include "ops/op_table.h"
#include "pipeline/schedule_pipeline.h"
#include "report/report_json.h"
#include "schedule_support.h"
#include "scheduler/reorder.h"
#include "test_support.h"

using namespace osched;
using namespace osched::test;
using json = nlohmann::json;

namespace {

struct Run {
  Graph original;
  ScheduleOutput out;
  json report; // out.report as written
  std::vector<std::string> order;
  size_t pos(const std::string& name) const {
    auto it = std::find(order.begin(), order.end(), name);
    INFO("node " << name);
    REQUIRE(it != order.end());
    return static_cast<size_t>(it - order.begin());
  }
  const json& collective(const std::string& name) const {
    for (const auto& c : report["collectives"])
      if (c["name"] == name)
        return c;
    FAIL("no collective " << name);
    return report;
  }
};

Run schedule(Graph g, const ScheduleConfig& cfg = {},
             std::shared_ptr<const CostFiles> costs = nullptr) {
  Run r;
  r.original = g;
  r.out = schedule_graph(r.original, graph_to_json_text(r.original), cfg, std::move(costs));
  r.report = report_to_json(r.out.report);
  for (const auto& n : r.out.graph.nodes)
    r.order.push_back(n.name);
  auto violation = verify_reordering(r.original, r.out.graph);
  INFO((violation ? *violation : std::string("ok")));
  REQUIRE_FALSE(violation.has_value());
  return r;
}

Graph scenario(const std::string& name) {
  return read_graph_file(source_path("testdata/scenarios/" + name + ".json"));
}

// The same graph with every write fact removed: what the tool saw before the
// format could say a node writes its arguments.
Graph without_mutation(Graph g) {
  for (Node& n : g.nodes)
    n.edit_attrs().mutates = std::vector<MutatedArg>{};
  return g;
}

// A hand-made order: `moved` placed just before `anchor`, the rest as given.
Graph move_before(const Graph& g, const std::string& moved, const std::string& anchor) {
  std::vector<NodeId> order;
  const NodeId m = *g.find(moved), a = *g.find(anchor);
  for (NodeId i = 0; i < g.size(); ++i) {
    if (i == m)
      continue;
    if (i == a)
      order.push_back(m);
    order.push_back(i);
  }
  return apply_order(g, order);
}

// Bucketing after scheduling alone: these tests are about its planner and
// rewrite (pre-bucketing has tests of its own).
ScheduleConfig bucketing_config() {
  ScheduleConfig cfg;
  cfg.collective_bucketing = true;
  cfg.pre_bucketing = PreBucketing::Off;
  return cfg;
}

int64_t measured_peak(const Graph& g) {
  std::vector<NodeId> identity(g.nodes.size());
  std::iota(identity.begin(), identity.end(), 0);
  return memory_profile(build_storage_map(g), identity).peak;
}

} // namespace

TEST_CASE("FSDP2 copy-in: matmuls read the unsharded weights only after split_with_sizes_copy "
          "fills them") {
  Run r = schedule(scenario("fsdp2_copy_in"));
  for (const char* reader : {"mm0", "mm1"}) {
    INFO(reader);
    CHECK(r.pos("copy_in") < r.pos("ag"));
    CHECK(r.pos("ag_wait") < r.pos("split_copy"));
    CHECK(r.pos("split_copy") < r.pos(reader));
  }
  // The all-gather still overlaps the independent previous layer.
  CHECK(r.collective("ag")["hidden_by"] == json::array({"prev_mm"}));

  // Without the write facts the copy has no users and sinks past its readers:
  // the schedule this issue reported.
  Run blind = schedule(without_mutation(scenario("fsdp2_copy_in")));
  CHECK(blind.pos("split_copy") > blind.pos("mm0"));
  // ...which verify, knowing the writes, rejects.
  auto v = verify_reordering(r.original, blind.out.graph);
  REQUIRE(v.has_value());
  CHECK(v->find("write order violated") != std::string::npos);
}

TEST_CASE("verify rejects a hand-made reorder across an in-place write") {
  Graph g = scenario("fsdp2_copy_in");
  // mm0 reads w0, which split_copy writes. split_copy is node 13 of the
  // file; moved last (before the output), it takes position 17 and the
  // nodes after it move up one: prev_mm 13, mm0 14.
  auto v = verify_reordering(g, move_before(g, "split_copy", "output"));
  REQUIRE(v.has_value());
  CHECK(
      *v ==
      "write order violated: 'mm0' (position 14) reads storage that 'split_copy' writes in place, "
      "but now comes before it (position 17)");
  // split_copy before the all-gather's wait: the buffer is not complete yet.
  v = verify_reordering(g, move_before(g, "w0_view", "ag_wait"));
  CHECK_FALSE(v.has_value()); // a view reads no data
  // The reduce-scatter reads rs_buf, which chunk_cat fills.
  Graph h = scenario("fsdp2_chunk_cat_rs");
  v = verify_reordering(h, move_before(h, "rs", "chunk_cat"));
  REQUIRE(v.has_value());
  CHECK(v->find("'rs'") != std::string::npos);
  CHECK(v->find("reads storage that 'chunk_cat' writes in place") != std::string::npos);
  // A legal reorder stays legal.
  CHECK_FALSE(verify_reordering(g, move_before(g, "prev_mm", "ag_buf")).has_value());
}

TEST_CASE("chunk_cat out= runs before the reduce-scatter that reads its buffer") {
  Run r = schedule(scenario("fsdp2_chunk_cat_rs"));
  CHECK(r.pos("grad_w0") < r.pos("chunk_cat"));
  CHECK(r.pos("grad_w1") < r.pos("chunk_cat"));
  CHECK(r.pos("chunk_cat") < r.pos("rs"));
  CHECK(r.collective("rs")["hidden_by"] == json::array({"dx"}));
  Run blind = schedule(without_mutation(scenario("fsdp2_chunk_cat_rs")));
  CHECK(blind.pos("rs") < blind.pos("chunk_cat"));
}

TEST_CASE("in-place all_reduce_ and exporter-stated mutates order the buffer's readers") {
  Graph g = scenario("inplace_all_reduce");
  const Node& acc = g.nodes[*g.find("accumulate")];
  REQUIRE(acc.attrs().mutates);
  CHECK(mutated_args(acc) == std::vector<MutatedArg>{{0, ""}});
  CHECK(builtin_mutated_args(acc).empty()); // unknown op: only the exporter knows
  CHECK(builtin_mutated_args(g.nodes[*g.find("ar_")]) == std::vector<MutatedArg>{{0, ""}});
  Run r = schedule(g);
  CHECK(r.pos("ar_wait") < r.pos("mm_after")); // reads the reduced buffer itself
  CHECK(r.pos("mm_after") < r.pos("accumulate"));
  CHECK(r.pos("accumulate") < r.pos("mm_acc"));
  CHECK(r.collective("ar_")["hidden_by"] == json::array({"mm_free"}));
}

TEST_CASE("the built-in table knows FSDP, out= and in-place writers") {
  auto node = [](std::string target, std::vector<Value> args,
                 std::vector<std::pair<std::string, Value>> kw = {}) {
    Node n;
    n.target = std::move(target);
    n.args = std::move(args);
    n.edit_attrs().kwargs = std::move(kw);
    return n;
  };
  const Value r = Value::node_ref(0);
  Value list;
  list.kind = Value::Kind::List;
  list.edit_items() = {r, r};
  using M = std::vector<MutatedArg>;
  CHECK(mutated_args(node("aten.add_.Tensor", {r, r})) == M{{0, ""}});
  CHECK(mutated_args(node("aten.copy_.default", {r, r})) == M{{0, ""}});
  CHECK(mutated_args(node("aten._foreach_copy_.default", {list, list})) == M{{0, ""}});
  CHECK(mutated_args(node("aten.__iadd__.Tensor", {r, r})) == M{{0, ""}});
  CHECK(mutated_args(node("aten.__and__.Tensor", {r, r})).empty());
  CHECK(mutated_args(node("aten.add.Tensor", {r, r})).empty());
  CHECK(mutated_args(node("aten.mm.out", {r, r}, {{"out", r}})) == M{{-1, "out"}});
  CHECK(mutated_args(node("fsdp.all_gather_copy_in.default", {list, r})) == M{{1, ""}});
  CHECK(mutated_args(node("fsdp.split_with_sizes_copy.default", {r}, {{"out", list}})) ==
        M{{-1, "out"}});
  CHECK(mutated_args(node("fsdp.chunk_cat.default", {list}, {{"out", r}})) == M{{-1, "out"}});
  CHECK(mutated_args(node("_c10d_functional.broadcast_.default", {r})) == M{{0, ""}});
  CHECK(mutated_args(node("_c10d_functional.wait_tensor.default", {r})).empty());
  CHECK(mutated_args(node("higher_order.auto_functionalized_v2", {},
                          {{"_all_bases", list}, {"x", r}})) == M{{-1, "_all_bases"}});
  CHECK(mutated_args(node("higher_order.auto_functionalized", {},
                          {{"a", r}, {"eps", Value::real(1.0)}})) == M{{-1, "a"}});
  CHECK_FALSE(outputs_alias_mutated(node("higher_order.auto_functionalized", {})));
  CHECK(outputs_alias_mutated(node("aten.add_.Tensor", {r, r})));

  // From the op schemas (schemas/torch_op_writes.tsv): a writer whose name
  // says nothing. PyTorch's schema: _native_batch_norm_legit(Tensor input,
  // Tensor? weight, Tensor? bias, Tensor(a!) running_mean, Tensor(b!)
  // running_var, bool training, float momentum, float eps).
  const Value t = Value::boolean(true), m = Value::real(0.1), e = Value::real(1e-5);
  CHECK(mutated_args(node("aten._native_batch_norm_legit.default", {r, r, r, r, r, t, m, e})) ==
        M{{3, ""}, {4, ""}});
  // Its no_stats overload writes nothing; keyword-only outputs by name.
  CHECK(mutated_args(node("aten._native_batch_norm_legit.no_stats", {r, r, r, t, m, e})).empty());
  CHECK(mutated_args(node("aten.native_dropout_backward.out", {r, r, m}, {{"out", r}})) ==
        M{{-1, "out"}});
  // A written argument given as None (an optional buffer) writes nothing.
  CHECK(mutated_args(node("aten._native_batch_norm_legit.default",
                          {r, r, r, Value::null(), r, t, m, e})) == M{{4, ""}});
}

TEST_CASE("every collective variant is recognised with its kind, group and bytes") {
  Graph g = scenario("collective_variants");
  struct Want {
    const char* name;
    CollectiveKind kind;
    const char* group;
    int64_t bytes; // input + output, float32
  };
  // 64x64 floats are 16384 bytes; 128x64, 32768.
  const Want want[] = {
      {"ag_out", CollectiveKind::AllGather, "0", 16384 + 32768},
      {"rs_out", CollectiveKind::ReduceScatter, "0", 32768 + 16384},
      {"ar_inplace", CollectiveKind::AllReduce, "0", 2 * 16384},
      {"bcast", CollectiveKind::Broadcast, "0", 2 * 16384},
      {"a2a", CollectiveKind::AllToAll, "0", 2 * 16384},
      {"ag_coal", CollectiveKind::AllGather, "0", 2 * 16384 + 2 * 32768},
      {"rs_coal", CollectiveKind::ReduceScatter, "0", 2 * 32768 + 2 * 16384},
      {"ag_autograd", CollectiveKind::AllGather, "0", 16384 + 32768},
      {"legacy_ar", CollectiveKind::AllReduce, "ranks:0,1", 2 * 16384},
      {"legacy_ag", CollectiveKind::AllGather, "ranks:0,1", 16384 + 32768},
  };
  GraphStats stats = compute_stats(g);
  CHECK(stats.collectives == 10);
  CHECK(stats.waits == 12);
  CHECK(stats.groups.at("0").count == 8);
  CHECK(stats.groups.at("ranks:0,1").count == 2);
  for (const Want& w : want) {
    INFO(w.name);
    const NodeId id = *g.find(w.name);
    auto c = decode_collective(g, id);
    REQUIRE(c);
    CHECK(c->kind == w.kind);
    CHECK(c->group == w.group);
    CHECK(c->size_bytes == w.bytes);
    CHECK(c->group_size == 2);
  }
  // The two ops in collective namespaces that are not modelled are named.
  REQUIRE(stats.warnings.size() == 2);
  CHECK(stats.warnings[0].find("'c10d_allreduce'") != std::string::npos);
  CHECK(stats.warnings[1].find("'dtensor_a2a'") != std::string::npos);

  Run r = schedule(g);
  // ... and, as communication the tool does not model, they keep their
  // place among the collectives.
  REQUIRE(r.out.report.warnings.size() == 3);
  CHECK(r.out.report.warnings[2].find("2 op(s) the tool cannot classify") == 0);
  CHECK(r.out.report.safety.opaque_ops.size() == 2);
  CHECK(r.out.report.collectives.size() == 10);
  CHECK_FALSE(r.collective("bcast")["schedulable"].get<bool>());
  CHECK(r.collective("bcast")["why_exposed"][0].get<std::string>().find("broadcast") !=
        std::string::npos);
  for (const char* name : {"ag_out", "rs_out", "ar_inplace", "a2a", "ag_coal", "rs_coal",
                           "ag_autograd", "legacy_ar", "legacy_ag"}) {
    INFO(name);
    CHECK(r.collective(name)["schedulable"].get<bool>());
  }
  // Coalesced forms complete at their first wait, through an index or a getitem.
  CHECK(r.collective("ag_coal")["wait"] == "ag_coal_wait0");
  CHECK(r.collective("rs_coal")["wait"] == "rs_coal_wait0");
  CHECK(r.pos("ag_coal_wait0") < r.pos("ag_coal_wait1"));
  CHECK(r.pos("rs_coal_wait0") < r.pos("rs_coal_wait1"));
  // A wait through getitem blocks in the simulation like any other (the
  // scheduler found nothing to hide rs_coal).
  CHECK(r.collective("rs_coal")["greedy_exposed_ms"] == r.collective("rs_coal")["estimated_ms"]);
  CHECK(r.collective("rs_coal")["exposed_ms"].get<double>() > 0);
  // The out= buffers are read through the waits only after the writes land.
  CHECK(r.pos("ag_out") < r.pos("ag_out_wait"));

  CliResult cli = run_cli("stats " + source_path("testdata/scenarios/collective_variants.json"));
  CHECK(cli.exit_code == 0);
  CHECK(cli.out.find("collectives: 10, waits: 12") != std::string::npos);
  CHECK(cli.out.find("warning: node 'c10d_allreduce'") != std::string::npos);
}

TEST_CASE("a collective whose raw result is read only for metadata is schedulable") {
  Run r = schedule(scenario("moe_a2a_sym_size"));
  for (int l = 0; l < 4; ++l) {
    const std::string d = "dispatch" + std::to_string(l);
    INFO(d);
    const json& c = r.collective(d);
    CHECK(c["schedulable"].get<bool>());
    CHECK(c["hidden_by"] == json::array({"shared" + std::to_string(l)}));
    CHECK(c["exposed_ms"].get<double>() < c["estimated_ms"].get<double>());
    // Off the compute path, the size read waits until every compute node
    // has run, as upstream orders it.
    CHECK(r.pos("tokens" + std::to_string(l)) > r.pos("expert3"));
  }
  // --release-memory-early runs it as soon as the all-to-all is issued.
  ScheduleConfig early;
  early.cost_model = CostModel::ComputeOnly; // the scenario's hand-derived timing
  early.scheduler.release_memory_early = true;
  Run e = schedule(scenario("moe_a2a_sym_size"), early);
  for (int l = 0; l < 3; ++l)
    CHECK(e.pos("tokens" + std::to_string(l)) < e.pos("dispatch" + std::to_string(l + 1)));
}

TEST_CASE("a collective read raw by another node stays in place and says why") {
  Graph g = scenario("moe_a2a_sym_size");
  // The output returns dispatch0's raw result as well.
  Node& out = g.nodes.back();
  out.args[0].edit_items().push_back(Value::node_ref(*g.find("dispatch0")));
  Run r = schedule(g);
  CHECK_FALSE(r.collective("dispatch0")["schedulable"].get<bool>());
  CHECK(r.collective("dispatch0")["why_exposed"][0] ==
        "not schedulable: its raw (unwaited) result is also a graph output");
  CHECK(r.collective("dispatch1")["schedulable"].get<bool>());
}

TEST_CASE("flex_attention is compute and hides an all-gather") {
  CHECK(is_compute_target("higher_order.flex_attention"));
  CHECK(is_compute_target("higher_order.flex_attention_backward"));
  Graph g = scenario("flex_attention");
  // Dense bound of q·kᵀ and p·v: 2 matmuls of 2·b·h·s_q·s_k·d = 4·4·16·1024·1024·64.
  CHECK(count_flops(g, *g.find("attn")) == Approx(4.0 * 4 * 16 * 1024 * 1024 * 64));
  Run r = schedule(g);
  CHECK(r.collective("ag")["hidden_by"] == json::array({"attn"}));
}

TEST_CASE("the report's peak is the output's peak and never above the budget") {
  const std::vector<std::string> graphs = valid_graphs();
  REQUIRE(graphs.size() >= 15);
  for (const auto& path : graphs) {
    for (int variant = 0; variant < 3; ++variant) {
      INFO(path << " variant " << variant);
      ScheduleConfig cfg;
      if (variant >= 1) { // no increase allowed at all
        cfg.scheduler.max_memory_increase_gb = 0;
        cfg.scheduler.max_memory_increase_ratio = 0;
      }
      cfg.collective_bucketing = variant == 2;
      Graph g = read_graph_file(path);
      ScheduleOutput out = schedule_graph(g, read_text(path), cfg);
      const auto& m = out.report.memory;
      const int64_t peak = m.scheduled_peak_bytes;
      CHECK(peak == measured_peak(out.graph));
      CHECK(peak <= m.budget_bytes);
      CHECK(m.original_peak_bytes == measured_peak(g));
      CHECK_FALSE(verify_reordering(g, out.graph).has_value());
    }
  }
}

TEST_CASE("with no memory increase allowed and early release, the MoE schedule keeps its peak") {
  // Upstream's order keeps every dispatch buffer alive for its size read at
  // the end, over the budget, so upstream's policy falls back to the
  // original order; releasing early keeps the reordering within it.
  ScheduleConfig cfg;
  cfg.policy = OrderSearchKind::Upstream;
  cfg.scheduler.max_memory_increase_gb = 0;
  cfg.scheduler.max_memory_increase_ratio = 0;
  const Run fallback = schedule(scenario("moe_a2a_sym_size"), cfg);
  CHECK(fallback.out.report.memory.kept_original_order == true);
  // The default policy's search starts from that fallback: still within the
  // original peak, and never slower than upstream's result.
  cfg.policy = OrderSearchKind::Improved;
  {
    Run r = schedule(scenario("moe_a2a_sym_size"), cfg);
    const auto& m = r.out.report.memory;
    CHECK(m.scheduled_peak_bytes <= m.original_peak_bytes);
    CHECK(m.scheduled_peak_bytes == measured_peak(r.out.graph));
    CHECK(r.out.report.simulation.step_ms_after <= fallback.out.report.simulation.step_ms_after);
  }
  cfg.policy = OrderSearchKind::Upstream;
  cfg.scheduler.release_memory_early = true;
  Run r = schedule(scenario("moe_a2a_sym_size"), cfg);
  const auto& m = r.out.report.memory;
  CHECK(m.scheduled_peak_bytes == m.original_peak_bytes);
  CHECK(m.scheduled_peak_bytes == measured_peak(r.out.graph));
  CHECK_FALSE(m.kept_original_order);
}

TEST_CASE("a bucket that makes the step slower is given up") {
  Graph g = scenario("bucketing");
  ScheduleOutput out =
      schedule_graph(g, read_text(source_path("testdata/scenarios/bucketing.json")),
                     bucketing_config(), scenario_estimates("estimates_bucketing_slow.json"));
  const ReportBucketing& b = *out.report.bucketing;
  // ag_a + ag_b + ag_c would merge (test_bucketing.cpp), but the merged
  // all-gather takes 5 ms against 3 x 0.2 ms.
  CHECK(b.buckets.empty());
  CHECK(b.dropped_for_time == 1);
  CHECK(b.simulated_step_ms <= b.unbucketed_step_ms);
  // The report says why: unbucketed, the three 0.2 ms gathers run behind
  // mm1's 1 ms; merged, 5 ms of which the graph's three 1 ms matmuls hide
  // at most 3.
  REQUIRE(b.given_up.size() == 1);
  CHECK(b.given_up[0].members == std::vector<std::string>{"ag_a", "ag_b", "ag_c"});
  CHECK(b.given_up[0].why == "time");
  CHECK(b.given_up[0].members_exposed_ms == 0);
  CHECK(b.given_up[0].merged_cost_ms >= 2.0);
  // Each stream, before and after: group 0 runs ag_a, ag_b, ag_c and ag_e
  // (0.2 ms each), group 1 ag_d.
  REQUIRE(b.streams.size() == 2);
  CHECK(b.streams[0].group == "0");
  CHECK(b.streams[0].collectives_before == 4);
  CHECK(b.streams[0].collectives_after == 4);
  CHECK(b.streams[0].busy_ms_before == Approx(0.8));
  CHECK(b.streams[0].busy_ms_after == Approx(0.8));
  CHECK(b.streams[1].group == "1");
  CHECK(b.streams[1].collectives_after == 1);
  CHECK(b.streams[1].busy_ms_after == Approx(0.2));
  CHECK(out.graph.find("ag_a").has_value());
  CHECK(out.graph.find("ag_b").has_value());
  CHECK_FALSE(verify_reordering(g, out.graph).has_value());
}

TEST_CASE("when no reordering fits the memory budget, the original order is kept") {
  // By hand, in MiB (float32), counted as upstream (after each node's frees,
  // inputs freed after their last reader): x 4, w 4, p 8 live at the start
  // (16); each matmul and the relu 4; the all-gather's output 16. Original
  // order, the all-gather last: peak 20 (16 + mm0 4 - x 4; 12 + ag 16 - p 8).
  // The schedule starts ag at mm0 (off the compute path, so exempt from the
  // prefetch check): 16 + 16 - 8 = 24 after ag, and still 24 after mm0 and
  // relu0, each of which frees as much as it allocates.
  const int64_t mib = 1 << 20;
  // Estimates: a matmul hides exactly one collective (1 ms each).
  const std::shared_ptr<const CostFiles> unit = scenario_estimates("estimates_unit.json");
  Run loose = schedule(scenario("memory_tight"), {}, unit);
  CHECK(loose.out.report.memory.original_peak_bytes == 20 * mib);
  CHECK(loose.out.report.memory.scheduled_peak_bytes == 24 * mib);
  CHECK(loose.collective("ag")["hidden_by"] == json::array({"mm0"}));

  ScheduleConfig cfg;
  cfg.scheduler.max_memory_increase_gb = 0;
  cfg.scheduler.max_memory_increase_ratio = 0;
  Run tight = schedule(scenario("memory_tight"), cfg, unit);
  const auto& m = tight.out.report.memory;
  CHECK(m.kept_original_order);
  CHECK(m.budget_retries == 1); // a lower budget does not stop an exempt prefetch
  CHECK(m.scheduled_peak_bytes == 20 * mib);
  std::vector<std::string> original;
  for (const auto& n : tight.original.nodes)
    original.push_back(n.name);
  CHECK(tight.order == original);
  CHECK(tight.collective("ag")["hidden_by"].empty());
  CHECK(tight.collective("ag")["why_exposed"][0].get<std::string>().find(
            "kept in the original order") == 0);
  CHECK(tight.out.report.simulation.step_ms_after == tight.out.report.simulation.step_ms_before);
}

TEST_CASE("collectives whose buffers are written in place are not bucketed") {
  Graph g = scenario("bucketing");
  // Without writes ag_a and ag_b merge (test_bucketing.cpp). Here ag_a's
  // result is then written in place by its user, so moving ag_a's completion
  // would cross that write.
  g.nodes[*g.find("use_ag_a_wait")].edit_attrs().mutates = std::vector<MutatedArg>{{0, ""}};
  ScheduleOutput out = schedule_graph(g, graph_to_json_text(g), bucketing_config(),
                                      scenario_estimates("estimates_bucketing.json"));
  for (const auto& b : out.report.bucketing->buckets)
    CHECK(std::count(b.members.begin(), b.members.end(), "ag_a") == 0);
  CHECK(out.graph.find("ag_a").has_value());
  CHECK_FALSE(verify_reordering(g, out.graph).has_value());
}

TEST_CASE("the step predicted for buckets before the rewrite is the rewritten graph's") {
  // Buckets are judged by simulating merged collectives on the scheduled
  // graph; the rewritten graph, estimated and simulated anew, must agree:
  // its copy-in and copy-out kernels included, and the conversions the
  // copy-in replaces gone.
  for (const bool copies_cost : {false, true}) {
    INFO("copies cost: " << copies_cost);
    const std::shared_ptr<CostFiles> costs = scenario_estimates("estimates_bucketing.json");
    if (copies_cost) {
      costs->estimates->ops["overlap_sched.bucket_cat.default"] = 0.01;
      costs->estimates->ops["overlap_sched.bucket_split.default"] = 0.005;
      costs->estimates->ops["prims.convert_element_type.default"] = 0.02;
    }
    for (const std::string name : {"basic_all_gather_bucketing", "bucketing_with_convert_dtype"}) {
      INFO(name);
      Graph g = scenario(name);
      ScheduleOutput out = schedule_graph(g, graph_to_json_text(g), bucketing_config(), costs);
      const ReportBucketing& b = *out.report.bucketing;
      REQUIRE(b.buckets.size() > 0);
      CHECK(b.dropped_for_memory == 0);
      CHECK(b.predicted_step_ms == Approx(b.simulated_step_ms).epsilon(1e-9));
      CHECK(b.simulated_step_ms <= b.unbucketed_step_ms);
    }
  }
  // The llama example under the kernel model: buckets whose copies cost
  // more than they save are given up, and what is written is predicted.
  ScheduleConfig cfg;
  cfg.collective_bucketing = true;
  const std::string path = source_path("testdata/example_llama_fsdp.json");
  Graph g = read_graph_file(path);
  ScheduleOutput out = schedule_graph(g, read_text(path), cfg);
  const ReportBucketing& b = *out.report.bucketing;
  CHECK(b.predicted_step_ms == Approx(b.simulated_step_ms).epsilon(1e-9));
  CHECK(b.simulated_step_ms <= b.unbucketed_step_ms);
}
