#pragma once
// Builds the reordered graph: the same nodes (names unchanged) in a new order.

#include <vector>

#include "graph/graph.h"

namespace osched {

Graph apply_order(const Graph& g, const std::vector<NodeId>& order);

}  // namespace osched
