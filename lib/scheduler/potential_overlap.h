#pragma once
// Which collectives (or waits) some compute node could hide: a compute node
// that is neither an ancestor nor a descendant of it. Used to tell exposed
// collectives that could have been hidden from those that never could.

#include <vector>

#include "scheduler/dependency_graph.h"

namespace osched {

class PotentialOverlap {
public:
  PotentialOverlap(const DependencyGraph& dg, const std::vector<NodeId>& compute_nodes)
      : dg_(dg), compute_(compute_nodes) {}

  // For each node, an independent compute node or -1, the nearest first.
  std::vector<NodeId> find_hiding(const std::vector<NodeId>& nodes) const;

  // The same where each compute node hides at most one of `nodes` (greedy in
  // order). `unlimited` is find_hiding(nodes): a node's nearest independent
  // compute, when still free, is its answer at once. Nodes that need a
  // whole-graph search share a budget of a few dozen graph traversals; past
  // it they count as not hideable and bounded() turns true (the count is then
  // a lower bound), so pathological graphs stay near-linear.
  std::vector<NodeId> find_hiding_limited(const std::vector<NodeId>& nodes,
                                          const std::vector<NodeId>& unlimited) const;
  bool bounded() const { return bounded_; }

private:
  std::vector<NodeId> search(const std::vector<NodeId>& nodes, bool limit_one_per_compute,
                             const std::vector<NodeId>* unlimited) const;

  const DependencyGraph& dg_;
  const std::vector<NodeId>& compute_;
  mutable bool bounded_ = false;
};

} // namespace osched
