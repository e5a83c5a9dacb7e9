#pragma once
// --insert-overlap-deps: control_deps that pin the overlap the schedule
// found, so a later pass (or the runtime's own scheduler) cannot undo it, as
// upstream pins it: for each fully hidden collective, every hiding node
// depends on its start and its wait on every hiding node. After bucketing,
// upstream also keeps each process group's timeline (its starts, waits and
// the compute nodes among them, in order): each event depends on the one
// before. Edges between two collective starts/waits are left out, as
// PyTorch leaves them to NCCL's stream order.

#include <vector>

#include "bucketing/overlap_interval.h"
#include "graph/graph.h"

namespace osched {

// Adds the edges (skipping ones already present as data or control inputs) and
// returns how many were added. The graph's order must already satisfy them.
int insert_overlap_deps(Graph& g, const std::vector<OverlapInterval>& intervals,
                        bool group_timelines = false);

} // namespace osched
