#pragma once
// Live memory as nodes are scheduled: a node's fresh storages are allocated
// when it runs and each storage is freed after the last node reading any of
// its aliases. Inputs and graph outputs stay live throughout.

#include <cstdint>
#include <vector>

#include "memory/storage_map.h"

namespace osched {

class MemoryTracker {
 public:
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

// Memory after each node of `order` (same length), and the peak.
struct MemoryProfile {
  std::vector<int64_t> after_node;
  std::vector<int64_t> during_node;  // peak while each node runs
  int64_t peak = 0;
};
MemoryProfile memory_profile(const StorageMap& map, const std::vector<NodeId>& order);

}  // namespace osched
