#pragma once
// Semantic checks of a parsed graph. Throws GraphError on the first problem.

#include <cstddef>

#include "graph/graph.h"

namespace osched {

// Largest world accepted: far above any job, small enough that rank
// arithmetic cannot overflow.
constexpr int64_t kMaxWorldSize = int64_t{1} << 20;
// Names (nodes, targets, process groups) and string literals in arguments:
// FX names are short, so longer ones are hostile input, not graphs.
constexpr size_t kMaxNameBytes = 4096;
constexpr size_t kMaxStringArgBytes = size_t{1} << 20;
// Node indices are int32; half the range leaves room for the rewrite's nodes.
constexpr size_t kMaxNodes = size_t{1} << 30;

// With require_topological_order=false, forward references are allowed but
// cycles are still errors.

void validate_graph(const Graph& g, bool require_topological_order = true);

} // namespace osched
