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
  struct Entry {
    uint64_t key;
    NodeId start;
    int32_t pos; // into the starts last given to update()
  };

  // `starts`: in increasing id order. `key_of(start)`: distinct for
  // distinct starts, and the same for a start at every call.
  template <class KeyOf> void update(const std::vector<NodeId>& starts, const KeyOf& key_of);

  const std::vector<Entry>& entries() const { return ranked_; }

private:
  // Fills removed_ and added_ (positions in the new starts); false when
  // more differ than an update in place is worth.
  bool diff(const std::vector<NodeId>& starts);
  void rank_all(const std::vector<NodeId>& starts, const std::vector<uint64_t>& keys);
  void insert(const Entry& e);

  std::vector<NodeId> starts_; // those ranked_ was made for
  std::vector<Entry> ranked_;
  std::vector<NodeId> removed_;
  std::vector<int32_t> added_;
  std::vector<uint64_t> keys_; // scratch
};

template <class KeyOf>
void RankedCandidates::update(const std::vector<NodeId>& starts, const KeyOf& key_of) {
  if (starts == starts_)
    return;
  if (!diff(starts)) {
    keys_.resize(starts.size());
    for (size_t k = 0; k < starts.size(); ++k)
      keys_[k] = key_of(starts[k]);
    rank_all(starts, keys_);
    return;
  }
  // A kept start moves down by the removed starts before it and up by the
  // added ones.
  size_t out = 0;
  for (const Entry& e : ranked_) {
    int32_t shift = 0;
    bool gone = false;
    for (NodeId r : removed_) {
      gone |= r == e.start;
      shift -= r < e.start;
    }
    if (gone)
      continue;
    for (int32_t a : added_)
      shift += starts[static_cast<size_t>(a)] < e.start;
    ranked_[out++] = Entry{e.key, e.start, e.pos + shift};
  }
  ranked_.resize(out);
  for (int32_t a : added_) {
    const NodeId s = starts[static_cast<size_t>(a)];
    insert(Entry{key_of(s), s, a});
  }
  starts_ = starts;
}

} // namespace osched
