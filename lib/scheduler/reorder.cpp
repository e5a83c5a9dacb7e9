#include "scheduler/reorder.h"

#include <stdexcept>

namespace osched {

void remap_refs(std::vector<Node>& nodes, const std::vector<NodeId>& new_index) {
  auto remap = [&](Value& v) { v.i = new_index[v.i]; };
  for (Node& n : nodes) {
    for (auto& a : n.args)
      for_each_ref_mut(a, remap);
    if (NodeAttrs* at = n.existing_attrs()) {
      for (auto& kv : at->kwargs)
        for_each_ref_mut(kv.second, remap);
      for (auto& d : at->control_deps)
        d = new_index[d];
    }
  }
}

std::vector<NodeId> inverse_order(const std::vector<NodeId>& order) {
  std::vector<NodeId> new_index(order.size(), -1);
  for (size_t i = 0; i < order.size(); ++i)
    new_index[order[i]] = static_cast<NodeId>(i);
  return new_index;
}

void permute_nodes(std::vector<Node>& nodes, const std::vector<NodeId>& order) {
  std::vector<bool> placed(order.size(), false);
  for (size_t start = 0; start < order.size(); ++start) {
    if (placed[start])
      continue;
    Node carry = std::move(nodes[start]);
    size_t j = start;
    while (static_cast<size_t>(order[j]) != start) {
      // Not a permutation: a bug of the caller's, never a hang.
      if (static_cast<size_t>(order[j]) >= order.size() || placed[order[j]])
        throw std::logic_error("permute_nodes: the order is not a permutation");
      nodes[j] = std::move(nodes[order[j]]);
      placed[j] = true;
      j = static_cast<size_t>(order[j]);
    }
    nodes[j] = std::move(carry);
    placed[j] = true;
  }
}

Graph apply_order(Graph g, const std::vector<NodeId>& order) {
  permute_nodes(g.nodes, order);
  const std::vector<NodeId> new_index = inverse_order(order);
  remap_refs(g.nodes, new_index);
  Graph out = std::move(g);
  out.remap_index(new_index); // same names, new positions: no rehashing
  return out;
}

} // namespace osched
