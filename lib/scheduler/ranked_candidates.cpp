#include "scheduler/ranked_candidates.h"

#include <algorithm>

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

void RankedCandidates::rank_all(const std::vector<NodeId>& starts,
                                const std::vector<uint64_t>& keys) {
  ranked_.resize(starts.size());
  for (size_t k = 0; k < starts.size(); ++k)
    ranked_[k] = Entry{keys[k], starts[k], static_cast<int32_t>(k)};
  // Starts come in graph order, where the keys mostly grow too: often
  // already in order, and a check is far cheaper than a sort.
  auto by_key = [](const Entry& a, const Entry& b) { return a.key < b.key; };
  if (!std::is_sorted(ranked_.begin(), ranked_.end(), by_key))
    std::sort(ranked_.begin(), ranked_.end(), by_key);
  starts_ = starts;
}

void RankedCandidates::insert(const Entry& e) {
  auto at = std::upper_bound(ranked_.begin(), ranked_.end(), e.key,
                             [](uint64_t key, const Entry& x) { return key < x.key; });
  ranked_.insert(at, e);
}

} // namespace osched
