#pragma once
// "Is member `a` an ancestor of node `b`?" for one class of nodes (the
// bucket planner's collective starts and waits), answered by a bit per
// member on every node: one pass in id order (a topological order) ORs
// each node's inputs' bits, O(E * M/64) word operations. Built only where
// the table fits in kAncestorBitWords words; elsewhere answers() is false
// and callers walk (DependencyGraph::is_ancestor_bounded).

#include <cstddef>
#include <cstdint>
#include <vector>

#include "scheduler/dependency_graph.h"

namespace osched {

// The largest table built (32 MiB).
constexpr size_t kAncestorBitWords = size_t{1} << 22;

class AncestorBits {
public:
  AncestorBits(const DependencyGraph& dg, const std::vector<char>& member,
               size_t max_words = kAncestorBitWords);

  bool answers() const { return words_ > 0; }
  // `a` a member, `b` any node; only where answers().
  bool is_ancestor(NodeId a, NodeId b) const {
    const int32_t r = rank_[static_cast<size_t>(a)];
    return (bits_[static_cast<size_t>(b) * words_ + static_cast<size_t>(r) / 64] >> (r % 64)) & 1;
  }

private:
  size_t words_ = 0;
  std::vector<int32_t> rank_; // per node: its bit, -1 for non-members
  std::vector<uint64_t> bits_;
};

} // namespace osched
