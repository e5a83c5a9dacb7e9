#pragma once
// --insert-overlap-deps: control_deps that pin each hidden collective's
// overlap, so a later pass (or the runtime's own scheduler) cannot undo it:
// every hiding compute node depends on the collective's start, and the wait
// depends on every hiding compute node. Edges between two collective
// starts/waits are left out, as PyTorch leaves them to NCCL's stream order.

#include <vector>

#include "bucketing/overlap_interval.h"
#include "graph/graph.h"

namespace osched {

// Adds the edges (skipping ones already present as data or control inputs) and
// returns how many were added. The graph's order must already satisfy them.
int insert_overlap_deps(Graph& g, const std::vector<OverlapInterval>& intervals);

} // namespace osched
