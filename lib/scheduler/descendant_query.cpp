#include "scheduler/descendant_query.h"

#include <algorithm>

namespace osched {

CollectiveChains build_collective_chains(const DependencyGraph& dg, std::vector<NodeId> starts,
                                         const std::vector<char>& can_overlap) {
  const NodeId n = dg.size();
  CollectiveChains c;
  c.latest_overlap_ancestor = latest_ancestors_in(dg, can_overlap);
  c.chain.assign(static_cast<size_t>(n), -1);
  std::sort(starts.begin(), starts.end());
  // Link each start that some overlap node may precede to the previous one
  // when the previous reaches it: walks over disjoint windows, O(N + E).
  int32_t chain = -1;
  NodeId prev = -1;
  for (NodeId s : starts) {
    if (c.latest_overlap_ancestor[static_cast<size_t>(s)] < 0)
      continue; // never a descendant of an overlap node
    if (prev < 0 || !dg.is_ancestor(prev, s))
      ++chain;
    c.chain[static_cast<size_t>(s)] = chain;
    prev = s;
  }
  return c;
}

void DescendantQuery::classify(NodeId from, const std::vector<NodeId>& candidates,
                               std::vector<char>& is_descendant) {
  is_descendant.assign(candidates.size(), 0);
  if (mark_.empty())
    mark_.assign(static_cast<size_t>(dg_.size()), 0);
  ++stamp_;
  stack_.clear();
  beyond_.clear();
  bool walked = false;
  int32_t descendant_chain = -1; // the chain of the latest descendant found
  for (size_t i = 0; i < candidates.size(); ++i) {
    const NodeId c = candidates[i];
    if (!may_descend(from, c))
      continue;
    const int32_t chain = chains_.chain[static_cast<size_t>(c)];
    if (chain >= 0 && chain == descendant_chain) {
      is_descendant[i] = 1;
      continue;
    }
    if (walked) {
      // Open again after the first walk: walk on to the last open
      // candidate, and read the rest off the marks.
      size_t last = candidates.size() - 1;
      while (last > i && !may_descend(from, candidates[last]))
        --last;
      walk(candidates[last], false);
      for (size_t j = i; j <= last; ++j)
        is_descendant[j] =
            may_descend(from, candidates[j]) && mark_[static_cast<size_t>(candidates[j])] == stamp_;
      return;
    }
    stack_.push_back(from);
    walked = true;
    walk(c, true);
    if (mark_[static_cast<size_t>(c)] == stamp_) {
      is_descendant[i] = 1;
      descendant_chain = chain;
    }
  }
}

void DescendantQuery::walk(NodeId bound, bool keep_beyond) {
  for (NodeId v : beyond_)
    if (v <= bound && mark_[static_cast<size_t>(v)] != stamp_) {
      mark_[static_cast<size_t>(v)] = stamp_;
      stack_.push_back(v);
    }
  beyond_.clear();
  while (!stack_.empty()) {
    const NodeId v = stack_.back();
    stack_.pop_back();
    auto [b, e] = dg_.users(v);
    for (auto p = b; p != e; ++p) {
      if (*p > bound) {
        if (keep_beyond)
          beyond_.push_back(*p);
        continue;
      }
      if (mark_[static_cast<size_t>(*p)] == stamp_)
        continue;
      mark_[static_cast<size_t>(*p)] = stamp_;
      stack_.push_back(*p);
    }
  }
}

} // namespace osched
