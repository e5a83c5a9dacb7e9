#include "scheduler/greedy_ranking_upstream.h"

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

uint64_t UpstreamRanking::candidate_key(const RankingContext& ctx, NodeId start) const {
  const ScheduleAnalysis& a = ctx.analysis;
  // (not a reduce-scatter, dom, node id) in 1 + 31 + 32 bits: dom and the
  // id are non-negative int32s.
  const bool rs = a.collectives[a.collective_of[start]].kind == CollectiveKind::ReduceScatter;
  return (uint64_t{!rs} << 63) | (static_cast<uint64_t>(a.dom[start]) << 32) |
         static_cast<uint32_t>(start);
}

std::unique_ptr<GreedyRanking> make_upstream_ranking() {
  return std::make_unique<UpstreamRanking>();
}

} // namespace osched
