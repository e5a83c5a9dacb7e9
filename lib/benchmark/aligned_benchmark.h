#pragma once
// Measures a graph's matmuls and collectives on every rank and aligns the
// results: each rank gathers all ranks' values and keeps the per-key median,
// so every rank schedules with identical numbers and reaches the identical
// order (as PyTorch's overlap scheduler aligns its benchmarks).

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "benchmark/benchmark_cache.h"
#include "benchmark/benchmark_summary.h"
#include "benchmark/measurer.h"
#include "cost/estimator.h"
#include "cost/hardware.h"
#include "graph/graph.h"
#include "ranks/rank_context.h"

namespace osched {

struct BenchmarkOptions {
  bool compute = false;                  // matmuls with cuBLAS
  bool collectives = false;              // collectives with NCCL over the ranks
  std::string backend = "gpu";           // recorded in the report
  const BenchmarkCache* cache = nullptr; // previous medians; may be null
};

struct BenchmarkTable {
  int nranks = 1;
  std::map<std::string, double> compute; // MatmulProblem::key() -> median ms
  // CollectiveProblem::series() -> (input bytes, median ms), sorted by bytes
  std::map<std::string, std::vector<std::pair<int64_t, double>>> collectives;
  BenchmarkCache cache; // the given cache plus this run's medians
  int cache_hits = 0;
  int measured = 0;
  BenchmarkSummary summary; // the report's "benchmark" section
};

// Every rank calls this together with the same graph. `make_measurer` runs
// once per rank; any rank's failure becomes a device error on all ranks.
BenchmarkTable
run_aligned_benchmarks(const Graph& g, const BenchmarkOptions& opts, const HardwareSpec& hw,
                       RankContext& ctx,
                       const std::function<std::unique_ptr<Measurer>()>& make_measurer);

// Runtime estimates from aligned benchmarks. Collectives are interpolated
// between the measured powers of two and, when the graph's group differs from
// the ranks measured, scaled by the NCCL model's ratio between the two.
class BenchmarkEstimator : public RuntimeEstimator {
public:
  BenchmarkEstimator(const BenchmarkTable& table, HardwareSpec hw)
      : table_(table), hw_(std::move(hw)) {}
  std::string name() const override { return "benchmark"; }
  std::optional<double> compute_ms(const Graph& g, NodeId n) override;
  std::optional<double> collective_ms(const Graph& g, const CollectiveInfo& c) override;

private:
  const BenchmarkTable& table_;
  HardwareSpec hw_;
};

// Median as torch.median takes it: the lower middle value.
double lower_median(std::vector<double> v);

} // namespace osched
