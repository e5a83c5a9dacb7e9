#pragma once
// The candidate collective starts of an overlap opportunity in the order
// they are tried (increasing key), kept up to date as the candidates change.
// Consecutive opportunities mostly differ by a collective issued and another
// come into reach: those are taken out and put in, and the rest keep their
// order, instead of sorting a few hundred keys at every opportunity.

#include <cstdint>
#include <vector>

#include "graph/graph.h"

namespace osched {

class RankedCandidates {
public:
  // `starts`: in increasing id order. `key_of(start)`: distinct for
  // distinct starts, and the same for a start at every call.
  template <class KeyOf> void update(const std::vector<NodeId>& starts, const KeyOf& key_of);

  // Positions into the starts last given to update(), in increasing key.
  const std::vector<int32_t>& positions() const { return pos_; }
  // Their keys and starts, alike.
  const std::vector<uint64_t>& keys() const { return keys_; }
  const std::vector<NodeId>& starts() const { return ranked_starts_; }

private:
  // Fills removed_ and added_ (positions in the new starts); false when
  // more differ than an update in place is worth.
  bool diff(const std::vector<NodeId>& starts);
  void rank_all(const std::vector<NodeId>& starts, std::vector<uint64_t> keys);
  // Every entry after `start` in id order moves by `by` positions.
  void shift_after(NodeId start, int32_t by);
  void erase(uint64_t key);
  void insert(uint64_t key, NodeId start, int32_t pos);

  std::vector<NodeId> starts_; // those the ranking was made for, in id order
  // The ranking, side by side: key, start, position.
  std::vector<uint64_t> keys_;
  std::vector<NodeId> ranked_starts_;
  std::vector<int32_t> pos_;
  std::vector<NodeId> removed_;
  std::vector<int32_t> added_;
};

template <class KeyOf>
void RankedCandidates::update(const std::vector<NodeId>& starts, const KeyOf& key_of) {
  if (!diff(starts)) {
    std::vector<uint64_t> keys(starts.size());
    for (size_t k = 0; k < starts.size(); ++k)
      keys[k] = key_of(starts[k]);
    rank_all(starts, std::move(keys));
    return;
  }
  if (removed_.empty() && added_.empty())
    return;
  // A kept start moves down by each removed start before it and up by each
  // added one.
  for (NodeId r : removed_) {
    erase(key_of(r));
    shift_after(r, -1);
  }
  for (int32_t a : added_)
    shift_after(starts[static_cast<size_t>(a)], 1);
  for (int32_t a : added_) {
    const NodeId s = starts[static_cast<size_t>(a)];
    insert(key_of(s), s, a);
  }
  starts_ = starts;
}

} // namespace osched
