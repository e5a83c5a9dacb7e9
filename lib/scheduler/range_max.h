#pragma once
// Range add and range max over a fixed array (a lazy segment tree): the
// prefetch memory check asks, per candidate, for the most memory at any
// compute index until the one it blocks, and each prefetch adds its bytes
// across such a range. O(log N) each instead of O(range).

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

namespace osched {

class RangeAddMax {
public:
  explicit RangeAddMax(const std::vector<int64_t>& values) : n_(values.size()) {
    size_t cap = 1;
    while (cap < std::max<size_t>(n_, 1))
      cap *= 2;
    size_ = cap;
    max_.assign(2 * cap, std::numeric_limits<int64_t>::min());
    add_.assign(2 * cap, 0);
    for (size_t i = 0; i < n_; ++i)
      max_[cap + i] = values[i];
    for (size_t i = cap - 1; i >= 1; --i)
      max_[i] = std::max(max_[2 * i], max_[2 * i + 1]);
  }

  // Adds `delta` to every value in [lo, hi).
  void add(size_t lo, size_t hi, int64_t delta) {
    if (lo < hi)
      add(1, 0, size_, lo, hi, delta);
  }
  // The largest value in [lo, hi); the lowest int64 when empty.
  int64_t max(size_t lo, size_t hi) const {
    return lo < hi ? max(1, 0, size_, lo, hi) : std::numeric_limits<int64_t>::min();
  }

private:
  size_t n_ = 0, size_ = 1;
  std::vector<int64_t> max_, add_; // add_: pending for the whole subtree, already in max_

  void add(size_t node, size_t l, size_t r, size_t lo, size_t hi, int64_t delta) {
    if (hi <= l || r <= lo)
      return;
    if (lo <= l && r <= hi) {
      max_[node] += delta;
      add_[node] += delta;
      return;
    }
    size_t mid = (l + r) / 2;
    add(2 * node, l, mid, lo, hi, delta);
    add(2 * node + 1, mid, r, lo, hi, delta);
    max_[node] = std::max(max_[2 * node], max_[2 * node + 1]) + add_[node];
  }
  int64_t max(size_t node, size_t l, size_t r, size_t lo, size_t hi) const {
    if (hi <= l || r <= lo)
      return std::numeric_limits<int64_t>::min();
    if (lo <= l && r <= hi)
      return max_[node];
    size_t mid = (l + r) / 2;
    int64_t m = std::max(max(2 * node, l, mid, lo, hi), max(2 * node + 1, mid, r, lo, hi));
    return m == std::numeric_limits<int64_t>::min() ? m : m + add_[node];
  }
};

} // namespace osched
