#pragma once
// The ops of a graph that collectives may not move across, and the edges
// that hold them in place. An opaque op keeps its position relative to
// every collective start, every wait and every other opaque op, in both
// directions; other nodes still move around it where their dependencies
// allow. The edges are linear in number: each start or wait is tied to the
// opaque ops just before and just after it, and opaque ops to each other.

#include <utility>
#include <vector>

#include "graph/graph.h"
#include "ops/op_barrier.h"

namespace osched {

struct OpaqueOp {
  NodeId node = -1;
  BarrierKind kind = BarrierKind::Unknown;
  // The collectives it holds: starts after it that could otherwise be
  // issued before it, and waits before it that could otherwise move after
  // it (those up to the neighbouring opaque op), in graph order.
  std::vector<NodeId> starts_held, waits_held;
};

// Every opaque op of `g`, in graph order.
std::vector<OpaqueOp> find_opaque_ops(const Graph& g, const AssumePure& pure);

// (before, after) edges keeping `ops` in place among g's collective starts,
// waits and each other.
std::vector<std::pair<NodeId, NodeId>> barrier_edges(const Graph& g,
                                                     const std::vector<OpaqueOp>& ops);

// Where a graph's opaque ops are, for constant-time range questions (the
// bucket planners ask one per placement they try).
class OpaquePositions {
public:
  OpaquePositions() = default;
  OpaquePositions(const Graph& g, const AssumePure& pure);
  bool at(NodeId v) const { return before_[v + 1] > before_[v]; }
  // Is there an opaque op at a position in [lo, hi]? (false when hi < lo)
  bool any_in(NodeId lo, NodeId hi) const { return hi >= lo && before_[hi + 1] > before_[lo]; }

private:
  std::vector<NodeId> before_; // opaque ops in [0, i)
};

// Is node `n` a collective start or a wait (the nodes opaque ops hold)?
bool is_collective_anchor(const Node& n);

} // namespace osched
