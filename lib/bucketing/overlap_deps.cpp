#include "bucketing/overlap_deps.h"

#include <algorithm>

#include "graph/collective.h"

namespace osched {
namespace {

bool is_collective_or_wait(const Node& n) {
  return is_collective_node(n) || is_wait_node(n);
}

// Adds `dep` to n's control deps unless n already depends on it directly.
bool add_dep(Graph& g, NodeId n, NodeId dep) {
  Node& node = g.nodes[n];
  if (is_collective_or_wait(node) && is_collective_or_wait(g.nodes[dep]))
    return false;
  auto& deps = node.control_deps;
  if (std::find(deps.begin(), deps.end(), dep) != deps.end())
    return false;
  std::vector<NodeId> data = data_inputs(node);
  if (std::find(data.begin(), data.end(), dep) != data.end())
    return false;
  deps.insert(std::upper_bound(deps.begin(), deps.end(), dep), dep);
  return true;
}

} // namespace

int insert_overlap_deps(Graph& g, const std::vector<OverlapInterval>& intervals) {
  int added = 0;
  for (const OverlapInterval& iv : intervals) {
    if (!iv.schedulable || iv.wait < 0)
      continue;
    for (NodeId h : iv.hiding) {
      if (h <= iv.start || h >= iv.wait)
        continue; // not inside: nothing to pin
      added += add_dep(g, h, iv.start);
      added += add_dep(g, iv.wait, h);
    }
  }
  return added;
}

} // namespace osched
