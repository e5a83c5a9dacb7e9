#pragma once
// Upstream's choices, for policies that build on them.

#include "scheduler/schedule_policy.h"

namespace osched {

class UpstreamPolicy : public SchedulePolicy {
public:
  std::string_view name() const override { return "upstream"; }
  // (compute index the node blocks, local priority, original position):
  // exposed waits go last and cheap chains into an unscheduled collective
  // first among the nodes that block the same compute.
  ReadyScore ready_score(const PolicyContext& ctx, NodeId n) const override;
  // Reduce-scatters first (they release memory), then by the compute they
  // block, then in graph order.
  void order_candidates(const PolicyContext& ctx, const std::vector<NodeId>& starts,
                        std::vector<int32_t>& order) const override;
};

} // namespace osched
