#pragma once
// Upstream's choices, for rankings that build on them.

#include "scheduler/greedy_ranking.h"

namespace osched {

class UpstreamRanking : public GreedyRanking {
public:
  std::string_view name() const override { return "upstream"; }
  // (compute index the node blocks, local priority, original position):
  // exposed waits go last and cheap chains into an unscheduled collective
  // first among the nodes that block the same compute.
  ReadyScore ready_score(const RankingContext& ctx, NodeId n) const override;
  // Reduce-scatters first (they release memory), then by the compute they
  // block, then in graph order.
  uint64_t candidate_key(const RankingContext& ctx, NodeId start) const override;
};

} // namespace osched
