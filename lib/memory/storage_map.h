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

// One short list of storages per node, all in one array (compressed rows):
// a large graph has millions of such lists, mostly of one or two entries.
struct NodeStorageLists {
  std::vector<int64_t> offsets{0}; // rows() + 1
  std::vector<StorageId> items;

  struct Row {
    const StorageId* b;
    const StorageId* e;
    const StorageId* begin() const { return b; }
    const StorageId* end() const { return e; }
    size_t size() const { return static_cast<size_t>(e - b); }
    bool empty() const { return b == e; }
    StorageId operator[](size_t k) const { return b[k]; }
  };
  Row operator[](size_t node) const {
    return {items.data() + offsets[node], items.data() + offsets[node + 1]};
  }
  size_t rows() const { return offsets.size() - 1; }
  // The next node's list.
  void append_row(const std::vector<StorageId>& row) {
    items.insert(items.end(), row.begin(), row.end());
    offsets.push_back(static_cast<int64_t>(items.size()));
  }
};

struct StorageMap {
  std::vector<int64_t> bytes;   // per storage
  std::vector<bool> releasable; // false for parameters and graph outputs
  std::vector<NodeId> inputs;   // placeholder and get_attr nodes: live from the start
  // Per node: storages the node allocates, and storages it reads (deduplicated).
  NodeStorageLists allocates;
  NodeStorageLists reads;
  // Per node: storages it writes in place (ops/mutation.h), deduplicated.
  NodeStorageLists writes;
  // Per storage: how many (node, storage) reads there are in the graph.
  std::vector<int32_t> read_count;
};

StorageMap build_storage_map(const Graph& g);

} // namespace osched
