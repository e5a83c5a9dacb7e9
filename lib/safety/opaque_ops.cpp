#include "safety/opaque_ops.h"

#include "ops/collective.h"

namespace osched {

bool is_collective_anchor(const Node& n) {
  return is_collective_node(n) || is_wait_node(n);
}

std::vector<OpaqueOp> find_opaque_ops(const Graph& g, const AssumePure& pure) {
  std::vector<OpaqueOp> ops;
  std::vector<NodeId> waits_since; // waits since the previous opaque op
  for (NodeId i = 0; i < g.size(); ++i) {
    const Node& n = g.nodes[i];
    const BarrierKind k = node_barrier_kind(n, pure);
    if (k != BarrierKind::None) {
      OpaqueOp op;
      op.node = i;
      op.kind = k;
      op.waits_held = std::move(waits_since);
      waits_since.clear();
      ops.push_back(std::move(op));
    } else if (is_wait_node(n)) {
      waits_since.push_back(i);
    } else if (is_collective_node(n) && !ops.empty()) {
      ops.back().starts_held.push_back(i);
    }
  }
  return ops;
}

std::vector<std::pair<NodeId, NodeId>> barrier_edges(const Graph& g,
                                                     const std::vector<OpaqueOp>& ops) {
  std::vector<std::pair<NodeId, NodeId>> edges;
  if (ops.empty())
    return edges;
  size_t next = 0; // the first opaque op after the node at hand
  for (NodeId i = 0; i < g.size(); ++i) {
    if (next < ops.size() && ops[next].node == i) {
      if (next > 0)
        edges.emplace_back(ops[next - 1].node, i);
      ++next;
      continue;
    }
    if (!is_collective_anchor(g.nodes[i]))
      continue;
    if (next > 0)
      edges.emplace_back(ops[next - 1].node, i);
    if (next < ops.size())
      edges.emplace_back(i, ops[next].node);
  }
  return edges;
}

OpaquePositions::OpaquePositions(const Graph& g, const AssumePure& pure)
    : before_(g.nodes.size() + 1, 0) {
  for (const OpaqueOp& op : find_opaque_ops(g, pure))
    before_[op.node + 1] = 1;
  for (NodeId i = 0; i < g.size(); ++i)
    before_[i + 1] += before_[i];
}

} // namespace osched
