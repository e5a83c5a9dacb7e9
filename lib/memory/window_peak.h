#pragma once
// The memory peak (memory_peak's measure) of many orders that each differ
// from one reference order only inside a window: the local search's moves.
// In a valid order (every storage allocated before it is read) memory
// after a position depends only on which nodes ran before it, so outside
// the window a candidate's levels are the reference's; inside, the
// window alone is replayed from the storages' state at its start (read off
// the positions of each storage's readers and allocators). The answer
// equals memory_peak(map, order) exactly.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "memory/storage_map.h"

namespace osched {

class WindowPeak {
public:
  // `pos`: each node's position in the reference order, kept current by
  // the caller.
  WindowPeak(const StorageMap& map, const std::vector<NodeId>& pos);

  // Measures `reference` in full; returns its peak.
  int64_t reset(const std::vector<NodeId>& reference);
  // The peak of `order`, equal to the reference outside [first, last].
  int64_t peak(const std::vector<NodeId>& order, size_t first, size_t last);
  // The order last measured by peak() is the reference now (`pos` already
  // says so).
  void accept();

private:
  const StorageMap& map_;
  const std::vector<NodeId>& pos_;
  // Per storage: its readers and the nodes that list it as an allocation.
  NodeStorageLists readers_, allocators_;
  std::vector<char> is_input_;
  // The reference: memory with the inputs alone, after each position, and
  // the most of each block of kBlock positions.
  static constexpr size_t kBlock = 64;
  int64_t initial_ = 0;
  std::vector<int64_t> after_, block_max_;
  // The window replayed last: where, and its levels.
  size_t first_ = 0, last_ = 0;
  std::vector<int64_t> window_;
  // Per storage, for the window being replayed (valid where stamp_ matches).
  std::vector<uint32_t> stamp_;
  uint32_t now_ = 0;
  std::vector<int32_t> remaining_;
  std::vector<char> allocated_;

  int64_t range_max(size_t begin, size_t end) const; // of after_[begin, end)
  void refresh_blocks(size_t first, size_t last);
  // The storage's state at the window's start: at most a walk over its
  // readers and allocators, so a window never costs more than a replay.
  void enter(StorageId s, size_t first);
};

} // namespace osched
