#pragma once
// A collective as the GPU benchmark runs it: kind, dtype, bytes of the input
// on each rank, and the ranks it runs over. Sizes are measured at powers of
// two and interpolated in between (as PyTorch's node_runtime_estimation does),
// so graphs with many distinct sizes need few measurements.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "graph/dtype.h"
#include "graph/graph.h"
#include "ops/collective_info.h"

namespace osched {

struct CollectiveProblem {
  CollectiveKind kind = CollectiveKind::AllReduce;
  DType dtype = DType::BFloat16;
  int64_t input_bytes = 0; // per rank
  int nranks = 1;

  // The measurement series this point belongs to: "all_gather|bfloat16|ranks=8".
  std::string series() const;
  // "all_gather|bfloat16|ranks=8|bytes=1048576"
  std::string key() const;
};

// Input + output bytes for `input_bytes` per rank, as the NCCL model sizes
// collectives (all-gather output is nranks times its input, and so on).
int64_t collective_model_bytes(CollectiveKind kind, int64_t input_bytes, int nranks);

// Largest power of two <= x and smallest >= x (x >= 1).
int64_t pow2_floor(int64_t x);
int64_t pow2_ceil(int64_t x);

// Sizes to measure for an input of `bytes`: its power-of-two neighbours.
std::vector<int64_t> measurement_sizes(int64_t bytes);

// Linear interpolation over (bytes, ms) points sorted by bytes, extrapolating
// from the two nearest points outside the range and never below 0; a single
// point scales linearly from the origin. nullopt without points.
std::optional<double> interpolate_ms(const std::vector<std::pair<int64_t, double>>& points,
                                     int64_t bytes);

} // namespace osched
