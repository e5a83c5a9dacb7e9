#include "scheduler/reorder.h"

namespace osched {

namespace {

template <typename NodeSource>
Graph reorder(const Graph& g, const std::vector<NodeId>& order, NodeSource&& take) {
  Graph out = g.without_nodes();
  std::vector<NodeId> new_index(g.nodes.size(), -1);
  for (size_t i = 0; i < order.size(); ++i) new_index[order[i]] = static_cast<NodeId>(i);
  out.nodes.reserve(order.size());
  for (NodeId old : order) {
    Node n = take(old);
    auto remap = [&](Value& v) { v.i = new_index[v.i]; };
    for (auto& a : n.args) for_each_ref_mut(a, remap);
    for (auto& kv : n.kwargs) for_each_ref_mut(kv.second, remap);
    for (auto& d : n.control_deps) d = new_index[d];
    out.nodes.push_back(std::move(n));
  }
  out.rebuild_index();
  return out;
}

}  // namespace

Graph apply_order(const Graph& g, const std::vector<NodeId>& order) {
  return reorder(g, order, [&](NodeId i) { return g.nodes[i]; });
}

Graph apply_order(Graph&& g, const std::vector<NodeId>& order) {
  return reorder(g, order, [&](NodeId i) { return std::move(g.nodes[i]); });
}

}  // namespace osched
