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
// Most queries need none of that. The candidates of one opportunity are a
// few hundred consecutive starts, and the next opportunity asks about
// nearly the same ones from a node a little further on: for a window of
// kWindowBits consecutive starts, each node from a little before the
// querying node up to the window's last start keeps a bit per start it
// reaches, filled in one reverse pass over those nodes. A query inside the
// window reads its candidates' bits; the window moves on when the
// candidates leave it, and the walk answers what it cannot hold (candidates
// spread wider than the window, a querying node far before it).

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
  // The starts with a chain in id order, and per node its place among
  // them (-1 for other nodes).
  std::vector<NodeId> chained;
  std::vector<int32_t> rank;
};

// `starts`: the collectives' start nodes; `can_overlap[v]`: whether v can
// be a node queries start from.
CollectiveChains build_collective_chains(const DependencyGraph& dg, std::vector<NodeId> starts,
                                         const std::vector<char>& can_overlap);

class DescendantQuery {
public:
  // Without `window`, every query walks (for tests: both answer the same).
  DescendantQuery(const DependencyGraph& dg, const CollectiveChains& chains, bool window = true);

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
  void classify_by_walk(NodeId from, const std::vector<NodeId>& candidates,
                        std::vector<char>& is_descendant);
  // Whether the window answers this query, moved first if need be.
  bool window_holds(NodeId from, int32_t first_rank, int32_t last_rank);

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
  // The window: starts of rank [base_, base_ + kWindowBits), and the bits
  // of nodes lo_..hi_ (hi_ the window's last start), kWords per node.
  static constexpr int32_t kWindowBits = 512;
  static constexpr size_t kWords = kWindowBits / 64;
  // The most nodes a window covers: past it, the walk answers.
  static constexpr NodeId kWindowNodes = 1 << 15;
  static constexpr int64_t kWindowRowsPerNode = 32;
  int64_t rows_filled_ = 0;
  const bool use_window_;
  int32_t base_ = -1;
  NodeId lo_ = 0, hi_ = -1;
  std::vector<uint64_t> rows_;
};

} // namespace osched
