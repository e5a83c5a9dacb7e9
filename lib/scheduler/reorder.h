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

// Each node's position after the permutation `order` (its inverse).
std::vector<NodeId> inverse_order(const std::vector<NodeId>& order);

// Points every reference and control dep of the nodes at new_index[old];
// control deps keep their order (sort them where the map does not).
void remap_refs(std::vector<Node>& nodes, const std::vector<NodeId>& new_index);

} // namespace osched
