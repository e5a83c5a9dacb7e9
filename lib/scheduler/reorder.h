#pragma once
// Builds the reordered graph: the same nodes (names unchanged) in a new order.

#include <vector>

#include "graph/graph.h"

namespace osched {

// Consumes `g` (its nodes move; pass a copy to keep the original).
Graph apply_order(Graph g, const std::vector<NodeId>& order);

// nodes[i] takes the node that was at order[i] (a permutation of the
// positions), in place, cycle by cycle: no second array of nodes exists
// even briefly. References are not touched.
void permute_nodes(std::vector<Node>& nodes, const std::vector<NodeId>& order);

} // namespace osched
