// --policy improved: the local search after the greedy, on small graphs
// with unit estimates so every step time is computed by hand.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <random>

#include "analysis/verify.h"
#include "cost/estimator.h"
#include "format/graph_file.h"
#include "memory/memory_tracker.h"
#include "memory/storage_map.h"
#include "memory/window_peak.h"
#include "report/report.h"
#include "report/report_summary.h"
#include "report/timeline.h"
#include "scheduler/dependency_graph.h"
#include "scheduler/order_search.h"
#include "scheduler/overlap_scheduler.h"
#include "scheduler/refine_order.h"
#include "scheduler/schedule_analysis.h"
#include "sim/prefix_simulator.h"
#include "sim/simulate.h"
#include "test_support.h"

using namespace osched;
using namespace osched::test;

namespace {

// x -> mm0 -> mm1; an all-gather of w, issued only after mm1, feeds mm2:
// in this order the 1 ms gather is fully exposed (step 1 + 1 + 1 + 1 = 4 ms).
// `with_cast`: the gather reads a cast of w placed just before it.
Graph late_gather(bool with_cast = false) {
  const std::string cast = with_cast ? R"(
      {"name": "w_cast", "op": "call_function", "target": "prims.convert_element_type.default",
       "args": [{"node": "w"}, "float32"],
       "val": {"dtype": "float32", "shape": [2, 8], "stride": [8, 1], "device": "cuda:0"}},)"
                                     : "";
  return inline_graph(R"(
      {"name": "w", "op": "placeholder", "target": "w",
       "val": {"dtype": "float32", "shape": [2, 8], "stride": [8, 1], "device": "cuda:0"}},
      {"name": "t8", "op": "call_function", "target": "aten.t.default", "args": [{"node": "x"}],
       "val": {"dtype": "float32", "shape": [8, 4], "stride": [1, 8], "device": "cuda:0"}},
      {"name": "mm0", "op": "call_function", "target": "aten.mm.default", "args": [{"node": "x"}, {"node": "t8"}],
       "val": {"dtype": "float32", "shape": [4, 4], "stride": [4, 1], "device": "cuda:0"}},
      {"name": "mm1", "op": "call_function", "target": "aten.mm.default", "args": [{"node": "mm0"}, {"node": "mm0"}],
       "val": {"dtype": "float32", "shape": [4, 4], "stride": [4, 1], "device": "cuda:0"}},)" +
                          cast + R"(
      {"name": "ag", "op": "call_function", "target": "_c10d_functional.all_gather_into_tensor.default",
       "args": [{"node": ")" +
                          std::string(with_cast ? "w_cast" : "w") + R"("}, 4, "tp"],
       "val": {"dtype": "float32", "shape": [8, 8], "stride": [8, 1], "device": "cuda:0"}},
      {"name": "ag_wait", "op": "call_function", "target": "_c10d_functional.wait_tensor.default", "args": [{"node": "ag"}],
       "val": {"dtype": "float32", "shape": [8, 8], "stride": [8, 1], "device": "cuda:0"}},
      {"name": "mm2", "op": "call_function", "target": "aten.mm.default", "args": [{"node": "mm1"}, {"node": "ag_wait"}],
       "val": {"dtype": "float32", "shape": [4, 8], "stride": [8, 1], "device": "cuda:0"}})",
                      R"([{"node": "mm2"}])");
}

RuntimeTable unit_runtimes(const Graph& g) {
  RuntimeTable rt;
  rt.ms.assign(g.nodes.size(), 0);
  rt.source.assign(g.nodes.size(), RuntimeSource::Custom);
  for (const char* n : {"mm0", "mm1", "mm2", "ag"})
    rt.ms[static_cast<size_t>(*g.find(n))] = 1.0;
  return rt;
}

// The late-gather graph in its own order, with unit runtimes.
struct LateGather {
  Graph g = late_gather();
  std::vector<NodeId> order;
  RuntimeTable rt;
  LateGather() {
    g.rebuild_index();
    for (NodeId i = 0; i < g.size(); ++i)
      order.push_back(i);
    rt = unit_runtimes(g);
  }
};

// Each node's position in `order`.
std::vector<NodeId> positions_of(const std::vector<NodeId>& order) {
  std::vector<NodeId> pos(order.size());
  for (size_t i = 0; i < order.size(); ++i)
    pos[static_cast<size_t>(order[i])] = static_cast<NodeId>(i);
  return pos;
}

// Positions [first, last] of `order` put in a random valid order: each node
// after its inputs in the window (`pos`: positions in `order`).
void reorder_window(std::vector<NodeId>& order, const std::vector<NodeId>& pos,
                    const DependencyGraph& deps, size_t first, size_t last, std::mt19937& rng) {
  std::vector<NodeId> left(order.begin() + static_cast<std::ptrdiff_t>(first),
                           order.begin() + static_cast<std::ptrdiff_t>(last) + 1);
  std::vector<char> placed(order.size(), 0);
  for (size_t at = first; at <= last; ++at) {
    std::vector<size_t> ready;
    for (size_t k = 0; k < left.size(); ++k) {
      auto [b, e] = deps.inputs(left[k]);
      bool ok = true;
      for (auto p = b; p != e; ++p) {
        const auto q = static_cast<size_t>(pos[static_cast<size_t>(*p)]);
        ok &= q < first || q > last || placed[static_cast<size_t>(*p)];
      }
      if (ok)
        ready.push_back(k);
    }
    REQUIRE_FALSE(ready.empty());
    const size_t k = ready[rng() % ready.size()];
    order[at] = left[k];
    placed[static_cast<size_t>(left[k])] = 1;
    left.erase(left.begin() + static_cast<std::ptrdiff_t>(k));
  }
}

} // namespace

TEST_CASE("refine: the exposed gather is issued early enough to hide (4 ms -> 3 ms)") {
  LateGather lg;
  const Graph& g = lg.g;
  const std::vector<NodeId>& order = lg.order;
  const RuntimeTable& rt = lg.rt;
  RefineResult r = refine_order(g, rt, SchedulerOptions{}, order, INT64_MAX, 1000);
  CHECK(r.step_ms_before == Approx(4.0));
  CHECK(r.step_ms_after == Approx(3.0));
  CHECK(simulate_step(g, rt, r.order).step_ms == Approx(3.0));
  CHECK(r.moves >= 1);
  // A valid order: every input before its reader.
  std::vector<size_t> pos(g.nodes.size());
  for (size_t i = 0; i < r.order.size(); ++i)
    pos[static_cast<size_t>(r.order[i])] = i;
  for (NodeId v = 0; v < g.size(); ++v)
    for (NodeId in : node_inputs(g.nodes[static_cast<size_t>(v)]))
      CHECK(pos[static_cast<size_t>(in)] < pos[static_cast<size_t>(v)]);
  // Identical inputs, identical moves.
  RefineResult again = refine_order(g, rt, SchedulerOptions{}, order, INT64_MAX, 1000);
  CHECK(again.order == r.order);
  CHECK(again.trials == r.trials);
}

TEST_CASE("refine: a start moves with the cast it reads (4 ms -> 3 ms)") {
  // As the late gather, but the gather reads a cast of w placed just before
  // it: moving the start alone is impossible, so the cast comes along.
  Graph g = late_gather(true);
  g.rebuild_index();
  std::vector<NodeId> order;
  for (NodeId i = 0; i < g.size(); ++i)
    order.push_back(i);
  const RuntimeTable rt = unit_runtimes(g);
  RefineResult r = refine_order(g, rt, SchedulerOptions{}, order, INT64_MAX, 1000);
  CHECK(r.step_ms_before == Approx(4.0));
  CHECK(r.step_ms_after == Approx(3.0));
  std::vector<size_t> pos(g.nodes.size());
  for (size_t i = 0; i < r.order.size(); ++i)
    pos[static_cast<size_t>(r.order[i])] = i;
  CHECK(pos[*g.find("w_cast")] < pos[*g.find("ag")]);
  CHECK(pos[*g.find("ag")] < pos[*g.find("mm1")]);
  for (NodeId v = 0; v < g.size(); ++v)
    for (NodeId in : node_inputs(g.nodes[static_cast<size_t>(v)]))
      CHECK(pos[static_cast<size_t>(in)] < pos[static_cast<size_t>(v)]);
}

TEST_CASE("refine: the llama example's reduce-scatter tail, within 3% of the lower bound") {
  // Upstream's greedy leaves layer 0's reduce-scatters queued behind each
  // other after the last compute (18.614 ms against a bound of 18.157 ms).
  // Issuing their producers earlier (the weight gradients before the input
  // gradients they do not need) hides all but 0.151 ms of the last one.
  TempDir tmp;
  const std::string g = source_path("testdata/example_llama_fsdp.json");
  for (const char* policy : {"upstream", "improved"})
    REQUIRE(run_cli("schedule " + g + " -q --cost-model compute-only --policy " + policy + " -o " +
                    tmp.file(std::string(policy) + ".json") + " --report " +
                    tmp.file(std::string(policy) + ".r.json"))
                .exit_code == 0);
  auto u = nlohmann::json::parse(read_text(tmp.file("upstream.r.json")));
  auto i = nlohmann::json::parse(read_text(tmp.file("improved.r.json")));
  // The schedule-quality issue's target for this graph: within 3% of the
  // bound (upstream's greedy is not), and never worse than upstream.
  const double upstream_gap = u["lower_bound"]["gap_percent"].get<double>();
  const double improved_gap = i["lower_bound"]["gap_percent"].get<double>();
  CHECK(upstream_gap > 2.5);
  CHECK(improved_gap < 3.0);
  CHECK(improved_gap <= upstream_gap);
  CHECK(i["policy"]["moves"].get<int>() > 0);
  CHECK(run_cli("verify " + g + " " + tmp.file("improved.json")).exit_code == 0);
}

TEST_CASE("refine: never worse, and within the memory limit") {
  LateGather lg;
  const Graph& g = lg.g;
  const std::vector<NodeId>& order = lg.order;
  const RuntimeTable& rt = lg.rt;
  // No work budget: the order given, unchanged.
  RefineResult none = refine_order(g, rt, SchedulerOptions{}, order, INT64_MAX, 0);
  CHECK(none.order == order);
  CHECK(none.moves == 0);
  CHECK(none.budget_exhausted);
  // The gathered 256 bytes cannot be live any earlier: a limit of the
  // given order's own peak forbids every move that raises it.
  const StorageMap map = build_storage_map(g);
  const int64_t peak = memory_profile(map, order).peak;
  RefineResult tight = refine_order(g, rt, SchedulerOptions{}, order, peak, 1000);
  CHECK(tight.peak_bytes <= peak);
  CHECK(memory_profile(map, tight.order).peak <= peak);
  CHECK(tight.step_ms_after <= tight.step_ms_before);
}

TEST_CASE("policy: --policy improved is never worse than upstream, verified, within budget, "
          "reproducible") {
  TempDir tmp;
  for (const std::string& g : valid_graphs()) {
    INFO(g);
    for (const std::string& extra :
         {std::string(), std::string(" --max-memory-increase-gb 0 --max-memory-increase-ratio 0"),
          std::string(" --collective-bucketing --insert-overlap-deps")}) {
      INFO(extra);
      REQUIRE(run_cli("schedule " + g + " -q -o " + tmp.file("u.json") + " --report " +
                      tmp.file("u.r.json") + extra)
                  .exit_code == 0);
      REQUIRE(run_cli("schedule " + g + " -q --policy improved -o " + tmp.file("i.json") +
                      " --report " + tmp.file("i.r.json") + extra)
                  .exit_code == 0);
      auto u = nlohmann::json::parse(read_text(tmp.file("u.r.json")));
      auto i = nlohmann::json::parse(read_text(tmp.file("i.r.json")));
      CHECK(i["simulation"]["step_ms_after"].get<double>() <=
            u["simulation"]["step_ms_after"].get<double>() + 1e-9);
      const auto& m = i["memory"];
      CHECK((m["scheduled_peak_bytes"] <= m["budget_bytes"] || m["kept_original_order"] == true));
      CHECK(run_cli("verify " + g + " " + tmp.file("i.json")).exit_code == 0);
      REQUIRE(run_cli("schedule " + g + " -q --policy improved -o " + tmp.file("j.json") + extra)
                  .exit_code == 0);
      CHECK(read_text(tmp.file("i.json")) == read_text(tmp.file("j.json")));
    }
  }
}

TEST_CASE("timeline: intervals of the late-gather graph, traced by hand") {
  // In its own order with unit runtimes: mm0 0-1, mm1 1-2, then the gather
  // is issued at 2 on tp's stream and the compute stream waits at ag_wait
  // until 3; mm2 runs 3-4.
  LateGather lg;
  const Timeline t = build_timeline(lg.g, lg.rt, "original");
  CHECK(t.step_ms == Approx(4.0));
  CHECK(t.exposed_comm_ms == Approx(1.0));
  CHECK(t.tracks == std::vector<std::string>{"compute", "tp"});
  std::vector<std::string> seen;
  for (const TimelineEvent& e : t.events) {
    char b[96];
    std::snprintf(b, sizeof b, "%s@%s %.0f-%.0f", e.name.c_str(), e.track.c_str(), e.start_ms,
                  e.end_ms);
    seen.push_back(b);
  }
  CHECK(seen == std::vector<std::string>{"mm0@compute 0-1", "mm1@compute 1-2", "ag@tp 2-3",
                                         "ag_wait@compute 2-3", "mm2@compute 3-4"});
  const TimelineEvent& wait = t.events[3];
  CHECK(wait.kind == TimelineEvent::Kind::ExposedWait);
  CHECK(wait.on == "ag");
  CHECK(t.events[2].bytes > 0);
}

TEST_CASE("report: exposures are the written graph's, with the greedy's reason or the queue") {
  // A collective the greedy counted hidden but the written graph's
  // simulation shows exposed (queued behind its group), and one the greedy
  // counted exposed that the search's moves hid.
  const Graph g = read_graph_file(source_path("testdata/example_llama_fsdp.json"));
  ScheduleReport r;
  ReportCollective queued;
  queued.name = "l0_qkv_rs";
  queued.kind = "reduce_scatter";
  queued.estimated_ms = 1.0;
  queued.greedy_exposed_ms = 0;
  ReportCollective limited = queued;
  limited.name = "fwd0_qkv_ag";
  limited.greedy_exposed_ms = 0.5;
  limited.why_exposed = {"over the budget"};
  r.collectives = {queued, limited};
  AnalyticalEstimator analytical(default_hardware());
  const RuntimeTable rt = estimate_runtimes(g, nullptr, nullptr, analytical);
  describe_written_graph(r, g, rt);
  // In the input order (written as is here) both are exposed: fwd0_qkv_ag
  // has no independent compute, l0_qkv_rs waits right after its start with
  // its group's stream idle (no compute between, no queue).
  const SimulationResult in_order = simulate_step(g, rt, [&] {
    std::vector<NodeId> o(g.nodes.size());
    for (size_t i = 0; i < o.size(); ++i)
      o[i] = static_cast<NodeId>(i);
    return o;
  }());
  CHECK(r.collectives[0].exposed_ms ==
        Approx(in_order.collective_exposed_ms[static_cast<size_t>(*g.find("l0_qkv_rs"))])
            .margin(1e-6));
  CHECK(r.collectives[0].exposed);
  CHECK(r.collectives[0].why_exposed ==
        std::vector<std::string>{
            "too little compute ran between its start and its wait in the written order"});
  CHECK(r.collectives[1].why_exposed == std::vector<std::string>{"over the budget"});
  const std::string text = report_summary(r);
  CHECK(text.find("exposed l0_qkv_rs (reduce_scatter, ") != std::string::npos);
  CHECK(r.simulation.step_ms_after == Approx(in_order.step_ms).margin(1e-6));
}

TEST_CASE("prefix simulator: a candidate's step equals a full simulation's, to the bit") {
  // Windows of the greedy order shuffled (the simulation does not need a
  // valid order): resumed from a kept state, stopped where the state meets
  // the reference's again, or run to the end, the step must be the same.
  const Graph g = read_graph_file(source_path("testdata/example_llama_fsdp.json"));
  AnalyticalEstimator analytical(default_hardware());
  const RuntimeTable rt = estimate_runtimes(g, nullptr, nullptr, analytical);
  const SimulationPlan plan = make_simulation_plan(g, rt);
  const std::vector<NodeId> order = schedule_overlap(g, rt, SchedulerOptions{}).order;
  PrefixSimulator prefix(plan);
  CHECK(prefix.reset(order) == simulate_step(plan, order).step_ms);
  std::mt19937 rng(7);
  const size_t n = order.size();
  const double reference = simulate_step(plan, order).step_ms;
  int differing = 0, unchanged = 0;
  for (int i = 0; i < 400; ++i) {
    size_t first = rng() % n, last = first + rng() % 40;
    last = std::min(last, n - 1);
    std::vector<NodeId> trial = order;
    if (i % 4 != 0) // every fourth window left as it is
      std::shuffle(trial.begin() + static_cast<std::ptrdiff_t>(first),
                   trial.begin() + static_cast<std::ptrdiff_t>(last) + 1, rng);
    const double full = simulate_step(plan, trial).step_ms;
    CHECK(prefix.step_ms(trial, first, last) == full);
    (full == reference ? unchanged : differing)++;
  }
  CHECK(differing > 0); // the shuffles did change some steps
  CHECK(unchanged > 0);
  // After a reset to another order, candidates are judged against it.
  std::vector<NodeId> other = order;
  std::reverse(other.begin() + 10, other.begin() + 30);
  CHECK(prefix.reset(other) == simulate_step(plan, other).step_ms);
  std::vector<NodeId> trial = other;
  std::swap(trial[n / 2], trial[n / 2 + 1]);
  CHECK(prefix.step_ms(trial, n / 2, n / 2 + 1) == simulate_step(plan, trial).step_ms);
  // A kept move: the new reference is simulated again from its window on,
  // and candidates are judged against it.
  std::vector<NodeId> moved = other;
  std::reverse(moved.begin() + static_cast<std::ptrdiff_t>(n / 3),
               moved.begin() + static_cast<std::ptrdiff_t>(n / 3 + 25));
  CHECK(prefix.update(moved, n / 3, n / 3 + 24) == simulate_step(plan, moved).step_ms);
  for (size_t at : {size_t{5}, n / 3 + 3, n - 30}) {
    trial = moved;
    std::reverse(trial.begin() + static_cast<std::ptrdiff_t>(at),
                 trial.begin() + static_cast<std::ptrdiff_t>(at + 12));
    CHECK(prefix.step_ms(trial, at, at + 11) == simulate_step(plan, trial).step_ms);
  }
}

TEST_CASE("prefix simulator: a valid candidate's step by the tails is its full simulation's, "
          "where shorter") {
  // Windows of the original order put in random valid orders (and of the
  // greedy's): past the window the step is read off the reference's tails;
  // where the candidate is shorter it must be the full simulation's step
  // (up to rounding: the tails add the same runtimes in another order),
  // elsewhere the reference's.
  const Graph g = read_graph_file(source_path("testdata/example_llama_fsdp.json"));
  AnalyticalEstimator analytical(default_hardware());
  const RuntimeTable rt = estimate_runtimes(g, nullptr, nullptr, analytical);
  const SimulationPlan plan = make_simulation_plan(g, rt);
  const DependencyGraph deps(g);
  std::mt19937 rng(17);
  int shorter = 0, longer = 0;
  std::vector<NodeId> original(g.nodes.size());
  for (size_t i = 0; i < original.size(); ++i)
    original[i] = static_cast<NodeId>(i);
  for (std::vector<NodeId> reference :
       {original, schedule_overlap(g, rt, SchedulerOptions{}).order}) {
    const size_t n = reference.size();
    std::vector<NodeId> pos = positions_of(reference);
    PrefixSimulator prefix(plan);
    double ref_step = prefix.reset(reference);
    for (int i = 0; i < 300; ++i) {
      const size_t first = rng() % n, last = std::min(n - 2, first + 5 + rng() % 80);
      if (first > last)
        continue;
      std::vector<NodeId> trial = reference;
      reorder_window(trial, pos, deps, first, last, rng);
      const double full = simulate_step(plan, trial).step_ms;
      const double got = prefix.shorter_step_ms(trial, first, last);
      INFO("window " << first << ".." << last);
      if (full < ref_step - 2e-6) {
        CHECK(got == Approx(full).margin(1e-9));
        ++shorter;
      } else if (full >= ref_step - 1e-9) {
        CHECK(got == ref_step);
        longer += full > ref_step + 1e-9;
      }
      if (i % 7 == 0) { // kept: the tails before the window are found again
        reference = trial;
        pos = positions_of(reference);
        ref_step = prefix.update(reference, first, last);
        CHECK(ref_step == simulate_step(plan, reference).step_ms);
      }
    }
  }
  CHECK(shorter > 0);
  CHECK(longer > 0);
}

TEST_CASE("window peak: a candidate's peak equals a full replay's, and moves kept update it") {
  // Windows of the greedy order put in another valid order, a random one
  // (memory after a position depends on the nodes run before it when the
  // order is valid): the peak must be memory_peak's, to the byte.
  const Graph g = read_graph_file(source_path("testdata/example_llama_fsdp.json"));
  AnalyticalEstimator analytical(default_hardware());
  const RuntimeTable rt = estimate_runtimes(g, nullptr, nullptr, analytical);
  const StorageMap map = build_storage_map(g);
  const DependencyGraph deps(g);
  std::vector<NodeId> order = schedule_overlap(g, rt, SchedulerOptions{}).order;
  const size_t n = order.size();
  std::vector<NodeId> pos = positions_of(order);
  std::mt19937 rng(11);
  WindowPeak peak(map, pos);
  CHECK(peak.reset(order) == memory_peak(map, order));
  int differing = 0;
  for (int i = 0; i < 300; ++i) {
    const size_t first = rng() % n, last = std::min(n - 1, first + rng() % 60);
    std::vector<NodeId> trial = order;
    reorder_window(trial, pos, deps, first, last, rng);
    const int64_t full = memory_peak(map, trial);
    INFO("window " << first << ".." << last);
    REQUIRE(peak.peak(trial, first, last) == full);
    differing += full != memory_peak(map, order);
    if (i % 10 == 0) { // kept: the trial becomes the reference
      order = trial;
      pos = positions_of(order); // WindowPeak reads `pos` by reference
      peak.accept();
    }
  }
  CHECK(differing > 0);
  CHECK(peak.peak(order, 0, 0) == memory_peak(map, order)); // after the kept moves
}

TEST_CASE("policy: --policy names an order search; upstream stops at the greedy, improved "
          "searches within its limits") {
  const Graph g = read_graph_file(source_path("testdata/example_llama_fsdp.json"));
  AnalyticalEstimator analytical(default_hardware());
  const RuntimeTable rt = estimate_runtimes(g, nullptr, nullptr, analytical);
  const SchedulerOptions options;
  const ScheduleAnalysis a(g, rt, options);
  const SimulationPlan plan = make_simulation_plan(g, rt);
  const ScheduleResult greedy = schedule_overlap(a, options);
  const double greedy_step = simulate_step(plan, greedy.order).step_ms;
  const SearchInput in{a, plan, options, INT64_MAX, 1000};
  REQUIRE(order_search_for(OrderSearchKind::Upstream));
  CHECK(order_search_for(OrderSearchKind::Upstream)->name() == "upstream");
  const SearchedSchedule kept = order_search_for(OrderSearchKind::Upstream)->improve(in, greedy);
  CHECK_FALSE(kept.summary);
  CHECK(kept.schedule.order == greedy.order);
  REQUIRE(order_search_for(OrderSearchKind::Improved));
  CHECK(order_search_for(OrderSearchKind::Improved)->name() == "improved");
  const SearchedSchedule r = order_search_for(OrderSearchKind::Improved)->improve(in, greedy);
  REQUIRE(r.summary);
  CHECK(r.summary->greedy_step_ms == Approx(greedy_step));
  // Its contract: never slower than the greedy, and its moves are what
  // changed the order.
  CHECK(simulate_step(plan, r.schedule.order).step_ms <= greedy_step);
  CHECK((r.summary->moves > 0) == (r.schedule.order != greedy.order));
  // The whole result comes back: the collectives' accounting with the order.
  CHECK(r.schedule.collectives.size() == greedy.collectives.size());
  CHECK(r.schedule.scheduled_peak_bytes == memory_peak(build_storage_map(g), r.schedule.order));
}

TEST_CASE("report: a collective issued while its group's stream is busy is said to be queued") {
  // ar1 and ar2 (tp, 2 ms each) are issued back to back, then both waited
  // on: ar2 starts when ar1 ends, in the queue; ar1 had nothing to run
  // behind it.
  const Graph g = inline_graph(
      R"({"name": "ar1", "op": "call_function", "target": "_c10d_functional.all_reduce.default",
          "args": [{"node": "x"}, "sum", "tp"],
          "val": {"dtype": "float32", "shape": [4, 8], "stride": [8, 1], "device": "cuda:0"}},
         {"name": "ar2", "op": "call_function", "target": "_c10d_functional.all_reduce.default",
          "args": [{"node": "x"}, "sum", "tp"],
          "val": {"dtype": "float32", "shape": [4, 8], "stride": [8, 1], "device": "cuda:0"}},
         {"name": "w1", "op": "call_function", "target": "_c10d_functional.wait_tensor.default",
          "args": [{"node": "ar1"}],
          "val": {"dtype": "float32", "shape": [4, 8], "stride": [8, 1], "device": "cuda:0"}},
         {"name": "w2", "op": "call_function", "target": "_c10d_functional.wait_tensor.default",
          "args": [{"node": "ar2"}],
          "val": {"dtype": "float32", "shape": [4, 8], "stride": [8, 1], "device": "cuda:0"}})",
      R"([{"node": "w1"}, {"node": "w2"}])");
  RuntimeTable rt;
  rt.ms.assign(g.nodes.size(), 0.0);
  rt.source.assign(g.nodes.size(), RuntimeSource::Custom);
  rt.ms[static_cast<size_t>(*g.find("ar1"))] = 2;
  rt.ms[static_cast<size_t>(*g.find("ar2"))] = 2;
  ScheduleReport r;
  for (const char* name : {"ar1", "ar2"}) {
    ReportCollective c;
    c.name = name;
    c.estimated_ms = 2;
    r.collectives.push_back(c);
  }
  describe_written_graph(r, g, rt);
  CHECK(r.collectives[0].exposed_ms == 2.0);
  CHECK(r.collectives[1].exposed_ms == 2.0); // from 2 ms, when w1 returns, to 4 ms
  CHECK(r.collectives[0].why_exposed ==
        std::vector<std::string>{
            "too little compute ran between its start and its wait in the written order"});
  CHECK(r.collectives[1].why_exposed ==
        std::vector<std::string>{"queued behind its group's earlier collectives"});
  CHECK(r.simulation.step_ms_after == 4.0);
}
