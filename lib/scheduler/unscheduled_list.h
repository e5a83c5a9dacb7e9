#pragma once
// The collectives not yet scheduled, in graph order: a doubly linked list
// over their indices in flat arrays. Each compute node walks the first few
// hundred of them, so iteration must be cheap; removal is O(1).

#include <cstdint>
#include <vector>

namespace osched {

class UnscheduledList {
public:
  // Indices 0..n-1 where member[k] is true, in increasing order.
  explicit UnscheduledList(const std::vector<bool>& member)
      : next_(member.size() + 1, -1), prev_(member.size() + 1, -1), in_(member) {
    int32_t last = sentinel();
    for (size_t k = 0; k < member.size(); ++k)
      if (member[k]) {
        next_[static_cast<size_t>(last)] = static_cast<int32_t>(k);
        prev_[k] = last;
        last = static_cast<int32_t>(k);
      }
    next_[static_cast<size_t>(last)] = -1;
  }

  int32_t first() const { return next_[static_cast<size_t>(sentinel())]; }
  int32_t next(int32_t k) const { return next_[static_cast<size_t>(k)]; } // -1 after the last
  // Removes k if present.
  void erase(int32_t k) {
    if (k < 0 || !in_[static_cast<size_t>(k)])
      return;
    in_[static_cast<size_t>(k)] = false;
    const int32_t p = prev_[static_cast<size_t>(k)], n = next_[static_cast<size_t>(k)];
    next_[static_cast<size_t>(p)] = n;
    if (n >= 0)
      prev_[static_cast<size_t>(n)] = p;
  }

private:
  // The slot after the last index holds the head.
  int32_t sentinel() const { return static_cast<int32_t>(next_.size() - 1); }
  std::vector<int32_t> next_, prev_;
  std::vector<bool> in_;
};

} // namespace osched
