#pragma once
// The shortest simulated step over every topological order of a small
// graph, for tests that check a lower bound against the real optimum.

#include <algorithm>
#include <vector>

#include "graph/graph.h"
#include "sim/simulate.h"

namespace osched::test {

// `merged`: buckets simulated as one collective each; a bucket's readers
// (of any member) come after all its members' starts, as in the rewritten
// graph. 1e300 when no order exists (a bucket tied into a cycle).
inline double best_step_over_orders(const Graph& g, const SimulationPlan& plan,
                                    const std::vector<MergedCollective>& merged = {}) {
  const size_t n = g.nodes.size();
  std::vector<std::vector<NodeId>> users(n);
  std::vector<int> missing(n, 0);
  auto edge = [&](NodeId from, NodeId to) {
    users[static_cast<size_t>(from)].push_back(to);
    ++missing[static_cast<size_t>(to)];
  };
  for (NodeId v = 0; v < static_cast<NodeId>(n); ++v)
    for (NodeId p : node_inputs(g.nodes[static_cast<size_t>(v)]))
      edge(p, v);
  for (const MergedCollective& m : merged)
    for (NodeId v = 0; v < static_cast<NodeId>(n); ++v)
      for (int64_t k = plan.blocks_offset[static_cast<size_t>(v)];
           k < plan.blocks_offset[static_cast<size_t>(v) + 1]; ++k)
        if (std::count(m.starts.begin(), m.starts.end(), plan.blocks_on[static_cast<size_t>(k)]))
          for (NodeId s : m.starts)
            edge(s, v);
  std::vector<NodeId> order;
  std::vector<char> placed(n, 0);
  double best = 1e300;
  auto search = [&](auto&& self) -> void {
    if (order.size() == n) {
      best = std::min(best, simulate_step(plan, order, merged).step_ms);
      return;
    }
    for (NodeId v = 0; v < static_cast<NodeId>(n); ++v) {
      if (placed[static_cast<size_t>(v)] || missing[static_cast<size_t>(v)] > 0)
        continue;
      placed[static_cast<size_t>(v)] = 1;
      order.push_back(v);
      for (NodeId u : users[static_cast<size_t>(v)])
        --missing[static_cast<size_t>(u)];
      self(self);
      for (NodeId u : users[static_cast<size_t>(v)])
        ++missing[static_cast<size_t>(u)];
      order.pop_back();
      placed[static_cast<size_t>(v)] = 0;
    }
  };
  search(search);
  return best;
}

} // namespace osched::test
