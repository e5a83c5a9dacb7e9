#pragma once
// How a collective's raw (not yet waited) result is used, which decides
// whether the scheduler may move it: waits complete it, metadata reads
// (sym_size, ...) need only sizes known at issue time, and anything else
// would read the data before it arrives.

#include <vector>

#include "graph/graph.h"

namespace osched {

struct CollectiveUses {
  std::vector<NodeId> waits;    // program order; several for coalesced forms
  std::vector<NodeId> metadata; // metadata-only readers
  NodeId other = -1;            // first other reader, -1 if none
  bool other_is_output = false; // that reader is the graph's output node
};

// `data_users` from build_user_lists(g, build_input_lists(g, false)).
// getitem nodes selecting an output are looked through.
CollectiveUses collective_uses(const Graph& g, const UserLists& data_users, NodeId coll);

} // namespace osched
