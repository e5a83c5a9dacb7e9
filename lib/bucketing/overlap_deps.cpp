#include "bucketing/overlap_deps.h"

#include <algorithm>

#include "graph/collective_info.h"
#include "graph/op_table.h"

#include <map>
#include <string>

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

int insert_overlap_deps(Graph& g, const std::vector<OverlapInterval>& intervals,
                        bool group_timelines) {
  int added = 0;
  if (group_timelines) {
    // Per group: its starts and waits, and the compute and hiding nodes.
    std::map<std::string, std::vector<NodeId>> events;
    std::vector<bool> hiding(g.nodes.size(), false);
    for (const OverlapInterval& iv : intervals) {
      if (!iv.schedulable || iv.wait < 0)
        continue;
      auto& e = events[decode_collective(g, iv.start)->group];
      e.push_back(iv.start);
      e.push_back(iv.wait);
      for (NodeId h : iv.hiding)
        hiding[h] = true;
    }
    for (auto& [group, e] : events) {
      for (NodeId i = 0; i < g.size(); ++i)
        if (is_compute_node(g.nodes[i]) || hiding[i])
          e.push_back(i);
      std::sort(e.begin(), e.end());
      e.erase(std::unique(e.begin(), e.end()), e.end());
      for (size_t k = 1; k < e.size(); ++k)
        added += add_dep(g, e[k], e[k - 1]);
    }
  }
  for (const OverlapInterval& iv : intervals) {
    if (!iv.schedulable || iv.wait < 0 || iv.exposed_ms != 0)
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
