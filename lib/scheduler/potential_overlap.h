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

  // For each node, an independent compute node or -1. Nearest compute nodes
  // are tried first (cheap reachability checks); with limit_one_per_compute
  // each compute node hides at most one of `nodes`.
  std::vector<NodeId> find_hiding(const std::vector<NodeId>& nodes, bool limit_one_per_compute) const;

 private:
  const DependencyGraph& dg_;
  const std::vector<NodeId>& compute_;
};

}  // namespace osched
