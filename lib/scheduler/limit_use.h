#pragma once
// How far an order goes on each limit the greedy keeps (SchedulerOptions):
// collective bytes in flight, compute pre-fetch and collective distance, as
// the greedy counts them. The greedy itself may pass a limit (a collective
// bigger than the in-flight limit still runs, then its wait is forced), so
// a later policy is held to the limit or to the greedy's own order,
// whichever goes further, never beyond.

#include <cstdint>
#include <vector>

#include "graph/graph.h"
#include "scheduler/options.h"

namespace osched {

struct ScheduleAnalysis;

struct LimitUse {
  // Most bytes of collectives started and not yet waited on, at once.
  int64_t in_flight_bytes = 0;
  // Most compute nodes a collective starts ahead of the first compute node
  // it blocks (collectives that block none are exempt, as upstream).
  int64_t compute_pre_fetch = 0;
  // Most collectives earlier in graph order not yet started when a
  // collective starts.
  int64_t coll_distance = 0;
};

LimitUse measure_limit_use(const ScheduleAnalysis& a, const std::vector<NodeId>& order);

// The same for many orders of one analysis (a search's candidates): what
// the orders share is indexed once and the working arrays are reused.
class LimitMeter {
public:
  explicit LimitMeter(const ScheduleAnalysis& a);
  LimitUse measure(const std::vector<NodeId>& order);

private:
  const ScheduleAnalysis& a_;
  // The greedy moves (and counts) schedulable collectives only: each gets
  // its index among them, in graph order (-1 for the rest).
  std::vector<int32_t> dense_;
  size_t counted_ = 0;
  std::vector<int64_t> computes_before_; // compute nodes before each position
  std::vector<size_t> pos_;              // each node's position
  std::vector<int32_t> started_;         // a Fenwick tree over dense indices
};

// The most a policy after the greedy may use: each option's limit, or the
// greedy order's own use where that is higher.
LimitUse limit_caps(const SchedulerOptions& options, const LimitUse& greedy);

// Every field of `use` within `cap`.
bool within_caps(const LimitUse& use, const LimitUse& cap);

} // namespace osched
