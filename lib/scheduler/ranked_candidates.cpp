#include "scheduler/ranked_candidates.h"

#include <algorithm>
#include <numeric>

namespace osched {
namespace {

// Past this many starts in or out, sorting them all again is as cheap.
constexpr size_t kMaxChanges = 8;

} // namespace

bool RankedCandidates::diff(const std::vector<NodeId>& starts) {
  removed_.clear();
  added_.clear();
  size_t i = 0, j = 0;
  while (i < starts_.size() || j < starts.size()) {
    if (j == starts.size() || (i < starts_.size() && starts_[i] < starts[j])) {
      removed_.push_back(starts_[i++]);
    } else if (i == starts_.size() || starts[j] < starts_[i]) {
      added_.push_back(static_cast<int32_t>(j++));
    } else {
      ++i;
      ++j;
    }
    if (removed_.size() + added_.size() > kMaxChanges)
      return false;
  }
  return true;
}

void RankedCandidates::rank_all(const std::vector<NodeId>& starts, std::vector<uint64_t> keys) {
  const size_t n = starts.size();
  std::vector<int32_t> by_key(n);
  std::iota(by_key.begin(), by_key.end(), 0);
  // Starts come in graph order, where the keys mostly grow too: often
  // already in order, and a check is far cheaper than a sort.
  if (!std::is_sorted(keys.begin(), keys.end()))
    std::sort(by_key.begin(), by_key.end(), [&](int32_t a, int32_t b) {
      return keys[static_cast<size_t>(a)] < keys[static_cast<size_t>(b)];
    });
  keys_.resize(n);
  ranked_starts_.resize(n);
  pos_.resize(n);
  for (size_t k = 0; k < n; ++k) {
    const auto at = static_cast<size_t>(by_key[k]);
    keys_[k] = keys[at];
    ranked_starts_[k] = starts[at];
    pos_[k] = by_key[k];
  }
  starts_ = starts;
}

void RankedCandidates::shift_after(NodeId start, int32_t by) {
  // Branch-free over plain arrays: the compiler vectorises it.
  const size_t n = pos_.size();
  const NodeId* s = ranked_starts_.data();
  int32_t* p = pos_.data();
  for (size_t k = 0; k < n; ++k)
    p[k] += by * static_cast<int32_t>(s[k] > start);
}

void RankedCandidates::erase(uint64_t key) {
  const auto at =
      static_cast<size_t>(std::lower_bound(keys_.begin(), keys_.end(), key) - keys_.begin());
  const auto offset = static_cast<std::ptrdiff_t>(at);
  keys_.erase(keys_.begin() + offset);
  ranked_starts_.erase(ranked_starts_.begin() + offset);
  pos_.erase(pos_.begin() + offset);
}

void RankedCandidates::insert(uint64_t key, NodeId start, int32_t pos) {
  const auto offset = std::upper_bound(keys_.begin(), keys_.end(), key) - keys_.begin();
  keys_.insert(keys_.begin() + offset, key);
  ranked_starts_.insert(ranked_starts_.begin() + offset, start);
  pos_.insert(pos_.begin() + offset, pos);
}

} // namespace osched
