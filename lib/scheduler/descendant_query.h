#pragma once
// Which of a window of candidate collectives descend from the node that is
// about to hide them. The scheduler asks at every overlap opportunity; on
// graphs where nearly every candidate is a descendant (MoE dispatch and
// combine) one forward walk up to the last candidate per opportunity was
// most of the scheduling time. Two exact shortcuts answer most candidates
// without walking:
//
//  - the latest overlap-capable node among a collective's ancestors: a
//    later overlap node cannot be one of them;
//  - chains of collectives, each reachable from the one before it in graph
//    order: once one member is a descendant, the later members are too.
//
// The rest are answered by a forward walk that goes only as far as the
// first open candidate, then, if any remain open, on to the last of them:
// never further than one walk to the last candidate.

#include <cstdint>
#include <vector>

#include "scheduler/dependency_graph.h"

namespace osched {

struct CollectiveChains {
  // Per node: the largest id among its ancestors that can be overlap
  // nodes; -1 when none.
  std::vector<NodeId> latest_overlap_ancestor;
  // Per collective start that some overlap node may precede: its chain;
  // -1 for other nodes. Chain ids grow with graph order; each member but
  // the first of a chain is reachable from the member before.
  std::vector<int32_t> chain;
};

// `starts`: the collectives' start nodes; `can_overlap[v]`: whether v can
// be a node queries start from.
CollectiveChains build_collective_chains(const DependencyGraph& dg, std::vector<NodeId> starts,
                                         const std::vector<char>& can_overlap);

class DescendantQuery {
public:
  DescendantQuery(const DependencyGraph& dg, const CollectiveChains& chains)
      : dg_(dg), chains_(chains) {}

  // is_descendant[i]: whether candidates[i] is reachable from `from`, a node
  // that can_overlap accepted. Candidates in increasing id order.
  void classify(NodeId from, const std::vector<NodeId>& candidates,
                std::vector<char>& is_descendant);

private:
  bool may_descend(NodeId from, NodeId c) const {
    return c > from && from <= chains_.latest_overlap_ancestor[static_cast<size_t>(c)];
  }
  // Marks what the walk reaches through nodes up to `bound`, first resuming
  // from the users the previous walk left past its bound; with
  // `keep_beyond`, the users past this bound are kept for the next.
  void walk(NodeId bound, bool keep_beyond);

  const DependencyGraph& dg_;
  const CollectiveChains& chains_;
  std::vector<uint32_t> mark_;
  uint32_t stamp_ = 0;
  std::vector<NodeId> stack_, beyond_;
};

} // namespace osched
