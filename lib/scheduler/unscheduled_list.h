#pragma once
// The collectives not yet scheduled, in graph order: a doubly linked list
// over their indices in flat arrays, whose first few members are also kept
// in an array. Each overlap opportunity walks those first few hundred, so
// they are read as a contiguous run, not by following links; removal is
// O(1) outside that front and O(front) inside it.

#include <algorithm>
#include <cstdint>
#include <vector>

namespace osched {

class UnscheduledList {
public:
  // Indices 0..n-1 where member[k] is true, in increasing order; front()
  // holds the first `front_size` of them.
  UnscheduledList(const std::vector<bool>& member, size_t front_size)
      : next_(member.size() + 1, -1), prev_(member.size() + 1, -1), in_(member),
        front_size_(front_size) {
    int32_t last = sentinel();
    for (size_t k = 0; k < member.size(); ++k)
      if (member[k]) {
        next_[static_cast<size_t>(last)] = static_cast<int32_t>(k);
        prev_[k] = last;
        last = static_cast<int32_t>(k);
      }
    next_[static_cast<size_t>(last)] = -1;
    for (int32_t k = first(); k >= 0 && front_.size() < front_size_; k = next(k))
      front_.push_back(k);
  }

  int32_t first() const { return next_[static_cast<size_t>(sentinel())]; }
  int32_t next(int32_t k) const { return next_[static_cast<size_t>(k)]; } // -1 after the last
  // The first members, in increasing order (all of them when fewer).
  const std::vector<int32_t>& front() const { return front_; }

  // Removes k if present.
  void erase(int32_t k) {
    if (k < 0 || !in_[static_cast<size_t>(k)])
      return;
    in_[static_cast<size_t>(k)] = false;
    const int32_t p = prev_[static_cast<size_t>(k)], n = next_[static_cast<size_t>(k)];
    next_[static_cast<size_t>(p)] = n;
    if (n >= 0)
      prev_[static_cast<size_t>(n)] = p;
    // Members are in increasing order: k is in the front iff it is not past
    // its last entry.
    if (front_.empty() || k > front_.back())
      return;
    front_.erase(std::lower_bound(front_.begin(), front_.end(), k));
    const int32_t after = front_.empty() ? first() : next(front_.back());
    if (after >= 0 && front_.size() < front_size_)
      front_.push_back(after);
  }

private:
  // The slot after the last index holds the head.
  int32_t sentinel() const { return static_cast<int32_t>(next_.size() - 1); }
  std::vector<int32_t> next_, prev_;
  std::vector<bool> in_;
  std::vector<int32_t> front_;
  size_t front_size_;
};

} // namespace osched
