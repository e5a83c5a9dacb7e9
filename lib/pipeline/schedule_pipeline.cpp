#include "pipeline/schedule_pipeline.h"

#include <spdlog/spdlog.h>

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

ScheduleOutput run_schedule(const Graph& g, const std::string& input_bytes, const ScheduleConfig& config,
                            RuntimeEstimator* primary, const nlohmann::json& report_extra) {
  HardwareSpec hw = resolve_hardware(g, config.hardware_overrides);
  AnalyticalEstimator analytical(hw);
  RuntimeTable rt = estimate_runtimes(g, config.custom_estimates ? &*config.custom_estimates : nullptr,
                                      primary, analytical);
  ScheduleResult sched = schedule_overlap(g, rt, config.scheduler);

  std::vector<NodeId> original(g.nodes.size());
  for (NodeId i = 0; i < g.size(); ++i) original[i] = i;
  SimulationResult before = simulate_step(g, rt, original);
  SimulationResult after = simulate_step(g, rt, sched.order);

  ScheduleOutput out{apply_order(g, sched.order), {}};
  nlohmann::json cfg = config.to_json();
  cfg["hardware"] = hw.to_json();
  ReportInputs in;
  in.graph = &g;
  in.input_hash = content_hash(input_bytes);
  in.config = cfg;
  in.runtimes = &rt;
  in.schedule = &sched;
  in.before = &before;
  in.after = &after;
  in.extra = report_extra;
  out.report = build_report(in);
  spdlog::info("scheduled {} nodes: step {:.3f} -> {:.3f} ms", g.size(), before.step_ms, after.step_ms);
  return out;
}

}  // namespace osched
