#pragma once
// Analytical NCCL collective runtime, after NCCL's tuning model as ported by
// PyTorch's comm_analysis.py: every (algorithm, protocol) pair is timed as
// latency + bytes / bandwidth and the fastest is taken, as NCCL does.

#include <cstdint>

#include "cost/hardware.h"
#include "ops/collective.h"

namespace osched {

struct CollectiveShape {
  CollectiveKind kind;
  int64_t bytes;  // input + output bytes, as PyTorch sizes collectives
  int group_size; // ranks in the group
  int num_nodes;  // distinct nodes the group spans
};

// Milliseconds; 0 for single-rank groups.
double estimate_nccl_ms(const CollectiveShape& c, const HardwareSpec& hw);

// The same without the tree all-reduce's size correction (a factor of at
// most 1 on its bandwidth): never above estimate_nccl_ms, and every
// (algorithm, protocol) time is then a latency plus bytes over a bandwidth
// that does not fall with size, so the floor never falls with size and its
// time per byte never rises with it (bucketing/any_bucketing_bound.h).
double nccl_ms_floor(const CollectiveShape& c, const HardwareSpec& hw);

} // namespace osched
