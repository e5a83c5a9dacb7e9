#include "memory/memory_tracker.h"

#include <algorithm>

namespace osched {

MemoryTracker::MemoryTracker(const StorageMap& map)
    : map_(map), remaining_reads_(map.read_count), allocated_(map.bytes.size(), false) {
  for (NodeId n : map.inputs)
    for (StorageId s : map.allocates[n])
      if (!allocated_[s]) {
        allocated_[s] = true;
        current_ += map.bytes[s];
      }
  peak_ = last_node_peak_ = current_;
}

int64_t MemoryTracker::allocation_of(NodeId n) const {
  int64_t b = 0;
  for (StorageId s : map_.allocates[n])
    if (!allocated_[s])
      b += map_.bytes[s];
  return b;
}

int64_t MemoryTracker::bytes_freed_by(NodeId n) const {
  int64_t b = 0;
  for (StorageId s : map_.reads[n])
    if (remaining_reads_[s] == 1 && map_.releasable[s] && allocated_[s])
      b += map_.bytes[s];
  return b;
}

void MemoryTracker::schedule(NodeId n) {
  for (StorageId s : map_.allocates[n]) {
    if (allocated_[s])
      continue;
    allocated_[s] = true;
    current_ += map_.bytes[s];
  }
  peak_ = std::max(peak_, current_);
  last_node_peak_ = current_;
  for (StorageId s : map_.reads[n]) {
    if (--remaining_reads_[s] == 0 && map_.releasable[s] && allocated_[s])
      current_ -= map_.bytes[s];
  }
}

MemoryProfile memory_profile(const StorageMap& map, const std::vector<NodeId>& order) {
  MemoryTracker t(map);
  MemoryProfile p;
  p.peak = p.peak_during = t.current_bytes();
  p.after_node.reserve(order.size());
  p.during_node.reserve(order.size());
  for (NodeId n : order) {
    t.schedule(n);
    p.after_node.push_back(t.current_bytes());
    p.during_node.push_back(t.last_node_peak_bytes());
    p.peak = std::max(p.peak, t.current_bytes());
  }
  p.peak_during = t.peak_bytes();
  return p;
}

int64_t memory_peak(const StorageMap& map, const std::vector<NodeId>& order) {
  MemoryTracker t(map);
  int64_t peak = t.current_bytes();
  for (NodeId n : order) {
    t.schedule(n);
    peak = std::max(peak, t.current_bytes());
  }
  return peak;
}

} // namespace osched
