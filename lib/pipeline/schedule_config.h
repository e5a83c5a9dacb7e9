#pragma once
// Everything the schedule job is asked to do: the scheduler's limits, how
// runtimes are estimated, bucketing and pinning, the target hardware. Each
// field that a user sets is declared once in pipeline/schedule_options.cpp
// (flag, config key, help, accepted values, report echo).

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "cost/estimator.h"
#include "scheduler/options.h"

namespace osched {

struct ScheduleConfig {
  SchedulerOptions scheduler;
  std::string collective_estimator = "analytical"; // or "benchmark"
  bool benchmark_compute = false;
  std::string benchmark_backend = "gpu"; // or "synthetic"
  std::string benchmark_cache;           // path of the medians cache; "" for none
  bool collective_bucketing = false;
  double bucket_max_gb = 2.0; // upstream's max_bucket_memory_gb
  bool insert_overlap_deps = false;
  // "improved" (upstream's greedy, then scheduler/refine_order.h) or
  // "upstream" (the greedy alone, for parity with PyTorch).
  std::string policy = "improved";
  int policy_time_ms = 500;           // the improved policy's work budget
  std::string runtime_estimates;      // path of user estimates; "" for none
  std::string collective_table;       // path of a measured collective table; "" for none
  bool fusion = false;                // cost pointwise chains as one kernel (cost/fusion.h)
  std::string cost_model = "kernels"; // or "compute-only" (cost/estimator.h's CostModel)
  std::string gpu;                    // target GPU name; "" keeps the graph's or the default
  std::optional<int> gpus_per_node;
  nlohmann::json hardware_overrides; // applied after the graph's own `hardware`

  // Loaded from `runtime_estimates` by the job, or set directly by embedders.
  std::optional<CustomEstimates> custom_estimates;
  // Loaded from `collective_table` likewise.
  std::optional<CollectiveTable> collective_table_data;
  // Keep the simulated timelines of the original and the output order
  // (schedule --trace/--html); not an option of the table: an output.
  bool record_timelines = false;
  // Hand freed heap pages back to the system between phases (malloc_trim):
  // lowers the peak of one big job, but it acts on the whole process, so
  // only a caller that runs one job on its main thread should ask for it
  // (the CLI's schedule; never batch workers or an embedding program).
  bool trim_heap_between_phases = false;

  CostModel analytical_model() const {
    return cost_model == "compute-only" ? CostModel::ComputeOnly : CostModel::Kernels;
  }
  bool benchmarks_collectives() const { return collective_estimator == "benchmark"; }
  bool benchmarking() const { return benchmarks_collectives() || benchmark_compute; }
};

} // namespace osched
