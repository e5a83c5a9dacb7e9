#include "scheduler/schedule_policy_upstream.h"

#include <algorithm>

#include "ops/op_table.h"

namespace osched {
namespace {

// A chain of single-user, single-input cheap nodes ending in an unscheduled
// collective start: running it early lets the collective start early. (A
// chain reaching a started collective ends there: it is not cheap.)
bool in_overlappable_collective_unary_chain(const PolicyContext& ctx, NodeId curr) {
  const NodeId start = ctx.analysis.unary_chain_collective[static_cast<size_t>(curr)];
  return start >= 0 && !ctx.scheduled[static_cast<size_t>(start)];
}

} // namespace

ReadyScore UpstreamPolicy::ready_score(const PolicyContext& ctx, NodeId n) const {
  const ScheduleAnalysis& a = ctx.analysis;
  int32_t local = 0;
  if (a.kind[n] == NodeKind::Wait)
    local = ctx.collectives[a.collective_of[n]].exposed_ms != 0 ? 1 : 0;
  else if (in_overlappable_collective_unary_chain(ctx, n))
    local = -1;
  return {a.dom[n], local, n};
}

void UpstreamPolicy::order_candidates(const PolicyContext& ctx, std::vector<NodeId>& starts) const {
  const ScheduleAnalysis& a = ctx.analysis;
  // (not a reduce-scatter, dom, node) packed in one integer, read once per
  // candidate instead of three lookups per comparison: 1 + 31 + 32 bits
  // (dom and node ids are non-negative int32).
  thread_local std::vector<uint64_t> keys;
  keys.resize(starts.size());
  for (size_t k = 0; k < starts.size(); ++k) {
    const NodeId s = starts[k];
    const bool rs = a.collectives[a.collective_of[s]].kind == CollectiveKind::ReduceScatter;
    keys[k] =
        (uint64_t{!rs} << 63) | (static_cast<uint64_t>(a.dom[s]) << 32) | static_cast<uint32_t>(s);
  }
  // Candidates arrive in node order, where dom mostly grows too: often
  // already in order, and a check is far cheaper than a sort.
  if (std::is_sorted(keys.begin(), keys.end()))
    return;
  std::sort(keys.begin(), keys.end());
  for (size_t k = 0; k < starts.size(); ++k)
    starts[k] = static_cast<NodeId>(keys[k] & 0xffffffffu);
}

std::unique_ptr<SchedulePolicy> make_upstream_policy() {
  return std::make_unique<UpstreamPolicy>();
}

} // namespace osched
