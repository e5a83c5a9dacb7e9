#include "pipeline/schedule_pipeline.h"

#include <spdlog/spdlog.h>

#include <numeric>

#include "bucketing/bucketing_pass.h"
#include "bucketing/overlap_deps.h"
#include "bucketing/overlap_interval.h"
#include "pipeline/schedule_options.h"
#include "report/content_hash.h"
#include "report/report.h"
#include "scheduler/overlap_scheduler.h"
#include "scheduler/reorder.h"
#include "scheduler/simulate.h"

namespace osched {

HardwareSpec resolve_hardware(const Graph& g, const ScheduleConfig& cfg) {
  nlohmann::json overrides = cfg.hardware_overrides;
  // The flags join the config's fields, so `gpu` sets the base that the
  // other fields then adjust, wherever each came from.
  if ((overrides.is_null() || overrides.is_object()) && (!cfg.gpu.empty() || cfg.gpus_per_node)) {
    if (!cfg.gpu.empty())
      overrides["gpu"] = cfg.gpu;
    if (cfg.gpus_per_node)
      overrides["gpus_per_node"] = *cfg.gpus_per_node;
  }
  HardwareSpec hw = default_hardware();
  apply_hardware_overrides(hw, g.hardware);
  apply_hardware_overrides(hw, overrides);
  return hw;
}

ScheduleInput schedule_input(Graph g, std::string_view input_bytes, const ScheduleConfig& cfg) {
  ScheduleInput in;
  in.hardware = resolve_hardware(g, cfg);
  in.input_hash = content_hash(std::string(input_bytes));
  in.graph = std::move(g);
  return in;
}

ScheduleOutput run_schedule(ScheduleInput in, const ScheduleConfig& config) {
  const Graph& g = in.graph;
  const HardwareSpec& hw = in.hardware;
  RuntimeEstimator* primary = in.measured;
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
  nlohmann::json cfg = schedule_options_echo(config);
  cfg["hardware"] = hw.to_json();
  ReportInputs ri;
  ri.graph = &g;
  ri.input_hash = in.input_hash;
  ri.config = cfg;
  ri.runtimes = &rt;
  ri.schedule = &sched;
  ri.before = &before;
  ri.after = &after;
  if (!in.benchmark_report.is_null())
    ri.extra["benchmark"] = in.benchmark_report;
  ScheduleOutput out{{}, build_report(ri)};
  out.graph = apply_order(std::move(in.graph), sched.order);

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

} // namespace osched
