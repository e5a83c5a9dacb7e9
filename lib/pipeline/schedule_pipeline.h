#pragma once
// The whole `schedule` job as a library call: estimate runtimes, schedule,
// simulate before/after, build the reordered graph and the report. The CLI
// only adds file IO and option parsing.

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "cost/estimator.h"
#include "cost/hardware.h"
#include "graph/graph.h"
#include "scheduler/options.h"

namespace osched {

struct ScheduleConfig {
  SchedulerOptions scheduler;
  nlohmann::json hardware_overrides; // applied after the graph's own `hardware`
  std::optional<CustomEstimates> custom_estimates;
  std::string runtime_estimates_path; // recorded in the report
  std::string collective_estimator = "analytical";
  bool benchmark_compute = false;
  std::string benchmark_backend;    // "" when nothing is benchmarked
  std::string benchmark_cache_path; // recorded in the report
  bool collective_bucketing = false;
  double bucket_max_gb = 2.0;  // upstream's max_bucket_memory_gb
  bool insert_overlap_deps = false;

  nlohmann::json to_json() const;
};

struct ScheduleOutput {
  Graph graph;
  nlohmann::json report;
};

// Effective hardware: defaults, then the graph's `hardware`, then overrides.
// Throws std::invalid_argument on a bad field.
HardwareSpec resolve_hardware(const Graph& g, const nlohmann::json& overrides);

// `primary` (optional) supplies measured runtimes, e.g. the benchmark estimator.
// The same, consuming `g` (its nodes move into the result; for large graphs)
// and taking the input's content hash instead of its bytes.
ScheduleOutput run_schedule_owned(Graph&& g, const std::string& input_hash, const ScheduleConfig& config,
                                  RuntimeEstimator* primary = nullptr,
                                  const nlohmann::json& report_extra = nlohmann::json::object());

ScheduleOutput run_schedule(const Graph& g, const std::string& input_bytes,
                            const ScheduleConfig& config, RuntimeEstimator* primary = nullptr,
                            const nlohmann::json& report_extra = nlohmann::json::object());

} // namespace osched
