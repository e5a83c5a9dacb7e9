#include "scheduler/potential_overlap.h"

#include <algorithm>

namespace osched {

std::vector<NodeId> PotentialOverlap::find_hiding(const std::vector<NodeId>& nodes,
                                                  bool limit_one_per_compute) const {
  std::vector<NodeId> result(nodes.size(), -1);
  std::vector<bool> used(compute_.size(), false);
  std::vector<char> related(dg_.size(), 0);
  std::vector<NodeId> stack;
  for (size_t k = 0; k < nodes.size(); ++k) {
    NodeId x = nodes[k];
    // Mark x's ancestors and descendants once (O(N + E)), then any unmarked
    // compute node is independent. Cheaper than per-pair reachability when
    // most compute nodes are related to x.
    std::fill(related.begin(), related.end(), 0);
    related[x] = 1;
    for (int dir = 0; dir < 2; ++dir) {
      stack.assign(1, x);
      while (!stack.empty()) {
        NodeId v = stack.back();
        stack.pop_back();
        auto [b, e] = dir == 0 ? dg_.inputs(v) : dg_.users(v);
        for (auto p = b; p != e; ++p)
          if (!related[*p]) {
            related[*p] = 1;
            stack.push_back(*p);
          }
      }
    }
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
      if (related[c]) continue;
      result[k] = c;
      if (limit_one_per_compute) used[pick] = true;
      break;
    }
  }
  return result;
}

}  // namespace osched
