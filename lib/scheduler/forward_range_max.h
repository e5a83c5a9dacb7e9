#pragma once
// Range add and "is any value above a limit" over a fixed array, where every
// add and every query starts at a cursor that only moves forward: the
// prefetch memory checks, whose ranges run from the current compute index to
// the compute node a collective blocks.
//
// Because ranges start at the cursor, a value at or after it is its base plus
// every add whose range ends after it. So short queries (the usual ones:
// max_compute_pre_fetch bounds them, 200 by default) are a scan of two
// contiguous arrays with an early exit, instead of two root-to-leaf walks of
// a lazy tree over the whole array; longer ones ask the tree (range_max.h),
// which every add also updates.

#include <algorithm>
#include <cstdint>
#include <vector>

#include "scheduler/range_max.h"

namespace osched {

class ForwardRangeMax {
public:
  explicit ForwardRangeMax(std::vector<int64_t> base)
      : base_(std::move(base)), ends_(base_.size() + 1, 0), tree_(base_) {}

  // Adds `delta` to [lo, hi) (clamped to the array); `lo` is the cursor: at
  // or after every earlier `lo`.
  void add(size_t lo, size_t hi, int64_t delta) {
    advance(lo);
    hi = std::min(hi, base_.size());
    if (lo >= hi)
      return;
    ends_[hi] += delta;
    live_ += delta;
    tree_.add(lo, hi, delta);
  }

  // Is any value in [lo, hi) above `limit`? `lo` is the cursor, as for add.
  bool any_above(size_t lo, size_t hi, int64_t limit) {
    advance(lo);
    hi = std::min(hi, base_.size());
    if (lo >= hi)
      return false;
    if (tree_.max_all() <= limit)
      return false;
    if (hi - lo > kScanMax)
      return tree_.max(lo, hi) > limit;
    // `added` at i: the adds whose ranges end after i.
    int64_t added = live_;
    if (base_[lo] + added > limit)
      return true;
    for (size_t i = lo + 1; i < hi; ++i) {
      added -= ends_[i];
      if (base_[i] + added > limit)
        return true;
    }
    return false;
  }

private:
  static constexpr size_t kScanMax = 512;

  // Adds ending at or before the cursor no longer cover anything queried.
  void advance(size_t lo) {
    for (; cursor_ < lo && cursor_ < base_.size(); ++cursor_)
      live_ -= ends_[cursor_ + 1];
  }

  std::vector<int64_t> base_;
  std::vector<int64_t> ends_; // per index: the adds whose ranges end there
  int64_t live_ = 0;          // the adds whose ranges end after the cursor
  size_t cursor_ = 0;
  RangeAddMax tree_;
};

} // namespace osched
