#pragma once
// Live memory as nodes are scheduled, as upstream's MemoryTracker counts it:
// graph inputs are live from the start, a node's fresh storages are
// allocated when it runs, and a releasable storage is freed after the last
// node reading any of its aliases. Graph outputs, parameters and outputs
// nobody reads stay live to the end.

#include <cstdint>
#include <vector>

#include "memory/storage_map.h"

namespace osched {

class MemoryTracker {
public:
  // Starts with every graph input allocated.
  explicit MemoryTracker(const StorageMap& map);

  void schedule(NodeId n);
  int64_t current_bytes() const { return current_; }
  // Memory while the last scheduled node ran: its outputs allocated, its
  // inputs not yet released.
  int64_t last_node_peak_bytes() const { return last_node_peak_; }
  int64_t peak_bytes() const { return peak_; }
  // Bytes node n would allocate if scheduled now (its fresh storages).
  int64_t allocation_of(NodeId n) const;
  // Bytes scheduling n now would release (buffers it is the last reader of).
  int64_t bytes_freed_by(NodeId n) const;
  int32_t remaining_reads(StorageId s) const { return remaining_reads_[s]; }

private:
  const StorageMap& map_;
  std::vector<int32_t> remaining_reads_;
  std::vector<bool> allocated_;
  int64_t current_ = 0;
  int64_t peak_ = 0;
  int64_t last_node_peak_ = 0;
};

// Memory after each node of `order` (same length), and the peaks.
struct MemoryProfile {
  std::vector<int64_t> after_node;
  std::vector<int64_t> during_node; // while each node runs: outputs allocated, inputs not yet freed
  // Upstream's measure (the one budgets are judged by): the most memory
  // after any node's frees, or the inputs alone.
  int64_t peak = 0;
  int64_t peak_during = 0; // the most while any node runs
};
MemoryProfile memory_profile(const StorageMap& map, const std::vector<NodeId>& order);
// memory_profile(map, order).peak, without the per-node vectors.
int64_t memory_peak(const StorageMap& map, const std::vector<NodeId>& order);

} // namespace osched
