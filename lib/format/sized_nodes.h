#pragma once

#include <cstddef>
#include <vector>

#include "graph/graph.h"

namespace osched {

// Sizes `nodes` (empty) to `n` default nodes for a reader to fill. On the
// virtual machines we run on, the first write to a fresh page costs far more
// than the write, and a million-node array is large: with
// `parallel`, another thread has the kernel fault in the array's second half
// while this one constructs the first, so the pages come in on two cores.
void size_nodes(std::vector<Node>& nodes, size_t n, bool parallel);

} // namespace osched
