#pragma once
// Semantic checks of a parsed graph. Throws GraphError on the first problem.

#include "graph/graph.h"

namespace osched {

// Largest world accepted: far above any job, small enough that rank
// arithmetic cannot overflow.
constexpr int64_t kMaxWorldSize = int64_t{1} << 20;

// With require_topological_order=false, forward references are allowed but
// cycles are still errors.

void validate_graph(const Graph& g, bool require_topological_order = true);

} // namespace osched
