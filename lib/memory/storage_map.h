#pragma once
// Which allocation (storage) each node output lives in. Exporter storage ids
// win; otherwise views and waits alias their input, getitem the output it
// selects, in-place and out= ops the tensors they write, and every other
// output is a fresh allocation sized by its shape, stride and dtype.
// As upstream's memory estimator counts: CPU tensors take no (device)
// memory, and graph inputs are released after their last reader unless they
// are parameters (named primals_*).

#include <cstdint>
#include <vector>

#include "graph/graph.h"

namespace osched {

using StorageId = int32_t;

struct StorageMap {
  std::vector<int64_t> bytes;   // per storage
  std::vector<bool> releasable; // false for parameters and graph outputs
  std::vector<NodeId> inputs;   // placeholder and get_attr nodes: live from the start
  // Per node: storages the node allocates, and storages it reads (deduplicated).
  std::vector<std::vector<StorageId>> allocates;
  std::vector<std::vector<StorageId>> reads;
  // Per node: storages it writes in place (graph/mutation.h), deduplicated.
  std::vector<std::vector<StorageId>> writes;
  // Per storage: how many (node, storage) reads there are in the graph.
  std::vector<int32_t> read_count;
};

StorageMap build_storage_map(const Graph& g);

} // namespace osched
