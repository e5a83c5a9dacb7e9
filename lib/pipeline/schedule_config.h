#pragma once
// Everything the schedule job is asked to do: the scheduler's limits, how
// runtimes are estimated, bucketing and pinning, the target hardware. Each
// field that a user sets is declared once in pipeline/schedule_options.cpp
// (flag, config key, help, accepted values, report echo). A config is built
// once (finish_schedule_config) and only read after that: what the job
// loads or decides goes into its input (pipeline/prepare_input.h).

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "cost/estimator.h"
#include "scheduler/options.h"
#include "scheduler/order_search.h"

namespace osched {

enum class CollectiveEstimator : uint8_t { Analytical, Benchmark };
enum class BenchmarkBackend : uint8_t { Gpu, Synthetic };

// A choice's value and the word that names it in flags, config files and
// the report.
template <typename E> struct ChoiceName {
  E value;
  std::string_view name;
};

inline constexpr ChoiceName<OrderSearchKind> kPolicyNames[] = {
    {OrderSearchKind::Upstream, "upstream"}, {OrderSearchKind::Improved, "improved"}};
inline constexpr ChoiceName<CollectiveEstimator> kCollectiveEstimatorNames[] = {
    {CollectiveEstimator::Analytical, "analytical"}, {CollectiveEstimator::Benchmark, "benchmark"}};
inline constexpr ChoiceName<BenchmarkBackend> kBenchmarkBackendNames[] = {
    {BenchmarkBackend::Gpu, "gpu"}, {BenchmarkBackend::Synthetic, "synthetic"}};
// With collective bucketing, FSDP-style collectives may be merged before
// scheduling (bucketing/pre_bucket.h), kept when the step is shorter.
enum class PreBucketing : uint8_t { Auto, Off };
inline constexpr ChoiceName<PreBucketing> kPreBucketingNames[] = {{PreBucketing::Auto, "auto"},
                                                                  {PreBucketing::Off, "off"}};
inline constexpr ChoiceName<CostModel> kCostModelNames[] = {
    {CostModel::Kernels, "kernels"}, {CostModel::ComputeOnly, "compute-only"}};

template <typename E, size_t N>
constexpr std::string_view choice_name(const ChoiceName<E> (&names)[N], E value) {
  for (const ChoiceName<E>& n : names)
    if (n.value == value)
      return n.name;
  return {};
}

struct ScheduleConfig {
  SchedulerOptions scheduler;
  CollectiveEstimator collective_estimator = CollectiveEstimator::Analytical;
  bool benchmark_compute = false;
  BenchmarkBackend benchmark_backend = BenchmarkBackend::Gpu;
  std::string benchmark_cache; // path of the medians cache; "" for none
  bool collective_bucketing = false;
  double bucket_max_gb = 2.0; // upstream's max_bucket_memory_gb
  PreBucketing pre_bucketing = PreBucketing::Auto;
  bool insert_overlap_deps = false;
  // Improved: upstream's greedy, then scheduler/refine_order.h; upstream:
  // the greedy alone, for parity with PyTorch.
  OrderSearchKind policy = OrderSearchKind::Improved;
  int policy_time_ms = 500;      // the improved policy's work budget
  std::string runtime_estimates; // path of user estimates; "" for none
  // Path of a measured collective table; "" for none (the one the graph
  // records may then be used), "none" for none at all.
  std::string collective_table;
  bool fusion = false; // cost pointwise chains as one kernel (cost/fusion.h)
  CostModel cost_model = CostModel::Kernels;
  std::string gpu; // target GPU name; "" keeps the graph's or the default
  std::optional<int> gpus_per_node;
  nlohmann::json hardware_overrides; // applied after the graph's own `hardware`

  bool benchmarks_collectives() const {
    return collective_estimator == CollectiveEstimator::Benchmark;
  }
  bool benchmarking() const { return benchmarks_collectives() || benchmark_compute; }
};

} // namespace osched
