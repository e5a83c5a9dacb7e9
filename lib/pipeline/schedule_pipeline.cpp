#include "pipeline/schedule_pipeline.h"

#include <spdlog/spdlog.h>

#include <numeric>

#include "bucketing/bucketing_pass.h"
#include "bucketing/overlap_deps.h"
#include "bucketing/overlap_interval.h"
#include "report/content_hash.h"
#include "report/report.h"
#include "scheduler/overlap_scheduler.h"
#include "scheduler/reorder.h"
#include "scheduler/simulate.h"

namespace osched {

nlohmann::json ScheduleConfig::to_json() const {
  return {{"max_in_flight_gb", scheduler.max_in_flight_gb},
          {"max_compute_pre_fetch", scheduler.max_compute_pre_fetch},
          {"compute_overlap_multiplier", scheduler.compute_overlap_multiplier},
          {"max_coll_distance", scheduler.max_coll_distance},
          {"max_memory_increase_gb", scheduler.max_memory_increase_gb},
          {"max_memory_increase_ratio", scheduler.max_memory_increase_ratio},
          {"preserve_group_order", scheduler.preserve_group_order},
          {"release_memory_early", scheduler.release_memory_early},
          {"collective_estimator", collective_estimator},
          {"benchmark_compute", benchmark_compute},
          {"benchmark_backend", benchmark_backend},
          {"benchmark_cache", benchmark_cache_path},
          {"collective_bucketing", collective_bucketing},
          {"bucket_max_gb", bucket_max_gb},
          {"insert_overlap_deps", insert_overlap_deps},
          {"runtime_estimates", runtime_estimates_path}};
}

HardwareSpec resolve_hardware(const Graph& g, const nlohmann::json& overrides) {
  HardwareSpec hw = default_hardware();
  apply_hardware_overrides(hw, g.hardware);
  apply_hardware_overrides(hw, overrides);
  return hw;
}

namespace {

// `owned`, when given, is `g` itself and gives its nodes to the result.
ScheduleOutput schedule_graph(const Graph& g, Graph* owned, const std::string& input_hash,
                              const ScheduleConfig& config, RuntimeEstimator* primary,
                              const nlohmann::json& report_extra) {
  HardwareSpec hw = resolve_hardware(g, config.hardware_overrides);
  AnalyticalEstimator analytical(hw);
  const CustomEstimates* custom = config.custom_estimates ? &*config.custom_estimates : nullptr;
  RuntimeTable rt = estimate_runtimes(g, custom, primary, analytical);
  ScheduleResult sched = schedule_overlap(g, rt, config.scheduler);

  std::vector<NodeId> original(g.nodes.size());
  std::iota(original.begin(), original.end(), 0);
  SimulationResult before = simulate_step(g, rt, original);
  SimulationResult after = simulate_step(g, rt, sched.order);
  spdlog::info("scheduled {} nodes: step {:.3f} -> {:.3f} ms", g.size(), before.step_ms,
               after.step_ms);

  // The report reads the original graph, so it is built before the nodes move.
  nlohmann::json cfg = config.to_json();
  cfg["hardware"] = hw.to_json();
  ReportInputs in;
  in.graph = &g;
  in.input_hash = input_hash;
  in.config = cfg;
  in.runtimes = &rt;
  in.schedule = &sched;
  in.before = &before;
  in.after = &after;
  in.extra = report_extra;
  ScheduleOutput out{{}, build_report(in)};
  out.graph = owned ? apply_order(std::move(*owned), sched.order) : apply_order(g, sched.order);
  // From here on `g` may be empty.

  if (!config.collective_bucketing && !config.insert_overlap_deps)
    return out;
  std::vector<OverlapInterval> intervals = overlap_intervals(sched, sched.order);
  if (config.collective_bucketing) {
    BucketOptions bo{gb_to_bytes(config.bucket_max_gb), config.scheduler.max_coll_distance,
                     config.scheduler.preserve_group_order};
    // Bucketing may not raise the peak past the budget, nor past the schedule's
    // own peak where that already exceeds it.
    int64_t limit = std::max(sched.memory_budget_bytes, sched.scheduled_peak_bytes);
    // The step is judged on the scheduled graph with buckets simulated as
    // merged collectives, before anything is rewritten.
    std::optional<RuntimeTable> scheduled_rt;
    std::vector<NodeId> identity(out.graph.nodes.size());
    std::iota(identity.begin(), identity.end(), 0);
    StepCheck step;
    step.simulate = [&](const Graph& graph, const std::vector<MergedCollective>& merged) {
      if (!scheduled_rt)
        scheduled_rt = estimate_runtimes(graph, custom, primary, analytical);
      return simulate_step(graph, *scheduled_rt, identity, merged);
    };
    step.merged_ms = [&](const Graph& graph, const Bucket& b) {
      Graph mini = merged_collective_graph(graph, intervals, b);
      return estimate_runtimes(mini, custom, primary, analytical).ms[1];
    };
    BucketingResult br = bucket_collectives(std::move(out.graph), intervals, bo, limit,
                                            sched.scheduled_peak_bytes, &step);
    scheduled_rt.reset();
    out.graph = std::move(br.bucketed.graph);
    intervals = std::move(br.bucketed.intervals);
    // The merged collectives are estimated and the final graph simulated anew.
    RuntimeTable final_rt = estimate_runtimes(out.graph, custom, primary, analytical);
    identity.resize(out.graph.nodes.size());
    std::iota(identity.begin(), identity.end(), 0);
    const SimulationResult final_sim = simulate_step(out.graph, final_rt, identity);
    out.report["bucketing"] = {{"bucket_max_gb", config.bucket_max_gb},
                               {"buckets", br.bucketed.report},
                               {"collectives_merged", br.collectives_merged},
                               {"collectives_after", intervals.size()},
                               {"simulated_step_ms", final_sim.step_ms},
                               {"unbucketed_step_ms", br.unbucketed_step_ms},
                               {"predicted_step_ms", br.bucketed_step_ms},
                               {"exposed_comm_ms", final_sim.exposed_comm_ms},
                               {"peak_bytes", br.peak_bytes},
                               {"dropped_for_memory", br.dropped_for_memory},
                               {"dropped_for_time", br.dropped_for_time}};
    // The report's peak is the output's.
    out.report["memory"]["scheduled_peak_bytes"] = br.peak_bytes;
  }
  if (config.insert_overlap_deps)
    out.report["overlap_deps"] = {
        {"control_deps_added",
         insert_overlap_deps(out.graph, intervals, config.collective_bucketing)}};
  return out;
}

} // namespace

ScheduleOutput run_schedule(const Graph& g, const std::string& input_bytes,
                            const ScheduleConfig& config, RuntimeEstimator* primary,
                            const nlohmann::json& report_extra) {
  return schedule_graph(g, nullptr, content_hash(input_bytes), config, primary, report_extra);
}

ScheduleOutput run_schedule_owned(Graph&& g, const std::string& input_hash,
                                  const ScheduleConfig& config, RuntimeEstimator* primary,
                                  const nlohmann::json& report_extra) {
  return schedule_graph(g, &g, input_hash, config, primary, report_extra);
}

} // namespace osched
