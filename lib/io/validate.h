#pragma once
// Semantic checks of a parsed graph. Throws GraphError on the first problem.

#include "graph/graph.h"

namespace osched {

// With require_topological_order=false, forward references are allowed but
// cycles are still errors.
void validate_graph(const Graph& g, bool require_topological_order = true);

}  // namespace osched
