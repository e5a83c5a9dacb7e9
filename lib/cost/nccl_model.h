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

} // namespace osched
