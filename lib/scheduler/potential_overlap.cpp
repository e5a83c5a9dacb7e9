#include "scheduler/potential_overlap.h"

#include <algorithm>

namespace osched {

std::vector<NodeId> PotentialOverlap::find_hiding(const std::vector<NodeId>& nodes) const {
  return search(nodes, false, nullptr);
}

std::vector<NodeId>
PotentialOverlap::find_hiding_limited(const std::vector<NodeId>& nodes,
                                      const std::vector<NodeId>& unlimited) const {
  return search(nodes, true, &unlimited);
}

std::vector<NodeId> PotentialOverlap::search(const std::vector<NodeId>& nodes,
                                             bool limit_one_per_compute,
                                             const std::vector<NodeId>* unlimited) const {
  std::vector<NodeId> result(nodes.size(), -1);
  // Used compute nodes are skipped in O(1) amortized: find_right(i) is the
  // first unused index >= i (n when none), find_left(i) + 1 the last unused
  // index <= i (0 when none); union-find with path halving.
  const int64_t nc = static_cast<int64_t>(compute_.size());
  std::vector<int64_t> right_of(static_cast<size_t>(nc + 1)), left_of(static_cast<size_t>(nc + 1));
  for (int64_t i = 0; i <= nc; ++i)
    right_of[i] = left_of[i] = i;
  auto find = [](std::vector<int64_t>& parent, int64_t i) {
    while (parent[i] != i) {
      parent[i] = parent[parent[i]];
      i = parent[i];
    }
    return i;
  };
  auto find_right = [&](int64_t i) { return find(right_of, i); };
  auto find_left = [&](int64_t i) {
    return find(left_of, i + 1) - 1;
  }; // shifted by one: slot 0 = none
  auto use = [&](int64_t i) {
    right_of[i] = i + 1;
    left_of[i + 1] = i;
  };
  std::vector<char> related; // filled only for nodes that fall back to full marking
  std::vector<NodeId> stack;
  // Most nodes have an independent compute node close by, found with a few
  // windowed reachability checks. A node whose checks exceed this budget
  // marks all its ancestors and descendants once (O(N + E)) instead.
  const int64_t budget = 4096;
  int full_marks_left = 64;    // limited mode only: whole-graph searches allowed
  std::vector<int64_t> pos_of; // limited mode: compute node -> its index in compute_
  if (limit_one_per_compute) {
    pos_of.assign(static_cast<size_t>(dg_.size()), -1);
    for (int64_t i = 0; i < nc; ++i)
      pos_of[compute_[i]] = i;
  }
  for (size_t k = 0; k < nodes.size(); ++k) {
    NodeId x = nodes[k];
    if (unlimited) {
      NodeId nearest = (*unlimited)[k];
      if (nearest < 0)
        continue; // nothing independent at all
      int64_t p = pos_of[nearest];
      if (find_right(p) == p) { // still free: nothing nearer is independent
        result[k] = nearest;
        use(p);
        continue;
      }
    }
    bool give_up = false;
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
        if (limit_one_per_compute && full_marks_left-- <= 0) {
          give_up = bounded_ = true;
          return true;
        }
        mark_related();
      }
      return related[c] != 0;
    };
    // Walk outwards from x's position: nearest unused neighbour first.
    int64_t right = std::lower_bound(compute_.begin(), compute_.end(), x) - compute_.begin();
    int64_t left = right - 1;
    while (true) {
      if (limit_one_per_compute) {
        right = find_right(right);
        left = left >= 0 ? find_left(left) : -1;
      }
      if (left < 0 && right >= nc)
        break;
      int64_t pick;
      if (left < 0)
        pick = right++;
      else if (right >= nc)
        pick = left--;
      else if (x - compute_[left] <= compute_[right] - x)
        pick = left--;
      else
        pick = right++;
      NodeId c = compute_[pick];
      if (is_related(c)) {
        if (give_up)
          break;
        continue;
      }
      result[k] = c;
      if (limit_one_per_compute)
        use(pick);
      break;
    }
  }
  return result;
}

} // namespace osched
