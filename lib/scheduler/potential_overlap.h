#pragma once
// Which collectives (or waits) some compute node could hide: a compute node
// that is neither an ancestor nor a descendant of it. Used to tell exposed
// collectives that could have been hidden from those that never could.
// Exact, and near-linear where most nodes have independent compute close by;
// the others are resolved 64 at a time with bit-parallel whole-graph sweeps.

#include <vector>

#include "scheduler/dependency_graph.h"

namespace osched {

class PotentialOverlap {
public:
  PotentialOverlap(const DependencyGraph& dg, const std::vector<NodeId>& compute_nodes)
      : dg_(dg), compute_(compute_nodes) {}

  // For each node, its nearest independent compute node (by position; the
  // earlier on a tie) or -1. Node indices must be topological.
  std::vector<NodeId> find_hiding(const std::vector<NodeId>& nodes) const;

private:
  const DependencyGraph& dg_;
  const std::vector<NodeId>& compute_;
};

} // namespace osched
