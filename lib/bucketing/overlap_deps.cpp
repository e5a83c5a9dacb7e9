#include "bucketing/overlap_deps.h"

#include <algorithm>

#include "ops/collective_info.h"
#include "ops/op_table.h"

#include <map>
#include <string>

namespace osched {
namespace {

// Whether each node is a collective or a wait, decided on first use (the
// names are compared once per node, not once per pair it is in).
class TimelineNodes {
public:
  explicit TimelineNodes(const Graph& g) : g_(g), known_(g.nodes.size(), 0) {}
  bool operator()(NodeId v) {
    if (known_[v] == 0) {
      const Node& n = g_.nodes[v];
      known_[v] = is_collective_node(n) || is_wait_node(n) ? 1 : 2;
    }
    return known_[v] == 1;
  }

private:
  const Graph& g_;
  std::vector<uint8_t> known_; // 0: not yet, 1: collective or wait, 2: neither
};

// Adds `dep` to n's control deps unless n already depends on it directly.
bool add_dep(Graph& g, TimelineNodes& timeline, NodeId n, NodeId dep) {
  Node& node = g.nodes[n];
  if (timeline(n) && timeline(dep))
    return false;
  const auto& deps = node.attrs().control_deps;
  if (std::find(deps.begin(), deps.end(), dep) != deps.end())
    return false;
  bool reads = false;
  for_each_data_input(node, [&](NodeId d) { reads |= d == dep; });
  if (reads)
    return false;
  auto& edited = node.edit_attrs().control_deps;
  edited.insert(std::upper_bound(edited.begin(), edited.end(), dep), dep);
  return true;
}

} // namespace

int insert_overlap_deps(Graph& g, const std::vector<OverlapInterval>& intervals,
                        bool group_timelines) {
  int added = 0;
  TimelineNodes timeline(g);
  if (group_timelines) {
    // Per group: its starts and waits, and the compute and hiding nodes.
    std::map<std::string, std::vector<NodeId>> events;
    std::vector<bool> hiding(g.nodes.size(), false);
    for (const OverlapInterval& iv : intervals) {
      if (!iv.schedulable || iv.wait < 0)
        continue;
      auto& e = events[collective_group_name(g.nodes[iv.start]).value_or("")];
      e.push_back(iv.start);
      e.push_back(iv.wait);
      for (NodeId h : iv.hiding)
        hiding[h] = true;
    }
    std::vector<NodeId> compute_or_hiding; // the same for every group
    if (!events.empty())
      for (NodeId i = 0; i < g.size(); ++i)
        if (hiding[i] || is_compute_node(g.nodes[i]))
          compute_or_hiding.push_back(i);
    for (auto& [group, e] : events) {
      e.insert(e.end(), compute_or_hiding.begin(), compute_or_hiding.end());
      std::sort(e.begin(), e.end());
      e.erase(std::unique(e.begin(), e.end()), e.end());
      for (size_t k = 1; k < e.size(); ++k)
        added += add_dep(g, timeline, e[k], e[k - 1]);
    }
  }
  for (const OverlapInterval& iv : intervals) {
    if (!iv.schedulable || iv.wait < 0 || iv.exposed_ms != 0)
      continue;
    for (NodeId h : iv.hiding) {
      if (h <= iv.start || h >= iv.wait)
        continue; // not inside: nothing to pin
      added += add_dep(g, timeline, h, iv.start);
      added += add_dep(g, timeline, iv.wait, h);
    }
  }
  return added;
}

} // namespace osched
