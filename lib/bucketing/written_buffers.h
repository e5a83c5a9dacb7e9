#pragma once
// Buffers something writes in place. A merged collective reads its
// members' inputs and completes their outputs at other times than they
// did, which would cross such a write: collectives touching one stay alone.

#include <vector>

#include "graph/graph.h"
#include "memory/storage_map.h"

namespace osched {

class WrittenBuffers {
public:
  // Builds the storage map only when some node writes in place.
  explicit WrittenBuffers(const Graph& g);
  bool any() const { return any_; }
  // Does the collective started at `start` and waited at `wait` read or
  // make a written buffer?
  bool touched_by(NodeId start, NodeId wait) const;

private:
  bool any_ = false;
  StorageMap storages_;
  std::vector<bool> written_; // per storage
};

} // namespace osched
