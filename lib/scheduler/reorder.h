#pragma once
// Builds the reordered graph: the same nodes (names unchanged) in a new order.

#include <vector>

#include "graph/graph.h"

namespace osched {

Graph apply_order(const Graph& g, const std::vector<NodeId>& order);
// The same, moving the nodes out of `g` (no second copy of a large graph).
Graph apply_order(Graph&& g, const std::vector<NodeId>& order);

} // namespace osched
