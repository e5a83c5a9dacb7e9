#pragma once
// Builds the reordered graph: the same nodes (names unchanged) in a new order.

#include <vector>

#include "graph/graph.h"

namespace osched {

// Consumes `g` (its nodes move; pass a copy to keep the original).
Graph apply_order(Graph g, const std::vector<NodeId>& order);

} // namespace osched
