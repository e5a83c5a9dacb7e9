#include "scheduler/potential_overlap.h"

#include <algorithm>

namespace osched {

std::vector<NodeId> PotentialOverlap::find_hiding(const std::vector<NodeId>& nodes) const {
  std::vector<NodeId> result(nodes.size(), -1);
  const int64_t nc = static_cast<int64_t>(compute_.size());
  std::vector<char> related; // filled only for nodes that fall back to full marking
  std::vector<NodeId> stack;
  // Most nodes have an independent compute node close by, found with a few
  // windowed reachability checks. A node whose checks exceed this budget
  // marks all its ancestors and descendants once (O(N + E)) instead.
  const int64_t budget = 4096;
  for (size_t k = 0; k < nodes.size(); ++k) {
    const NodeId x = nodes[k];
    int64_t visits = 0;
    bool marked = false;
    auto mark_related = [&] {
      related.assign(static_cast<size_t>(dg_.size()), 0);
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
      marked = true;
    };
    auto is_related = [&](NodeId c) {
      if (c == x)
        return true;
      if (!marked) {
        auto r = c < x ? dg_.is_ancestor_within(c, x, budget, visits)
                       : dg_.is_ancestor_within(x, c, budget, visits);
        if (r)
          return *r;
        mark_related();
      }
      return related[c] != 0;
    };
    // Walk outwards from x's position: nearest neighbour first.
    int64_t right = std::lower_bound(compute_.begin(), compute_.end(), x) - compute_.begin();
    int64_t left = right - 1;
    while (left >= 0 || right < nc) {
      int64_t pick;
      if (left < 0)
        pick = right++;
      else if (right >= nc)
        pick = left--;
      else if (x - compute_[left] <= compute_[right] - x)
        pick = left--;
      else
        pick = right++;
      if (is_related(compute_[pick]))
        continue;
      result[k] = compute_[pick];
      break;
    }
  }
  return result;
}

} // namespace osched
