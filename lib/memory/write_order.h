#pragma once
// The orders that in-place writes impose. A node that writes a storage (or
// an alias of it) must stay after every earlier reader and writer of that
// storage and before every later one, though no data edge says so: matmuls
// reading a parameter that split_with_sizes_copy fills, or a reduce-scatter
// input that chunk_cat writes. The scheduler adds these edges; verify checks
// them.

#include <cstdint>
#include <utility>
#include <vector>

#include "graph/graph.h"
#include "memory/storage_map.h"

namespace osched {

struct WriteOrderEdge {
  NodeId before = -1;
  NodeId after = -1;
  enum class Why : uint8_t {
    ReadAfterWrite,
    WriteAfterRead,
    WriteAfterWrite
  } why = Why::ReadAfterWrite;
};

// Edges in program order (before < after), linear in the number of reads of
// written storages. An asynchronous collective's write completes at its
// wait, so the wait counts as writing the same storages.
std::vector<WriteOrderEdge> write_order_edges(const Graph& g, const StorageMap& map);

} // namespace osched
