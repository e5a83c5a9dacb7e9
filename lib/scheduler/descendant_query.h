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
// never further than one walk to the last candidate. A node with one user
// reaches what that user reaches: the walk starts where the overlap node's
// run of single users ends, and a candidate on that run is a descendant
// outright (a long unary chain ahead of a collective cost a walk down the
// whole chain at every node of it).
//
// Where the graph is small enough, none of that runs: each node keeps a bit
// per collective start it reaches, built in one reverse pass (O(E * C/64)
// word operations, at most kDescendantBitWords words), and a query reads
// its candidates' bits. The walk serves the graphs past that size.

#include <cstddef>
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
  // Where they fit: per start with a chain, its bit (-1 for other nodes),
  // and per node the bits of the starts it reaches, `words` words a node.
  std::vector<int32_t> bit;
  size_t words = 0;
  std::vector<uint64_t> reaches;
};

// The largest descendant table built (32 MiB).
constexpr size_t kDescendantBitWords = size_t{1} << 22;

// `starts`: the collectives' start nodes; `can_overlap[v]`: whether v can
// be a node queries start from. The bits are built when the graph's nodes
// times the words its starts need is at most `max_bit_words`.
CollectiveChains build_collective_chains(const DependencyGraph& dg, std::vector<NodeId> starts,
                                         const std::vector<char>& can_overlap,
                                         size_t max_bit_words = kDescendantBitWords);

class DescendantQuery {
public:
  DescendantQuery(const DependencyGraph& dg, const CollectiveChains& chains);

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

  // Is c on the run of single users from v (v itself included)?
  bool on_single_user_run(NodeId c, NodeId v) const {
    return tin_[static_cast<size_t>(c)] <= tin_[static_cast<size_t>(v)] &&
           tin_[static_cast<size_t>(v)] <= tout_[static_cast<size_t>(c)];
  }

  const DependencyGraph& dg_;
  const CollectiveChains& chains_;
  // The forest where a node with one user hangs under that user: per node,
  // the root its run of single users ends at, and its interval in a
  // depth-first order (a node's run passes c iff c's interval holds it).
  std::vector<NodeId> run_end_;
  std::vector<int32_t> tin_, tout_;
  std::vector<uint32_t> mark_;
  uint32_t stamp_ = 0;
  std::vector<NodeId> stack_, beyond_;
};

} // namespace osched
