#include "scheduler/potential_overlap.h"

#include <algorithm>

namespace osched {

std::vector<NodeId> PotentialOverlap::find_hiding(const std::vector<NodeId>& nodes,
                                                  bool limit_one_per_compute) const {
  std::vector<NodeId> result(nodes.size(), -1);
  std::vector<bool> used(compute_.size(), false);
  for (size_t k = 0; k < nodes.size(); ++k) {
    NodeId x = nodes[k];
    // Walk outwards from x's position: left and right neighbours alternately.
    auto right = std::lower_bound(compute_.begin(), compute_.end(), x) - compute_.begin();
    auto left = right - 1;
    const auto n = static_cast<decltype(right)>(compute_.size());
    while (left >= 0 || right < n) {
      decltype(right) pick;
      if (left < 0) pick = right++;
      else if (right >= n) pick = left--;
      else if (x - compute_[left] <= compute_[right] - x) pick = left--;
      else pick = right++;
      if (limit_one_per_compute && used[pick]) continue;
      NodeId c = compute_[pick];
      if (c == x || dg_.is_ancestor(c, x) || dg_.is_ancestor(x, c)) continue;
      result[k] = c;
      if (limit_one_per_compute) used[pick] = true;
      break;
    }
  }
  return result;
}

}  // namespace osched
