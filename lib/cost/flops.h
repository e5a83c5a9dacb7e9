#pragma once
// FLOP counts of compute operators, following torch.utils.flop_counter's
// formulas, from the shapes recorded on the node and its inputs.

#include <cstdint>

#include "graph/graph.h"

namespace osched {

// FLOPs of node n, or 0 when the operator has no formula or shapes are missing.
double count_flops(const Graph& g, NodeId n);

} // namespace osched
