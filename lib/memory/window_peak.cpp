#include "memory/window_peak.h"

#include <algorithm>

#include "memory/memory_tracker.h"

namespace osched {
namespace {

// Per storage, the nodes whose lists name it, in node order.
NodeStorageLists invert(const NodeStorageLists& lists, size_t storages) {
  NodeStorageLists inv;
  inv.offsets.assign(storages + 1, 0);
  for (StorageId s : lists.items)
    ++inv.offsets[static_cast<size_t>(s) + 1];
  for (size_t s = 0; s < storages; ++s)
    inv.offsets[s + 1] += inv.offsets[s];
  inv.items.resize(lists.items.size());
  std::vector<int64_t> fill(inv.offsets.begin(), inv.offsets.end() - 1);
  for (size_t v = 0; v < lists.rows(); ++v)
    for (StorageId s : lists[v])
      inv.items[static_cast<size_t>(fill[static_cast<size_t>(s)]++)] = static_cast<StorageId>(v);
  return inv;
}

} // namespace

WindowPeak::WindowPeak(const StorageMap& map, const std::vector<NodeId>& pos)
    : map_(map), pos_(pos), readers_(invert(map.reads, map.bytes.size())),
      allocators_(invert(map.allocates, map.bytes.size())), is_input_(map.bytes.size(), 0),
      stamp_(map.bytes.size(), 0), remaining_(map.bytes.size(), 0),
      allocated_(map.bytes.size(), 0) {
  for (NodeId n : map.inputs)
    for (StorageId s : map.allocates[static_cast<size_t>(n)])
      is_input_[static_cast<size_t>(s)] = 1;
}

int64_t WindowPeak::reset(const std::vector<NodeId>& reference) {
  MemoryProfile p = memory_profile(map_, reference);
  after_ = std::move(p.after_node);
  initial_ = MemoryTracker(map_).current_bytes();
  block_max_.assign((after_.size() + kBlock - 1) / kBlock, 0);
  refresh_blocks(0, after_.empty() ? 0 : after_.size() - 1);
  return p.peak;
}

void WindowPeak::refresh_blocks(size_t first, size_t last) {
  for (size_t b = first / kBlock; b <= last / kBlock && b < block_max_.size(); ++b) {
    const size_t end = std::min(after_.size(), (b + 1) * kBlock);
    block_max_[b] = *std::max_element(after_.begin() + static_cast<std::ptrdiff_t>(b * kBlock),
                                      after_.begin() + static_cast<std::ptrdiff_t>(end));
  }
}

int64_t WindowPeak::range_max(size_t begin, size_t end) const {
  int64_t m = initial_; // never below the inputs alone: memory_peak counts them
  while (begin < end && begin % kBlock != 0)
    m = std::max(m, after_[begin++]);
  for (; begin + kBlock <= end; begin += kBlock)
    m = std::max(m, block_max_[begin / kBlock]);
  for (; begin < end; ++begin)
    m = std::max(m, after_[begin]);
  return m;
}

void WindowPeak::enter(StorageId s, size_t first) {
  const auto i = static_cast<size_t>(s);
  stamp_[i] = now_;
  bool allocated = is_input_[i] != 0;
  for (StorageId a : allocators_[i])
    allocated |= static_cast<size_t>(pos_[static_cast<size_t>(a)]) < first;
  int32_t remaining = 0;
  for (StorageId r : readers_[i])
    remaining += static_cast<size_t>(pos_[static_cast<size_t>(r)]) >= first;
  allocated_[i] = allocated;
  remaining_[i] = remaining;
}

int64_t WindowPeak::peak(const std::vector<NodeId>& order, size_t first, size_t last) {
  first_ = first;
  last_ = last;
  window_.clear();
  if (++now_ == 0) { // the stamps wrapped: start them again
    std::fill(stamp_.begin(), stamp_.end(), 0);
    now_ = 1;
  }
  int64_t level = first == 0 ? initial_ : after_[first - 1];
  int64_t peak = std::max(range_max(0, first), range_max(last + 1, after_.size()));
  for (size_t i = first; i <= last; ++i) {
    const auto v = static_cast<size_t>(order[i]);
    for (StorageId s : map_.allocates[v]) {
      if (stamp_[static_cast<size_t>(s)] != now_)
        enter(s, first);
      if (!allocated_[static_cast<size_t>(s)]) {
        allocated_[static_cast<size_t>(s)] = 1;
        level += map_.bytes[static_cast<size_t>(s)];
      }
    }
    for (StorageId s : map_.reads[v]) {
      const auto k = static_cast<size_t>(s);
      if (stamp_[k] != now_)
        enter(s, first);
      if (--remaining_[k] == 0 && map_.releasable[k] && allocated_[k])
        level -= map_.bytes[k];
    }
    window_.push_back(level);
    peak = std::max(peak, level);
  }
  return peak;
}

void WindowPeak::accept() {
  std::copy(window_.begin(), window_.end(), after_.begin() + static_cast<std::ptrdiff_t>(first_));
  refresh_blocks(first_, last_);
}

} // namespace osched
