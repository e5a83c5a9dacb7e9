#pragma once
// A way back to a graph as it was, for a pass that tries a rewrite and may
// have to undo it: a copy, or, for large graphs, the graph's protobuf bytes
// (a fraction of the memory, some seconds per million nodes to restore).

#include <optional>
#include <string>

#include "graph/graph.h"

namespace osched {

class GraphSnapshot {
public:
  // From `compact_from_nodes` nodes on, the snapshot is protobuf bytes.
  GraphSnapshot(const Graph& g, size_t compact_from_nodes);

  // The graph as it was when the snapshot was taken.
  Graph restore() const;

private:
  std::optional<Graph> copy_;
  std::string bytes_;
};

} // namespace osched
