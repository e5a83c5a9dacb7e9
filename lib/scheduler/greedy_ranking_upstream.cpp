#include "scheduler/greedy_ranking_upstream.h"

#include <algorithm>

#include "ops/op_table.h"

namespace osched {
namespace {

// A chain of single-user, single-input cheap nodes ending in an unscheduled
// collective start: running it early lets the collective start early. (A
// chain reaching a started collective ends there: it is not cheap.)
bool in_overlappable_collective_unary_chain(const RankingContext& ctx, NodeId curr) {
  const NodeId start = ctx.analysis.unary_chain_collective[static_cast<size_t>(curr)];
  return start >= 0 && !ctx.scheduled[static_cast<size_t>(start)];
}

} // namespace

ReadyScore UpstreamRanking::ready_score(const RankingContext& ctx, NodeId n) const {
  const ScheduleAnalysis& a = ctx.analysis;
  int32_t local = 0;
  if (a.kind[n] == NodeKind::Wait)
    local = ctx.collectives[a.collective_of[n]].exposed_ms != 0 ? 1 : 0;
  else if (in_overlappable_collective_unary_chain(ctx, n))
    local = -1;
  return {a.dom[n], local, n};
}

void UpstreamRanking::order_candidates(const RankingContext& ctx, const std::vector<NodeId>& starts,
                                       std::vector<int32_t>& order) const {
  const ScheduleAnalysis& a = ctx.analysis;
  // (not a reduce-scatter, dom, position) packed in one integer, read once
  // per candidate instead of three lookups per comparison: 1 + 31 + 32 bits
  // (dom is a non-negative int32). The starts come in graph order, so the
  // position breaks ties as the node id does.
  thread_local std::vector<uint64_t> keys;
  keys.resize(starts.size());
  for (size_t k = 0; k < starts.size(); ++k) {
    const NodeId s = starts[k];
    const bool rs = a.collectives[a.collective_of[s]].kind == CollectiveKind::ReduceScatter;
    keys[k] = (uint64_t{!rs} << 63) | (static_cast<uint64_t>(a.dom[s]) << 32) | k;
  }
  order.resize(starts.size());
  // Candidates arrive in node order, where dom mostly grows too: often
  // already in order, and a check is far cheaper than a sort.
  if (!std::is_sorted(keys.begin(), keys.end()))
    std::sort(keys.begin(), keys.end());
  for (size_t k = 0; k < starts.size(); ++k)
    order[k] = static_cast<int32_t>(keys[k] & 0xffffffffu);
}

std::unique_ptr<GreedyRanking> make_upstream_ranking() {
  return std::make_unique<UpstreamRanking>();
}

} // namespace osched
