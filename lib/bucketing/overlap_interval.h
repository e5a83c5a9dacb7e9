#pragma once
// What the schedule decided for one collective, in the node indices of the
// reordered graph: where it starts and waits and which compute hides it.
// Bucketing and overlap pinning work on these, after scheduling.

#include <cstdint>
#include <vector>

#include "graph/graph.h"
#include "scheduler/schedule_result.h"

namespace osched {

struct OverlapInterval {
  NodeId start = -1;
  NodeId wait = -1;
  std::vector<NodeId> hiding; // sorted positions
  int64_t size_bytes = 0;
  double estimated_ms = 0;
  double exposed_ms = 0;
  bool schedulable = true;
};

// ScheduleResult's collectives, re-indexed to positions in `order`.
std::vector<OverlapInterval> overlap_intervals(const ScheduleResult& sched,
                                               const std::vector<NodeId>& order);

} // namespace osched
