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
  c.rank.assign(static_cast<size_t>(n), -1);
  for (NodeId s : starts)
    if (c.chain[static_cast<size_t>(s)] >= 0) {
      c.rank[static_cast<size_t>(s)] = static_cast<int32_t>(c.chained.size());
      c.chained.push_back(s);
    }
  return c;
}

DescendantQuery::DescendantQuery(const DependencyGraph& dg, const CollectiveChains& chains,
                                 bool window)
    : dg_(dg), chains_(chains), use_window_(window) {
  const NodeId n = dg.size();
  run_end_.resize(static_cast<size_t>(n));
  // Children of each node in the forest, as offsets (CSR).
  std::vector<int32_t> first(static_cast<size_t>(n) + 1, 0);
  auto parent = [&](NodeId v) { return dg.num_users(v) == 1 ? *dg.users(v).first : -1; };
  for (NodeId v = 0; v < n; ++v)
    if (NodeId p = parent(v); p >= 0)
      ++first[static_cast<size_t>(p) + 1];
  for (NodeId v = 0; v < n; ++v)
    first[static_cast<size_t>(v) + 1] += first[static_cast<size_t>(v)];
  std::vector<NodeId> children(static_cast<size_t>(first.back()));
  std::vector<int32_t> fill(first.begin(), first.end() - 1);
  for (NodeId v = 0; v < n; ++v)
    if (NodeId p = parent(v); p >= 0)
      children[static_cast<size_t>(fill[static_cast<size_t>(p)]++)] = v;
  tin_.assign(static_cast<size_t>(n), 0);
  tout_.assign(static_cast<size_t>(n), 0);
  int32_t clock = 0;
  std::vector<std::pair<NodeId, int32_t>> stack; // (node, next child offset)
  for (NodeId root = 0; root < n; ++root) {
    if (parent(root) >= 0)
      continue;
    stack.push_back({root, first[static_cast<size_t>(root)]});
    run_end_[static_cast<size_t>(root)] = root;
    tin_[static_cast<size_t>(root)] = clock++;
    while (!stack.empty()) {
      auto& [v, next] = stack.back();
      if (next == first[static_cast<size_t>(v) + 1]) {
        tout_[static_cast<size_t>(v)] = clock - 1;
        stack.pop_back();
        continue;
      }
      const NodeId child = children[static_cast<size_t>(next++)];
      run_end_[static_cast<size_t>(child)] = root;
      tin_[static_cast<size_t>(child)] = clock++;
      stack.push_back({child, first[static_cast<size_t>(child)]});
    }
  }
}

void DescendantQuery::classify(NodeId from, const std::vector<NodeId>& candidates,
                               std::vector<char>& is_descendant) {
  is_descendant.assign(candidates.size(), 0);
  if (use_window_) {
    // The ranks of the first and last candidates that may descend (ranks
    // grow with node ids, as the candidates do).
    size_t lo = 0, hi = candidates.size();
    while (lo < hi && !may_descend(from, candidates[lo]))
      ++lo;
    while (hi > lo && !may_descend(from, candidates[hi - 1]))
      --hi;
    if (lo == hi)
      return;
    const int32_t* rank = chains_.rank.data();
    if (window_holds(from, rank[candidates[lo]], rank[candidates[hi - 1]])) {
      const uint64_t* row = rows_.data() + static_cast<size_t>(from - lo_) * kWords;
      for (size_t i = lo; i < hi; ++i) {
        const NodeId c = candidates[i];
        if (may_descend(from, c)) {
          const auto b = static_cast<size_t>(rank[c] - base_);
          is_descendant[i] = static_cast<char>((row[b / 64] >> (b % 64)) & 1);
        }
      }
      return;
    }
  }
  classify_by_walk(from, candidates, is_descendant);
}

bool DescendantQuery::window_holds(NodeId from, int32_t first_rank, int32_t last_rank) {
  if (last_rank - first_rank >= kWindowBits)
    return false;
  if (base_ >= 0 && first_rank >= base_ && last_rank < base_ + kWindowBits && from >= lo_ &&
      from <= hi_)
    return true;
  // Move it: a quarter of its spare room before the first candidate, over
  // the nodes from as far before `from` as `from` is before the window's
  // end (queries drift forward). Windows filled stop once they have cost
  // kWindowRowsPerNode rows a node: the walk alone is linear too.
  const auto& chained = chains_.chained;
  const int32_t spare = kWindowBits - (last_rank - first_rank + 1);
  const int32_t base = std::max(0, first_rank - spare / 4);
  const int32_t end = std::min<int32_t>(base + kWindowBits, static_cast<int32_t>(chained.size()));
  const NodeId hi = chained[static_cast<size_t>(end - 1)];
  if (hi - from > kWindowNodes / 2)
    return false;
  const NodeId lo = std::max<NodeId>(0, from - (hi - from) - 64);
  const int64_t rows = hi - lo + 1;
  if (rows_filled_ + rows > kWindowRowsPerNode * static_cast<int64_t>(dg_.size()) + kWindowNodes)
    return false;
  rows_filled_ += rows;
  lo_ = lo;
  base_ = base;
  hi_ = hi;
  rows_.assign(static_cast<size_t>(hi_ - lo_ + 1) * kWords, 0);
  // Users come later in id order: one pass from the window's end fills
  // every row from the rows of users within it.
  for (NodeId v = hi_; v >= lo_; --v) {
    uint64_t* row = rows_.data() + static_cast<size_t>(v - lo_) * kWords;
    auto [b, e] = dg_.users(v);
    for (auto p = b; p != e; ++p) {
      if (*p > hi_)
        continue;
      const uint64_t* user = rows_.data() + static_cast<size_t>(*p - lo_) * kWords;
      for (size_t w = 0; w < kWords; ++w)
        row[w] |= user[w];
    }
    const int32_t r = chains_.rank[static_cast<size_t>(v)];
    if (r >= base_ && r < base_ + kWindowBits)
      row[static_cast<size_t>(r - base_) / 64] |= uint64_t{1} << ((r - base_) % 64);
  }
  return true;
}

void DescendantQuery::classify_by_walk(NodeId from, const std::vector<NodeId>& candidates,
                                       std::vector<char>& is_descendant) {
  if (mark_.empty())
    mark_.assign(static_cast<size_t>(dg_.size()), 0);
  ++stamp_;
  stack_.clear();
  beyond_.clear();
  bool walked = false;
  int32_t descendant_chain = -1; // the chain of the latest descendant found
  // What `from` reaches beyond its run of single users, the run end reaches.
  const NodeId walk_from = run_end_[static_cast<size_t>(from)];
  for (size_t i = 0; i < candidates.size(); ++i) {
    const NodeId c = candidates[i];
    if (!may_descend(from, c))
      continue;
    if (on_single_user_run(c, from)) {
      is_descendant[i] = 1;
      continue;
    }
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
        is_descendant[j] = may_descend(from, candidates[j]) &&
                           (on_single_user_run(candidates[j], from) ||
                            mark_[static_cast<size_t>(candidates[j])] == stamp_);
      return;
    }
    stack_.push_back(walk_from);
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
