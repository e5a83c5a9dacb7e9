#pragma once
// Pointwise chains as one kernel (schedule --fusion). Inductor fuses the
// connected pointwise, reduction and view ops between matmuls and
// collectives into one generated kernel that reads the tensors entering the
// chain and writes the ones leaving it once; costing each op alone charges
// every intermediate tensor twice and one launch per op.

#include "cost/estimator.h"
#include "cost/hardware.h"
#include "graph/graph.h"

namespace osched {

// A fusion region: connected fusible nodes (pointwise, reductions, views)
// whose estimates came from the analytical model. Its cost, the bytes
// entering and leaving it at HBM bandwidth plus one launch, goes to one of
// its kernels (the first by name, whatever the order); its other nodes cost
// 0. Returns the number of regions of two or more kernels.
size_t fuse_pointwise_costs(const Graph& g, const HardwareSpec& hw, RuntimeTable& table);

} // namespace osched
