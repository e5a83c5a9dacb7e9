#pragma once
// Which collectives may run as one: the same process group, op, and (for
// reductions) dtype and reduce op. All-gathers only copy bytes, so they
// merge across dtypes (upstream's multidtype mode).

#include <optional>
#include <string>

#include "graph/graph.h"
#include "ops/collective_info.h"

namespace osched {

// nullopt for collectives no bucket takes: coalesced forms, all-to-all,
// broadcast, in-place and out= forms (a flat copy would not write their
// buffer), those of unknown group or size, and buckets the tool made.
std::optional<std::string> bucket_key(const Graph& g, NodeId start,
                                      const std::optional<CollectiveInfo>& c);

} // namespace osched
