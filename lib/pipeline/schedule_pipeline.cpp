#include "pipeline/schedule_pipeline.h"

#include <spdlog/spdlog.h>

#include <future>

#include "pipeline/estimators.h"
#include "pipeline/pre_bucket_choice.h"
#include "pipeline/schedule_options.h"
#include "pipeline/schedule_pass.h"
#include "report/safety_section.h"

namespace osched {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

namespace {

// From this size on, the two pre-bucketing candidates are scheduled one
// after the other, so only one schedule's working memory is live at once.
constexpr size_t kParallelCandidateNodes = 250000;

void log_result(const ScheduleOutput& out) {
  spdlog::info("scheduled {} nodes: step {:.3f} -> {:.3f} ms", out.graph.size(),
               out.report.simulation.step_ms_before, out.report.simulation.step_ms_after);
}

} // namespace

ScheduleOutput run_schedule(ScheduleInput in, const ScheduleConfig& config,
                            const RunSettings& run) {
  // The cost files and the recorded table outlive `in`, which moves on.
  const std::shared_ptr<const CostFiles> costs = in.costs;
  const std::optional<CollectiveTable> recorded = std::move(in.recorded_table);
  const Estimators est{costs && costs->estimates ? &*costs->estimates : nullptr, in.measured,
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
  const bool recorded_table = recorded.has_value();
  if (!pre) {
    ScheduledGraph s = SchedulePass(std::move(in), config, run, est, recorded_table).run();
    ScheduleOutput& out = s.out;
    compare_group_orders(out.report.safety, s.input_orders, out.graph,
                         out.report.bucketing ? &out.report.bucketing->buckets : nullptr);
    log_result(out);
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
  const Estimators est_merged = est; // the model's caches are per thread
  RunSettings merged_run = each;
  merged_run.bound_every_bucketing = false;
  auto schedule_merged = [&] {
    return SchedulePass(std::move(merged_in), config, merged_run, est_merged, recorded_table).run();
  };
  std::future<ScheduledGraph> merged_later;
  if (parallel)
    merged_later = std::async(std::launch::async, schedule_merged);
  ScheduledGraph plain = SchedulePass(std::move(in), config, each, est, recorded_table).run();
  ScheduledGraph merged = parallel ? merged_later.get() : schedule_merged();
  const GroupOrders input_orders = std::move(plain.input_orders);
  ScheduleOutput out = choose_pre_bucketed(*pre, std::move(plain.out), std::move(merged.out));
  std::vector<BucketSummary> buckets = out.report.bucketing->buckets;
  if (out.report.bucketing->pre_bucketing->kept)
    buckets.insert(buckets.end(), pre->buckets.begin(), pre->buckets.end());
  compare_group_orders(out.report.safety, input_orders, out.graph, &buckets);
  out.phase_seconds.insert(out.phase_seconds.begin(), {"pre-bucket", pre->seconds});
  log_result(out);
  return out;
}

} // namespace osched
