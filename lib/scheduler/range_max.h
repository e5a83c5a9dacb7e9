#pragma once
// Range add and range max over a fixed array (a lazy segment tree, walked
// bottom-up without recursion): the prefetch memory check asks, per
// candidate, for the most memory at any compute index until the one it
// blocks, and each prefetch adds its bytes across such a range. O(log N)
// each instead of O(range).

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

namespace osched {

class RangeAddMax {
public:
  explicit RangeAddMax(const std::vector<int64_t>& values) : n_(values.size()) {
    while (size_ < std::max<size_t>(n_, 1)) {
      size_ *= 2;
      ++height_;
    }
    max_.assign(2 * size_, kPadding);
    add_.assign(size_, 0);
    std::copy(values.begin(), values.end(), max_.begin() + static_cast<std::ptrdiff_t>(size_));
    for (size_t i = size_ - 1; i >= 1; --i)
      max_[i] = std::max(max_[2 * i], max_[2 * i + 1]);
  }

  // Adds `delta` to every value in [lo, hi) (clamped to the array).
  void add(size_t lo, size_t hi, int64_t delta) {
    hi = std::min(hi, n_);
    if (lo >= hi)
      return;
    size_t l = lo + size_, r = hi + size_;
    const size_t l0 = l, r0 = r - 1;
    for (; l < r; l /= 2, r /= 2) {
      if (l & 1)
        apply(l++, delta);
      if (r & 1)
        apply(--r, delta);
    }
    rebuild_above(l0);
    rebuild_above(r0);
  }

  // The largest value of the whole array, in O(1): when it is within a
  // limit, so is every range's (most prefetch checks end here).
  int64_t max_all() const { return n_ == 0 ? std::numeric_limits<int64_t>::min() : max_[1]; }

  // The largest value in [lo, hi) (clamped to the array); the lowest int64
  // when empty.
  int64_t max(size_t lo, size_t hi) {
    hi = std::min(hi, n_);
    if (lo >= hi)
      return std::numeric_limits<int64_t>::min();
    size_t l = lo + size_, r = hi + size_;
    push_down_to(l);
    push_down_to(r - 1);
    int64_t best = std::numeric_limits<int64_t>::min();
    for (; l < r; l /= 2, r /= 2) {
      if (l & 1)
        best = std::max(best, max_[l++]);
      if (r & 1)
        best = std::max(best, max_[--r]);
    }
    return best;
  }

private:
  // Below any real value, far from overflowing when added to.
  static constexpr int64_t kPadding = std::numeric_limits<int64_t>::min() / 4;
  size_t n_ = 0, size_ = 1, height_ = 0;
  std::vector<int64_t> max_; // per tree node, its subtree's max with its own pending add
  std::vector<int64_t> add_; // per inner node: pending for both children, already in max_

  void apply(size_t node, int64_t delta) {
    max_[node] += delta;
    if (node < size_)
      add_[node] += delta;
  }
  void rebuild_above(size_t node) {
    for (node /= 2; node >= 1; node /= 2)
      max_[node] = std::max(max_[2 * node], max_[2 * node + 1]) + add_[node];
  }
  void push_down_to(size_t leaf) {
    for (size_t s = height_; s > 0; --s) {
      const size_t i = leaf >> s;
      if (add_[i] != 0) {
        apply(2 * i, add_[i]);
        apply(2 * i + 1, add_[i]);
        add_[i] = 0;
      }
    }
  }
};

} // namespace osched
