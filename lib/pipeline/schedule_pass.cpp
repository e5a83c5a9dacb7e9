#include "pipeline/schedule_pass.h"

#include <future>

#include "bucketing/any_bucketing_bound.h"
#include "bucketing/bucketing_pass.h"
#include "bucketing/overlap_deps.h"
#include "bucketing/pre_bucket.h"
#include "pipeline/free_memory.h"
#include "pipeline/schedule_options.h"
#include "report/report.h"
#include "scheduler/order_search.h"
#include "scheduler/overlap_scheduler.h"
#include "scheduler/reorder.h"

namespace osched {

SchedulePass::SchedulePass(ScheduleInput in, const ScheduleConfig& config, const RunSettings& run,
                           const Estimators& est, bool recorded_table)
    : in_(std::move(in)), config_(config), run_(run), est_(est), recorded_table_(recorded_table) {}

ScheduledGraph SchedulePass::run() && {
  clock_ = PhaseClock{};
  estimate();
  analyse();
  schedule_beside_input();
  search_and_report();
  reorder();
  bucket();
  pin();
  describe();
  result_.out.phase_seconds = std::move(clock_.seconds);
  return std::move(result_);
}

void SchedulePass::PhaseClock::record(const char* phase) {
  const auto now = std::chrono::steady_clock::now();
  seconds.emplace_back(phase, std::chrono::duration<double>(now - mark).count());
  mark = now;
}

void SchedulePass::estimate() {
  rt_ = est_.of(in_.graph);
  if (run_.record_timelines)
    result_.out.original_timeline = build_timeline(
        in_.graph, rt_, "original", parse_assume_pure(config_.scheduler.assume_pure));
  clock_.record("estimate");
}

// Shared by the greedy and the improved policy's search.
void SchedulePass::analyse() {
  analysis_.emplace(in_.graph, rt_, config_.scheduler);
  clock_.record("analyse");
  // Read before the nodes move: what holds collectives in place.
  safety_ = safety_of_input(in_.graph, analysis_->opaque_ops,
                            parse_assume_pure(config_.scheduler.assume_pure));
}

void SchedulePass::schedule() {
  sched_ = schedule_overlap(*analysis_, config_.scheduler);
  clock_.seconds.emplace_back("schedule", sched_.scheduling_seconds);
  clock_.mark = std::chrono::steady_clock::now();
}

void SchedulePass::schedule_beside_input() {
  beside_clock_ = PhaseClock{};
  // Should the greedy throw, the future's destructor still waits (as
  // std::async's futures do): the input's phase reads this pass's members.
  std::future<void> beside = std::async(std::launch::async, [this] { simulate_input(); });
  schedule();
  beside.get();
}

void SchedulePass::search_and_report() {
  // The greedy's accounting (its collectives and counters) for the report;
  // the search gets its order and figures, and none of its collectives.
  std::vector<NodeId> order = std::move(sched_.order);
  greedy_accounting_ = std::move(sched_);
  sched_ = greedy_accounting_; // without either vector: a copy of its figures
  sched_.order = std::move(order);
  std::future<void> beside = std::async(std::launch::async, [this] {
    beside_clock_.mark = std::chrono::steady_clock::now();
    report();
    bound();
  });
  // Should the search throw, the future's destructor still waits for the
  // report's phases (std::async's futures do), which read this pass's members.
  search();
  beside.get();
  sched_.collectives = std::move(greedy_accounting_.collectives);
  // What the search changed, in the report the greedy's figures began.
  ScheduleReport& r = result_.out.report;
  r.memory.scheduled_peak_bytes = sched_.scheduled_peak_bytes;
  r.memory.kept_original_order = sched_.kept_original_order;
  r.policy = std::move(policy_);
  for (auto& phase : beside_clock_.seconds)
    clock_.seconds.push_back(std::move(phase));
}

void SchedulePass::search() {
  const std::unique_ptr<OrderSearch> search = order_search_for(config_.policy);
  const SearchInput in{*analysis_, *plan_, config_.scheduler,
                       std::max(sched_.memory_budget_bytes, sched_.scheduled_peak_bytes),
                       refine_trial_budget(in_.graph.nodes.size(), config_.policy_time_ms)};
  SearchedSchedule found = search->improve(in, std::move(sched_));
  sched_ = std::move(found.schedule);
  if (const std::optional<SearchSummary>& s = found.summary)
    policy_ = ReportPolicy{std::string(search->name()), report_round(s->greedy_step_ms), s->moves,
                           s->trials, s->budget_exhausted};
  analysis_.reset(); // its memory is not needed for the report and the rewrite
  // Part of it (the storage map) was built on a helper thread: its pages go
  // back to the system rather than sit in that thread's arena (1M 2-D graph
  // peak -65 MB).
  if (run_.trim_heap_between_phases)
    return_free_memory_to_system();
  if (policy_)
    clock_.record("refine");
}

void SchedulePass::simulate_input() {
  // Decoded once for the search's trials and the two simulations reported.
  plan_.emplace(make_simulation_plan(in_.graph, rt_));
  before_ = simulate_step(*plan_, identity_order(in_.graph.nodes.size()));
  // Each group's issue order in the input, which the safety section
  // compares with the written graph's.
  result_.input_orders = group_orders(in_.graph);
  beside_clock_.record("simulate");
}

void SchedulePass::report() {
  ReportInputs ri;
  ri.graph = &in_.graph;
  ri.input_hash = in_.input_hash;
  ri.config = schedule_options_echo(config_);
  ri.config["hardware"] = in_.hardware.to_json();
  ri.runtimes = &rt_;
  ri.schedule = &greedy_accounting_;
  ri.before = &before_;
  ScheduleReport& r = result_.out.report;
  r = build_report(ri);
  if (std::string w = opaque_ops_warning(safety_); !w.empty())
    r.warnings.push_back(std::move(w));
  r.safety = std::move(safety_);
  if (const CollectiveTable* table = est_.table) {
    size_t missed = 0;
    for (const CollectiveOutcome& c : greedy_accounting_.collectives) {
      const RuntimeSource s = rt_.source[static_cast<size_t>(c.start)];
      missed += s == RuntimeSource::Analytical || s == RuntimeSource::None; // the model's
    }
    if (missed > 0)
      r.warnings.push_back(std::to_string(missed) + " collective(s) with no row in " + table->path +
                           " for their kind, group and size (or no known input size): "
                           "costed by the analytical model");
  }
  r.benchmark = std::move(in_.benchmark);
  if (recorded_table_) // the table that was used, in place of the option's ""
    r.config["collective_table"] = est_.table->path;
  beside_clock_.record("report");
}

// Only a run that buckets may write a bucketed graph; otherwise the
// written graph's own bound (describe) covers every order.
void SchedulePass::bound() {
  if (!config_.collective_bucketing || !run_.bound_every_bucketing)
    return;
  set_optimality_bound(result_.out.report,
                       any_bucketing_bound(in_.graph, *plan_, rt_, est_.table, in_.hardware,
                                           est_.custom, est_.measured != nullptr));
  beside_clock_.record("bound");
}

void SchedulePass::reorder() {
  if (config_.collective_bucketing)
    scheduled_plan_.emplace(permute_plan(*plan_, sched_.order));
  plan_.reset();
  // The reordered graph holds the same nodes: their estimates move with
  // them. A bucketed graph has new nodes, estimated again in describe().
  if (!config_.collective_bucketing) {
    written_rt_.ms.resize(sched_.order.size());
    written_rt_.source.resize(sched_.order.size());
    for (size_t i = 0; i < sched_.order.size(); ++i) {
      written_rt_.ms[i] = rt_.ms[static_cast<size_t>(sched_.order[i])];
      written_rt_.source[i] = rt_.source[static_cast<size_t>(sched_.order[i])];
    }
  }
  result_.out.graph = apply_order(std::move(in_.graph), sched_.order);
  if (config_.collective_bucketing || config_.insert_overlap_deps)
    intervals_ = overlap_intervals(sched_, sched_.order);
  clock_.record("reorder");
}

// Merges collectives that overlap the same compute; the intervals follow
// the rewrite.
void SchedulePass::bucket() {
  if (!config_.collective_bucketing)
    return;
  Graph& g = result_.out.graph;
  BucketOptions bo{gb_to_bytes(config_.bucket_max_gb), config_.scheduler.max_coll_distance,
                   config_.scheduler.preserve_group_order, config_.scheduler.assume_pure};
  // Bucketing may not raise the peak past the budget, nor past the schedule's
  // own peak where that already exceeds it.
  const int64_t limit = std::max(sched_.memory_budget_bytes, sched_.scheduled_peak_bytes);
  // The step is judged on the scheduled graph with buckets simulated as
  // merged collectives, before anything is rewritten.
  const SimulationPlan& plan = *scheduled_plan_;
  const std::vector<NodeId> identity = identity_order(g.nodes.size());
  StepCheck step;
  step.simulate = [&](const Graph&, const std::vector<MergedCollective>& merged) {
    return simulate_step(plan, identity, merged);
  };
  ConvertFusion converts(g);
  step.merged = [&](const Graph& graph, const Bucket& b) {
    MergedBucketGraph m = merged_bucket_graph(graph, intervals_, b, converts);
    const RuntimeTable rt = est_.of(m.graph);
    MergedCollective c;
    c.ms = rt.ms[m.start];
    c.issue_ms = rt.ms[m.cat];
    c.done_ms = rt.ms[m.split];
    c.removed = std::move(m.removed);
    for (NodeId v : c.removed)
      c.removed_ms += plan.ms[v];
    return c;
  };
  // The written graph's step and exposure come from describe().
  BucketingResult br =
      bucket_collectives(std::move(g), intervals_, bo, limit, sched_.scheduled_peak_bytes, &step);
  g = std::move(br.bucketed.graph);
  intervals_ = std::move(br.bucketed.intervals);
  scheduled_plan_.reset();
  ReportBucketing r;
  r.bucket_max_gb = config_.bucket_max_gb;
  r.buckets = std::move(br.bucketed.buckets);
  r.collectives_merged = br.collectives_merged;
  r.collectives_after = intervals_.size();
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
  ScheduleReport& report = result_.out.report;
  report.bucketing = std::move(r);
  report.memory.scheduled_peak_bytes = report.bucketing->peak_bytes; // the output's
  clock_.record("bucket");
}

void SchedulePass::pin() {
  if (!config_.insert_overlap_deps)
    return;
  result_.out.report.overlap_deps = ReportOverlapDeps{static_cast<size_t>(
      insert_overlap_deps(result_.out.graph, intervals_, config_.collective_bucketing))};
  clock_.record("pin");
}

// Every figure about the result, from the graph that is written.
void SchedulePass::describe() {
  ScheduleOutput& out = result_.out;
  if (config_.collective_bucketing) // new nodes: estimated as a run over the file would
    written_rt_ = est_.of(out.graph);
  describe_written_graph(out.report, out.graph, written_rt_);
  if (run_.record_written_plan)
    out.written_plan = make_simulation_plan(out.graph, written_rt_);
  if (run_.record_timelines) // of the output graph, bucketed or not
    out.scheduled_timeline = build_timeline(out.graph, written_rt_, "scheduled",
                                            parse_assume_pure(config_.scheduler.assume_pure));
  clock_.record("describe");
}

} // namespace osched
