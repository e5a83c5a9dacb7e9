#include "pipeline/schedule_pipeline.h"
#include "pipeline/free_memory.h"

#include <spdlog/spdlog.h>

#include <future>
#include <numeric>

#include "bucketing/any_bucketing_bound.h"
#include "bucketing/bucketing_pass.h"
#include "bucketing/overlap_deps.h"
#include "bucketing/overlap_interval.h"
#include "bucketing/pre_bucket.h"
#include "cost/fusion.h"
#include "files/content_hash.h"
#include "pipeline/job_errors.h"
#include "pipeline/pre_bucket_choice.h"
#include "pipeline/schedule_options.h"
#include "report/report.h"
#include "report/safety_section.h"
#include "scheduler/order_search.h"
#include "scheduler/overlap_scheduler.h"
#include "scheduler/reorder.h"
#include "scheduler/schedule_analysis.h"
#include "sim/simulate.h"
#include "text/escape.h"

namespace osched {

namespace {

// Every estimate of the run comes from here: user estimates, then measured
// runtimes, then the models.
struct Estimators {
  const CustomEstimates* custom;
  RuntimeEstimator* measured;
  AnalyticalEstimator analytical;
  const CollectiveTable* table;
  bool fusion;
  RuntimeTable of(const Graph& g) {
    RuntimeTable t = estimate_runtimes(g, custom, measured, analytical, table);
    if (fusion)
      fuse_pointwise_costs(g, analytical.hardware(), t);
    return t;
  }
};

std::vector<NodeId> identity_order(size_t n) {
  std::vector<NodeId> order(n);
  std::iota(order.begin(), order.end(), 0);
  return order;
}

// Schedules `g`, fills the report's core sections (names are read before the
// nodes move) and returns the reordered graph.
// `scheduled_plan`, when asked for, receives the simulation plan of the
// reordered graph.
Graph reorder(ScheduleInput in, const ScheduleConfig& config, const RunSettings& run,
              Estimators& est, ScheduleResult& sched, ScheduleReport& report,
              std::optional<Timeline>& original, PhaseSeconds& phases,
              std::optional<SimulationPlan>* scheduled_plan, RuntimeTable& reordered_rt,
              GroupOrders& input_orders) {
  auto t = std::chrono::steady_clock::now();
  const RuntimeTable rt = est.of(in.graph);
  if (run.record_timelines)
    original =
        build_timeline(in.graph, rt, "original", parse_assume_pure(config.scheduler.assume_pure));
  phases.emplace_back("estimate", seconds_since(t));
  t = std::chrono::steady_clock::now();
  // Shared by the greedy and the improved policy's search.
  std::optional<ScheduleAnalysis> analysis(std::in_place, in.graph, rt, config.scheduler);
  phases.emplace_back("analyse", seconds_since(t));
  // Read before the nodes move: what holds collectives in place, and each
  // group's issue order to compare the written one with.
  ReportSafety safety = safety_of_input(in.graph, analysis->opaque_ops,
                                        parse_assume_pure(config.scheduler.assume_pure));
  input_orders = group_orders(in.graph);
  sched = schedule_overlap(*analysis, config.scheduler);
  phases.emplace_back("schedule", sched.scheduling_seconds);
  t = std::chrono::steady_clock::now();
  // Decoded once for the search's trials and the two simulations reported.
  const SimulationPlan plan = make_simulation_plan(in.graph, rt);
  std::optional<ReportPolicy> policy;
  const std::unique_ptr<OrderSearch> search = order_search_for(config.policy);
  const SearchInput search_in{*analysis, plan, config.scheduler,
                              std::max(sched.memory_budget_bytes, sched.scheduled_peak_bytes),
                              refine_trial_budget(in.graph.nodes.size(), config.policy_time_ms)};
  if (std::optional<RefineResult> found = search->improve(search_in, sched.order)) {
    RefineResult& ref = *found;
    policy = ReportPolicy{std::string(search->name()), report_round(ref.step_ms_before), ref.moves,
                          ref.trials, ref.budget_exhausted};
    sched.order = std::move(ref.order);
    sched.scheduled_peak_bytes = ref.peak_bytes;
    // Moves from the original order (kept by the greedy for the budget)
    // make an order of their own, within the budget.
    if (ref.moves > 0)
      sched.kept_original_order = false;
  }
  analysis.reset(); // its memory is not needed for the report and the rewrite
  // Part of it (the storage map) was built on a helper thread: its pages go
  // back to the system rather than sit in that thread's arena (1M 2-D graph
  // peak -65 MB).
  if (run.trim_heap_between_phases)
    return_free_memory_to_system();
  if (policy)
    phases.emplace_back("refine", seconds_since(t));
  t = std::chrono::steady_clock::now();
  const SimulationResult before = simulate_step(plan, identity_order(in.graph.nodes.size()));
  phases.emplace_back("simulate", seconds_since(t));
  t = std::chrono::steady_clock::now();
  ReportInputs ri;
  ri.graph = &in.graph;
  ri.input_hash = in.input_hash;
  ri.config = schedule_options_echo(config);
  ri.config["hardware"] = in.hardware.to_json();
  ri.runtimes = &rt;
  ri.schedule = &sched;
  ri.before = &before;
  report = build_report(ri);
  report.policy = std::move(policy);
  if (std::string w = opaque_ops_warning(safety); !w.empty())
    report.warnings.push_back(std::move(w));
  report.safety = std::move(safety);
  if (const CollectiveTable* table = est.table) {
    size_t missed = 0;
    for (const CollectiveOutcome& c : sched.collectives) {
      const RuntimeSource s = rt.source[static_cast<size_t>(c.start)];
      missed += s == RuntimeSource::Analytical || s == RuntimeSource::None; // the model's
    }
    if (missed > 0)
      report.warnings.push_back(std::to_string(missed) + " collective(s) with no row in " +
                                table->path +
                                " for their kind, group and size (or no known input size): "
                                "costed by the analytical model");
  }
  phases.emplace_back("report", seconds_since(t));
  t = std::chrono::steady_clock::now();
  // Only a run that buckets may write a bucketed graph; otherwise the
  // written graph's own bound (describe_written_graph) covers every order.
  if (config.collective_bucketing && run.bound_every_bucketing) {
    set_optimality_bound(report, any_bucketing_bound(in.graph, plan, rt, est.table, in.hardware,
                                                     est.custom, est.measured != nullptr));
    phases.emplace_back("bound", seconds_since(t));
    t = std::chrono::steady_clock::now();
  }
  if (scheduled_plan)
    scheduled_plan->emplace(permute_plan(plan, sched.order));
  // The reordered graph holds the same nodes: their estimates move with them.
  reordered_rt.ms.resize(sched.order.size());
  reordered_rt.source.resize(sched.order.size());
  for (size_t i = 0; i < sched.order.size(); ++i) {
    reordered_rt.ms[i] = rt.ms[static_cast<size_t>(sched.order[i])];
    reordered_rt.source[i] = rt.source[static_cast<size_t>(sched.order[i])];
  }
  Graph reordered = apply_order(std::move(in.graph), sched.order);
  phases.emplace_back("reorder", seconds_since(t));
  return reordered;
}

// Merges collectives that overlap the same compute; `intervals` follow the
// rewrite.
// `plan` is the scheduled graph's simulation plan.
ReportBucketing bucket(Graph& g, std::vector<OverlapInterval>& intervals,
                       const ScheduleResult& sched, const SimulationPlan& plan,
                       const ScheduleConfig& config, Estimators& est) {
  BucketOptions bo{gb_to_bytes(config.bucket_max_gb), config.scheduler.max_coll_distance,
                   config.scheduler.preserve_group_order, config.scheduler.assume_pure};
  // Bucketing may not raise the peak past the budget, nor past the schedule's
  // own peak where that already exceeds it.
  const int64_t limit = std::max(sched.memory_budget_bytes, sched.scheduled_peak_bytes);
  // The step is judged on the scheduled graph with buckets simulated as
  // merged collectives, before anything is rewritten.
  const std::vector<NodeId> identity = identity_order(g.nodes.size());
  StepCheck step;
  step.simulate = [&](const Graph&, const std::vector<MergedCollective>& merged) {
    return simulate_step(plan, identity, merged);
  };
  ConvertFusion converts(g);
  step.merged = [&](const Graph& graph, const Bucket& b) {
    MergedBucketGraph m = merged_bucket_graph(graph, intervals, b, converts);
    const RuntimeTable rt = est.of(m.graph);
    MergedCollective c;
    c.ms = rt.ms[m.start];
    c.issue_ms = rt.ms[m.cat];
    c.done_ms = rt.ms[m.split];
    c.removed = std::move(m.removed);
    for (NodeId v : c.removed)
      c.removed_ms += plan.ms[v];
    return c;
  };
  // The written graph's step and exposure come from describe_written_graph.
  BucketingResult br =
      bucket_collectives(std::move(g), intervals, bo, limit, sched.scheduled_peak_bytes, &step);
  g = std::move(br.bucketed.graph);
  intervals = std::move(br.bucketed.intervals);
  ReportBucketing r;
  r.bucket_max_gb = config.bucket_max_gb;
  r.buckets = std::move(br.bucketed.buckets);
  r.collectives_merged = br.collectives_merged;
  r.collectives_after = intervals.size();
  r.unbucketed_step_ms = report_round(br.unbucketed_step_ms);
  r.predicted_step_ms = report_round(br.bucketed_step_ms);
  r.peak_bytes = br.peak_bytes;
  r.dropped_for_memory = br.dropped_for_memory;
  r.dropped_for_time = br.dropped_for_time;
  r.given_up = std::move(br.given_up);
  for (GivenUpBucket& u : r.given_up) {
    u.members_exposed_ms = report_round(u.members_exposed_ms);
    u.merged_cost_ms = report_round(u.merged_cost_ms);
  }
  return r;
}

} // namespace

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

namespace {

// From this size on, the two pre-bucketing candidates are scheduled one
// after the other, so only one schedule's working memory is live at once.
constexpr size_t kParallelCandidateNodes = 250000;

// One graph scheduled, bucketed and pinned as asked, with its report; the
// input's group orders, for the safety section's comparison.
struct Scheduled {
  ScheduleOutput out;
  GroupOrders input_orders;
};

Scheduled schedule_graph(ScheduleInput in, const ScheduleConfig& config, const RunSettings& run,
                         Estimators& est, bool recorded_table) {
  Scheduled done;
  ScheduleOutput& out = done.out;
  std::optional<BenchmarkSummary> benchmark = std::move(in.benchmark);
  ScheduleResult sched;
  std::optional<SimulationPlan> scheduled_plan;
  RuntimeTable written_rt;
  out.graph = reorder(std::move(in), config, run, est, sched, out.report, out.original_timeline,
                      out.phase_seconds, config.collective_bucketing ? &scheduled_plan : nullptr,
                      written_rt, done.input_orders);
  auto t = std::chrono::steady_clock::now();
  out.report.benchmark = std::move(benchmark);
  if (recorded_table) // the table that was used, in place of the option's ""
    out.report.config["collective_table"] = est.table->path;
  if (config.collective_bucketing || config.insert_overlap_deps) {
    std::vector<OverlapInterval> intervals = overlap_intervals(sched, sched.order);
    if (config.collective_bucketing) {
      t = std::chrono::steady_clock::now();
      out.report.bucketing = bucket(out.graph, intervals, sched, *scheduled_plan, config, est);
      scheduled_plan.reset();
      out.phase_seconds.emplace_back("bucket", seconds_since(t));
      out.report.memory.scheduled_peak_bytes = out.report.bucketing->peak_bytes; // the output's
    }
    if (config.insert_overlap_deps) {
      t = std::chrono::steady_clock::now();
      out.report.overlap_deps = ReportOverlapDeps{static_cast<size_t>(
          insert_overlap_deps(out.graph, intervals, config.collective_bucketing))};
      out.phase_seconds.emplace_back("pin", seconds_since(t));
    }
  }
  // Every figure about the result, from the graph that is written.
  t = std::chrono::steady_clock::now();
  if (config.collective_bucketing) // new nodes: estimated as a run over the file would
    written_rt = est.of(out.graph);
  describe_written_graph(out.report, out.graph, written_rt);
  if (run.record_written_plan)
    out.written_plan = make_simulation_plan(out.graph, written_rt);
  if (run.record_timelines) // of the output graph, bucketed or not
    out.scheduled_timeline = build_timeline(out.graph, written_rt, "scheduled",
                                            parse_assume_pure(config.scheduler.assume_pure));
  out.phase_seconds.emplace_back("describe", seconds_since(t));
  return done;
}

// A collective's time as the run costs it: the table's row, else the model.
// Measured runtimes are not asked: they would benchmark sizes no node has.
CollectiveTime collective_time(const Graph& g, Estimators& est) {
  return [&g, &est](const CollectiveInfo& c) {
    if (est.table)
      if (std::optional<double> t = est.table->time_ms(c))
        return *t;
    return est.analytical.collective_ms(g, c).value_or(0.0);
  };
}

} // namespace

ScheduleOutput run_schedule(ScheduleInput in, const ScheduleConfig& config,
                            const RunSettings& run) {
  // The cost files and the recorded table outlive `in`, which moves on.
  const std::shared_ptr<const CostFiles> costs = in.costs;
  const std::optional<CollectiveTable> recorded = std::move(in.recorded_table);
  Estimators est{costs && costs->estimates ? &*costs->estimates : nullptr, in.measured,
                 AnalyticalEstimator(in.hardware, config.cost_model),
                 recorded                           ? &*recorded
                 : costs && costs->collective_table ? &*costs->collective_table
                                                    : nullptr,
                 config.fusion};
  std::optional<PreBucketed> pre;
  if (config.collective_bucketing && config.pre_bucketing == PreBucketing::Auto) {
    auto t = std::chrono::steady_clock::now();
    PreBucketOptions po;
    po.max_bucket_bytes = gb_to_bytes(config.bucket_max_gb);
    po.assume_pure = config.scheduler.assume_pure;
    po.preserve_group_order = config.scheduler.preserve_group_order;
    pre = pre_bucket(in.graph, po, collective_time(in.graph, est));
    if (pre)
      pre->seconds = seconds_since(t);
  }
  if (!pre) {
    Scheduled s = schedule_graph(std::move(in), config, run, est, recorded.has_value());
    ScheduleOutput& out = s.out;
    compare_group_orders(out.report.safety, s.input_orders, out.graph,
                         out.report.bucketing ? &out.report.bucketing->buckets : nullptr);
    spdlog::info("scheduled {} nodes: step {:.3f} -> {:.3f} ms", out.graph.size(),
                 out.report.simulation.step_ms_before, out.report.simulation.step_ms_after);
    return std::move(out);
  }
  // Both graphs are scheduled; the one whose written graph runs faster is kept.
  ScheduleInput merged_in;
  merged_in.graph = std::move(pre->graph);
  merged_in.input_hash = in.input_hash;
  merged_in.hardware = in.hardware;
  merged_in.costs = in.costs;
  merged_in.measured = in.measured;
  merged_in.benchmark = in.benchmark;
  // On a thread of its own where nothing measures on the device and the
  // graph is small enough for two schedules in memory at once.
  const bool parallel = !in.measured && in.graph.nodes.size() < kParallelCandidateNodes;
  RunSettings each = run;
  each.trim_heap_between_phases &= !parallel;
  Estimators est_merged = est;
  RunSettings merged_run = each;
  merged_run.bound_every_bucketing = false;
  std::future<Scheduled> merged_later;
  if (parallel)
    merged_later = std::async(std::launch::async, [&] {
      return schedule_graph(std::move(merged_in), config, merged_run, est_merged,
                            recorded.has_value());
    });
  Scheduled plain = schedule_graph(std::move(in), config, each, est, recorded.has_value());
  Scheduled merged = parallel ? merged_later.get()
                              : schedule_graph(std::move(merged_in), config, merged_run, est_merged,
                                               recorded.has_value());
  const bool keep_merged = choose_pre_bucketed(*pre, plain.out, merged.out);
  Scheduled& kept = keep_merged ? merged : plain;
  const Scheduled& other = keep_merged ? plain : merged;
  ScheduleOutput out = std::move(kept.out);
  // --timings: the other candidate's phases too, named as such.
  for (const auto& [phase, seconds] : other.out.phase_seconds)
    out.phase_seconds.emplace_back((keep_merged ? "unbucketed " : "pre-bucketed ") + phase,
                                   seconds);
  std::vector<BucketSummary> buckets = out.report.bucketing->buckets;
  if (out.report.bucketing->pre_bucketing->kept)
    buckets.insert(buckets.end(), pre->buckets.begin(), pre->buckets.end());
  compare_group_orders(out.report.safety, plain.input_orders, out.graph, &buckets);
  out.phase_seconds.insert(out.phase_seconds.begin(), {"pre-bucket", pre->seconds});
  spdlog::info("scheduled {} nodes: step {:.3f} -> {:.3f} ms", out.graph.size(),
               out.report.simulation.step_ms_before, out.report.simulation.step_ms_after);
  return out;
}

} // namespace osched
